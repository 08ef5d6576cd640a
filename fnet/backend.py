"""Array backends: NumPy on the CPU, CuPy on NVIDIA GPUs (when installed).

``xp(*arrays)`` picks the array module of the operands, so each primitive is written once for
both. Devices are small value objects (``@numpy``, ``@cupy:0``) that move pytrees of arrays.
Nothing imports CuPy unless it is installed and asked for.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import os
import platform

import attrs
import numpy

from . import tree as _tree
from .errors import DeviceError, message

__all__ = [
    "xp",
    "cupy_available",
    "cupy_problem",
    "require_cupy",
    "CupyProblem",
    "is_array",
    "register_array_type",
    "Device",
    "CpuDevice",
    "GpuDevice",
    "get_device",
    "get_device_from_array",
    "check_same_device",
    "to_device",
    "to_cpu",
    "using_device",
    "current_device",
    "tune_host_allocator",
]


@attrs.frozen
class CupyProblem:
    """Why CuPy cannot be used: ``reason`` (CuPy's own error text kept in it), a ``hint``, and the
    exception CuPy raised (None when there was none, e.g. CuPy is not installed)."""

    reason: str
    hint: str
    error: BaseException | None = None


_INSTALL_HINT = "install the 'cuda' extra (pip install 'fnet-chainer[cuda]') on a machine with an NVIDIA GPU"
_BROKEN_HINT = (
    "CuPy is installed but cannot reach CUDA: check the NVIDIA driver (nvidia-smi), that the CuPy "
    "package matches the CUDA version (e.g. cupy-cuda12x for CUDA 12), and CUDA_VISIBLE_DEVICES"
)

# None until CuPy is probed, then (the cupy module or None, the CupyProblem or None)
_cupy_state: tuple | None = None


def _probe_cupy() -> tuple:
    """Import CuPy and count its devices: ``(cupy, None)`` if it works, else ``(None, problem)``."""
    try:
        import cupy
    except ModuleNotFoundError as error:
        if error.name == "cupy":
            return None, CupyProblem("CuPy is not installed", _INSTALL_HINT)
        return None, CupyProblem(f"import cupy failed: {type(error).__name__}: {error}", _BROKEN_HINT, error)
    except Exception as error:  # a broken install, a missing CUDA library...
        return None, CupyProblem(f"import cupy failed: {type(error).__name__}: {error}", _BROKEN_HINT, error)
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # no driver, a driver older than the CUDA runtime...
        reason = f"CuPy could not count the CUDA devices: {type(error).__name__}: {error}"
        return None, CupyProblem(reason, _BROKEN_HINT, error)
    if count < 1:
        return None, CupyProblem("CuPy sees no CUDA device (getDeviceCount() == 0)", _BROKEN_HINT)
    return cupy, None


def _load_cupy():
    """The cupy module if it is installed and sees a device, else None (probed once)."""
    global _cupy_state
    if _cupy_state is None:
        _cupy_state = _probe_cupy()
    return _cupy_state[0]


def cupy_available() -> bool:
    """Whether CuPy is installed and a CUDA device is visible."""
    return _load_cupy() is not None


def cupy_problem() -> CupyProblem | None:
    """Why CuPy cannot be used (CuPy's own error text included), or None when it can."""
    _load_cupy()
    return _cupy_state[1]


def require_cupy(where: str):
    """The cupy module; or a ``RuntimeError`` that starts with ``where``, gives the reason (CuPy's
    own error, which it is chained from) and a hint."""
    cupy = _load_cupy()
    if cupy is not None:
        return cupy
    problem = _cupy_state[1]
    raise RuntimeError(f"{where}: {problem.reason}\n  hint: {problem.hint}") from problem.error


def xp(*arrays):
    """The array module (numpy or cupy) of the given operands; numpy when none is a GPU array."""
    for a in arrays:
        while hasattr(a, "record"):  # look through tracers, of every level
            a = a.value
        kind = type(a)
        if kind is not numpy.ndarray:
            if kind.__module__.startswith("cupy"):
                return _load_cupy()
            module_of = _module_of.get(kind)
            if module_of is not None and (module := module_of(a)) is not numpy:
                return module
    return numpy


_array_types: tuple = (numpy.ndarray, numpy.generic)
_module_of: dict = {}


def register_array_type(cls: type) -> None:
    """Have ``is_array`` count instances of ``cls``: a stand-in that acts as an array
    (``fnet.capture`` records what is done to its ``CapturedArray``)."""
    global _array_types
    _array_types = (*_array_types, cls)


def register_array_module(cls: type, module_of) -> None:
    """Have ``xp`` answer ``module_of(x)`` for an ``x`` of type ``cls`` (numpy: look at the other
    operands): a captured array on a device records the calls made on its module. Such an ``x``
    holds the array it stands for in ``x.value`` (where ``check_same_device`` looks)."""
    _module_of[cls] = module_of


def is_array(x) -> bool:
    """Whether ``x`` is a NumPy or CuPy array (NumPy scalars, which act as 0-d arrays, count)."""
    return isinstance(x, _array_types) or type(x).__module__.startswith("cupy")


@attrs.frozen
class Device:
    """Where arrays live. ``xp`` is its array module; ``send`` moves one array there."""

    def send(self, array):  # pragma: no cover - overridden
        raise TypeError(f"{self!r} cannot hold arrays")


@attrs.frozen
class CpuDevice(Device):
    """The host, with NumPy arrays."""

    @property
    def xp(self):
        return numpy

    def send(self, array):
        if type(array).__module__.startswith("cupy"):  # a cupy array (as xp tells them)
            return array.get()
        if isinstance(array, _array_types) or numpy.isscalar(array):  # host arrays (and stand-ins)
            return array
        return numpy.asarray(array)

    def __str__(self):
        return "@numpy"


@attrs.frozen
class GpuDevice(Device):
    """A CUDA device, with CuPy arrays."""

    id: int = 0

    @property
    def xp(self):
        return require_cupy(f"{self}: CuPy with a CUDA device is not available")

    def send(self, array):
        cupy = self.xp
        if type(array) in _module_of and get_device_from_array(array) == self:
            return array  # a stand-in (a captured array) of an array already here
        with cupy.cuda.Device(self.id):
            return cupy.asarray(array)

    def __str__(self):
        return f"@cupy:{self.id}"


CPU = CpuDevice()
_current: contextvars.ContextVar[Device] = contextvars.ContextVar("fnet_device", default=CPU)


def get_device(spec) -> Device:
    """A device from a spec: a Device, ``'@numpy'``, ``'@cupy:0'``, ``'cpu'``, or a GPU id (negative: CPU)."""
    if isinstance(spec, Device):
        return spec
    if isinstance(spec, bool):
        raise TypeError(f"get_device: a device spec cannot be a bool, got {spec!r}")
    if spec is None or (isinstance(spec, str) and spec in ("@numpy", "cpu", "numpy")):
        return CPU
    if isinstance(spec, (int, numpy.integer)):
        return CPU if spec < 0 else GpuDevice(int(spec))  # Chainer: any negative id is the CPU
    if isinstance(spec, str) and spec.startswith("@cupy"):
        ident = spec[len("@cupy:") :]
        if spec == "@cupy" or (spec.startswith("@cupy:") and ident.isdigit()):
            return GpuDevice(int(ident or 0))
    raise ValueError(
        f"get_device: unknown device spec {spec!r}; use '@numpy', '@cupy:N', a GPU id, or -1 for the CPU"
    )


def get_device_from_array(array) -> Device:
    """The device an array lives on."""
    if xp(array) is numpy:
        return CPU
    return GpuDevice(array.device.id)


def _device_name(x) -> str | None:
    """``'@numpy'``, ``'@cupy:N'``, or None for a scalar (which goes with any device)."""
    if type(x).__module__.startswith("cupy"):
        return f"@cupy:{x.device.id}"
    if isinstance(x, numpy.ndarray):
        return "@numpy"
    return None


def check_same_device(op: str, operands: dict) -> None:
    """Raise a ``DeviceError`` naming both devices if the arrays among ``operands`` (name ->
    value) do not all live on one device. Scalars and NumPy scalars go with any device."""
    seen = {}
    for name, value in operands.items():
        while hasattr(value, "record") or type(value) in _module_of:  # through tracers, stand-ins
            value = value.value
        device = _device_name(value)
        if device is not None:
            seen.setdefault(device, name)
    if len(seen) > 1:
        (first, a), (second, b) = list(seen.items())[:2]
        raise DeviceError(
            message(
                op,
                f"operands live on different devices: {a} on {first}, {b} on {second}",
                operands,
                f"move one of them first, e.g. {b} = fnet.backend.to_device({b}, '{first}') "
                f"(or fnet.backend.to_cpu)",
            )
        )


def current_device() -> Device:
    """The device chosen by the innermost ``using_device`` (the CPU by default)."""
    return _current.get()


@contextlib.contextmanager
def using_device(spec):
    """Make a device current within a ``with`` block (and, for GPUs, CuPy's current device)."""
    device = get_device(spec)
    token = _current.set(device)
    try:
        if isinstance(device, GpuDevice):
            with device.xp.cuda.Device(device.id):
                yield device
        else:
            yield device
    finally:
        _current.reset(token)


def to_device(tree, device):
    """Move every array leaf of a pytree to ``device``; other leaves are kept as they are."""
    device = get_device(device)
    return _tree.map(lambda x: device.send(x) if is_array(x) else x, tree)


def to_cpu(tree):
    """Move every array leaf of a pytree to the host (NumPy)."""
    return to_device(tree, CPU)


_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers
_M_MMAP_THRESHOLD = -3


def tune_host_allocator(mmap_threshold: int = 32 << 20, trim_threshold: int = 256 << 20) -> bool:
    """Let glibc's malloc keep freed array memory for reuse instead of returning it to the OS.

    Pure training steps make new parameter and gradient arrays every step. With glibc's
    default, dynamic thresholds, arrays of a few MB are mapped and unmapped (or the heap is
    trimmed) over and over, and every step pays thousands of page faults (measured: a
    784-1000-1000-10 MLP step went from 13.6 ms to 19 ms). Fixed thresholds keep arrays up to
    ``mmap_threshold`` in the heap and keep up to ``trim_threshold`` of free heap mapped.

    This changes a setting of the whole process, so fnet never does it by itself: call it at
    the start of a training program, or set ``FNET_TUNE_MALLOC=1`` in the environment to have
    ``import fnet`` call it (glibc's own ``MALLOC_MMAP_THRESHOLD_`` / ``MALLOC_TRIM_THRESHOLD_``
    take precedence then). Returns whether it applied (only on Linux with glibc).
    """
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    return bool(libc.mallopt(_M_MMAP_THRESHOLD, mmap_threshold)) and bool(
        libc.mallopt(_M_TRIM_THRESHOLD, trim_threshold)
    )


def _tune_host_allocator_if_asked() -> None:
    """``tune_host_allocator()`` at import, only where the environment asks for it."""
    env = os.environ
    if env.get("FNET_TUNE_MALLOC", "0") != "1":
        return
    if "MALLOC_MMAP_THRESHOLD_" in env or "MALLOC_TRIM_THRESHOLD_" in env:
        return  # the user chose glibc's settings
    tune_host_allocator()
