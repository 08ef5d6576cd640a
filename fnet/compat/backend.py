"""``chainer.backend``: devices, the array module of values, and copies between devices.

Chainer's device classes here are fnet's devices with Chainer's methods: ``CpuDevice()``
equals ``fnet.backend.CPU``, and any of them can be passed where fnet takes a device. A device
string without ``'@'`` names a ChainerX device (``'native:0'``, ``'native'``): a
``ChainerxDevice`` over ``fnet.compat.chainerx``.

>>> import numpy
>>> device = get_device('@numpy')
>>> device, device.xp is numpy, get_array_module(numpy.zeros(2)) is numpy
(<CpuDevice (numpy)>, True, True)
"""

from __future__ import annotations

import numpy

from .. import backend as _core
from ..autodiff import unbox_all
from ..data import convert as _convert
from . import chainerx
from .backends import cuda
from .backends._chainerx import ChainerxDevice, from_chx, to_chx
from .backends._cpu import CpuDevice, Device, array_to_cpu, get_array_module
from .backends.cuda import GpuDevice
from .backends.intel64 import Intel64Device

__all__ = [
    "Device",
    "CpuDevice",
    "GpuDevice",
    "Intel64Device",
    "ChainerxDevice",
    "to_chx",
    "from_chx",
    "get_device",
    "using_device",
    "get_array_module",
    "get_device_from_array",
    "copyto",
    "get_array_types",
    "get_cpu_array_types",
    "is_arrays_compatible",
]


def _from_int(spec: int) -> Device:
    return CpuDevice() if spec < 0 else GpuDevice.from_device_id(int(spec))


def get_device(device_spec) -> Device:
    """The device that ``device_spec`` names.

    ``device_spec`` is a device (returned as it is; fnet's devices become Chainer's), a
    string ``'@numpy'``, ``'@cupy:N'`` or ``'@intel64'``, a ChainerX device (``'native:0'``,
    ``'native'`` or a ``chainerx.Device``), an integer (or a string of one: a
    GPU id, negative for the CPU), or a ``cupy.cuda.Device``.
    """
    if isinstance(device_spec, Device):
        return device_spec
    if isinstance(device_spec, _core.CpuDevice):
        return CpuDevice()
    if isinstance(device_spec, _core.GpuDevice):
        return GpuDevice.from_device_id(device_spec.id)
    if isinstance(device_spec, (int, numpy.integer)) and not isinstance(device_spec, bool):
        return _from_int(device_spec)
    if isinstance(device_spec, chainerx.Device):
        return ChainerxDevice(device_spec)
    if cuda.available and isinstance(device_spec, cuda.Device):
        return GpuDevice(device_spec)
    if isinstance(device_spec, str):
        try:
            return _from_int(int(device_spec))
        except ValueError:
            pass
        if not device_spec.startswith("@"):  # a ChainerX device: 'native:0', 'native', 'cuda:1'
            return ChainerxDevice(chainerx.get_device(device_spec))
        module, colon, rest = device_spec[1:].partition(":")
        if module == "numpy" and not colon:
            return CpuDevice()
        if module == "cupy" and colon and rest.isdigit():
            return GpuDevice.from_device_id(int(rest))
        if module == "intel64" and not colon:
            return Intel64Device()
        raise ValueError(
            f"get_device: unknown device {device_spec!r}\n  hint: use '@numpy', '@cupy:N' or '@intel64'"
        )
    raise TypeError(
        f"get_device: a device spec must be a Device, a cupy.cuda.Device, an int or a string, "
        f"got {type(device_spec).__name__}\n  hint: e.g. '@numpy', '@cupy:0', 0 or -1"
    )


def using_device(device_spec):
    """A context manager in which the device that ``device_spec`` names is the current one."""
    return get_device(device_spec).create_context()


def get_device_from_array(*arrays) -> Device:
    """The device of the first array among ``arrays`` that is not a NumPy array, else the CPU.
    (Variables are not looked into: pass ``v.array``.)"""
    for array in arrays:
        if isinstance(array, chainerx.ndarray):
            return ChainerxDevice(array.device)
        device = GpuDevice.from_array(unbox_all(array))
        if device is not None:
            return device
    return CpuDevice()


def copyto(dst, src) -> None:
    """Copy the elements of ``src`` into the array ``dst``, across devices (a ChainerX ``dst``:
    into the data under it)."""
    if isinstance(dst, chainerx.ndarray):
        dst, src = from_chx(dst), from_chx(src)
        if isinstance(dst, numpy.ndarray):
            src = array_to_cpu(src)
    elif isinstance(src, chainerx.ndarray):
        src = from_chx(src)
    if isinstance(dst, cuda.ndarray):  # first: a stand-in device array may subclass ndarray
        if not isinstance(src, (numpy.ndarray, numpy.generic, cuda.ndarray)):
            raise TypeError(f"copyto: cannot copy from {type(src).__name__}\n  hint: src must be an array")
        cuda.cupy.copyto(dst, cuda.to_gpu(src, device=dst.device))
    elif isinstance(dst, numpy.ndarray):
        numpy.copyto(dst, array_to_cpu(src))
    else:
        raise TypeError(
            f"copyto: dst must be a NumPy, CuPy or ChainerX array, got {type(dst).__name__}\n"
            "  hint: copy into the Variable's array: copyto(v.array, src)"
        )


def get_array_types() -> tuple:
    """The array types a Variable can hold: NumPy's, CuPy's when CuPy is available, ChainerX's."""
    cupy = (cuda.ndarray,) if cuda.available else ()
    return (numpy.ndarray, *cupy, chainerx.ndarray)


def get_cpu_array_types() -> tuple:
    """The array types that live on the CPU (ChainerX's counted, as in Chainer)."""
    return (numpy.ndarray, chainerx.ndarray)


def is_arrays_compatible(arrays) -> bool:
    """Whether the arrays (None ignored) can be operands of one function: all ChainerX arrays,
    or none of them and all on the CPU, or all CuPy arrays."""
    arrays = [a for a in arrays if a is not None]
    if not arrays:
        return True
    chx = [isinstance(a, chainerx.ndarray) for a in arrays]
    if any(chx):
        return all(chx)
    on_gpu = [cuda.available and isinstance(a, cuda.ndarray) for a in arrays]
    if any(on_gpu):  # asked first: a test's stand-in CuPy array is a NumPy array too
        return all(on_gpu)
    return all(isinstance(a, numpy.ndarray) for a in arrays)


# converters (fnet.data) read device specs with Chainer's rules while this layer is in use
_convert.set_device_reader(get_device)
