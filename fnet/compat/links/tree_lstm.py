"""Chainer's tree LSTM links, ``L.ChildSumTreeLSTM`` and ``L.NaryTreeLSTM``: Chains of Linear
links whose ``forward(c_1, ..., c_N, h_1, ..., h_N, x)`` merges the states of a node's children
with ``F.tree_lstm`` and returns the node's ``(c, h)`` (the links keep no state).

A missing child (its ``c`` or ``h`` None) counts as a state of zeros, and a missing ``x`` as an
input of zeros, as in Chainer.

>>> import numpy
>>> cell = ChildSumTreeLSTM(3, 2)
>>> c, h = cell(numpy.ones((4, 3), numpy.float32))  # a leaf: no children
>>> c, h = cell(c, c, h, h, numpy.ones((4, 3), numpy.float32))  # a node with two children
>>> h.shape
(4, 2)
"""

from __future__ import annotations

from typing import Any

from ..functions import concat, split_axis, tree_lstm
from ..link import Chain
from ..variable import Variable
from .connection import Linear

__all__ = ["ChildSumTreeLSTM", "NaryTreeLSTM"]


class _TreeCell(Chain):
    """What both tree LSTMs do with their arguments: split ``(*cs, *hs, x)`` and fill the
    missing ones with zeros."""

    in_size: int | None
    state_size: int

    def _split(self, cshsx: tuple, n_children: int) -> tuple[tuple, tuple, Any]:
        """``cshsx`` as ``(cs, hs, x)``, ``x`` made zeros when it is None."""
        cs, hs, x = cshsx[:n_children], cshsx[n_children:-1], cshsx[-1]
        if x is None:
            given = [v for v in (*cs, *hs) if v is not None]
            if not given:
                raise ValueError(
                    "All inputs (cs, hs, x) are None.\n"
                    f"  hint: {type(self).__name__} needs x or the state of a child to know the batch size"
                )
            x = self.xp.zeros((given[0].shape[0], self.in_size), dtype=given[0].dtype)
        return cs, hs, x

    def _zero_state(self, x):
        """A state of zeros ``(len(x), state_size)`` in the dtype of ``x``."""
        return self.xp.zeros((x.shape[0], self.state_size), dtype=x.dtype)

    def _zeros_for_none(self, states: tuple, x) -> tuple:
        """``states`` with each None replaced by a state of zeros."""
        if all(s is not None for s in states):
            return states
        zero = self._zero_state(x)
        return tuple(zero if s is None else s for s in states)


class ChildSumTreeLSTM(_TreeCell):
    """Child-Sum tree LSTM unit, Chainer's ``L.ChildSumTreeLSTM(in_size, out_size)`` (Tai et
    al., 2015): children ``W_x`` (``in_size -> 4 * out_size``), ``W_h_aio`` (``out_size -> 3 *
    out_size``, no bias) on the sum of the children's outputs, and ``W_h_f`` (``out_size ->
    out_size``, no bias) giving each child its forget gate.

    ``forward(c_1, ..., c_N, h_1, ..., h_N, x)`` takes any number ``N`` of children (none for a
    leaf) and does not depend on their order.
    """

    def __init__(self, in_size: int | None, out_size: int) -> None:
        super().__init__()
        with self.init_scope():
            self.W_x = Linear(in_size, 4 * out_size)
            self.W_h_aio = Linear(out_size, 3 * out_size, nobias=True)
            self.W_h_f = Linear(out_size, out_size, nobias=True)
        self.in_size = in_size
        self.state_size = out_size

    def forward(self, *cshsx: Any) -> tuple[Variable, Variable]:
        """The node's ``(c, h)`` from the cell states and outputs of its children and ``x``."""
        if len(cshsx) % 2 != 1:
            raise AssertionError(
                f"ChildSumTreeLSTM.forward: expected an odd number of arguments (c_1, ..., c_N, h_1, "
                f"..., h_N, x), got {len(cshsx)}\n"
                "  hint: pass as many cell states as outputs, then x (None for no input)"
            )
        cs, hs, x = self._split(cshsx, len(cshsx) // 2)
        gates = self.W_x(x)  # a, i, o, then the forget input shared by every child
        if not hs:
            # a leaf: the cell of one child of zeros, whose forget gate then has no effect
            return tree_lstm(self._zero_state(x), gates)
        aio, f = split_axis(gates, [3 * self.state_size], axis=1)
        hs = self._zeros_for_none(hs, x)
        aio = self.W_h_aio(sum(hs)) + aio
        per_child = split_axis(self.W_h_f(concat(hs, axis=0)), len(hs), axis=0)
        f = concat(per_child, axis=1) + concat([f] * len(hs), axis=1)
        return tree_lstm(*self._zeros_for_none(cs, x), concat([aio, f], axis=1))


class NaryTreeLSTM(_TreeCell):
    """N-ary tree LSTM unit, Chainer's ``L.NaryTreeLSTM(in_size, out_size, n_ary=2)`` (Bowman
    et al.'s variant of Tai et al.): children ``W_x`` (``in_size -> (3 + n_ary) * out_size``)
    and ``W_h1``, ..., ``W_h<n_ary>`` (``out_size -> (3 + n_ary) * out_size``, no bias), one per
    child position, so each child has its own forget gate and the order of children matters.

    ``forward(c_1, ..., c_n_ary, h_1, ..., h_n_ary, x)`` takes exactly ``2 * n_ary + 1``
    arguments.
    """

    def __init__(self, in_size: int | None, out_size: int, n_ary: int = 2) -> None:
        if n_ary < 1:
            raise AssertionError(
                f"NaryTreeLSTM: expected n_ary >= 1, got {n_ary}\n  hint: n_ary is the number of children"
            )
        super().__init__()
        with self.init_scope():
            self.W_x = Linear(in_size, (3 + n_ary) * out_size)
            for k in range(1, n_ary + 1):
                setattr(self, f"W_h{k}", Linear(out_size, (3 + n_ary) * out_size, nobias=True))
        self.in_size = in_size
        self.state_size = out_size
        self.n_ary = n_ary

    def forward(self, *cshsx: Any) -> tuple[Variable, Variable]:
        """The node's ``(c, h)`` from the cell states and outputs of its ``n_ary`` children and ``x``."""
        if len(cshsx) != 2 * self.n_ary + 1:
            raise AssertionError(
                f"NaryTreeLSTM.forward: expected {2 * self.n_ary + 1} arguments (c_1, ..., c_{self.n_ary}, "
                f"h_1, ..., h_{self.n_ary}, x), got {len(cshsx)}\n"
                "  hint: pass None for a missing child's c or h, or for no input x"
            )
        cs, hs, x = self._split(cshsx, self.n_ary)
        gates = self.W_x(x)
        for k, h in enumerate(hs, 1):
            if h is not None:
                gates = gates + self[f"W_h{k}"](h)
        return tree_lstm(*self._zeros_for_none(cs, x), gates)
