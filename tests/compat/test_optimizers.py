"""chainer.optimizers on fnet.compat: Chainer 7.8.1's trajectories, state, key layout and resumption.

The golden runs (tests/golden/make_compat_optimizers.py) train a three-layer chain through
Chainer's stateful API, with hooks, per-rule settings, attribute changes between updates and
loss scaling; fnet.compat must follow them update for update, save the same entries, and go
on from a snapshot that Chainer saved.
"""

import inspect
import json
import pathlib
import warnings

import numpy
import pytest

import fnet.compat as chainer
from fnet import optim
from fnet.compat import functions as F
from fnet.compat import links as L
from fnet.compat import optimizer_hooks, optimizers
from fnet.compat.link import Chain
from fnet.compat.serializer import Deserializer, Serializer

GOLDEN = numpy.load(pathlib.Path(__file__).parents[1] / "golden" / "compat_optimizers.npz")
CASES = json.loads(str(GOLDEN["cases"]))
STEPS, SNAP, CHANGE_AT = 5, 3, 2
DATA = {key[len("data/") :]: GOLDEN[key] for key in GOLDEN.files if key.startswith("data/")}
NAMES = ["SGD", "MomentumSGD", "CorrectedMomentumSGD", "NesterovAG", "AdaGrad", "AdaDelta", "Adam", "AdamW"]
NAMES += ["AMSGrad", "AdaBound", "AMSBound", "RMSprop", "RMSpropGraves", "SMORMS3", "MSVAG"]


class Net(Chain):
    """The golden script's chain, built the same way (Linear links with fixed arrays)."""

    def __init__(self, arrays):
        super().__init__()
        with self.init_scope(), chainer.using_config("dtype", arrays["l1/W"].dtype):
            for name in ("l1", "l2", "l3"):
                W, b = arrays[f"{name}/W"], arrays[f"{name}/b"]
                link = L.Linear(W.shape[1], W.shape[0], initialW=W, initial_bias=b)
                # compat.links draws a given array through float32: set the exact float64 values
                link.W.array[...], link.b.array[...] = W, b
                setattr(self, name, link)

    def loss(self, x, y, unused):
        h = self.l2(F.tanh(self.l1(x)))
        if not unused:
            h = self.l3(h)
        return F.mean_squared_error(h, y)


class DictSaver(Serializer):
    """Chainer's DictionarySerializer protocol, in a few lines."""

    def __init__(self, target, path=""):
        self.target, self.path = target, path

    def __getitem__(self, key):
        return DictSaver(self.target, self.path + key.strip("/") + "/")

    def __call__(self, key, value):
        self.target[self.path + key] = numpy.asarray(value)
        return value


class DictLoader(Deserializer):
    """Chainer's NpzDeserializer protocol, in a few lines."""

    def __init__(self, source, path=""):
        self.source, self.path = source, path

    def __getitem__(self, key):
        return DictLoader(self.source, self.path + key.strip("/") + "/")

    def __call__(self, key, value):
        data = self.source[self.path + key]
        if value is None:
            return data.copy()
        if isinstance(value, numpy.ndarray):
            value[...] = data
            return value
        return type(value)(data)


def ramp_noise(xp, shape, dtype, hook, opt):
    size = int(numpy.prod(shape))
    return (hook.eta * (1 + opt.t) * xp.linspace(-1.0, 1.0, size)).reshape(shape).astype(dtype)


def make_hook(name, kwargs):
    kwargs = dict(kwargs)
    if "noise_func" in kwargs:
        kwargs["noise_func"] = {"ramp_noise": ramp_noise}[kwargs.pop("noise_func")]
    return getattr(optimizer_hooks, name)(**kwargs)


def rule_of(model, path):
    return dict(model.namedparams())["/" + path].update_rule


def build(spec, arrays=DATA):
    model = Net(arrays)
    optimizer = getattr(optimizers, spec["optimizer"])(**spec["kwargs"]).setup(model)
    for name, kwargs in spec["hooks"]:
        optimizer.add_hook(make_hook(name, kwargs))
    for path, values in spec["override"].items():
        for key, value in values.items():
            setattr(rule_of(model, path).hyperparam, key, value)
    for path, hooks in spec["rule_hooks"].items():
        for name, kwargs in hooks:
            rule_of(model, path).add_hook(make_hook(name, kwargs))
    for path in spec["disabled"]:
        rule_of(model, path).enabled = False
    if spec["loss_scale"] == "dynamic":
        optimizer.loss_scaling(interval=2)
    elif spec["loss_scale"] is not None:
        optimizer.loss_scaling(scale=spec["loss_scale"])
    return model, optimizer


def golden(spec, prefix):
    start = f"{spec['name']}/{prefix}/"
    return {key[len(start) :]: GOLDEN[key] for key in GOLDEN.files if key.startswith(start)}


def check_params(model, spec, step):
    for name, param in model.namedparams():
        expected = GOLDEN[f"{spec['name']}/traj/{name[1:]}"][step]
        numpy.testing.assert_allclose(
            param.array, expected, rtol=1e-9, atol=1e-12, err_msg=f"{name} at {step}"
        )


def check_saved(saved, expected):
    assert sorted(saved) == sorted(expected)
    for key, value in expected.items():
        numpy.testing.assert_allclose(saved[key], value, rtol=1e-9, atol=1e-12, err_msg=key)


def step(spec, model, optimizer, i):
    if spec["change"] is not None and i == CHANGE_AT:
        setattr(optimizer, *spec["change"])
    optimizer.update(model.loss, DATA["x"], DATA["y"], spec["unused"])


@pytest.mark.parametrize("spec", CASES, ids=[c["name"] for c in CASES])
def test_updates_follow_chainer(spec):
    model, optimizer = build(spec)
    for i in range(STEPS):
        step(spec, model, optimizer, i)
        if i == 0:
            optimizer.new_epoch()
        check_params(model, spec, i)
        scale = optimizer._loss_scale
        assert (numpy.nan if scale is None else scale) == pytest.approx(
            GOLDEN[f"{spec['name']}/loss_scale"][i], nan_ok=True
        )
        if isinstance(optimizer, optimizers.Adam):
            assert optimizer.alpha_t == pytest.approx(GOLDEN[f"{spec['name']}/alpha_t"][i], rel=1e-12)
    saved = {}
    DictSaver(saved).save(optimizer)
    check_saved(saved, golden(spec, "final"))


@pytest.mark.parametrize("spec", CASES, ids=[c["name"] for c in CASES])
def test_training_resumes_from_a_chainer_snapshot(spec):
    model, optimizer = build(spec, {**DATA, **golden(spec, "snap_params")})
    if spec["change"] is not None:
        setattr(optimizer, *spec["change"])
    DictLoader(golden(spec, "snap")).load(optimizer)
    assert (optimizer.t, optimizer.epoch) == (SNAP, 1)
    for i in range(SNAP, STEPS):
        optimizer.update(model.loss, DATA["x"], DATA["y"], spec["unused"])
        check_params(model, spec, i)


def test_every_optimizer_is_covered_by_a_golden_case():
    assert set(NAMES) <= {c["optimizer"] for c in CASES}
    assert set(NAMES) <= set(optimizers.__all__)


def test_the_optimizers_are_the_pure_ones_and_their_rules():
    """One list of names: the compat module holds a class per fnet.optim factory, and its
    ``__all__`` is drawn from the classes it defines (the optimizers, then their rules)."""
    assert list(optim.OPTIMIZERS) == NAMES
    here = [n for n, v in vars(optimizers).items() if getattr(v, "__module__", None) == optimizers.__name__]
    rules = sorted(n for n in here if n.endswith("Rule") and not n.startswith("_"))
    assert optimizers.__all__ == NAMES + [n for n in optimizers.__all__ if n.endswith("Rule")]
    assert sorted(optimizers.__all__[len(NAMES) :]) == rules
    for name in NAMES:
        assert (
            optimizers.__all__.count(name) == 1 and getattr(optimizers, name)._pure is optim.OPTIMIZERS[name]
        )


@pytest.mark.parametrize("name", NAMES)
def test_constructor_defaults_are_the_pure_optimizers(name):
    compat = inspect.signature(getattr(optimizers, name)).parameters
    pure = inspect.signature(getattr(optim, name)).parameters
    assert list(compat) == [p for p in pure if p != "per_param"]
    assert all(compat[p].default == pure[p].default for p in compat)
    # and the values it holds are those of the pure transformation, given or implied
    optimizer = getattr(optimizers, name)()
    tx = getattr(optim, name)()
    assert optimizer.hyperparam.get_dict() == tx.hyperparams(tx.init({}))


def test_the_constructor_is_read_from_the_pure_factory(monkeypatch):
    """A default changed in fnet.optim is the default of chainer.optimizers: nothing re-lists it."""
    original = optim.MomentumSGD

    def MomentumSGD(lr=0.25, momentum=0.5, *, per_param=None):
        return original(lr, momentum, per_param=per_param)

    class Derived(optimizers.MomentumSGD, pure=MomentumSGD):
        """A MomentumSGD of other defaults."""

    assert str(inspect.signature(Derived)) == "(lr=0.25, momentum=0.5)"
    assert (Derived().lr, Derived().momentum, Derived(0.1).lr, Derived(momentum=0.0).momentum) == (
        0.25,
        0.5,
        0.1,
        0.0,
    )
    with pytest.raises(TypeError, match=r"Derived\(lr=0.25, momentum=0.5\): too many positional arguments"):
        Derived(0.1, 0.2, 0.3)


def test_adam_step_size_is_one_function_for_both_layers(monkeypatch):
    calls = []
    real = optim.adam_step_size

    def spy(alpha, beta1, beta2, t):
        calls.append(t)
        return real(alpha, beta1, beta2, t)

    monkeypatch.setattr(optim, "adam_step_size", spy)
    monkeypatch.setattr(optim.optimizers, "adam_step_size", spy)
    optimizer = optimizers.Adam(alpha=0.1)
    optimizer.t = 3
    assert optimizer.alpha_t == real(0.1, 0.9, 0.999, 3) and calls == [3]
    rule = optimizers.AdamRule(optimizer.hyperparam)
    rule.t = 2
    assert rule.alpha_t == real(0.1, 0.9, 0.999, 2) and calls == [3, 2]
    tx = optim.Adam(alpha=0.1)
    params = {"w": numpy.ones(2)}
    optim.step(tx, {"w": numpy.ones(2)}, tx.init(params), params)
    assert calls == [3, 2, 1]


@pytest.mark.parametrize("name", NAMES)
def test_hyperparameters_are_attributes(name):
    optimizer = getattr(optimizers, name)()
    entries = optimizer.hyperparam.get_dict()
    for key, value in entries.items():
        assert getattr(optimizer, key) == value
    first = next(iter(inspect.signature(type(optimizer)).parameters))
    setattr(optimizer, first, 0.5)
    assert getattr(optimizer.hyperparam, first) == 0.5
    rule = optimizer.create_update_rule()
    assert rule.hyperparam.parent is optimizer.hyperparam
    assert getattr(rule.hyperparam, first) == 0.5


def test_adam_variants_fix_their_flags():
    assert (optimizers.AMSGrad().amsgrad, optimizers.AMSGrad().adabound) == (True, False)
    assert (optimizers.AdaBound().amsgrad, optimizers.AdaBound().adabound) == (False, True)
    assert (optimizers.AMSBound().amsgrad, optimizers.AMSBound().adabound) == (True, True)
    assert isinstance(optimizers.AdamW(), optimizers.Adam)
    assert type(optimizers.AdamW().create_update_rule()) is optimizers.AdamRule


def test_adam_alpha_t_needs_an_update_and_lr_is_its_deprecated_name():
    optimizer = optimizers.Adam()
    with pytest.raises(RuntimeError, match="update steps have not been started"):
        _ = optimizer.alpha_t
    optimizer.t = 2
    with pytest.warns(DeprecationWarning, match="Adam.lr"):
        assert optimizer.lr == optimizer.alpha_t


def test_update_rules_take_chainer_arguments():
    rule = optimizers.AdamRule(None, 0.1, beta2=0.9)
    assert (rule.hyperparam.alpha, rule.hyperparam.beta2, rule.hyperparam.beta1) == (0.1, 0.9, 0.9)
    assert list(inspect.signature(optimizers.SGDRule).parameters) == ["parent_hyperparam", "lr"]
    assert rule.is_elementwise
    with pytest.raises(TypeError, match="unexpected hyperparameter 'lr'"):
        optimizers.AdamRule(lr=0.1)
    with pytest.raises(TypeError, match="twice"):
        optimizers.SGDRule(None, 0.1, lr=0.2)


def test_bad_hyperparameters_are_reported_at_construction():
    with pytest.raises(ValueError, match="lr"):
        optimizers.SGD(lr="fast")
    with pytest.raises(ValueError, match="amsgrad"):
        optimizers.Adam(amsgrad="yes")


def test_a_rule_updated_on_its_own_matches_the_batched_update():
    spec = next(c for c in CASES if c["name"] == "Adam")
    batched, opt_batched = build(spec)
    alone, opt_alone = build(spec)
    for param in alone.params():  # a hook that does nothing sends every rule through rule.update
        param.update_rule.add_hook(lambda rule, param: None, name="noop")
    for i in range(STEPS):
        step(spec, batched, opt_batched, i)
        step(spec, alone, opt_alone, i)
        for (name, a), (_, b) in zip(batched.namedparams(), alone.namedparams()):
            numpy.testing.assert_array_equal(a.array, b.array, err_msg=name)  # one computation


def test_a_changed_hyperparameter_takes_effect_at_the_next_update():
    model = Net(DATA)
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    before = model.l1.W.array.copy()
    model.cleargrads()
    model.loss(DATA["x"], DATA["y"], False).backward()
    grad = model.l1.W.grad.copy()
    optimizer.lr = 0.0
    optimizer.update()
    numpy.testing.assert_array_equal(model.l1.W.array, before)
    model.l1.W.update_rule.hyperparam.lr = 1.0
    optimizer.update()
    numpy.testing.assert_allclose(model.l1.W.array, before - grad)


def test_parameters_are_updated_in_place():
    model = Net(DATA)
    optimizer = optimizers.Adam().setup(model)
    array = model.l1.W.array
    optimizer.update(model.loss, DATA["x"], DATA["y"], False)
    assert model.l1.W.array is array
    state = model.l1.W.update_rule.state
    optimizer.update(model.loss, DATA["x"], DATA["y"], False)
    assert model.l1.W.update_rule.state is state


def test_states_are_made_lazily_and_follow_amsgrad():
    model = Net(DATA)
    optimizer = optimizers.Adam(amsgrad=True).setup(model)
    assert model.l1.W.update_rule.state is None
    optimizer.update(model.loss, DATA["x"], DATA["y"], False)
    assert sorted(model.l1.W.update_rule.state) == ["m", "v", "vhat"]


def test_float16_parameters_update_with_fp32_master_copies():
    arrays = {k: v.astype(numpy.float16) for k, v in DATA.items()}
    model = Net(arrays)
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    optimizer.use_fp32_update()
    start = model.l1.W.array.copy()
    model.l1.W.grad = numpy.full((4, 3), 1e-3, numpy.float16)
    for _ in range(3):
        model.l1.W.update_rule.update(model.l1.W)
    master = model.l1.W.update_rule._fp32_param.array
    assert master.dtype == numpy.float32
    numpy.testing.assert_allclose(master, start.astype(numpy.float32) - 3e-4, rtol=1e-3)
    numpy.testing.assert_array_equal(model.l1.W.array, master.astype(numpy.float16))


def test_float16_parameters_update_without_fp32():
    arrays = {k: v.astype(numpy.float16) for k, v in DATA.items()}
    model = Net(arrays)
    optimizer = optimizers.Adam(alpha=0.01).setup(model)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        optimizer.update(model.loss, arrays["x"], arrays["y"], False)
    assert model.l1.W.array.dtype == numpy.float16
    assert model.l1.W.update_rule.state["m"].dtype == numpy.float16


def test_the_module_holds_chainers_optimizers_only():
    import fnet.compat as chainer
    from fnet.compat import optimizers as module

    found = {
        n
        for n in dir(module)
        if isinstance(getattr(module, n), type) and issubclass(getattr(module, n), chainer.Optimizer)
    }
    assert found == set(module.__all__) - {n for n in module.__all__ if n.endswith("Rule")}
    assert issubclass(module.AdaBound, chainer.GradientMethod)


def test_a_switch_given_another_value_counts_by_its_truth_as_in_chainer():
    # Chainer stores the value and tests it by truth: Adam(amsgrad=0.1) is AMSGrad
    def run(**hyperparams):
        link = chainer.Link()
        with link.init_scope():
            link.w = chainer.Parameter(numpy.array([1.0, -2.0], numpy.float32))
        optimizer = chainer.optimizers.Adam(**hyperparams)
        optimizer.setup(link)
        for g in ([10.0, 10.0], [0.0, 0.0], [0.0, 0.0]):  # a falling second moment: AMSGrad keeps its max
            link.w.grad = numpy.array(g, numpy.float32)
            optimizer.update()
        return optimizer, link.w.array

    optimizer, truthy = run(amsgrad=0.1)
    assert optimizer.hyperparam.amsgrad == 0.1
    _, amsgrad = run(amsgrad=True)
    _, plain = run(amsgrad=False)
    numpy.testing.assert_array_equal(truthy, amsgrad)  # the same float32 operations, bit for bit
    assert not numpy.array_equal(truthy, plain)
    rms = chainer.optimizers.RMSprop(eps_inside_sqrt=0.1)
    assert rms.hyperparam.eps_inside_sqrt == 0.1
