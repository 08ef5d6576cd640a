"""``chainer.device_resident``: objects that live on a device and move there with what they hold.

In fnet the device handling of Chainer's ``DeviceResident`` is :class:`fnet.compat.Link`'s own
(``device``, ``xp``, ``to_device``, ``device_resident_accept``...): ``Link`` is registered as a
``DeviceResident``, so ``isinstance(link, chainer.DeviceResident)`` holds. A class deriving from
``DeviceResident`` itself (an object that is not a link) gets the same moves, through the same
visitor as links; it overrides ``device_resident_accept`` to let the visitor see its arrays.

A visitor derives from ``DeviceResidentsVisitor`` and defines ``visit_device_resident``,
``visit_array`` (returning the visited array) and ``visit_variable``.
"""

from __future__ import annotations

import abc

from .backend import get_device
from .backends._cpu import CpuDevice
from .link import Link, _ToDevice

__all__ = ["DeviceResident", "DeviceResidentsVisitor"]


def _not_defined(obj, method: str):
    name = type(obj).__name__
    raise NotImplementedError(
        f"{name}.{method}: expected {name} to define {method}, got the one of DeviceResidentsVisitor\n"
        f"  hint: define {method} in {name}"
    )


class DeviceResidentsVisitor(metaclass=abc.ABCMeta):  # noqa: B024 - an ABC to register _ToDevice
    """Base class of visitors that go over device residents, their variables and arrays."""

    def visit_device_resident(self, device_resident) -> None:
        """Visit a device resident (a link, or another ``DeviceResident``)."""
        _not_defined(self, "visit_device_resident")

    def visit_array(self, arr):
        """Visit an array held by a device resident; returns the array to keep in its place."""
        _not_defined(self, "visit_array")

    def visit_variable(self, param) -> None:
        """Visit a variable (a parameter) held by a device resident."""
        _not_defined(self, "visit_variable")


class DeviceResident(metaclass=abc.ABCMeta):  # noqa: B024 - an ABC to register Link
    """Base class of objects that live on a device (``Link`` is one).

    >>> import numpy
    >>> class Box(DeviceResident):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.array = numpy.zeros(2, numpy.float32)
    ...     def device_resident_accept(self, visitor):
    ...         super().device_resident_accept(visitor)
    ...         self.array = visitor.visit_array(self.array)
    >>> Box().to_device("@numpy").device
    <CpuDevice (numpy)>
    """

    _overridden_to_methods: tuple = ()  # the deprecated to_* methods a subclass overrides

    def __init__(self):
        self._device = CpuDevice()

    @property
    def device(self):
        """The device the object lives on."""
        return self._device

    @property
    def xp(self):
        """The array module of the device (``numpy`` or ``cupy``)."""
        return self._device.xp

    def device_resident_accept(self, visitor) -> None:
        """Let ``visitor`` visit this object; a subclass holding arrays lets it visit them too."""
        visitor.visit_device_resident(self)

    def to_device(self, device):
        """Move the object (and what it lets visitors see) to ``device``; returns self."""
        self.device_resident_accept(_ToDevice(get_device(device)))
        return self

    def to_cpu(self):
        """Move the object to the host (deprecated since Chainer v7: ``to_device('@numpy')``);
        returns self."""
        self.device_resident_accept(_ToDevice(CpuDevice(), entry=("to_cpu", {}), start=self))
        return self


DeviceResident.register(Link)
DeviceResidentsVisitor.register(_ToDevice)
