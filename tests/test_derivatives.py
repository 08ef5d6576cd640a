"""Tests of fnet.derivatives: the Jacobian and the Hessian."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import ops
from fnet.testing import assert_allclose


def rng(seed=0):
    return numpy.random.RandomState(seed)


def test_jacobian_of_a_vector_function():
    def f(x):
        return ops.stack([x[0] * x[1], ops.sin(x[2]), x[0] ** 2, ops.sum(x)])

    x = numpy.array([1.5, -2.0, 0.3])
    expected = numpy.array(
        [
            [x[1], x[0], 0.0],
            [0.0, 0.0, numpy.cos(x[2])],
            [2 * x[0], 0.0, 0.0],
            [1.0, 1.0, 1.0],
        ]
    )
    assert_allclose(fnet.jacobian(f)(x), expected, rtol=1e-12)


def test_jacobian_shape_is_out_shape_plus_in_shape():
    w = rng(5).randn(2, 3)
    x = rng(6).randn(3, 4)
    jac = fnet.jacobian(lambda w, x: w @ x, argnums=1)(w, x)
    assert jac.shape == (2, 4, 3, 4)
    expected = numpy.einsum("ik,jl->ijkl", w, numpy.eye(4))
    assert_allclose(jac, expected, rtol=1e-12)


def test_jacobian_of_scalar_and_constant_functions():
    assert fnet.jacobian(lambda x: x**3)(2.0) == pytest.approx(12.0)
    jac = fnet.jacobian(lambda x: 3.0)(numpy.ones(2))
    assert jac.shape == (2,) and not jac.any()


def test_hessian_of_a_quadratic_form():
    r = rng(1)
    a = r.randn(4, 4)
    sym = a + a.T
    x = r.randn(4)

    def quad(m):
        return lambda v: v @ m @ v / 2

    assert_allclose(fnet.hessian(quad(sym))(x), sym, rtol=1e-12)
    # a non-symmetric A: only its symmetric part shows
    assert_allclose(fnet.hessian(quad(a))(x), (a + a.T) / 2, rtol=1e-12)


def test_hessian_keeps_float32():
    a = numpy.array([[2.0, 1.0], [1.0, 3.0]], numpy.float32)
    h = fnet.hessian(lambda v: v @ a @ v / 2)(numpy.ones(2, numpy.float32))
    assert h.dtype == numpy.float32
    assert_allclose(h, a)


def test_a_jacobian_is_differentiable_again():
    # d/dx sum(J(sin)(x)) = d/dx sum(cos x) = -sin x: the rows are stacked with traced operations
    x = numpy.array([0.3, -1.2, 2.0])
    g = fnet.grad(lambda x: ops.sum(fnet.jacobian(ops.sin)(x)))(x)
    assert_allclose(g, -numpy.sin(x), rtol=1e-12)


def test_autodiff_offers_no_jacobian():
    # the core's transforms stop below fnet.ops; the Jacobian stands above it
    assert not hasattr(fnet.autodiff, "jacobian") and fnet.jacobian is fnet.derivatives.jacobian
