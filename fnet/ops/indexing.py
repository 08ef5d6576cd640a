"""Indexing: ``getitem`` (basic and advanced) and its adjoint ``scatter_add``, a closed pair."""

from __future__ import annotations

import numpy

from .. import backend
from ..autodiff import primitive
from ..autodiff.tracer import shape_of as _shape
from ..autodiff.tracer import unbox_all
from ..errors import ShapeError, message
from ..recording._record import active_recorder, record_effect
from .broadcast import sum_to

__all__ = ["getitem", "scatter_add"]


def _normalize_index(index) -> tuple:
    """A tuple index of ints, slices, None, Ellipsis and integer arrays (masks become arrays;
    a 0-d mask, which adds an axis of length 1 or 0, is kept as it is)."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for item in index:
        item = unbox_all(item)
        if isinstance(item, list):
            item = numpy.asarray(item)
            if item.size == 0:  # [] (or [[]]) selects nothing, as in NumPy
                item = item.astype(numpy.intp)
        if backend.is_array(item) and item.dtype == bool:
            out.extend(item.nonzero() if item.ndim else (item,))
        elif backend.is_array(item) and item.dtype.kind not in "iu":
            raise IndexError(
                f"getitem: index arrays must be integers or booleans, got {item.dtype}\n"
                "  hint: convert with .astype(numpy.int64)"
            )
        else:
            out.append(item)
    return tuple(out)


def _is_basic(index: tuple) -> bool:
    return all(
        item is None or item is Ellipsis or isinstance(item, (int, slice, numpy.integer)) for item in index
    )


@primitive
def _getitem(x, *, index):
    return x[index]


@_getitem.defvjp
def _getitem_vjp(g, ans, x, *, index):
    value = unbox_all(x)
    return _scatter_add(backend.xp(value).zeros_like(value), g, index=index)


@_getitem.defexplain
def _explain_getitem(error, x, *, index):
    if isinstance(error, IndexError):
        return IndexError(
            message(
                "getitem",
                f"index {index!r} does not fit: {error}",
                {"x": x},
                "check each index against x.shape",
            )
        )
    return None


def getitem(x, index):
    """``x[index]`` for basic and advanced NumPy indexing; the gradient scatters back."""
    return _getitem(x, index=_normalize_index(index))


@primitive
def _scatter_add(a, values, *, index):
    out = a.copy()
    if _is_basic(index):
        out[index] += values
    elif backend.xp(out) is numpy:
        numpy.add.at(out, index, values)
    else:
        device_scatter_add(out, index, values)
    return out


def device_scatter_add(out, index, values) -> None:
    """``out[index] += values`` in place on a GPU, repeated indices adding up (``cupyx``'s
    ``scatter_add``). cupyx takes device arrays only: a captured step records the call whole, as
    one that writes ``out``."""
    import cupyx

    if active_recorder() is None:
        cupyx.scatter_add(out, index, values)
    else:
        record_effect(cupyx.scatter_add, (out, index, values), {}, written=(out,))


_scatter_add.defvjp(
    lambda g, ans, a, values, *, index: g,
    lambda g, ans, a, values, *, index: sum_to(_getitem(g, index=index), _shape(values)),
)


@_scatter_add.defexplain
def _explain_scatter_add(error, a, values, *, index):
    return ShapeError(
        message(
            "scatter_add",
            f"values do not fit a[index] for index {index!r}: {error}",
            {"a": a, "values": values},
            "values must broadcast to the shape of a[index]",
        )
    )


def scatter_add(a, index, values):
    """A copy of ``a`` with ``values`` added at ``index``; repeated indices accumulate."""
    return _scatter_add(a, values, index=_normalize_index(index))
