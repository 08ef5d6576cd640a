"""``xlogx``: ``x * log(x)`` taken as 0 at ``x = 0``, for entropies of probabilities."""

from __future__ import annotations

import warnings

from .. import backend, ops
from .. import functions as F
from ..autodiff import primitive, unbox_all
from ..functions._checks import check_float

__all__ = ["xlogx"]


@primitive(name="xlogx")
def _xlogx(x):
    xp = backend.xp(x)
    positive = x > 0
    return xp.where(positive, x * xp.log(xp.where(positive, x, 1)), 0).astype(x.dtype, copy=False)


@_xlogx.defvjp
def _xlogx_vjp(g, ans, x):
    if (unbox_all(x) == 0).any():
        warnings.warn(
            "xlogx: x * log(x) has no finite derivative at x = 0; it is taken as 0 there",
            RuntimeWarning,
            stacklevel=2,
        )
    positive = ops.greater(x, 0)
    safe = ops.where(positive, x, ops.ones_like(x))
    return g * ops.where(positive, 1 + F.log(safe), ops.zeros_like(x))


def xlogx(x):
    """Elementwise ``x * log(x)`` for ``x > 0``, and 0 for ``x <= 0`` (the limit at 0, where
    entropies need it). Its derivative is ``1 + log(x)``, taken as 0 for ``x <= 0``: a backward
    pass through ``x = 0`` warns (``RuntimeWarning``), as Chainer's ``_modified_xlogx`` does."""
    check_float("xlogx", "x", x)
    return _xlogx(x)
