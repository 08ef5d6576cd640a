"""Python's operators on Variables: the same fnet operations as on tracers, lifted.

Each call's node is of Chainer's ``basic_math`` class for it (``x * y`` is made by a ``Mul``,
``x * 2`` by a ``MulConstant``), so ``creator``, hooks and graph dumps show Chainer's names."""

from __future__ import annotations

import numpy

from .. import backend
from ..autodiff.tracer import Tracer
from ..errors import message
from ..ops import elementwise, indexing, linalg
from . import configuration
from .function_hooks import observe, observing
from .functions import _run, unwrap, wrap
from .functions._tree import CLASSES
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


# operator -> Chainer's classes for (variable, variable), (variable, constant), (constant, variable),
# and how the constant is kept on the node (Chainer computes x - c as x + (-c), x / c as x * (1 / c)).
_NODES = {
    "add": ("Add", "AddConstant", "AddConstant", None),
    "sub": ("Sub", "AddConstant", "SubFromConstant", lambda c: -c),
    "mul": ("Mul", "MulConstant", "MulConstant", None),
    "truediv": ("Div", "MulConstant", "DivFromConstant", lambda c: 1.0 / c),
    "pow": ("PowVarVar", "PowVarConst", "PowConstVar", None),
    "matmul": ("MatMul", None, None, None),
}


def _node(name: str | None, value=None, transform=None):
    """A new node of the basic_math class ``name`` (None: none), holding the constant ``value``."""
    if name is None:
        return None
    cls = CLASSES[f"math.basic_math.{name}"] if name != "MatMul" else CLASSES["math.matmul.MatMul"]
    node = cls.__new__(cls)
    if value is not None:
        node.value = value if transform is None else transform(value)
    return node


def _is_constant(other) -> bool:
    return not isinstance(other, Variable) and numpy.isscalar(other)


def _operand(self: Variable, other, name: str):
    """``other`` as an operand of operator ``name`` next to ``self``: a raw array takes ``self``'s
    dtype, as Chainer converts constants (``x + 0.2 * numpy.ones(2)`` stays float32); anything but
    a Variable, an array or a scalar (a list, a tuple) is a TypeError, as in Chainer."""
    if isinstance(other, Variable):
        return other._data
    if backend.is_array(other) and not isinstance(other, numpy.generic):
        dtype = self.dtype
        return other if other.dtype == dtype else other.astype(dtype)
    if not (numpy.isscalar(other) or type(other) is Tracer):
        raise TypeError(
            message(
                f"Variable.__{name}__",
                f"the other operand must be a Variable, an array or a scalar, got {type(other).__name__}",
                hint="make it an array first, e.g. numpy.asarray(value, dtype=x.dtype)",
            )
        )
    return unwrap(other)


def _call(op, args, node=None):
    """``op`` on unwrapped operands, seen by function hooks and debug mode as Chainer's are;
    ``node`` becomes the creator of the result."""
    if observing() or (node is not None and node._local_hooks):
        label = getattr(op, "name", None) or op.__name__
        out = observe(label if node is None else node, lambda a, k: _run(op, a, k), list(args), {})
    else:
        out = _run(op, args, {})
    result = wrap(out)
    if node is not None and not node._attach(args, {}, out) and configuration.config.enable_backprop:
        node._attach_untraced(args, {}, result)
    return result


def _binary(op, name, classes):
    variable, constant, _, transform = classes

    def binary(self, other):
        if _is_constant(other):
            return _call(op, (self._data, _operand(self, other, name)), _node(constant, other, transform))
        return _call(op, (self._data, _operand(self, other, name)), _node(variable))

    return binary


def _reflected(op, name, classes):
    variable, _, constant, _ = classes

    def reflected(self, other):
        if _is_constant(other):
            return _call(op, (_operand(self, other, f"r{name}"), self._data), _node(constant, other))
        return _call(op, (_operand(self, other, f"r{name}"), self._data), _node(variable))

    return reflected


def _unary(op, name):
    return lambda self: _call(op, (self._data,), _node(name))


def install() -> None:
    """Give Variable its arithmetic operators and indexing."""
    for name, op in _BINARY.items():
        classes = _NODES.get(name, (None, None, None, None))
        setattr(Variable, f"__{name}__", _binary(op, name, classes))
        setattr(Variable, f"__r{name}__", _reflected(op, name, classes))
    Variable.__neg__ = _unary(elementwise.negative, "Neg")
    Variable.__abs__ = _unary(elementwise.absolute, "Absolute")
    Variable.__pos__ = lambda self: self
    Variable.__getitem__ = _getitem


def _getitem(self, index):
    cls = CLASSES["array.get_item.GetItem"]
    node = cls.__new__(cls)
    node.slices = index
    return _call(indexing.getitem, (self._data, unwrap(index)), node)
