"""Function hooks (``chainer.function_hooks``) and debug mode, on user-defined and built-in functions.

The order of the callbacks for user-defined functions and the tables of ``TimerHook`` and
``CupyMemoryProfileHook`` are compared with Chainer 7.8.1 (``tests/golden/make_function_hooks.py``).
"""

from __future__ import annotations

import io
import json
import re
import threading

import numpy
import pytest

import fnet
import fnet.compat as chainer
from fnet.compat import function_hooks
from fnet.compat import functions as F
from fnet.compat.function_hooks import FunctionHook, PrintHook, TimerHook

from .._scripts import GOLDEN, load_golden


@pytest.fixture(scope="module")
def golden():
    return load_golden("make_function_hooks"), json.loads((GOLDEN / "function_hooks.json").read_text())


def as_json(value):
    return json.loads(json.dumps(value))


class Recorder(FunctionHook):
    """Logs every callback with the function's label and the shapes it was given."""

    name = "Recorder"

    def __init__(self):
        self.log = []

    def forward_preprocess(self, function, in_data):
        self.log.append(("forward_preprocess", function.label, [a.shape for a in in_data]))

    def forward_postprocess(self, function, in_data):
        self.log.append(("forward_postprocess", function.label))

    def backward_preprocess(self, function, in_data, out_grad):
        shapes = [None if g is None else g.shape for g in out_grad]
        self.log.append(("backward_preprocess", function.label, shapes))

    def backward_postprocess(self, function, in_data, out_grad):
        self.log.append(("backward_postprocess", function.label))


def variable(*shape, seed=0, low=-1.0, high=1.0):
    return chainer.Variable(numpy.random.RandomState(seed).uniform(low, high, shape).astype(numpy.float32))


# -- against Chainer ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "scenario", ["with_block", "forward_inside_backward_outside", "backward_only", "local_hook"]
)
def test_callbacks_on_user_functions_match_chainer(golden, scenario):
    module, data = golden
    assert as_json(module.events(chainer)[scenario]) == data["events"][scenario]


def test_reports_match_chainer(golden):
    module, data = golden
    assert as_json(module.reports(chainer)) == data["reports"]


# -- FunctionHook -------------------------------------------------------------------------------
def test_with_block_registers_the_hook_in_this_thread_only():
    seen_elsewhere = []
    with Recorder() as hook:
        assert chainer.get_function_hooks()["Recorder"] is hook
        worker = threading.Thread(target=lambda: seen_elsewhere.append(dict(chainer.get_function_hooks())))
        worker.start()
        worker.join()
    assert seen_elsewhere == [{}]
    assert "Recorder" not in chainer.get_function_hooks()


def test_two_hooks_of_one_name_are_refused():
    with Recorder():
        with pytest.raises(KeyError, match="already active"):
            with Recorder():
                pass
    assert chainer.get_function_hooks() == {}


def test_observing_is_true_only_under_a_hook_or_debug_mode():
    assert not function_hooks.observing()
    with Recorder():
        assert function_hooks.observing()
    with chainer.using_config("debug", True):
        assert function_hooks.observing()
    assert not function_hooks.observing()


# -- built-in functions -------------------------------------------------------------------------
def test_builtin_functions_call_the_hooks_with_their_names_and_inputs():
    x, W = variable(2, 3), variable(4, 3, seed=1)
    with Recorder() as hook:
        y = F.relu(F.linear(x, W))
        loss = F.sum(y)
        loss.backward()
    assert hook.log[:6] == [
        ("forward_preprocess", "LinearFunction", [(2, 3), (4, 3)]),
        ("forward_postprocess", "LinearFunction"),
        ("forward_preprocess", "ReLU", [(2, 4)]),
        ("forward_postprocess", "ReLU"),
        ("forward_preprocess", "Sum", [(2, 4)]),
        ("forward_postprocess", "Sum"),
    ]
    assert [entry for entry in hook.log if entry[0].startswith("backward")] == [
        ("backward_preprocess", "Sum", [()]),
        ("backward_postprocess", "Sum"),
        ("backward_preprocess", "ReLU", [(2, 4)]),
        ("backward_postprocess", "ReLU"),
        ("backward_preprocess", "LinearFunction", [(2, 4)]),
        ("backward_postprocess", "LinearFunction"),
    ]
    _check_gradients_are_applications(hook.log[6:])


def _check_gradients_are_applications(log):
    """As in Chainer, the operations a function's backward applies to compute the gradients
    are shown as applications (forward callbacks) between its backward callbacks (a linear
    layer's weight gradients, summed over its uses in one product, are not operations)."""
    spans = [i for i, entry in enumerate(log) if entry[0].startswith("backward")]
    insides = [log[start + 1 : end] for start, end in zip(spans[::2], spans[1::2])]
    assert all(entry[0].startswith("forward") for inside in insides for entry in inside), log
    assert any(insides), log


def test_hooks_leave_values_and_gradients_unchanged():
    def run():
        x, W, b = variable(3, 4), variable(2, 4, seed=1), variable(2, seed=2)
        h1, h2 = F.split_axis(F.tanh(F.linear(x, W, b)), 2, axis=1)
        loss = F.sum(h1 * h2 + F.exp(h1))
        loss.backward()
        return loss.array, x.grad, W.grad, b.grad

    plain = run()
    with Recorder() as hook:
        hooked = run()
    for a, b in zip(plain, hooked):
        numpy.testing.assert_array_equal(a, b)
    labels = [entry[1] for entry in hook.log if entry[0] == "backward_preprocess"]
    # operators are functions too, as in Chainer
    assert labels == ["Sum", "_ + _", "exp", "_ * _", "SplitAxis", "Tanh", "LinearFunction"]


def test_backward_callbacks_of_builtins_nest_like_their_forward_calls():
    x = variable(5)
    depth, deepest = [0], [0]

    class Depth(FunctionHook):
        name = "Depth"

        def backward_preprocess(self, function, in_data, out_grad):
            depth[0] += 1
            deepest[0] = max(deepest[0], depth[0])

        def backward_postprocess(self, function, in_data, out_grad):
            depth[0] -= 1

    with Depth():
        a, b = F.sin(x), F.cos(x)
        F.sum(a * b + F.exp(a)).backward()
    assert depth[0] == 0 and deepest[0] == 1


def test_hooks_see_double_backprop_and_keep_it_right():
    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float32))
    with Recorder():
        y = F.sum(F.exp(x))
        (gx,) = chainer.grad([y], [x], enable_double_backprop=True)
        F.sum(gx * gx).backward()
    numpy.testing.assert_allclose(gx.array, numpy.exp(x.array), rtol=1e-6)
    numpy.testing.assert_allclose(x.grad, 2 * numpy.exp(2 * x.array), rtol=1e-6)


def test_no_backprop_mode_calls_forward_callbacks_only():
    x = variable(3)
    with Recorder() as hook, chainer.no_backprop_mode():
        y = F.relu(x)
    assert [entry[0] for entry in hook.log] == ["forward_preprocess", "forward_postprocess"]
    assert y.creator is None


def test_a_hook_entered_around_backward_alone_sees_the_backward_as_in_chainer():
    x = variable(3)
    loss = F.sum(F.exp(x))
    with Recorder() as hook:
        loss.backward()
    assert [entry[:2] for entry in hook.log if entry[0].startswith("backward")] == [
        ("backward_preprocess", "Sum"),
        ("backward_postprocess", "Sum"),
        ("backward_preprocess", "exp"),
        ("backward_postprocess", "exp"),
    ]
    _check_gradients_are_applications(hook.log)


# -- TimerHook ----------------------------------------------------------------------------------
def test_timer_hook_documented_example():
    # FunctionHook's documented example: model3 runs after the block, so it is not measured.
    x = chainer.Variable(numpy.zeros((1, 10), numpy.float32))

    def model(seed):
        W = variable(10, 10, seed=seed)
        return lambda h: F.exp(F.linear(h, W))

    model1, model2, model3 = model(1), model(2), model(3)
    with TimerHook() as m:
        _ = model1(x)
        y = model2(x)
    model3(y)
    assert [name for name, _ in m.call_history] == ["LinearFunction", "Exp", "LinearFunction", "Exp"]
    assert m.total_time() == pytest.approx(sum(t for _, t in m.call_history))
    summary = m.summary()
    assert list(summary) == ["LinearFunction", "Exp"]
    assert summary["LinearFunction"]["occurrence"] == 2


def test_timer_hook_counts_nested_calls_once_in_the_total():
    class Outer(chainer.FunctionNode):
        def forward(self, inputs):
            with chainer.no_backprop_mode():
                y = F.exp(chainer.Variable(inputs[0], requires_grad=False))
            return (y.array,)

    with TimerHook() as hook:
        Outer().apply((variable(3),))
    names = [name for name, _ in hook.call_history]
    assert names == ["Exp", "Outer"]
    assert hook.total_time() == pytest.approx(hook.call_history[1][1])


def test_timer_hook_files_old_style_functions_under_their_class():
    class Double(chainer.Function):
        @property
        def label(self):
            return "a label that is not the name"

        def forward(self, inputs):
            return (2 * inputs[0],)

        def backward(self, inputs, grad_outputs):
            return (2 * grad_outputs[0],)

    x = variable(3)
    with TimerHook() as hook:
        y = Double()(x)
        y.grad = numpy.ones(3, numpy.float32)
        y.backward()
    assert [name for name, _ in hook.call_history] == ["Double", "Double"]


def test_timer_hook_report_format_and_units():
    hook = TimerHook()
    hook.call_history = [("LinearFunction", 0.5), ("ReLU", 0.25), ("LinearFunction", 1.0)]
    out = io.StringIO()
    hook.print_report(file=out)
    assert out.getvalue() == (
        "  FunctionName  ElapsedTime  Occurrence\n"
        "LinearFunction      1.50sec           2\n"
        "          ReLU      0.25sec           1\n"
    )
    with pytest.raises(KeyError, match="unit must be one of"):
        hook.print_report(unit="min")


def test_timer_hook_report_without_measurements_prints_the_header():
    out = io.StringIO()
    TimerHook().print_report(file=out)
    assert out.getvalue() == "FunctionName  ElapsedTime  Occurrence\n"


# -- PrintHook ----------------------------------------------------------------------------------
def _blocks(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("function\t")]


def test_print_hook_prints_forward_and_backward():
    out = io.StringIO()
    x = variable(2, 3)
    with PrintHook(file=out):
        F.sum(F.relu(x)).backward()
    text = out.getvalue()
    blocks = _blocks(text)  # the backward's gradient operations print as applications too
    assert blocks[:2] == ["function\tReLU", "function\tSum"]
    assert blocks.count("function\tSum") == 2 and blocks.count("function\tReLU") == 2
    assert text.count("input data") == len(blocks) and text.count("output gradient") == 2
    assert text.count("- shape: (2, 3)") >= 3
    assert re.search(r"output gradient\n<variable at 0x[0-9a-f]+>", text)


def test_print_hook_end_argument_and_deprecated_sep():
    out = io.StringIO()
    with PrintHook(end="|\n", file=out):
        F.exp(variable(2))
    assert out.getvalue().startswith("function\texp|\ninput data|\n")
    with pytest.warns(DeprecationWarning, match="sep"):
        PrintHook(sep=" ")


# -- debug mode ---------------------------------------------------------------------------------
def test_debug_mode_detects_nan_in_forward_of_a_builtin():
    x = chainer.Variable(numpy.array([-1.0], numpy.float32))
    with numpy.errstate(invalid="ignore"):
        F.log(x)  # no check outside debug mode
        with chainer.using_config("debug", True):
            with pytest.raises(RuntimeError, match="^NaN is detected on forward computation of log$"):
                F.log(x)


def test_debug_mode_detects_nan_in_backward_of_a_builtin():
    x = chainer.Variable(numpy.array([0.0, 1.0], numpy.float32))
    with numpy.errstate(divide="ignore", invalid="ignore"), chainer.using_config("debug", True):
        loss = F.sum(F.sqrt(x) * 0)  # d sqrt(x) at 0 is inf; times 0: NaN
        with pytest.raises(RuntimeError, match="^NaN is detected on backward computation of sqrt$"):
            loss.backward()


class NaNBackward(chainer.FunctionNode):
    def forward(self, inputs):
        return (inputs[0] * 2,)

    def backward(self, indexes, grad_outputs):
        return (chainer.Variable(grad_outputs[0].array * numpy.float32("nan")),)


class NaNForward(chainer.FunctionNode):
    def forward(self, inputs):
        return (inputs[0] * numpy.float32("nan"),)


def test_debug_mode_detects_nan_in_a_user_function_node():
    x = variable(3)
    with chainer.using_config("debug", True):
        with pytest.raises(RuntimeError, match="^NaN is detected on forward computation of NaNForward$"):
            NaNForward().apply((x,))
        (y,) = NaNBackward().apply((x,))
        with pytest.raises(RuntimeError, match="^NaN is detected on backward computation of NaNBackward$"):
            F.sum(y).backward()
    (y,) = NaNBackward().apply((x,))
    F.sum(y).backward()  # outside debug mode, NaN passes
    assert numpy.isnan(x.grad).all()


def test_set_debug_and_debug_mode_context():
    assert not chainer.is_debug()
    with chainer.DebugMode(True):
        assert chainer.is_debug() and function_hooks.observing()
    assert not chainer.is_debug()


# -- GPU-only hooks -----------------------------------------------------------------------------
@pytest.mark.skipif(fnet.backend.cupy_available(), reason="checks the error raised without CuPy")
@pytest.mark.parametrize("hook", [function_hooks.CupyMemoryProfileHook, function_hooks.CUDAProfileHook])
def test_gpu_hooks_need_cupy(hook):
    with pytest.raises(RuntimeError, match="CUDA environment is not correctly set up"):
        hook()


@pytest.mark.gpu
def test_gpu_hooks_measure_cupy_functions():
    import cupy

    x = chainer.Variable(cupy.ones((64, 64), cupy.float32))
    with function_hooks.CupyMemoryProfileHook() as memory, TimerHook() as timer:
        F.sum(F.exp(x)).backward()
    assert [name for name, *_ in memory.call_history] == ["Exp", "Sum", "Sum", "Exp"]
    assert memory.total_used_bytes() > 0
    assert [name for name, _ in timer.call_history] == ["Exp", "Sum", "Sum", "Exp"]
    assert timer.total_time() > 0


class _FirstOnly(chainer.Function):
    """An old-style function of two inputs that keeps only the first (Chainer's PrintHook test)."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        return (inputs[0] * 1,)

    def backward(self, inputs, grad_outputs):
        return grad_outputs[0], None


def test_a_hook_added_to_a_function_before_its_first_call_sees_the_call():
    f, log = _FirstOnly(), Recorder()
    f.add_hook(log)
    assert f.local_function_hooks == {"Recorder": log}
    y = f(variable(3), variable(3, seed=1))
    assert [entry[0] for entry in log.log] == ["forward_preprocess", "forward_postprocess"]
    assert y.creator is f and f.local_function_hooks == {"Recorder": log}
    f.delete_hook("Recorder")
    assert f.local_function_hooks == {}


def test_backward_hooks_see_none_for_the_inputs_a_node_did_not_retain():
    out = io.StringIO()
    f = _FirstOnly()
    y = f(variable(3), variable(3, seed=1))
    y.grad = numpy.ones(3, numpy.float32)
    f.add_hook(PrintHook(file=out))
    y.backward()
    text = out.getvalue()
    assert text.startswith("function\t_FirstOnly\ninput data\n<variable at ")
    assert text.count("(removed)") == 1 and text.index("(removed)") < text.index("output gradient")
