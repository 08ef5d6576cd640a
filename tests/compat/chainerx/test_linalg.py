"""``chainerx.linalg``: solve, inv and cholesky on fnet's ops, with ChainerX's errors."""

from __future__ import annotations

import numpy
import pytest

import fnet.compat.chainerx as chx


def _matrix():
    return numpy.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])


def test_solve_inv_and_cholesky_match_numpy():
    a, b = _matrix(), numpy.array([[1.0, 2.0], [0.0, 1.0], [3.0, -1.0]])
    x = chx.linalg.solve(chx.array(a), chx.array(b.astype(numpy.float32)))
    assert x.dtype == numpy.float64  # float64 with float32 promotes
    numpy.testing.assert_allclose(chx.to_numpy(x), numpy.linalg.solve(a, b), rtol=1e-12)
    numpy.testing.assert_allclose(chx.to_numpy(chx.linalg.inv(chx.array(a))), numpy.linalg.inv(a), rtol=1e-12)
    lower = chx.linalg.cholesky(chx.array(a))
    numpy.testing.assert_allclose(chx.to_numpy(lower), numpy.linalg.cholesky(a), rtol=1e-12)


def test_the_gradient_of_inv_goes_through_the_graph():
    a = chx.array(_matrix()).require_grad()
    chx.sum(chx.linalg.inv(a)).backward()
    inverse = numpy.linalg.inv(_matrix())
    expected = -(inverse.T @ numpy.ones((3, 3)) @ inverse.T)  # d sum(inv(a)) / da
    numpy.testing.assert_allclose(chx.to_numpy(a.grad), expected, rtol=1e-12)


def test_errors_are_chainerxs():
    with pytest.raises(chx.DtypeError, match="expected float32 or float64"):
        chx.linalg.inv(chx.ones((2, 2), "float16"))
    with pytest.raises(chx.DimensionError, match="expected a square matrix"):
        chx.linalg.cholesky(chx.ones((2, 3), "float32"))
    with pytest.raises(chx.DimensionError, match="expected b of shape"):
        chx.linalg.solve(chx.ones((2, 2), "float32"), chx.ones((3,), "float32"))
    with pytest.raises(chx.ChainerxError, match="cholesky"):
        chx.linalg.cholesky(chx.array(numpy.array([[1.0, -2.0], [-2.0, 1.0]], numpy.float32)))
