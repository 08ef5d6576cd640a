"""Chainer's ``Variable`` and ``Parameter``: a value on the always-on trace level 0, with its grad.

A Variable that needs a gradient holds a ``Tracer`` of level 0; operations on it record on that
level through the same primitives as the pure API, and ``backward()`` runs the one backward
engine (``create_graph`` when double backprop is asked for). A Variable that needs none holds
the raw array, so inference and data inputs cost nothing extra.

A Variable given a ``chainerx.ndarray`` keeps the NumPy data under it (the same memory) and
presents its array and gradient as ChainerX arrays on that device (``_chx``); functions compute
on the data (``fnet.compat._chx`` converts at their boundary).
"""

from __future__ import annotations

import contextlib
import warnings
import weakref

import numpy

from .. import backend
from ..autodiff import Record, Tracer, unbox_all
from ..autodiff import backward as _run_backward
from ..errors import aval
from . import _debug_stack, chainerx, configuration, initializers
from ._layouts import FIRST_OF
from ._migration import keyword_error
from ._tape import (
    VariableNode,
    apply_node,
    creator_of,
    cut_records,
    label,
    node_of,
    old_style,
    owners,
    untraced_creator,
)
from .backend import ChainerxDevice, CpuDevice, get_device, get_device_from_array
from .backends._chainerx import array_to_chx
from .chainerx._array import raw, wrap
from .chainerx._backprop import on_shared_graph_gradients
from .chainerx._graph import in_chainer_graph

__all__ = [
    "Variable",
    "Parameter",
    "VariableNode",
    "as_variable",
    "as_array",
    "backward",
    "grad",
    "no_backprop_mode",
    "force_backprop_mode",
]


def _refuse_old_style(records) -> None:
    """Chainer's error for a backward pass that reaches a gradient an old-style Function made."""
    if not old_style:
        return
    for record in records:
        function = old_style.get(record)
        if function is not None:
            raise RuntimeError(
                f'cannot twice-differentiate an old style Function "{function}"\n'
                "  hint: write the function as a chainer.FunctionNode, whose backward uses chainer.functions"
            )


def _is_array(value) -> bool:
    return isinstance(value, (numpy.ndarray, chainerx.ndarray)) or backend.is_array(value)


def _check_grad(variable: Variable, g, where: str) -> None:
    """Chainer's rule: a grad has its variable's array type, dtype and shape."""
    data = variable.array
    if g is None or data is None:
        return
    value = raw(g) if type(g) is chainerx.ndarray else unbox_all(g)
    if not _is_array(value):
        raise TypeError(
            f"{where}: the grad of {variable._describe()} must be an array, got {type(value).__name__}"
        )
    if value.dtype != data.dtype:
        raise TypeError(
            f"{where}: the grad of {variable._describe()} must have dtype {data.dtype}, got {value.dtype}\n"
            "  hint: cast it with .astype(variable.dtype)"
        )
    if value.shape != data.shape:
        raise ValueError(
            f"{where}: the grad of {variable._describe()} must have shape {data.shape}, got {value.shape}\n"
            "  hint: call cleargrad() after changing the shape of .array"
        )


class Variable:
    """An array that remembers how it was computed, so that ``backward()`` can find gradients.

    Its operators (``fnet.compat._operators``) and the methods that are Chainer functions
    (``T``, ``reshape``, ``transpose``, ``mean``: ``fnet.compat.functions``) are installed by
    the modules that define those functions.

    >>> import numpy
    >>> x = Variable(numpy.array([3.0], numpy.float32))
    >>> y = x * x + 2 * x
    >>> y.grad = numpy.ones(1, numpy.float32)
    >>> y.backward()
    >>> x.grad
    array([8.], dtype=float32)
    """

    __slots__ = (
        "_data",
        "_grad_var",
        "_name",
        "_requires_grad",
        "_loss_scale",
        "_node_made",
        "_chx",
        "__weakref__",
    )
    __array_priority__ = 200
    # False only on a Parameter made without an array, until its grad is set, cleared, zeroed or
    # drawn with the array: reading ``grad`` before then is an error, as in Chainer
    _grad_valid = True

    def __init__(
        self, data=None, *, name: str | None = None, grad=None, requires_grad: bool = True, **kwargs
    ):
        if kwargs:
            raise keyword_error("chainer.Variable", type(self).__name__, kwargs) or TypeError(
                f"{type(self).__name__}() got unexpected keyword argument(s) {', '.join(sorted(kwargs))}\n"
                "  hint: the keyword arguments are name, grad and requires_grad"
            )
        if data is not None and not _is_array(data):
            if isinstance(data, Variable):
                raise TypeError("Variable: data must be an array, got a Variable\n  hint: use it directly")
            raise TypeError(
                f"Variable: data must be a NumPy or CuPy array, got {type(data).__name__}\n"
                "  hint: wrap it with numpy.asarray(data, numpy.float32)"
            )
        self._init_fields(data, name, grad, requires_grad)

    def _init_fields(self, data, name, grad, requires_grad: bool) -> None:
        self._name = name
        self._requires_grad = requires_grad
        self._grad_var = None
        self._data = None
        self._node_made = None
        self._chx = None
        self._set_array(data)
        if grad is not None:
            self.grad = grad

    @classmethod
    def _init_unchecked(
        cls,
        data=None,
        device=None,
        name=None,
        grad=None,
        grad_valid: bool = True,
        requires_grad: bool = True,
        is_chainerx_array=None,
        node=None,
        layout=None,
    ) -> Variable:
        """Chainer's constructor without the checks of ``data`` (for speed); ``device``,
        ``grad_valid``, ``node``, ``layout`` and ``is_chainerx_array`` are Chainer's bookkeeping,
        which fnet reads from ``data`` itself."""
        variable = object.__new__(Variable)
        variable._init_fields(data, name, grad, requires_grad)
        return variable

    @classmethod
    def _of(cls, value) -> Variable:
        """The Variable presenting ``value``, the result of an operation (a tracer or an array)."""
        traced = type(value) is Tracer
        if traced:
            if isinstance(value.value, numpy.generic):  # NumPy ufuncs give scalars for 0-d arrays
                value = Tracer(numpy.asarray(value.value), value.level, value.record)
        elif isinstance(value, numpy.generic):
            value = numpy.asarray(value)
        v = object.__new__(Variable)
        v._data = value
        v._grad_var = None
        v._name = None
        v._requires_grad = traced
        v._node_made = None
        v._chx = None
        if traced:
            owners[value.record] = v
        return v

    # -- the array ------------------------------------------------------------------------
    @property
    def array(self):
        """The underlying array (not part of the graph): a ChainerX array over the data when
        the variable holds one."""
        data = self._data
        data = data.value if type(data) is Tracer else data
        chx = self._chx
        if chx is None:
            return data
        if raw(chx) is not data:  # the data was replaced (an optimizer's step)
            chx = self._chx = array_to_chx(data, chx.device)
        return chx

    @property
    def chx_array(self):
        """The ChainerX array in this variable's graph (``array`` is out of it): ChainerX's
        routines on it record on the variable's graph. ValueError for a NumPy/CuPy variable."""
        if self._chx is None:
            raise ValueError(
                f"Variable.chx_array: expected a variable holding a ChainerX array, got {self._describe()}\n"
                "  hint: move it to ChainerX first: variable.to_chx()"
            )
        return wrap(self._data, self.array.device)

    @classmethod
    def _in_chainer_graph(cls, array) -> Variable:
        """The Variable over the ChainerX ``array`` (a routine's result), in its default graph:
        the array's node there is the variable's, so backward runs through both."""
        return cls._of(in_chainer_graph(array._v))._present(array.device)

    @property
    def _has_chainerx_array(self) -> bool:
        """Whether the array is a ChainerX array."""
        return self._chx is not None

    def _present(self, device) -> Variable:
        """Present the array as a ChainerX array on ``device`` (None: as the data); returns self."""
        data = self._data
        data = data.value if type(data) is Tracer else data
        self._chx = None if device is None or data is None else array_to_chx(data, device)
        return self

    @array.setter
    def array(self, value) -> None:
        self._set_array(value)

    data = array

    @property
    def raw_array(self):
        """The underlying array (the same as ``array`` here)."""
        return self.array

    def _set_array(self, value) -> None:
        made = None  # the node of a routine's output in the shared default graph (see _in_chainer_graph)
        if type(value) is chainerx.ndarray:
            made = in_chainer_graph(value._v)
            if type(made) is not Tracer or made.record.primitive is None:
                made = None  # not made by a routine: the variable is a leaf of its own
            self._chx = value if made is None else array_to_chx(made.value, value.device)
            value = raw(value)
        else:
            self._chx = None
        if value is not None and self._grad_var is not None:
            old = self._grad_var.array
            if old is not None and getattr(value, "shape", None) != old.shape:
                raise ValueError(
                    f"Variable.array: {self._describe()} has a grad of shape {old.shape}, "
                    f"so its array cannot become {aval(value)}\n"
                    "  hint: call cleargrad() first, or set an array of the same shape"
                )
        current = self._data
        if made is not None and self._requires_grad:  # the variable is the array's node
            self._data = made
            owners[made.record] = self
        elif type(current) is Tracer and not current.record.owned:
            self._data = Tracer(value, current.level, current.record)
        elif self._requires_grad and value is not None:
            self._data = Tracer.input(value, 0, owner=self)
        else:
            self._data = value

    @property
    def _node(self) -> VariableNode:
        """This variable's node in the graph (one for the variable's lifetime); Chainer's
        private name, which its tests use, and the one this layer uses."""
        node = self._node_made
        if node is None:
            node = self._node_made = VariableNode(self)
        return node

    @property
    def node(self) -> VariableNode:
        """This variable's node in the graph; a variable of ChainerX provides none, as in Chainer."""
        if self._chx is not None:
            raise RuntimeError(
                f"{type(self).__name__}.node: a variable of ChainerX does not provide a node\n"
                "  hint: use its creator, or from_chx() it first"
            )
        return self._node

    # -- the gradient ---------------------------------------------------------------------
    @property
    def grad(self):
        """The gradient array, or None."""
        g = self._grad_var
        if g is None:
            if not self._grad_valid:
                raise RuntimeError(
                    "Variable.grad: cannot retrieve the gradient of a Parameter that was made "
                    "uninitialized and has had no gradient set since\n"
                    "  hint: set it manually, or call cleargrad() (cleargrads() on its link) beforehand"
                )
            return None
        return self.grad_var.array  # (presented on the ChainerX device where the variable is)

    @grad.setter
    def grad(self, g) -> None:
        if isinstance(g, numpy.generic):
            raise TypeError(
                f"Variable.grad: the grad of {self._describe()} must be an array, got the NumPy scalar "
                f"{type(g).__name__}\n  hint: wrap it with numpy.asarray(g)"
            )
        _check_grad(self, g, "Variable.grad")
        self._check_chx_grad(g, "grad")
        self._grad_var = None if g is None else Variable(g)  # as Chainer's: a Variable that requires grad
        self._validate_grad()

    @property
    def _grad(self):
        """Chainer's private name of the gradient array (without ``grad``'s validity check)."""
        g = self.grad_var
        return None if g is None else g.array

    @_grad.setter
    def _grad(self, g) -> None:
        self._grad_var = None if g is None else Variable._of(g)

    def _check_chx_grad(self, g, name: str) -> None:
        """ChainerX's rule: an array that does not require grad has no gradient to set."""
        if g is not None and self._chx is not None and not self._requires_grad:
            raise RuntimeError(
                f"Variable.{name}: {self._describe()} holds a ChainerX array that does not require "
                "grad, so it takes no gradient\n  hint: make it with requires_grad=True"
            )

    def _validate_grad(self) -> None:
        """Make ``grad`` readable (only a Parameter can hold it unreadable)."""
        if not self._grad_valid:
            self._grad_valid = True

    @property
    def grad_var(self):
        """The gradient as a Variable (with a graph after ``enable_double_backprop``), or None."""
        g = self._grad_var
        if g is not None and g._chx is None and self._chx is not None:
            g._present(self._chx.device)  # a gradient backward stored as NumPy data
        return g

    @grad_var.setter
    def grad_var(self, g) -> None:
        if g is not None and not isinstance(g, Variable):
            raise TypeError(f"Variable.grad_var: expected a Variable or None, got {type(g).__name__}")
        _check_grad(self, None if g is None else g._data, "Variable.grad_var")
        self._check_chx_grad(g, "grad_var")
        self._grad_var = g
        self._validate_grad()

    def cleargrad(self) -> None:
        """Forget the gradient (set it to None)."""
        self._grad_var = None
        self._validate_grad()

    def zerograd(self) -> None:
        """Set the gradient to zeros (deprecated in Chainer in favour of ``cleargrad``)."""
        warnings.warn(
            "Variable.zerograd is deprecated. Use Variable.cleargrad instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        self._zero_grad()

    def _zero_grad(self) -> None:
        data = self.array
        if data is not None:
            self._grad_var = Variable._of(backend.xp(data).zeros_like(data))
        self._validate_grad()

    def addgrad(self, var: Variable) -> None:
        """Add ``var``'s gradient to this one, on this variable's device; an uninitialized
        Parameter is first initialized to ``var``'s shape, as in Chainer. Gradients of ChainerX
        and of other devices are not added together (a RuntimeError, as in Chainer)."""
        if (self.device.xp is chainerx) != (var.device.xp is chainerx):
            raise RuntimeError(
                f"Variable.addgrad: cannot add a gradient on {var.device} to one on {self.device} "
                "(ChainerX and non-ChainerX devices)\n  hint: move one variable first: to_device(...)"
            )
        if var.grad is None:
            return
        source = var._grad_var
        if self.array is None and isinstance(self, Parameter):
            self.initialize(var.shape)
        g = raw(_send(source.array, self.device))  # the data; a ChainerX variable presents it
        mine = self._grad_var
        self._grad_var = Variable._of(g if mine is None else raw(mine.array) + g)
        self._validate_grad()

    def copydata(self, var: Variable) -> None:
        """Copy ``var``'s array into this variable's array (in place, across devices).

        As in Chainer, an uninitialized Parameter on either side is first initialized to the
        other's shape (nothing happens when both are uninitialized).
        """
        dst = self.array
        if var.array is None:
            if dst is None:
                return
            var.initialize(dst.shape)
        if dst is None and isinstance(self, Parameter):
            self.initialize(var.array.shape)
            dst = self.array
        src = _send(var.array, self.device)
        if dst is None:
            self.array = src.copy()
        else:
            raw(dst)[...] = raw(src)  # the data under ChainerX arrays takes the assignment

    @property
    def requires_grad(self) -> bool:
        """Whether ``backward`` computes a gradient for this variable."""
        return self._requires_grad

    # -- array attributes -----------------------------------------------------------------
    @property
    def shape(self):
        return self.array.shape

    @property
    def ndim(self):
        return self.array.ndim

    @property
    def size(self):
        return self.array.size

    @property
    def dtype(self):
        return self.array.dtype

    @property
    def xp(self):
        """The array module of the array (``numpy``, ``cupy`` or ``chainerx``)."""
        if self._chx is not None:
            return chainerx
        return backend.xp(self.array) if self.array is not None else numpy

    @property
    def device(self):
        """The device the data lives on (Chainer's device objects)."""
        return CpuDevice() if self.array is None else get_device_from_array(self.array)

    @property
    def name(self):
        return self._name

    @name.setter
    def name(self, value) -> None:
        self._name = value

    @property
    def label(self) -> str:
        """A short text for the variable: its shape and dtype."""
        data = self.array
        return label(None, None) if data is None else label(data.shape, data.dtype)

    def __len__(self) -> int:
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-dimensional Variable")
        return shape[0]

    def item(self):
        """The only element as a Python scalar."""
        return self.array.item()

    # -- the graph ------------------------------------------------------------------------
    @property
    def creator_node(self):
        """The FunctionNode that made this variable (None for a leaf)."""
        data = self._data
        if type(data) is not Tracer:  # a built-in function's output on arrays (no gradient)
            return untraced_creator(self)
        return creator_of(data.record)

    @property
    def creator(self):
        """The function that made this variable: the old-style Function or the FunctionNode."""
        node = self.creator_node
        return getattr(node, "function", node) if node is not None else None

    @property
    def rank(self) -> int:
        """The variable's depth in the graph: 0 for a leaf, its creator's rank plus 1 otherwise
        (as Chainer, a variable cut from its creator keeps its rank)."""
        node = self._node_made
        if node is not None and node._rank is not None:
            return node._rank
        creator = self.creator_node
        return 0 if creator is None else creator.rank + 1

    def unchain(self) -> None:
        """Forget how this variable was made: it becomes a leaf of the graph (keeping its rank)."""
        data = self._data
        if type(data) is Tracer and not data.record.owned:
            self._node._rank = self.rank
            record = data.record
            parents = record.cut()
            if self._requires_grad:
                cut_records[record] = (weakref.ref(self), parents)
            else:
                self._data = data.value

    @creator_node.setter
    def creator_node(self, node) -> None:
        """Chainer's way to set the creator: None cuts the variable from it (``unchain``); the
        node that made the variable and was cut off is joined again; another node becomes the
        creator of this value, with no operands (a graph of one step, as Chainer's)."""
        if node is None:
            self.unchain()
            return
        data = self._data
        traced = type(data) is Tracer
        cut = cut_records.get(data.record) if traced else None
        if cut is not None:
            data.record.relink(cut[1])
            if node_of(data.record) is node:
                del cut_records[data.record]
                self._node._rank = node.rank + 1
                return
            data.record.cut()
        value = data.value if traced else data
        self._data = Tracer(value, 0, Record(apply_node, (), (), {"node": node}, value, 0))
        self._requires_grad = True
        self._node._rank = node.rank + 1

    @creator.setter
    def creator(self, function) -> None:
        """Set the creator: a FunctionNode, or an old-style Function (its node), or None."""
        self.creator_node = getattr(function, "node", function)

    def set_creator(self, gen_func) -> None:
        """Chainer's older spelling of ``creator = gen_func``."""
        self.creator = gen_func

    def set_creator_node(self, fnode) -> None:
        """Chainer's older spelling of ``creator_node = fnode``."""
        self.creator_node = fnode

    def unchain_backward(self) -> None:
        """Cut the graph behind this variable (truncated backprop): every Record that made it
        forgets its operands, so that they and their history can be freed."""
        data = self._data
        if type(data) is not Tracer:
            return
        stack, seen = [data.record], set()
        while stack:
            record = stack.pop()
            if id(record) in seen:
                continue
            seen.add(id(record))
            stack.extend(p.record for p in record.cut() if p is not None)
        self.unchain()

    def backward(
        self, retain_grad: bool = False, enable_double_backprop: bool = False, loss_scale=None
    ) -> None:
        """Backpropagate from this variable, adding gradients into the ``.grad`` of the
        variables it was computed from.

        A scalar's gradient starts as 1 (times ``loss_scale``); any other variable needs its
        ``.grad`` set first: without one there is no gradient to start from, and nothing is
        propagated (Chainer passes ``None`` down the graph then, which only some of its functions
        accept; the others fail). ``retain_grad`` keeps the gradients of intermediate variables;
        ``enable_double_backprop`` records the backward pass, so that the gradients can be
        differentiated again.
        """
        if self._grad_var is None:
            data = self.array
            if data is None or (data.size != 1 and self._chx is None):
                return  # (ChainerX's backward starts every output's gradient as ones)
            if data.ndim and self._chx is None:
                warnings.warn(
                    "Treating a variable with only one element as a scalar in Variable.backward is "
                    "deprecated. A scalar variable must be a 0-dimensional array: apply "
                    "chainer.functions.squeeze to obtain one.",
                    DeprecationWarning,
                    stacklevel=2,
                )
            data = raw(data)  # a ChainerX array's NumPy/CuPy data: the seed goes on its device
            ones = backend.xp(data).ones_like(data)
            if loss_scale is not None:
                ones *= loss_scale
            self._grad_var = Variable._of(ones)
        grad = self._grad_var
        if not retain_grad:  # Chainer (from v6) uses up the output's grad
            self._grad_var = None
        _backprop(
            [self],
            [grad],
            retain_grad=retain_grad,
            create_graph=enable_double_backprop,
            loss_scale=loss_scale,
        )

    # -- devices --------------------------------------------------------------------------
    def to_device(self, device) -> Variable:
        """Move the array and the gradient to ``device`` (in place); returns self."""
        return self._to_device(device, allow_unchaining=False)

    def _to_device(self, device, allow_unchaining: bool) -> Variable:
        """``to_device``; Chainer's rules on ChainerX unless ``allow_unchaining`` (Parameters):
        a variable in a graph moves neither out of ChainerX nor, with a creator, into it."""
        target = get_device(device)
        to_chx = isinstance(target, ChainerxDevice)
        data = self.array
        if not allow_unchaining and data is not None:
            if self._chx is not None and not to_chx and self._requires_grad:
                raise RuntimeError(
                    f"{type(self).__name__}.to_device: a variable of a ChainerX array that requires "
                    f"grad cannot move to the non-ChainerX device {target}\n"
                    "  hint: make it with requires_grad=False, or unchain it from ChainerX's graph first"
                )
            if self._chx is None and to_chx and self.creator is not None:
                raise RuntimeError(
                    f"{type(self).__name__}.to_device: a variable with a creator cannot move to the "
                    f"ChainerX device {target}\n  hint: move the inputs before applying functions to them"
                )
        if data is not None:
            self._set_array(_send(data, target))
        grad = self.grad_var
        if grad is not None and to_chx and not self._requires_grad:
            self._grad_var = None  # a ChainerX array that requires no grad has none
        elif grad is not None:
            self._grad_var = Variable._of(None)
            self._grad_var._set_array(_send(grad.array, target))
        return self

    def to_cpu(self) -> Variable:
        return self.to_device("@numpy")

    def to_chx(self) -> None:
        """Present the array and the gradient as ChainerX arrays over the same memory, on the
        ChainerX device of the same hardware (``native:0`` for NumPy); nothing if they are."""
        self._to_chx(allow_unchaining=False)

    def _to_chx(self, allow_unchaining: bool) -> None:
        if self._chx is None:
            self._to_device(ChainerxDevice.from_fallback_device(self.device), allow_unchaining)

    def from_chx(self) -> None:
        """Present the array and the gradient as NumPy/CuPy arrays again (the same memory);
        nothing if they are."""
        self._from_chx(allow_unchaining=False)

    def _from_chx(self, allow_unchaining: bool) -> None:
        if self._chx is not None:
            self._to_device(self.device.fallback_device, allow_unchaining)

    def to_gpu(self, device=None) -> Variable:
        return self.to_device(f"@cupy:{0 if device is None else int(device)}")

    # -- memory layouts -------------------------------------------------------------------
    def as_layout(self, layout) -> Variable:
        """Chainer's change of the memory layout (``chainer.memory_layouts``: cuDNN's channel-last
        images and filters). fnet keeps every array in the layout its shape says, and a layout
        changes no value, shape or gradient, so this Variable comes back, once ``layout`` is
        checked as Chainer checks it."""
        if layout is not None and layout not in FIRST_OF:
            raise ValueError(
                f"Variable.as_layout: unknown layout {layout!r}\n"
                f"  hint: pass None or a name of chainer.memory_layouts ({', '.join(map(repr, FIRST_OF))})"
            )
        if layout is not None and self.ndim < 3:
            raise ValueError(
                f"Variable.as_layout: the channel-last layout {layout!r} needs 3 or more axes (batch, "
                f"space, channel), got a variable of shape {self.shape}\n"
                "  hint: keep this variable in the standard layout (None)"
            )
        return self

    # -- text -----------------------------------------------------------------------------
    def _describe(self) -> str:
        data = self.array
        shown = "None" if data is None else aval(data)
        return f"variable {self._name} ({shown})" if self._name else f"variable {shown}"

    def summary(self) -> str:
        """``<variable name>`` (Chainer's short form; ``<variable at 0x...>`` without a name)."""
        return f"<variable {self._name}>" if self._name else f"<variable at 0x{id(self):x}>"

    def debug_print(self) -> str:
        """Chainer's description of the variable: its device, backend, shape, dtype, the
        statistics of its data, and its grad."""
        data = self.array
        lines = [self.summary()]
        if data is None:
            fields = ("device", "backend", "shape", "dtype", "statistics", "grad")
            lines += [f"- {field}: None" for field in fields]
            return "\n".join(lines)
        device = self.device
        lines.append(f"- device: {'CPU' if backend.xp(data) is numpy else device}")
        lines.append(f"- backend: {type(data)}")
        lines.append(f"- shape: {data.shape}")
        lines.append(f"- dtype: {data.dtype}")
        lines.append(f"- statistics: {_statistics(data)}")
        grad = self.grad
        if grad is None:
            lines.append("- grad: None")
        elif not grad.any():
            lines.append("- grad: 0")
        else:
            lines.append(f"- grad: {_statistics(grad)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self._text(repr_form=True)

    def __str__(self) -> str:
        return self._text(repr_form=False)

    def _text(self, repr_form: bool) -> str:
        """Chainer's form: ``variable name(values)``, the values printed as NumPy prints them
        (without ``array(`` and the dtype), continuation lines aligned under the first."""
        prefix = f"variable {self._name}(" if self._name else "variable("
        data = self.array
        if data is None:
            return prefix + "None)"
        host = backend.to_cpu(data)
        if repr_form and host.size == 0 and host.shape != (0,):  # as Chainer's repr: the shape
            return f"{prefix}[], shape={host.shape!r})"
        if repr_form:
            body = numpy.array2string(host, separator=", ", prefix=prefix)
        else:
            body = numpy.array2string(host, prefix=prefix)
        return f"{prefix}{body})"

    def __reduce__(self):
        # the graph is not pickled (as in Chainer, a pickled Variable comes back as a leaf)
        return _rebuild_variable, (self.array, self._name, self.grad, self._requires_grad)

    # -- Chainer forbids comparing variables and testing them for truth ---------------------
    def _no_compare(self, other):
        raise TypeError(
            "Variable: comparison operators are not supported (as in Chainer)\n"
            "  hint: compare the arrays, e.g. x.array < y.array"
        )

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _no_compare

    def __bool__(self):
        raise TypeError(
            "Variable: truth testing is not supported (as in Chainer)\n  hint: test x.array instead"
        )

    __hash__ = None  # as Chainer's: key dicts and sets by id(variable)


def _send(array, device):
    """``array`` on ``device`` (a ChainerX array to a ChainerX device, or its data elsewhere)."""
    target = get_device(device)
    if isinstance(target, ChainerxDevice):
        return target.send_array(array)
    if type(array) is chainerx.ndarray:
        array = raw(array)
    return backend.to_device(array, target)


def _statistics(a) -> str:
    """Chainer's statistics line: mean and standard deviation (none for an empty array)."""
    if a.size == 0:
        return "None"
    return f"mean={float(a.mean()):.8f}, std={float(a.std()):.8f}"


def _rebuild_variable(array, name, grad, requires_grad):
    """A Variable from what ``Variable.__reduce__`` saved (for pickle and copy)."""
    v = Variable(array, name=name, requires_grad=requires_grad)
    if grad is not None:
        v.grad = grad
    return v


class Parameter(Variable):
    """A Variable registered to a Link: initialized (maybe lazily) from an initializer.

    ``Parameter(initializer, shape)``: with a shape, the array is drawn at once; without one,
    it stays uninitialized until ``initialize(shape)`` (a link's first forward pass). As in
    Chainer, a parameter made from an initializer starts with a NaN-filled grad (so a
    forgotten ``cleargrads()`` shows), one made from an array with no grad.
    """

    __slots__ = ("initializer", "update_rule", "_initial_device", "__dict__")
    # the grad that ``initialize`` draws with the array: NaN for a parameter made uninitialized,
    # zeros after zerograd(), none after cleargrad() (the array is not there yet for them to act
    # on) and none for a parameter made with an array or a shape, as in Chainer
    _grad_fill: float | None = None

    def __init__(self, initializer=None, shape=None, name: str | None = None):
        if initializer is None:
            initializer = initializers.NaN()
        elif numpy.isscalar(initializer):
            initializer = initializers.Constant(initializer)
        self.update_rule = None
        self._initial_device = backend.CPU
        if _is_array(initializer) and shape is None:
            super().__init__(initializer, name=name)
            self.initializer = initializer
            return
        if _is_array(initializer):
            initializer = initializers.Constant(initializer)
        super().__init__(None, name=name)
        self.initializer = initializer
        if shape is None:
            self._grad_fill = numpy.nan
            self._grad_valid = False
        else:
            self.initialize(shape)
            self._grad_var = Variable._of(backend.xp(self.array).full_like(self.array, numpy.nan))

    @property
    def is_initialized(self) -> bool:
        return self.array is not None

    @property
    def dtype(self):
        """The array's dtype; before the array is drawn, the one its initializer will make."""
        if self.array is not None:
            return self.array.dtype
        if not hasattr(self.initializer, "dtype"):
            raise RuntimeError(
                "Parameter.dtype: Dtype of the parameter is not determined yet: its initializer "
                f"{type(self.initializer).__name__} has no dtype\n"
                "  hint: give the initializer a dtype attribute, or initialize the parameter first"
            )
        return configuration.get_dtype(self.initializer.dtype)

    @property
    def device(self):
        """The device of the array; before it is drawn, the one it will be drawn on."""
        if self.array is None:
            return get_device(self._initial_device)
        return super().device

    def initialize(self, shape) -> None:
        """Draw the array of ``shape`` from the initializer, and the grad as ``_grad_fill`` says
        (on a ChainerX device: drawn on its fallback device, and presented as ChainerX)."""
        device = self._initial_device
        chx = isinstance(device, ChainerxDevice)
        if chx:
            device, target = device.fallback_device, device
        self._take(initializers.generate_array(self.initializer, shape, device.xp, device=device))
        if chx:
            self._present(target.device)

    def _take(self, array) -> None:
        """Make ``array``, drawn for this parameter, its array, with the grad ``initialize`` gives."""
        self._grad_var = None
        self._set_array(array)
        if self._grad_fill is not None:
            self._grad_var = Variable._of(backend.xp(array).full_like(array, self._grad_fill))
        self._validate_grad()
        for ref in self.__dict__.get("_twins", ()):
            twin = ref()
            if twin is not None and twin is not self:
                if twin._grad_var is not None and twin._grad_var.shape != array.shape:
                    twin._grad_var = None  # a grad of the old shape has nothing left to add to
                twin._set_array(array)

    def cleargrad(self) -> None:
        """Forget the gradient; an uninitialized parameter will have none when it is drawn."""
        super().cleargrad()
        if self.array is None:
            self._grad_fill = None

    def _zero_grad(self) -> None:
        """Zero the gradient; an uninitialized parameter will have zeros when it is drawn."""
        super()._zero_grad()
        if self.array is None:
            self._grad_fill = 0.0

    def update(self) -> None:
        """Update this parameter with its update rule (set by the optimizer's ``setup``)."""
        if self.update_rule is not None:
            self.update_rule.update(self)

    def to_device(self, device) -> Parameter:
        if self.array is None:
            self._initial_device = get_device(device)
            return self
        return self._to_device(device, allow_unchaining=True)

    def to_chx(self) -> None:
        """As ``Variable.to_chx``; an uninitialized parameter will be drawn as ChainerX."""
        if self.array is None:
            if not isinstance(self._initial_device, ChainerxDevice):
                self._initial_device = ChainerxDevice.from_fallback_device(get_device(self._initial_device))
            return
        self._to_chx(allow_unchaining=True)

    def from_chx(self) -> None:
        """As ``Variable.from_chx``; an uninitialized parameter will be drawn as NumPy/CuPy."""
        if self.array is None:
            if isinstance(self._initial_device, ChainerxDevice):
                self._initial_device = self._initial_device.fallback_device
            return
        self._from_chx(allow_unchaining=True)

    def __copy__(self) -> Parameter:
        """A shallow copy sharing the array; as in Chainer, the two go on sharing it when either
        is initialized (``link.copy()`` of a lazy link gets the parameters its first call draws)."""
        new = _rebuild_parameter(*self.__reduce__()[1])
        twins = self.__dict__.setdefault("_twins", [weakref.ref(self)])
        twins[:] = [ref for ref in twins if ref() is not None]  # (copies made and dropped again)
        twins.append(weakref.ref(new))
        new._twins = twins
        return new

    def __reduce__(self):
        grad = self._grad_var
        return _rebuild_parameter, (
            self.array,
            self.name,
            None if grad is None else grad.array,
            self.initializer,
            self.update_rule,
            self._initial_device,
            self._grad_valid,
        )


def _rebuild_parameter(array, name, grad, initializer, update_rule, initial_device, grad_valid=True):
    """A Parameter from what ``Parameter.__reduce__`` saved (for copy and pickle)."""
    p = Parameter(initializer, name=name)
    if array is not None:
        p._set_array(array)
    p._grad_var = None if grad is None else Variable._of(grad)
    p._grad_valid = grad_valid
    p.update_rule = update_rule
    p._initial_device = initial_device
    return p


def as_variable(obj) -> Variable:
    """``obj`` itself if it is a Variable; otherwise a Variable of it that needs no gradient."""
    if isinstance(obj, Variable):
        return obj
    if type(obj) is Tracer:
        return Variable._of(obj)
    return Variable(obj, requires_grad=False)


def as_array(obj):
    """The array of ``obj`` (a Variable or an array)."""
    return obj.array if isinstance(obj, Variable) else obj


# The context every backward pass runs in (``set_backward_context``): fnet.compat's function
# hooks use it to see the pass as Chainer's hooks do.
_backward_context = contextlib.nullcontext


def set_backward_context(factory) -> None:
    """Run every backward pass inside ``factory()`` (a context manager)."""
    global _backward_context
    _backward_context = factory


def _backprop(
    outputs,
    grad_outputs,
    *,
    retain_grad: bool = False,
    create_graph: bool = False,
    inputs=None,
    loss_scale=None,
):
    """Run the engine from ``outputs`` and hand out the gradients.

    Without ``inputs``, every leaf variable reached gets its gradient added to ``.grad`` and is
    marked with ``loss_scale`` (the optimizer divides its grad by it, as Chainer's does); with
    ``inputs``, their gradients are returned instead (in order, None where none arrived).
    """
    roots = []
    for out, g in zip(outputs, grad_outputs):
        data = out._data
        if type(data) is Tracer and g is not None:
            roots.append((data, g._data if isinstance(g, Variable) else g))
    _refuse_old_style(root.record for root, _ in roots)
    wanted = None
    if inputs is not None:
        wanted = dict(owners.items()) if retain_grad else {}
        for v in inputs:
            data = v._data
            if type(data) is Tracer:
                wanted[data.record] = v
    elif retain_grad:
        wanted = dict(owners.items())
    keep = None if not wanted else wanted.__contains__
    if cut_records:  # the cut variables' records are leaves: keep their cotangents too
        keep = (
            cut_records.__contains__
            if not wanted
            else lambda record: record in cut_records or record in wanted
        )
    try:
        with _backward_context():
            cotangents = _run_backward(roots, create_graph=create_graph, keep=keep) if roots else {}
    except Exception as error:  # in debug mode, say where the failing function was applied
        if configuration.config.debug:
            _debug_stack.report_failed_backward(error)
        raise
    _refuse_old_style(cotangents)
    if inputs is not None:
        if retain_grad:  # the intermediate variables on the way get their gradients
            for record, ct in cotangents.items():
                variable = wanted.get(record) if not record.owned else None
                if variable is not None and variable._requires_grad:
                    variable._grad_var = Variable._of(ct)
        return [_to_grad(cotangents.get(v._data.record)) if type(v._data) is Tracer else None for v in inputs]
    for record, ct in cotangents.items():
        leaf = record.owned
        if leaf:
            variable = record.owner
        else:
            cut = cut_records.get(record) if cut_records else None
            leaf = cut is not None
            if leaf:
                variable = cut[0]()
            elif wanted:
                variable = wanted.get(record)
            else:
                continue
        # (a record of the shared ChainerX graph may stand for a chainerx.ndarray: not ours)
        if (
            not isinstance(variable, Variable)
            or not variable._requires_grad
            or any(variable is out for out in outputs)
        ):
            continue
        _check_grad(variable, ct, "backward")
        if leaf:
            variable._loss_scale = loss_scale
            _add_grad(variable, ct)  # leaves accumulate
        else:
            variable._grad_var = Variable._of(ct)
    return None


def _add_grad(variable: Variable, ct) -> None:
    """Add the cotangent ``ct`` to the gradient of the leaf ``variable``."""
    if variable._grad_var is not None:
        ct = variable._grad_var._data + ct
    variable._grad_var = Variable._of(ct)


def _take_chainerx_gradients(found: dict) -> None:
    """After ``chainerx.backward`` in the graph the layers share: each Variable that is an input
    of it (a leaf that requires grad) adds its gradient, as from ``Variable.backward``."""
    for record, ct in found.items():
        variable = record.owner
        if isinstance(variable, Variable) and variable._requires_grad:
            _add_grad(variable, ct)


on_shared_graph_gradients(_take_chainerx_gradients)


def _to_grad(ct):
    return None if ct is None else Variable._of(ct)


def backward(outputs, grad_outputs=None, **kwargs) -> None:
    """Backpropagate from several variables at once.

    ``grad_outputs`` default to the outputs' ``.grad_var``, which are used up (set to None);
    an output without one is left out with a RuntimeWarning (no default grad is made, even
    for a scalar), as in Chainer.
    """
    where = "chainer.backward"
    if not isinstance(outputs, (tuple, list)):
        raise TypeError(f"{where}: outputs must be a tuple or a list, got {type(outputs).__name__}")
    for out in outputs:
        if not isinstance(out, Variable):
            raise TypeError(f"{where}: each output must be a Variable, got {type(out).__name__}")
    if grad_outputs is not None:
        if not isinstance(grad_outputs, (tuple, list)):
            raise TypeError(
                f"{where}: grad_outputs must be None, a tuple or a list, got {type(grad_outputs).__name__}"
            )
        if len(outputs) != len(grad_outputs):
            raise ValueError(
                f"{where}: grad_outputs must be as long as outputs, got {len(grad_outputs)} for "
                f"{len(outputs)} outputs\n  hint: give one gradient (or None) per output"
            )
    options = _backward_options(kwargs)
    if grad_outputs is None:
        grad_outputs = []
        for out in outputs:
            g = out._grad_var
            if g is None:
                warnings.warn(
                    "outputs contains a Variable without grad, or duplicate outputs. Note that "
                    "chainer.backward does not set default grad.",
                    RuntimeWarning,
                    stacklevel=2,
                )
            out._grad_var = None
            grad_outputs.append(g)
    pairs = [(out, as_variable(g)) for out, g in zip(outputs, grad_outputs) if g is not None]
    _backprop([out for out, _ in pairs], [g for _, g in pairs], **options)


def _backward_options(kwargs) -> dict:
    unknown = set(kwargs) - {"enable_double_backprop", "retain_grad"}
    if unknown:
        raise TypeError(f"backward: unexpected keyword arguments {sorted(unknown)}")
    return {
        "create_graph": kwargs.get("enable_double_backprop", False),
        "retain_grad": kwargs.get("retain_grad", False),
    }


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    grad_inputs=None,
    set_grad: bool = False,
    retain_grad: bool = False,
    enable_double_backprop: bool = False,
    loss_scale=None,
):
    """The gradients of ``outputs`` with respect to ``inputs``, as a list of Variables.

    ``grad_outputs`` default to ones (times ``loss_scale``) of each output's shape, as in
    Chainer; ``grad_inputs`` are added to the results; ``set_grad`` also stores them in the
    inputs' ``.grad_var``.
    """
    named = (
        ("outputs", outputs),
        ("inputs", inputs),
        ("grad_outputs", grad_outputs),
        ("grad_inputs", grad_inputs),
    )
    for name, value in named:
        if value is not None and not isinstance(value, (tuple, list)):
            raise TypeError(f"chainer.grad: {name} must be a tuple or a list, got {type(value).__name__}")
    if grad_inputs is not None and len(grad_inputs) != len(inputs):
        raise ValueError(
            f"chainer.grad: grad_inputs must be as long as inputs, got {len(grad_inputs)} for "
            f"{len(inputs)} inputs"
        )
    outputs, inputs = list(outputs), list(inputs)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    elif len(grad_outputs) != len(outputs):
        raise ValueError(
            f"chainer.grad: grad_outputs must be as long as outputs, got {len(grad_outputs)} for "
            f"{len(outputs)} outputs"
        )
    seeds = []
    for out, g in zip(outputs, grad_outputs):
        if g is None:
            g = out.xp.ones_like(out.array)
            if loss_scale is not None:
                g *= loss_scale
        seeds.append(as_variable(g))
    # grad_inputs are the inputs' gradients so far: they start at the inputs and flow on, so an
    # input that another input depends on gets them too (Chainer's rule)
    given = [] if grad_inputs is None else [(x, gi) for x, gi in zip(inputs, grad_inputs) if gi is not None]
    starts = outputs + [x for x, _ in given]
    seeds += [as_variable(gi) for _, gi in given]
    results = _backprop(
        starts, seeds, inputs=inputs, create_graph=enable_double_backprop, retain_grad=retain_grad
    )
    if grad_inputs is not None:  # an input without a graph keeps what it was given
        results = [gi if r is None and gi is not None else r for r, gi in zip(results, grad_inputs)]
        results = [as_variable(r) if r is not None and not isinstance(r, Variable) else r for r in results]
    for x, r in zip(inputs, results):  # an input of ChainerX gets a gradient of ChainerX
        if r is not None and x._chx is not None and r._chx is None:
            r._present(x._chx.device)
    if set_grad:
        for x, r in zip(inputs, results):
            x._grad_var = r
    return results


def no_backprop_mode():
    """Within this block, operations on variables are computed without recording a graph
    (``using_config('enable_backprop', False)``; the core's ``fnet.no_grad()``)."""
    return configuration.using_config("enable_backprop", False)


def force_backprop_mode():
    """Within this block, operations are recorded even inside ``no_backprop_mode``
    (``using_config('enable_backprop', True)``)."""
    return configuration.using_config("enable_backprop", True)


def variable_repr(var) -> str:
    """Chainer's ``repr`` of a Variable (``variable name(values)``), as ``repr(var)`` gives it."""
    return var._text(repr_form=True)


def variable_str(var) -> str:
    """Chainer's ``str`` of a Variable (the values without the dtype), as ``str(var)`` gives it."""
    return var._text(repr_form=False)
