"""Tree LSTM cells, Chainer's ``L.ChildSumTreeLSTM`` and ``L.NaryTreeLSTM``: the state of a tree
node from its children's (``F.tree_lstm``), with Linear children; the cells keep no state.

A tree cell's ``apply(params, c_1, ..., c_N, h_1, ..., h_N, x) -> (c, h)`` takes the cell
states and outputs of the node's children, then its input; a missing child (its ``c`` or ``h``
None) is a state of zeros, and a missing ``x`` an input of zeros, as in Chainer.

>>> import numpy, fnet
>>> cell = ChildSumTreeLSTM(3, 2)
>>> params = cell.init(fnet.random.key(0))
>>> c, h = cell(params, numpy.ones((4, 3), numpy.float32))  # a leaf
>>> c, h = cell(params, c, c, h, h, numpy.ones((4, 3), numpy.float32))  # two children
>>> h.shape
(4, 2)
"""

from __future__ import annotations

import attrs

from .. import backend, ops
from .. import functions as F
from ..autodiff.tracer import shape_of as _shape
from ..autodiff.tracer import unbox_all
from ..errors import InvalidInputError, message
from .layer import Layer, lazy_field
from .linear import Linear
from .rnn import _caller, _init_children, _zeros

__all__ = ["ChildSumTreeLSTM", "NaryTreeLSTM"]


def _split(fn: str, params, cshsx: tuple, n_children: int) -> tuple[tuple, tuple, object]:
    """``cshsx`` as ``(cs, hs, x)``, a missing ``x`` made zeros ``(batch, in_size)``."""
    cs, hs, x = cshsx[:n_children], cshsx[n_children:-1], cshsx[-1]
    if x is None:
        given = [unbox_all(v) for v in (*cs, *hs) if v is not None]
        if not given:
            raise InvalidInputError(
                message(
                    fn,
                    "expected x or the state of a child, got None for all: All inputs (cs, hs, x) are None",
                    hint="the cell needs x or a child's c or h to know the batch size",
                )
            )
        in_size = _shape(params["W_x"]["W"])[1]
        x = backend.xp(given[0]).zeros((_shape(given[0])[0], in_size), given[0].dtype)
    return cs, hs, x


def _filled(states: tuple, x, units: int) -> tuple:
    """``states`` with each None a state of zeros ``(len(x), units)``."""
    if all(s is not None for s in states):
        return states
    zero = _zeros(x, units)
    return tuple(zero if s is None else s for s in states)


@attrs.frozen(init=False)
class ChildSumTreeLSTM(Layer):
    """Child-Sum tree LSTM unit (Tai et al., 2015), Chainer's ``L.ChildSumTreeLSTM(in_size,
    out_size)``: children ``W_x`` (``Linear(in_size, 4 * out_size)``), ``W_h_aio``
    (``Linear(out_size, 3 * out_size)``, no bias) on the sum of the children's outputs and
    ``W_h_f`` (``Linear(out_size, out_size)``, no bias) giving each child its forget gate;
    ``in_size=None`` is inferred from the example input of ``init(key, x)``.

    ``apply(params, c_1, ..., c_N, h_1, ..., h_N, x) -> (c, h)`` takes any number ``N`` of
    children (none for a leaf) and does not depend on their order.
    """

    in_size: int | None = lazy_field()  # sizes W_x
    out_size: int

    def __init__(self, in_size: int | None, out_size: int):
        self.__attrs_init__(in_size, out_size)

    def sublayers(self) -> dict[str, Linear]:
        """The Linear children, by name."""
        n = self.out_size
        return {
            "W_x": Linear(self.in_size, 4 * n),
            "W_h_aio": Linear(n, 3 * n, nobias=True),
            "W_h_f": Linear(n, n, nobias=True),
        }

    def init(self, key, x=None) -> dict:
        """The children's params; ``x`` (an example input) sizes a lazy ``in_size``."""
        return _init_children(key, self.sublayers(), x)

    def apply(self, params, *cshsx) -> tuple:
        """The node's ``(c, h)`` from its children's cell states and outputs and ``x``."""
        fn = f"{type(self).__name__}.apply"
        if len(cshsx) % 2 != 1:
            raise InvalidInputError(
                message(
                    fn,
                    f"expected an odd number of inputs (c_1, ..., c_N, h_1, ..., h_N, x), got {len(cshsx)}",
                    hint="pass as many cell states as outputs, then x (None for no input)",
                )
            )
        n = self.out_size
        link = _caller(self.sublayers(), params)
        cs, hs, x = _split(fn, params, cshsx, len(cshsx) // 2)
        gates = link("W_x", x)  # a, i, o, then the forget input every child shares
        if not hs:  # a leaf: one child of zeros, whose forget gate then has no effect
            return F.tree_lstm(_zeros(x, n), gates)
        aio, f = F.split_axis(gates, [3 * n], axis=1)
        hs = _filled(hs, x, n)
        h_sum = hs[0]
        for h in hs[1:]:
            h_sum = ops.add(h_sum, h)
        aio = ops.add(link("W_h_aio", h_sum), aio)
        per_child = F.split_axis(link("W_h_f", F.concat(hs, axis=0)), len(hs), axis=0)
        f = ops.add(F.concat(per_child, axis=1), F.concat([f] * len(hs), axis=1))
        return F.tree_lstm(*_filled(cs, x, n), F.concat([aio, f], axis=1))


@attrs.frozen(init=False)
class NaryTreeLSTM(Layer):
    """N-ary tree LSTM unit, Chainer's ``L.NaryTreeLSTM(in_size, out_size, n_ary=2)``: children
    ``W_x`` (``Linear(in_size, (3 + n_ary) * out_size)``) and ``W_h1``, ..., ``W_h<n_ary>``
    (``Linear(out_size, (3 + n_ary) * out_size)``, no bias), one per child position, so each
    child has its own forget gate and the order of children matters.

    ``apply(params, c_1, ..., c_n_ary, h_1, ..., h_n_ary, x) -> (c, h)``: exactly ``2 * n_ary +
    1`` inputs.
    """

    in_size: int | None = lazy_field()  # sizes W_x
    out_size: int
    n_ary: int = 2

    def __init__(self, in_size: int | None, out_size: int, n_ary: int = 2):
        if n_ary < 1:
            raise InvalidInputError(
                message(
                    type(self).__name__,
                    f"expected n_ary >= 1, got {n_ary}",
                    hint="n_ary is the number of children",
                )
            )
        self.__attrs_init__(in_size, out_size, n_ary)

    def sublayers(self) -> dict[str, Linear]:
        """The Linear children, by name."""
        units = (3 + self.n_ary) * self.out_size
        hidden = {f"W_h{k}": Linear(self.out_size, units, nobias=True) for k in range(1, self.n_ary + 1)}
        return {"W_x": Linear(self.in_size, units), **hidden}

    def init(self, key, x=None) -> dict:
        """The children's params; ``x`` (an example input) sizes a lazy ``in_size``."""
        return _init_children(key, self.sublayers(), x)

    def apply(self, params, *cshsx) -> tuple:
        """The node's ``(c, h)`` from the cell states and outputs of its ``n_ary`` children and ``x``."""
        fn = f"{type(self).__name__}.apply"
        if len(cshsx) != 2 * self.n_ary + 1:
            raise InvalidInputError(
                message(
                    fn,
                    f"expected {2 * self.n_ary + 1} inputs (c_1, ..., c_{self.n_ary}, h_1, ..., "
                    f"h_{self.n_ary}, x), got {len(cshsx)}",
                    hint="pass None for a missing child's c or h, or for no input x",
                )
            )
        link = _caller(self.sublayers(), params)
        cs, hs, x = _split(fn, params, cshsx, self.n_ary)
        gates = link("W_x", x)
        for k, h in enumerate(hs, 1):
            if h is not None:
                gates = ops.add(gates, link(f"W_h{k}", h))
        return F.tree_lstm(*_filled(cs, x, self.out_size), gates)
