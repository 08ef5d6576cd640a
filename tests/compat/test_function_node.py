"""User-defined FunctionNode (new style) and Function (old style), as the seeds' guide writes them."""

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import functions as F

from .user_functions import MulAdd, MulAddOld


def rand(*shape, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


class ExpAndSquare(chainer.FunctionNode):
    """Two outputs; retains its outputs."""

    def forward(self, inputs):
        (x,) = inputs
        e = numpy.exp(x)
        self.retain_outputs((0,))
        self.retain_inputs((0,))
        return e, x * x

    def backward(self, target_input_indexes, grad_outputs):
        (e,) = self.get_retained_outputs()
        (x,) = self.get_retained_inputs()
        ge, gs = grad_outputs
        total = None
        if ge is not None:
            total = ge * e
        if gs is not None:
            total = gs * 2 * x if total is None else total + gs * 2 * x
        return (total,)


def test_new_style_gradients():
    x, y, z = (chainer.Variable(rand(3, 2, seed=s)) for s in range(3))
    (w,) = MulAdd().apply((x, y, z))
    assert w.creator_node.label == "MulAdd" and isinstance(w.creator, MulAdd)
    w.grad = numpy.ones((3, 2))
    w.backward()
    numpy.testing.assert_allclose(x.grad, y.array)
    numpy.testing.assert_allclose(y.grad, x.array)
    numpy.testing.assert_allclose(z.grad, numpy.ones((3, 2)))


def test_backward_runs_once_per_pass_for_only_the_inputs_that_need_it():
    calls = []

    class Spy(MulAdd):
        def backward(self, target_input_indexes, grad_outputs):
            calls.append(tuple(target_input_indexes))
            return super().backward(target_input_indexes, grad_outputs)

    x = chainer.Variable(rand(2))
    y = chainer.Variable(rand(2, seed=1), requires_grad=False)
    (w,) = Spy().apply((x, y, rand(2, seed=2)))
    F.sum(w).backward()
    assert calls == [(0,)]


def test_double_backprop_through_a_new_style_function():
    x, y, z = (chainer.Variable(rand(4, seed=s)) for s in range(3))
    (w,) = MulAdd().apply((x, y, z))
    (gx,) = chainer.grad([F.sum(w * w)], [x], enable_double_backprop=True)
    numpy.testing.assert_allclose(gx.array, 2 * w.array * y.array)
    F.sum(gx).backward()  # d/dy of sum(2 (x y + z) y) = 4 x y + 2 z
    numpy.testing.assert_allclose(y.grad, 4 * x.array * y.array + 2 * z.array)


def test_several_outputs_some_unused():
    x = chainer.Variable(rand(3))
    e, s = ExpAndSquare().apply((x,))
    F.sum(s).backward()
    numpy.testing.assert_allclose(x.grad, 2 * x.array)
    x.cleargrad()
    e, s = ExpAndSquare().apply((x,))
    F.sum(e + 3 * s).backward()
    numpy.testing.assert_allclose(x.grad, numpy.exp(x.array) + 6 * x.array)


def test_several_outputs_double_backprop_uses_retained_outputs():
    x = chainer.Variable(rand(3))
    e, _ = ExpAndSquare().apply((x,))
    (gx,) = chainer.grad([F.sum(e)], [x], enable_double_backprop=True)
    F.sum(gx).backward()
    numpy.testing.assert_allclose(x.grad, numpy.exp(x.array))


def test_a_node_applied_again_takes_the_new_inputs_as_in_chainer():
    node = MulAdd()
    first = node.apply((chainer.Variable(rand(1)), rand(1), rand(1)))[0]
    x = chainer.Variable(rand(1))
    (y,) = node.apply((x, rand(1), rand(1)))
    assert node.inputs[0] is x.node and node.outputs[0]() is y.node
    assert first.creator_node is node


def test_forward_must_return_a_tuple():
    class Bad(chainer.FunctionNode):
        def forward(self, inputs):
            return inputs[0]

    with pytest.raises(TypeError, match=r"return \(y,\)"):
        Bad().apply((rand(2),))


def test_wrong_gradient_shape_is_reported():
    class BadGrad(chainer.FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 2,)

        def backward(self, indexes, grad_outputs):
            return (chainer.Variable(numpy.ones(5)),)

    x = chainer.Variable(rand(2))
    (y,) = BadGrad().apply((x,))
    with pytest.raises(ValueError, match="BadGrad.backward: shape of gradients returned from backward"):
        F.sum(y).backward()


def test_old_style_function():
    x, y, z = (chainer.Variable(rand(3, seed=s)) for s in range(3))
    f = MulAddOld()
    w = f(x, y, z)
    assert w.creator is f and w.creator_node.label == "MulAddOld"
    F.sum(w).backward()
    numpy.testing.assert_allclose(x.grad, y.array)
    numpy.testing.assert_allclose(z.grad, numpy.ones(3))


def test_old_style_elementwise_example_for_numpy():
    """The guide's ``MulAdd`` written once for NumPy and CuPy with ``get_array_module``."""

    class MulAdd(chainer.Function):
        def forward(self, inputs):
            x, y, z = inputs
            return (x * y + z,)

        def backward(self, inputs, grad_outputs):
            x, y, z = inputs
            (gw,) = grad_outputs
            return y * gw, x * gw, gw

    x = chainer.Variable(rand(2))
    w = MulAdd()(x, rand(2, seed=1), rand(2, seed=2))
    F.sum(w).backward()
    numpy.testing.assert_allclose(x.grad, rand(2, seed=1))


def test_forget_recomputes_in_backward():
    calls = []

    def f(a, b):
        calls.append(1)
        return a * b + a

    x, y = chainer.Variable(rand(3)), chainer.Variable(rand(3, seed=1))
    z = F.forget(f, x, y)
    F.sum(z * z).backward()
    numpy.testing.assert_allclose(x.grad, 2 * z.array * (y.array + 1))
    numpy.testing.assert_allclose(y.grad, 2 * z.array * x.array)
    assert len(calls) == 2


def test_debug_mode_finds_nan_in_forward():
    class Nan(chainer.FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * numpy.nan,)

    with chainer.using_config("debug", True):
        with pytest.raises(RuntimeError, match="NaN is detected on forward computation of Nan"):
            Nan().apply((rand(2),))


def test_calling_a_node_like_a_function_says_to_use_apply():
    with pytest.raises(RuntimeError, match=r"use its apply\(\) method"):
        MulAdd()(rand(1), rand(1), rand(1))


class FusedMulAdd(chainer.FunctionNode):
    """``a * b + c`` whose gradients are given by ``backward_accumulate`` (no ``backward``)."""

    calls = []

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        a, b, c = inputs
        return (a * b + c,)

    def backward_accumulate(self, target_input_indexes, grad_outputs, grad_inputs):
        FusedMulAdd.calls.append(grad_inputs)
        a, b = self.get_retained_inputs()
        (g,) = grad_outputs
        new = {0: g * b, 1: a * g, 2: g}
        return tuple(
            new[i] if g_in is None else new[i] + g_in for i, g_in in zip(target_input_indexes, grad_inputs)
        )


def test_backward_accumulate_gives_the_gradients_and_adds_to_existing_ones():
    FusedMulAdd.calls.clear()
    a, b, c = (chainer.Variable(numpy.array([v], numpy.float32)) for v in (2.0, 3.0, 4.0))
    c.grad = numpy.array([10.0], numpy.float32)  # an existing gradient: the sum keeps it
    (y,) = FusedMulAdd().apply((a, b, c))
    y.grad = numpy.array([1.0], numpy.float32)
    y.backward()
    assert FusedMulAdd.calls == [(None, None, None)]  # the pass sums the gradients itself
    assert (a.grad[0], b.grad[0], c.grad[0]) == (3.0, 2.0, 11.0)


def test_the_default_backward_accumulate_adds_backwards_gradients():
    node = ExpAndSquare()
    x = numpy.array([0.5, 1.0], numpy.float32)
    node.apply((x,))
    g = chainer.Variable(numpy.ones(2, numpy.float32))
    (expected,) = node.backward((0,), (g, g))
    (plain,) = node.backward_accumulate((0,), (g, g), (None,))
    (summed,) = node.backward_accumulate((0,), (g, g), (chainer.Variable(numpy.full(2, 5.0, numpy.float32)),))
    numpy.testing.assert_allclose(plain.array, expected.array)
    numpy.testing.assert_allclose(summed.array, expected.array + 5.0)


class _Returns(chainer.FunctionNode):
    """Doubles its input; backward returns what it was given (right or wrong)."""

    def __init__(self, gradients):
        self.gradients = gradients

    def forward(self, inputs):
        return (inputs[0] * 2,)

    def backward(self, indexes, grad_outputs):
        return self.gradients


@pytest.mark.parametrize(
    "gradients, debug, message",
    [
        ((), False, "number of gradients returned from backward is incorrect"),
        ((chainer.Variable(numpy.ones(2, numpy.int64)),), True, "dtype of gradients returned from backward"),
        ((numpy.ones(2, numpy.float32),), True, "type of gradients returned from backward is incorrect"),
    ],
)
def test_wrong_gradients_are_reported_in_chainers_words(gradients, debug, message):
    x = chainer.Variable(rand(2))
    (y,) = _Returns(gradients).apply((x,))
    with chainer.using_config("debug", debug), pytest.raises(ValueError, match=message):
        F.sum(y).backward()


def test_retained_inputs_are_none_unless_asked_and_are_the_callers_variables():
    class Keep(chainer.FunctionNode):
        def __init__(self, retain):
            self.retain = retain

        def forward(self, inputs):
            if self.retain:
                self.retain_inputs((1,))
            return (inputs[0] * inputs[1],)

        def backward(self, indexes, grad_outputs):
            self.seen = self.get_retained_inputs()
            return (grad_outputs[0], None)

    x, c = chainer.Variable(rand(2)), chainer.Variable(rand(2), requires_grad=False)
    seen = []
    for retain in (False, True):
        node = Keep(retain)
        (y,) = node.apply((x, c))
        F.sum(y).backward()
        seen.append(node.seen)
    assert seen[0] == () and len(seen[1]) == 1
    assert seen[1][0] is c and seen[1][0].node is c.node


def test_a_wrong_dtype_outside_debug_mode_is_a_type_error():
    x = chainer.Variable(rand(2))
    (y,) = _Returns((numpy.ones(2, numpy.int64),)).apply((x,))
    with pytest.raises(TypeError, match="dtype of gradients returned from backward is incorrect"):
        F.sum(y).backward()


class _OldStyle(chainer.Function):
    """x * y, whose backward returns a list of its gradients (or what it is given)."""

    def __init__(self, gradients=None):
        self.gradients = gradients

    def forward(self, inputs):
        x, y = inputs
        return (x * y,)

    def backward(self, inputs, grad_outputs):
        if self.gradients is not None:
            return self.gradients
        x, y = inputs
        (g,) = grad_outputs
        return [g * y, g * x]


def test_an_old_style_backward_may_return_a_list():
    x, y = chainer.Variable(rand(3)), chainer.Variable(rand(3, seed=1))
    F.sum(_OldStyle()(x, y)).backward()
    numpy.testing.assert_array_equal(x.grad, y.array)
    numpy.testing.assert_array_equal(y.grad, x.array)


def test_an_old_style_gradient_refuses_to_be_differentiated_again():
    x, y = chainer.Variable(rand(3)), chainer.Variable(rand(3, seed=1))
    F.sum(_OldStyle()(F.identity(x) * 1, y)).backward(enable_double_backprop=True)
    gx = x.grad_var
    with pytest.raises(RuntimeError, match='twice-differentiate an old style Function "_OldStyle"'):
        F.sum(gx).backward()
    with pytest.raises(RuntimeError, match="twice-differentiate"):
        chainer.grad([F.sum(gx)], [y])
    x.cleargrad()
    F.sum(_OldStyle()(x, y)).backward()  # without double backprop the gradient is a plain value
    assert not x.grad_var.requires_grad


@pytest.mark.parametrize(
    "gradients, error, message",
    [
        ([1, None], TypeError, "_OldStyle.backward: type of gradients"),
        ((numpy.ones(3, numpy.int32), None), TypeError, "_OldStyle.backward: dtype of gradients"),
    ],
)
def test_an_old_style_backward_with_wrong_gradients_names_the_function(gradients, error, message):
    x, y = chainer.Variable(rand(3)), chainer.Variable(rand(3, seed=1))
    z = _OldStyle(gradients)(x, y)
    with pytest.raises(error, match=message):
        F.sum(z).backward()


def test_an_old_style_backward_sees_only_what_it_retained():
    seen = {}

    class Partial(chainer.Function):
        def forward(self, inputs):
            x, y = inputs
            self.retain_inputs((1,))
            self.retain_outputs((1,))
            return x * y, x + y

        def backward(self, inputs, grad_outputs):
            seen["inputs"], seen["outputs"] = inputs, self.output_data
            x_unseen, y = inputs
            return grad_outputs[0] * y, None

    x, y = chainer.Variable(rand(2)), chainer.Variable(rand(2, seed=1), requires_grad=False)
    a, b = Partial()(x, y)
    F.sum(a).backward()
    assert seen["inputs"][0] is None and seen["inputs"][1] is y.array
    assert seen["outputs"][0] is None and seen["outputs"][1] is b.array
    numpy.testing.assert_array_equal(x.grad, y.array)


def test_forward_may_leave_outputs_none():
    class SomeNone(chainer.FunctionNode):
        def forward(self, inputs):
            self.retain_outputs((1, 2))
            return None, inputs[0] * 3, None

        def backward(self, indexes, grad_outputs):
            self.retained = self.get_retained_outputs()
            assert grad_outputs[0] is None and grad_outputs[2] is None
            return (grad_outputs[1] * 3,)

    x = chainer.Variable(rand(2))
    node = SomeNone()
    y1, y2, y3 = node.apply((x,))
    assert y1.array is None and y3.array is None
    F.sum(y2).backward()
    assert node.retained[1] is None and node.retained[0].array is y2.array
    numpy.testing.assert_array_equal(x.grad, [3, 3])


class _KeepSecond(chainer.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((1,))
        self.retain_outputs((1,))
        return inputs[0] * 2, inputs[1] * 3

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2, grad_outputs[1] * 3


def test_the_nodes_of_retained_inputs_and_outputs_keep_their_arrays_as_in_chainer():
    xs = [chainer.Variable(rand(2, seed=i)) for i in (1, 2)]
    kept_in = xs[1].array
    in_nodes = [x.node for x in xs]
    ys = _KeepSecond().apply(xs)
    kept_out = ys[1].array
    out_nodes = [y.node for y in ys]
    del xs, ys  # the variables are gone: only what was retained stays
    assert in_nodes[0].data is None and in_nodes[1].data is kept_in
    assert out_nodes[0].data is None and out_nodes[1].data is kept_out


def test_identity_makes_new_variables_of_one_identity_node_as_in_chainer():
    x = chainer.Variable(numpy.array([1.0], numpy.float32))
    y1, y2 = F.identity(x, x)
    assert type(y1.creator).__name__ == "Identity" and y2.creator is y1.creator
    z = y1 + F.identity(x)
    z.grad = numpy.array([1.0], numpy.float32)
    z.backward(retain_grad=True)
    assert y1 is not x and y1.grad[0] == 1 and x.grad[0] == 2


class _BadBackward(chainer.Function):
    def forward(self, inputs):
        return (inputs[0] * 2,)

    def backward(self, inputs, grads):
        raise ValueError("bad backward")


def _applied_line(make):
    import inspect

    line = inspect.currentframe().f_lineno + 1
    return make(), line


@pytest.mark.parametrize("debug", [True, False])
def test_debug_mode_tells_where_a_function_whose_backward_fails_was_applied(debug):
    x = chainer.Variable(numpy.array([0.0, 1.0]))
    with chainer.using_config("debug", debug):
        for make, error in (
            (lambda: F.sum(_BadBackward()(x)), ValueError),
            (lambda: F.sum(F.sqrt(x)), FloatingPointError),  # a built-in: NumPy raises
        ):
            y, line = _applied_line(make)
            with numpy.errstate(divide="raise"), pytest.raises(error) as caught:
                y.backward()
            told = "Stacktrace of the function is below" in str(caught.value)
            assert told == debug and (f"line {line}" in str(caught.value)) == debug


class _Identity(chainer.FunctionNode):
    def forward(self, inputs):
        return inputs


def test_a_node_refuses_inputs_of_different_kinds_of_array():
    # as Chainer's: NumPy, CuPy and ChainerX arrays do not mix in one node
    from fnet.compat import backend, chainerx

    native = chainer.Variable(backend.to_chx(rand(2)))
    with pytest.raises(
        TypeError, match=r"incompatible array types are mixed in the forward input \(_Identity\)"
    ):
        _Identity().apply((native, chainer.Variable(rand(2, seed=1))))
    assert isinstance(_Identity().apply((native, native))[0].array, chainerx.ndarray)


@pytest.mark.gpu
def test_a_node_refuses_outputs_on_different_devices():
    cuda = chainer.backends.cuda

    class HostAndDevice(chainer.FunctionNode):
        def forward(self, inputs):
            return inputs[0], numpy.zeros(2, numpy.float32)  # the second made on the host

    x = chainer.Variable(cuda.to_gpu(rand(2)))
    with pytest.raises(
        TypeError, match=r"incompatible array types are mixed in the forward output \(HostAndDevice\)"
    ):
        HostAndDevice().apply((x,))
