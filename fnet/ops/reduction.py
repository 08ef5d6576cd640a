"""Reductions and scans: sum, mean, var, std, prod, max, min, logsumexp, cumsum, cumprod, argmax."""

from __future__ import annotations

import builtins
import warnings

import numpy

from .. import backend
from ..autodiff import primitive
from ..autodiff.tracer import unbox_all
from ..errors import ShapeError, message
from .broadcast import broadcast_to
from .compare import equal
from .elementwise import astype, divide, exp, multiply, sqrt, square, subtract, where
from .shape import (
    _normalize_axes,
    _shape,
    concatenate,
    expand_dims,
    flip,
    moveaxis,
    ravel,
    reshape,
)

__all__ = [
    "sum",
    "mean",
    "var",
    "std",
    "prod",
    "max",
    "min",
    "amax",
    "amin",
    "logsumexp",
    "cumsum",
    "cumprod",
    "argmax",
    "argmin",
]


def _axes(axis, x) -> tuple[int, ...] | None:
    """Reduced axes as a sorted tuple of non-negative ints (None: all axes)."""
    if axis is None:
        return None
    return tuple(sorted(_normalize_axes(axis, len(_shape(x)), "reduction")))


def _kept_shape(shape: tuple, axis) -> tuple:
    """``shape`` with the reduced axes kept as length 1."""
    if axis is None:
        return (1,) * len(shape)
    return tuple(1 if i in axis else d for i, d in enumerate(shape))


def _expand(g, x, axis, keepdims: bool):
    """A reduction's output (or cotangent) broadcast back to the shape of its input ``x``."""
    shape = _shape(x)
    if not keepdims:
        g = reshape(g, _kept_shape(shape, axis))
    return broadcast_to(g, shape)


def _count(x, axis) -> int:
    shape = _shape(x)
    return int(numpy.prod([shape[a] for a in axis])) if axis is not None else int(numpy.prod(shape))


def _explain_empty(name: str, what: str):
    """An ``explain`` for a reduction with no identity (max, argmax...): over no elements it is
    undefined, and NumPy's ValueError becomes a ShapeError naming the empty axis."""

    def explain(error, x, axis=None, keepdims=False, **params):
        axis = params.get("axis", axis)
        shape = x.shape
        axes = range(len(shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
        empty = [a for a in axes if shape[a] == 0]
        if not empty:
            return None
        where = "x is empty" if axis is None else f"axis {empty[0]} of x has length 0"
        return ShapeError(
            message(
                name,
                f"cannot take the {what} of no elements: {where} (axis={axis!r}, x.shape={tuple(shape)})",
                {"x": x},
                "skip empty inputs (test x.shape first), or reduce over an axis of nonzero length; "
                "reductions along the other axes of an empty array are fine",
            )
        )

    return explain


@primitive
def _sum(x, *, axis, keepdims):
    return x.sum(axis=axis, keepdims=keepdims)


_sum.defvjp(lambda g, ans, x, *, axis, keepdims: _expand(g, x, axis, keepdims))


def sum(x, axis=None, keepdims: bool = False):
    """Sum over ``axis`` (an int, a tuple, or None for all axes)."""
    return _sum(x, axis=_axes(axis, x), keepdims=keepdims)


def _half(x) -> bool:
    """Whether ``x`` is float16, which NumPy's ``mean`` and ``var`` accumulate in float32 (a sum
    of float16 overflows above 65504)."""
    return getattr(unbox_all(x), "dtype", None) == numpy.float16


def mean(x, axis=None, keepdims: bool = False):
    """Arithmetic mean over ``axis`` (float16 accumulated in float32, as in NumPy).

    As in NumPy, the mean of no elements is NaN, with a ``RuntimeWarning``; its gradient is an
    empty array.
    """
    if _half(x):
        return astype(mean(astype(x, numpy.float32), axis, keepdims), numpy.float16)
    axes = _axes(axis, x)
    total = _sum(x, axis=axes, keepdims=keepdims)
    count = _count(x, axes)
    if count == 0:
        warnings.warn(
            f"mean: the mean of an empty slice is nan (axis={axis!r}, x.shape={_shape(x)})",
            RuntimeWarning,
            stacklevel=2,
        )
        return multiply(total, numpy.nan)
    return divide(total, count)


def var(x, axis=None, keepdims: bool = False, ddof: int = 0):
    """Variance over ``axis``, with ``ddof`` delta degrees of freedom (float16 accumulated in
    float32, as in NumPy)."""
    if _half(x):
        return astype(var(astype(x, numpy.float32), axis, keepdims, ddof), numpy.float16)
    axis = _axes(axis, x)
    centered = subtract(x, mean(x, axis, keepdims=True))
    n = _count(x, axis)
    return divide(_sum(square(centered), axis=axis, keepdims=keepdims), builtins.max(n - ddof, 0))


def std(x, axis=None, keepdims: bool = False, ddof: int = 0):
    """Standard deviation over ``axis``."""
    return sqrt(var(x, axis, keepdims, ddof))


@primitive
def _prod(x, *, axis, keepdims):
    return x.prod(axis=axis, keepdims=keepdims)


@_prod.defvjp
def _prod_vjp(g, ans, x, *, axis, keepdims):
    # The product of all other elements, from exclusive cumulative products from both sides,
    # so that zeros in x are handled exactly (no division).
    shape = _shape(x)
    if 0 in shape:  # no elements: an empty gradient of x's shape
        return multiply(_expand(g, x, axis, keepdims), unbox_all(x))
    ndim = len(shape)
    reduced = tuple(range(ndim)) if axis is None else axis
    kept = [a for a in range(ndim) if a not in reduced]
    moved = moveaxis(x, reduced, tuple(range(ndim - len(reduced), ndim))) if reduced else x
    lead_shape = tuple(shape[a] for a in kept)
    flat = reshape(moved, lead_shape + (-1,))
    ones = backend.xp(unbox_all(x)).ones(lead_shape + (1,), dtype=unbox_all(x).dtype)
    before = concatenate([ones, cumprod(flat, axis=-1)[..., :-1]], axis=-1)
    after = flip(concatenate([ones, cumprod(flip(flat, -1), axis=-1)[..., :-1]], axis=-1), -1)
    others = reshape(multiply(before, after), _shape(moved))
    if reduced:
        others = moveaxis(others, tuple(range(ndim - len(reduced), ndim)), reduced)
    return multiply(_expand(g, x, axis, keepdims), others)


def prod(x, axis=None, keepdims: bool = False):
    """Product over ``axis``; its gradient is exact also where ``x`` has zeros."""
    return _prod(x, axis=_axes(axis, x), keepdims=keepdims)


def _extremum(name: str, method: str):
    @primitive(name=name)
    def impl(x, *, axis, keepdims):
        return getattr(x, method)(axis=axis, keepdims=keepdims)

    @impl.defvjp
    def vjp(g, ans, x, *, axis, keepdims):
        # the gradient is shared equally among tied extrema
        hit = equal(x, unbox_all(_expand(ans, x, axis, keepdims)))
        # in g's dtype: the count of a 0-d x is a NumPy integer scalar, which would promote g
        count = hit.sum(axis=axis, keepdims=True).astype(unbox_all(g).dtype)
        return divide(where(hit, _expand(g, x, axis, keepdims), 0), count)

    def reduce(x, axis=None, keepdims: bool = False):
        return impl(x, axis=_axes(axis, x), keepdims=keepdims)

    impl.defexplain(_explain_empty(name, f"{name}imum"))
    reduce.__name__ = name
    reduce.__doc__ = (
        f"The {name}imum over ``axis``; tied elements share the gradient equally. Over an axis of "
        "length 0 it is undefined: a ``ShapeError``."
    )
    return reduce


max = amax = _extremum("max", "max")
min = amin = _extremum("min", "min")


@primitive
def _logsumexp(x, *, axis, keepdims):
    xp = backend.xp(x)
    shift = x.max(axis=axis, keepdims=True)
    shift = xp.where(xp.isfinite(shift), shift, shift.dtype.type(0))
    out = xp.log(xp.exp(x - shift).sum(axis=axis, keepdims=True)) + shift
    return out if keepdims else out.reshape(_reduced_shape(x.shape, axis))


def _reduced_shape(shape: tuple, axis) -> tuple:
    """The shape of a reduction's output without kept axes."""
    if axis is None:
        return ()
    return tuple(d for i, d in enumerate(shape) if i not in axis)


_logsumexp.defvjp(
    lambda g, ans, x, *, axis, keepdims: multiply(
        _expand(g, x, axis, keepdims), exp(subtract(x, _expand(ans, x, axis, keepdims)))
    )
)


_logsumexp.defexplain(_explain_empty("logsumexp", "logsumexp"))


def logsumexp(x, axis=None, keepdims: bool = False):
    """``log(sum(exp(x)))`` over ``axis``, computed without overflow (so, like ``max``, a
    ``ShapeError`` over an axis of length 0)."""
    return _logsumexp(x, axis=_axes(axis, x), keepdims=keepdims)


@primitive
def _cumsum(x, *, axis):
    return x.cumsum(axis=axis)


_cumsum.defvjp(lambda g, ans, x, *, axis: flip(_cumsum(flip(g, axis), axis=axis), axis))


def cumsum(x, axis=None):
    """Cumulative sum along ``axis`` (of the flattened array if None)."""
    if axis is None:
        return _cumsum(ravel(x), axis=0)
    (axis,) = _normalize_axes(axis, len(_shape(x)), "cumsum")
    return _cumsum(x, axis=axis)


@primitive
def _cumprod(x, *, axis):
    return x.cumprod(axis=axis)


@_cumprod.defvjp
def _cumprod_vjp(g, ans, x, *, axis):
    raw = unbox_all(x)
    if backend.xp(raw).all(raw != 0):  # d out_j / d x_i = out_j / x_i for j >= i
        return divide(flip(_cumsum(flip(multiply(g, ans), axis), axis=axis), axis), x)
    # With zeros, no division: M[..., i, j] = prod of x_k for k <= j, k != i.
    # The constants are made by x's array module, on x's device.
    xp = backend.xp(raw)
    lanes = moveaxis(x, axis, -1)
    n = _shape(lanes)[-1]
    eye = xp.eye(n, dtype=bool)
    products = _cumprod(where(eye, 1, expand_dims(lanes, -2)), axis=-1)
    upper = xp.triu(xp.ones((n, n), dtype=raw.dtype))
    grad = sum(multiply(multiply(products, upper), expand_dims(moveaxis(g, axis, -1), -2)), axis=-1)
    return moveaxis(grad, -1, axis)


def cumprod(x, axis=None):
    """Cumulative product along ``axis``; its gradient is exact also where ``x`` has zeros."""
    if axis is None:
        return _cumprod(ravel(x), axis=0)
    (axis,) = _normalize_axes(axis, len(_shape(x)), "cumprod")
    return _cumprod(x, axis=axis)


@primitive(differentiable=False)
def argmax(x, axis=None, keepdims: bool = False):
    """Index of the maximum along ``axis`` (of the flattened array if None); no gradient. Over an
    axis of length 0 there is none: a ``ShapeError``."""
    return x.argmax(axis=axis, keepdims=keepdims)


@primitive(differentiable=False)
def argmin(x, axis=None, keepdims: bool = False):
    """Index of the minimum along ``axis`` (of the flattened array if None); no gradient. Over an
    axis of length 0 there is none: a ``ShapeError``."""
    return x.argmin(axis=axis, keepdims=keepdims)


argmax.defexplain(_explain_empty("argmax", "argmax"))
argmin.defexplain(_explain_empty("argmin", "argmin"))
