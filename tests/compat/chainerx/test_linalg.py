"""``chainerx.linalg``: solve, inv, cholesky, svd, pinv, qr, eigh and eigvalsh on fnet's ops, with
ChainerX's errors."""

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


# LAPACK on both sides, through different drivers: a few hundred float64 eps on these 3x3 matrices.
RTOL = 1e-12


def test_decompositions_match_numpy_and_keep_the_dtype():
    a = _matrix()
    u, s, vt = chx.linalg.svd(chx.array(a), full_matrices=False)
    numpy.testing.assert_allclose(chx.to_numpy(s), numpy.linalg.svd(a, compute_uv=False), rtol=RTOL)
    numpy.testing.assert_allclose(chx.to_numpy(u) * chx.to_numpy(s) @ chx.to_numpy(vt), a, rtol=RTOL)
    only_s = chx.linalg.svd(chx.array(a[:2]), compute_uv=False)
    numpy.testing.assert_allclose(chx.to_numpy(only_s), numpy.linalg.svd(a[:2], compute_uv=False), rtol=RTOL)
    numpy.testing.assert_allclose(
        chx.to_numpy(chx.linalg.pinv(chx.array(a[:2]))), numpy.linalg.pinv(a[:2]), rtol=RTOL
    )
    for mode in ("reduced", "complete", "raw"):
        for ours, theirs in zip(
            chx.linalg.qr(chx.array(a.T[:2]), mode=mode), numpy.linalg.qr(a.T[:2], mode=mode)
        ):
            numpy.testing.assert_allclose(chx.to_numpy(ours), theirs, rtol=RTOL, atol=1e-15)
    r = chx.linalg.qr(chx.array(a), mode="r")
    numpy.testing.assert_allclose(chx.to_numpy(r), numpy.linalg.qr(a, mode="r"), rtol=RTOL)
    w, v = chx.linalg.eigh(chx.array(a), UPLO="u")
    nw, nv = numpy.linalg.eigh(a, UPLO="U")
    numpy.testing.assert_allclose(chx.to_numpy(w), nw, rtol=RTOL)
    numpy.testing.assert_allclose(numpy.abs(chx.to_numpy(v)), numpy.abs(nv), rtol=1e-10)
    numpy.testing.assert_allclose(chx.to_numpy(chx.linalg.eigvalsh(chx.array(a))), nw, rtol=RTOL)
    single = chx.array(a.astype(numpy.float32))
    outputs = (
        *chx.linalg.svd(single),
        chx.linalg.pinv(single),
        *chx.linalg.qr(single),
        *chx.linalg.eigh(single),
    )
    assert all(y.dtype == numpy.float32 for y in outputs)


def test_the_gradient_of_eigvalsh_goes_through_the_graph():
    a = chx.array(_matrix()).require_grad()
    chx.sum(chx.linalg.eigvalsh(a) ** 2).backward()
    w, v = numpy.linalg.eigh(_matrix())
    full = v @ numpy.diag(2 * w) @ v.T  # d sum(w**2) / d(the symmetric matrix)
    expected = numpy.tril(full + full.T) - numpy.diag(numpy.diag(full))  # the lower triangle is read
    numpy.testing.assert_allclose(chx.to_numpy(a.grad), expected, rtol=1e-12, atol=1e-14)


def test_decomposition_errors_are_chainerxs():
    with pytest.raises(chx.DimensionError, match="svd: expected a matrix"):
        chx.linalg.svd(chx.ones((3,), "float32"))
    with pytest.raises(chx.DimensionError, match="pinv: expected a matrix"):
        chx.linalg.pinv(chx.ones((), "float32"))
    with pytest.raises(chx.DtypeError, match="qr: expected float32 or float64"):
        chx.linalg.qr(chx.ones((2, 3), "float16"))
    with pytest.raises(ValueError, match="expected mode 'reduced', 'complete', 'r' or 'raw', got 'bad'"):
        chx.linalg.qr(chx.ones((), "float32"), mode="bad")
    with pytest.raises(chx.DimensionError, match="eigh: expected a square matrix"):
        chx.linalg.eigh(chx.ones((2, 3), "float32"))
    for routine in (chx.linalg.eigh, chx.linalg.eigvalsh):
        with pytest.raises(TypeError, match="expected UPLO to be a str, got NoneType"):
            routine(chx.ones((2, 2), "float32"), UPLO=None)
        with pytest.raises(ValueError, match="expected UPLO of one character"):
            routine(chx.ones((2, 2), "float32"), UPLO="Lower")
        with pytest.raises(chx.ChainerxError, match="expected UPLO to be 'L' or 'U', got 'A'"):
            routine(chx.ones((2, 2), "float32"), UPLO="A")
