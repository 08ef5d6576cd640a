"""Python's operators on Variables: the same fnet operations as on tracers, lifted."""

from __future__ import annotations

from ..ops import elementwise, indexing, linalg
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


def _operand(x):
    return x._data if isinstance(x, Variable) else unwrap(x)


def _binary(op):
    return lambda self, other: wrap(_run(op, (self._data, _operand(other)), {}))


def _reflected(op):
    return lambda self, other: wrap(_run(op, (_operand(other), self._data), {}))


def _unary(op):
    return lambda self: wrap(_run(op, (self._data,), {}))


def install() -> None:
    """Give Variable its arithmetic operators and indexing."""
    for name, op in _BINARY.items():
        setattr(Variable, f"__{name}__", _binary(op))
        setattr(Variable, f"__r{name}__", _reflected(op))
    Variable.__neg__ = _unary(elementwise.negative)
    Variable.__abs__ = _unary(elementwise.absolute)
    Variable.__pos__ = lambda self: self
    Variable.__getitem__ = lambda self, index: wrap(_run(indexing.getitem, (self._data, unwrap(index)), {}))
