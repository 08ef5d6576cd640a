"""Chainer's tree LSTM links, ``L.ChildSumTreeLSTM`` and ``L.NaryTreeLSTM``: the pure specs of
``fnet.nn`` as Chains of Linear links whose ``forward(c_1, ..., c_N, h_1, ..., h_N, x)`` merges
the states of a node's children and returns the node's ``(c, h)`` (the links keep no state).

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

from ... import nn
from ...errors import InvalidInputError
from ..link import Chain
from ..variable import Variable
from ._adapter import SpecLink, spec_attribute, spec_constructor

__all__ = ["ChildSumTreeLSTM", "NaryTreeLSTM"]


class _TreeCell(SpecLink, Chain):
    """A tree cell: ``forward(*cshsx)`` is the spec's ``apply``; the input sizing a lazy link is
    the last argument, ``x``. Subclasses define ``_expected_count(count)``: what the number of
    arguments should be when ``count`` is wrong, else None."""

    in_size = spec_attribute("in_size", "The input size (None when left to infer).")
    state_size = spec_attribute("out_size", "The size of the cell state and the output.")

    _computes_in_input_dtype = True  # as Chainer's Linear children

    def _example(self, args: tuple, kwargs: dict) -> tuple:
        return args[-1:]

    def _input_dtype(self, args: tuple):
        given = [a for a in args if a is not None]
        return super()._input_dtype(given) if given else None

    def forward(self, *cshsx: Any) -> tuple[Variable, Variable]:
        """The node's ``(c, h)`` from the cell states and outputs of its children and ``x``."""
        expected = self._expected_count(len(cshsx))
        if expected is not None:  # Chainer asserts the count
            raise AssertionError(
                f"{type(self).__name__}.forward: expected {expected} (c_1, ..., c_N, h_1, ..., h_N, x), "
                f"got {len(cshsx)}\n  hint: pass None for a missing child's c or h, or for no input x"
            )
        return self._apply("apply", *cshsx)


class ChildSumTreeLSTM(_TreeCell):
    """Child-Sum tree LSTM unit, Chainer's ``L.ChildSumTreeLSTM(in_size, out_size)`` (Tai et
    al., 2015): children ``W_x`` (``in_size -> 4 * out_size``), ``W_h_aio`` (``out_size -> 3 *
    out_size``, no bias) on the sum of the children's outputs, and ``W_h_f`` (``out_size ->
    out_size``, no bias) giving each child its forget gate.

    ``forward(c_1, ..., c_N, h_1, ..., h_N, x)`` takes any number ``N`` of children (none for a
    leaf) and does not depend on their order.
    """

    spec_type = nn.ChildSumTreeLSTM
    __init__ = spec_constructor(nn.ChildSumTreeLSTM)

    def _expected_count(self, count: int) -> str | None:
        return None if count % 2 == 1 else "an odd number of arguments"


class NaryTreeLSTM(_TreeCell):
    """N-ary tree LSTM unit, Chainer's ``L.NaryTreeLSTM(in_size, out_size, n_ary=2)``: children
    ``W_x`` (``in_size -> (3 + n_ary) * out_size``) and ``W_h1``, ..., ``W_h<n_ary>``
    (``out_size -> (3 + n_ary) * out_size``, no bias), one per child position.

    ``forward(c_1, ..., c_n_ary, h_1, ..., h_n_ary, x)`` takes exactly ``2 * n_ary + 1``
    arguments.
    """

    spec_type = nn.NaryTreeLSTM
    n_ary = spec_attribute("n_ary", "The number of children of a node.")

    _build = spec_constructor(nn.NaryTreeLSTM)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        try:
            self._build(*args, **kwargs)
        except InvalidInputError as error:  # n_ary < 1: Chainer asserts it
            raise AssertionError(str(error)) from error

    __init__.__signature__ = _build.__signature__
    __init__.__doc__ = _build.__doc__

    def _expected_count(self, count: int) -> str | None:
        return None if count == 2 * self.n_ary + 1 else f"{2 * self.n_ary + 1} arguments"
