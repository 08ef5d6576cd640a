"""Tests of tril, triu and solve_triangular: NumPy's and SciPy's numbers, the triangle not read,
its zero gradient, errors."""

from __future__ import annotations

import numpy
import pytest
import scipy.linalg

import fnet
from fnet import ops
from fnet.errors import ShapeError

rng = numpy.random.RandomState(12)
A = rng.normal(size=(2, 4, 4)) + 4 * numpy.eye(4)
B = rng.normal(size=(2, 4, 3))


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_tril_and_triu_are_numpys(k):
    numpy.testing.assert_array_equal(ops.tril(A, k), numpy.tril(A, k))
    numpy.testing.assert_array_equal(ops.triu(A, k), numpy.triu(A, k))


@pytest.mark.parametrize("lower", [True, False])
def test_solve_triangular_matches_scipy_and_reads_one_triangle(lower):
    expected = numpy.stack([scipy.linalg.solve_triangular(a, b, lower=lower) for a, b in zip(A, B)])
    # Both solve the same triangular systems of condition ~2: agreement to a few float64 eps.
    numpy.testing.assert_allclose(ops.solve_triangular(A, B, lower=lower), expected, rtol=1e-13, atol=1e-15)
    x = ops.solve_triangular(A[0], B[0, :, 0], lower=lower)  # a vector right-hand side
    numpy.testing.assert_allclose(x, expected[0, :, 0], rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("lower", [True, False])
def test_the_gradient_of_the_triangle_not_read_is_zero(lower):
    g = fnet.grad(lambda a: (ops.solve_triangular(a, B, lower=lower) ** 2).sum())(A)
    other = numpy.triu(numpy.ones((4, 4)), 1) if lower else numpy.tril(numpy.ones((4, 4)), -1)
    assert (g[:, other == 1] == 0).all() and (g[:, other == 0] != 0).all()


def test_an_empty_matrix_solves_to_an_empty_one():
    assert ops.solve_triangular(numpy.zeros((0, 0)), numpy.zeros((0, 0))).shape == (0, 0)


def test_a_vector_is_not_a_matrix():
    with pytest.raises(ShapeError, match=r"tril: expected a \(batch of\) matrices, got shape \(3,\)"):
        ops.tril(numpy.ones(3))
    with pytest.raises(ShapeError, match="solve_triangular: expected a"):
        ops.solve_triangular(numpy.ones(3), numpy.ones(3))
