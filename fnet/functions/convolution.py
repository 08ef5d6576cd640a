"""Convolutions (Chainer's ``F.convolution_2d``, ``F.deconvolution_nd``, ...), pure and differentiable.

Everything rests on a closed trio of primitives over one geometry (image size, kernel size,
output size, stride, padding, dilation, groups):

- ``convolution`` (``_conv(x, W)``): the correlation of images ``x`` with filters ``W``;
- ``deconvolution`` (``_deconv(y, W)``): its transpose with respect to the images;
- ``convolution_filter_grad`` (``_filter_grad(x, y)``): its transpose with respect to the filters.

Each is bilinear, and each one's VJP is written with the other two (``d conv/dx = deconv``,
``d conv/dW = filter_grad``, ``d deconv/dy = conv``, ...), so derivatives of every order are
convolutions again. The three lay the patches of the images out as the matrix ``(channels *
kernel, batch * positions)`` ("im2col": one copy per kernel offset, from a zero-padded copy of
the images) so that each call is one large matrix product per group, with both operands
contiguous as BLAS likes them; the transpose ("col2im") adds the patches back, one slice per
kernel offset. With stride 1 the positions span the padded width, so that every copy moves long
contiguous runs (see ``_layout``). The bias is a broadcast add.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy

from .. import backend, ops
from ..autodiff import primitive
from ..autodiff.tracer import shape_of as _shape
from ..errors import InvalidInputError, ShapeError, message
from ..ops.linalg import raw_matmul
from ._checks import check_float, check_ndim, check_same_dtype

__all__ = [
    "convolution_1d",
    "convolution_2d",
    "convolution_3d",
    "convolution_nd",
    "deconvolution_1d",
    "deconvolution_2d",
    "deconvolution_3d",
    "deconvolution_nd",
    "depthwise_convolution_2d",
    "dilated_convolution_2d",
]

IntOrTuple = int | Sequence[int]


# -- geometry ----------------------------------------------------------------------------------
class _Geometry(NamedTuple):
    """A convolution of images of spatial ``size`` with kernels of ``ksize`` into ``out``."""

    size: tuple[int, ...]
    ksize: tuple[int, ...]
    out: tuple[int, ...]
    stride: tuple[int, ...]
    pad: tuple[int, ...]
    dilate: tuple[int, ...]
    groups: int


def _conv_outsize(size: int, k: int, s: int, p: int, cover_all: bool, d: int) -> int:
    """Chainer's ``get_conv_outsize``: positions of a dilated kernel stepping over the padded axis
    (with ``cover_all``, one more where the last input pixels would otherwise be left out)."""
    span = (k - 1) * d + 1
    return (size + 2 * p - span + (s - 1 if cover_all else 0)) // s + 1


def _deconv_outsize(size: int, k: int, s: int, p: int, d: int) -> int:
    """Chainer's ``get_deconv_outsize`` (without ``cover_all``): the image a convolution maps to ``size``."""
    return s * (size - 1) + (k - 1) * d + 1 - 2 * p


class _Layout(NamedTuple):
    """How the patches of one geometry are read from the zero-padded images, which are kept as
    ``(channels, batch, length)``: each image flattened, with some slack at its end."""

    padded: tuple[int, ...]  # the spatial shape of a padded image
    length: int  # the flat length of a padded image and its slack
    grid: tuple[int, ...]  # the spatial positions the matrix product computes (``out`` or more)
    flat: bool  # whether the windows index the flat images, else the (channels, batch, *padded) view
    windows: tuple  # per kernel offset: (its index into the patches, its window into the images)


# With stride 1, computing the outputs over the whole padded width (``grid``) rather than the
# output width makes each kernel offset read one contiguous run of every flattened image: the
# copies of im2col and col2im move long runs instead of rows of a few pixels (1.5-3x faster on
# 8x8 to 32x32 images). The extra columns cost matrix-product work, so this is done only while
# they add at most a quarter; their outputs are cropped, and their cotangents are zeros (so an
# infinite input pixel read there makes a NaN in the filter gradient, as 0 * inf).
_MAX_EXTRA = 1.25


@functools.lru_cache(maxsize=256)
def _layout(geom: _Geometry) -> _Layout:
    """The layout of ``geom``'s patches (cached: geometries repeat every training step)."""
    padded = tuple(
        max(n + 2 * p, (k - 1) * d + (o - 1) * s + 1)  # cover_all may read past size + 2 * pad
        for n, k, o, s, p, d in zip(geom.size, geom.ksize, geom.out, geom.stride, geom.pad, geom.dilate)
    )
    offsets = list(itertools.product(*(range(k) for k in geom.ksize)))
    grid = (geom.out[0], *padded[1:])
    if set(geom.stride) == {1} and math.prod(grid) <= _MAX_EXTRA * math.prod(geom.out):
        steps = [math.prod(padded[axis + 1 :]) for axis in range(len(padded))]
        starts = [sum(i * d * step for i, d, step in zip(offset, geom.dilate, steps)) for offset in offsets]
        span = math.prod(grid)
        windows = tuple(
            ((slice(None), *offset), (slice(None), slice(None), slice(start, start + span)))
            for offset, start in zip(offsets, starts)
        )
        return _Layout(padded, max(starts) + span, grid, True, windows)
    windows = tuple(
        (
            (slice(None), *offset),
            (
                slice(None),
                slice(None),
                *(
                    slice(i * d, i * d + (o - 1) * s + 1, s)
                    for i, d, o, s in zip(offset, geom.dilate, geom.out, geom.stride)
                ),
            ),
        )
        for offset in offsets
    )
    return _Layout(padded, math.prod(padded), geom.out, False, windows)


def _crop(shape: tuple[int, ...]) -> tuple:
    """The slices of ``(channels, batch, *spatial)`` that keep the leading ``shape`` of the spatial axes."""
    return (slice(None), slice(None), *(slice(0, n) for n in shape))


def _images(xp, channels: int, batch: int, geom: _Geometry, dtype):
    """Zeroed padded images: the flat buffer ``(channels, batch, length)``, its view
    ``(channels, batch, *padded)``, and the view of the image itself (inside the padding)."""
    layout = _layout(geom)
    flat = xp.zeros((channels, batch, layout.length), dtype=dtype)
    padded = flat[:, :, : math.prod(layout.padded)].reshape(channels, batch, *layout.padded)
    interior = padded[(slice(None), slice(None), *(slice(p, p + n) for p, n in zip(geom.pad, geom.size)))]
    return flat, padded, interior


# _CHANNEL_MAJOR: the convolution trio returns (batch, channels, ...) views of channel-major
# buffers instead of copying them into batch-major order. Elementwise operations (bias, relu) and
# pooling keep their operand's memory order, so the next convolution's im2col, and in the backward
# pass _outputs_major, find (channels, batch, ...) already contiguous and copy nothing.


# -- im2col / col2im on raw arrays ------------------------------------------------------------
def _im2col(x, geom: _Geometry):
    """The patches of images ``x`` ``(n, c, *size)`` as the matrix ``(c * prod(ksize), n * prod(grid))``
    (rows ordered by channel, then kernel offset)."""
    xp, layout = backend.xp(x), _layout(geom)
    n, c = x.shape[:2]
    source = x.swapaxes(0, 1)
    if layout.flat or layout.padded != geom.size:
        flat, padded, interior = _images(xp, c, n, geom, x.dtype)
        interior[...] = source
        source = flat if layout.flat else padded
    col = xp.empty((c, *geom.ksize, n, *layout.grid), dtype=x.dtype)
    for patch, window in layout.windows:
        target = col[patch]
        target[...] = source[window].reshape(target.shape)
    return col.reshape(c * math.prod(geom.ksize), n * math.prod(layout.grid))


def _col2im(col, channels: int, batch: int, geom: _Geometry):
    """The transpose of ``_im2col``: the patches ``(channels * prod(ksize), batch * prod(grid))``
    added up into images ``(batch, channels, *size)``."""
    xp, layout = backend.xp(col), _layout(geom)
    col = col.reshape(channels, *geom.ksize, batch, math.prod(layout.grid))
    flat, padded, interior = _images(xp, channels, batch, geom, col.dtype)
    target = flat if layout.flat else padded
    for patch, window in layout.windows:
        part = target[window]
        part += col[patch].reshape(part.shape)
    return interior.swapaxes(0, 1)  # channel-major in memory, as _conv's outputs


def _outputs_major(y, geom: _Geometry):
    """Outputs ``(n, o, *out)`` as the contiguous matrix ``(o, n * prod(grid))``, zero on the
    positions of the grid outside ``out``."""
    xp, grid = backend.xp(y), _layout(geom).grid
    n, o = y.shape[:2]
    if grid == geom.out:
        return xp.ascontiguousarray(y.swapaxes(0, 1)).reshape(o, -1)
    spread = xp.zeros((o, n, *grid), dtype=y.dtype)
    spread[_crop(geom.out)] = y.swapaxes(0, 1)
    return spread.reshape(o, -1)


def _grouped(matrix, groups: int):
    """A matrix ``(rows, columns)`` as ``groups`` stacked matrices ``(groups, rows / groups, columns)``."""
    return matrix.reshape(groups, matrix.shape[0] // groups, -1)


# -- the trio of primitives -------------------------------------------------------------------
@primitive(name="convolution")
def _conv(x, W, *, geom: _Geometry):
    """Correlate images ``x`` ``(n, c, *size)`` with filters ``W`` ``(o, c / groups, *ksize)``."""
    g, n, o = geom.groups, x.shape[0], W.shape[0]
    y = raw_matmul(_grouped(W, g), _grouped(_im2col(x, geom), g))
    y = y.reshape(o, n, *_layout(geom).grid)[_crop(geom.out)]
    return y.swapaxes(0, 1)  # channel-major in memory: see _CHANNEL_MAJOR


@primitive(name="deconvolution")
def _deconv(y, W, *, geom: _Geometry):
    """The transpose of ``_conv`` in ``x``: maps ``y`` ``(n, o, *out)`` to images ``(n, c, *size)``."""
    g = geom.groups
    col = raw_matmul(_grouped(W, g).swapaxes(1, 2), _grouped(_outputs_major(y, geom), g))
    return _col2im(col, W.shape[1] * g, y.shape[0], geom)


@primitive(name="convolution_filter_grad")
def _filter_grad(x, y, *, geom: _Geometry):
    """The transpose of ``_conv`` in ``W``: the products of ``y`` with the patches of ``x``, summed
    over the batch and the output positions, as filters ``(o, c / groups, *ksize)``."""
    g = geom.groups
    w = raw_matmul(_grouped(_outputs_major(y, geom), g), _grouped(_im2col(x, geom), g).swapaxes(1, 2))
    return w.reshape(y.shape[1], x.shape[1] // g, *geom.ksize)


_conv.defvjp(
    lambda g, ans, x, W, *, geom: _deconv(g, W, geom=geom),
    lambda g, ans, x, W, *, geom: _filter_grad(x, g, geom=geom),
)
_deconv.defvjp(
    lambda g, ans, y, W, *, geom: _conv(g, W, geom=geom),
    lambda g, ans, y, W, *, geom: _filter_grad(g, y, geom=geom),
)
_filter_grad.defvjp(
    lambda g, ans, x, y, *, geom: _deconv(y, g, geom=geom),
    lambda g, ans, x, y, *, geom: _conv(x, g, geom=geom),
)


# -- argument checks --------------------------------------------------------------------------


def _int_tuple(fn: str, name: str, value, ndim: int, minimum: int) -> tuple[int, ...]:
    """An int or a sequence of ``ndim`` ints, each ``>= minimum``, as a tuple (``stride=s`` means
    ``(s,) * ndim`` as in Chainer)."""
    values = tuple(value) if isinstance(value, (tuple, list, numpy.ndarray)) else (value,) * ndim
    if len(values) != ndim or not all(isinstance(v, (int, numpy.integer)) for v in values):
        raise InvalidInputError(
            message(
                fn,
                f"expected {name} to be an int or a sequence of {ndim} ints, got {value!r}",
                hint=f"pass one {name} for every spatial axis, or a single int for all of them",
            )
        )
    if min(values) < minimum:
        raise InvalidInputError(
            message(
                fn,
                f"expected {name} >= {minimum} on every axis, got {name}={value!r}",
                hint=f"{name} must be at least {minimum}",
            )
        )
    return tuple(int(v) for v in values)


def _check_operands(fn: str, x, W, b, ndim: int | None) -> int:
    """Check the images, filters and bias of a (de)convolution; returns the number of spatial axes."""
    check_float(fn, "x", x)
    check_float(fn, "W", W)
    check_same_dtype(fn, ("x", "W"), x, W)
    xs = _shape(x)
    if ndim is None:
        check_ndim(fn, "x", x, range(3, 64), "x has the layout (batch, channels, *spatial)")
        ndim = len(xs) - 2
    else:
        check_ndim(
            fn, "x", x, ndim + 2, f"x has the layout (batch, channels, *spatial) with {ndim} spatial axes"
        )
    check_ndim(
        fn, "W", W, ndim + 2, "W has one axis per spatial axis of x plus two: (channels, channels, *ksize)"
    )
    if b is not None:
        check_float(fn, "b", b)
        check_same_dtype(fn, ("x", "b"), x, b)
        check_ndim(fn, "b", b, 1, "b holds one value per output channel")
    return ndim


_CONV_LAYOUT = "W has the layout (out_channels, in_channels / groups, *ksize)"
_DECONV_LAYOUT = (
    "W has the layout (in_channels, out_channels / groups, *ksize), x (batch, in_channels, *spatial)"
)


def _channel_error(fn: str, problem: str, x, W, hint: str) -> ShapeError:
    return ShapeError(message(fn, problem, {"x": x, "W": W}, hint))


def _check_groups(fn: str, groups) -> int:
    if isinstance(groups, bool) or not isinstance(groups, (int, numpy.integer)) or groups < 1:
        raise InvalidInputError(
            message(
                fn, f"expected groups to be a positive int, got {groups!r}", hint="groups=1 means no grouping"
            )
        )
    return int(groups)


def _check_bias(fn: str, b, channels: int) -> None:
    if b is not None and _shape(b)[0] != channels:
        raise ShapeError(
            message(
                fn,
                f"expected b.shape == ({channels},), one bias per output channel, got {_shape(b)}",
                {"b": b},
                "b has one entry per output channel",
            )
        )


def _with_bias(y, b, ndim: int):
    """``y + b`` with ``b`` broadcast over the batch and the spatial axes."""
    return y if b is None else ops.add(y, ops.reshape(b, (1, -1) + (1,) * ndim))


def _strides(fn: str, ndim: int, stride, pad, dilate) -> tuple[tuple[int, ...], ...]:
    return (
        _int_tuple(fn, "stride", stride, ndim, 1),
        _int_tuple(fn, "pad", pad, ndim, 0),
        _int_tuple(fn, "dilate", dilate, ndim, 1),
    )


# -- the public functions ---------------------------------------------------------------------
def _convolution(fn: str, ndim: int | None, x, W, b, stride, pad, cover_all: bool, dilate, groups):
    ndim = _check_operands(fn, x, W, b, ndim)
    groups = _check_groups(fn, groups)
    (_, c, *size), (o, cg, *ksize) = _shape(x), _shape(W)
    if c != cg * groups:
        raise _channel_error(
            fn, f"expected x.shape[1] == W.shape[1] * groups, got {c} != {cg} * {groups}", x, W, _CONV_LAYOUT
        )
    if o % groups:
        raise _channel_error(
            fn,
            f"expected groups={groups} to divide the output channels W.shape[0], got {o}",
            x,
            W,
            _CONV_LAYOUT,
        )
    _check_bias(fn, b, o)
    s, p, d = _strides(fn, ndim, stride, pad, dilate)
    out = tuple(_conv_outsize(*args, bool(cover_all), di) for *args, di in zip(size, ksize, s, p, d))
    if min(out) < 1:
        raise ShapeError(
            message(
                fn,
                f"the kernel {tuple(ksize)} with dilation {d} does not fit the image {tuple(size)} "
                f"padded by {p}: the output size would be {out}",
                {"x": x, "W": W},
                "use a smaller kernel or dilation, or more padding",
            )
        )
    geom = _Geometry(tuple(size), tuple(ksize), out, s, p, d, groups)
    return _with_bias(_conv(x, W, geom=geom), b, ndim)


def _deconvolution(fn: str, ndim: int | None, x, W, b, stride, pad, outsize, dilate, groups):
    ndim = _check_operands(fn, x, W, b, ndim)
    groups = _check_groups(fn, groups)
    (_, c, *insize), (ci, og, *ksize) = _shape(x), _shape(W)
    if c != ci:
        raise _channel_error(fn, f"expected x.shape[1] == W.shape[0], got {c} != {ci}", x, W, _DECONV_LAYOUT)
    if c % groups:
        raise _channel_error(
            fn,
            f"expected groups={groups} to divide the input channels x.shape[1], got {c}",
            x,
            W,
            _DECONV_LAYOUT,
        )
    _check_bias(fn, b, og * groups)
    s, p, d = _strides(fn, ndim, stride, pad, dilate)
    if outsize is None:
        size = tuple(_deconv_outsize(*args) for args in zip(insize, ksize, s, p, d))
        if min(size) < 1:
            raise ShapeError(
                message(
                    fn,
                    f"the output size {size} is not positive (input {tuple(insize)}, kernel {tuple(ksize)}, "
                    f"stride {s}, pad {p}, dilate {d})",
                    {"x": x, "W": W},
                    "use less padding, or pass outsize",
                )
            )
    else:
        size = _int_tuple(fn, "outsize", outsize, ndim, 1)
        for axis, args in enumerate(zip(size, ksize, s, p)):
            low, high = (_conv_outsize(*args, cover_all, d[axis]) for cover_all in (False, True))
            if not low <= insize[axis] <= high:
                raise ShapeError(
                    message(
                        fn,
                        f"outsize={size} does not fit x: a convolution of an image of size {size[axis]} on "
                        f"axis {axis} has {low}..{high} positions, x has {insize[axis]}",
                        {"x": x, "W": W},
                        "pass outsize=None to infer it, or the size of the image this maps back to",
                    )
                )
    geom = _Geometry(size, tuple(ksize), tuple(insize), s, p, d, groups)
    return _with_bias(_deconv(x, W, geom=geom), b, ndim)


def convolution_nd(
    x,
    W,
    b=None,
    stride: IntOrTuple = 1,
    pad: IntOrTuple = 0,
    cover_all: bool = False,
    dilate: IntOrTuple = 1,
    groups: int = 1,
):
    """N-dimensional convolution (correlation) of images ``x`` ``(n, c_I, d_1, ..., d_N)`` with
    filters ``W`` ``(c_O, c_I / groups, k_1, ..., k_N)``, plus an optional bias ``b`` ``(c_O,)``.

    Every output pixel is the inner product of a filter with the patch of ``x`` it covers, read
    from ``-pad`` at every ``stride`` with ``dilate`` spacing between kernel taps; the output has
    ``(d + 2p - ((k - 1) * dilate + 1)) // s + 1`` positions per axis (``cover_all`` adds one where
    the last input pixels would otherwise be left out). With ``groups`` the channels are split
    into that many groups convolved independently. Differentiable to any order in ``x``, ``W`` and
    ``b``: the derivatives are deconvolutions and filter gradients, which are convolutions again.

    >>> import numpy
    >>> x = numpy.ones((2, 3, 5, 5, 5), numpy.float32)
    >>> convolution_nd(x, numpy.ones((4, 3, 2, 2, 2), numpy.float32), pad=1).shape
    (2, 4, 6, 6, 6)
    """
    return _convolution("convolution_nd", None, x, W, b, stride, pad, cover_all, dilate, groups)


def convolution_1d(
    x,
    W,
    b=None,
    stride: IntOrTuple = 1,
    pad: IntOrTuple = 0,
    cover_all: bool = False,
    dilate: IntOrTuple = 1,
    groups: int = 1,
):
    """One-dimensional convolution of sequences ``x`` ``(n, c_I, l)`` with filters ``W``
    ``(c_O, c_I / groups, k)``: ``convolution_nd`` for inputs with one spatial axis (checked).

    >>> import numpy
    >>> y = convolution_1d(numpy.ones((1, 2, 5), numpy.float32), numpy.ones((3, 2, 3), numpy.float32))
    >>> y[0, :, 0]
    array([6., 6., 6.], dtype=float32)
    """
    return _convolution("convolution_1d", 1, x, W, b, stride, pad, cover_all, dilate, groups)


def convolution_2d(
    x,
    W,
    b=None,
    stride: IntOrTuple = 1,
    pad: IntOrTuple = 0,
    cover_all: bool = False,
    *,
    dilate: IntOrTuple = 1,
    groups: int = 1,
):
    """Two-dimensional convolution of images ``x`` ``(n, c_I, h, w)`` with filters ``W``
    ``(c_O, c_I / groups, k_H, k_W)`` and an optional bias ``(c_O,)``: the layer of ConvNets.

    ``convolution_nd`` with two spatial axes (checked); ``dilate`` and ``groups`` are keyword
    arguments, as in Chainer. The output has ``(h + 2 p_H - k_H) // s_Y + 1`` rows (more with
    dilation less, with ``cover_all`` possibly one more) and likewise columns.

    >>> import numpy
    >>> x = numpy.arange(16, dtype=numpy.float32).reshape(1, 1, 4, 4)
    >>> convolution_2d(x, numpy.ones((1, 1, 2, 2), numpy.float32), stride=2)
    array([[[[10., 18.],
             [42., 50.]]]], dtype=float32)
    """
    return _convolution("convolution_2d", 2, x, W, b, stride, pad, cover_all, dilate, groups)


def convolution_3d(
    x,
    W,
    b=None,
    stride: IntOrTuple = 1,
    pad: IntOrTuple = 0,
    cover_all: bool = False,
    dilate: IntOrTuple = 1,
    groups: int = 1,
):
    """Three-dimensional convolution of volumes ``x`` ``(n, c_I, d, h, w)`` with filters ``W``
    ``(c_O, c_I / groups, k_D, k_H, k_W)``: ``convolution_nd`` with three spatial axes (checked).

    >>> import numpy
    >>> x = numpy.ones((1, 1, 3, 3, 3), numpy.float32)
    >>> float(convolution_3d(x, numpy.ones((1, 1, 3, 3, 3), numpy.float32))[0, 0, 0, 0, 0])
    27.0
    """
    return _convolution("convolution_3d", 3, x, W, b, stride, pad, cover_all, dilate, groups)


def dilated_convolution_2d(
    x,
    W,
    b=None,
    stride: IntOrTuple = 1,
    pad: IntOrTuple = 0,
    dilate: IntOrTuple = 1,
    cover_all: bool = False,
):
    """Two-dimensional convolution whose kernel taps are ``dilate`` pixels apart (atrous
    convolution): a ``k x k`` filter sees a ``(k - 1) * dilate + 1`` wide field at the cost of
    ``k x k`` taps. The same as ``convolution_2d(..., dilate=dilate)``, with Chainer's older
    argument order.

    >>> import numpy
    >>> x = numpy.arange(25, dtype=numpy.float32).reshape(1, 1, 5, 5)
    >>> dilated_convolution_2d(x, numpy.ones((1, 1, 2, 2), numpy.float32), dilate=4)
    array([[[[48.]]]], dtype=float32)
    """
    return _convolution("dilated_convolution_2d", 2, x, W, b, stride, pad, cover_all, dilate, 1)


def depthwise_convolution_2d(x, W, b=None, stride: IntOrTuple = 1, pad: IntOrTuple = 0):
    """Depthwise convolution: each input channel of ``x`` ``(n, c_I, h, w)`` is convolved on its
    own with ``c_M`` filters of ``W`` ``(c_M, c_I, k_H, k_W)``, and the results are concatenated
    (not summed) into ``c_I * c_M`` output channels, channel ``i * c_M + m`` from input channel
    ``i`` and filter ``m``; ``b`` has ``c_I * c_M`` entries. A grouped convolution with one
    group per input channel, far cheaper than a full one (MobileNet's building block).

    >>> import numpy
    >>> x = numpy.ones((2, 3, 4, 7), numpy.float32)
    >>> depthwise_convolution_2d(x, numpy.ones((2, 3, 3, 3), numpy.float32)).shape
    (2, 6, 2, 5)
    """
    fn = "depthwise_convolution_2d"
    _check_operands(fn, x, W, b, 2)
    (multiplier, channels, kh, kw), c = _shape(W), _shape(x)[1]
    if c != channels:
        raise _channel_error(
            fn,
            f"expected x.shape[1] == W.shape[1], got {c} != {channels}",
            x,
            W,
            "W has the layout (channel_multiplier, in_channels, k_H, k_W)",
        )
    filters = ops.reshape(ops.transpose(W, (1, 0, 2, 3)), (channels * multiplier, 1, kh, kw))
    return _convolution(fn, 2, x, filters, b, stride, pad, False, 1, channels)


def deconvolution_nd(
    x,
    W,
    b=None,
    stride: IntOrTuple = 1,
    pad: IntOrTuple = 0,
    outsize: Sequence[int] | None = None,
    dilate: IntOrTuple = 1,
    groups: int = 1,
):
    """N-dimensional deconvolution (transposed convolution) of ``x`` ``(n, c_I, d_1, ..., d_N)``
    with filters ``W`` ``(c_I, c_O / groups, k_1, ..., k_N)``, plus an optional bias ``(c_O,)``.

    The transpose of ``convolution_nd`` with the same ``W``, ``stride``, ``pad``, ``dilate`` and
    ``groups``: each input pixel spreads its filter-weighted copy over the output, which is how
    decoders and generators upsample. The output has ``s (d - 1) + (k - 1) * dilate + 1 - 2 p``
    positions per axis unless ``outsize`` is given (any size whose convolution, with or without
    ``cover_all``, has ``x``'s size). Differentiable to any order.

    >>> import numpy
    >>> x = numpy.ones((1, 2, 3, 3, 3), numpy.float32)
    >>> deconvolution_nd(x, numpy.ones((2, 4, 2, 2, 2), numpy.float32), stride=2).shape
    (1, 4, 6, 6, 6)
    """
    return _deconvolution("deconvolution_nd", None, x, W, b, stride, pad, outsize, dilate, groups)


def deconvolution_1d(
    x,
    W,
    b=None,
    stride: IntOrTuple = 1,
    pad: IntOrTuple = 0,
    outsize: Sequence[int] | None = None,
    dilate: IntOrTuple = 1,
    groups: int = 1,
):
    """One-dimensional deconvolution of ``x`` ``(n, c_I, l)`` with filters ``W``
    ``(c_I, c_O / groups, k)``: ``deconvolution_nd`` for one spatial axis (checked).

    >>> import numpy
    >>> x = numpy.array([[[1.0, 2.0]]], numpy.float32)
    >>> deconvolution_1d(x, numpy.ones((1, 1, 2), numpy.float32), stride=2)
    array([[[1., 1., 2., 2.]]], dtype=float32)
    """
    return _deconvolution("deconvolution_1d", 1, x, W, b, stride, pad, outsize, dilate, groups)


def deconvolution_2d(
    x,
    W,
    b=None,
    stride: IntOrTuple = 1,
    pad: IntOrTuple = 0,
    outsize: Sequence[int] | None = None,
    *,
    dilate: IntOrTuple = 1,
    groups: int = 1,
):
    """Two-dimensional deconvolution (transposed convolution) of images ``x`` ``(n, c_I, h, w)``
    with filters ``W`` ``(c_I, c_O / groups, k_H, k_W)``: the upsampling layer of decoders.

    ``deconvolution_nd`` with two spatial axes (checked); ``dilate`` and ``groups`` are keyword
    arguments, as in Chainer. The output is ``s_Y (h - 1) + k_H - 2 p_H`` high (with no dilation)
    and likewise wide, unless ``outsize`` is given.

    >>> import numpy
    >>> x = numpy.ones((1, 1, 2, 2), numpy.float32)
    >>> deconvolution_2d(x, numpy.ones((1, 1, 2, 2), numpy.float32), stride=1)
    array([[[[1., 2., 1.],
             [2., 4., 2.],
             [1., 2., 1.]]]], dtype=float32)
    """
    return _deconvolution("deconvolution_2d", 2, x, W, b, stride, pad, outsize, dilate, groups)


def deconvolution_3d(
    x,
    W,
    b=None,
    stride: IntOrTuple = 1,
    pad: IntOrTuple = 0,
    outsize: Sequence[int] | None = None,
    dilate: IntOrTuple = 1,
    groups: int = 1,
):
    """Three-dimensional deconvolution of volumes ``x`` ``(n, c_I, d, h, w)`` with filters ``W``
    ``(c_I, c_O / groups, k_D, k_H, k_W)``: ``deconvolution_nd`` with three spatial axes (checked).

    >>> import numpy
    >>> x = numpy.ones((1, 1, 2, 2, 2), numpy.float32)
    >>> deconvolution_3d(x, numpy.ones((1, 3, 3, 3, 3), numpy.float32), pad=1).shape
    (1, 3, 2, 2, 2)
    """
    return _deconvolution("deconvolution_3d", 3, x, W, b, stride, pad, outsize, dilate, groups)
