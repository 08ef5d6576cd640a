"""The one conversion layer between ChainerX arrays and the data Chainer's functions compute on.

A function applied to ChainerX arrays (or to Variables presenting them) runs as on NumPy/CuPy:
``find`` names the ChainerX device of its inputs, ``to_data`` gives the functions the data under
the ChainerX arrays (the same memory), and ``present`` shows the results on that device: Variables
present their array and gradient as ChainerX arrays, arrays become ChainerX arrays. The math is
the NumPy path's; nothing here computes.
"""

from __future__ import annotations

import numpy

from ..autodiff import Tracer, unbox_all
from . import chainerx
from .backends._chainerx import array_to_chx
from .chainerx._graph import in_chainer_graph
from .variable import Variable

__all__ = ["find", "to_data", "present"]

_ndarray = chainerx.ndarray


def find(values):
    """The chainerx.Device of the first ChainerX array (or Variable presenting one) among
    ``values`` (and inside their lists and tuples); None when there is none."""
    for value in values:
        t = type(value)
        if t is _ndarray:
            return value.device
        if isinstance(value, Variable):
            if value._chx is not None:
                return value._chx.device
        elif t is list or t is tuple:
            device = find(value)
            if device is not None:
                return device
    return None


def to_data(value):
    """``value`` with every ChainerX array replaced by the data under it (in lists, tuples and
    dicts too): in the default graph, which is the Chainer layer's, when the array is in it."""
    t = type(value)
    if t is _ndarray:
        return in_chainer_graph(value._v)
    if t is list or t is tuple:
        return t(to_data(v) for v in value)
    if t is dict:
        return {k: to_data(v) for k, v in value.items()}
    return value


def present(value, device):
    """``value`` (a function's results) shown on the ChainerX ``device``: Variables present
    ChainerX arrays, NumPy/CuPy arrays become ChainerX arrays (in lists and tuples too)."""
    if isinstance(value, Variable):
        return value._present(device)
    t = type(value)
    if t is Tracer:
        return array_to_chx(unbox_all(value), device)
    if t is numpy.ndarray or (t.__module__.startswith("cupy") and hasattr(value, "dtype")):
        return array_to_chx(value, device)
    if t is list or t is tuple:
        return t(present(v, device) for v in value)
    return value
