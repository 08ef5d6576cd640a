"""Python's operators on Variables: the same fnet operations as on tracers, lifted."""

from __future__ import annotations

import numpy

from .. import backend
from ..ops import elementwise, indexing, linalg
from .function_hooks import observe, observing
from .functions import _run, unwrap, wrap
from .variable import Variable

_BINARY = {
    "add": elementwise.add,
    "sub": elementwise.subtract,
    "mul": elementwise.multiply,
    "truediv": elementwise.divide,
    "floordiv": elementwise.floor_divide,
    "pow": elementwise.power,
    "matmul": linalg.matmul,
}


def _operand(self: Variable, other):
    """``other`` as an operand next to ``self``: a raw array takes ``self``'s dtype, as Chainer
    converts constants (``x + 0.2 * numpy.ones(2)`` stays float32)."""
    if isinstance(other, Variable):
        return other._data
    if backend.is_array(other) and not isinstance(other, numpy.generic):
        dtype = self.dtype
        return other if other.dtype == dtype else other.astype(dtype)
    return unwrap(other)


def _call(op, args):
    """``op`` on unwrapped operands, seen by function hooks and debug mode as Chainer's are."""
    if observing():
        label = getattr(op, "name", None) or op.__name__
        return wrap(observe(label, lambda a, k: _run(op, a, k), list(args), {}))
    return wrap(_run(op, args, {}))


def _binary(op):
    return lambda self, other: _call(op, (self._data, _operand(self, other)))


def _reflected(op):
    return lambda self, other: _call(op, (_operand(self, other), self._data))


def _unary(op):
    return lambda self: _call(op, (self._data,))


def install() -> None:
    """Give Variable its arithmetic operators and indexing."""
    for name, op in _BINARY.items():
        setattr(Variable, f"__{name}__", _binary(op))
        setattr(Variable, f"__r{name}__", _reflected(op))
    Variable.__neg__ = _unary(elementwise.negative)
    Variable.__abs__ = _unary(elementwise.absolute)
    Variable.__pos__ = lambda self: self
    Variable.__getitem__ = lambda self, index: _call(indexing.getitem, (self._data, unwrap(index)))
