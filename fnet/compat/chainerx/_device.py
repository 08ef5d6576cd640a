"""Contexts, backends, devices and backprop IDs: ``native:N`` over NumPy, ``cuda:N`` over CuPy.

A Context owns its backends, made on first use, and its backprop IDs (each a trace level of
fnet's tape: a graph of its own); a backend owns its devices, so each name gives one Device.
The default context and device are per thread; the global default context is what a thread
that set none uses.
"""

from __future__ import annotations

import threading
import weakref

import numpy

from ...autodiff import new_level
from ...errors import message
from ._errors import BackendError, ChainerxError, ContextError, DeviceError

__all__ = [
    "CHAINER_LEVEL",
    "live_backprop_ids",
    "BackpropId",
    "Context",
    "Backend",
    "Device",
    "ContextScope",
    "DeviceScope",
    "get_backend",
    "get_device",
    "get_default_context",
    "set_default_context",
    "get_global_default_context",
    "set_global_default_context",
    "context_scope",
    "get_default_device",
    "set_default_device",
    "using_device",
]

CHAINER_LEVEL = 0  # the trace level fnet keeps for the Chainer layer (``fnet.autodiff.new_level``)
_NATIVE_DEVICES = 4  # ChainerX's native backend has four devices, all of them host memory


def _cupy():
    """CuPy, if it imports and sees a GPU; else None."""
    try:
        import cupy  # noqa: PLC0415 (optional dependency, looked up when the cuda backend is asked for)

        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # noqa: BLE001 (no CuPy, no driver, no device: all mean "no cuda backend")
        return None


class Device:
    """One device of a backend: where an array's data lives (``xp`` holds its array module)."""

    __slots__ = ("backend", "index", "name", "xp", "__weakref__")

    def __init__(self, backend: Backend, index: int):
        self.backend = backend
        self.index = index
        self.name = f"{backend.name}:{index}"
        self.xp = backend.xp

    @property
    def context(self) -> Context:
        return self.backend.context

    def synchronize(self) -> None:
        """Wait for the device's pending work (none on the host)."""
        if self.backend.name == "cuda":
            with self.xp.cuda.Device(self.index):
                self.xp.cuda.Device(self.index).synchronize()

    def __reduce__(self):
        return (_device_by_name, (self.name,))

    def __deepcopy__(self, memo):
        return self

    def __repr__(self):
        return f"native:{self.index}" if self.backend.name == "native" else self.name

    __str__ = __repr__


def _device_by_name(name: str) -> Device:
    return get_device(name)


class Backend:
    """A family of devices (``native`` or ``cuda``) in one context."""

    def __init__(self, context: Context, name: str, xp, count: int):
        self.context = context
        self.name = name
        self.xp = xp
        self._count = count
        self._devices: dict[int, Device] = {}
        self._lock = threading.Lock()

    def get_device_count(self) -> int:
        return self._count

    def get_device(self, index: int) -> Device:
        """The device of this backend with ``index`` (0 ≤ index < ``get_device_count()``)."""
        if not 0 <= index < self._count:
            raise DeviceError(
                message(
                    f"Backend({self.name!r}).get_device",
                    f"expected a device index in [0, {self._count}), got {index}",
                    hint=f"there are {self._count} {self.name} devices",
                )
            )
        device = self._devices.get(index)
        if device is None:
            with self._lock:
                device = self._devices.setdefault(index, Device(self, index))
        return device

    def __repr__(self):
        return f"<chainerx.Backend {self.name}>"


# the live backprop IDs by their trace level (an array's repr names its graphs with them)
live_backprop_ids: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


class BackpropId:
    """The name of one graph: arrays record on its own trace level of fnet's tape."""

    __slots__ = ("context", "name", "tape_level", "alive", "arrays", "__weakref__")

    def __init__(self, context: Context, name: str, tape_level: int | None = None):
        self.context = context
        self.name = name
        self.tape_level = new_level() if tape_level is None else tape_level
        self.alive = True
        # the arrays whose gradient this graph keeps, by the Record that stands for them
        self.arrays: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        live_backprop_ids[self.tape_level] = self

    def _expire(self) -> None:
        self.alive = False
        self.arrays.clear()

    def _check(self, context: Context) -> None:
        if not self.alive or self.context is not context:
            why = (
                "it was released (its backprop_scope ended)" if not self.alive else "it is of another context"
            )
            raise ChainerxError(
                message(
                    "backprop ID",
                    f"expected a live backprop ID of this context, got {self!r}: {why}",
                    hint="use the ID inside the chainerx.backprop_scope that made it",
                )
            )

    def __repr__(self):
        return f"<BackpropId name='{self.name}'>" if self.alive else "<BackpropId (expired)>"


class Context:
    """The owner of backends, devices and backprop IDs."""

    def __init__(self):
        self._init(None)

    def _init(self, default_level: int | None) -> None:
        self._backends: dict[str, Backend] = {}
        self._lock = threading.Lock()
        self.default_backprop_id = BackpropId(self, "<default>", default_level)

    @classmethod
    def _sharing_chainer_graph(cls) -> Context:
        """A context whose default graph is the Chainer layer's (trace level 0), so that an array
        in it and a ``chainer.Variable`` over it are one node of the tape: the global default
        context, as in Chainer, where a Variable's graph is its ChainerX array's."""
        context = cls.__new__(cls)
        context._init(CHAINER_LEVEL)
        return context

    def get_backend(self, name: str) -> Backend:
        """The backend ``name`` (``native``, or ``cuda`` where CuPy sees a GPU)."""
        backend = self._backends.get(name)
        if backend is not None:
            return backend
        if name == "native":
            backend = Backend(self, "native", numpy, _NATIVE_DEVICES)
        elif name == "cuda" and (cupy := _cupy()) is not None:
            backend = Backend(self, "cuda", cupy, cupy.cuda.runtime.getDeviceCount())
        else:
            raise BackendError(
                message(
                    "Context.get_backend",
                    f"expected 'native' or 'cuda' (with CuPy and a GPU), got {name!r}",
                    hint="use 'native' on the CPU; 'cuda' needs CuPy and an NVIDIA GPU",
                )
            )
        with self._lock:
            return self._backends.setdefault(name, backend)

    def get_device(self, name, index: int | None = None) -> Device:
        """The device ``'backend:index'``, ``('backend', index)`` or ``'backend'`` (index 0)."""
        if isinstance(name, Device):
            return name
        if not isinstance(name, str):
            raise DeviceError(
                message(
                    "get_device",
                    f"expected a device name such as 'native:0' or a Device, got {name!r}",
                    hint="pass 'native:0' (or 'cuda:0' with CuPy)",
                )
            )
        if index is None:
            backend_name, _, text = name.partition(":")
            try:
                index = int(text) if text else 0
            except ValueError:
                raise DeviceError(
                    message(
                        "get_device",
                        f"expected a device name 'backend:index', got {name!r}",
                        hint="write the index as a number: 'native:0'",
                    )
                ) from None
        else:
            backend_name = name
        return self.get_backend(backend_name).get_device(index)

    def make_backprop_id(self, backprop_name: str):
        """A new backprop ID named ``backprop_name`` (a graph of its own)."""
        return BackpropId(self, backprop_name)

    def release_backprop_id(self, backprop_id) -> None:
        """End ``backprop_id``: it no longer names a graph."""
        backprop_id._expire()

    def _check_valid_backprop_id(self, backprop_id) -> None:
        backprop_id._check(self)


class _Defaults(threading.local):
    context: Context | None
    device: Device | None
    set_context = False

    def __init__(self):
        self.device = None


_global_context: list = [None]  # a list: set_global_default_context rebinds its one slot
_defaults = _Defaults()


def _no_context(where: str) -> ContextError:
    return ContextError(
        message(
            where,
            "no default context is set (expected a chainerx.Context, got None)",
            hint="call chainerx.set_default_context(chainerx.Context()) or set a global one",
        )
    )


def get_global_default_context() -> Context:
    context = _global_context[0]
    if context is None:
        raise _no_context("get_global_default_context")
    return context


def set_global_default_context(context: Context | None) -> None:
    _global_context[0] = context


def get_default_context() -> Context:
    """This thread's default context, else the global default context."""
    context = _defaults.context if _defaults.set_context else None
    if context is None:
        context = _global_context[0]
        if context is None:
            raise _no_context("get_default_context")
    return context


def set_default_context(context: Context | None) -> None:
    """Set this thread's default context (None: follow the global one); resets its default device
    when the context changes."""
    if not _defaults.set_context or _defaults.context is not context:
        _defaults.device = None
    _defaults.context = context
    _defaults.set_context = True


class ContextScope:
    """``with``: make ``context`` this thread's default context, and restore the previous one."""

    def __init__(self, context: Context):
        self._context = context
        self._saved: list = []

    def __enter__(self):
        self._saved.append((_defaults.set_context, getattr(_defaults, "context", None), _defaults.device))
        _defaults.context = self._context
        _defaults.set_context = True
        _defaults.device = None

    def __exit__(self, *exc):
        _defaults.set_context, _defaults.context, _defaults.device = self._saved.pop()


def context_scope(context: Context) -> ContextScope:
    return ContextScope(context)


def get_backend(name: str) -> Backend:
    return get_default_context().get_backend(name)


def get_device(*args) -> Device:
    """``get_device()``: the default device; ``get_device(device)``; ``get_device('native:0')``;
    ``get_device('native', 0)``."""
    if not args or (len(args) == 1 and args[0] is None):
        return get_default_device()
    if isinstance(args[0], Device):
        return args[0]
    return get_default_context().get_device(*args)


def get_default_device() -> Device:
    """This thread's default device (``native:0`` of the default context unless set)."""
    device = _defaults.device
    if device is None:
        device = get_default_context().get_device("native", 0)
        _defaults.device = device
    return device


def set_default_device(device) -> None:
    _defaults.device = get_device(device)


class DeviceScope:
    """``with``: make ``device`` this thread's default device, and restore the previous one."""

    def __init__(self, device: Device):
        self.device = device
        self._saved: list = []

    def __enter__(self) -> DeviceScope:
        self._saved.append(_defaults.device)
        _defaults.device = self.device
        return self

    def __exit__(self, *exc):
        _defaults.device = self._saved.pop()


def using_device(device, index: int | None = None) -> DeviceScope:
    return DeviceScope(get_device(device) if index is None else get_device(device, index))
