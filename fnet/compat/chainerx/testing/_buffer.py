"""Test helpers that reach below the array: ``_fromnumpy`` (an array over a NumPy array's own
buffer and strides) and ``_DeviceBuffer`` (raw memory on a device)."""

import numpy

from .._array import wrap
from .._device import get_device

__all__ = ["_fromnumpy", "_DeviceBuffer"]


def _fromnumpy(array, keepstrides=True, device=None):
    """A ChainerX array holding ``array``'s data (its strides kept when ``keepstrides``)."""
    device = get_device(device)
    data = array if keepstrides else numpy.ascontiguousarray(array)
    return wrap(data if device.xp is numpy else device.xp.asarray(data), device)


class _DeviceBuffer:
    """A buffer of ``shape`` and ``dtype`` on ``device``, filled from ``lst``."""

    def __init__(self, lst, shape, dtype, device=None):
        self.device = get_device(device)
        self.array = self.device.xp.asarray(numpy.array(lst, dtype=dtype).reshape(shape))

    def __reduce__(self):
        raise TypeError("_DeviceBuffer cannot be pickled")
