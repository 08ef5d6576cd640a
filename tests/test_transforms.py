"""Tests of the function transforms: grad, value_and_grad, vjp, stop_gradient (jacobian and
hessian: tests/test_derivatives.py)."""

from __future__ import annotations

import gc
import weakref

import attrs
import numpy
import pytest

import fnet
from fnet import ops
from fnet.autodiff import Tracer
from fnet.testing import assert_allclose, check_vjp


def rng(seed=0):
    return numpy.random.RandomState(seed)


# -- acceptance lines ---------------------------------------------------------------------------


def test_nested_grad_closing_over_outer_tracer():
    grad = fnet.grad
    assert grad(lambda x: x * grad(lambda y: x * y)(1.0))(2.0) == 4.0


@pytest.mark.parametrize("x", [-2.0, -0.7, 0.0, 0.3, 1.1, 2.5])
def test_third_derivative_of_tanh(x):
    # t = tanh x: t' = 1 - t^2, t'' = -2 t (1 - t^2), t''' = -2 (1 - t^2)(1 - 3 t^2)
    t = numpy.tanh(x)
    d1 = fnet.grad(ops.tanh)
    d2 = fnet.grad(d1)
    d3 = fnet.grad(d2)
    assert_allclose(d1(x), 1 - t**2, rtol=1e-12)
    assert_allclose(d2(x), -2 * t * (1 - t**2), rtol=1e-12, atol=1e-15)
    assert_allclose(d3(x), -2 * (1 - t**2) * (1 - 3 * t**2), rtol=1e-12, atol=1e-15)


def test_third_derivative_of_tanh_elementwise_on_an_array():
    x = numpy.linspace(-2, 2, 7)
    t = numpy.tanh(x)

    def d(f):  # f is elementwise, so the gradient of its sum is its derivative
        return lambda z: fnet.grad(lambda w: ops.sum(f(w)))(z)

    d3 = d(d(d(ops.tanh)))
    assert_allclose(d3(x), -2 * (1 - t**2) * (1 - 3 * t**2), rtol=1e-12, atol=1e-15)


def _mlp_loss(params, x, t):
    h = ops.tanh(x @ params["l1"]["W"].T + params["l1"]["b"])
    y = h @ params["l2"]["W"].T + params["l2"]["b"]
    return ops.mean((y - t) ** 2)


def _mlp_params(r, dtype=numpy.float64):
    return {
        "l1": {"W": r.randn(5, 3).astype(dtype), "b": r.randn(5).astype(dtype)},
        "l2": {"W": r.randn(2, 5).astype(dtype), "b": r.randn(2).astype(dtype)},
    }


def test_grad_of_nested_dict_params():
    r = rng(2)
    params = _mlp_params(r)
    x, t = r.randn(4, 3), r.randn(4, 2)
    grads = fnet.grad(_mlp_loss)(params, x, t)
    assert fnet.tree.structure(grads) == fnet.tree.structure(params)
    for g, p in zip(fnet.tree.leaves(grads), fnet.tree.leaves(params)):
        assert type(g) is numpy.ndarray
        assert g.shape == p.shape and g.dtype == p.dtype
    check_vjp(lambda p: _mlp_loss(p, x, t), (params,))


def test_grad_of_float32_params_is_float32():
    r = rng(3)
    params = _mlp_params(r, numpy.float32)
    x, t = r.randn(4, 3).astype(numpy.float32), r.randn(4, 2).astype(numpy.float32)
    grads = fnet.grad(_mlp_loss)(params, x, t)
    assert all(g.dtype == numpy.float32 for g in fnet.tree.leaves(grads))


@attrs.frozen
class Net:
    W: object
    b: object
    activation: str = fnet.tree.static_field(default="tanh")


def test_grad_of_attrs_params():
    r = rng(4)
    net = Net(r.randn(2, 3), r.randn(2), "sin")
    x, t = r.randn(5, 3), r.randn(5, 2)

    def loss(net, x, t):
        act = getattr(ops, net.activation)
        return ops.sum((act(x @ net.W.T + net.b) - t) ** 2)

    grads = fnet.grad(loss)(net, x, t)
    assert type(grads) is Net
    assert grads.activation == "sin"
    assert grads.W.shape == (2, 3) and grads.b.shape == (2,)
    z = x @ net.W.T + net.b
    delta = 2 * (numpy.sin(z) - t) * numpy.cos(z)
    assert_allclose(grads.W, delta.T @ x, rtol=1e-12)
    assert_allclose(grads.b, delta.sum(0), rtol=1e-12)


# -- argnums, has_aux ---------------------------------------------------------------------------


def f_abc(a, b, c):
    return a * b**2 * c**3


def test_argnums_int_tuple_negative():
    a, b, c = 2.0, 3.0, 0.5
    assert fnet.grad(f_abc)(a, b, c) == pytest.approx(b**2 * c**3)
    assert fnet.grad(f_abc, argnums=1)(a, b, c) == pytest.approx(2 * a * b * c**3)
    assert fnet.grad(f_abc, argnums=-1)(a, b, c) == pytest.approx(3 * a * b**2 * c**2)
    g = fnet.grad(f_abc, argnums=(2, 0))(a, b, c)
    assert isinstance(g, tuple) and len(g) == 2
    assert g == pytest.approx((3 * a * b**2 * c**2, b**2 * c**3))
    (g1,) = fnet.grad(f_abc, argnums=(1,))(a, b, c)
    assert g1 == pytest.approx(2 * a * b * c**3)


def test_argnums_out_of_range():
    with pytest.raises(ValueError, match="grad: argnums 3 out of range for 3 positional arguments"):
        fnet.grad(f_abc, argnums=3)(1.0, 2.0, 3.0)


def test_keyword_arguments_are_not_differentiated():
    g = fnet.grad(lambda x, *, scale: scale * x**2)(3.0, scale=2.0)
    assert g == pytest.approx(12.0)


def test_grad_has_aux():
    def f(x):
        y = ops.sin(x)
        return ops.sum(y), {"y": y, "n": 3}

    x = numpy.array([0.1, 0.2])
    g, aux = fnet.grad(f, has_aux=True)(x)
    assert_allclose(g, numpy.cos(x))
    assert type(aux["y"]) is numpy.ndarray  # aux comes back unboxed
    assert_allclose(aux["y"], numpy.sin(x))
    assert aux["n"] == 3


def test_value_and_grad_has_aux():
    (value, aux), g = fnet.value_and_grad(lambda x: (x**3, x + 1), has_aux=True)(2.0)
    assert (value, aux, g) == (8.0, 3.0, 12.0)
    assert not isinstance(value, Tracer) and not isinstance(aux, Tracer)


def test_value_and_grad():
    value, g = fnet.value_and_grad(lambda x, y: ops.sum(x * y), argnums=(0, 1))(
        numpy.array([1.0, 2.0]), numpy.array([3.0, 4.0])
    )
    assert value == 11.0
    assert_allclose(g[0], [3.0, 4.0])
    assert_allclose(g[1], [1.0, 2.0])


def test_has_aux_requires_a_pair():
    with pytest.raises(TypeError, match="grad: with has_aux=True the function must return a pair"):
        fnet.grad(lambda x: x * 2, has_aux=True)(1.0)
    with pytest.raises(TypeError, match="vjp: with has_aux=True the function must return a pair"):
        fnet.vjp(lambda x: x * 2, 1.0, has_aux=True)


# -- vjp ----------------------------------------------------------------------------------------


def test_vjp_pytrees_in_and_out():
    a, b = numpy.array([1.0, 2.0]), numpy.array([3.0, -1.0])

    def f(d, s):
        return {"prod": d["a"] * d["b"] * s, "pair": (ops.sum(d["a"]), d["b"] ** 2)}

    out, pullback = fnet.vjp(f, {"a": a, "b": b}, 2.0)
    assert_allclose(out["prod"], a * b * 2)
    assert_allclose(out["pair"][0], 3.0)
    ct = {"prod": numpy.array([1.0, 10.0]), "pair": (numpy.float64(2.0), numpy.array([1.0, 1.0]))}
    (gd, gs) = pullback(ct)
    assert_allclose(gd["a"], ct["prod"] * b * 2 + 2.0)
    assert_allclose(gd["b"], ct["prod"] * a * 2 + 2 * b)
    assert_allclose(gs, numpy.sum(ct["prod"] * a * b))
    # the pullback can be called again
    assert_allclose(pullback(ct)[1], gs)


def test_vjp_has_aux():
    out, pullback, aux = fnet.vjp(
        lambda x: (ops.exp(x), {"x2": x * 2}), numpy.array([0.0, 1.0]), has_aux=True
    )
    assert_allclose(out, numpy.exp([0.0, 1.0]))
    assert_allclose(aux["x2"], [0.0, 2.0])
    assert not isinstance(aux["x2"], Tracer)
    assert_allclose(pullback(numpy.ones(2))[0], numpy.exp([0.0, 1.0]))


def test_vjp_none_cotangent_is_a_zero():
    out, pullback = fnet.vjp(lambda x: (x * 2, x * 3), numpy.ones(2))
    assert_allclose(pullback((None, numpy.ones(2)))[0], [3.0, 3.0])
    assert_allclose(pullback((None, None))[0], [0.0, 0.0])


def test_vjp_of_an_output_with_none_and_integers():
    def f(x):
        return ops.sin(x), None, ops.argmax(x)

    out, pullback = fnet.vjp(f, numpy.array([0.5, 2.0]))
    assert out[1] is None and out[2] == 1
    assert_allclose(pullback((numpy.ones(2), None, None))[0], numpy.cos([0.5, 2.0]))


def test_vjp_output_is_an_input():
    out, pullback = fnet.vjp(lambda x, y: (y, x), 1.0, 2.0)
    assert out == (2.0, 1.0)
    assert pullback((numpy.float64(5.0), numpy.float64(7.0))) == (7.0, 5.0)


# -- stop_gradient, no_grad ---------------------------------------------------------------------


def test_stop_gradient():
    assert fnet.grad(lambda x: x * fnet.stop_gradient(x))(3.0) == 3.0
    assert fnet.grad(lambda x: fnet.stop_gradient(x**2) + x)(3.0) == 1.0


def test_stop_gradient_over_a_tree_and_every_level():
    def f(x):
        stopped = fnet.stop_gradient({"a": x, "b": [x * 2]})
        assert not isinstance(stopped["a"], Tracer) and not isinstance(stopped["b"][0], Tracer)
        return x * stopped["b"][0]

    assert fnet.grad(f)(3.0) == 6.0
    # inside a nested grad it stops the outer level too
    assert fnet.grad(lambda x: fnet.grad(lambda y: y * fnet.stop_gradient(x * y))(1.0))(2.0) == 0.0


def test_no_grad_records_nothing():
    seen = {}

    def f(x):
        with fnet.no_grad():
            assert not fnet.autodiff.grad_enabled()
            y = ops.sin(x) * 2
            seen["y"] = y
        assert fnet.autodiff.grad_enabled()
        return ops.sum(x * y)

    x = numpy.array([0.1, 0.7])
    g = fnet.grad(f)(x)
    assert type(seen["y"]) is numpy.ndarray
    assert not isinstance(seen["y"], Tracer)
    assert_allclose(g, 2 * numpy.sin(x))  # y is a constant


def test_grad_inside_no_grad_works():
    # no_grad freezes the traces open when it is entered; a new grad inside records as usual
    with fnet.no_grad():
        g = fnet.grad(lambda x: x * x)(3.0)
    assert g == 6.0


def test_no_grad_inside_grad_freezes_only_outer_traces():
    def f(x):
        with fnet.no_grad():
            frozen = x * x
            inner = fnet.grad(lambda y: y * x)(2.0)  # x is a constant here
        return frozen * x + inner

    assert fnet.grad(f)(3.0) == pytest.approx(9.0)


# -- higher orders and nesting ------------------------------------------------------------------


def test_polynomial_derivatives_of_orders_1_to_4():
    def p(x):
        return 3 * x**5 - 2 * x**3 + x**2 - 7

    derivatives = [
        lambda x: 15 * x**4 - 6 * x**2 + 2 * x,
        lambda x: 60 * x**3 - 12 * x + 2,
        lambda x: 180 * x**2 - 12,
        lambda x: 360 * x,
    ]
    f = p
    for expected in derivatives:
        f = fnet.grad(f)
        for x in (-1.5, -0.25, 0.5, 2.0):
            assert f(x) == pytest.approx(expected(x), rel=1e-12, abs=1e-12)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning", "ignore:invalid value:RuntimeWarning")
def test_power_derivatives_at_zero():
    assert fnet.grad(lambda x: x**0.0)(0.0) == 0.0
    assert fnet.grad(fnet.grad(fnet.grad(lambda x: x**2)))(0.0) == 0.0


def test_gradient_closing_over_outer_tracers():
    # d/dx [d/dy sin(x y)] at y = 2 = d/dx [x cos(2x)] = cos(2x) - 2x sin(2x)
    def outer(x):
        return fnet.grad(lambda y: ops.sin(x * y))(2.0)

    for x in (-0.4, 0.5, 1.3):
        assert fnet.grad(outer)(x) == pytest.approx(numpy.cos(2 * x) - 2 * x * numpy.sin(2 * x), rel=1e-12)


def test_inner_grad_of_an_outer_only_output_is_zero():
    assert fnet.grad(lambda x: x * fnet.grad(lambda y: x * 3.0)(1.0))(2.0) == 0.0


def test_gradient_penalty_against_central_differences():
    r = rng(7)
    w1, w2 = r.randn(3, 4), r.randn(4)
    x = r.randn(5, 3)

    def critic(params, x):
        return ops.sum(ops.tanh(x @ params["w1"]) @ params["w2"])

    def loss(params, x):
        gx = fnet.grad(critic, argnums=1)(params, x)
        norms = ops.sqrt(ops.sum(gx * gx, axis=1))
        return critic(params, x) / 5 + 10.0 * ops.mean((norms - 1.0) ** 2)

    params = {"w1": w1, "w2": w2}
    check_vjp(loss, (params, x), directions=3)
    # and the two-step way a WGAN-GP trainer does it
    grads = fnet.grad(loss)(params, x)
    eps = 1e-6
    bumped = {"w1": w1.copy(), "w2": w2.copy()}
    bumped["w1"][1, 2] += eps
    minus = {"w1": w1.copy(), "w2": w2.copy()}
    minus["w1"][1, 2] -= eps
    numeric = (loss(bumped, x) - loss(minus, x)) / (2 * eps)
    assert grads["w1"][1, 2] == pytest.approx(numeric, rel=1e-6)


# -- Python semantics ---------------------------------------------------------------------------


def test_python_control_flow_on_values():
    def f(x):
        if x > 0:
            y = x * x
        else:
            y = -x
        for _ in range(3):
            y = y * 2.0
        while y < 100.0:
            y = y * y
        return y

    # x = 1: y = 8 x^2 -> 64 x^4 -> 4096 x^8 (>= 100), so dy/dx = 8 * 4096 x^7
    assert fnet.grad(f)(1.0) == pytest.approx(8 * 4096)
    # x = -20: y = -8 x = 160 >= 100, so dy/dx = -8
    assert fnet.grad(f)(-20.0) == pytest.approx(-8.0)


def test_python_control_flow_branch_and_loop():
    def f(x):
        y = x * x if x > 0 else -x
        for _ in range(3):
            y = y * 2.0
        return y

    assert fnet.grad(f)(1.5) == pytest.approx(8 * 2 * 1.5)
    assert fnet.grad(f)(-1.5) == pytest.approx(-8.0)


def test_newton_iterations_are_differentiable():
    def sqrt_newton(a):
        x = a
        for _ in range(30):
            x = (x + a / x) / 2
        return x

    a = 2.3
    assert fnet.grad(sqrt_newton)(a) == pytest.approx(0.5 / numpy.sqrt(a), rel=1e-10)


def test_unused_inputs_get_zeros():
    params = {"used": numpy.ones(3, numpy.float32), "unused": numpy.ones((2, 2), numpy.float32)}
    g = fnet.grad(lambda p: ops.sum(p["used"] * 2.0))(params)
    assert_allclose(g["used"], numpy.full(3, 2.0, numpy.float32))
    assert g["unused"].shape == (2, 2) and g["unused"].dtype == numpy.float32
    assert not g["unused"].any()
    ga, gb = fnet.grad(lambda a, b: a * 3.0, argnums=(0, 1))(1.0, 2.0)
    assert (ga, gb) == (3.0, 0.0)


def test_output_not_depending_on_the_input():
    assert fnet.grad(lambda x: 3.0)(2.0) == 0.0
    g = fnet.grad(lambda x: ops.sum(numpy.ones(3)))(numpy.ones((2, 2)))
    assert g.shape == (2, 2) and not g.any()
    value, g = fnet.value_and_grad(lambda x: numpy.float32(1.5))(numpy.ones(2, numpy.float32))
    assert value == 1.5 and g.dtype == numpy.float32 and not g.any()


def test_same_input_used_twice():
    assert fnet.grad(lambda x: x * x)(3.0) == 6.0
    assert fnet.grad(lambda x: ops.sin(x) * ops.sin(x) + x)(0.5) == pytest.approx(numpy.sin(1.0) + 1)
    a = numpy.array([1.0, 2.0])
    ga, gb = fnet.grad(lambda x, y: ops.sum(x * y), argnums=(0, 1))(a, a)  # one array, two arguments
    assert_allclose(ga, a) and assert_allclose(gb, a)
    # one value twice inside a pytree
    g = fnet.grad(lambda d: ops.sum(d["p"] * d["q"]))({"p": a, "q": a})
    assert_allclose(g["p"], a)


def test_grad_returns_plain_arrays():
    g = fnet.grad(lambda x: ops.sum(x**2))(numpy.ones(3))
    assert type(g) is numpy.ndarray


def test_long_chain_has_no_recursion_error():
    def f(x):
        for _ in range(10000):
            x = x * 1.0001
        return x

    assert fnet.grad(f)(1.0) == pytest.approx(1.0001**10000, rel=1e-9)


def test_second_order_through_a_long_chain():
    def f(x):
        for _ in range(3000):
            x = ops.sin(x)
        return x

    fnet.grad(fnet.grad(f))(0.5)  # finishes, no RecursionError


def test_the_tape_is_freed_after_grad():
    refs = []

    def f(x):
        h = ops.sin(x) * 2.0
        refs.append(weakref.ref(h.record))
        return ops.sum(h * h)

    fnet.grad(f)(numpy.ones(3))
    assert refs[0]() is None  # freed by reference counting alone, without gc.collect()


def test_a_pullback_keeps_the_tape_alive_until_dropped():
    refs = []

    def f(x):
        h = ops.exp(x)
        refs.append(weakref.ref(h.record))
        return h * 3.0

    _, pullback = fnet.vjp(f, numpy.ones(2))
    gc.collect()
    assert refs[0]() is not None
    assert_allclose(pullback(numpy.ones(2))[0], 3 * numpy.e * numpy.ones(2))
    del pullback
    gc.collect()
    assert refs[0]() is None


def test_pullback_checks_the_cotangent_shape_and_dtype():
    _, pullback = fnet.vjp(fnet.ops.exp, numpy.ones(3))
    with pytest.raises(
        fnet.errors.ShapeError,
        match=r"vjp pullback: the cotangent must have the output's shape \(3,\), got \(5,\)",
    ):
        pullback(numpy.ones(5))
    _, pullback = fnet.vjp(lambda x: {"y": x * 2}, numpy.ones(2, numpy.float32))
    with pytest.raises(
        fnet.errors.DTypeError,
        match="the cotangent for output 'y' must have the output's dtype float32, got float64",
    ):
        pullback({"y": numpy.ones(2)})
