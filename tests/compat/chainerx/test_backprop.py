"""Backprop on fnet's tape: gradients of a sample of routines, to order 2, against central
differences in float64 (rtol 1e-6: the differences' own truncation error at eps=1e-4 is ~1e-8
relative for these smooth functions, their rounding ~1e-12/1e-4)."""

from __future__ import annotations

import numpy
import pytest

import fnet.compat.chainerx as chx

_RTOL = 1e-6
_EPS = 1e-4

# name, function of one array, input (away from kinks and branch cuts)
_ROUTINES = [
    ("exp", chx.exp, [0.3, -0.7, 1.2]),
    ("tanh", chx.tanh, [0.3, -0.7, 1.2]),
    ("log1p", chx.log1p, [0.3, 0.7, 1.2]),
    ("sqrt*x", lambda x: chx.sqrt(x) * x, [0.3, 0.7, 1.2]),
    ("power", lambda x: chx.power(x, 3.0), [0.3, -0.7, 1.2]),
    ("divide", lambda x: 1.0 / (x + 2.0), [0.3, -0.7, 1.2]),
    ("mod", lambda x: chx.mod(x, 0.5) * x, [0.3, -0.7, 1.2]),
    ("reshape.T", lambda x: (x.reshape(3, 1) * x.reshape(1, 3)).T, [0.3, -0.7, 1.2]),
    ("logsumexp", lambda x: chx.logsumexp(x * x), [0.3, -0.7, 1.2]),
    ("getitem", lambda x: x[1:] * x[:2], [0.3, -0.7, 1.2]),
    ("concatenate", lambda x: chx.concatenate([x, x * x]), [0.3, -0.7, 1.2]),
    ("where", lambda x: chx.where(x > 0, x * x, -x * x * x), [0.3, -0.7, 1.2]),
    ("maximum", lambda x: chx.maximum(x, 0.5) * x, [0.3, -0.7, 1.2]),
]


def _scalar(f, x):
    return (f(x) * chx.arange(1, f(x).size + 1, dtype="float64").reshape(f(x).shape)).sum()


def _numeric_grad(f, data):
    grad = numpy.zeros_like(data)
    for i in range(data.size):
        plus, minus = data.copy(), data.copy()
        plus.flat[i] += _EPS
        minus.flat[i] -= _EPS
        grad.flat[i] = (float(f(plus)) - float(f(minus))) / (2 * _EPS)
    return grad


@pytest.mark.parametrize(("name", "f", "data"), _ROUTINES, ids=[r[0] for r in _ROUTINES])
def test_first_and_second_order_match_central_differences(name, f, data):
    data = numpy.array(data, numpy.float64)

    def value(d):
        return _scalar(f, chx.array(d))

    def first(d):
        x = chx.array(d).require_grad()
        (gx,) = chx.grad([value_of(x)], [x], enable_double_backprop=True)
        return gx

    def value_of(x):
        return _scalar(f, x)

    numpy.testing.assert_allclose(
        chx.to_numpy(first(data)), _numeric_grad(value, data), rtol=_RTOL, atol=1e-9
    )
    # second order: the gradient of <first(x), w> against its central differences
    w = numpy.array([0.5, -1.0, 2.0])

    def projected(d):
        return (first(d) * chx.array(w)).sum()

    x = chx.array(data).require_grad()
    (gx,) = chx.grad([value_of(x)], [x], enable_double_backprop=True)
    chx.backward((gx * chx.array(w)).sum())
    numpy.testing.assert_allclose(chx.to_numpy(x.grad), _numeric_grad(projected, data), rtol=1e-5, atol=1e-8)


def test_backward_accumulates_and_leaves_output_gradients_alone():
    x = chx.array([2.0], "float32").require_grad()
    y = x * x
    y.set_grad(chx.array([3.0], "float32"))
    chx.backward(y)
    chx.backward(x * 5.0)
    assert x.grad._debug_flat_data == [17.0] and y.grad._debug_flat_data == [3.0]


def test_graphs_of_two_backprop_ids_are_separate():
    with chx.backprop_scope("a") as a, chx.backprop_scope("b") as b:
        x = chx.array([2.0], "float64").require_grad(a)
        y = chx.array([3.0], "float64").require_grad(b)
        z = x * y
        chx.backward(z, a)
        assert x.get_grad(a)._debug_flat_data == [3.0] and y.get_grad(b) is None
        assert chx.grad([z], [x], b) == [None]


def test_no_backprop_mode_stops_recording_for_the_named_graphs():
    with chx.backprop_scope("a") as a:
        x = chx.array([2.0], "float64").require_grad().require_grad(a)
        with chx.no_backprop_mode(a):
            y = x * x
        assert y.is_backprop_required() and not y.is_backprop_required(a)
        with chx.no_backprop_mode():
            assert not (x * x).is_backprop_required(chx.anygraph)
            with chx.force_backprop_mode(a):
                assert (x * x).is_backprop_required(a)


def test_as_grad_stopped_cuts_the_named_graphs_only():
    with chx.backprop_scope("a") as a:
        x = chx.array([2.0], "float64").require_grad().require_grad(a)
        y = x.as_grad_stopped([a])
        assert y.is_backprop_required() and not y.is_backprop_required(a)
        assert not x.as_grad_stopped(copy=True).is_backprop_required(chx.anygraph)


def test_check_backward_finds_a_backward_that_does_not_match_the_forward():
    def right(xs):
        return (xs[0] * xs[0],)

    def wrong(xs):
        return ((xs[0] * xs[0]).as_grad_stopped() + xs[0],)

    x = chx.array([1.0, 2.0], "float64").require_grad()
    gy, eps = chx.array([1.0, -2.0], "float64"), chx.full((2,), 1e-3, "float64")
    chx.check_backward(right, (x,), (gy,), (eps,))
    with pytest.raises(chx.GradientCheckError, match="central differences"):
        chx.check_backward(wrong, (x,), (gy,), (eps,))
    chx.check_double_backward(
        right, (x,), (gy.copy().require_grad(),), (chx.ones((2,), "float64"),), (eps, eps)
    )


def test_modes_apply_to_one_context():
    other = chx.Context()
    with chx.no_backprop_mode():
        assert not chx.is_backprop_required() and chx.is_backprop_required(context=other)
    with pytest.raises(TypeError, match="Context"):
        chx.is_backprop_required(context="native")


def test_backward_from_an_input_gives_it_ones():
    x = chx.array([2.0, 3.0], "float32").require_grad()
    chx.backward(x)
    assert x.grad._debug_flat_data == [1.0, 1.0]
