"""Standard noise for reparameterized sampling, in the dtype and on the device of a parameter."""

from __future__ import annotations

import numpy

from .. import backend, random
from ..autodiff import unbox_all

__all__ = ["dtype_and_device", "open_uniform", "standard_normal"]


def dtype_and_device(like) -> tuple:
    """The dtype (float32 for a Python number) and the device (None for one) of a parameter."""
    value = unbox_all(like)
    dtype = numpy.dtype(getattr(value, "dtype", numpy.float32))
    device = backend.get_device_from_array(value) if backend.is_array(value) else None
    return dtype, device


def open_uniform(key, shape: tuple, like):
    """Samples uniform on the open interval ``(0, 1)``, so that their logs are finite."""
    dtype, device = dtype_and_device(like)
    return random.uniform(key, shape, dtype=dtype, low=float(numpy.finfo(dtype).tiny), device=device)


def standard_normal(key, shape: tuple, like):
    """Samples of the standard normal distribution."""
    dtype, device = dtype_and_device(like)
    return random.normal(key, shape, dtype=dtype, device=device)
