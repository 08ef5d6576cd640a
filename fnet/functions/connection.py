"""Connections (Chainer's ``F.linear``, ``F.embed_id``, ``F.bilinear``...), pure and differentiable.

``linear`` is on every model's hot path, so it is one primitive: ``x @ W.T + b`` in a single
BLAS call that adds the bias in place, with VJPs that are themselves matrix products (``g @ W``
and ``g.T @ x``, the latter already in ``W``'s layout, so no transposed copy ever reaches the
optimizer). ``embed_id`` gathers rows of ``W`` and its gradient scatters them back into a fresh
zero matrix: two primitives, each the other's VJP. A weight or an embedding used at many steps
(a recurrent network unrolled in time) gets its gradient as a deferred cotangent when the
backward pass is not recorded (``fnet.deferred``): all the uses' products in one product of the
stacked factors, all their rows in one scatter. ``shift`` is a primitive too: a translation
of each channel group, whose VJP is the opposite translation. ``bilinear``,
``local_convolution_2d`` (patches from ``im2col`` and one batched product per output position)
and ``deformable_convolution_2d_sampler`` (bilinear sampling with
``spatial_transformer_sampler``, then one product with the filters) are compositions of
``fnet.ops``, so their gradients of every order come for free.
"""

from __future__ import annotations

import math

import numpy

from .. import backend, ops
from ..autodiff import primitive
from ..autodiff.tracer import shape_of as _shape
from ..autodiff.tracer import unbox_all
from ..deferred import Deferred, deferrable
from ..errors import InvalidInputError, ShapeError, message
from ..ops.indexing import device_scatter_add
from ._checks import check_float, check_labels, check_ndim, check_same_dtype
from .array import _pair, im2col, spatial_transformer_sampler

__all__ = [
    "bilinear",
    "deformable_convolution_2d_sampler",
    "embed_id",
    "linear",
    "local_convolution_2d",
    "shift",
]


def _check_param(fn: str, name: str, p, like: str, x, expected: tuple, hint: str) -> None:
    """A parameter ``p`` must be a float array of shape ``expected`` and of ``x``'s dtype."""
    check_float(fn, name, p)
    check_same_dtype(fn, (like, name), x, p)
    if _shape(p) != expected:
        raise ShapeError(
            message(fn, f"expected {name}.shape == {expected}, got {_shape(p)}", {like: x, name: p}, hint)
        )


def _positive_pair(fn: str, name: str, value, *, allow_zero: bool = False) -> tuple[int, int]:
    """An int or a pair of ints, each ``>= 1`` (``>= 0`` with ``allow_zero``)."""
    pair = _pair(fn, name, value)
    bound = 0 if allow_zero else 1
    if min(pair) < bound:
        raise InvalidInputError(
            message(
                fn,
                f"expected {name} >= {bound} (an int or a pair of ints), got {value!r}",
                hint=f"{name}=k means (k, k)",
            )
        )
    return pair


# -- linear ----------------------------------------------------------------------------------
@primitive(name="linear")
def _linear(x, W, b):
    y = x @ W.T
    if b is not None:
        y += b
    return y


class _ProductSum(Deferred):
    """``sum_k g_k.T @ x_k``, the cotangent of a weight used several times, kept as its factors:
    one product of the stacked factors costs less than a product and a sum per use."""

    __slots__ = ("gs", "xs")

    def __init__(self, gs: list, xs: list):
        super().__init__((gs[0].shape[1], xs[0].shape[1]), gs[0].dtype)
        self.gs = gs
        self.xs = xs

    def _joined(self, other):
        return _ProductSum(self.gs + other.gs, self.xs + other.xs)

    def value(self):
        if len(self.gs) == 1:
            return self.gs[0].T @ self.xs[0]
        xp = backend.xp(self.gs[0])
        return xp.concatenate(self.gs).T @ xp.concatenate(self.xs)


class _InputProducts(Deferred):
    """``g @ W``, the cotangent of a linear map's input. Those of one weight are computed as one
    product of the stacked ``g`` (the output layer of a language model, applied at each of T
    time steps: one product of T * B rows runs faster than T products of B rows)."""

    __slots__ = ("g", "W", "batch_key")

    def __init__(self, g, W):
        super().__init__((g.shape[0], W.shape[1]), g.dtype)
        self.g = g
        self.W = W
        self.batch_key = (_InputProducts, id(W))  # W is held here, so its id is not reused

    def _joined(self, other):
        return _InputProducts(self.g + other.g, self.W) if other.W is self.W else None

    def value(self):
        return self.g @ self.W

    @classmethod
    def values(cls, deferred: list) -> list:
        if len(deferred) == 1:
            return super().values(deferred)
        xp = backend.xp(deferred[0].g)
        rows = numpy.cumsum([d.shape[0] for d in deferred[:-1]]).tolist()
        return xp.split(xp.concatenate([d.g for d in deferred]) @ deferred[0].W, rows)


_linear.defvjp(
    lambda g, ans, x, W, b: ops.matmul(g, W),
    lambda g, ans, x, W, b: ops.matmul(ops.transpose(g), x),
    lambda g, ans, x, W, b: ops.sum(g, axis=0),
)
deferrable(
    _linear,
    lambda g, ans, x, W, b: _InputProducts(g, W),
    lambda g, ans, x, W, b: _ProductSum([g], [x]),
)


def linear(x, W, b=None, n_batch_axes: int = 1):
    """Affine map ``y = x W^T + b``, the fully-connected layer.

    The first ``n_batch_axes`` axes of ``x`` are batch axes and the others are flattened into
    one of size ``N = W.shape[1]``; ``W`` is ``(M, N)`` (Chainer's and PyTorch's layout) and the
    optional bias ``b`` is ``(M,)``. The result has shape ``x.shape[:n_batch_axes] + (M,)``. It
    is one matrix product with the bias added in place; the gradients are matrix products too.

    >>> import numpy
    >>> x = numpy.ones((2, 3), numpy.float32)
    >>> linear(x, numpy.ones((4, 3), numpy.float32), numpy.arange(4, dtype=numpy.float32))
    array([[3., 4., 5., 6.],
           [3., 4., 5., 6.]], dtype=float32)
    """
    fn = "linear"
    check_float(fn, "x", x)
    check_float(fn, "W", W)
    check_ndim(fn, "W", W, 2, "W has shape (out_size, in_size)")
    if (
        isinstance(n_batch_axes, bool)
        or not isinstance(n_batch_axes, (int, numpy.integer))
        or n_batch_axes < 1
    ):
        raise InvalidInputError(
            message(
                fn,
                f"expected n_batch_axes to be an int >= 1, got {n_batch_axes!r}",
                {"x": x},
                "n_batch_axes counts the leading axes of x that are kept in the output",
            )
        )
    xs, ws = _shape(x), _shape(W)
    if len(xs) <= n_batch_axes:
        raise ShapeError(
            message(
                fn,
                f"expected x.ndim > n_batch_axes = {n_batch_axes}, got x.ndim == {len(xs)}",
                {"x": x},
                "x is (batch axes..., features...); add a feature axis, e.g. x[:, None]",
            )
        )
    batch = xs[:n_batch_axes]
    size = math.prod(xs[n_batch_axes:])
    if size != ws[1]:
        raise ShapeError(
            message(
                fn,
                f"expected the features of x (x.shape[{n_batch_axes}:] = {xs[n_batch_axes:]}, {size} in all) "
                f"to number W.shape[1] == {ws[1]}",
                {"x": x, "W": W},
                "W has shape (out_size, in_size); did you pass W.T?",
            )
        )
    check_same_dtype(fn, ("x", "W"), x, W)
    if b is not None:
        _check_param(fn, "b", b, "W", W, (ws[0],), "b has one entry per output unit, shape (W.shape[0],)")
    flat = len(xs) != 2 or n_batch_axes != 1
    y = _linear(ops.reshape(x, (math.prod(batch), size)) if flat else x, W, b)
    return ops.reshape(y, (*batch, ws[0])) if flat else y


# -- bilinear --------------------------------------------------------------------------------
def bilinear(e1, e2, W, V1=None, V2=None, b=None):
    """Bilinear layer ``y_il = sum_jk e1_ij e2_ik W_jkl + sum_j e1_ij V1_jl + sum_k e2_ik V2_kl + b_l``.

    The building block of Neural Tensor Networks: every output unit is a quadratic form of the
    two inputs, plus (optionally) a linear term of each and a bias. ``e1`` ``(I, J)`` and ``e2``
    ``(I, K)`` share the batch axis 0 (further axes are flattened into ``J`` and ``K``), ``W`` is
    ``(J, K, L)``; ``V1`` ``(J, L)``, ``V2`` ``(K, L)`` and ``b`` ``(L,)`` are given all three or
    none, as in Chainer. The result is ``(I, L)``.

    >>> import numpy
    >>> e = numpy.ones((2, 3), numpy.float32)
    >>> bilinear(e, e, numpy.ones((3, 3, 4), numpy.float32)).shape
    (2, 4)
    """
    fn = "bilinear"
    linear_terms = (V1, V2, b)
    if any(p is None for p in linear_terms) and any(p is not None for p in linear_terms):
        raise InvalidInputError(
            message(
                fn,
                "expected V1, V2 and b to be given all three or none, got "
                + ", ".join(
                    f"{n}={'None' if p is None else 'array'}" for n, p in zip(("V1", "V2", "b"), linear_terms)
                ),
                hint="pass zeros for the linear terms you do not want",
            )
        )
    for name, e in (("e1", e1), ("e2", e2)):
        check_float(fn, name, e)
        check_ndim(fn, name, e, range(2, 33), f"{name} is (batch, features...)")
    check_float(fn, "W", W)
    check_ndim(fn, "W", W, 3, "W has shape (e1 features, e2 features, out_size)")
    check_same_dtype(fn, ("e1", "e2"), e1, e2)
    check_same_dtype(fn, ("e1", "W"), e1, W)
    s1, s2, (j, k, out) = _shape(e1), _shape(e2), _shape(W)
    if s1[0] != s2[0] or math.prod(s1[1:]) != j or math.prod(s2[1:]) != k:
        raise ShapeError(
            message(
                fn,
                f"expected e1 (I, J) and e2 (I, K) to fit W (J, K, L) = {(j, k, out)}, got e1.shape={s1} "
                f"and e2.shape={s2}",
                {"e1": e1, "e2": e2, "W": W},
                "the batch sizes must agree; e1 and e2 must have W.shape[0] and W.shape[1] features",
            )
        )
    batch = s1[0]
    left = ops.reshape(e1, (batch, j))
    right = ops.reshape(e2, (batch, k))
    outer = ops.reshape(ops.multiply(ops.expand_dims(left, 2), ops.expand_dims(right, 1)), (batch, j * k))
    y = ops.matmul(outer, ops.reshape(W, (j * k, out)))
    if b is None:
        return y
    hint = "V1 is (J, L), V2 is (K, L) and b is (L,) for W of shape (J, K, L)"
    _check_param(fn, "V1", V1, "W", W, (j, out), hint)
    _check_param(fn, "V2", V2, "W", W, (k, out), hint)
    _check_param(fn, "b", b, "W", W, (out,), hint)
    return ops.add(ops.add(ops.add(y, ops.matmul(left, V1)), ops.matmul(right, V2)), b)


# -- embed_id --------------------------------------------------------------------------------
@primitive(name="embed_id")
def _gather_rows(W, *, ids, keep):
    rows = W[ids]
    if keep is not None:
        rows[~keep] = 0
    return rows


def _kept_rows(g, ids, keep):
    """The rows of ``g`` ``(..., d)`` that have a gradient, as ``(n, d)``, and their ids ``(n,)``."""
    if keep is not None:
        return ids[keep], g[keep]
    return ids.reshape(-1), g.reshape(-1, g.shape[-1])


def _add_rows(gW, ids, rows):
    """``gW[ids[k]] += rows[k]`` for every k, repeated ids adding up."""
    if backend.xp(gW) is numpy:
        numpy.add.at(gW, ids, rows)
    else:
        device_scatter_add(gW, ids, rows)


@primitive(name="embed_id_grad")
def _scatter_rows(g, *, ids, keep, n_rows):
    gW = backend.xp(g).zeros_like(g, shape=(n_rows, g.shape[-1]))  # g's kind of array: capture follows it
    _add_rows(gW, *_kept_rows(g, ids, keep))
    return gW


class _RowScatter(Deferred):
    """The cotangent of an embedding used several times, kept as its ids and rows: one
    scatter into one zero matrix instead of a zero matrix and a sum per use."""

    __slots__ = ("ids", "rows")

    def __init__(self, shape: tuple, ids: list, rows: list):
        super().__init__(shape, rows[0].dtype)
        self.ids = ids
        self.rows = rows

    def _joined(self, other):
        return _RowScatter(self.shape, self.ids + other.ids, self.rows + other.rows)

    def value(self):
        xp = backend.xp(self.rows[0])
        gW = xp.zeros_like(self.rows[0], shape=self.shape)  # of the rows' dtype and kind of array
        if len(self.ids) == 1:
            _add_rows(gW, self.ids[0], self.rows[0])
        else:
            _add_rows(gW, xp.concatenate(self.ids), xp.concatenate(self.rows))
        return gW


def _deferred_rows(g, ans, W, *, ids, keep):
    ids, rows = _kept_rows(g, ids, keep)
    return _RowScatter(W.shape, [ids], [rows])


_gather_rows.defvjp(lambda g, ans, W, *, ids, keep: _scatter_rows(g, ids=ids, keep=keep, n_rows=_shape(W)[0]))
deferrable(_gather_rows, _deferred_rows)
_scatter_rows.defvjp(lambda g, ans, gy, *, ids, keep, n_rows: _gather_rows(g, ids=ids, keep=keep))


def embed_id(x, W, ignore_label: int | None = None):
    """Word embedding: the rows ``W[x]`` of the embedding matrix ``W`` ``(V, d)``, one per id.

    Equivalent to multiplying one-hot vectors by ``W``, without building them. ``x`` is an
    integer array of ids in ``[0, V)`` of any shape and the result has shape ``x.shape + (d,)``;
    ids equal to ``ignore_label`` give zero vectors and no gradient. Differentiable in ``W``
    only: its gradient adds each incoming row at its id.

    >>> import numpy
    >>> W = numpy.arange(6, dtype=numpy.float32).reshape(3, 2)
    >>> embed_id(numpy.array([2, -1, 0], numpy.int32), W, ignore_label=-1)
    array([[4., 5.],
           [0., 0.],
           [0., 1.]], dtype=float32)
    """
    fn = "embed_id"
    check_float(fn, "W", W)
    check_ndim(fn, "W", W, 2, "W has shape (vocabulary size, embedding size)")
    check_ndim(fn, "x", x, range(1, 33), "x holds the ids, e.g. a (batch,) int32 array")
    ids = unbox_all(x)
    check_labels(fn, "x", ids, _shape(W)[0], ignore_label)
    keep = None
    if ignore_label is not None:
        keep = ids != ignore_label
        ids = backend.xp(ids).where(keep, ids, 0)
    return _gather_rows(W, ids=ids, keep=keep)


# -- shift -----------------------------------------------------------------------------------
def _window(offset: int, size: int) -> tuple[slice, slice] | None:
    """Destination and source slices of ``y[i] = x[i - offset]`` on an axis of ``size`` (None
    when the translation leaves nothing)."""
    if abs(offset) >= size:
        return None
    return slice(max(offset, 0), size + min(offset, 0)), slice(max(-offset, 0), size - max(offset, 0))


@primitive(name="shift")
def _shift(x, *, ksize, dilate):
    kh, kw = ksize
    c, h, w = x.shape[1:]
    groups = kh * kw
    size = c // groups
    center = (groups - 1) // 2
    y = backend.xp(x).zeros_like(x)
    for group in range(groups):
        # Chainer lists the centre (unshifted) kernel position last: swap it with the last one.
        position = groups - 1 if group == center else center if group == groups - 1 else group
        rows = _window((position // kw - kh // 2) * dilate[0], h)
        cols = _window((position % kw - kw // 2) * dilate[1], w)
        if rows is None or cols is None:
            continue
        channels = slice(group * size, (group + 1) * size if group < groups - 1 else c)
        y[:, channels, rows[0], cols[0]] = x[:, channels, rows[1], cols[1]]
    return y


_shift.defvjp(lambda g, ans, x, *, ksize, dilate: _shift(g, ksize=ksize, dilate=(-dilate[0], -dilate[1])))


def shift(x, ksize=3, dilate=1):
    """Shift: translate each group of channels of ``x`` ``(n, c, h, w)`` by one kernel offset.

    The channels are split into ``kh * kw`` groups (the remainder joins the last group), and
    each group is moved, with zero fill, by one of the offsets of a ``ksize`` kernel with
    ``dilate`` spacing; the last group is not moved. A zero-FLOP, zero-parameter stand-in for a
    spatial convolution (Wu et al., 2017): followed by a 1x1 convolution it mixes neighbours.
    ``ksize`` must be odd and ``c >= kh * kw``; the output has ``x``'s shape.

    >>> import numpy
    >>> y = shift(numpy.ones((1, 9, 3, 3), numpy.float32))
    >>> y.shape, float(y[0, 0, 0, 0]), float(y[0, 0, 2, 2])
    ((1, 9, 3, 3), 1.0, 0.0)
    """
    fn = "shift"
    check_float(fn, "x", x)
    check_ndim(fn, "x", x, 4, "x has the layout (batch, channels, height, width)")
    kh, kw = _positive_pair(fn, "ksize", ksize)
    if kh % 2 == 0 or kw % 2 == 0:
        raise InvalidInputError(
            message(
                fn, f"expected an odd ksize, got {(kh, kw)}", {"x": x}, "use 3, 5, ... (or a pair of them)"
            )
        )
    dy, dx = _pair(fn, "dilate", dilate)
    if dy == 0 or dx == 0:
        raise InvalidInputError(
            message(
                fn, f"expected a non-zero dilate, got {(dy, dx)}", {"x": x}, "dilate=1 shifts by one pixel"
            )
        )
    channels = _shape(x)[1]
    if channels < kh * kw:
        raise ShapeError(
            message(
                fn,
                f"expected at least ksize[0] * ksize[1] = {kh * kw} channels, got x.shape[1] == {channels}",
                {"x": x},
                "every kernel offset needs its own group of channels; use a smaller ksize",
            )
        )
    return _shift(x, ksize=(kh, kw), dilate=(dy, dx))


# -- local and deformable convolutions -------------------------------------------------------
def _check_images(fn: str, x, W, w_ndim: int, w_layout: str) -> None:
    check_float(fn, "x", x)
    check_ndim(fn, "x", x, 4, "x has the layout (batch, channels, height, width)")
    check_float(fn, "W", W)
    check_ndim(fn, "W", W, w_ndim, f"W has the layout {w_layout}")
    check_same_dtype(fn, ("x", "W"), x, W)


def local_convolution_2d(x, W, b=None, stride=1):
    """Locally-connected 2-D layer: a convolution whose filters differ at every output position.

    ``x`` is ``(n, c_I, h, w)`` and ``W`` ``(c_O, h_O, w_O, c_I, k_H, k_W)`` holds one filter
    bank per output pixel, with ``h_O = (h - k_H) // s_Y + 1`` (no padding) and likewise
    ``w_O``; the optional bias ``b`` is ``(c_O, h_O, w_O)``. The patches come from ``im2col``
    and each output position is one matrix product, all in a single batched ``matmul``. The
    result is ``(n, c_O, h_O, w_O)``.

    >>> import numpy
    >>> x = numpy.ones((2, 3, 4, 4), numpy.float32)
    >>> local_convolution_2d(x, numpy.ones((5, 2, 2, 3, 3, 3), numpy.float32)).shape
    (2, 5, 2, 2)
    """
    fn = "local_convolution_2d"
    _check_images(fn, x, W, 6, "(out_channels, out_h, out_w, in_channels, k_h, k_w)")
    sy, sx = _positive_pair(fn, "stride", stride)
    n, c, h, w = _shape(x)
    out_c, out_h, out_w, in_c, kh, kw = _shape(W)
    expected = ((h - kh) // sy + 1, (w - kw) // sx + 1)
    if in_c != c or kh > h or kw > w or (out_h, out_w) != expected:
        raise ShapeError(
            message(
                fn,
                f"expected W.shape[3] == x.shape[1] == {c}, a kernel that fits the image, and "
                f"W.shape[1:3] == {expected} (the output size for that kernel and stride), "
                f"got W.shape={_shape(W)}",
                {"x": x, "W": W},
                "W is (out_channels, out_h, out_w, in_channels, k_h, k_w), out = (size - k) // stride + 1",
            )
        )
    if b is not None:
        _check_param(
            fn, "b", b, "W", W, (out_c, out_h, out_w), "b has one entry per output unit and position"
        )
    positions, features = out_h * out_w, c * kh * kw
    patches = ops.reshape(im2col(x, (kh, kw), (sy, sx)), (n, features, positions))
    filters = ops.reshape(W, (out_c, positions, features))
    y = ops.matmul(ops.transpose(patches, (2, 0, 1)), ops.transpose(filters, (1, 2, 0)))  # (P, n, c_O)
    y = ops.reshape(ops.transpose(y, (1, 2, 0)), (n, out_c, out_h, out_w))
    return y if b is None else ops.add(y, b)


def deformable_convolution_2d_sampler(x, offset, W, b=None, stride=1, pad=0):
    """Deformable 2-D convolution: each kernel tap reads ``x`` at its own learned offset.

    ``x`` is ``(n, c_I, h, w)``, ``W`` ``(c_O, c_I, k_H, k_W)`` and ``offset`` ``(n, 2 k_H k_W,
    h_O, w_O)``: for output pixel ``(i, j)`` and kernel tap ``k`` (row-major over the kernel),
    the tap reads the zero-padded input at column ``j s_X + k % k_W + offset[:, k]`` and row
    ``i s_Y + k // k_W + offset[:, k_H k_W + k]`` (x offsets first, then y offsets, as in
    Chainer), by bilinear interpolation with zeros outside. The samples are then multiplied
    by the filters (and ``b`` ``(c_O,)`` added), giving ``(n, c_O, h_O, w_O)``. Differentiable
    in ``x``, ``offset``, ``W`` and ``b``.

    >>> import numpy
    >>> x = numpy.ones((1, 2, 4, 4), numpy.float32)
    >>> offset = numpy.zeros((1, 18, 2, 2), numpy.float32)
    >>> deformable_convolution_2d_sampler(x, offset, numpy.ones((3, 2, 3, 3), numpy.float32))[0, :, 0, 0]
    array([18., 18., 18.], dtype=float32)
    """
    fn = "deformable_convolution_2d_sampler"
    _check_images(fn, x, W, 4, "(out_channels, in_channels, k_h, k_w)")
    check_float(fn, "offset", offset)
    check_ndim(fn, "offset", offset, 4, "offset has the layout (batch, 2 * k_h * k_w, out_h, out_w)")
    check_same_dtype(fn, ("x", "offset"), x, offset)
    sy, sx = _positive_pair(fn, "stride", stride)
    ph, pw = _positive_pair(fn, "pad", pad, allow_zero=True)
    n, c, h, w = _shape(x)
    out_c, in_c, kh, kw = _shape(W)
    taps = kh * kw
    on, oc, out_h, out_w = _shape(offset)
    if in_c != c or on != n or oc != 2 * taps:
        raise ShapeError(
            message(
                fn,
                f"expected W.shape[1] == x.shape[1] == {c} and offset.shape[:2] == "
                f"(x.shape[0], 2 * k_h * k_w) == {(n, 2 * taps)}, got W.shape={_shape(W)} and "
                f"offset.shape={_shape(offset)}",
                {"x": x, "offset": offset, "W": W},
                "offset holds an (x, y) displacement per kernel tap: all x offsets, then all y offsets",
            )
        )
    hp, wp = h + 2 * ph, w + 2 * pw
    if min(hp, wp) < 2:
        raise ShapeError(
            message(
                fn,
                f"expected the padded image to be at least 2 x 2, got {(hp, wp)}",
                {"x": x},
                "bilinear sampling needs two pixels along each axis; add padding",
            )
        )
    if b is not None:
        _check_param(fn, "b", b, "W", W, (out_c,), "b has one entry per output channel")
    raw = unbox_all(x)
    xp, dtype = backend.xp(raw), raw.dtype
    taps_y, taps_x = (a.reshape(taps, 1, 1) for a in xp.indices((kh, kw), dtype=dtype))
    base_y = taps_y + xp.arange(out_h, dtype=dtype).reshape(1, out_h, 1) * sy
    base_x = taps_x + xp.arange(out_w, dtype=dtype).reshape(1, 1, out_w) * sx
    # Positions in the padded image, as the sampler's coordinates (-1 and 1 at the borders).
    grid_x = ops.subtract(
        ops.multiply(ops.add(ops.getitem(offset, (slice(None), slice(0, taps))), base_x), 2 / (wp - 1)), 1
    )
    grid_y = ops.subtract(
        ops.multiply(ops.add(ops.getitem(offset, (slice(None), slice(taps, None))), base_y), 2 / (hp - 1)), 1
    )
    grid = ops.reshape(ops.stack([grid_x, grid_y], axis=1), (n, 2, taps, out_h * out_w))
    padded = ops.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw))) if ph or pw else x
    samples = ops.reshape(spatial_transformer_sampler(padded, grid), (n, c * taps, out_h * out_w))
    y = ops.reshape(ops.matmul(ops.reshape(W, (out_c, c * taps)), samples), (n, out_c, out_h, out_w))
    return y if b is None else ops.add(y, ops.reshape(b, (out_c, 1, 1)))
