"""Deterministic test inputs: evenly spaced values (with or without zero and negatives)."""

from __future__ import annotations

import math

import numpy

__all__ = ["shaped_range", "increasing", "nonzero_increasing", "positive_increasing"]


def shaped_range(*shape, dtype=numpy.float32):
    """``0, 1, 2, ...`` in ``shape`` (integers, as Chainer's)."""
    return numpy.arange(math.prod(shape)).reshape(shape)


def _spaced(shape, dtype, centered: bool, bias):
    values = shaped_range(*shape)
    if centered:
        values = values - values.size // 2
    if numpy.dtype(dtype).kind == "f":
        values = values * 0.5
    return (values + bias).astype(dtype)


def increasing(*shape, dtype=numpy.float32):
    """Steps of 0.5 (1 for integers) centred on 0: negatives, a zero, non-integers.

    >>> increasing(3, 4)[0]
    array([-3. , -2.5, -2. , -1.5], dtype=float32)
    """
    return _spaced(shape, dtype, True, 0)


def nonzero_increasing(*shape, dtype=numpy.float32, bias=1e-7):
    """``increasing`` shifted by ``bias``: no zeros (for divisors)."""
    return _spaced(shape, dtype, True, bias)


def positive_increasing(*shape, dtype=numpy.float32, bias=1e-7):
    """Steps of 0.5 from ``bias``: positive only (for log, sqrt)."""
    return _spaced(shape, dtype, False, bias)
