"""Broadcasting and its adjoint: ``broadcast_to`` / ``sum_to``, a closed pair.

The lowest of the array operations: the others (elementwise VJPs, indexing, shape) sum their
cotangents back through ``sum_to``.
"""

from __future__ import annotations

import numpy

from .. import backend
from ..autodiff import primitive
from ..autodiff.tracer import shape_of as _shape
from ..errors import ShapeError, message

__all__ = ["broadcast_to", "sum_to"]


@primitive
def _broadcast_to(x, *, shape):
    return backend.xp(x).broadcast_to(x, shape)


@primitive
def _sum_to(x, *, shape):
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and x.shape[lead + i] != 1
    )
    y = x.sum(axis=axes, keepdims=True) if axes else x
    if lead:
        y = y.reshape(shape)
    return y


_broadcast_to.defvjp(lambda g, ans, x, *, shape: sum_to(g, _shape(x)))
_sum_to.defvjp(lambda g, ans, x, *, shape: broadcast_to(g, _shape(x)))


@_broadcast_to.defexplain
def _explain_broadcast_to(error, x, *, shape):
    return ShapeError(
        message(
            "broadcast_to",
            f"cannot broadcast shape {numpy.shape(x)} to {tuple(shape)}",
            {"x": x},
            "each axis must match or be 1 in x, aligned from the right",
        )
    )


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` (a read-only view)."""
    shape = tuple(shape)
    if _shape(x) == shape:
        return x
    return _broadcast_to(x, shape=shape)


def sum_to(x, shape):
    """Sum ``x`` over broadcast axes so that it has ``shape``: the adjoint of ``broadcast_to``."""
    shape = tuple(shape)
    xs = _shape(x)
    if xs == shape:
        return x
    lead = len(xs) - len(shape)
    if lead < 0 or any(s != 1 and s != d for s, d in zip(shape, xs[lead:])):
        raise ShapeError(
            message(
                "sum_to",
                f"cannot sum shape {xs} to {shape}",
                {"x": x},
                "shape must be one that x could have been broadcast from",
            )
        )
    return _sum_to(x, shape=shape)
