"""Sorting, searching and counting: ``argmax``/``argmin`` (and their NaN-skipping forms),
``count_nonzero``. Their results are integer indices, outside every graph."""

from __future__ import annotations

import numpy

from ...errors import message
from ._array import ndarray, raw, wrap
from ._errors import DimensionError
from ._routine import axis_error, method

__all__ = ["argmax", "argmin", "nanargmax", "nanargmin", "count_nonzero"]


def _arg(name: str, pick):
    def routine(a, axis=None):
        data = raw(a)
        if axis is not None and not -data.ndim <= axis < data.ndim:
            raise axis_error(name, axis, data.ndim)
        if (data.size if axis is None else data.shape[axis]) == 0:  # nothing to pick from
            raise DimensionError(
                message(f"chainerx.{name}", "expected a nonempty array (or axis), got zero elements")
            )
        return wrap(numpy.asarray(pick(data, axis=axis)).astype(numpy.int64), a.device)

    routine.__name__ = name
    routine.__doc__ = (
        f"The indices of the {name[3:] if name.startswith('nan') else name[3:]}ima along ``axis``."
    )
    return routine


def _nan_pick(pick, fill):
    def picked(data, axis):
        if data.dtype.kind != "f":
            return pick(data, axis=axis)
        nan = numpy.isnan(data)
        replaced = numpy.where(nan, fill, data)
        result = numpy.asarray(pick(replaced, axis=axis))
        all_nan = nan.all(axis=axis)
        return numpy.where(all_nan, -1, result)

    return picked


argmax = _arg("argmax", numpy.argmax)
argmin = _arg("argmin", numpy.argmin)
nanargmax = _arg("nanargmax", _nan_pick(numpy.argmax, -numpy.inf))
nanargmin = _arg("nanargmin", _nan_pick(numpy.argmin, numpy.inf))


def count_nonzero(a, axis=None) -> ndarray:
    """The number of nonzero elements (along ``axis``), as int64."""
    data = raw(a)
    if axis is not None:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        for ax in axes:
            if not -data.ndim <= ax < data.ndim:
                raise axis_error("count_nonzero", axis, data.ndim)
        if len({ax % data.ndim for ax in axes}) != len(axes):
            raise DimensionError(message("chainerx.count_nonzero", f"expected distinct axes, got {axis}"))
        axis = axes
    return wrap(numpy.asarray(numpy.count_nonzero(data, axis=axis)).astype(numpy.int64), a.device)


ndarray.argmax = method(argmax)
ndarray.argmin = method(argmin)
