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
from ._chx import find, present, to_data
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
    "matmul": ("math.matmul.MatMul", None, None, None),
}


def _class(name: str | None):
    """The class of basic_math named ``name`` (or at a path under ``functions``; None: none)."""
    if name is None:
        return None
    return CLASSES[name if "." in name else f"math.basic_math.{name}"]


def _maker(name: str | None, transform=None):
    """A function of a constant (None for none) giving a new node of the class ``name``, or
    None when there is no class."""
    cls = _class(name)
    if cls is None:
        return None
    if transform is None:
        return cls.made
    return lambda value=None, pure=None: cls.made(None if value is None else transform(value))


_SCALARS = (int, float)  # constants (Chainer's ``*Constant`` nodes): these, and NumPy scalars


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


_NO_KEYWORDS: dict = {}  # an operator's call has none (shared, never changed)


def _call(op, args, make=None, value=None):
    """``op`` on unwrapped operands, seen by function hooks and debug mode as Chainer's are; the
    node ``make(value)`` becomes the creator of the result (made when first asked for)."""
    if observing():
        label = getattr(op, "name", None) or op.__name__
        node = None if make is None else make(value)
        out = observe(label if node is None else node, lambda a, k: _run(op, a, k), list(args), {})
    else:
        node = None
        out = _run(op, args, _NO_KEYWORDS)
    result = wrap(out)
    if make is None:
        return result
    if node is None and type(out) is Tracer:
        out.record.note = (make, value, None, args, _NO_KEYWORDS)
        return result
    node = node or make(value)
    if not node._attach(args, _NO_KEYWORDS, out) and configuration.config.enable_backprop:
        node._attach_untraced(args, _NO_KEYWORDS, result)
    return result


def _binary(op, name, classes):
    variable, constant, _, transform = classes
    of_variable, of_constant = _maker(variable), _maker(constant, transform)

    def binary(self, other):
        if isinstance(other, Variable) or not (type(other) in _SCALARS or numpy.isscalar(other)):
            return _call(op, (self._data, _operand(self, other, name)), of_variable)
        return _call(op, (self._data, _operand(self, other, name)), of_constant, other)

    return binary


def _reflected(op, name, classes):
    variable, _, constant, _ = classes
    of_variable, of_constant = _maker(variable), _maker(constant)

    def reflected(self, other):
        if isinstance(other, Variable) or not (type(other) in _SCALARS or numpy.isscalar(other)):
            return _call(op, (_operand(self, other, f"r{name}"), self._data), of_variable)
        return _call(op, (_operand(self, other, f"r{name}"), self._data), of_constant, other)

    return reflected


def _unary(op, name):
    make = _maker(name)
    return lambda self: _call(op, (self._data,), make)


def _on_chx(method):
    """``method`` run on the data of ChainerX operands, its result presented on their device."""

    def on_chx(self, *args):
        device = find((self, *args))
        if device is None:
            return method(self, *args)
        return present(method(self, *to_data(args)), device)

    return on_chx


def install() -> None:
    """Give Variable its arithmetic operators and indexing."""
    for name, op in _BINARY.items():
        classes = _NODES.get(name, (None, None, None, None))
        setattr(Variable, f"__{name}__", _on_chx(_binary(op, name, classes)))
        setattr(Variable, f"__r{name}__", _on_chx(_reflected(op, name, classes)))
    Variable.__neg__ = _on_chx(_unary(elementwise.negative, "Neg"))
    Variable.__abs__ = _on_chx(_unary(elementwise.absolute, "Absolute"))
    Variable.__pos__ = lambda self: self
    Variable.__getitem__ = _on_chx(_getitem)


_GET_ITEM = _class("array.get_item.GetItem")


def _get_item_node(slices, pure=None):
    """A ``GetItem`` node of the index ``slices``."""
    node = _GET_ITEM.made()
    node.slices = slices
    return node


def _getitem(self, index):
    return _call(indexing.getitem, (self._data, unwrap(index)), _get_item_node, index)
