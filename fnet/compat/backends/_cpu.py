"""Chainer's device base class and its CPU device, over fnet's devices.

Chainer's devices are fnet's devices with Chainer's methods added: a ``CpuDevice`` is an
``fnet.backend.CpuDevice`` (and compares equal to one), so fnet's ``to_device`` and
``using_device`` take Chainer's devices as they are.
"""

from __future__ import annotations

import abc

import numpy

from ... import backend as _core
from .. import chainerx
from ..chainerx._array import raw

__all__ = ["Device", "CpuDevice", "convert_arrays", "array_to_cpu", "get_array_module"]


def get_array_module(*args):
    """``chainerx`` if one of ``args`` is a ChainerX array (or a Variable holding one), else
    ``cupy`` if one is a CuPy array, else ``numpy``.

    A Variable is looked into by its ``array`` attribute (the Variable class stands above the
    devices, which do not import it); arrays have no such attribute.
    """
    arrays = [getattr(a, "array", a) for a in args]
    if any(isinstance(a, chainerx.ndarray) for a in arrays):
        return chainerx
    return _core.xp(*arrays)


def convert_arrays(arrays, convert):
    """``convert`` applied to an array, or to each array of a list or tuple (None stays None;
    an array given twice is converted once)."""
    if not isinstance(arrays, (list, tuple)):
        return convert(arrays)
    done: dict = {}
    converted = []
    for a in arrays:
        if a is None:
            converted.append(None)
            continue
        if id(a) not in done:
            done[id(a)] = convert(a)
        converted.append(done[id(a)])
    return type(arrays)(converted)


def array_to_cpu(array):
    """``array`` as a NumPy array (copied from the GPU when it is a CuPy array; a ``native``
    ChainerX array gives the NumPy array under it)."""
    array = raw(array)  # a ChainerX array's data; anything else as it is
    if type(array).__module__.startswith("cupy"):  # first, as fnet.backend's: a stand-in may subclass ndarray
        with array.device:
            return array.get()
    if array is None or isinstance(array, numpy.ndarray):
        return array
    if numpy.isscalar(array):
        return numpy.asarray(array)
    raise TypeError(
        f"cannot move a {type(array).__name__} to the CPU: expected a NumPy or CuPy array\n"
        "  hint: pass arrays (or lists and tuples of arrays)"
    )


def _to_cpu(arrays):
    """An array, or each array of a list or tuple, as NumPy (Chainer's ``backends._cpu._to_cpu``).

    >>> _to_cpu([numpy.float32(1), None])
    [array(1., dtype=float32), None]
    """
    return convert_arrays(arrays, array_to_cpu)


class Device(_core.Device, metaclass=abc.ABCMeta):
    """A device as Chainer sees it: a name (``'@numpy'``, ``'@cupy:0'``), an array module
    ``xp``, and ``send`` to move arrays there. Subclasses define ``name``, ``xp``,
    ``supported_array_types``, ``send_array`` and ``is_array_supported``.

    It is not a context manager: use ``chainer.using_device(device)``.
    """

    __slots__ = ()
    supported_array_types: tuple = ()

    @property
    def name(self) -> str:
        """The device's unique name (a subclass defines it, or ``__str__``, Chainer's older way)."""
        if type(self).__str__ is not Device.__str__:
            return str(self)
        raise NotImplementedError(
            f"{type(self).__name__}.name: a Device subclass must define the property name\n"
            "  hint: e.g. `name = property(lambda self: '@mydevice:0')`"
        )

    @property
    @abc.abstractmethod
    def xp(self):
        """The array module of the device (``numpy`` or ``cupy``)."""

    @abc.abstractmethod
    def send_array(self, array):
        """``array`` moved to this device."""

    def is_array_supported(self, array) -> bool:
        """Whether ``array`` lives on this device (by default: is one of ``supported_array_types``)."""
        return isinstance(array, self.supported_array_types)

    def __str__(self) -> str:
        return self.name

    def __setattr__(self, name: str, value) -> None:
        # fnet's devices are immutable values; a device class written by a program (Chainer's
        # are plain classes) keeps its attributes as any object does
        if type(self).__module__.startswith("fnet."):
            super().__setattr__(name, value)
        else:
            object.__setattr__(self, name, value)

    def __eq__(self, other) -> bool:
        return isinstance(other, _core.Device) and str(other) == self.name

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self.name)

    def __enter__(self):
        raise RuntimeError(
            f"{self!r} is not a context manager\n  hint: use `with chainer.using_device(device):` instead"
        )

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        """Never reached (``__enter__`` raises); defined so that ``with`` gets to ``__enter__``."""

    def create_context(self):
        """A context manager in which this device is the current one."""
        return _core.using_device(self)

    def send(self, arrays):
        """``arrays`` (an array, or a list or tuple of them) moved to this device."""
        return convert_arrays(arrays, self.send_array)

    def use(self) -> None:
        """Make this device the current one of this thread (only GPUs have a current device)."""


class CpuDevice(Device, _core.CpuDevice):
    """The host, with NumPy arrays (``'@numpy'``)."""

    __slots__ = ()
    supported_array_types = (numpy.ndarray,)

    @property
    def name(self) -> str:
        return "@numpy"

    @property
    def xp(self):
        return numpy

    @staticmethod
    def from_array(array):
        """The CPU device if ``array`` is a NumPy array, else None."""
        return CpuDevice() if isinstance(array, numpy.ndarray) else None

    def __hash__(self) -> int:
        return hash(_core.CPU)  # equal to fnet's CPU device, so hashed alike

    def __repr__(self) -> str:
        return "<CpuDevice (numpy)>"

    def send_array(self, array):
        """``array`` as a NumPy array."""
        return array_to_cpu(array)

    def is_array_supported(self, array) -> bool:
        """Whether ``array`` is a NumPy array."""
        return isinstance(array, numpy.ndarray)
