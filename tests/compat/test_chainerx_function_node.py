"""A FunctionNode with ``forward_chainerx``, applied to Variables holding ChainerX arrays: the
routines record on the variables' own graph, so backward, ``chainer.grad`` and double backward
go through ChainerX's routines (Chainer 7.8.1's ``FunctionNode.apply`` and ``Variable.chx_array``).

Gradients are compared with central differences in float64, within rtol 1e-6 (the truncation
error of a step of 1e-5 on these smooth functions is about 1e-10 relative; rounding about 1e-11).
"""

from __future__ import annotations

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.functions as F
from fnet.compat import chainerx

_EPS = 1e-5
_RTOL = 1e-6


class TanhTimes(chainer.FunctionNode):
    """y = tanh(x) * w, written only with ChainerX's routines."""

    def forward_chainerx(self, inputs):
        x, w = inputs
        return (chainerx.tanh(x) * w,)


def _f(x, w):
    return numpy.tanh(x) * w


def _numeric_grad(f, x, gy):
    """d(sum(f(x) * gy))/dx by central differences."""
    g = numpy.zeros_like(x)
    for i in numpy.ndindex(x.shape):
        step = numpy.zeros_like(x)
        step[i] = _EPS
        g[i] = ((f(x + step) - f(x - step)) * gy).sum() / (2 * _EPS)
    return g


def _chx_variable(a):
    return chainer.Variable(chainerx.array(a))


def _data():
    rng = numpy.random.default_rng(3)
    x = rng.uniform(-1, 1, (2, 3))
    w = rng.uniform(-1, 1, (2, 3))
    gy = rng.uniform(-1, 1, (2, 3))
    return x, w, gy


def test_forward_runs_forward_chainerx_and_gives_variables_presenting_chainerx_arrays():
    x, w, _ = _data()
    (y,) = TanhTimes().apply((_chx_variable(x), _chx_variable(w)))
    assert isinstance(y, chainer.Variable) and isinstance(y.array, chainerx.ndarray)
    assert y.requires_grad and y.array.device is chainerx.get_device("native:0")
    numpy.testing.assert_allclose(chainerx.to_numpy(y.array), _f(x, w), rtol=1e-15)


def test_backward_goes_through_the_chainerx_routines():
    x, w, gy = _data()
    vx, vw = _chx_variable(x), _chx_variable(w)
    (y,) = TanhTimes().apply((vx, vw))
    y.grad = chainerx.array(gy)
    y.backward()
    assert isinstance(vx.grad, chainerx.ndarray) and isinstance(vw.grad, chainerx.ndarray)
    numpy.testing.assert_allclose(
        chainerx.to_numpy(vx.grad), _numeric_grad(lambda a: _f(a, w), x, gy), rtol=_RTOL
    )
    numpy.testing.assert_allclose(
        chainerx.to_numpy(vw.grad), _numeric_grad(lambda a: _f(x, a), w, gy), rtol=_RTOL
    )


def test_double_backward_differentiates_the_gradient_again():
    x, w, gy = _data()
    vx, vw = _chx_variable(x), _chx_variable(w)
    (y,) = TanhTimes().apply((vx, vw))
    (gx,) = chainer.grad(
        [y], [vx], grad_outputs=[chainer.Variable(chainerx.array(gy))], enable_double_backprop=True
    )
    assert isinstance(gx.array, chainerx.ndarray)
    # d/dx of sum(gx * v), with gx = (1 - tanh(x)^2) * w * gy
    v = numpy.random.default_rng(4).uniform(-1, 1, x.shape)
    F.sum(gx * chainer.Variable(chainerx.array(v))).backward()

    def first_order(a):
        return (1 - numpy.tanh(a) ** 2) * w * gy

    numpy.testing.assert_allclose(chainerx.to_numpy(vx.grad), _numeric_grad(first_order, x, v), rtol=_RTOL)


def test_check_backward_and_check_double_backward_accept_it():
    x, w, gy = _data()
    ggx, ggw = numpy.ones_like(x), numpy.ones_like(w)

    def f(a, b):
        return TanhTimes().apply((a, b))

    arrays = tuple(chainerx.array(a) for a in (x, w))
    chainer.gradient_check.check_backward(f, arrays, chainerx.array(gy), dtype=numpy.float64)
    chainer.gradient_check.check_double_backward(
        f, arrays, chainerx.array(gy), tuple(chainerx.array(a) for a in (ggx, ggw)), dtype=numpy.float64
    )


def test_a_node_mixes_with_chainer_functions_on_the_same_graph():
    x, w, _ = _data()
    vx = _chx_variable(x)
    (y,) = TanhTimes().apply((F.exp(vx), chainerx.array(w)))  # a ChainerX array as an input too
    F.sum(y).backward()
    expected = _numeric_grad(lambda a: _f(numpy.exp(a), w), x, numpy.ones_like(x))
    numpy.testing.assert_allclose(chainerx.to_numpy(vx.grad), expected, rtol=_RTOL)


class SquareOrFallback(chainer.FunctionNode):
    """x ** 2, computed by ChainerX only when told to; else Fallback (NumPy, own backward)."""

    def __init__(self, use_chainerx):
        self.use_chainerx = use_chainerx
        self.backward_calls = 0

    def forward_chainerx(self, inputs):
        return (inputs[0] * inputs[0],) if self.use_chainerx else chainer.Fallback

    def forward(self, inputs):
        (x,) = inputs
        assert isinstance(x, numpy.ndarray)  # the data under the ChainerX array
        self.retain_inputs((0,))
        return (x * x,)

    def backward(self, indexes, grad_outputs):
        self.backward_calls += 1
        (x,) = self.get_retained_inputs()
        return (2 * x * grad_outputs[0],)


@pytest.mark.parametrize("use_chainerx", [True, False])
def test_fallback_runs_forward_and_backward_on_the_data(use_chainerx):
    x = numpy.array([1.5, -2.0])
    vx = _chx_variable(x)
    node = SquareOrFallback(use_chainerx)
    (y,) = node.apply((vx,))
    assert isinstance(y.array, chainerx.ndarray)
    F.sum(y).backward()
    assert node.backward_calls == (0 if use_chainerx else 1)
    numpy.testing.assert_allclose(chainerx.to_numpy(vx.grad), 2 * x, rtol=1e-15)


def test_forward_chainerx_must_return_a_tuple_of_chainerx_arrays():
    class Bad(chainer.FunctionNode):
        def forward_chainerx(self, inputs):
            return inputs[0]

    with pytest.raises(TypeError, match=r"Bad.forward_chainerx: expected a tuple of chainerx.ndarray"):
        Bad().apply((_chx_variable(numpy.ones(2)),))


def test_chx_array_is_in_the_variables_graph_and_refused_for_numpy_variables():
    vx = _chx_variable(numpy.array([2.0, 3.0]))
    connected = vx.chx_array
    assert connected.is_backprop_required() and not vx.array.is_backprop_required()
    y = chainer.Variable._in_chainer_graph(connected * connected)
    F.sum(y).backward()
    numpy.testing.assert_allclose(chainerx.to_numpy(vx.grad), [4.0, 6.0], rtol=1e-15)
    with pytest.raises(ValueError, match="expected a variable holding a ChainerX array"):
        _ = chainer.Variable(numpy.ones(2)).chx_array


def _squared_by(how, x):
    """x ** 2 from the variable ``x`` of ChainerX, by a Chainer function on its graph-connected
    array, or by a ChainerX routine wrapped in a Variable."""
    if how == "function":
        return F.square(x.chx_array)
    return chainer.Variable(chainerx.square(x.chx_array))


@pytest.mark.parametrize("how", ["function", "routine"])
@pytest.mark.parametrize("backward_from", ["variable", "array"])
def test_variables_and_arrays_share_the_default_graph(how, backward_from):
    x = _chx_variable(numpy.array([1.0, 2.0]))
    y = _squared_by(how, x)
    assert y.requires_grad and y.creator is not None
    if backward_from == "variable":
        y.backward()  # ChainerX's rule: the output's gradient starts as ones, whatever its size
    else:
        y.chx_array.backward()  # chainerx.backward gives the Variables of the graph their gradients
    numpy.testing.assert_allclose(chainerx.to_numpy(x.grad), [2.0, 4.0], rtol=1e-15)
