"""Tests of fnet.testing: gradient checks must pass on right VJPs and fail on wrong ones."""

from __future__ import annotations

import importlib

import numpy
import pytest

import fnet
from fnet import ops, testing


def x64(*values):
    return numpy.array(values, dtype=numpy.float64)


def _cube(x):
    return x * x * x


@pytest.fixture
def good_cube(scratch_primitive):
    return scratch_primitive(_cube, lambda g, ans, x: ops.multiply(g, ops.multiply(3.0, ops.square(x))))


@pytest.fixture
def wrong_cube(scratch_primitive):
    return scratch_primitive(_cube, lambda g, ans, x: ops.multiply(g, ops.multiply(2.0, ops.square(x))))


@pytest.fixture
def first_order_only_cube(scratch_primitive):
    # right values, but stop_gradient hides x from a second differentiation
    return scratch_primitive(
        _cube, lambda g, ans, x: ops.multiply(g, ops.multiply(3.0, ops.square(fnet.stop_gradient(x))))
    )


def test_check_grads_passes_on_a_right_vjp(good_cube):
    x = x64(0.5, -1.3, 2.0)
    testing.check_grads(good_cube, (x,), order=1)
    testing.check_grads(good_cube, (x,), order=2)
    testing.check_grads(good_cube, (x,), order=3)


def test_check_grads_fails_on_a_wrong_vjp(wrong_cube):
    with pytest.raises(
        AssertionError, match=r"check_vjp: the VJP of test__cube disagrees with central differences"
    ):
        testing.check_grads(wrong_cube, (x64(0.5, -1.3),), order=1)


def test_check_grads_fails_at_order_2_on_a_vjp_that_is_not_differentiable(first_order_only_cube):
    x = x64(0.5, -1.3)
    testing.check_grads(first_order_only_cube, (x,), order=1)  # right at first order
    with pytest.raises(AssertionError, match=r"check_vjp: the VJP of vjp\(test__cube\) disagrees") as info:
        testing.check_grads(first_order_only_cube, (x,), order=2)
    assert "<vjp(u), v> = 0.0" in str(info.value)


def test_check_grads_on_ops_and_composites():
    x = x64(0.3, -0.8, 1.1)
    testing.check_grads(ops.tanh, (x,), order=2)
    testing.check_grads(
        lambda a, b: ops.sum(ops.exp(a) * b) / (1 + ops.sum(b * b)), (x, x[::-1].copy()), order=2
    )


def test_check_grads_with_pytree_arguments_and_outputs():
    def f(params, x):
        return {"y": ops.tanh(x @ params["W"]), "s": (ops.sum(params["b"] ** 2),)}

    r = numpy.random.RandomState(0)
    params = {"W": r.randn(3, 2), "b": r.randn(2)}
    testing.check_grads(f, (params, r.randn(4, 3)), order=2)


def test_check_vjp_skips_integer_arguments_and_outputs():
    def f(x, n):
        return ops.sin(x) * n, ops.argmax(x)

    testing.check_vjp(f, (x64(0.2, 0.9), numpy.array([2, 3])))


def test_check_grads_with_integer_labels_at_order_2():
    def cross_entropy(x, t):
        logp = x - ops.logsumexp(x, axis=1, keepdims=True)
        return -ops.mean(logp[numpy.arange(len(t)), t])

    r = numpy.random.RandomState(1)
    testing.check_grads(cross_entropy, (r.randn(4, 3), numpy.array([0, 2, 1, 2])), order=2)


def test_check_vjp_catches_a_wrong_vjp_of_one_operand_only(scratch_primitive):
    def mul(x, y):
        return x * y

    bad = scratch_primitive(mul, lambda g, ans, x, y: ops.multiply(g, y), lambda g, ans, x, y: g)
    testing.check_vjp(lambda a, b: bad(a, b), (x64(1.0, 1.0), x64(3.0, -1.0)))  # y-VJP right when x == 1
    with pytest.raises(AssertionError):
        testing.check_vjp(lambda a, b: bad(a, b), (x64(1.0, 2.0), x64(3.0, -1.0)))


def test_numerical_jvp():
    x, t = x64(0.5, 1.0), x64(1.0, -2.0)
    jvp = testing.numerical_jvp(ops.sin, (x,), (t,))
    numpy.testing.assert_allclose(jvp, numpy.cos(x) * t, rtol=1e-8)
    # a None tangent leaves that argument fixed
    jvp2 = testing.numerical_jvp(lambda a, b: a * b, (x, x64(3.0, 4.0)), (t, None))
    numpy.testing.assert_allclose(jvp2, t * [3.0, 4.0], rtol=1e-8)


def test_assert_allclose():
    testing.assert_allclose(x64(1.0, 2.0), [1.0, 2.0 + 1e-9], rtol=1e-6)
    with pytest.raises(AssertionError, match="context"):
        testing.assert_allclose(x64(1.0), x64(1.1), err_msg="context")


def test_tree_allclose():
    a = {"w": x64(1.0, 2.0), "b": [x64(3.0)]}
    assert testing.tree_allclose(a, {"w": x64(1.0, 2.0 + 1e-12), "b": [x64(3.0)]})
    assert not testing.tree_allclose(a, {"w": x64(1.0, 2.5), "b": [x64(3.0)]})
    assert not testing.tree_allclose(a, {"w": x64(1.0, 2.0), "b": (x64(3.0),)})
    # leaves must have the same shape, not merely broadcast
    assert not testing.tree_allclose([numpy.ones(3)], [numpy.ones(1)])
    assert not testing.tree_allclose([numpy.ones((2, 1))], [numpy.ones((1, 2))])


def test_scratch_primitives_leave_the_registry(scratch_primitive):
    prim = scratch_primitive(_cube)
    assert prim in fnet.autodiff.all_primitives().values()


def test_scratch_primitives_were_removed():
    names = [p.name for p in fnet.autodiff.all_primitives().values()]
    assert not [n for n in names if n.startswith("test_")]
    assert importlib.import_module("fnet.autodiff.primitive")._registry is not None
