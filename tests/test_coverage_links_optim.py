"""Coverage of Chainer's links, initializers, optimizers and optimizer hooks in fnet.

Every name below (API-CHECKLIST.md sections 3, 4 and 5) must exist in ``fnet.nn``,
``fnet.initializers`` or ``fnet.optim`` with Chainer's constructor parameters: the same names in
the same order, the same defaults, and the same kinds (positional or keyword-only). fnet may add
parameters only where a Chainer program cannot notice: keyword-only ones with defaults, or any
with defaults where Chainer takes ``**kwargs`` (e.g. Convolution2D's ``dilate`` and ``groups``).
Chainer's ``*args`` (MLPConvolution2D's) only rejects removed v1 arguments, so fnet needs none.

The signatures are the checklist's; where its row has none (marked ``# source``), they are
Chainer 7.8.1's ``inspect.signature``. A default written as a dotted name (``relu.relu``) is a
function, matched by its ``__name__``. Each name is its own test case, so a run lists exactly
which are missing or differ.
"""

from __future__ import annotations

import ast
import importlib
import inspect

import numpy
import pytest

LINKS = {
    "Linear": "(in_size: Optional[int], out_size: Optional[int]=None, nobias: bool=False, "
    "initialW: Optional[InitializerSpec]=None, initial_bias: Optional[InitializerSpec]=None)",
    "Bilinear": "(left_size, right_size, out_size, nobias=False, initialW=None, initial_bias=None)",
    "Convolution1D": "(in_channels, out_channels, ksize, stride=1, pad=0, nobias=False, initialW=None, "
    "initial_bias=None, cover_all=False, dilate=1, groups=1)",
    "Convolution2D": "(in_channels, out_channels, ksize=None, stride=1, pad=0, nobias=False, initialW=None, "
    "initial_bias=None, **kwargs)",
    "Convolution3D": "(in_channels, out_channels, ksize, stride=1, pad=0, nobias=False, initialW=None, "
    "initial_bias=None, cover_all=False, dilate=1, groups=1)",
    "ConvolutionND": "(ndim, in_channels, out_channels, ksize=None, stride=1, pad=0, nobias=False, "
    "initialW=None, initial_bias=None, cover_all=False, dilate=1, groups=1)",
    "Deconvolution1D": "(in_channels, out_channels, ksize, stride=1, pad=0, nobias=False, outsize=None, "
    "initialW=None, initial_bias=None, dilate=1, groups=1)",
    "Deconvolution2D": "(in_channels, out_channels, ksize=None, stride=1, pad=0, nobias=False, outsize=None, "
    "initialW=None, initial_bias=None, **kwargs)",
    "Deconvolution3D": "(in_channels, out_channels, ksize, stride=1, pad=0, nobias=False, outsize=None, "
    "initialW=None, initial_bias=None, dilate=1, groups=1)",
    "DeconvolutionND": "(ndim, in_channels, out_channels, ksize=None, stride=1, pad=0, nobias=False, "
    "outsize=None, initialW=None, initial_bias=None, dilate=1, groups=1)",
    "DepthwiseConvolution2D": "(in_channels, channel_multiplier, ksize, stride=1, pad=0, nobias=False, "
    "initialW=None, initial_bias=None)",
    "DilatedConvolution2D": "(in_channels, out_channels, ksize=None, stride=1, pad=0, dilate=1, "
    "nobias=False, initialW=None, initial_bias=None)",
    "LocalConvolution2D": "(in_channels, out_channels, in_size=None, ksize=None, stride=1, nobias=False, "
    "initialW=None, initial_bias=None, **kwargs)",
    "DeformableConvolution2D": "(in_channels, out_channels, ksize, stride=1, pad=0, offset_nobias=False, "
    "offset_initialW=None, offset_initial_bias=None, deform_nobias=False, deform_initialW=None, "
    "deform_initial_bias=None)",
    "EmbedID": "(in_size, out_size, initialW=None, ignore_label=None)",
    "Highway": "(in_out_size, nobias=False, activate=relu.relu, init_Wh=None, init_Wt=None, init_bh=None, "
    "init_bt=-1)",
    "Inception": "(in_channels, out1, proj3, out3, proj5, out5, proj_pool, conv_init=None, bias_init=None)",
    "InceptionBN": "(in_channels, out1, proj3, out3, proj33, out33, pooltype, proj_pool=None, stride=1, "
    "conv_init=None, dtype=None)",
    "MLPConvolution2D": "(in_channels, out_channels, ksize=None, stride=1, pad=0, activation=relu.relu, "
    "*args, **kwargs)",
    "Maxout": "(in_size, out_size, pool_size, initialW=None, initial_bias=0)",
    "PReLU": "(shape=(), init=0.25)",
    "Scale": "(axis=1, W_shape=None, bias_term=False, bias_shape=None)",
    "Bias": "(axis=1, shape=None)",
    "Swish": "(beta_shape, beta_init=1.0)",
    "SimplifiedDropconnect": "(in_size, out_size, ratio=0.5, nobias=False, initialW=None, initial_bias=None)",
    "BatchNormalization": "(size=None, decay=0.9, eps=2e-05, dtype=None, use_gamma=True, use_beta=True, "
    "initial_gamma=None, initial_beta=None, axis=None, initial_avg_mean=None, initial_avg_var=None)",
    "BatchRenormalization": "(size, rmax=1, dmax=0, decay=0.9, eps=2e-05, dtype=None, use_gamma=True, "
    "use_beta=True, initial_gamma=None, initial_beta=None, initial_avg_mean=None, initial_avg_var=None)",
    "DecorrelatedBatchNormalization": "(size, groups=16, decay=0.9, eps=2e-05, dtype=numpy.float32)",
    "GroupNormalization": "(groups, size=None, eps=1e-05, initial_gamma=None, initial_beta=None)",
    "LayerNormalization": "(size=None, eps=1e-06, initial_gamma=None, initial_beta=None)",
    "LSTM": "(in_size, out_size=None, lateral_init=None, upward_init=None, bias_init=None, "
    "forget_bias_init=None)",
    # source
    "StatelessLSTM": "(in_size, out_size=None, lateral_init=None, upward_init=None, bias_init=None, "
    "forget_bias_init=None)",
    "GRU": "(in_size, out_size, init=None, inner_init=None, bias_init=0)",  # source
    "StatelessGRU": "(in_size, out_size, init=None, inner_init=None, bias_init=None)",  # source
    "StatefulGRU": "(in_size, out_size, init=None, inner_init=None, bias_init=0)",
    "StatefulZoneoutLSTM": "(in_size, out_size, c_ratio=0.5, h_ratio=0.5, **kwargs)",
    "StatelessMGU": "(n_inputs, n_units)",  # source
    "StatefulMGU": "(in_size, out_size)",
    # source, all NStep links
    **{
        name: "(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None, **kwargs)"
        for name in (
            "NStepLSTM",
            "NStepBiLSTM",
            "NStepGRU",
            "NStepBiGRU",
            "NStepRNNTanh",
            "NStepRNNReLU",
            "NStepBiRNNTanh",
            "NStepBiRNNReLU",
        )
    },
    "Parameter": "(array)",
    "BinaryHierarchicalSoftmax": "(in_size, tree, dtype=None)",
    "BlackOut": "(in_size, counts, sample_size)",
    "CRF1d": "(n_label, initial_cost=None)",
    "NegativeSampling": "(in_size, counts, sample_size, power=0.75, dtype=None)",
    "Classifier": "(predictor, lossfun=softmax_cross_entropy.softmax_cross_entropy, "
    "accfun=accuracy.accuracy, label_key=-1)",
}

INITIALIZERS = {
    "Initializer": "(dtype: Optional[DTypeSpec]=None)",
    "Identity": "(scale=1.0, dtype=None)",
    "Constant": "(fill_value, dtype=None)",
    # the checklist abridges these three to (); Chainer 7.8.1 takes (dtype=None), as every initializer
    "Zero": "(dtype=None)",
    "One": "(dtype=None)",
    "NaN": "(dtype=None)",
    "Normal": "(scale=0.05, dtype=None, **kwargs)",
    "LeCunNormal": "(scale=1.0, dtype=None, **kwargs)",
    "GlorotNormal": "(scale=1.0, dtype=None, **kwargs)",
    "HeNormal": "(scale=1.0, dtype=None, fan_option='fan_in', **kwargs)",
    "Orthogonal": "(scale=1.1, dtype=None, mode='auto', **kwargs)",
    "Uniform": "(scale=0.05, dtype=None, **kwargs)",
    "LeCunUniform": "(scale=1.0, dtype=None, **kwargs)",
    "GlorotUniform": "(scale=1.0, dtype=None, **kwargs)",
    "HeUniform": "(scale=1.0, dtype=None, **kwargs)",
    "UpsamplingDeconvFilter": "(interpolation='linear', dtype=None)",
    "DownsamplingConvFilter": "(interpolation='linear', dtype=None)",
}

OPTIMIZERS = {
    "SGD": "(lr=0.01)",
    "MomentumSGD": "(lr=0.01, momentum=0.9)",
    "CorrectedMomentumSGD": "(lr=0.01, momentum=0.9)",
    "NesterovAG": "(lr=0.01, momentum=0.9)",
    "AdaGrad": "(lr=0.001, eps=1e-8)",
    "AdaDelta": "(rho=0.95, eps=1e-6)",
    "Adam": "(alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8, eta=1.0, weight_decay_rate=0, amsgrad=False, "
    "adabound=False, final_lr=0.1, gamma=1e-3)",
    "AdamW": "(alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8, eta=1.0, weight_decay_rate=0)",
    "AMSGrad": "(alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8, eta=1.0)",
    "AdaBound": "(alpha=0.001, beta1=0.9, beta2=0.999, final_lr=0.1, gamma=1e-3, eps=1e-8, eta=1.0)",
    "AMSBound": "(alpha=0.001, beta1=0.9, beta2=0.999, final_lr=0.1, gamma=1e-3, eps=1e-8, eta=1.0)",
    "RMSprop": "(lr=0.01, alpha=0.99, eps=1e-8, eps_inside_sqrt=False)",
    "RMSpropGraves": "(lr=1e-4, alpha=0.95, momentum=0.9, eps=1e-4)",
    "SMORMS3": "(lr=0.001, eps=1e-16)",
    "MSVAG": "(lr=0.1, beta=0.9, eta=1.0, weight_decay_rate=0)",
    # optimizer hooks
    "WeightDecay": "(rate)",
    "Lasso": "(rate)",
    "GradientClipping": "(threshold)",
    "GradientHardClipping": "(lower_bound, upper_bound)",
    "GradientNoise": "(eta, noise_func=exponential_decay_noise)",
    "GradientLARS": "(threshold=0.01, weight_decay=0.0, eps=1e-09)",
}

CASES = [
    *(("fnet.nn", "L", name, sig) for name, sig in LINKS.items()),
    *(("fnet.initializers", "initializers", name, sig) for name, sig in INITIALIZERS.items()),
    *(("fnet.optim", "optimizers", name, sig) for name, sig in OPTIMIZERS.items()),
]


class FunctionNamed:
    """A default that is a function, written as a dotted name: equal to a callable of that name."""

    def __init__(self, dotted: str):
        self.name = dotted.rsplit(".", 1)[-1]

    def __eq__(self, other) -> bool:
        return callable(other) and getattr(other, "__name__", None) == self.name

    def __repr__(self) -> str:
        return f"<function {self.name}>"


def _default(node: ast.expr):
    try:
        return ast.literal_eval(node)
    except ValueError:
        dotted = ast.unparse(node)
        if dotted.startswith("numpy."):
            return getattr(numpy, dotted.split(".", 1)[1])
        return FunctionNamed(dotted)


def parse_signature(text: str) -> list[tuple[str, inspect._ParameterKind, object]]:
    """``(name, kind, default)`` of each parameter of ``"(a, b=1, *args, **kwargs)"``."""
    args = ast.parse(f"def f{text}: pass").body[0].args
    params = []
    positional = args.posonlyargs + args.args
    defaults = [inspect.Parameter.empty] * (len(positional) - len(args.defaults)) + [
        _default(d) for d in args.defaults
    ]
    params += [(a.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD, d) for a, d in zip(positional, defaults)]
    if args.vararg:
        params.append((args.vararg.arg, inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.empty))
    params += [
        (a.arg, inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.empty if d is None else _default(d))
        for a, d in zip(args.kwonlyargs, args.kw_defaults)
    ]
    if args.kwarg:
        params.append((args.kwarg.arg, inspect.Parameter.VAR_KEYWORD, inspect.Parameter.empty))
    return params


def _same_default(expected, actual) -> bool:
    if expected is inspect.Parameter.empty or actual is inspect.Parameter.empty:
        return expected is actual
    if isinstance(expected, type) and issubclass(expected, numpy.generic):
        try:
            return numpy.dtype(actual) == numpy.dtype(expected)
        except TypeError:
            return False
    return expected == actual and isinstance(actual, bool) == isinstance(expected, bool)


def signature_problems(expected_text: str, actual: inspect.Signature) -> list[str]:
    """How ``actual`` departs from Chainer's signature; empty when a Chainer call fits it."""
    expected = parse_signature(expected_text)
    actual_params = list(actual.parameters.values())
    by_name = {p.name: p for p in actual_params}
    problems = []
    chainer_kwargs = any(kind is inspect.Parameter.VAR_KEYWORD for _, kind, _ in expected)
    named = [
        (n, k, d)
        for n, k, d in expected
        if k not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    ]
    for name, kind, default in named:
        param = by_name.get(name)
        if param is None:
            problems.append(f"parameter {name!r} is missing")
            continue
        if kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and param.kind is not kind:
            problems.append(f"parameter {name!r} must be positional-or-keyword, is {param.kind.description}")
        if kind is inspect.Parameter.KEYWORD_ONLY and param.kind not in (
            kind,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            problems.append(f"parameter {name!r} must accept a keyword, is {param.kind.description}")
        if not _same_default(default, param.default):
            shown = "no default" if default is inspect.Parameter.empty else f"default {default!r}"
            got = "no default" if param.default is inspect.Parameter.empty else f"default {param.default!r}"
            problems.append(f"parameter {name!r}: Chainer has {shown}, fnet has {got}")
    chainer_positional = [n for n, k, _ in named if k is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    fnet_positional = [p.name for p in actual_params if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    if fnet_positional[: len(chainer_positional)] != chainer_positional:
        problems.append(f"positional order: Chainer has {chainer_positional}, fnet has {fnet_positional}")
    expected_names = {n for n, _, _ in named}
    for param in actual_params:
        if param.name in expected_names or param.kind in (
            inspect.Parameter.VAR_POSITIONAL,
            inspect.Parameter.VAR_KEYWORD,
        ):
            continue
        if param.default is inspect.Parameter.empty:
            problems.append(f"extra parameter {param.name!r} has no default: Chainer calls would fail")
        elif not chainer_kwargs and param.kind is not inspect.Parameter.KEYWORD_ONLY:
            problems.append(
                f"extra parameter {param.name!r} must be keyword-only (Chainer has no such argument)"
            )
    return problems


@pytest.mark.parametrize(
    "module_name, chainer_module, name, expected",
    CASES,
    ids=[f"{module.split('.')[-1]}.{name}" for module, _, name, _ in CASES],
)
def test_exists_with_chainers_signature(module_name, chainer_module, name, expected):
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        pytest.fail(f"{module_name} cannot be imported ({error}), so {module_name}.{name} is missing")
    obj = getattr(module, name, None)
    if obj is None:
        pytest.fail(f"{module_name}.{name} is missing (Chainer: {chainer_module}.{name}{expected})")
    assert name in getattr(module, "__all__", ()), f"{module_name}.{name} exists but is not in __all__"
    problems = signature_problems(expected, inspect.signature(obj))
    assert not problems, (
        f"{module_name}.{name}{inspect.signature(obj)} differs from Chainer's "
        f"{chainer_module}.{name}{expected}:\n  " + "\n  ".join(problems)
    )


def test_case_counts():
    """The lists hold every name of the issue: 52 links, 17 initializers, 15 optimizers and 6 hooks."""
    assert (len(LINKS), len(INITIALIZERS), len(OPTIMIZERS)) == (52, 17, 21)


@pytest.mark.parametrize(
    "expected, actual, problem",
    [
        ("(a, b=1)", "(a, b=1, *, c=2)", None),
        ("(a, b=1, **kwargs)", "(a, b=1, c=2)", None),
        ("(a, b=1)", "(a, b=1, c=2)", "must be keyword-only"),
        ("(a, b=1)", "(a, b=2)", "fnet has default 2"),
        ("(a, b=1)", "(b=1, a=0)", "Chainer has no default"),
        ("(a, b)", "(a)", "'b' is missing"),
        ("(a, *, b=None)", "(a, b=None)", None),
        ("(f=relu.relu)", "(f=len)", "fnet has default <built-in function len>"),
        ("(d=numpy.float32)", "(d='float32')", None),
        ("(x=False)", "(x=0)", "fnet has default 0"),
        ("(a, *args)", "(a)", None),
    ],
)
def test_signature_comparison(expected, actual, problem):
    """The comparison itself: what fnet may add, and what it may not change."""
    namespace: dict = {}
    exec(f"import numpy\ndef f{actual}: pass", namespace)
    problems = signature_problems(expected, inspect.signature(namespace["f"]))
    if problem is None:
        assert problems == []
    else:
        assert any(problem in p for p in problems), problems
