"""The graph a converter writes into: nodes, constants and unique value names.

A converter receives a :class:`Graph` and one :class:`Call` (a recorded primitive application)
and returns the ONNX value name of the call's output (a list of names for a tuple output).
"""

from __future__ import annotations

import numpy
import onnx
from onnx import helper, numpy_helper

from .. import backend
from ..errors import ExportError, message

__all__ = ["Graph", "Call", "host", "dtype_of", "shape_of", "is_ndarray", "INT64_MIN", "INT64_MAX"]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def is_ndarray(x) -> bool:
    """Whether ``x`` is an array on the host or a device (not a NumPy scalar, not a number)."""
    return backend.is_array(x) and not isinstance(x, numpy.generic)


def host(value, dtype=None) -> numpy.ndarray:
    """``value`` (an array on any device, a scalar, a list of them) as a C-ordered host array:
    what a proto holds, the same wherever the traced model lived."""
    return numpy.asarray(backend.to_cpu(value), dtype=dtype, order="C")


def dtype_of(value) -> numpy.dtype:
    """The dtype of an array on any device, or of a Python scalar (nothing is copied)."""
    return numpy.dtype(value.dtype) if hasattr(value, "dtype") else numpy.asarray(value).dtype


def shape_of(value) -> tuple:
    """The shape of an array on any device, or of a Python scalar (nothing is copied)."""
    return tuple(value.shape) if hasattr(value, "shape") else numpy.shape(value)


class Call:
    """One recorded application, as a converter sees it.

    Attributes:
        primitive: its name; ``inputs``: the ONNX names of its operands (None for an operand
        that is not an array); ``args``: the operands' values (arrays or Python scalars);
        ``params``: its static parameters; ``ans``: its output's value; ``where``: the source
        line that called it (for messages).
    """

    __slots__ = ("primitive", "inputs", "args", "params", "ans", "where")

    def __init__(self, primitive, inputs, args, params, ans, where):
        self.primitive, self.inputs, self.args = primitive, inputs, args
        self.params, self.ans, self.where = params, ans, where

    def fail(self, problem: str, hint: str) -> ExportError:
        """An ``ExportError`` about this call: its primitive, where it was called, and a hint."""
        return ExportError(
            message(f"fnet.onnx.export: {self.primitive}", f"{problem} (called at {self.where})", hint=hint)
        )


class Graph:
    """Nodes and initializers in the order written, for one opset."""

    def __init__(self, opset: int):
        self.opset = opset
        self.nodes: list = []
        self.initializers: list = []
        self._taken: set[str] = set()
        self._constants: dict = {}
        self.inputs_by_value: dict[int, str] = {}  # id(array) of a graph input -> its name
        self.named_arrays: dict[int, tuple] = {}  # id(array) -> (initializer name, array)

    def name(self, hint: str) -> str:
        """A value name not used before, ``hint`` itself or ``hint_N``."""
        name, n = hint, 0
        while name in self._taken:
            n += 1
            name = f"{hint}_{n}"
        self._taken.add(name)
        return name

    def reserve(self, names) -> None:
        """Keep ``names`` (the graph's inputs and outputs) from being given to other values."""
        self._taken.update(names)

    def node(self, op: str, inputs, outputs: int = 1, **attrs):
        """Append a node; returns its output name, or a list of ``outputs`` names."""
        names = [self.name(f"{op}_{len(self.nodes)}") for _ in range(outputs)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        inputs = ["" if i is None else i for i in inputs]
        self.nodes.append(helper.make_node(op, inputs, names, name=f"{op}_{len(self.nodes)}", **attrs))
        return names[0] if outputs == 1 else names

    def initializer(self, array, name: str) -> str:
        """Add ``array`` as an initializer called ``name`` (made unique)."""
        name = self.name(name)
        self.initializers.append(numpy_helper.from_array(host(array), name))
        return name

    def const(self, value, dtype=None) -> str:
        """A ``Constant`` node holding ``value`` (equal small constants are shared); an array
        that is the value of a graph input is that input instead, and one of ``named_arrays``
        (state such as running averages) an initializer of that name."""
        if backend.is_array(value) and id(value) in self.inputs_by_value:
            return self.inputs_by_value[id(value)]
        if backend.is_array(value) and self.named_arrays:
            named = self._named(value)
            if named is not None:
                return named
        array = host(value, dtype)
        key = None
        if array.size <= 16:
            key = (array.dtype.str, array.shape, array.tobytes())
            if key in self._constants:
                return self._constants[key]
        name = self.name(f"Constant_{len(self.nodes)}")
        tensor = numpy_helper.from_array(array, name)
        self.nodes.append(helper.make_node("Constant", [], [name], name=name, value=tensor))
        if key is not None:
            self._constants[key] = name
        return name

    def _named(self, value) -> str | None:
        """The initializer of a named array that ``value`` is (or is a reshaped view of)."""
        base = value
        while base is not None and id(base) not in self.named_arrays and id(base) not in self.inputs_by_value:
            base = getattr(base, "base", None)
            base = base if backend.is_array(base) else None
        if base is None or base.size != value.size or not value.flags.c_contiguous:
            return None
        if id(base) in self.named_arrays:  # an initializer, the first time
            name, array = self.named_arrays.pop(id(base))
            self.inputs_by_value[id(base)] = self.initializer(array, name)
        name = self.inputs_by_value[id(base)]
        return name if base is value else self.reshape(name, (), value.shape)

    def ints(self, values) -> str:
        """A constant int64 vector (shapes, axes, pads as inputs)."""
        return self.const(numpy.asarray(values, dtype=numpy.int64).reshape(-1))

    def scalar(self, value, like) -> str:
        """A scalar constant of the dtype of array ``like``."""
        return self.const(host(value, dtype_of(like)))

    # -- helpers shared by converters --------------------------------------------------------
    def reduce(self, op: str, x: str, axes, keepdims: bool) -> str:
        """``op`` (ReduceSum, ReduceMax, ...) over ``axes`` (None: all), in this opset's form
        (axes as an attribute before 18, as an input from 18; ReduceSum's from 13)."""
        keep = int(bool(keepdims))
        if axes is None:
            return self.node(op, [x], keepdims=keep)
        axes = [int(a) for a in axes]
        if op == "ReduceSum" or self.opset >= 18:
            return self.node(op, [x, self.ints(axes)], keepdims=keep)
        return self.node(op, [x], axes=axes, keepdims=keep)

    def reshape(self, x: str, before: tuple, after: tuple) -> str:
        """Reshape from shape ``before`` to ``after``; leading axes that keep their size are
        written as 0 (copy the input's), so that a dynamic batch axis stays dynamic."""
        if tuple(before) == tuple(after):
            return x
        shape = list(after)
        for i, (a, b) in enumerate(zip(before, after)):
            if a != b or a == 0:
                break
            shape[i] = 0
        return self.node("Reshape", [x, self.ints(shape)])

    def cast(self, x: str, dtype) -> str:
        return self.node("Cast", [x], to=helper.np_dtype_to_tensor_dtype(numpy.dtype(dtype)))

    def model(self, inputs, outputs, graph_name: str) -> onnx.ModelProto:
        graph = helper.make_graph(self.nodes, graph_name, inputs, outputs, self.initializers)
        return helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", self.opset)], producer_name="fnet"
        )
