"""Tests of svd, qr, eigh, eigvalsh and pinv: NumPy's numbers and shapes, float16, the gradients
the table does not cover (rank deficiency, the triangle not read), and the typed errors where a
gradient is undefined. The order-2 gradient checks are rows of test_grad_table.py."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import ops
from fnet.errors import InvalidInputError, NonDifferentiableError, ShapeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(7)
SHAPES = [(3, 3), (4, 2), (2, 4), (2, 3, 2), (0, 3), (3, 0)]

# The same LAPACK routines run on both sides, but through different drivers and memory layouts:
# results agree to a few hundred float64 eps on these well-conditioned 4x4 matrices.
RTOL, ATOL = 1e-12, 1e-12


def _total(outputs):
    total = 0.0
    for y in outputs:
        total = ops.add(total, ops.sum(ops.multiply(y, y)))
    return total


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("full_matrices", [False, True])
def test_svd_is_numpys(shape, full_matrices):
    a = rng.normal(size=shape)
    u, s, vh = ops.svd(a, full_matrices=full_matrices)
    nu, ns, nvh = numpy.linalg.svd(a, full_matrices=full_matrices)
    assert (u.shape, s.shape, vh.shape) == (nu.shape, ns.shape, nvh.shape)
    numpy.testing.assert_allclose(s, ns, rtol=RTOL, atol=ATOL)
    numpy.testing.assert_allclose(ops.svd(a, compute_uv=False), ns, rtol=RTOL, atol=ATOL)
    k = min(shape[-2:])  # signs are LAPACK's: compare the reconstruction and the projections
    numpy.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, rtol=RTOL, atol=ATOL)
    numpy.testing.assert_allclose(numpy.abs(u[..., :k]), numpy.abs(nu[..., :k]), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r", "raw"])
def test_qr_is_numpys(shape, mode):
    a = rng.normal(size=shape)
    ours, theirs = ops.qr(a, mode), numpy.linalg.qr(a, mode)
    ours, theirs = (ours, theirs) if mode != "r" else ((ours,), (theirs,))
    for x, y in zip(ours, theirs, strict=True):
        assert x.shape == y.shape and x.dtype == y.dtype
        numpy.testing.assert_allclose(x, y, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("uplo", ["L", "U", "u"])
def test_eigh_and_eigvalsh_are_numpys_and_read_one_triangle(uplo):
    a = rng.normal(size=(2, 4, 4))
    w, v = ops.eigh(a, uplo)
    nw, nv = numpy.linalg.eigh(a, uplo)
    numpy.testing.assert_allclose(w, nw, rtol=RTOL, atol=ATOL)
    numpy.testing.assert_allclose(ops.eigvalsh(a, uplo), nw, rtol=RTOL, atol=ATOL)
    numpy.testing.assert_allclose(numpy.abs(v), numpy.abs(nv), rtol=1e-9, atol=1e-9)
    lower = uplo.upper() == "L"
    other = numpy.triu(numpy.ones((4, 4)), 1) if lower else numpy.tril(numpy.ones((4, 4)), -1)
    g = fnet.grad(lambda x: ops.sum(ops.multiply(ops.eigvalsh(x, uplo), numpy.arange(4.0))))(a)
    assert (g[:, other == 1] == 0).all()
    g = fnet.grad(lambda x: _total([ops.eigh(x, uplo)[1]]) + ops.sum(ops.eigh(x, uplo)[0] ** 3))(a)
    assert (g[:, other == 1] == 0).all() and (g[:, other == 0] != 0).all()


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("rcond", [1e-15, 0.5])
def test_pinv_is_numpys(shape, rcond):
    a = rng.normal(size=shape)
    numpy.testing.assert_allclose(ops.pinv(a, rcond), numpy.linalg.pinv(a, rcond), rtol=1e-10, atol=1e-12)


def test_float16_is_computed_in_float32():
    a = rng.normal(size=(3, 3)).astype(numpy.float16)
    for out in (*ops.svd(a), *ops.qr(a), *ops.eigh(a), ops.eigvalsh(a), ops.pinv(a)):
        assert out.dtype == numpy.float16
    expected = numpy.linalg.svd(a.astype(numpy.float32), compute_uv=False).astype(numpy.float16)
    numpy.testing.assert_array_max_ulp(ops.svd(a, compute_uv=False), expected, maxulp=1)


def test_pinv_of_a_rank_deficient_matrix_has_the_constant_rank_gradient():
    a = rng.normal(size=(4, 2)) @ rng.normal(size=(2, 3))  # rank 2; the cut value is 0 to rounding
    # rcond far above the perturbations of central differences (1e-5), so the rank stays 2.
    check_grads(lambda x: ops.pinv(x, rcond=1e-3), (a,), order=1)


@pytest.mark.parametrize("shape", [(3, 3), (2, 3), (4, 2)], ids=str)
def test_pinv_that_cuts_nonzero_singular_values_is_differentiated_through_the_svd(shape):
    a = numpy.asarray(rng.uniform(size=shape)) * 10 + 1  # one large singular value, the rest cut
    s = numpy.linalg.svd(a, compute_uv=False)
    assert 0 < s[-1] <= 0.5 * s[0] < s[0]
    check_grads(lambda x: ops.pinv(x, rcond=0.5), (a,), order=2)


def test_empty_matrices_have_empty_gradients():
    for shape in [(0, 0), (0, 3), (3, 0)]:
        a = numpy.zeros(shape)
        for f in (lambda x: ops.svd(x, full_matrices=False), ops.qr, lambda x: (ops.pinv(x),)):
            assert fnet.grad(lambda x: _total(f(x)))(a).shape == shape
    assert fnet.grad(lambda x: _total(ops.eigh(x)))(numpy.zeros((0, 0))).shape == (0, 0)


def test_repeated_values_make_the_vectors_gradient_raise():
    a = numpy.diag([2.0, 1.0, 1.0])
    assert fnet.grad(lambda x: ops.sum(ops.eigvalsh(x) ** 2))(a).shape == (3, 3)  # values: fine
    with pytest.raises(NonDifferentiableError, match="eigh \\(gradient\\).*eigenvalues are equal"):
        fnet.grad(lambda x: _total([ops.eigh(x)[1]]))(a)
    with pytest.raises(NonDifferentiableError, match="svd \\(gradient\\).*singular values are equal"):
        fnet.grad(lambda x: _total([ops.svd(x)[0]]))(a)


def test_a_captured_gradient_checks_the_values_of_each_replay():
    step = fnet.capture(fnet.grad(lambda x: _total([ops.eigh(x)[1]])))
    assert step(numpy.diag([3.0, 2.0, 1.0])).shape == (3, 3)
    with pytest.raises(NonDifferentiableError, match="eigenvalues are equal"):
        step(numpy.diag([2.0, 1.0, 1.0]))


def test_undefined_gradients_raise_typed_errors():
    wide, tall = rng.normal(size=(2, 3)), rng.normal(size=(3, 2))
    for f, pattern in [
        (lambda x: ops.qr(x), "qr \\(gradient\\).*got mode='reduced' and a of shape \\(2, 3\\)"),
        (lambda x: ops.qr(x.T, "complete"), "got mode='complete'"),
        (lambda x: ops.qr(x.T, "raw"), "got mode='raw'"),
        (lambda x: ops.svd(x)[:1], "full_matrices=True is undefined for a non-square a"),
    ]:
        with pytest.raises(NonDifferentiableError, match=pattern):
            fnet.grad(lambda x: _total(f(x)))(wide)
    rank_one = numpy.outer([1.0, 2.0, 3.0], [1.0, 1.0])
    with pytest.raises(NonDifferentiableError, match="a singular value is 0"):
        fnet.grad(lambda x: _total(ops.svd(x, full_matrices=False)[:1]))(rank_one)
    assert fnet.grad(lambda x: _total(ops.svd(x)[1:2]))(tall).shape == (3, 2)  # s of a full svd: fine


def test_bad_arguments_raise_typed_errors():
    with pytest.raises(ShapeError, match="svd: expected a \\(batch of\\) matrices, got shape \\(3,\\)"):
        ops.svd(numpy.ones(3))
    with pytest.raises(ShapeError, match="eigh: expected \\(a batch of\\) square matrices"):
        ops.eigh(numpy.ones((2, 3)))
    with pytest.raises(InvalidInputError, match="eigvalsh: expected UPLO to be 'L' or 'U', got 'A'"):
        ops.eigvalsh(numpy.eye(2), "A")
    with pytest.raises(InvalidInputError, match="qr: expected mode to be one of"):
        ops.qr(numpy.eye(2), "economic")
    with pytest.raises(InvalidInputError, match="svd: LAPACK could not decompose a"):
        ops.svd(numpy.full((2, 2), numpy.nan))
