"""``--backend=strict``: the CPU suites run with fnet's inputs on the stand-in device.

The stand-in device (``_device_double``) is installed for the whole session, and the public
functions of ``fnet.functions``, ``fnet.ops`` and ``fnet.nn``, the transforms (``fnet.grad``,
``value_and_grad``, ``vjp``, ``jacobian``, ``hessian``, and the functions they return), the
checks of ``fnet.testing``, the operators of traced values, the public methods of layers (the
results of ``init`` and ``init_state`` too), distributions' constructors and methods,
``optim.step`` and its kin, a ``Transform``'s ``init`` and ``update``, train steps and
``fnet.capture``'d functions send the host arrays that test code passes them to the device,
as views of them (what fnet writes in place, the test sees). A ``FunctionalUpdater`` that
test code gives no device gets the stand-in.
With ``--backend=strict-compat``, ``fnet.compat`` is imported after the stand-in, whose CuPy
face its ``cuda`` module binds, so Chainer's device model sees a GPU, and compat sends where
test code meets it (``_send_compat``); with ``--backend=strict`` it keeps to the host.
CI runs the ops, functions, nn, optim and training suites so, and a compat subset with
``strict-compat`` (``.ci/run``); the tests in ``NOT_RUN`` assert
things about the host itself and are skipped, each with its reason.
Inside fnet nothing is converted: a host array that fnet itself makes and mixes with device
values (a leak) fails as it would on a GPU. Test code may mix the device results with host
arrays (comparisons, ``numpy.testing``): from a frame outside fnet, a host operand is taken as
sent. What a test asserts is unchanged; only where fnet's values live is.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import inspect
import sys

import numpy

import fnet
import fnet.functions
import fnet.nn
import fnet.ops
import fnet.optim
import fnet.recording
import fnet.testing
import fnet.training
from fnet import tree

from . import _device_double

__all__ = ["install"]

_installed: list = []
# the senders made (not an attribute of theirs: functools.wraps would copy it to what wraps them)
_senders: set = set()
_OPERATORS = {
    f"__{prefix}{op}__"
    for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul")
    for prefix in ("", "r")
} | {"__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__array_ufunc__", "dot"}
_TRANSFORMS = ("grad", "value_and_grad", "vjp", "jacobian", "hessian")
_MADE_ON_THE_HOST = ("init", "init_state")  # layer methods whose results test code would send
_OPTIM_FUNCTIONS = ("step", "step_in_place", "apply_updates", "apply_updates_in_place")


def _called_from_fnet(depth: int = 2) -> bool:
    """Whether the code that called the wrapper (``depth`` frames up) is fnet's own."""
    return sys._getframe(depth).f_globals.get("__name__", "").startswith("fnet.")


def _sent(value):
    """``value`` with every host array leaf (numbers, not objects or strings) sent to the device;
    ``value`` itself when it holds none (so fnet may hand back the very object, as it would)."""

    def send(leaf):  # a view: what fnet writes in place, the test sees (as if it held the device array)
        if type(leaf) is numpy.ndarray and leaf.dtype.kind in "biufc":
            return leaf.view(_device_double.DeviceArray)
        return leaf

    if not any(type(leaf) is numpy.ndarray for leaf in tree.leaves(value)):
        return value
    return tree.map(send, value)


def _call_sent(fn, head: tuple, args: tuple, kwargs: dict):
    """``fn(*head, *args, **kwargs)`` with each of ``args`` and ``kwargs`` sent on its own."""
    return fn(*head, *map(_sent, args), **{name: _sent(value) for name, value in kwargs.items()})


def _sending(fn, *, method: bool = False, result: bool = False):
    """``fn``, sending the host arrays of a call from test code to the device (not ``self``, for
    a ``method``); with ``result``, those of its result too: for what makes arrays on the host as
    a first step (a layer's ``init``), which test code on a GPU would send with ``to_device``."""
    if fn in _senders:
        return fn

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if _called_from_fnet():
            return fn(*args, **kwargs)
        head, args = (args[:1], args[1:]) if method else ((), args)
        made = _call_sent(fn, head, args, kwargs)
        return _sent(made) if result else made

    _senders.add(call)
    return call


def _transform(make):
    """A transform whose results (functions, and vjp's pullback) send their inputs from test code
    to the device too."""

    @functools.wraps(make)
    def transform(*args, **kwargs):
        if _called_from_fnet():
            return make(*args, **kwargs)
        made = _call_sent(make, (), args, kwargs)  # vjp(f, *primals) takes arrays itself
        if isinstance(made, tuple):  # vjp's (value, pullback)
            return tuple(_sending(m) if callable(m) else m for m in made)
        return _sending(made) if callable(made) else made

    return transform


def _send_layer_methods(cls: type) -> None:
    """A layer class's own public methods (``apply``, ``extract``...) and ``__call__`` send what
    test code passes them; ``init`` and ``init_state`` send their results too."""
    for name, attr in list(vars(cls).items()):
        if inspect.isfunction(attr) and (name == "__call__" or not name.startswith("_")):
            setattr(cls, name, _sending(attr, method=True, result=name in _MADE_ON_THE_HOST))


def _on_every_subclass(root: type, patch) -> None:
    """``patch(cls)`` for ``root`` and every subclass of it, those defined later (by tests) too."""
    pending = [root]
    while pending:
        cls = pending.pop()
        patch(cls)
        pending.extend(cls.__subclasses__())
    defined = root.__dict__.get("__init_subclass__")

    @classmethod
    def init_subclass(cls, **kwargs):
        if defined is None:
            super(root, cls).__init_subclass__(**kwargs)
        else:
            defined.__func__(cls, **kwargs)
        patch(cls)

    root.__init_subclass__ = init_subclass


_wrapped_members: dict = {}


def _send_transforms() -> None:
    """``optim.step`` and its kin, ``make_train_step``'s steps, and a Transform's ``init``,
    ``update``, ``step`` and ``step_in_place`` send what test code passes them."""
    for name in _OPTIM_FUNCTIONS:
        sending = _sending(getattr(fnet.optim.transform, name))
        setattr(fnet.optim.transform, name, sending)
        setattr(fnet.optim, name, sending)
    steps = fnet.optim.train_step._TrainStep  # what make_train_step returns
    steps.__call__ = _sending(steps.__call__, method=True)
    transform = fnet.optim.Transform
    for name in ("step", "step_in_place"):
        setattr(transform, name, _sending(getattr(transform, name), method=True))
    attribute = transform.__getattribute__

    def getattribute(self, name):
        value = attribute(self, name)
        if name not in ("init", "update") or not callable(value):
            return value
        key = (id(value), name)  # one sender per function: ``tx.init is tx.init`` still holds
        if key not in _wrapped_members or _wrapped_members[key][0] is not value:
            _wrapped_members[key] = (value, _sending(value))
        return _wrapped_members[key][1]

    transform.__getattribute__ = getattribute


def _on_the_device(init, before=None):
    """An updater's (or evaluator's) ``__init__`` that puts the model and its batches on the
    stand-in device when test code names none (as a test on a GPU would pass
    ``device='@cupy:0'``); ``before(args, kwargs)`` runs first then (to move links)."""
    position = list(inspect.signature(init).parameters).index("device") - 1  # in args, after self

    @functools.wraps(init)
    def call(self, *args, **kwargs):
        given = len(args) > position and args[position] is not None or kwargs.get("device") is not None
        if not _called_from_fnet() and not given:
            if before is not None:
                before(args, kwargs)
            device = fnet.backend.get_device("@cupy:0")  # fnet's Device: no compat reader
            if len(args) > position:  # a None given in its place
                args = (*args[:position], device, *args[position + 1 :])
            else:
                kwargs["device"] = device
        init(self, *args, **kwargs)

    return call


# -- fnet.compat: Chainer's device model sees the stand-in as its GPU -------------------------


@contextlib.contextmanager
def _as_views():
    """Within the block, the stand-in's host-to-device copies are views (what fnet writes in
    place, the test sees), as the senders' are."""
    _device_double.transfers_as_views(True)
    try:
        yield
    finally:
        _device_double.transfers_as_views(False)


def _send_link(compat, link) -> None:
    """Move ``link`` (its hierarchy) from the host to the stand-in, as a test on a GPU would
    with ``to_device('@cupy:0')``; a link on another device stays there."""
    made = isinstance(link, compat.Link) and "_params" in vars(link)  # a missing __init__ call: its error
    if made and isinstance(link.device, compat.backend.CpuDevice):
        with _as_views():
            link.to_device("@cupy:0")


def _moving_links(compat, fn, links_of):
    """``fn`` (a method), first moving the links ``links_of(self, args)`` to the stand-in, when
    test code calls it."""
    if fn in _senders:
        return fn

    @functools.wraps(fn)
    def call(self, *args, **kwargs):
        if _called_from_fnet():
            return fn(self, *args, **kwargs)
        for link in links_of(self, args):
            _send_link(compat, link)
        return _call_sent(fn, (self,), args, kwargs)

    _senders.add(call)
    return call


def _link_sending(compat, fn):
    """A link method that first moves its link to the stand-in, when test code calls it."""
    return _moving_links(compat, fn, lambda self, args: (self,))


def _optimizer_sending(compat, fn):
    """``Optimizer.setup`` or ``update`` that first moves the link it is given (or its target)
    to the stand-in, when test code calls it."""
    return _moving_links(compat, fn, lambda self, args: (*args[:1], getattr(self, "target", None)))


def _function_sending(compat, fn):
    """A function of ``chainer.functions`` that moves the links test code passes it (``forget``
    runs one) to the stand-in, and sends the host arrays."""
    sending = _sending(fn)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if not _called_from_fnet():
            for arg in args:  # a link, or one bound in a functools.partial
                _send_link(compat, arg.func if isinstance(arg, functools.partial) else arg)
        return sending(*args, **kwargs)

    _senders.add(call)
    return call


def _send_everywhere(given, sending=None) -> None:
    """``given`` replaced by its sender (``sending``, or one that sends its arrays) in each
    ``fnet.compat`` module that holds it (Chainer's module paths: ``chainer.grad is
    chainer.function_node.grad`` still holds)."""
    sending = sending or _sending(given)
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("fnet.compat"):
            for name, value in list(vars(module).items()):
                if value is given:
                    setattr(module, name, sending)


def _send_distribution_methods(cls: type) -> None:
    """A distribution class's ``__init__`` and public methods (``log_prob``, ``cdf``...) send
    what test code passes them."""
    for name, attr in list(vars(cls).items()):
        if inspect.isfunction(attr) and (name == "__init__" or not name.startswith("_")):
            setattr(cls, name, _sending(attr, method=True))


def _patch_defined(names, wrap):
    """A patch for ``_on_every_subclass``: ``wrap`` each of ``names`` that the class defines."""

    def patch(cls):
        for name in names:
            if inspect.isfunction(vars(cls).get(name)):
                setattr(cls, name, wrap(vars(cls)[name]))

    return patch


def _send_compat() -> None:
    """``fnet.compat``, imported with the stand-in installed (its ``cuda`` module binds it as
    CuPy: ``cuda.available``, ``get_device('@cupy:0')``, ``to_gpu``...), with senders where test
    code meets it: ``Variable`` and ``Parameter`` (made, or given an array or a gradient), their
    operators, ``chainer.functions``, ``FunctionNode.apply``, distributions, the gradient checks, links (moved
    to the stand-in when test code calls them) and optimizers (their target moved at ``setup``
    and ``update``)."""
    compat = importlib.import_module("fnet.compat")
    variable = compat.Variable
    for cls in (variable, compat.Parameter):
        cls.__init__ = _sending(cls.__init__, method=True)
    for name in ("array", "data", "grad"):
        prop = vars(variable)[name]
        setattr(
            variable, name, property(prop.fget, _sending(prop.fset, method=True), prop.fdel, prop.__doc__)
        )
    for name in _OPERATORS & set(dir(variable)):
        setattr(variable, name, _sending(getattr(variable, name), method=True))
    for module in (compat.functions, compat.gradient_check):
        for name in module.__all__:
            attr = getattr(module, name)
            if callable(attr) and not isinstance(attr, type):
                setattr(module, name, _function_sending(compat, attr))
    for name in ("backward", "grad"):  # chainer.backward and chainer.grad take arrays of gradients
        _send_everywhere(getattr(compat.variable, name))
    node = compat.FunctionNode
    node.apply = _sending(node.apply, method=True)
    compat.Function.__call__ = _sending(compat.Function.__call__, method=True)  # old-style functions
    _on_every_subclass(compat.Distribution, _send_distribution_methods)
    # modules whose functions, private ones too, Chainer's tests (and these) call with arrays
    for name in ("distributions", "_backprop_utils", "link_hooks.spectral_normalization"):
        module = importlib.import_module(f"fnet.compat.{name}")
        for attr in list(vars(module).values()):
            if inspect.isfunction(attr) and attr.__module__ == module.__name__:
                _send_everywhere(attr)
    _on_every_subclass(
        compat.Link, _patch_defined(("__call__", "forward"), functools.partial(_link_sending, compat))
    )
    _on_every_subclass(
        compat.Optimizer, _patch_defined(("setup", "update"), functools.partial(_optimizer_sending, compat))
    )
    # a test case's host configuration runs it on the stand-in, as the case's use_cuda one would
    config = compat.testing.BackendConfig
    chosen = config.device

    def device(self):
        if not (self.use_cuda or self.use_chainerx or self.use_ideep != "never"):
            return compat.backend.GpuDevice.from_device_id(0)
        return chosen.fget(self)

    config.device = property(device, doc=chosen.__doc__)
    onnx_chainer = importlib.import_module("fnet.compat.onnx_chainer")  # export(model, args): both sent
    for name in ("export", "export_testcase"):
        given = getattr(onnx_chainer, name)
        _send_everywhere(given, _function_sending(compat, given))
    # updaters and evaluators that test code gives no device feed their batches to the stand-in,
    # where the models are (an evaluator's target moved first, as a test on a GPU would)
    standard = fnet.training.updaters.StandardUpdater
    standard.__init__ = _as_views()(_on_the_device(standard.__init__))  # a context manager decorates
    evaluator = fnet.training.extensions.Evaluator

    def move_target(args, kwargs):  # the target's links, and an eval_func that is a link
        target = args[1] if len(args) > 1 else kwargs.get("target")
        eval_func = args[5] if len(args) > 5 else kwargs.get("eval_func")
        for link in (*(target.values() if isinstance(target, dict) else (target,)), eval_func):
            _send_link(compat, link)

    evaluator.__init__ = _on_the_device(evaluator.__init__, before=move_target)


def compat_gpu_id() -> int:
    """The GPU a Chainer program in a test should pick (its ``gpu_id``): 0, the stand-in, with
    ``--backend=strict-compat``; else -1, the host (a guide's "set to -1 if you use CPU")."""
    return 0 if _compat_on_device else -1


_compat_on_device: list = []


def install(compat: bool = False) -> None:
    """Install the stand-in device and the senders (for the rest of the process); with
    ``compat``, ``fnet.compat`` on the stand-in too (else it is imported first and keeps to the
    host, as this machine has no CuPy)."""
    if not compat:
        importlib.import_module("fnet.compat")
    _device_double.lenient_outside_fnet(True)
    _installed.append(_device_double.installed())  # kept: a collected one would uninstall itself
    _installed[0].__enter__()
    for module in (fnet.functions, fnet.ops):
        for name in module.__all__:
            attr = getattr(module, name)
            if callable(attr) and not isinstance(attr, type):
                setattr(module, name, _sending(attr))
    for name in _TRANSFORMS:
        setattr(fnet, name, _transform(getattr(fnet, name)))
    for name in _OPERATORS & set(dir(fnet.Tracer)):  # x * y_host, y_host * x: x traced, in a test
        setattr(fnet.Tracer, name, _sending(getattr(fnet.Tracer, name)))
    for module in (fnet.nn, fnet.nn.spectral_normalization):  # the functions of layers' math
        for name in module.__all__:
            if inspect.isfunction(getattr(module, name)):
                setattr(module, name, _sending(getattr(module, name)))
    captured = fnet.recording.Captured  # what fnet.capture returns
    captured.__call__ = _sending(captured.__call__, method=True)
    if importlib.util.find_spec("onnx") is not None:  # the onnx extra: export(fn, params, *args), all sent
        exporter = importlib.import_module("fnet.onnx")
        exporter.export = _sending(exporter.export)
    _on_every_subclass(fnet.nn.Layer, _send_layer_methods)
    _on_every_subclass(importlib.import_module("fnet.distributions").Distribution, _send_distribution_methods)
    updater = fnet.training.updaters.FunctionalUpdater
    updater.__init__ = _on_the_device(updater.__init__)
    _send_transforms()
    for name in fnet.testing.__all__:
        attr = getattr(fnet.testing, name)
        if callable(attr) and not isinstance(attr, type):
            setattr(fnet.testing, name, _sending(attr))
    if compat:
        _send_compat()
        _compat_on_device.append(True)


_SAME_OBJECT = "asserts that fnet returned the very array it was given (the sender gave fnet a device view)"
_HOST_TYPE = "asserts that a result is a numpy.ndarray (on a device it is the device's array type)"
_HOST_NAME = "matches an error message naming the host type 'ndarray' (on a device: the device's type)"
_INTROSPECTION = "inspects the public functions' objects, which the senders wrap"
_OWN_DEVICE = "a device test of its own that passes host arrays on purpose (run without --backend)"
_SPARSE = "fnet's sparse functions need cupyx.scipy.sparse on a device; the stand-in has none"
_HOST_MODULE = "asserts that an array module (or a variable's device) is the host's"
_PLAIN_CHILD = "replaces a child link by a plain function, which to_device cannot visit (nor can Chainer's)"
_KERNELS = "compiles CUDA C kernels (cuda.elementwise, reduce, raw), which the stand-in cannot run"
_CUPY_INTERNALS = "hooks into CuPy's memory allocator (cupy.cuda.memory_hook), which the stand-in has none of"
_CPU_ONLY = (
    "defines only the host's code (forward_cpu, update_core_cpu), which a GPU does not run "
    "(Chainer raises the same error)"
)
_HOST_ON_PURPOSE = (
    "runs its updater on the host on purpose (device '@numpy', or workers on CPU devices), where "
    "the stand-in has moved its models"
)
_HOST_LINK = "asserts what is done to a link on the host (refused as not on a GPU, or packed there)"
_HOST_CONFIG = "asserts that a host BackendConfig is the host's (with strict-compat it names the stand-in)"
_HOST_IN_STEP = (
    "its step, test code run inside fnet.capture, makes a host array and mixes it with the inputs "
    "(on a GPU the step would make it with the device's module)"
)
_NO_DEVICE = (
    "asserts that an updater given no device has none (given none by test code, it gets the stand-in)"
)

# Tests whose assertions are about the host itself, not about fnet's values: not run here.
NOT_RUN = {
    "tests/functions/test_activation.py::"
    "test_rrelu_uses_the_given_r_in_training_and_the_mean_slope_in_test_mode": _SAME_OBJECT,
    "tests/functions/test_array.py::test_a_cast_to_the_same_dtype_is_a_node_of_its_own": _SAME_OBJECT,
    "tests/functions/test_array.py::test_broadcast": _SAME_OBJECT,
    "tests/functions/test_math.py::test_add_is_n_ary": _SAME_OBJECT,
    "tests/functions/test_math.py::test_identity": _SAME_OBJECT,
    "tests/functions/test_math.py::test_sum_to": _SAME_OBJECT,
    "tests/functions/test_noise.py::test_dropout_test_mode_and_zero_ratio": _SAME_OBJECT,
    "tests/functions/test_noise.py::test_zoneout_forward": _SAME_OBJECT,
    "tests/ops/test_forward.py::test_clip_where_astype": _SAME_OBJECT,
    "tests/functions/test_evaluation.py::test_metrics_look_through_tracers": _HOST_TYPE,
    "tests/functions/test_normalization.py::"
    "test_batch_normalization_running_statistics_carry_no_gradient": _HOST_TYPE,
    "tests/ops/test_forward.py::test_tracer_comparisons_give_boolean_arrays": _HOST_TYPE,
    "tests/functions/test_ctc.py::test_errors": _HOST_NAME,
    "tests/functions/test_evaluation.py::test_r2_score_errors": _HOST_NAME,
    "tests/functions/test_math.py::test_errors": _HOST_NAME,
    "tests/nn/test_classifier.py::test_classifier_defaults_and_params": _INTROSPECTION,
    "tests/optim/test_hooks.py::test_clipping_below_the_threshold_passes_the_gradients_through": _SAME_OBJECT,
    "tests/optim/test_train_step.py::"
    "test_key_and_iteration_are_passed_to_a_loss_function_that_declares_them": _SAME_OBJECT,
    "tests/optim/test_transform.py::test_masked_nested_paths": _SAME_OBJECT,
    "tests/optim/test_transform.py::test_apply_updates_keeps_each_parameter_dtype": _HOST_TYPE,
    "tests/training/extensions/test_evaluator.py::test_pure_eval_func_returning_a_dict": _HOST_TYPE,
    "tests/ops/test_grad_table.py::test_every_differentiable_public_op_has_a_row": _INTROSPECTION,
    "tests/ops/test_grad_table.py::test_rows_exercise_their_primitives": _INTROSPECTION,
    "tests/ops/test_forward.py::test_non_differentiable_primitives_are_marked": _INTROSPECTION,
    "tests/ops/test_device_leaks.py::test_mixing_host_and_device_arrays_names_both_devices": _OWN_DEVICE,
    "tests/ops/test_device_leaks.py::test_where_with_a_host_condition_names_both_devices": _OWN_DEVICE,
    "tests/ops/test_device_leaks.py::test_matmul_of_host_and_device_arrays_names_both_devices": _OWN_DEVICE,
    "tests/ops/test_device_leaks.py::test_ops_mixing_host_and_device_operands_name_both_devices": _OWN_DEVICE,
    "tests/onnx/test_export_device.py::test_export_on_the_device_writes_the_hosts_file": _OWN_DEVICE,
    "tests/compat/test_functions.py::"
    "test_argmax_crf1d_gives_the_score_as_a_variable_and_the_path_as_arrays": _HOST_TYPE,
    "tests/compat/test_functions.py::test_zoneout_draws_its_flag_with_numpy_random_rand": _SAME_OBJECT,
    "tests/compat/test_functions.py::"
    "test_calls_that_change_nothing_give_x_back_as_chainer_does": _SAME_OBJECT,
    "tests/compat/test_functions.py::test_zero_dim_results_are_arrays_and_extras_stay_arrays": _HOST_TYPE,
    "tests/compat/test_functions.py::test_coo_matrices_hold_a_variable_and_get_its_gradient": _SPARSE,
    "tests/compat/test_variable.py::test_array_attributes_and_len": _HOST_MODULE,
    "tests/compat/test_link.py::test_local_hooks": _SAME_OBJECT,
    "tests/compat/test_optimizer.py::test_setup_needs_a_link": _HOST_NAME,
    "tests/compat/test_backend.py::test_get_array_module_looks_into_variables": _HOST_MODULE,
    "tests/compat/test_backend.py::test_gpu_device_round_trip": _KERNELS,
    "tests/compat/test_function_hooks.py::test_gpu_hooks_measure_cupy_functions": _CUPY_INTERNALS,
    "tests/compat/test_optimizer_hooks.py::test_hooks_hand_a_0d_parameter_an_array_grad": _HOST_TYPE,
    "tests/compat/test_optimizer_hooks.py::"
    "test_gradient_noise_gets_the_rule_and_its_step_count": _HOST_MODULE,
    "tests/compat/test_function_node.py::test_new_style_gradients": _CPU_ONLY,
    "tests/compat/test_function_node.py::"
    "test_backward_runs_once_per_pass_for_only_the_inputs_that_need_it": _CPU_ONLY,
    "tests/compat/test_function_node.py::test_double_backprop_through_a_new_style_function": _CPU_ONLY,
    "tests/compat/test_function_node.py::"
    "test_a_node_applied_again_takes_the_new_inputs_as_in_chainer": _CPU_ONLY,
    "tests/compat/test_function_node.py::test_old_style_function": _CPU_ONLY,
    "tests/compat/test_gradient_check.py::test_check_backward_passes_on_correct_functions": _CPU_ONLY,
    "tests/compat/test_gradient_check.py::test_check_backward_on_an_old_style_function": _CPU_ONLY,
    "tests/compat/test_gradient_check.py::test_check_double_backward_passes_on_correct_functions": _CPU_ONLY,
    "tests/compat/test_gradient_check.py::test_check_backward_bad_use": _HOST_NAME,
    "tests/compat/test_function_nodes.py::test_every_module_of_chainer_functions_imports": _INTROSPECTION,
    "tests/compat/test_function_nodes.py::test_deprecated_functions_warn_as_in_chainer": _INTROSPECTION,
    "tests/compat/test_function_nodes.py::"
    "test_coo_matmul_multiplies_the_sparse_data_and_promotes_dtypes": _SPARSE,
    "tests/compat/links/test_connection.py::"
    "test_activations_given_as_chainer_functions_or_on_variables": _INTROSPECTION,
    "tests/compat/links/test_connection.py::"
    "test_simplified_dropconnect_takes_train_and_keeps_a_given_mask": _SAME_OBJECT,
    "tests/compat/links/test_lazy.py::test_linear_sizes_w_on_the_first_call_and_keeps_b": _SAME_OBJECT,
    "tests/compat/links/test_loss_model.py::test_classifier_label_keys": _PLAIN_CHILD,
    "tests/compat/links/test_normalization.py::test_training_step_matches_chainer": _SAME_OBJECT,
    "tests/compat/links/test_vision.py::"
    "test_functions_lists_child_links_and_chainer_functions": _INTROSPECTION,
    "tests/compat/test_optimizer.py::test_a_user_defined_gradient_method_and_rule": _CPU_ONLY,
    "tests/compat/test_chainerx_integration.py::test_a_variable_holds_a_chainerx_array": _HOST_MODULE,
    "tests/compat/test_chainerx_integration.py::"
    "test_variable_to_chx_and_from_chx_share_the_memory": _SAME_OBJECT,
    "tests/compat/test_chainerx_integration.py::"
    "test_copydata_writes_into_a_chainerx_variables_memory": _HOST_MODULE,
    "tests/compat/test_training_modules.py::"
    "test_multiprocess_parallel_updater_packs_gradients_as_chainer": _HOST_LINK,
    "tests/compat/testing/test_backend.py::test_defaults_and_text": _HOST_CONFIG,
    "tests/compat/testing/test_backend.py::test_within_the_block_the_configuration_is_set": _HOST_CONFIG,
    "tests/compat/test_tutorials.py::test_new_style_muladd": _CPU_ONLY,
    "tests/compat/test_tutorials.py::test_new_style_muladd_supports_double_backprop": _CPU_ONLY,
    "tests/compat/test_tutorials.py::test_new_style_wrapper_returns_the_output_tuple": _CPU_ONLY,
    "tests/compat/test_tutorials.py::test_old_style_muladd": _CPU_ONLY,
    "tests/compat/test_tutorials.py::test_old_style_wrapper": _CPU_ONLY,
    "tests/compat/test_tutorials.py::test_new_style_elementwise_kernel_sample_on_numpy": _KERNELS,
    "tests/compat/test_tutorials.py::test_gpu_samples[OLD_ELEMENTWISE-True]": _KERNELS,
    "tests/compat/test_tutorials.py::test_gpu_samples[VARIADIC_KERNEL-True]": _KERNELS,
    "tests/training/test_updaters.py::test_standard_updater_names_counts_and_epochs": _NO_DEVICE,
    "tests/training/test_updaters.py::"
    "test_standard_updater_converters_devices_and_loss_functions": _HOST_ON_PURPOSE,
    "tests/training/test_updaters.py::test_parallel_updater_observers_and_explicit_models": _HOST_ON_PURPOSE,
    "tests/training/test_updaters.py::"
    "test_multiprocess_parallel_updater_on_cpu_matches_the_summed_update": _HOST_ON_PURPOSE,
    "tests/training/test_multiprocess_worker_death.py::"
    "test_a_worker_killed_between_steps_is_named_with_its_signal": _HOST_ON_PURPOSE,
    "tests/recording/test_capture.py::test_keys_are_inputs_so_each_replay_draws_fresh_numbers": _HOST_IN_STEP,
    "tests/recording/test_capture.py::"
    "test_a_plain_array_changed_after_an_op_read_it_is_refused": _HOST_IN_STEP,
    "tests/recording/test_capture.py::test_a_plain_array_built_before_its_use_is_a_constant": _HOST_IN_STEP,
    "tests/recording/test_capture_device.py::"
    "test_a_host_array_met_on_the_device_is_refused_as_eagerly": _OWN_DEVICE,
    "tests/functions/test_sparse.py::test_padding_gets_no_gradient": _SPARSE,
    "tests/functions/test_sparse.py::test_sparse_matmul_grads": _SPARSE,
    "tests/functions/test_sparse.py::test_sparse_matmul_mixed_dtypes": _SPARSE,
    "tests/functions/test_sparse.py::test_sparse_matmul_mixed_dtypes_grads": _SPARSE,
}


def reason_not_run(nodeid: str) -> str | None:
    """Why the test ``nodeid`` is not run on the strict backend (named with its parameters, or
    without for all of them), or None."""
    return NOT_RUN.get(nodeid) or NOT_RUN.get(nodeid.split("[")[0])
