"""Spatial pooling (Chainer's ``F.max_pooling_2d``, ``F.average_pooling_nd``, ``F.unpooling_2d``,
``F.roi_average_align_2d``, ...), pure and differentiable to any order.

Window pooling is built on a few primitives over the same window geometry (a ``_Plan``):
``_window_sum`` and its adjoint ``_window_spread`` (average pooling and unpooling), ``_window_max``
(max pooling; its VJP ``_window_max_grad`` routes each gradient to the first maximum of its
window, the element that the non-differentiable ``_window_argmax`` finds),
and the pair ``_window_gather`` / ``_window_scatter`` that read and write one element per window
(upsampling from pooling indices). Sums and maxima are separable: they take one strided view of
the (padded) input per window offset along each axis in turn; gather and scatter index flat
positions; nothing loops over batch or positions. The ROI functions reduce to one pair,
``_roi_gather`` / ``_roi_scatter``: a weighted read of a few positions of ``x`` per output bin,
whose positions and weights are found on raw arrays (argmax or bilinear sampling), vectorized over
ROIs and channels.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Sequence
from typing import NamedTuple

import numpy

from .. import backend, ops
from ..autodiff import primitive
from ..autodiff.tracer import shape_of as _shape
from ..autodiff.tracer import unbox_all
from ..errors import DTypeError, InvalidInputError, ShapeError, message
from ._checks import check_float, check_ndim, check_same_dtype

__all__ = [
    "average_pooling_1d",
    "average_pooling_2d",
    "average_pooling_3d",
    "average_pooling_nd",
    "max_pooling_1d",
    "max_pooling_2d",
    "max_pooling_3d",
    "max_pooling_nd",
    "roi_average_align_2d",
    "roi_average_pooling_2d",
    "roi_max_align_2d",
    "roi_max_pooling_2d",
    "roi_pooling_2d",
    "spatial_pyramid_pooling_2d",
    "unpooling_1d",
    "unpooling_2d",
    "unpooling_3d",
    "unpooling_nd",
    "upsampling_2d",
]


# -- window geometry -------------------------------------------------------------------------
class _Plan(NamedTuple):
    """Windows of ``ksize`` read every ``stride`` from ``-pad`` over an input of spatial ``size``,
    one per position of the ``out`` grid (all tuples, one entry per spatial axis)."""

    ksize: tuple
    stride: tuple
    pad: tuple
    size: tuple
    out: tuple

    @property
    def padded(self) -> tuple:
        """The spatial shape of the padded input that every window reads from."""
        return tuple(
            max(n + 2 * p, (o - 1) * s + k)
            for k, s, p, n, o in zip(self.ksize, self.stride, self.pad, self.size, self.out)
        )

    @property
    def overlapping(self) -> bool:
        return any(s < k for k, s in zip(self.ksize, self.stride))


def _conv_outsize(size: int, k: int, s: int, p: int, cover_all: bool) -> int:
    """Chainer's pooled length; ``cover_all`` adds a last window until every element is read."""
    return (size + 2 * p - k + (s - 1 if cover_all else 0)) // s + 1


def _deconv_outsize(size: int, k: int, s: int, p: int, cover_all: bool) -> int:
    """The unpooled length whose pooled length is ``size`` (the inverse of ``_conv_outsize``)."""
    return s * (size - 1) + k - 2 * p - (s - 1 if cover_all else 0)


def _padded(x, plan: _Plan, fill):
    """``x`` padded with ``fill`` to ``plan.padded`` (``x`` itself where no padding is needed)."""
    if plan.padded == plan.size:
        return x
    widths = ((0, 0), (0, 0)) + tuple((p, n - m - p) for p, m, n in zip(plan.pad, plan.size, plan.padded))
    return backend.xp(x).pad(x, widths, constant_values=fill)


def _crop(buffer, plan: _Plan):
    """The input region of a padded buffer."""
    return buffer[(Ellipsis,) + tuple(slice(p, p + n) for p, n in zip(plan.pad, plan.size))]


def _slice(axis: int, offset: int, plan: _Plan) -> slice:
    """The elements that the windows along spatial ``axis`` read at ``offset``."""
    s, o = plan.stride[axis], plan.out[axis]
    return slice(offset, offset + (o - 1) * s + 1, s)


def _axis_window(axis: int, offset: int, plan: _Plan) -> tuple:
    """Index of the elements read at ``offset`` of the windows along spatial ``axis`` only."""
    return (slice(None),) * (2 + axis) + (_slice(axis, offset, plan),)


def _kernel_offsets(plan: _Plan) -> list:
    """Every offset in a window, in Chainer's row-major order of ``indexes``."""
    return list(itertools.product(*(range(k) for k in plan.ksize)))


def _window(offset: tuple, plan: _Plan) -> tuple:
    """Index of the elements read at kernel ``offset`` by all windows (one per output position)."""
    return (Ellipsis,) + tuple(_slice(axis, j, plan) for axis, j in enumerate(offset))


def _zeros_in_order_of(like, shape, dtype):
    """Zeros of ``shape``, channel-major in memory when ``like`` is (a convolution's output is):
    the gradient keeps the memory order of the value it belongs to."""
    xp = backend.xp(like)
    if like.ndim > 2 and like.shape[0] > 1 and like.strides[1] > like.strides[0] > 0:
        return xp.zeros((shape[1], shape[0], *shape[2:]), dtype).swapaxes(0, 1)
    return xp.zeros(shape, dtype)


def _reduce_windows(buffer, plan: _Plan, ufunc, dtype):
    """``ufunc`` reduced over every window, one spatial axis after the other (boxes are separable),
    accumulating in ``dtype``."""
    for axis, k in enumerate(plan.ksize):
        if k > 1 and buffer.dtype == dtype:  # the first two views into a new array, no copy first
            acc, start = ufunc(buffer[_axis_window(axis, 0, plan)], buffer[_axis_window(axis, 1, plan)]), 2
        else:
            acc, start = buffer[_axis_window(axis, 0, plan)].astype(dtype), 1
        for j in range(start, k):
            ufunc(acc, buffer[_axis_window(axis, j, plan)], out=acc)
        buffer = acc
    return buffer


def _positions(plan: _Plan, index):
    """For kernel offsets ``index`` (one per window, shape ``(n, c, *out)``): the flat positions in
    the padded input that they point at."""
    xp = backend.xp(index)
    padded = plan.padded
    steps = [math.prod(padded[a + 1 :]) for a in range(len(padded))]
    table = xp.asarray([sum(j * t for j, t in zip(offset, steps)) for offset in _kernel_offsets(plan)])
    nd = len(padded)
    n, c = index.shape[:2]
    flat = xp.arange(n * c).reshape((n, c) + (1,) * nd) * math.prod(padded)
    for a, (s, o, t) in enumerate(zip(plan.stride, plan.out, steps)):
        flat = flat + (xp.arange(o) * (s * t)).reshape((o,) + (1,) * (nd - 1 - a))
    return flat + table[index]


# -- window primitives -----------------------------------------------------------------------
@primitive(name="pooling_window_sum")
def _window_sum(x, *, plan):
    acc = numpy.promote_types(x.dtype, numpy.float32)
    return _reduce_windows(_padded(x, plan, 0), plan, backend.xp(x).add, acc).astype(x.dtype, copy=False)


@primitive(name="pooling_window_spread")
def _window_spread(y, *, plan):
    xp = backend.xp(y)
    for axis in reversed(range(len(plan.ksize))):
        shape = list(y.shape)
        shape[2 + axis] = plan.padded[axis]
        spread = xp.zeros(shape, y.dtype)
        for j in range(plan.ksize[axis]):
            spread[_axis_window(axis, j, plan)] += y
        y = spread
    return _crop(y, plan)


_window_sum.defvjp(lambda g, ans, x, *, plan: _window_spread(g, plan=plan))
_window_spread.defvjp(lambda g, ans, y, *, plan: _window_sum(g, plan=plan))


@primitive(name="pooling_window_max")
def _window_max(x, *, plan):
    return _reduce_windows(_padded(x, plan, -numpy.inf), plan, backend.xp(x).maximum, x.dtype)


@primitive(name="pooling_window_argmax", differentiable=False)
def _window_argmax(x, y, *, plan):
    """The kernel offset (row-major over ``ksize``) of the first maximum of every window."""
    xp = backend.xp(x)
    padded = _padded(x, plan, -numpy.inf)
    index = xp.zeros(y.shape, numpy.intp)
    pending = xp.ones(y.shape, bool)
    for o, offset in enumerate(_kernel_offsets(plan)):
        hit = padded[_window(offset, plan)] == y
        hit &= pending
        if o:
            index += hit * o
        pending &= ~hit
    return index


@primitive(name="pooling_window_max_grad")
def _window_max_grad(g, x, y, *, plan):
    """The VJP of ``_window_max``: each ``g`` sent to the first maximum of its window (row-major
    over the kernel, as ``_window_argmax`` finds it; to the first element where none equals the
    maximum, a NaN's window). Windows that do not overlap write their share straight into strided
    views of the result, with no offsets or positions computed; overlapping ones add up through
    ``_window_scatter``."""
    if plan.overlapping:
        return _window_scatter(g, plan=plan, index=_window_argmax(x, y, plan=plan))
    xp = backend.xp(g)
    padded = _padded(x, plan, -numpy.inf)
    buffer = _zeros_in_order_of(x, g.shape[:2] + plan.padded, g.dtype)
    offsets = _kernel_offsets(plan)
    pending = None  # the windows whose maximum is not found yet
    for offset in offsets:
        hit = padded[_window(offset, plan)] == y
        if pending is None:
            pending = ~hit
        else:
            hit &= pending
            pending ^= hit
        xp.multiply(hit, g, out=buffer[_window(offset, plan)])
    if pending.any():
        buffer[_window(offsets[0], plan)] += xp.where(pending, g, 0)
    return _crop(buffer, plan)


@primitive(name="pooling_window_gather")
def _window_gather(x, *, plan, index):
    """The element of every window at its kernel offset ``index`` (0 where it lies in the padding)."""
    return _padded(x, plan, 0).ravel().take(_positions(plan, index))


@primitive(name="pooling_window_scatter")
def _window_scatter(y, *, plan, index):
    """The adjoint of ``_window_gather``: each ``y`` added at its window's offset ``index``."""
    xp = backend.xp(y)
    flat = _positions(plan, index).ravel()
    size = y.shape[0] * y.shape[1] * math.prod(plan.padded)
    if plan.overlapping:  # windows share elements: accumulate
        buffer = xp.bincount(flat, weights=y.ravel(), minlength=size).astype(y.dtype)
    else:
        buffer = xp.zeros(size, y.dtype)
        buffer[flat] = y.ravel()
    return _crop(buffer.reshape(y.shape[:2] + plan.padded), plan)


_window_max.defvjp(lambda g, ans, x, *, plan: _window_max_grad(g, x, ans, plan=plan))
_window_max_grad.defvjp(
    lambda gg, ans, g, x, y, *, plan: _window_gather(gg, plan=plan, index=_window_argmax(x, y, plan=plan)),
    None,
    None,
)
_window_gather.defvjp(lambda g, ans, x, *, plan, index: _window_scatter(g, plan=plan, index=index))
_window_scatter.defvjp(lambda g, ans, y, *, plan, index: _window_gather(g, plan=plan, index=index))


# -- argument checks -------------------------------------------------------------------------
def _ints(fn: str, name: str, value, n: int, minimum: int) -> tuple[int, ...]:
    """An int or a sequence of ``n`` ints, all ``>= minimum``, as a tuple of ``n`` ints."""
    if isinstance(value, numbers.Integral):
        items = (value,) * n
    else:
        try:
            items = tuple(value)
        except TypeError:
            items = ()
    if len(items) != n or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in items):
        raise InvalidInputError(
            message(
                fn,
                f"expected {name} to be an int or a tuple of {n} ints, got {value!r}",
                hint=f"give one value for each of the {n} spatial axes, or one int for all",
            )
        )
    if any(v < minimum for v in items):
        raise InvalidInputError(
            message(fn, f"expected {name} >= {minimum}, got {value!r}", hint=f"{name} counts elements")
        )
    return tuple(int(v) for v in items)


def _integer_array(fn: str, name: str, value, hint: str):
    """The raw integer array ``value`` (a DTypeError if it is not one)."""
    value = unbox_all(value)
    dtype = getattr(value, "dtype", None)
    if dtype is None or dtype.kind not in "iu":
        got = dtype if dtype is not None else type(value).__name__
        raise DTypeError(
            message(fn, f"expected {name} to be an integer array, got {got}", {name: value}, hint)
        )
    return value


def _check_range(fn: str, name: str, values, stop: int, what: str, hint: str) -> None:
    """Every entry of the integer array ``values`` must lie in ``[0, stop)``."""
    low, high = (int(values.min()), int(values.max())) if values.size else (0, 0)
    if low < 0 or high >= stop:
        raise InvalidInputError(
            message(
                fn,
                f"expected 0 <= {name} < {stop} ({what}), got values in [{low}, {high}]",
                {name: values},
                hint,
            )
        )


def _check_spatial(fn: str, x, ndim: int | None) -> int:
    """``x`` must be a float array ``(n, c, *spatial)`` with ``ndim`` spatial axes (or >= 1 if None)."""
    check_float(fn, "x", x)
    layout = "(n, c, " + ", ".join(f"d{i + 1}" for i in range(ndim or 1)) + (")" if ndim else ", ...)")
    check_ndim(
        fn,
        "x",
        x,
        2 + ndim if ndim else range(3, 33),
        f"x is a batch of {ndim or 'N'}-d feature maps {layout}; use the _nd variant for other ranks",
    )
    return len(_shape(x)) - 2


def _window_args(fn: str, x, ndim, ksize, stride, pad) -> tuple:
    """``ksize``, ``stride`` (``ksize`` if None) and ``pad`` as tuples over the spatial axes of ``x``."""
    nd = _check_spatial(fn, x, ndim)
    k = _ints(fn, "ksize", ksize, nd, 1)
    s = k if stride is None else _ints(fn, "stride", stride, nd, 1)
    return k, s, _ints(fn, "pad", pad, nd, 0)


def _plan(fn: str, x, ndim, ksize, stride, pad, cover_all: bool) -> _Plan:
    """The windows of a pooling of ``x`` (checked)."""
    k, s, p = _window_args(fn, x, ndim, ksize, stride, pad)
    size = _shape(x)[2:]
    out = tuple(_conv_outsize(n, *ksp, cover_all) for n, *ksp in zip(size, k, s, p))
    if min(out) < 1:
        raise ShapeError(
            message(
                fn,
                f"the window ksize={k} does not fit the input of spatial shape {size} padded by {p}",
                {"x": x},
                "use a smaller ksize or a larger pad",
            )
        )
    return _Plan(k, s, p, size, out)


def _unpool_plan(fn: str, x, ndim, ksize, stride, pad, outsize, cover_all: bool) -> _Plan:
    """The windows of the pooling that ``x`` would be the output of (``outsize``: its input size)."""
    k, s, p = _window_args(fn, x, ndim, ksize, stride, pad)
    pooled = _shape(x)[2:]
    if outsize is None:
        size = tuple(_deconv_outsize(n, *ksp, cover_all) for n, *ksp in zip(pooled, k, s, p))
        if min(size) < 0:  # an empty output is allowed, as in Chainer
            raise ShapeError(
                message(
                    fn,
                    f"the output size {size} computed from x.shape[2:]={pooled}, ksize={k}, stride={s}, "
                    f"pad={p} is negative",
                    {"x": x},
                    "use a smaller pad, or pass outsize",
                )
            )
    else:
        size = _ints(fn, "outsize", outsize, len(k), 1)
        expected = tuple(_conv_outsize(n, *ksp, cover_all) for n, *ksp in zip(size, k, s, p))
        if expected != pooled:
            raise ShapeError(
                message(
                    fn,
                    f"expected x.shape[2:] == {expected} (the pooled size of outsize={size}), got {pooled}",
                    {"x": x},
                    "outsize must be the size of the input of the pooling that produced x "
                    "(with the same ksize, stride, pad and cover_all)",
                )
            )
    return _Plan(k, s, p, size, pooled)


# -- max pooling -----------------------------------------------------------------------------
def _max_pooling(fn: str, ndim, x, ksize, stride, pad, cover_all: bool, return_indices: bool):
    plan = _plan(fn, x, ndim, ksize, stride, pad, cover_all)
    y = _window_max(x, plan=plan)
    return (y, _window_argmax(x, y, plan=plan)) if return_indices else y


def max_pooling_nd(x, ksize, stride=None, pad=0, cover_all: bool = True, return_indices: bool = False):
    """Maximum over windows of ``ksize`` on every channel of ``x`` ``(n, c, d1, ..., dN)``.

    Windows start every ``stride`` (``ksize`` if None) from ``-pad``; the padding never wins (it
    reads ``-inf``), and ``cover_all`` adds a last, partial window until every element is pooled,
    as in Chainer. The gradient flows to the first maximum of each window; with
    ``return_indices`` the kernel offsets of those maxima (row-major over the window, Chainer's
    ``indexes``) come too, as ``(y, indexes)``, for ``upsampling_2d``.

    >>> import numpy
    >>> x = numpy.arange(8, dtype=numpy.float32).reshape(1, 1, 8)
    >>> max_pooling_nd(x, 3)
    array([[[2., 5., 7.]]], dtype=float32)
    """
    return _max_pooling("max_pooling_nd", None, x, ksize, stride, pad, cover_all, return_indices)


def max_pooling_1d(x, ksize, stride=None, pad=0, cover_all: bool = True, return_indices: bool = False):
    """``max_pooling_nd`` for a batch of 1-d signals ``(n, c, length)``.

    >>> import numpy
    >>> max_pooling_1d(numpy.array([[[1.0, 3.0, 2.0, 0.0]]], numpy.float32), 2)
    array([[[3., 2.]]], dtype=float32)
    """
    return _max_pooling("max_pooling_1d", 1, x, ksize, stride, pad, cover_all, return_indices)


def max_pooling_2d(x, ksize, stride=None, pad=0, cover_all: bool = True, return_indices: bool = False):
    """``max_pooling_nd`` for a batch of images ``(n, c, h, w)``: the downsampling of CNNs.

    >>> import numpy
    >>> x = numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4)
    >>> max_pooling_2d(x, 2)
    array([[[[ 5.,  7.],
             [13., 15.]]]], dtype=float32)
    """
    return _max_pooling("max_pooling_2d", 2, x, ksize, stride, pad, cover_all, return_indices)


def max_pooling_3d(x, ksize, stride=None, pad=0, cover_all: bool = True, return_indices: bool = False):
    """``max_pooling_nd`` for a batch of volumes ``(n, c, d, h, w)``.

    >>> import numpy
    >>> max_pooling_3d(numpy.arange(8.0).reshape(1, 1, 2, 2, 2), 2).ravel()
    array([7.])
    """
    return _max_pooling("max_pooling_3d", 3, x, ksize, stride, pad, cover_all, return_indices)


# -- average pooling -------------------------------------------------------------------------
def _window_counts(plan: _Plan, xp, dtype):
    """How many input (not padding) elements every window reads, shaped ``(1, 1, *out)``."""
    counts = numpy.ones((1, 1) + plan.out)
    for a, (k, s, p, n, o) in enumerate(zip(plan.ksize, plan.stride, plan.pad, plan.size, plan.out)):
        start = numpy.arange(o) * s - p
        length = numpy.minimum(start + k, n) - numpy.maximum(start, 0)
        counts = counts * length.reshape((o,) + (1,) * (len(plan.out) - 1 - a))
    return xp.asarray(counts, dtype=dtype)


def _average_pooling(fn: str, ndim, x, ksize, stride, pad, pad_value):
    if not (pad_value is None or (isinstance(pad_value, numbers.Real) and pad_value == 0)):
        raise InvalidInputError(
            message(
                fn,
                f"expected pad_value to be 0 or None, got {pad_value!r}",
                hint="0 averages the padding in as zeros; None leaves it out of every average",
            )
        )
    plan = _plan(fn, x, ndim, ksize, stride, pad, False)
    total = _window_sum(x, plan=plan)
    if pad_value is None:
        value = unbox_all(x)
        return ops.divide(total, _window_counts(plan, backend.xp(value), value.dtype))
    return ops.divide(total, math.prod(plan.ksize))


def average_pooling_nd(x, ksize, stride=None, pad=0, pad_value=0):
    """Mean over windows of ``ksize`` on every channel of ``x`` ``(n, c, d1, ..., dN)``.

    Windows start every ``stride`` (``ksize`` if None) from ``-pad``, without Chainer's
    ``cover_all``. With ``pad_value=0`` the padding counts as zeros and every sum is divided by
    the full window size (averages near the border are biased towards zero, as in Chainer); with
    ``pad_value=None`` each window averages only the elements of ``x`` it covers.

    >>> import numpy
    >>> x = numpy.array([[[1.0, 2.0, 3.0]]], numpy.float32)
    >>> average_pooling_nd(x, 2, stride=1, pad=1)
    array([[[0.5, 1.5, 2.5, 1.5]]], dtype=float32)
    >>> average_pooling_nd(x, 2, stride=1, pad=1, pad_value=None)
    array([[[1. , 1.5, 2.5, 3. ]]], dtype=float32)
    """
    return _average_pooling("average_pooling_nd", None, x, ksize, stride, pad, pad_value)


def average_pooling_1d(x, ksize, stride=None, pad=0, pad_value=0):
    """``average_pooling_nd`` for a batch of 1-d signals ``(n, c, length)``.

    >>> import numpy
    >>> average_pooling_1d(numpy.array([[[1.0, 3.0, 2.0, 0.0]]], numpy.float32), 2)
    array([[[2., 1.]]], dtype=float32)
    """
    return _average_pooling("average_pooling_1d", 1, x, ksize, stride, pad, pad_value)


def average_pooling_2d(x, ksize, stride=None, pad=0):
    """``average_pooling_nd`` for a batch of images ``(n, c, h, w)``, padding counted as zeros.

    Chainer's 2-d signature has no ``pad_value``: use ``average_pooling_nd(..., pad_value=None)``
    to leave the padding out of the averages. ``ksize=x.shape[2:]`` is global average pooling.

    >>> import numpy
    >>> x = numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4)
    >>> average_pooling_2d(x, 2)
    array([[[[ 2.5,  4.5],
             [10.5, 12.5]]]], dtype=float32)
    """
    return _average_pooling("average_pooling_2d", 2, x, ksize, stride, pad, 0)


def average_pooling_3d(x, ksize, stride=None, pad=0, pad_value=0):
    """``average_pooling_nd`` for a batch of volumes ``(n, c, d, h, w)``.

    >>> import numpy
    >>> average_pooling_3d(numpy.arange(8.0).reshape(1, 1, 2, 2, 2), 2).ravel()
    array([3.5])
    """
    return _average_pooling("average_pooling_3d", 3, x, ksize, stride, pad, pad_value)


# -- unpooling and upsampling ----------------------------------------------------------------
def _unpooling(fn: str, ndim, x, ksize, stride, pad, outsize, cover_all: bool):
    return _window_spread(x, plan=_unpool_plan(fn, x, ndim, ksize, stride, pad, outsize, cover_all))


def unpooling_nd(x, ksize, stride=None, pad=0, outsize=None, cover_all: bool = True):
    """The inverse of pooling: every element of ``x`` ``(n, c, d1, ..., dN)`` copied over its window.

    The windows are those of a pooling with ``ksize``, ``stride`` (``ksize`` if None), ``pad`` and
    ``cover_all`` whose output has ``x``'s shape; where windows overlap, their values add up
    (this is the adjoint of sum pooling, as Chainer's deconvolution-like unpooling). The output
    size is ``outsize``, or the smallest size such a pooling maps to ``x``'s shape.

    >>> import numpy
    >>> unpooling_nd(numpy.array([[[1.0, 2.0]]], numpy.float32), 2, cover_all=False)
    array([[[1., 1., 2., 2.]]], dtype=float32)
    """
    return _unpooling("unpooling_nd", None, x, ksize, stride, pad, outsize, cover_all)


def unpooling_1d(x, ksize, stride=None, pad=0, outsize=None, cover_all: bool = True):
    """``unpooling_nd`` for a batch of 1-d signals ``(n, c, length)``.

    >>> import numpy
    >>> unpooling_1d(numpy.array([[[1.0, 2.0]]], numpy.float32), 2, outsize=(4,))
    array([[[1., 1., 2., 2.]]], dtype=float32)
    """
    return _unpooling("unpooling_1d", 1, x, ksize, stride, pad, outsize, cover_all)


def unpooling_2d(x, ksize, stride=None, pad=0, outsize=None, cover_all: bool = True):
    """``unpooling_nd`` for a batch of images ``(n, c, h, w)``: nearest-neighbour upscaling when
    ``stride == ksize``.

    >>> import numpy
    >>> x = numpy.array([[[[1.0, 2.0], [3.0, 4.0]]]], numpy.float32)
    >>> unpooling_2d(x, 2, cover_all=False)
    array([[[[1., 1., 2., 2.],
             [1., 1., 2., 2.],
             [3., 3., 4., 4.],
             [3., 3., 4., 4.]]]], dtype=float32)
    """
    return _unpooling("unpooling_2d", 2, x, ksize, stride, pad, outsize, cover_all)


def unpooling_3d(x, ksize, stride=None, pad=0, outsize=None, cover_all: bool = True):
    """``unpooling_nd`` for a batch of volumes ``(n, c, d, h, w)``.

    >>> import numpy
    >>> unpooling_3d(numpy.ones((1, 1, 1, 1, 1)), 2, cover_all=False).shape
    (1, 1, 2, 2, 2)
    """
    return _unpooling("unpooling_3d", 3, x, ksize, stride, pad, outsize, cover_all)


def upsampling_2d(x, indexes, ksize, stride=None, pad=0, outsize=None, cover_all: bool = True):
    """Put every element of ``x`` ``(n, c, h, w)`` back where ``max_pooling_2d`` found it.

    ``indexes`` are the kernel offsets returned by ``max_pooling_2d(..., return_indices=True)``
    with the same ``ksize``, ``stride``, ``pad`` and ``cover_all``; the rest of the output, of
    spatial size ``outsize`` (by default the smallest the pooling maps to ``x``'s shape), is zero,
    and values that land on one element add up. This is SegNet's decoder upsampling.

    >>> import numpy
    >>> x = numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4)
    >>> y, indexes = max_pooling_2d(x, 2, return_indices=True)
    >>> upsampling_2d(y, indexes, 2, outsize=(4, 4))[0, 0]
    array([[ 0.,  0.,  0.,  0.],
           [ 0.,  5.,  0.,  7.],
           [ 0.,  0.,  0.,  0.],
           [ 0., 13.,  0., 15.]], dtype=float32)
    """
    fn = "upsampling_2d"
    plan = _unpool_plan(fn, x, 2, ksize, stride, pad, outsize, cover_all)
    index = _integer_array(
        fn, "indexes", indexes, "pass the indexes returned by max_pooling_2d(..., return_indices=True)"
    )
    if index.shape != _shape(x):
        raise ShapeError(
            message(
                fn,
                f"expected indexes.shape == x.shape, got {index.shape} != {_shape(x)}",
                {"x": x, "indexes": index},
                "indexes hold one kernel offset per element of x (the pooled array)",
            )
        )
    _check_range(
        fn,
        "indexes",
        index,
        math.prod(plan.ksize),
        f"offsets in a {plan.ksize} window",
        "use the ksize of the max_pooling_2d that returned the indexes",
    )
    return _window_scatter(x, plan=plan, index=index.astype(numpy.intp, copy=False))


def spatial_pyramid_pooling_2d(x, pyramid_height: int, pooling: str | None = None):
    """Pool images ``(n, c, h, w)`` into a fixed-length ``(n, c * (1 + 4 + ... + 4**(H-1)), 1, 1)``.

    Level ``i`` of the ``pyramid_height`` levels max-pools into about ``2**i x 2**i`` bins (window
    ``ceil(size / 2**i)``, padded evenly, ``cover_all``), whatever the image size, and the
    flattened levels are concatenated (He et al., 2014). As in Chainer v7, ``pooling`` must be
    given and only ``'max'`` is supported.

    >>> import numpy
    >>> spatial_pyramid_pooling_2d(numpy.ones((2, 3, 7, 5), numpy.float32), 3, pooling="max").shape
    (2, 63, 1, 1)
    """
    fn = "spatial_pyramid_pooling_2d"
    if pooling != "max":
        raise InvalidInputError(
            message(
                fn,
                f"unsupported pooling {pooling!r}: expected 'max'",
                hint="pass pooling='max' (Chainer v7 supports only max pooling here)",
            )
        )
    _check_spatial(fn, x, 2)
    if not (isinstance(pyramid_height, numbers.Integral) and pyramid_height >= 1):
        raise InvalidInputError(
            message(fn, f"expected pyramid_height >= 1, got {pyramid_height!r}", hint="the number of levels")
        )
    n, c, h, w = _shape(x)
    levels = []
    for level in range(int(pyramid_height)):
        bins = 2**level
        ksize = (-(-h // bins), -(-w // bins))
        pad = ((ksize[0] * bins - h) // 2, (ksize[1] * bins - w) // 2)
        y = max_pooling_2d(x, ksize, pad=pad, cover_all=True)
        levels.append(ops.reshape(y, (n, -1, 1, 1)))
    return ops.concatenate(levels, axis=1)


# -- regions of interest ---------------------------------------------------------------------
@primitive(name="roi_gather")
def _roi_gather(x, *, batch, pos, weight):
    """``out[r, c, i, j] = sum_k weight[r, c', i, j, k] * x[batch[r], c, pos[r, c', i, j, k]]``,
    where ``pos`` are flat positions in a feature map and ``c'`` is ``c`` or 0 (shared)."""
    xp = backend.xp(x)
    n, c, h, w = x.shape
    planes = x.reshape(n, c, h * w)
    rows = batch.reshape(-1, 1, 1, 1)
    channels = xp.arange(c).reshape(1, c, 1, 1)
    out = xp.zeros((len(batch), c) + pos.shape[2:4], x.dtype)
    for k in range(pos.shape[-1]):
        out += weight[..., k] * planes[rows, channels, pos[..., k]]
    return out


@primitive(name="roi_scatter")
def _roi_scatter(y, *, batch, pos, weight, shape):
    """The adjoint of ``_roi_gather``: every ``y`` spread back with its weights onto ``shape``."""
    xp = backend.xp(y)
    n, c, h, w = shape
    size = n * c * h * w
    base = (batch.reshape(-1, 1, 1, 1) * c + xp.arange(c).reshape(1, c, 1, 1)) * (h * w)
    total = xp.zeros(size)
    for k in range(pos.shape[-1]):
        flat = base + pos[..., k]
        total += xp.bincount(flat.ravel(), weights=(weight[..., k] * y).ravel(), minlength=size)
    return total.astype(y.dtype).reshape(shape)


_roi_gather.defvjp(
    lambda g, ans, x, *, batch, pos, weight: _roi_scatter(
        g, batch=batch, pos=pos, weight=weight, shape=_shape(x)
    )
)
_roi_scatter.defvjp(
    lambda g, ans, y, *, batch, pos, weight, shape: _roi_gather(g, batch=batch, pos=pos, weight=weight)
)


def _outsize(fn: str, outsize) -> tuple[int, int]:
    return _ints(fn, "outsize", outsize, 2, 1)


def _check_scale(fn: str, spatial_scale) -> float:
    if not (isinstance(spatial_scale, numbers.Real) and spatial_scale > 0):
        raise InvalidInputError(
            message(
                fn,
                f"expected spatial_scale to be a positive number, got {spatial_scale!r}",
                hint="spatial_scale maps ROI coordinates to feature-map coordinates, e.g. 1/16",
            )
        )
    return float(spatial_scale)


def _rois(fn: str, x, rois, columns: int):
    """``x`` and ``rois`` checked (float, same dtype, ``rois`` of shape ``(R, columns)``); the raw
    ``rois`` in float64."""
    check_float(fn, "x", x)
    check_ndim(fn, "x", x, 4, "x is a batch of feature maps (n, c, h, w)")
    check_float(fn, "rois", rois)
    check_same_dtype(fn, ("x", "rois"), x, rois)
    boxes = unbox_all(rois)
    if boxes.ndim != 2 or boxes.shape[1] != columns:
        layout = (
            "(batch_index, x_min, y_min, x_max, y_max)" if columns == 5 else "(y_min, x_min, y_max, x_max)"
        )
        raise ShapeError(
            message(
                fn,
                f"expected rois.shape == (R, {columns}), got {boxes.shape}",
                {"rois": boxes},
                f"one row per ROI: {layout}",
            )
        )
    return boxes.astype(numpy.float64)


def _roi_indices(fn: str, x, boxes, roi_indices):
    """The image index of every ROI, checked (integers in ``[0, n)``, one per ROI)."""
    hint = "roi_indices[i] is the image of the batch that rois[i] lies on"
    index = _integer_array(fn, "roi_indices", roi_indices, hint)
    if index.shape != (len(boxes),):
        raise ShapeError(
            message(
                fn,
                f"expected roi_indices.shape == ({len(boxes)},) (one per ROI), got {index.shape}",
                {"roi_indices": index, "rois": boxes},
                hint,
            )
        )
    _check_range(fn, "roi_indices", index, _shape(x)[0], "x.shape[0]", hint)
    return index.astype(numpy.intp)


def _quantized_bins(start, end, extra: int, out: int, limit: int):
    """Integer bin bounds ``[lo, hi)`` ``(R, out)`` of Fast R-CNN's ROI pooling along one axis, from
    rounded ROI bounds (``extra`` is 1 where the end is inclusive)."""
    xp = backend.xp(start)
    length = xp.maximum(end - start + extra, 1)
    step = (length / out)[:, None]
    i = xp.arange(out)
    lo = xp.clip(xp.floor(i * step) + start[:, None], 0, limit)
    hi = xp.clip(xp.ceil((i + 1) * step) + start[:, None], 0, limit)
    return lo.astype(numpy.intp), hi.astype(numpy.intp)


def _roi_bins(boxes, columns: str, spatial_scale: float, outsize, shape, extra: int):
    """Bin bounds along h and w from ``boxes``, whose ``columns`` name their corners ('yxyx' for
    ``(y_min, x_min, y_max, x_max)``, 'xyxy' for ``(x_min, y_min, x_max, y_max)``)."""
    corners = backend.xp(boxes).round(boxes * spatial_scale)
    y0, y1 = corners[:, columns.index("y")], corners[:, columns.rindex("y")]
    x0, x1 = corners[:, columns.index("x")], corners[:, columns.rindex("x")]
    return (
        _quantized_bins(y0, y1, extra, outsize[0], shape[2]),
        _quantized_bins(x0, x1, extra, outsize[1], shape[3]),
    )


def _roi_max(x, batch, bins, fill: float):
    """Max over the integer bins: the argmax of every bin and channel found on raw arrays (a loop
    over bins, vectorized over ROIs and channels), then one differentiable gather."""
    (hlo, hhi), (wlo, whi) = bins
    value = unbox_all(x)
    xp = backend.xp(value)
    _, c, h, w = value.shape
    r, outh, outw = len(batch), hlo.shape[1], wlo.shape[1]
    pos = xp.zeros((r, c, outh, outw), numpy.intp)
    rows = batch.reshape(-1, 1, 1, 1)
    channels = xp.arange(c).reshape(1, c, 1, 1)
    for i, j in itertools.product(range(outh), range(outw)):
        ys, yvalid = _bin_range(hlo[:, i], hhi[:, i], h)
        xs, xvalid = _bin_range(wlo[:, j], whi[:, j], w)
        region = value[rows, channels, ys[:, None, :, None], xs[:, None, None, :]]
        inside = (yvalid[:, :, None] & xvalid[:, None, :])[:, None]
        region = xp.where(inside, region, -numpy.inf).reshape(r, c, -1)
        best = region.argmax(axis=-1)
        pos[:, :, i, j] = xp.take_along_axis(ys, best // xs.shape[1], 1) * w + xp.take_along_axis(
            xs, best % xs.shape[1], 1
        )
    empty = ((hhi <= hlo)[:, :, None] | (whi <= wlo)[:, None, :])[:, None]
    y = _roi_gather(x, batch=batch, pos=pos[..., None], weight=(~empty[..., None]).astype(value.dtype))
    return ops.where(empty, fill, y) if fill and bool(empty.any()) else y


def _bin_range(lo, hi, limit: int):
    """The indices ``lo .. hi - 1`` of every ROI's bin, padded to the longest ``(R, longest)``
    (clamped into range), and which of them are inside the bin."""
    xp = backend.xp(lo)
    longest = max(int((hi - lo).max()) if lo.size else 0, 1)
    index = lo[:, None] + xp.arange(longest)
    return xp.minimum(index, limit - 1), index < hi[:, None]


def roi_pooling_2d(x, rois, outh: int, outw: int, spatial_scale: float):
    """Fast R-CNN's ROI max pooling: every ROI of ``x`` ``(n, c, h, w)`` max-pooled to ``(outh, outw)``.

    ``rois`` ``(R, 5)`` holds ``(batch_index, x_min, y_min, x_max, y_max)`` in image coordinates
    (inclusive corners), scaled by ``spatial_scale`` and rounded to the feature map; each ROI is
    cut into ``outh x outw`` integer bins and each bin keeps its maximum (0 for an empty bin).
    The result is ``(R, c, outh, outw)``, differentiable in ``x`` (also twice, unlike Chainer).

    >>> import numpy
    >>> x = numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4)
    >>> rois = numpy.array([[0, 0, 0, 3, 3]], numpy.float32)
    >>> roi_pooling_2d(x, rois, 2, 2, 1.0)
    array([[[[ 5.,  7.],
             [13., 15.]]]], dtype=float32)
    """
    fn = "roi_pooling_2d"
    boxes = _rois(fn, x, rois, 5)
    outsize = _outsize(fn, (outh, outw))
    scale = _check_scale(fn, spatial_scale)
    batch = boxes[:, 0].astype(numpy.intp)
    _check_range(fn, "rois[:, 0]", batch, _shape(x)[0], "x.shape[0]", "rois[:, 0] is the image of every ROI")
    bins = _roi_bins(boxes[:, 1:], "xyxy", scale, outsize, _shape(x), 1)
    return _roi_max(x, batch, bins, 0.0)


def roi_max_pooling_2d(x, rois, roi_indices, outsize, spatial_scale: float):
    """ROI max pooling with ``(y_min, x_min, y_max, x_max)`` boxes and separate ``roi_indices``.

    Like ``roi_pooling_2d``, but ``rois`` is ``(R, 4)``, the image of ROI ``i`` is
    ``roi_indices[i]``, the box size is ``max - min`` (not inclusive), ``outsize`` is an int or a
    pair ``(outh, outw)``, and an empty bin reads ``-inf``, as in Chainer.

    >>> import numpy
    >>> x = numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4)
    >>> rois = numpy.array([[0, 0, 4, 4]], numpy.float32)
    >>> roi_max_pooling_2d(x, rois, numpy.array([0], numpy.int32), 2, 1.0)
    array([[[[ 5.,  7.],
             [13., 15.]]]], dtype=float32)
    """
    fn = "roi_max_pooling_2d"
    boxes = _rois(fn, x, rois, 4)
    batch = _roi_indices(fn, x, boxes, roi_indices)
    bins = _roi_bins(boxes, "yxyx", _check_scale(fn, spatial_scale), _outsize(fn, outsize), _shape(x), 0)
    return _roi_max(x, batch, bins, -numpy.inf)


def roi_average_pooling_2d(x, rois, roi_indices, outsize, spatial_scale: float):
    """ROI average pooling: like ``roi_max_pooling_2d``, but each bin keeps its mean (0 if empty).

    >>> import numpy
    >>> x = numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4)
    >>> rois = numpy.array([[0, 0, 4, 4]], numpy.float32)
    >>> roi_average_pooling_2d(x, rois, numpy.array([0], numpy.int32), 2, 1.0)
    array([[[[ 2.5,  4.5],
             [10.5, 12.5]]]], dtype=float32)
    """
    fn = "roi_average_pooling_2d"
    boxes = _rois(fn, x, rois, 4)
    batch = _roi_indices(fn, x, boxes, roi_indices)
    outh, outw = _outsize(fn, outsize)
    w = _shape(x)[3]
    (hlo, hhi), (wlo, whi) = _roi_bins(
        boxes, "yxyx", _check_scale(fn, spatial_scale), (outh, outw), _shape(x), 0
    )
    # every bin as all the pixels of the largest bin, weighted 1 / count inside and 0 outside
    ys, yvalid = _bin_range(hlo.ravel(), hhi.ravel(), _shape(x)[2])
    xs, xvalid = _bin_range(wlo.ravel(), whi.ravel(), w)
    r, ny, nx = len(batch), ys.shape[1], xs.shape[1]
    ys, yvalid = ys.reshape(r, outh, 1, ny, 1), yvalid.reshape(r, outh, 1, ny, 1)
    xs, xvalid = xs.reshape(r, 1, outw, 1, nx), xvalid.reshape(r, 1, outw, 1, nx)
    count = yvalid.sum(axis=3, keepdims=True) * xvalid.sum(axis=4, keepdims=True)
    weight = (yvalid & xvalid) / backend.xp(count).maximum(count, 1)
    dtype = unbox_all(x).dtype
    pos = (ys * w + xs).reshape(r, 1, outh, outw, ny * nx)
    return _roi_gather(x, batch=batch, pos=pos, weight=weight.reshape(pos.shape).astype(dtype))


def _sampling_ratio(fn: str, sampling_ratio) -> tuple:
    pair = sampling_ratio if isinstance(sampling_ratio, Sequence) else (sampling_ratio, sampling_ratio)
    if len(pair) != 2 or not all(
        s is None or (isinstance(s, numbers.Integral) and not isinstance(s, bool) and s >= 1) for s in pair
    ):
        raise InvalidInputError(
            message(
                fn,
                f"expected sampling_ratio to be None, an int >= 1 or a pair of them, got {sampling_ratio!r}",
                hint="None samples about one point per feature-map pixel of each bin",
            )
        )
    return tuple(pair)


def _align_axis(start, end, out: int, limit: int, ratio):
    """Bilinear sampling of Mask R-CNN's ROI align along one axis.

    Returns the two neighbouring indices ``(R, out, G, 2)`` of every sample point of every bin
    (``G`` the most samples per bin over the ROIs), their interpolation weights (0 for padded or
    out-of-range samples), and the number of samples per bin of every ROI ``(R,)``.
    """
    xp = backend.xp(start)
    length = xp.maximum(end - start, 1.0)
    step = length / out
    grid = xp.ceil(step).astype(numpy.intp) if ratio is None else xp.full(len(start), ratio, numpy.intp)
    samples = xp.arange(max(int(grid.max()), 1)) if len(start) else xp.arange(1)
    step, grid3 = step[:, None, None], grid[:, None, None]
    point = start[:, None, None] + xp.arange(out)[:, None] * step + (samples + 0.5) * step / grid3
    valid = (samples < grid3) & (point >= -1) & (point <= limit)
    point = xp.clip(point, 0, limit - 1)
    low = xp.floor(point).astype(numpy.intp)
    index = xp.stack([low, xp.minimum(low + 1, limit - 1)], axis=-1)
    weight = xp.stack([low + 1 - point, point - low], axis=-1) * valid[..., None]
    return index, weight, grid


def _align_samples(fn: str, x, rois, roi_indices, outsize, spatial_scale, sampling_ratio):
    """Every sample point of every bin: flat positions and weights ``(R, 1, outh, outw, S, 4)`` of
    its four neighbours, and the number of samples per bin ``(R,)``."""
    boxes = _rois(fn, x, rois, 4)
    batch = _roi_indices(fn, x, boxes, roi_indices)
    outh, outw = _outsize(fn, outsize)
    scaled = boxes * _check_scale(fn, spatial_scale)
    ratio = _sampling_ratio(fn, sampling_ratio)
    _, _, h, w = _shape(x)
    ys, wy, gy = _align_axis(scaled[:, 0], scaled[:, 2], outh, h, ratio[0])
    xs, wx, gx = _align_axis(scaled[:, 1], scaled[:, 3], outw, w, ratio[1])
    r, sy, sx = len(batch), ys.shape[2], xs.shape[2]
    # axes: roi, bin row, bin column, sample row, sample column, neighbour row, neighbour column
    pos = ys[:, :, None, :, None, :, None] * w + xs[:, None, :, None, :, None, :]
    weight = wy[:, :, None, :, None, :, None] * wx[:, None, :, None, :, None, :]
    shape = (r, 1, outh, outw, sy * sx, 4)
    return batch, pos.reshape(shape), weight.reshape(shape), gy * gx


def roi_average_align_2d(x, rois, roi_indices, outsize, spatial_scale: float, sampling_ratio=None):
    """Mask R-CNN's ROI align: every ROI of ``x`` ``(n, c, h, w)`` averaged into ``outsize`` bins
    by bilinear sampling, without rounding the box to the pixel grid.

    ``rois`` ``(R, 4)`` are ``(y_min, x_min, y_max, x_max)`` boxes scaled by ``spatial_scale``,
    ``roi_indices`` their images. Each bin averages a ``sampling_ratio`` grid of bilinearly
    interpolated points (``ceil(bin size)`` points per axis when None); points farther than one
    pixel outside the map count as zeros. The result ``(R, c, outh, outw)`` is differentiable in
    ``x`` (Chainer restricts it to float32; any float dtype works here).

    >>> import numpy
    >>> x = numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4)
    >>> rois = numpy.array([[0, 0, 4, 4]], numpy.float32)
    >>> roi_average_align_2d(x, rois, numpy.array([0], numpy.int32), 2, 1.0)
    array([[[[ 5.  ,  6.75],
             [12.  , 13.75]]]], dtype=float32)
    """
    batch, pos, weight, count = _align_samples(
        "roi_average_align_2d", x, rois, roi_indices, outsize, spatial_scale, sampling_ratio
    )
    weight = weight / count.reshape(-1, 1, 1, 1, 1, 1)
    shape = pos.shape[:4] + (-1,)
    dtype = unbox_all(x).dtype
    return _roi_gather(x, batch=batch, pos=pos.reshape(shape), weight=weight.reshape(shape).astype(dtype))


def roi_max_align_2d(x, rois, roi_indices, outsize, spatial_scale: float, sampling_ratio=None):
    """ROI align with max: like ``roi_average_align_2d``, but each bin keeps the largest of its
    bilinearly interpolated sample points (``-inf`` if none lies on the map), and the gradient
    flows to the four neighbours of that point.

    >>> import numpy
    >>> x = numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4)
    >>> rois = numpy.array([[0, 0, 4, 4]], numpy.float32)
    >>> roi_max_align_2d(x, rois, numpy.array([0], numpy.int32), 2, 1.0)
    array([[[[ 7.5,  9. ],
             [13.5, 15. ]]]], dtype=float32)
    """
    fn = "roi_max_align_2d"
    batch, pos, weight, _ = _align_samples(fn, x, rois, roi_indices, outsize, spatial_scale, sampling_ratio)
    value = unbox_all(x)
    xp = backend.xp(value)
    weight = weight.astype(value.dtype)
    # the best sample of every bin and channel, on raw arrays (a loop over the sample grid)
    valid = weight.sum(axis=-1) > 0
    best = xp.full((len(batch), value.shape[1]) + pos.shape[2:4], -numpy.inf, value.dtype)
    choice = xp.full(best.shape, -1, numpy.intp)
    for s in range(pos.shape[4]):
        sample = _roi_gather(value, batch=batch, pos=pos[:, :, :, :, s], weight=weight[:, :, :, :, s])
        better = valid[:, :, :, :, s] & (sample > best)
        best = xp.where(better, sample, best)
        choice = xp.where(better, s, choice)
    empty = choice < 0
    r, c, outh, outw = choice.shape
    picked = (
        xp.arange(r).reshape(r, 1, 1, 1),
        0,
        xp.arange(outh).reshape(1, 1, outh, 1),
        xp.arange(outw).reshape(1, 1, 1, outw),
        xp.maximum(choice, 0),
    )
    y = _roi_gather(x, batch=batch, pos=pos[picked], weight=weight[picked] * ~empty[..., None])
    return ops.where(empty, -numpy.inf, y) if bool(empty.any()) else y
