"""Python's operators on Variables: the same fnet operations as on tracers, lifted."""

from __future__ import annotations

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


def _operand(x):
    return x._data if isinstance(x, Variable) else unwrap(x)


def _call(op, args):
    """``op`` on unwrapped operands, seen by function hooks and debug mode as Chainer's are."""
    if observing():
        label = getattr(op, "name", None) or op.__name__
        return wrap(observe(label, lambda a, k: _run(op, a, k), list(args), {}))
    return wrap(_run(op, args, {}))


def _binary(op):
    return lambda self, other: _call(op, (self._data, _operand(other)))


def _reflected(op):
    return lambda self, other: _call(op, (_operand(other), self._data))


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
