"""Tests of fnet.functions.sparse: COO matrices (CooMatrix, to_coo, to_dense) and sparse_matmul.

Forward values are compared with dense products written here as explicit sums, in float16,
float32 and float64; derivatives in the sparse entries and the dense operand are checked to
order 2 in float64; error messages are asserted.
"""

from __future__ import annotations

import math

import numpy
import pytest

import fnet
from fnet.autodiff import Tracer
from fnet.errors import DTypeError, InvalidInputError, ShapeError
from fnet.functions.sparse import CooMatrix, sparse_matmul, to_coo
from fnet.testing import check_grads

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {
    numpy.float16: dict(rtol=2e-2, atol=2e-2),
    numpy.float32: dict(rtol=2e-5, atol=2e-5),
    numpy.float64: dict(rtol=1e-10, atol=1e-12),
}


def rng(seed: int = 0) -> numpy.random.RandomState:
    return numpy.random.RandomState(seed)


def sparse_dense(shape, density=0.4, seed=0, dtype=numpy.float64):
    """A dense array with about ``density`` of its entries nonzero (values away from 0)."""
    r = rng(seed)
    values = r.uniform(0.5, 1.5, shape) * numpy.where(r.uniform(size=shape) < 0.5, -1, 1)
    return (values * (r.uniform(size=shape) < density)).astype(dtype)


def ref_matmul(a, b):
    """Product of two matrices (or two batches of them) by explicit sums, in float64."""
    a, b = numpy.asarray(a, numpy.float64), numpy.asarray(b, numpy.float64)
    if a.ndim == 3:
        return numpy.array([ref_matmul(x, y) for x, y in zip(a, b)])
    return numpy.array(
        [
            [math.fsum(a[i, k] * b[k, j] for k in range(a.shape[1])) for j in range(b.shape[1])]
            for i in range(a.shape[0])
        ]
    )


def swap(x):
    return numpy.swapaxes(x, -1, -2).copy()


# -- COO matrices ------------------------------------------------------------------------------
def test_to_coo_of_a_matrix():
    x = numpy.array([[0, 2, 0], [-1, 0, 0]], numpy.float32)
    coo = to_coo(x)
    assert coo.data.dtype == numpy.float32 and coo.data.tolist() == [2.0, -1.0]
    assert coo.row.dtype == numpy.int32 and coo.row.tolist() == [0, 1]
    assert coo.col.dtype == numpy.int32 and coo.col.tolist() == [1, 0]
    assert coo.shape == (2, 3) and coo.order == "C" and not coo.requires_grad
    padded = to_coo(x, ldnz=4)
    assert padded.data.tolist() == [2.0, -1.0, 0.0, 0.0]
    assert padded.row.tolist() == [0, 1, -1, -1] and padded.col.tolist() == [1, 0, -1, -1]
    assert to_coo(x, ldnz=1).data.shape == (2,)  # ldnz below the count of nonzeros is raised to it


def test_to_coo_of_a_batch():
    x = sparse_dense((3, 4, 5), seed=1, dtype=numpy.float32)
    x[1] = 0  # an empty matrix in the batch
    coo = to_coo(x)
    counts = [int((m != 0).sum()) for m in x]
    assert coo.data.shape == coo.row.shape == coo.col.shape == (3, max(counts))
    assert coo.shape == (4, 5) and coo.order == "C"
    for b in range(3):
        expected = [(i, j, float(x[b, i, j])) for i in range(4) for j in range(5) if x[b, i, j] != 0]
        got = [(int(i), int(j), float(v)) for i, j, v in zip(coo.row[b], coo.col[b], coo.data[b]) if i >= 0]
        assert got == expected
        assert (coo.row[b, counts[b] :] == -1).all() and (coo.data[b, counts[b] :] == 0).all()
    assert to_coo(x, ldnz=20).data.shape == (3, 20)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "f32", "f64"])
def test_to_dense_round_trip(dtype):
    for shape in [(4, 3), (2, 3, 4)]:
        x = sparse_dense(shape, seed=2, dtype=dtype)
        dense = to_coo(x, ldnz=15).to_dense()
        assert dense.dtype == dtype
        numpy.testing.assert_array_equal(dense, x)


def test_to_dense_adds_repeated_positions():
    coo = CooMatrix(numpy.array([1.0, 2.0, 4.0]), numpy.array([0, 0, -1]), numpy.array([1, 1, -1]), (2, 2))
    assert coo.to_dense().tolist() == [[0.0, 3.0], [0.0, 0.0]]


def test_order_is_detected():
    data = numpy.ones(3)
    assert CooMatrix(data, numpy.array([0, 1, 1]), numpy.array([2, 0, 1]), (2, 3)).order == "C"
    assert CooMatrix(data, numpy.array([1, 0, 1]), numpy.array([0, 1, 1]), (2, 3)).order == "F"
    assert CooMatrix(data, numpy.array([1, 0, 0]), numpy.array([1, 0, 2]), (2, 3)).order == "other"
    batch = CooMatrix(
        numpy.ones((2, 3)), numpy.array([[0, 1, -1], [1, 0, 0]]), numpy.array([[0, 0, -1], [1, 0, 2]]), (2, 3)
    )
    assert batch.order == "other"  # the second matrix is sorted by neither
    given = CooMatrix(data, numpy.array([1, 0, 0]), numpy.array([1, 0, 2]), (2, 3), order="C")
    assert given.order == "C"  # an explicit order is trusted, as in Chainer


def test_gradients_reach_data_only_with_requires_grad():
    x = sparse_dense((3, 4), seed=3)
    weights = rng(4).standard_normal((3, 4))

    def loss(v, requires_grad):
        return fnet.ops.sum(to_coo(v, requires_grad=requires_grad).to_dense() * weights)

    # the entries are gathered from x: the gradient flows back to its nonzero positions
    numpy.testing.assert_allclose(fnet.grad(loss)(x, True), weights * (x != 0))
    numpy.testing.assert_allclose(fnet.grad(loss)(x, False), numpy.zeros_like(x))


# -- sparse_matmul ------------------------------------------------------------------------------
CASES = [  # (sparse on the left, batched, transa, transb)
    (left, batched, ta, tb)
    for left in (True, False)
    for batched in (False, True)
    for ta in (False, True)
    for tb in (False, True)
]


def operands(left, batched, ta, tb, dtype, seed=0):
    """A sparse and a dense operand (as passed, transposed where the flags say) and the dense
    matrices that the product multiplies."""
    batch = (2,) if batched else ()
    m, k, n = 3, 4, 2
    a = (
        sparse_dense(batch + (m, k), seed=seed, dtype=dtype)
        if left
        else rng(seed).uniform(-1, 1, batch + (m, k)).astype(dtype)
    )
    b = (
        rng(seed + 1).uniform(-1, 1, batch + (k, n)).astype(dtype)
        if left
        else sparse_dense(batch + (k, n), seed=seed + 1, dtype=dtype)
    )
    stored_a, stored_b = (swap(a) if ta else a), (swap(b) if tb else b)
    if left:
        return to_coo(stored_a, ldnz=7), stored_b, a, b
    return stored_a, to_coo(stored_b, ldnz=7), a, b


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "f32", "f64"])
@pytest.mark.parametrize("left, batched, transa, transb", CASES)
def test_sparse_matmul_forward(left, batched, transa, transb, dtype):
    a, b, dense_a, dense_b = operands(left, batched, transa, transb, dtype)
    out = sparse_matmul(a, b, transa=transa, transb=transb)
    assert type(out) is not Tracer and out.dtype == dtype
    expected = ref_matmul(dense_a, dense_b)
    assert out.shape == expected.shape
    numpy.testing.assert_allclose(out.astype(numpy.float64), expected, **TOL[dtype])


@pytest.mark.parametrize("left, batched, transa, transb", CASES)
def test_sparse_matmul_grads(left, batched, transa, transb):
    a, b, _, _ = operands(left, batched, transa, transb, numpy.float64, seed=5)
    sparse, dense = (a, b) if left else (b, a)
    data = sparse.data + rng(6).uniform(
        -0.5, 0.5, sparse.data.shape
    )  # padding entries too: they count for nothing

    def f(data, dense):
        coo = CooMatrix(data, sparse.row, sparse.col, sparse.shape, requires_grad=True)
        pair = (coo, dense) if left else (dense, coo)
        return sparse_matmul(*pair, transa=transa, transb=transb)

    check_grads(f, (data, dense), order=2)


@pytest.mark.parametrize("left", [True, False], ids=["sparse-left", "sparse-right"])
@pytest.mark.parametrize(
    "sparse_dtype, dense_dtype", [(numpy.float16, numpy.float64), (numpy.float64, numpy.float32)]
)
def test_sparse_matmul_mixed_dtypes(left, sparse_dtype, dense_dtype):
    # as in Chainer: the product has the promoted dtype, each gradient its operand's dtype
    a, b, dense_a, dense_b = operands(left, True, False, True, numpy.float64, seed=3)
    sparse, dense = (a, b) if left else (b, a)
    data, dense = sparse.data.astype(sparse_dtype), dense.astype(dense_dtype)

    def product(data, dense):
        coo = CooMatrix(data, sparse.row, sparse.col, sparse.shape, requires_grad=True)
        return sparse_matmul(*((coo, dense) if left else (dense, coo)), transb=True)

    out = product(data, dense)
    assert out.dtype == numpy.result_type(sparse_dtype, dense_dtype)
    cast_a, cast_b = (sparse_dtype, dense_dtype) if left else (dense_dtype, sparse_dtype)
    expected = ref_matmul(dense_a.astype(cast_a), dense_b.astype(cast_b))
    numpy.testing.assert_allclose(out.astype(numpy.float64), expected, rtol=1e-6, atol=1e-6)
    grad_data, grad_dense = fnet.grad(lambda *xs: fnet.ops.sum(product(*xs)), argnums=(0, 1))(data, dense)
    assert grad_data.dtype == sparse_dtype and grad_dense.dtype == dense_dtype


def test_sparse_matmul_mixed_dtypes_grads():
    # float32 sparse entries with a float64 dense operand, to order 2 (the float32 side is exact
    # in float64, so central differences in float64 see the same function)
    a, b, _, _ = operands(True, False, True, False, numpy.float64, seed=7)
    data = a.data.astype(numpy.float32)

    def f(dense):
        return sparse_matmul(CooMatrix(data, a.row, a.col, a.shape, requires_grad=True), dense, transa=True)

    check_grads(f, (b,), order=2)
    assert f(b).dtype == numpy.float64


def test_padding_gets_no_gradient():
    coo = to_coo(numpy.array([[0.0, 2.0], [1.0, 0.0]]), ldnz=4)
    dense = numpy.array([[1.0, 2.0], [3.0, 4.0]])
    grad = fnet.grad(
        lambda d: fnet.ops.sum(
            sparse_matmul(CooMatrix(d, coo.row, coo.col, coo.shape, requires_grad=True), dense)
        )
    )(coo.data)
    assert grad.tolist() == [7.0, 3.0, 0.0, 0.0]


# -- errors ----------------------------------------------------------------------------------
I2 = numpy.array([0, 1], numpy.int32)
D2 = numpy.ones(2)


@pytest.mark.parametrize(
    "call, error, pattern",
    [
        (
            lambda: CooMatrix(numpy.ones((1, 1, 2)), I2, I2, (2, 2)),
            ShapeError,
            r"CooMatrix: expected data.ndim == 1 or 2, got 3",
        ),
        (
            lambda: CooMatrix(D2, I2.astype(float), I2, (2, 2)),
            DTypeError,
            r"CooMatrix: expected row to be an integer array",
        ),
        (
            lambda: CooMatrix(D2, I2, numpy.zeros(3, int), (2, 2)),
            ShapeError,
            r"CooMatrix: expected col.shape == data.shape",
        ),
        (
            lambda: CooMatrix(D2, I2, I2, (2, 2, 2)),
            InvalidInputError,
            r"CooMatrix: expected shape to be two positive lengths",
        ),
        (
            lambda: CooMatrix(D2, I2, I2, (2, 0)),
            InvalidInputError,
            r"CooMatrix: expected shape to be two positive lengths",
        ),
        (
            lambda: CooMatrix(D2, I2, I2, (2, 2), order="X"),
            InvalidInputError,
            r"CooMatrix: expected order to be 'C', 'F'",
        ),
        (
            lambda: CooMatrix(D2, I2, I2 + 1, (2, 2)),
            InvalidInputError,
            r"CooMatrix: indices out of range for shape \(2, 2\)",
        ),
        (
            lambda: CooMatrix(D2, numpy.array([0, -1]), I2, (2, 2)),
            InvalidInputError,
            r"or row == col == -1 for padding",
        ),
        (lambda: to_coo(D2), ShapeError, r"to_coo: expected x.ndim == 2 or 3, got 1"),
        (
            lambda: sparse_matmul(numpy.eye(2), numpy.eye(2)),
            InvalidInputError,
            r"sparse_matmul: expected one CooMatrix and one dense array, got ndarray and ndarray",
        ),
        (
            lambda: sparse_matmul(to_coo(numpy.eye(2)), numpy.ones((3, 2))),
            ShapeError,
            r"sparse_matmul: the operands do not fit: a sparse \(2, 2\) matrix and a dense \(3, 2\) array",
        ),
        (
            lambda: sparse_matmul(to_coo(numpy.eye(2)), numpy.ones((2, 2, 2))),
            ShapeError,
            r"sparse_matmul: expected dense operand.ndim == 2, got 3",
        ),
        (
            lambda: sparse_matmul(to_coo(numpy.ones((2, 2, 2))), numpy.ones((3, 2, 2))),
            ShapeError,
            r"a sparse batch of \(2, 2\) matrix",
        ),
        (
            lambda: sparse_matmul(numpy.ones((2, 2), int), to_coo(numpy.eye(2))),
            DTypeError,
            r"sparse_matmul: expected dense operand to be a float array",
        ),
    ],
)
def test_errors(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()
