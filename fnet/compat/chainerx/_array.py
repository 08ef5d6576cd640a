"""``chainerx.ndarray``: a NumPy/CuPy array on a device, in the graphs of its backprop IDs.

The array holds its value as fnet's tape sees it (``_v``: the raw array boxed in one Tracer per
graph, see ``_graph``), its Device, and, per backprop ID whose gradient it keeps, that gradient
(``_grads``). Routines are fnet's ops run by ``run`` on the unwrapped values; there is no second
autograd. Methods that are routines (``sum``, ``reshape``, operators) are installed by the
routine modules from their tables.
"""

from __future__ import annotations

import numpy

from ... import backend, ops
from ...autodiff import Tracer, primitive, unbox_all
from ...errors import message
from ...functions.array import pass_through
from . import _graph
from ._device import (
    BackpropId,
    Device,
    get_default_context,
    get_default_device,
    get_device,
    live_backprop_ids,
)
from ._dtypes import to_dtype
from ._errors import ChainerxError, DeviceError, DimensionError, DtypeError, GradientError

__all__ = ["ndarray", "run", "wrap", "raw", "in_numpy_layout", "resolve_backprop_id", "anygraph", "AnyGraph"]


class AnyGraph:
    """The type of ``chainerx.anygraph``: "any backprop ID" in ``is_backprop_required``."""

    def __repr__(self):
        return "chainerx.anygraph"


anygraph = AnyGraph()


def resolve_backprop_id(backprop_id) -> BackpropId:
    """``backprop_id``, or the default context's default ID for None; checked to be live."""
    context = get_default_context()
    if backprop_id is None:
        return context.default_backprop_id
    if not isinstance(backprop_id, BackpropId):
        raise TypeError(
            message(
                "backprop_id",
                f"expected a chainerx.BackpropId or None, got {type(backprop_id).__name__}",
                hint="make one with chainerx.backprop_scope('name')",
            )
        )
    backprop_id._check(backprop_id.context)
    return backprop_id


def _fresh(value, device: Device) -> ndarray:
    array = object.__new__(ndarray)
    array._v = value
    array._device = device
    array._grads = None
    return array


def wrap(value, device: Device):
    """An ndarray (a tuple of them for a tuple) holding ``value``: results of fnet's ops."""
    if type(value) in (tuple, list):
        return tuple(wrap(v, device) for v in value)
    if type(value) is Tracer:
        data = unbox_all(value)
        if not isinstance(data, device.xp.ndarray):  # a NumPy scalar: boxed again as a 0-d array
            value = _graph.rebox(device.xp.asarray(data), value)
    elif not isinstance(value, device.xp.ndarray):
        value = device.xp.asarray(value)
    return _fresh(value, device)


def in_numpy_layout(array, data):
    """``array`` (a routine's result) holding ``data`` instead: the same values as NumPy lays
    them out (a view's strides), on the same node of each graph."""
    array._v = _graph.rebox(data, array._v)
    return array


def raw(array):
    """The raw NumPy/CuPy array of an ndarray (the operand itself for anything else)."""
    return unbox_all(array._v) if type(array) is ndarray else array


def _mixed_devices(name: str, first: Device, other: Device) -> DeviceError:
    return DeviceError(
        message(
            name,
            f"expected all arrays on one device, got arrays on {first.name} and {other.name}",
            hint="move them to one device first: a.to_device(b.device)",
        )
    )


def unwrap(name: str, args) -> tuple[list, Device | None]:
    """The values of ``args`` (ndarrays unwrapped, lists and tuples of ndarrays too) and their
    one device; a DeviceError for arrays on several devices."""
    device = None
    values = []
    mode = _graph.mode()
    for arg in args:
        if type(arg) is ndarray:
            if device is None:
                device = arg._device
            elif arg._device is not device:
                raise _mixed_devices(name, device, arg._device)
            value = arg._v
            if mode is not None and type(value) is Tracer:
                value = _graph.strip(value, _graph.recording)
            values.append(value)
        elif type(arg) in (list, tuple) and arg and any(type(a) is ndarray for a in arg):
            inner, inner_device = unwrap(name, arg)
            if device is None:
                device = inner_device
            elif inner_device is not None and inner_device is not device:
                raise _mixed_devices(name, device, inner_device)
            values.append(inner)
        else:
            values.append(arg)
    return values, device


def run(name: str, fn, *args, **params):
    """``fn`` (an fnet op) on the unwrapped ``args``, its result wrapped on their device."""
    values, device = unwrap(name, args)
    return wrap(fn(*values, **params), device or get_default_device())


def _require_scalar(array, what: str):
    data = raw(array)
    if data.size != 1:
        raise DimensionError(
            message(
                f"ndarray.{what}",
                f"expected an array of one element, got shape {data.shape}",
                hint="index one element first, or use .item() on a one-element array",
            )
        )
    return data


class ndarray:  # noqa: N801 (ChainerX's name)
    """ChainerX's array: data on a device, differentiable in the graphs it requires grad in.

    ``ndarray(shape, dtype, device=None)`` makes an uninitialized array (as ``numpy.empty``).
    """

    __slots__ = ("_v", "_device", "_grads", "__weakref__")
    __array_priority__ = 2000.0

    def __init__(self, shape, dtype, device=None):
        device = get_device(device)
        dtype = to_dtype(dtype)
        self._v = device.xp.empty((shape,) if isinstance(shape, int) else tuple(shape), dtype)
        self._device = device
        self._grads = None

    # -- the data ---------------------------------------------------------------------------
    shape = property(lambda self: raw(self).shape, doc="The shape, a tuple.")
    dtype = property(lambda self: raw(self).dtype, doc="The dtype (a numpy.dtype).")
    ndim = property(lambda self: raw(self).ndim, doc="The number of axes.")
    size = property(lambda self: raw(self).size, doc="The number of elements.")
    itemsize = property(lambda self: raw(self).itemsize, doc="The bytes of one element.")
    nbytes = property(lambda self: raw(self).nbytes, doc="The bytes of all elements.")
    strides = property(lambda self: raw(self).strides, doc="The strides in bytes.")
    device = property(lambda self: self._device, doc="The Device the data is on.")
    is_contiguous = property(lambda self: bool(raw(self).flags.c_contiguous), doc="C-contiguous?")

    @property
    def _base(self):
        data = raw(self)
        while data.base is not None and isinstance(data.base, type(data)):
            data = data.base
        return data

    @property
    def data_ptr(self) -> int:
        """The address of the data's allocation."""
        return _address(self._base)

    @property
    def offset(self) -> int:
        """The bytes from ``data_ptr`` to the first element."""
        return _address(raw(self)) - self.data_ptr

    @property
    def data_size(self) -> int:
        """The bytes of the data's allocation."""
        return self._base.nbytes

    @property
    def _debug_data_memory_address(self) -> int:
        return _address(raw(self))

    @property
    def _debug_flat_data(self) -> list:
        return numpy.asarray(backend.to_cpu(raw(self))).ravel().tolist()

    def __len__(self):
        data = raw(self)
        if data.ndim == 0:
            raise TypeError("len() of a 0-dimensional chainerx.ndarray")
        return data.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __bool__(self):
        return bool(_require_scalar(self, "__bool__").item())

    def __int__(self):
        return int(_require_scalar(self, "__int__").item())

    def __float__(self):
        return float(_require_scalar(self, "__float__").item())

    def __index__(self):
        data = _require_scalar(self, "__index__")
        if data.dtype.kind not in "iub":
            raise TypeError("only integer chainerx arrays can be used as an index")
        return int(data.item())

    def item(self):
        """The one element as a Python scalar."""
        return _require_scalar(self, "item").item()

    def tolist(self):
        return backend.to_cpu(raw(self)).tolist()

    def __array__(self, dtype=None, copy=None):
        data = backend.to_cpu(raw(self))
        return data if dtype is None else data.astype(dtype)

    def __repr__(self):
        data = backend.to_cpu(raw(self))
        body = numpy.array2string(data, separator=", ", prefix="array(")
        text = f"array({body}, shape={data.shape}, dtype={data.dtype}, device='{self._device.name}'"
        levels = _graph.records(self._v)
        if levels:
            names = [_backprop_name(level) for level in sorted(levels)]
            text += f", backprop_ids={names}"
        return text + ")"

    __str__ = __repr__

    def __reduce__(self):
        return (_rebuild, (backend.to_cpu(raw(self)), self._device.name))

    def __deepcopy__(self, memo):
        copied = _fresh(raw(self).copy(), self._device)
        memo[id(self)] = copied
        return copied

    def __copy__(self):
        return self.view()

    # -- copies, views, devices -------------------------------------------------------------
    def view(self) -> ndarray:
        """An array sharing this one's data, connected to the same graphs (not requiring grad)."""
        value = self._v
        if type(value) is Tracer:
            return run("view", _same, self)
        return _fresh(value.view(), self._device)

    def copy(self) -> ndarray:
        """A C-contiguous copy, connected to this array's graphs."""
        return run("copy", _contiguous_copy, self)

    def to_device(self, device, index=None) -> ndarray:
        """This array on ``device`` (a Device, ``'native:1'``, or ``('native', 1)``); itself when
        it is there already."""
        target = get_device(device) if index is None else get_device(device, index)
        if target is self._device:
            return self
        value = self._v
        if target.backend is not self._device.backend:
            value = (
                backend.to_cpu(unbox_all(value))
                if target.xp is numpy
                else target.xp.asarray(unbox_all(value))
            )
            if target.backend.name == "cuda":
                with target.xp.cuda.Device(target.index):
                    value = target.xp.array(value)
            return _fresh(value, target)
        return wrap(_contiguous_copy(value), target)  # a contiguous copy, in the graphs of this array

    def astype(self, dtype, copy=True) -> ndarray:
        """This array cast to ``dtype`` (itself, when it has the dtype and ``copy`` is False)."""
        dtype = to_dtype(dtype)
        if dtype == self.dtype:
            return self.copy() if copy else self
        return run("astype", _astype, self, dtype=dtype)

    def as_grad_stopped(self, backprop_ids=None, copy=False) -> ndarray:
        """This array cut from the graphs ``backprop_ids`` (all, when None); a copy if ``copy``."""
        value = self._v
        if backprop_ids is None:
            stopped = unbox_all(value)
        else:
            levels = {resolve_backprop_id(b).tape_level for b in backprop_ids}
            stopped = _graph.strip(value, lambda level: level not in levels)
        # a node of its own in the graphs that remain (the data copied, or shared by a view)
        if copy:
            return wrap(_contiguous_copy(stopped), self._device)
        return wrap(_same(stopped) if type(stopped) is Tracer else stopped.view(), self._device)

    def fill(self, value) -> None:
        """Set every element to ``value``, in place."""
        self._check_in_place("fill")
        raw(self).fill(value)

    def _check_in_place(self, name: str) -> None:
        if type(self._v) is Tracer:
            raise ChainerxError(
                message(
                    f"ndarray.{name}",
                    "expected an array in no graph for an in-place update, got one in a graph",
                    hint="use the out-of-place form (a = a + b), or a.as_grad_stopped() first",
                )
            )

    # -- gradients --------------------------------------------------------------------------
    def require_grad(self, backprop_id=None) -> ndarray:
        """Keep this array's gradient in graph ``backprop_id`` (an input of it if it is in none)."""
        bid = resolve_backprop_id(backprop_id)
        grads = self._grads
        if grads is not None and bid in grads:
            return self
        if self.dtype.kind != "f":
            raise DtypeError(
                message(
                    "ndarray.require_grad",
                    f"expected a float array, got dtype {self.dtype}",
                    hint="only float arrays have gradients: cast with a.astype(chainerx.float32)",
                )
            )
        record = _graph.level_records(self._v, bid.tape_level)
        if record is None:
            self._v, record = _graph.with_input(self._v, bid.tape_level, self)
        bid.arrays[record] = self
        if grads is None:
            self._grads = grads = {}
        grads[bid] = None
        return self

    def is_grad_required(self, backprop_id=None) -> bool:
        grads = self._grads
        return grads is not None and resolve_backprop_id(backprop_id) in grads

    def is_backprop_required(self, backprop_id=None) -> bool:
        """Whether this array is in graph ``backprop_id`` (any graph: ``chainerx.anygraph``)
        and that graph records now."""
        if backprop_id is anygraph:
            return any(_graph.recording(t.level) for t in _graph.tracers(self._v))
        bid = resolve_backprop_id(backprop_id)
        return _graph.at_level(self._v, bid.tape_level) is not None and _graph.recording(bid.tape_level)

    def _is_chained(self, backprop_id=None) -> bool:
        """Whether this array is the output of a routine in graph ``backprop_id`` (False for an
        input of it); a ChainerxError when the array is not in that graph."""
        bid = resolve_backprop_id(backprop_id)
        tracer = _graph.at_level(self._v, bid.tape_level)
        if tracer is None:
            raise ChainerxError(
                message(
                    "ndarray._is_chained",
                    f"expected an array in graph {bid.name!r}, got one outside it",
                    hint="call a.require_grad() first",
                )
            )
        return tracer.record.primitive is not None

    def _grad_slot(self, backprop_id, what: str) -> BackpropId:
        bid = resolve_backprop_id(backprop_id)
        if self._grads is None or bid not in self._grads:
            raise ChainerxError(
                message(
                    f"ndarray.{what}",
                    f"expected an array that requires grad in {bid.name!r}, got one that does not",
                    hint="call a.require_grad() (with the backprop ID) first",
                )
            )
        return bid

    def get_grad(self, backprop_id=None):
        """The gradient kept in graph ``backprop_id`` (None if none yet)."""
        return self._grads[self._grad_slot(backprop_id, "get_grad")]

    def set_grad(self, grad, backprop_id=None) -> None:
        """Set (``None``: clear) the gradient kept in graph ``backprop_id``; an array in that
        graph (an output, before backward) starts to require grad there."""
        bid = resolve_backprop_id(backprop_id)
        record = _graph.level_records(self._v, bid.tape_level)
        if record is not None and (self._grads is None or bid not in self._grads):
            bid.arrays[record] = self
            if self._grads is None:
                self._grads = {}
            self._grads[bid] = None
        bid = self._grad_slot(bid, "set_grad")
        if grad is not None:
            self._check_grad(grad)
        self._grads[bid] = grad

    def cleargrad(self, backprop_id=None) -> None:
        self._grads[self._grad_slot(backprop_id, "cleargrad")] = None

    def _check_grad(self, grad) -> None:
        if type(grad) is not ndarray:
            raise GradientError(
                message("ndarray.set_grad", f"expected a chainerx.ndarray, got {type(grad).__name__}")
            )
        problems = []
        if grad.shape != self.shape:
            problems.append(f"shape {self.shape}, got {grad.shape}")
        if grad.dtype != self.dtype:
            problems.append(f"dtype {self.dtype}, got {grad.dtype}")
        if grad.device is not self.device:
            problems.append(f"device {self.device.name}, got {grad.device.name}")
        if problems:
            raise GradientError(
                message(
                    "ndarray.set_grad",
                    "the gradient must match its array: expected " + "; ".join(problems),
                    hint="reshape, cast or move the gradient to the array's shape, dtype and device",
                )
            )

    grad = property(
        lambda self: self.get_grad(),
        lambda self, value: self.set_grad(value),
        doc="The gradient in the default graph (get_grad()/set_grad()).",
    )

    def _set_grad_unchecked(self, bid: BackpropId, grad) -> None:
        """Backward's store: adds to a gradient that is already there."""
        present = self._grads.get(bid)
        self._grads[bid] = grad if present is None else run("backward", _accumulate, present, grad)

    @property
    def T(self) -> ndarray:  # noqa: N802 (NumPy's name)
        return run("T", _transpose, self)


@primitive(name="chainerx.copy")
def _contiguous_copy(x):
    """A C-contiguous copy of ``x``'s data; the gradient passes through."""
    return x.copy(order="C")


_contiguous_copy.defvjp(lambda g, ans, x: g)
_same = pass_through  # the same data, as the output of a node of its own
_astype = ops.astype
_transpose = ops.transpose
_accumulate = ops.add


def _address(data) -> int:
    if isinstance(data, numpy.ndarray):
        return data.__array_interface__["data"][0]
    return int(data.data.ptr)


def _rebuild(data, device_name: str) -> ndarray:
    device = get_device(device_name)
    return _fresh(device.xp.asarray(data), device)


def _backprop_name(level: int) -> str:
    context = get_default_context()
    if context.default_backprop_id.tape_level == level:
        return "<default>"
    bid = live_backprop_ids.get(level)
    return "<expired>" if bid is None or not bid.alive else bid.name
