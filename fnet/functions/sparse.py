"""Sparse matrices in COO format (Chainer's ``utils.CooMatrix`` and ``utils.to_coo``) and their
product with dense matrices, ``sparse_matmul``, differentiable in the dense operand and in the
sparse entries.

A ``CooMatrix`` holds one matrix, or a batch of them, as entries ``data`` at positions
``(row, col)``. Batches share one length ``ldnz``: shorter matrices are padded with entries whose
row and column are -1, which count for nothing. The product is one primitive computed by
``scipy.sparse`` (``cupyx.scipy.sparse`` on the GPU), a batch being one block-diagonal matrix; its
VJPs are the product with the transposed pattern and a gather of the dense operands (fnet ops).
"""

from __future__ import annotations

import numpy

from .. import backend, ops
from ..autodiff import primitive
from ..autodiff.tracer import shape_of, unbox_all
from ..errors import DTypeError, InvalidInputError, ShapeError, message
from ..transforms import stop_gradient
from ._checks import check_float, check_ndim

__all__ = ["CooMatrix", "get_order", "to_coo", "sparse_matmul"]


def _is_c_order(xp, row, col, valid) -> bool:
    """Whether the valid entries are sorted by ``(row, col)`` within each matrix of the batch."""
    batch = xp.broadcast_to(xp.arange(row.shape[0]).reshape(-1, 1), row.shape) if row.ndim == 2 else row * 0
    b, r, c = (xp.diff(a[valid].astype(numpy.int64)) for a in (batch, row, col))
    return bool(((b > 0) | ((b == 0) & ((r > 0) | ((r == 0) & (c >= 0))))).all())


def get_order(row, col) -> str:
    """How the entries at ``(row, col)`` (one matrix's, or a batch's) are sorted: ``'C'`` by row
    then column, ``'F'`` by column then row, ``'other'`` neither; padding (-1 in both) is skipped.

    >>> get_order(numpy.array([0, 0, 1]), numpy.array([1, 2, 0]))
    'C'
    """
    row, col = unbox_all(row), unbox_all(col)
    if row.shape != col.shape:
        raise ShapeError(
            message(
                "get_order",
                f"expected row.shape == col.shape, got {row.shape} != {col.shape}",
                {"row": row, "col": col},
                "each entry needs one row and one column index",
            )
        )
    if bool(((row >= 0) != (col >= 0)).any()):
        raise InvalidInputError(
            message(
                "get_order",
                "invalid index combination of row and col: expected both >= 0 (an entry) or both -1 "
                "(padding) at each position",
                {"row": row, "col": col},
                "mark unused entries with -1 in both row and col",
            )
        )
    xp = backend.xp(row, col)
    valid = row >= 0
    if _is_c_order(xp, row, col, valid):
        return "C"
    return "F" if _is_c_order(xp, col, row, valid) else "other"


class CooMatrix:
    """A sparse matrix (or a batch of them) in COO format: ``data[i]`` sits at ``(row[i], col[i])``.

    ``data``, ``row`` and ``col`` have one shape, ``(ldnz,)`` for a matrix or ``(batch, ldnz)``
    for a batch; ``shape`` is the dense shape ``(rows, cols)`` of one matrix. Entries whose row
    and column are -1 are padding. ``order`` records whether the entries are sorted by row
    (``'C'``), by column (``'F'``) or neither (``'other'``); None detects it. As in Chainer,
    gradients reach ``data`` only when ``requires_grad`` is True: otherwise ``data`` is held
    constant (its traced value, if any, is cut off from the tape).
    """

    __slots__ = ("data", "row", "col", "shape", "order", "requires_grad")

    def __init__(self, data, row, col, shape, order: str | None = None, requires_grad: bool = False):
        check_ndim(
            "CooMatrix", "data", data, (1, 2), "data is (ldnz,) for a matrix or (batch, ldnz) for a batch"
        )
        row, col = unbox_all(row), unbox_all(col)
        for name, index in (("row", row), ("col", col)):
            kind = getattr(index, "dtype", None)
            if kind is None or kind.kind not in "iu":
                raise DTypeError(
                    message(
                        "CooMatrix",
                        f"expected {name} to be an integer array, got {kind or type(index).__name__}",
                        {name: index},
                        f"pass integer indices, e.g. {name}.astype(numpy.int32)",
                    )
                )
            if index.shape != data.shape:
                raise ShapeError(
                    message(
                        "CooMatrix",
                        f"expected {name}.shape == data.shape, got {index.shape} != {data.shape}",
                        {"data": data, name: index},
                        "each entry of data needs one row and one column index",
                    )
                )
        shape = tuple(shape)
        if len(shape) != 2 or not all(int(d) > 0 for d in shape):
            raise InvalidInputError(
                message(
                    "CooMatrix",
                    f"expected shape to be two positive lengths (rows, cols), got {shape}",
                    hint="shape is the dense shape of one matrix, without the batch axis",
                )
            )
        if order not in ("C", "F", "other", None):
            raise InvalidInputError(
                message("CooMatrix", f"expected order to be 'C', 'F', 'other' or None, got {order!r}")
            )
        if bool(((row >= 0) != (col >= 0)).any()) or bool(
            ((row >= shape[0]) | (col >= shape[1]) | (row < -1) | (col < -1)).any()
        ):
            raise InvalidInputError(
                message(
                    "CooMatrix",
                    f"indices out of range for shape {shape}: expected 0 <= row < {shape[0]} and "
                    f"0 <= col < {shape[1]}, or row == col == -1 for padding",
                    {"row": row, "col": col},
                    "check the dense shape, and mark unused entries with -1 in both row and col",
                )
            )
        if order is None:
            order = get_order(row, col)
        self.data = data if requires_grad else stop_gradient(data)
        self.row = row
        self.col = col
        self.shape = shape
        self.order = order
        self.requires_grad = requires_grad

    def _pattern(self):
        """The index arrays with padding moved to position 0, the mask of real entries, and the batch
        index column (None for one matrix), all on the device of ``row``."""
        xp = backend.xp(self.row)
        valid = (self.row >= 0) & (self.col >= 0)
        row = xp.where(valid, self.row, 0).astype(numpy.int32, copy=False)
        col = xp.where(valid, self.col, 0).astype(numpy.int32, copy=False)
        batch = xp.arange(self.row.shape[0]).reshape(-1, 1) if self.row.ndim == 2 else None
        return row, col, valid, batch

    def to_dense(self):
        """The dense array: ``shape`` for one matrix, ``(batch,) + shape`` for a batch; repeated
        positions add up. Differentiable in ``data`` (when it requires a gradient)."""
        value = unbox_all(self.data)
        row, col, valid, batch = self._pattern()
        dense_shape = self.shape if batch is None else (value.shape[0],) + self.shape
        index = (row, col) if batch is None else (batch, row, col)
        zeros = backend.xp(value).zeros(dense_shape, dtype=value.dtype)
        return ops.scatter_add(zeros, index, ops.multiply(self.data, valid))

    def __repr__(self):
        return (
            f"CooMatrix(data={self.data!r}, row={self.row!r}, col={self.col!r}, shape={self.shape}, "
            f"order={self.order!r}, requires_grad={self.requires_grad})"
        )


def to_coo(x, ldnz: int | None = None, requires_grad: bool = False) -> CooMatrix:
    """The nonzero entries of a dense matrix ``(rows, cols)`` or batch ``(batch, rows, cols)`` as a
    ``CooMatrix``, sorted by row (order 'C'). Its arrays have length ``max(nnz, ldnz)``, where
    ``nnz`` is the largest count of nonzeros in one matrix; the rest is padding. The entries are
    gathered from ``x``, so with ``requires_grad`` the gradient of ``data`` flows back to ``x``."""
    check_ndim("to_coo", "x", x, (2, 3), "pass one matrix (rows, cols) or a batch (batch, rows, cols)")
    value = unbox_all(x)
    xp = backend.xp(value)
    batched = value.ndim == 3
    stacked = x if batched else ops.expand_dims(x, 0)
    n_batch = value.shape[0] if batched else 1
    b, r, c = xp.nonzero(value if batched else value[None])
    counts = xp.bincount(b, minlength=n_batch)
    width = int(counts.max()) if b.size else 0
    width = width if ldnz is None else max(width, int(ldnz))
    rank = xp.arange(b.size) - (xp.cumsum(counts) - counts)[b]  # position within its matrix
    row = xp.full((n_batch, width), -1, dtype=numpy.int32)
    col = xp.full((n_batch, width), -1, dtype=numpy.int32)
    row[b, rank] = r
    col[b, rank] = c
    zeros = xp.zeros((n_batch, width), dtype=value.dtype)
    data = ops.scatter_add(zeros, (b, rank), ops.getitem(stacked, (b, r, c)))
    if not batched:
        data, row, col = ops.reshape(data, (width,)), row[0], col[0]
    return CooMatrix(data, row, col, value.shape[-2:], order="C", requires_grad=requires_grad)


@primitive
def _coo_matmul(data, dense, *, row, col, valid, batch, shape):
    """``A @ dense`` for the sparse ``A`` of shape ``shape`` given by ``data`` at ``(row, col)``."""
    xp = backend.xp(data, dense)
    if xp is numpy:
        from scipy import sparse
    else:  # pragma: no cover - needs a GPU
        from cupyx.scipy import sparse
    m, k = shape
    n_batch = 1 if batch is None else dense.shape[0]
    n = dense.shape[-1]
    dtype = numpy.result_type(data.dtype, dense.dtype)
    work = numpy.float32 if dtype == numpy.float16 else dtype  # no half precision there
    rows, cols = (row, col) if batch is None else (row + batch * m, col + batch * k)
    matrix = sparse.coo_matrix(  # CuPy's sparse matrices take int32 indices only
        (
            (data * valid).astype(work, copy=False).ravel(),
            (rows.astype(numpy.int32).ravel(), cols.astype(numpy.int32).ravel()),
        ),
        shape=(n_batch * m, n_batch * k),
    )
    out = matrix @ dense.astype(work, copy=False).reshape(n_batch * k, n)
    return xp.asarray(out, dtype=dtype).reshape(dense.shape[:-2] + (m, n))


# The product has the promoted dtype of its operands (as in Chainer); each cotangent is cast back
# to its own operand's dtype.
def _coo_matmul_vjp_data(g, ans, data, dense, *, row, col, valid, batch, shape):
    # d out[b, row_e, :] / d data[b, e] = dense[b, col_e, :]: gather both sides and contract
    at_rows = ops.getitem(g, (row,) if batch is None else (batch, row))
    at_cols = ops.astype(ops.getitem(dense, (col,) if batch is None else (batch, col)), unbox_all(g).dtype)
    grad = ops.multiply(ops.sum(ops.multiply(at_rows, at_cols), axis=-1), valid)
    return ops.astype(grad, unbox_all(data).dtype)


def _coo_matmul_vjp_dense(g, ans, data, dense, *, row, col, valid, batch, shape):
    grad = _coo_matmul(data, g, row=col, col=row, valid=valid, batch=batch, shape=shape[::-1])
    return ops.astype(grad, unbox_all(dense).dtype)


_coo_matmul.defvjp(_coo_matmul_vjp_data, _coo_matmul_vjp_dense)


def sparse_matmul(a, b, transa: bool = False, transb: bool = False):
    """Product of a sparse and a dense matrix, or of batches of them, as a dense array.

    One operand is a ``CooMatrix`` and the other a dense array: ``A @ B`` with ``A`` sparse
    ``(m, k)`` and ``B`` dense ``(k, n)``, or ``A`` dense and ``B`` sparse; a batch of ``nb``
    sparse matrices pairs with a dense ``(nb, k, n)``. ``transa`` / ``transb`` transpose each
    matrix of that operand first. Differentiable in the dense operand and in the sparse ``data``.
    """
    if isinstance(a, CooMatrix) and not isinstance(b, CooMatrix):
        sparse, dense, transpose_sparse, transpose_dense, transpose_out = a, b, transa, transb, False
    elif isinstance(b, CooMatrix) and not isinstance(a, CooMatrix):
        # A @ B = (B^T A^T)^T: the sparse operand goes first
        sparse, dense, transpose_sparse, transpose_dense, transpose_out = b, a, not transb, not transa, True
    else:
        raise InvalidInputError(
            message(
                "sparse_matmul",
                f"expected one CooMatrix and one dense array, got {type(a).__name__} and {type(b).__name__}",
                hint="make the sparse operand with to_coo(x); multiply two dense arrays with matmul",
            )
        )
    check_float("sparse_matmul", "dense operand", dense)
    check_float("sparse_matmul", "sparse data", sparse.data)
    batched = sparse.data.ndim == 2
    check_ndim(
        "sparse_matmul",
        "dense operand",
        dense,
        3 if batched else 2,
        "a batch of sparse matrices pairs with a batch of dense ones (and one matrix with one)",
    )
    row, col, valid, batch = sparse._pattern()
    m, k = sparse.shape
    if transpose_sparse:
        row, col, m, k = col, row, k, m
    if transpose_dense:
        dense = ops.swapaxes(dense, -1, -2)
    dense_shape = tuple(dense.shape)
    if dense_shape[-2] != k or (batched and dense_shape[0] != sparse.data.shape[0]):
        raise ShapeError(
            message(
                "sparse_matmul",
                f"the operands do not fit: a sparse {'batch of ' if batched else ''}{sparse.shape} "
                f"matrix and a dense {shape_of(a if transpose_out else b)} array, with transa={transa}, "
                f"transb={transb}",
                {"sparse data": sparse.data, "dense operand": a if transpose_out else b},
                "the contracted lengths (and the batch sizes) must match; check transa and transb",
            )
        )
    out = _coo_matmul(sparse.data, dense, row=row, col=col, valid=valid, batch=batch, shape=(m, k))
    return ops.swapaxes(out, -1, -2) if transpose_out else out
