"""Comparisons, logical operations and array creation: no gradient, plain arrays out."""

from __future__ import annotations

import numpy

from .. import backend
from ..autodiff import primitive
from ..autodiff.tracer import unbox_all

__all__ = [
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "isfinite",
    "isnan",
    "isinf",
    "zeros_like",
    "ones_like",
    "full_like",
]


def _nondifferentiable(ufunc):
    prim = primitive(ufunc, name=ufunc.__name__, differentiable=False)
    prim.__doc__ = f"``numpy.{ufunc.__name__}`` on arrays or traced values; a plain array out."
    return prim


equal = _nondifferentiable(numpy.equal)
not_equal = _nondifferentiable(numpy.not_equal)
less = _nondifferentiable(numpy.less)
less_equal = _nondifferentiable(numpy.less_equal)
greater = _nondifferentiable(numpy.greater)
greater_equal = _nondifferentiable(numpy.greater_equal)
logical_and = _nondifferentiable(numpy.logical_and)
logical_or = _nondifferentiable(numpy.logical_or)
logical_xor = _nondifferentiable(numpy.logical_xor)
logical_not = _nondifferentiable(numpy.logical_not)
isfinite = _nondifferentiable(numpy.isfinite)
isnan = _nondifferentiable(numpy.isnan)
isinf = _nondifferentiable(numpy.isinf)


def zeros_like(x, dtype=None):
    """An array of zeros shaped like ``x`` (traced or not); it carries no gradient."""
    value = unbox_all(x)
    return backend.xp(value).zeros_like(value, dtype=dtype)


def ones_like(x, dtype=None):
    """An array of ones shaped like ``x`` (traced or not); it carries no gradient."""
    value = unbox_all(x)
    return backend.xp(value).ones_like(value, dtype=dtype)


def full_like(x, fill_value, dtype=None):
    """An array filled with ``fill_value`` shaped like ``x``; it carries no gradient."""
    value = unbox_all(x)
    return backend.xp(value).full_like(value, fill_value, dtype=dtype)
