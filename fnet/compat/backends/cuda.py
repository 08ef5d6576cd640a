"""``chainer.backends.cuda`` (also ``chainer.cuda``): CuPy devices, transfers and kernels.

With CuPy installed and a GPU visible, ``available`` is True and ``cupy``, ``cupyx``,
``ndarray``, ``Device``, ``Event`` and ``Stream`` are CuPy's. Without them, these names stand
for types that no object is an instance of (so ``isinstance(x, cuda.ndarray)`` and
``xp is cuda.cupy`` are simply False), and whatever needs a GPU raises ``RuntimeError`` from
:func:`check_cuda_available`. ``to_cpu``, ``get_array_module``, ``get_device_from_id(-1)``
(the :data:`DummyDevice`), ``memoize`` and ``fuse`` work either way.
"""

from __future__ import annotations

import os
import warnings

import numpy

from ... import backend as _core
from ..chainerx._array import raw as _chainerx_data
from ..configuration import config as _config
from ._cpu import Device as _Device
from ._cpu import array_to_cpu, convert_arrays, get_array_module

__all__ = [
    "available",
    "cudnn_enabled",
    "cupy",
    "cupyx",
    "ndarray",
    "Device",
    "Event",
    "Stream",
    "check_cuda_available",
    "DummyDeviceType",
    "DummyDevice",
    "GpuDevice",
    "get_device_from_id",
    "get_device_from_array",
    "get_device",
    "to_gpu",
    "to_cpu",
    "copy",
    "memoize",
    "clear_memo",
    "elementwise",
    "reduce",
    "raw",
    "get_array_module",
    "get_max_workspace_size",
    "set_max_workspace_size",
    "fuse",
    "should_use_cudnn",
    "should_use_cudnn_tensor_core",
]

available: bool = _core.cupy_available()
cudnn_enabled: bool = False
cudnn = None

if available:
    import cupy
    import cupyx
    from cupy import (
        cuda,  # noqa: F401  (Chainer's chainer.backends.cuda.cuda: CuPy's cuda module)
        ndarray,
    )
    from cupy.cuda import (
        Device,
        Event,
        Stream,
        cublas,  # noqa: F401  (Chainer's chainer.backends.cuda.cublas)
    )

    memory_pool = cupy.get_default_memory_pool()
    pinned_memory_pool = cupy.get_default_pinned_memory_pool()
    try:
        import cupy.cuda.cudnn as libcudnn
        import cupy.cudnn as cudnn

        cudnn_enabled = os.environ.get("CHAINER_CUDNN", "1") != "0"
    except ImportError:
        cudnn = None
else:

    class _Absent:
        """Stands for a CuPy name when CuPy is not available: nothing is an instance of it."""

        def __init__(self, *args, **kwargs):
            check_cuda_available()

    cupy = cupyx = _Absent
    ndarray = Device = Event = Stream = _Absent


def check_cuda_available() -> None:
    """Do nothing if CuPy works with a GPU; raise ``RuntimeError`` otherwise, with CuPy's own
    reason (a driver error, a CUDA mismatch...) in the message and as its cause."""
    if not available:
        _core.require_cupy("CUDA environment is not correctly set up")


class DummyDeviceType:
    """A stand-in for ``cupy.cuda.Device`` meaning the CPU: id -1, a context that does nothing."""

    id = -1

    def __int__(self) -> int:
        return -1

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        """Leave the (empty) context."""

    def use(self) -> None:
        """Nothing to make current on the CPU."""

    def synchronize(self) -> None:
        """Nothing to wait for on the CPU."""

    def __eq__(self, other) -> bool:
        return isinstance(other, DummyDeviceType)

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(DummyDeviceType)

    def __repr__(self) -> str:
        return "DummyDevice"


DummyDevice = DummyDeviceType()


def _is_cuda_id(value) -> bool:
    return isinstance(value, (int, numpy.integer)) and not isinstance(value, bool)


class GpuDevice(_Device, _core.GpuDevice):
    """A GPU with CuPy arrays (``'@cupy:N'``), made from a ``cupy.cuda.Device``."""

    __slots__ = ()
    supported_array_types = (ndarray,)

    def __init__(self, device):
        check_cuda_available()
        if not isinstance(device, Device):
            raise TypeError(
                f"GpuDevice: expected a cupy.cuda.Device, got {type(device).__name__}\n"
                "  hint: use GpuDevice.from_device_id(n) or chainer.get_device('@cupy:n')"
            )
        _core.GpuDevice.__init__(self, int(device.id))

    @staticmethod
    def from_device_id(device_id: int) -> GpuDevice:
        """The device of the GPU numbered ``device_id``."""
        check_cuda_available()
        if not _is_cuda_id(device_id) or device_id < 0:
            raise ValueError(
                f"GpuDevice.from_device_id: invalid CUDA device id {device_id!r}, expected an int >= 0"
            )
        return GpuDevice(Device(int(device_id)))

    @staticmethod
    def from_array(array):
        """The device of ``array`` if it is a CuPy array, else None."""
        if isinstance(array, ndarray) and array.device is not None:
            return GpuDevice(array.device)
        return None

    @property
    def device(self):
        """The ``cupy.cuda.Device``."""
        return Device(self.id)

    @property
    def name(self) -> str:
        return f"@cupy:{self.id}"

    @property
    def xp(self):
        return cupy

    def __hash__(self) -> int:
        return hash(_core.GpuDevice(self.id))  # equal to fnet's device, so hashed alike

    def __repr__(self) -> str:
        return f"<GpuDevice (cupy):{self.id}>"

    def send_array(self, array):
        """``array`` as a CuPy array on this GPU."""
        return _array_to_gpu(array, self.device)

    def use(self) -> None:
        self.device.use()

    def is_array_supported(self, array) -> bool:
        """Whether ``array`` is a CuPy array on this GPU."""
        return isinstance(array, ndarray) and array.device.id == self.id


def get_device_from_id(device_id: int | None):
    """The ``cupy.cuda.Device`` numbered ``device_id``, or :data:`DummyDevice` for None or a
    negative id (the CPU)."""
    if device_id is None or device_id < 0:
        return DummyDevice
    check_cuda_available()
    return Device(int(device_id))


def get_device_from_array(*arrays):
    """The ``cupy.cuda.Device`` of the first CuPy array among ``arrays``, else :data:`DummyDevice`."""
    for array in arrays:
        if isinstance(array, ndarray) and array.device is not None:
            return array.device
    return DummyDevice


def get_device(*args):
    """The CUDA device of the first device, id or CuPy array among ``args`` (else
    :data:`DummyDevice`). Deprecated: use ``get_device_from_id`` or ``get_device_from_array``."""
    warnings.warn(
        "cuda.get_device is deprecated; use get_device_from_id or get_device_from_array",
        DeprecationWarning,
        stacklevel=2,
    )
    for arg in args:
        if _is_cuda_id(arg):
            check_cuda_available()
            return Device(int(arg))
        if isinstance(arg, ndarray) and arg.device is not None:
            return arg.device
        if isinstance(arg, Device):
            return arg
    return DummyDevice


def _device_or_current(device):
    """``device`` as a ``cupy.cuda.Device``: the current one for None or ``DummyDevice``."""
    if device is None or device is DummyDevice:
        return Device()
    if isinstance(device, Device):
        return device
    if isinstance(device, _core.GpuDevice):
        return Device(device.id)
    if _is_cuda_id(device) and device >= 0:
        return Device(int(device))
    raise ValueError(
        f"to_gpu: invalid CUDA device {device!r}\n  hint: pass a GPU id >= 0, a cupy.cuda.Device, or None"
    )


def _array_to_gpu(array, device):
    if array is None:
        return None
    array = _chainerx_data(array)  # a ChainerX array's CuPy (cuda) or NumPy (native) data
    if isinstance(array, numpy.generic):
        array = numpy.asarray(array)
    if isinstance(array, ndarray):
        if array.device == device:
            return array
        with device:
            return cupy.array(array, copy=True)
    if not isinstance(array, numpy.ndarray):
        raise TypeError(
            f"to_gpu: expected a NumPy or CuPy array, got {type(array).__name__}\n"
            "  hint: convert it with numpy.asarray first"
        )
    with device:
        return cupy.asarray(array)


def _ignored_stream(function: str, stream) -> None:
    if stream is not None:
        warnings.warn(f"cuda.{function}: the stream argument is deprecated", DeprecationWarning, stacklevel=3)


def to_gpu(array, device=None, stream=None):
    """``array`` (or each array of a list or tuple) copied to the GPU ``device`` (an id, a
    ``cupy.cuda.Device``; None: the current one). CuPy arrays already there are not copied."""
    _ignored_stream("to_gpu", stream)
    check_cuda_available()
    target = _device_or_current(device)
    return convert_arrays(array, lambda a: _array_to_gpu(a, target))


def to_cpu(array, stream=None):
    """``array`` (or each array of a list or tuple) as NumPy arrays; NumPy arrays are returned
    as they are, without a copy."""
    if stream is not None:
        return convert_arrays(array, lambda a: a.get(stream) if isinstance(a, ndarray) else array_to_cpu(a))
    return convert_arrays(array, array_to_cpu)


def copy(array, out=None, out_device=None, stream=None):
    """A copy of the CuPy ``array`` into ``out``, or into a new array on ``out_device`` (by
    default the array's own device)."""
    check_cuda_available()
    _ignored_stream("copy", stream)
    if out is None:
        target = array.device if out_device is None else _device_or_current(out_device)
        with target:
            out = cupy.empty_like(array)
    with array.device:
        cupy.copyto(out, array)
    return out


def memoize(for_each_device: bool = False):
    """``cupy.memoize(for_each_device)`` with CuPy; without it, a decorator that changes nothing."""
    if available:
        return cupy.memoize(for_each_device)

    def keep(f):
        return f

    return keep


def clear_memo() -> None:
    """Forget the results of every function decorated with :func:`memoize` (with CuPy)."""
    if available:
        cupy.clear_memo()


@memoize()
def elementwise(in_params, out_params, operation, name, **kwargs):
    """A ``cupy.ElementwiseKernel``, made once per arguments and device."""
    check_cuda_available()
    return cupy.ElementwiseKernel(in_params, out_params, operation, name, **kwargs)


@memoize()
def reduce(in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name, **kwargs):
    """A ``cupy.ReductionKernel``, made once per arguments and device."""
    check_cuda_available()
    return cupy.ReductionKernel(
        in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name, **kwargs
    )


@memoize()
def raw(code, name, *args, **kwargs):
    """A ``cupy.RawKernel``, made once per arguments and device."""
    check_cuda_available()
    return cupy.RawKernel(code, name, *args, **kwargs)


def get_max_workspace_size() -> int:
    """cuDNN's workspace size in bytes (0 without cuDNN)."""
    return cudnn.get_max_workspace_size() if cudnn_enabled else 0


def set_max_workspace_size(size: int) -> None:
    """Set cuDNN's workspace size in bytes (nothing happens without cuDNN)."""
    if cudnn_enabled:
        cudnn.set_max_workspace_size(size)


def fuse(*args, **kwargs):
    """``cupy.fuse`` with CuPy; without it, a decorator that changes nothing (usable bare or
    with arguments)."""
    if available:
        return cupy.fuse(*args, **kwargs)
    if len(args) == 1 and not kwargs and callable(args[0]):
        return args[0]
    return lambda f: f


_CUDNN_LEVELS = {
    "==always": {"always": True, "auto": False, "never": False},
    ">=auto": {"always": True, "auto": True, "never": False},
}


def _config_choice(key: str, choices: dict):
    value = getattr(_config, key)
    if value not in choices:
        raise ValueError(f"chainer.config.{key} must be 'always', 'auto' or 'never', got {value!r}")
    return choices[value]


def should_use_cudnn(level: str, lowest_version: int = 0) -> bool:
    """Whether to use cuDNN at ``level`` ('==always' or '>=auto'), after ``config.use_cudnn``,
    cuDNN's presence and its version."""
    if level not in _CUDNN_LEVELS:
        raise ValueError(f"should_use_cudnn: level must be '==always' or '>=auto', got {level!r}")
    version = libcudnn.getVersion() if cudnn_enabled else -1
    if version < lowest_version:
        return False
    return _config_choice("use_cudnn", _CUDNN_LEVELS[level])


def should_use_cudnn_tensor_core(dtype) -> bool:
    """Whether to use Tensor Cores for ``dtype``, after ``config.use_cudnn_tensor_core``
    ('auto': when cuDNN says they are available)."""
    use = _config_choice("use_cudnn_tensor_core", {"always": True, "auto": None, "never": False})
    if use is None:
        return bool(cudnn_enabled and cudnn.is_tensor_core_available(numpy.dtype(dtype)))
    return use
