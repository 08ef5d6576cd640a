"""``chainer.utils.CooMatrix``, ``to_coo`` and ``get_order``: fnet's COO matrices, with ``data``
as a Variable."""

from __future__ import annotations

from ...autodiff import Tracer, unbox_all
from ...functions import sparse as _sparse
from ...functions.sparse import get_order
from ..variable import Variable

__all__ = ["CooMatrix", "get_order", "to_coo"]


class CooMatrix:
    """A sparse matrix (or batch) in COO format, as Chainer's: ``data`` is a Variable, ``row`` and
    ``col`` integer arrays of its shape, ``shape`` the dense shape of one matrix.

    The Chainer layer's form of ``fnet.functions.CooMatrix`` (which holds the checks and the
    arithmetic): functions such as ``F.sparse_matmul`` take either.
    """

    def __init__(self, data, row, col, shape, order=None, requires_grad: bool = False):
        if not isinstance(data, Variable):
            data = Variable(data, requires_grad=requires_grad)
        self.data = data
        self.pure = _sparse.CooMatrix(data._data, row, col, shape, order, requires_grad)

    @classmethod
    def of(cls, pure: _sparse.CooMatrix) -> CooMatrix:
        """The Chainer-layer view of the pure matrix ``pure``."""
        if pure.requires_grad and type(pure.data) is not Tracer:  # a new leaf, as Chainer makes
            return cls(pure.data, pure.row, pure.col, pure.shape, pure.order, requires_grad=True)
        view = object.__new__(cls)
        view.data = Variable._of(pure.data)
        view.pure = pure
        return view

    row = property(lambda self: self.pure.row, doc="The row of each entry (-1: padding).")
    col = property(lambda self: self.pure.col, doc="The column of each entry (-1: padding).")
    shape = property(lambda self: self.pure.shape, doc="The dense shape of one matrix.")
    order = property(lambda self: self.pure.order, doc="'C', 'F' or 'other': how entries are sorted.")
    requires_grad = property(lambda self: self.pure.requires_grad, doc="Whether ``data`` gets a gradient.")

    def to_dense(self):
        """The dense matrix (or batch) as an array, as in Chainer (no gradient flows through it);
        repeated positions add up."""
        return unbox_all(self.pure.to_dense())


def to_coo(x, ldnz: int | None = None, requires_grad: bool = False) -> CooMatrix:
    """The nonzero entries of a dense matrix ``(rows, cols)`` or batch as a ``CooMatrix``."""
    dense = x._data if isinstance(x, Variable) else x
    return CooMatrix.of(_sparse.to_coo(dense, ldnz, requires_grad))
