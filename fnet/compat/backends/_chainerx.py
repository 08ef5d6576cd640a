"""Chainer's ChainerX device and the conversions of arrays to and from ChainerX.

A ``ChainerxDevice`` stands for one ``chainerx.Device`` (``native:N`` over NumPy, ``cuda:N``
over CuPy). ``to_chx`` of a NumPy array is a ChainerX array over the same memory on
``native:0``; ``from_chx`` of a native array is the NumPy array under it (no copy either way).
"""

from __future__ import annotations

import numpy

from ...errors import message
from .. import chainerx
from ..chainerx._array import raw
from . import cuda
from ._cpu import CpuDevice, Device, convert_arrays

__all__ = ["ChainerxDevice", "to_chx", "from_chx", "array_to_chx", "array_from_chx"]


class ChainerxDevice(Device):
    """A ChainerX device (``chainer.get_device('native:0')``); ``device`` is its chainerx.Device.

    >>> d = ChainerxDevice(chainerx.get_device('native:0'))
    >>> d, d.name, d.xp is chainerx, d.fallback_device
    (<ChainerxDevice native:0>, 'native:0', True, <CpuDevice (numpy)>)
    """

    xp = chainerx
    supported_array_types = (chainerx.ndarray,)

    def __init__(self, device) -> None:
        if not isinstance(device, chainerx.Device):
            raise TypeError(
                message(
                    "ChainerxDevice",
                    f"expected a chainerx.Device, got {type(device).__name__}",
                    hint="use chainer.get_device('native:0')",
                )
            )
        object.__setattr__(self, "device", device)  # devices are immutable values

    @staticmethod
    def from_array(array):
        """The ChainerX device of ``array`` if it is a chainerx.ndarray, else None."""
        return ChainerxDevice(array.device) if isinstance(array, chainerx.ndarray) else None

    @staticmethod
    def from_fallback_device(device):
        """The ChainerX device on the same hardware as the CPU or GPU device ``device``."""
        if isinstance(device, CpuDevice):
            return ChainerxDevice(chainerx.get_device("native", 0))
        if isinstance(device, cuda.GpuDevice):
            return ChainerxDevice(chainerx.get_device("cuda", device.device.id))
        raise RuntimeError(
            message(
                "ChainerxDevice.from_fallback_device",
                f"expected a CpuDevice or a GpuDevice, got {device!r}",
                hint="pass chainer.get_device('@numpy') or chainer.get_device('@cupy:N')",
            )
        )

    @property
    def name(self) -> str:
        return self.device.name

    @property
    def fallback_device(self):
        """The CPU device for ``native``, the GPU device of the same index for ``cuda``."""
        if self.device.backend.name == "native":
            return CpuDevice()
        return cuda.GpuDevice.from_device_id(self.device.index)

    def __eq__(self, other) -> bool:
        return isinstance(other, ChainerxDevice) and other.device is self.device

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"<ChainerxDevice {self.device.name}>"

    def create_context(self):
        """A context manager in which this device is ChainerX's default device."""
        return chainerx.using_device(self.device)

    def send_array(self, array):
        """``array`` on this device (itself when it is there already)."""
        if isinstance(array, chainerx.ndarray):
            return array if array.device is self.device else array.to_device(self.device)
        return array_to_chx(array, self.device)

    def use(self) -> None:
        """Make this device ChainerX's default device of this thread."""
        chainerx.set_default_device(self.device)

    def is_array_supported(self, array) -> bool:
        return isinstance(array, chainerx.ndarray) and array.device is self.device


def array_to_chx(array, device=None):
    """``array`` as a chainerx.ndarray (None stays None): a NumPy array shares its memory, on
    ``device`` (``native:0`` when None); a chainerx array moves to ``device`` if given."""
    if array is None:
        return None
    if numpy.isscalar(array) and not isinstance(array, chainerx.ndarray):
        return chainerx.asarray(array) if device is None else chainerx.asarray(array, device=device)
    if numpy.dtype(array.dtype) not in chainerx.all_dtypes:
        raise TypeError(
            message(
                "to_chx",
                f"expected an array of a dtype ChainerX supports, got dtype {array.dtype}",
                hint="cast it first, e.g. array.astype(numpy.float32)",
            )
        )
    if isinstance(array, chainerx.ndarray):
        return array if device is None or device is array.device else array.to_device(device)
    if cuda.available and isinstance(array, cuda.ndarray):  # first: a test's stand-in is a NumPy subclass
        target = device or chainerx.get_device("cuda", array.device.id)
        return chainerx.array(array, device=target, copy=False)
    if isinstance(array, numpy.ndarray):
        return chainerx.array(array, device=device or chainerx.get_device("native", 0), copy=False)
    raise TypeError(
        message(
            "to_chx",
            f"expected a NumPy, CuPy or ChainerX array, got {type(array).__name__}",
            hint="pass arrays (or lists and tuples of arrays)",
        )
    )


def array_from_chx(array):
    """``array`` as a NumPy (``native``) or CuPy (``cuda``) array over the same memory; NumPy
    and CuPy arrays come back as they are."""
    if array is None:
        return None
    if isinstance(array, chainerx.ndarray):
        return raw(array)
    if isinstance(array, numpy.ndarray) or (cuda.available and isinstance(array, cuda.ndarray)):
        return array
    raise TypeError(
        message(
            "from_chx",
            f"expected a ChainerX, NumPy or CuPy array, got {type(array).__name__}",
            hint="pass arrays (or lists and tuples of arrays)",
        )
    )


def to_chx(array):
    """An array, or each array of a list or tuple, as ChainerX (sharing memory where it can)."""
    return convert_arrays(array, array_to_chx)


def from_chx(array):
    """An array, or each array of a list or tuple, from ChainerX to NumPy/CuPy (no copy)."""
    return convert_arrays(array, array_from_chx)
