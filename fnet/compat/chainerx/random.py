"""``chainerx.random``: samples drawn by NumPy's global generator (``numpy.random``), as
ChainerX's are, given to ``chainerx.array`` on ``device`` (the default device when None)."""

from __future__ import annotations

import numpy

from .creation import array

__all__ = ["normal", "uniform"]


def normal(*args, device=None, **kwargs):
    """Samples of a normal distribution: ``numpy.random.normal``'s arguments, as a chainerx
    array on ``device``."""
    return array(numpy.random.normal(*args, **kwargs), device=device, copy=False)


def uniform(*args, device=None, **kwargs):
    """Samples of a uniform distribution: ``numpy.random.uniform``'s arguments, as a chainerx
    array on ``device``."""
    return array(numpy.random.uniform(*args, **kwargs), device=device, copy=False)
