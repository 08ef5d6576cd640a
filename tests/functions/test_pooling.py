"""Tests of fnet.functions' spatial pooling: forward values against loop-based NumPy references
(1-d to 3-d windows, strides, padding, cover_all, pad_value; ROI pooling and align), pooling
indices and upsampling, derivatives to order 2 (float64, inputs without ties), and the text of
input errors."""

from __future__ import annotations

import itertools
import math

import numpy
import pytest

import fnet
import fnet.functions as F
from fnet import ops
from fnet.errors import DTypeError, InvalidInputError, ShapeError
from fnet.functions import pooling as P
from fnet.testing import check_grads

FLOATS = [numpy.float32, numpy.float64]
WITH_HALF = [numpy.float16, numpy.float32, numpy.float64]
TOL = {
    numpy.float16: {"rtol": 1e-2, "atol": 1e-2},
    numpy.float32: {"rtol": 1e-5, "atol": 1e-5},
    numpy.float64: {"rtol": 1e-12, "atol": 1e-12},
}


# -- helpers ---------------------------------------------------------------------------------
def distinct(shape, dtype=numpy.float64, seed=0):
    """Values 0.25 apart from each other (no ties for a maximum), in random order."""
    n = math.prod(shape)
    values = (numpy.random.RandomState(seed).permutation(n) - n / 2) * 0.25
    return values.reshape(shape).astype(dtype)


def rand(*shape, dtype=numpy.float64, seed=0):
    return numpy.random.RandomState(seed).standard_normal(shape).astype(dtype)


def assert_same(actual, expected, dtype):
    assert isinstance(actual, numpy.ndarray), type(actual)
    assert actual.dtype == dtype, (actual.dtype, dtype)
    assert actual.shape == numpy.shape(expected), (actual.shape, numpy.shape(expected))
    numpy.testing.assert_allclose(actual.astype(numpy.float64), expected, **TOL[numpy.dtype(dtype).type])


def squared(f):
    """``f`` followed by an elementwise square, so that order 2 also checks the derivative of the
    VJP of piecewise-linear functions (whose plain second derivative is zero)."""
    return lambda *args: ops.square(f(*args))


def as_tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


# -- references (plain loops over output positions) -----------------------------------------
def params(nd, ksize, stride, pad):
    """``ksize``, ``stride`` (``ksize`` if None) and ``pad`` as tuples of ``nd`` ints."""
    return as_tuple(ksize, nd), as_tuple(ksize if stride is None else stride, nd), as_tuple(pad, nd)


def starts(shape, ksize, stride, pad, cover_all):
    """Window size, and for each output position the first (maybe padded) element of its window."""
    k, s, p = params(len(shape) - 2, ksize, stride, pad)
    out = tuple(
        (n + 2 * pp - kk + (ss - 1 if cover_all else 0)) // ss + 1
        for n, kk, ss, pp in zip(shape[2:], k, s, p)
    )
    positions = {o: tuple(oo * ss - pp for oo, ss, pp in zip(o, s, p)) for o in numpy.ndindex(*out)}
    return k, out, positions


def ref_pool(x, ksize, stride=None, pad=0, cover_all=True, mode="max"):
    """Max (padding is -inf), mean over the full window (padding is 0) or mean over the inside."""
    x = x.astype(numpy.float64)
    k, out, positions = starts(x.shape, ksize, stride, pad, cover_all)
    y = numpy.empty(x.shape[:2] + out)
    for o, start in positions.items():
        inside = tuple(slice(max(a, 0), min(a + kk, n)) for a, kk, n in zip(start, k, x.shape[2:]))
        region = x[(Ellipsis,) + inside].reshape(x.shape[:2] + (-1,))
        if mode == "max":
            # the padding reads -inf: it only shows in a window that holds no element of x
            y[(Ellipsis,) + o] = region.max(-1) if region.shape[-1] else -numpy.inf
        elif mode == "mean":
            y[(Ellipsis,) + o] = region.sum(-1) / math.prod(k)
        else:
            y[(Ellipsis,) + o] = region.sum(-1) / region.shape[-1]
    return y


def ref_indices(x, ksize, stride=None, pad=0, cover_all=True):
    """The kernel offset (row-major) of the first maximum of each window, padding read as -inf."""
    k, out, positions = starts(x.shape, ksize, stride, pad, cover_all)
    first = numpy.zeros(x.shape[:2] + out, numpy.int64)
    for (b, c), (o, start) in itertools.product(numpy.ndindex(*x.shape[:2]), positions.items()):
        best = None
        for i, offset in enumerate(numpy.ndindex(*k)):
            pos = tuple(a + j for a, j in zip(start, offset))
            inside = all(0 <= q < n for q, n in zip(pos, x.shape[2:]))
            value = x[(b, c) + pos] if inside else -numpy.inf
            if best is None or value > best:
                best, first[(b, c) + o] = value, i
    return first


def ref_spread(x, ksize, stride, pad, size, indexes=None):
    """Every element of ``x`` added over its window (or only at its kernel offset ``indexes``) in an
    output of spatial ``size``; what falls into the padding is dropped."""
    k, s, p = params(x.ndim - 2, ksize, stride, pad)
    offsets = list(numpy.ndindex(*k))
    y = numpy.zeros(x.shape[:2] + tuple(size))
    for index in numpy.ndindex(*x.shape):
        bc, o = index[:2], index[2:]
        for offset in offsets if indexes is None else [offsets[indexes[index]]]:
            pos = tuple(oo * ss - pp + j for oo, ss, pp, j in zip(o, s, p, offset))
            if all(0 <= q < n for q, n in zip(pos, size)):
                y[bc + pos] += x[index]
    return y


# -- max pooling -----------------------------------------------------------------------------
MAX_CASES = [
    # function, x shape, ksize, stride, pad, cover_all
    (F.max_pooling_2d, (2, 3, 8, 8), 2, None, 0, True),
    (F.max_pooling_2d, (2, 3, 7, 5), 3, 2, 1, True),
    (F.max_pooling_2d, (1, 2, 7, 5), 3, 2, 1, False),
    (F.max_pooling_2d, (2, 2, 5, 6), (2, 3), (1, 2), (1, 0), True),
    (F.max_pooling_2d, (1, 1, 4, 4), 4, 1, 0, True),
    (F.max_pooling_1d, (2, 3, 9), 3, 2, 1, True),
    (F.max_pooling_1d, (2, 3, 9), 2, None, 0, False),
    (F.max_pooling_3d, (1, 2, 4, 5, 3), 2, None, 0, True),
    (F.max_pooling_3d, (1, 2, 4, 5, 3), (2, 3, 1), (1, 2, 1), (1, 1, 0), False),
    (F.max_pooling_nd, (2, 1, 3, 4, 3, 2), 2, 1, 0, True),
]


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("f, shape, ksize, stride, pad, cover_all", MAX_CASES)
def test_max_pooling_forward(f, shape, ksize, stride, pad, cover_all, dtype):
    x = distinct(shape, dtype)
    y = f(x, ksize, stride, pad, cover_all)
    assert_same(y, ref_pool(x, ksize, stride, pad, cover_all, "max"), dtype)


@pytest.mark.parametrize("f, shape, ksize, stride, pad, cover_all", MAX_CASES)
def test_max_pooling_indices(f, shape, ksize, stride, pad, cover_all):
    x = rand(*shape).round(0)  # many ties: the first maximum of a window wins, as in Chainer
    y, indexes = f(x, ksize, stride, pad, cover_all, return_indices=True)
    numpy.testing.assert_array_equal(indexes, ref_indices(x, ksize, stride, pad, cover_all))
    numpy.testing.assert_array_equal(y, f(x, ksize, stride, pad, cover_all))


def test_max_pooling_output_sizes():
    # cover_all adds a last, partial window; without it the tail is dropped (Chainer's sizes)
    x = numpy.zeros((1, 1, 5, 5), numpy.float32)
    assert F.max_pooling_2d(x, 2).shape == (1, 1, 3, 3)
    assert F.max_pooling_2d(x, 2, cover_all=False).shape == (1, 1, 2, 2)
    assert F.max_pooling_2d(x, 3, stride=2, pad=1).shape == (1, 1, 3, 3)
    assert F.max_pooling_2d(x, (2, 5), stride=(3, 1)).shape == (1, 1, 2, 1)


def test_max_pooling_window_only_in_padding_reads_minus_infinity():
    # size 5, ksize 2, stride 2, pad 1, cover_all: the last window covers the padding only
    y = F.max_pooling_1d(numpy.arange(5.0).reshape(1, 1, 5), 2, pad=1)
    numpy.testing.assert_array_equal(y, [[[0.0, 2.0, 4.0, -numpy.inf]]])
    g = fnet.grad(lambda x: ops.sum(F.max_pooling_1d(x, 2, pad=1)[..., :3]))(
        numpy.arange(5.0).reshape(1, 1, 5)
    )
    numpy.testing.assert_array_equal(g, [[[1.0, 0.0, 1.0, 0.0, 1.0]]])


def test_max_pooling_gradient_goes_to_the_first_maximum():
    x = numpy.array([[[[1.0, 3.0], [3.0, 2.0]]]])
    g = fnet.grad(lambda x: ops.sum(F.max_pooling_2d(x, 2)))(x)
    numpy.testing.assert_array_equal(g, [[[[0.0, 1.0], [0.0, 0.0]]]])
    # overlapping windows accumulate on a shared maximum
    g = fnet.grad(lambda x: ops.sum(F.max_pooling_1d(x, 2, stride=1)))(numpy.array([[[0.0, 5.0, 1.0]]]))
    numpy.testing.assert_array_equal(g, [[[0.0, 2.0, 0.0]]])


@pytest.mark.parametrize(
    "shape, ksize, stride, pad",
    [
        ((2, 3, 6, 6), 2, 2, 0),
        ((1, 2, 7, 5), 2, 2, 1),
        ((2, 1, 5, 7), (2, 3), (3, 3), (1, 0)),
        ((1, 2, 9), 3, 4, 1),
    ],
)
def test_max_pooling_gradient_without_overlap_is_the_scatter_to_the_argmax(shape, ksize, stride, pad):
    """Windows that do not overlap take the strided path of ``_window_max_grad``: the same
    gradient as scattering to ``_window_argmax`` (ties, padding, partial windows, NaN windows)."""
    x = rand(*shape).round(0)  # many ties
    x.flat[::7] = numpy.nan
    g = rand(*F.max_pooling_nd(x, ksize, stride, pad).shape)
    plan = P._plan("max_pooling_nd", x, None, ksize, stride, pad, True)
    assert not plan.overlapping
    y = P._window_max(x, plan=plan)
    expected = P._window_scatter(g, plan=plan, index=P._window_argmax(x, y, plan=plan))
    numpy.testing.assert_array_equal(P._window_max_grad(g, x, y, plan=plan), expected)
    assert numpy.isnan(y).any() and numpy.count_nonzero(expected) > 0


@pytest.mark.parametrize(
    "f, shape, ksize, stride, pad, cover_all",
    [
        (F.max_pooling_2d, (2, 2, 4, 4), 2, None, 0, True),
        (F.max_pooling_2d, (1, 2, 5, 4), 3, 2, 1, True),
        (F.max_pooling_2d, (1, 1, 5, 3), (2, 3), 1, 0, False),
        (F.max_pooling_1d, (2, 1, 7), 3, 2, 1, True),
        (F.max_pooling_3d, (1, 1, 3, 4, 2), 2, 1, (1, 0, 0), True),
    ],
)
def test_max_pooling_grads(f, shape, ksize, stride, pad, cover_all):
    x = distinct(shape)
    check_grads(squared(lambda x: f(x, ksize, stride, pad, cover_all)), (x,), order=2)


def test_max_pooling_third_order():
    x = distinct((1, 1, 4, 4))
    f = lambda x: ops.sum(F.max_pooling_2d(x, 3, stride=1) ** 3)  # noqa: E731
    third = fnet.grad(lambda x: ops.sum(fnet.grad(lambda x: ops.sum(fnet.grad(f)(x) ** 2))(x)))(x)
    assert third.shape == x.shape and numpy.isfinite(third).all()


# -- average pooling -------------------------------------------------------------------------
AVERAGE_CASES = [
    # function, x shape, ksize, stride, pad
    (F.average_pooling_nd, (2, 3, 8, 8), 2, None, 0),
    (F.average_pooling_nd, (2, 2, 7, 5), 3, 2, 1),
    (F.average_pooling_nd, (1, 2, 6, 5), (2, 3), (1, 2), (1, 0)),
    (F.average_pooling_1d, (2, 3, 9), 3, 2, 1),
    (F.average_pooling_3d, (1, 2, 4, 5, 3), (2, 3, 1), (1, 2, 1), (1, 1, 0)),
    (F.average_pooling_nd, (2, 1, 3, 4, 3, 2), 2, 1, 1),
]


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("pad_value", [0, None])
@pytest.mark.parametrize("f, shape, ksize, stride, pad", AVERAGE_CASES)
def test_average_pooling_forward(f, shape, ksize, stride, pad, pad_value, dtype):
    x = rand(*shape, dtype=dtype)
    y = f(x, ksize, stride, pad, pad_value)
    assert_same(y, ref_pool(x, ksize, stride, pad, False, "mean" if pad_value == 0 else "inside"), dtype)


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("shape, ksize, stride, pad", [((2, 3, 8, 8), 2, None, 0), ((2, 2, 7, 5), 3, 2, 1)])
def test_average_pooling_2d_counts_padding_as_zeros(shape, ksize, stride, pad, dtype):
    x = rand(*shape, dtype=dtype)
    assert_same(
        F.average_pooling_2d(x, ksize, stride, pad), ref_pool(x, ksize, stride, pad, False, "mean"), dtype
    )


def test_global_average_pooling():
    x = rand(2, 3, 5, 4, dtype=numpy.float32)
    y = F.average_pooling_2d(x, x.shape[2:], stride=1)
    assert_same(y, x.astype(numpy.float64).mean(axis=(2, 3), keepdims=True), numpy.float32)


@pytest.mark.parametrize(
    "f, shape, ksize, stride, pad, pad_value",
    [
        (F.average_pooling_2d, (2, 2, 4, 4), 2, None, 0, 0),
        (F.average_pooling_nd, (1, 2, 5, 4), 3, 2, 1, None),
        (F.average_pooling_1d, (2, 1, 7), 3, 1, 2, 0),
        (F.average_pooling_3d, (1, 1, 3, 4, 2), 2, 1, (1, 0, 0), None),
    ],
)
def test_average_pooling_grads(f, shape, ksize, stride, pad, pad_value):
    x = rand(*shape)
    args = (ksize, stride, pad) if f is F.average_pooling_2d else (ksize, stride, pad, pad_value)
    check_grads(squared(lambda x: f(x, *args)), (x,), order=2)


# -- unpooling and upsampling ----------------------------------------------------------------
UNPOOL_CASES = [
    # function, x shape, ksize, stride, pad, outsize, cover_all
    (F.unpooling_2d, (2, 3, 3, 4), 2, None, 0, None, False),
    (F.unpooling_2d, (2, 3, 3, 4), 2, None, 0, None, True),
    (F.unpooling_2d, (1, 2, 3, 3), 3, 2, 1, None, True),
    (F.unpooling_2d, (1, 2, 3, 3), 3, 2, 1, (5, 4), True),
    (F.unpooling_2d, (1, 2, 4, 3), 2, 2, 2, None, False),
    (F.unpooling_2d, (1, 1, 3, 3), 3, 3, 2, None, True),
    (F.unpooling_1d, (2, 3, 4), 3, 2, 1, (8,), False),
    (F.unpooling_3d, (1, 2, 2, 3, 2), (2, 1, 3), (1, 1, 2), (0, 0, 1), None, False),
    (F.unpooling_nd, (1, 1, 2, 2, 2, 2), 2, None, 0, None, False),
]


def unpooled_size(shape, ksize, stride, pad, outsize, cover_all):
    if outsize is not None:
        return outsize
    k, s, p = params(len(shape) - 2, ksize, stride, pad)
    return tuple(
        ss * (n - 1) + kk - 2 * pp - (ss - 1 if cover_all else 0) for n, kk, ss, pp in zip(shape[2:], k, s, p)
    )


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("f, shape, ksize, stride, pad, outsize, cover_all", UNPOOL_CASES)
def test_unpooling_forward(f, shape, ksize, stride, pad, outsize, cover_all, dtype):
    x = rand(*shape, dtype=dtype)
    y = f(x, ksize, stride, pad, outsize, cover_all)
    size = unpooled_size(shape, ksize, stride, pad, outsize, cover_all)
    assert_same(y, ref_spread(x.astype(numpy.float64), ksize, stride, pad, size), dtype)


def test_unpooling_2d_repeats_pixels():
    x = numpy.array([[[[1.0, 2.0], [3.0, 4.0]]]], numpy.float32)
    y = F.unpooling_2d(x, 2, cover_all=False)
    numpy.testing.assert_array_equal(y[0, 0], numpy.kron([[1, 2], [3, 4]], numpy.ones((2, 2))))
    assert F.unpooling_2d(x, 2).shape == (1, 1, 3, 3)  # cover_all's smaller size, as in Chainer


def test_unpooling_may_give_an_empty_output():
    # ksize 1 and pad 1 over sizes (3, 2): outputs of sizes 3 - 2 = 1 and 2 - 2 = 0, as in Chainer
    x = rand(2, 3, 3, 2)
    for f in (F.unpooling_2d, F.unpooling_nd):
        assert f(x, 1, 1, 1, cover_all=False).shape == (2, 3, 1, 0)
    gx = fnet.grad(lambda x: fnet.ops.sum(F.unpooling_nd(x, 1, 1, 1, cover_all=False)))(x)
    numpy.testing.assert_array_equal(gx, numpy.zeros_like(x))


@pytest.mark.parametrize("f, shape, ksize, stride, pad, outsize, cover_all", UNPOOL_CASES[2:8])
def test_unpooling_grads(f, shape, ksize, stride, pad, outsize, cover_all):
    check_grads(squared(lambda x: f(x, ksize, stride, pad, outsize, cover_all)), (rand(*shape),), order=2)


UPSAMPLE_CASES = [
    # pooled input shape, ksize, stride, pad, cover_all
    ((2, 3, 6, 6), 2, None, 0, True),
    ((1, 2, 7, 5), 3, 2, 1, True),
    ((1, 2, 7, 5), 3, 2, 1, False),
    ((2, 1, 5, 6), (2, 3), (1, 2), (1, 0), True),
]


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("shape, ksize, stride, pad, cover_all", UPSAMPLE_CASES)
def test_upsampling_2d_with_max_pooling_indices(shape, ksize, stride, pad, cover_all, dtype):
    x = distinct(shape, dtype)
    y, indexes = F.max_pooling_2d(x, ksize, stride, pad, cover_all, return_indices=True)
    up = F.upsampling_2d(y, indexes, ksize, stride, pad, outsize=shape[2:], cover_all=cover_all)
    expected = ref_spread(y.astype(numpy.float64), ksize, stride, pad, shape[2:], indexes)
    assert_same(up, expected, dtype)
    default = F.upsampling_2d(y, indexes, ksize, stride, pad, cover_all=cover_all)
    size = unpooled_size(y.shape, ksize, stride, pad, None, cover_all)
    assert_same(default, ref_spread(y.astype(numpy.float64), ksize, stride, pad, size, indexes), dtype)


def test_upsampling_2d_chainer_example():
    x = numpy.arange(1, 37, dtype=numpy.float32).reshape(1, 1, 6, 6)
    y, indexes = F.max_pooling_2d(x, ksize=2, stride=2, return_indices=True)
    numpy.testing.assert_array_equal(y[0, 0], [[8, 10, 12], [20, 22, 24], [32, 34, 36]])
    numpy.testing.assert_array_equal(indexes, numpy.full((1, 1, 3, 3), 3))
    up = F.upsampling_2d(y, indexes, ksize=2, stride=2, outsize=x.shape[2:])
    expected = numpy.zeros((6, 6))
    expected[1::2, 1::2] = y[0, 0]
    numpy.testing.assert_array_equal(up[0, 0], expected)


@pytest.mark.parametrize("shape, ksize, stride, pad, cover_all", UPSAMPLE_CASES[1:])
def test_upsampling_2d_grads(shape, ksize, stride, pad, cover_all):
    y, indexes = F.max_pooling_2d(distinct(shape), ksize, stride, pad, cover_all, return_indices=True)
    f = lambda y: F.upsampling_2d(y, indexes, ksize, stride, pad, shape[2:], cover_all)  # noqa: E731
    check_grads(squared(f), (rand(*y.shape),), order=2)


# -- spatial pyramid pooling -----------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, height", [((2, 3, 9, 8), 3), ((1, 2, 5, 7), 2), ((1, 1, 4, 4), 1)])
def test_spatial_pyramid_pooling_2d(shape, height, dtype):
    x = distinct(shape, dtype)
    y = F.spatial_pyramid_pooling_2d(x, height, pooling="max")
    levels = []
    for level in range(height):
        bins = 2**level
        k = [math.ceil(n / bins) for n in shape[2:]]
        p = [(kk * bins - n) // 2 for kk, n in zip(k, shape[2:])]
        levels.append(ref_pool(x, tuple(k), None, tuple(p), True, "max").reshape(shape[0], -1))
    assert_same(y, numpy.concatenate(levels, axis=1)[:, :, None, None], dtype)
    assert y.shape[1] == shape[1] * sum(4**i for i in range(height))


def test_spatial_pyramid_pooling_2d_grads():
    f = lambda x: F.spatial_pyramid_pooling_2d(x, 3, pooling="max")  # noqa: E731
    check_grads(squared(f), (distinct((1, 2, 9, 8)),), order=2)


# -- ROI pooling references ------------------------------------------------------------------
def ref_roi_quantized(x, boxes, batch, outh, outw, scale, extra, reduce, empty):
    """Fast R-CNN's ROI pooling: rounded boxes ``(y0, x0, y1, x1)`` cut into integer bins."""
    n, c, h, w = x.shape
    y = numpy.zeros((len(boxes), c, outh, outw))
    for r, (y0, x0, y1, x1) in enumerate(boxes):
        y0, x0, y1, x1 = (round(float(v) * scale) for v in (y0, x0, y1, x1))
        rh, rw = max(y1 - y0 + extra, 1), max(x1 - x0 + extra, 1)
        for i, j in itertools.product(range(outh), range(outw)):
            hs = min(max(math.floor(i * (rh / outh)) + y0, 0), h)
            he = min(max(math.ceil((i + 1) * (rh / outh)) + y0, 0), h)
            ws = min(max(math.floor(j * (rw / outw)) + x0, 0), w)
            we = min(max(math.ceil((j + 1) * (rw / outw)) + x0, 0), w)
            if he <= hs or we <= ws:
                y[r, :, i, j] = empty
            else:
                y[r, :, i, j] = reduce(x[batch[r], :, hs:he, ws:we].astype(numpy.float64), axis=(1, 2))
    return y


def ref_bilinear(plane, py, px):
    """Chainer's bilinear read of one sample point (None if it lies beyond one pixel outside)."""
    h, w = plane.shape

    def bounds(p, limit):
        if p < -1 or p > limit:
            return None
        low = math.floor(p)
        if low == limit:
            low -= 1
        high = low + 1
        if low <= -1:
            p = 0.0
        elif high >= limit:
            p = float(limit - 1)
        return p, low, high

    by, bx = bounds(py, h), bounds(px, w)
    if by is None or bx is None:
        return None
    (py, ylo, yhi), (px, xlo, xhi) = by, bx
    total = 0.0
    for yy, wy in ((ylo, yhi - py), (yhi, py - ylo)):
        for xx, wx in ((xlo, xhi - px), (xhi, px - xlo)):
            if 0 <= yy < h and 0 <= xx < w and wy * wx > 0:
                total += wy * wx * plane[yy, xx]
    return total


def ref_roi_align(x, boxes, batch, outh, outw, scale, ratio, mode):
    n, c, h, w = x.shape
    y = numpy.zeros((len(boxes), c, outh, outw))
    for r, box in enumerate(boxes):
        y0, x0, y1, x1 = (float(v) * scale for v in box)
        rh, rw = max(y1 - y0, 1.0), max(x1 - x0, 1.0)
        bh, bw = rh / outh, rw / outw
        gh = math.ceil(rh / outh) if ratio[0] is None else ratio[0]
        gw = math.ceil(rw / outw) if ratio[1] is None else ratio[1]
        for ch, i, j in itertools.product(range(c), range(outh), range(outw)):
            values = []
            for iy, ix in itertools.product(range(gh), range(gw)):
                py = y0 + i * bh + (iy + 0.5) * bh / gh
                px = x0 + j * bw + (ix + 0.5) * bw / gw
                values.append(ref_bilinear(x[batch[r], ch].astype(numpy.float64), py, px))
            inside = [v for v in values if v is not None]
            if mode == "average":
                y[r, ch, i, j] = sum(inside) / (gh * gw)
            else:
                y[r, ch, i, j] = max(inside) if inside else -numpy.inf
    return y


def roi_data(dtype, seed=0):
    """Two feature maps and ROIs ``(y0, x0, y1, x1)`` in image coordinates (scale 0.5): inside,
    degenerate, partly and wholly outside the maps."""
    x = distinct((2, 3, 6, 7), dtype, seed)
    boxes = numpy.array(
        [
            [0.0, 0.0, 11.0, 13.0],
            [2.0, 3.0, 9.0, 8.0],
            [5.0, 5.0, 5.0, 5.0],
            [-4.0, 6.0, 7.0, 20.0],
            [1.5, 2.4, 4.2, 12.7],
            [14.0, 16.0, 20.0, 22.0],
        ],
        dtype,
    )
    batch = numpy.array([0, 1, 1, 0, 1, 0], numpy.int32)
    return x, boxes, batch


# -- ROI pooling -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("outh, outw", [(2, 2), (3, 2), (1, 4)])
def test_roi_pooling_2d_forward(outh, outw, dtype):
    x, boxes, batch = roi_data(dtype)
    rois = numpy.concatenate([batch[:, None], boxes[:, [1, 0, 3, 2]]], axis=1).astype(dtype)
    y = F.roi_pooling_2d(x, rois, outh, outw, 0.5)
    expected = ref_roi_quantized(x, boxes, batch, outh, outw, 0.5, 1, numpy.max, 0.0)
    assert_same(y, expected, dtype)


@pytest.mark.parametrize("dtype", WITH_HALF)
@pytest.mark.parametrize("outsize", [2, (3, 2), (4, 1)])
@pytest.mark.parametrize(
    "name, reduce, empty", [("max", numpy.max, -numpy.inf), ("average", numpy.mean, 0.0)]
)
def test_roi_max_and_average_pooling_2d_forward(name, reduce, empty, outsize, dtype):
    x, boxes, batch = roi_data(dtype)
    f = getattr(F, f"roi_{name}_pooling_2d")
    y = f(x, boxes, batch, outsize, 0.5)
    outh, outw = as_tuple(outsize, 2)
    assert_same(y, ref_roi_quantized(x, boxes, batch, outh, outw, 0.5, 0, reduce, empty), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("outsize, ratio", [(2, None), ((3, 2), 2), ((2, 3), (None, 1)), (1, (3, 2))])
@pytest.mark.parametrize("mode", ["average", "max"])
def test_roi_align_2d_forward(mode, outsize, ratio, dtype):
    x, boxes, batch = roi_data(dtype)
    f = getattr(F, f"roi_{mode}_align_2d")
    y = f(x, boxes, batch, outsize, 0.5, sampling_ratio=ratio)
    outh, outw = as_tuple(outsize, 2)
    expected = ref_roi_align(x, boxes, batch, outh, outw, 0.5, as_tuple(ratio, 2), mode)
    assert_same(y, expected, dtype)


def test_roi_align_2d_float16():
    x, boxes, batch = roi_data(numpy.float16)
    y = F.roi_average_align_2d(x, boxes, batch, 2, 0.5)
    expected = ref_roi_align(x, boxes, batch, 2, 2, 0.5, (None, None), "average")
    assert_same(y, expected, numpy.float16)


@pytest.mark.parametrize(
    "name, args",
    [
        ("roi_max_pooling_2d", ((3, 2), 0.5)),
        ("roi_average_pooling_2d", ((2, 3), 0.5)),
        ("roi_average_align_2d", ((2, 2), 0.5, 2)),
        ("roi_max_align_2d", ((2, 3), 0.5)),
    ],
)
def test_roi_grads(name, args):
    x, boxes, batch = roi_data(numpy.float64)
    keep = [0, 1, 2, 4]  # the ROIs whose bins all read the map (no -inf)
    f = lambda x: getattr(F, name)(x, boxes[keep], batch[keep], *args)  # noqa: E731
    check_grads(squared(f), (x,), order=2)


def test_roi_pooling_2d_grads():
    x, boxes, batch = roi_data(numpy.float64)
    rois = numpy.concatenate([batch[:, None], boxes[:, [1, 0, 3, 2]]], axis=1)
    check_grads(squared(lambda x: F.roi_pooling_2d(x, rois, 2, 3, 0.5)), (x,), order=2)


def test_roi_max_pooling_gradient_reaches_the_argmax():
    x = numpy.zeros((1, 1, 3, 3))
    x[0, 0, 1, 2] = 1.0
    rois = numpy.array([[0.0, 0.0, 3.0, 3.0], [0.0, 0.0, 3.0, 3.0]])
    g = fnet.grad(lambda x: ops.sum(F.roi_max_pooling_2d(x, rois, numpy.array([0, 0], numpy.int32), 1, 1.0)))(
        x
    )
    expected = numpy.zeros((1, 1, 3, 3))
    expected[0, 0, 1, 2] = 2.0
    numpy.testing.assert_array_equal(g, expected)


# -- errors ----------------------------------------------------------------------------------
X4 = numpy.zeros((1, 2, 4, 4), numpy.float32)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: F.max_pooling_2d(X4[0], 2), ShapeError, r"max_pooling_2d: expected x.ndim == 4, got 3"),
        (lambda: F.max_pooling_1d(X4, 2), ShapeError, r"max_pooling_1d: expected x.ndim == 3, got 4"),
        (
            lambda: F.max_pooling_nd(X4[0, 0], 2),
            ShapeError,
            r"max_pooling_nd: expected x.ndim == 3..32, got 2",
        ),
        (
            lambda: F.max_pooling_2d(X4.astype(numpy.int32), 2),
            DTypeError,
            r"max_pooling_2d: expected x to be a float array, got int32",
        ),
        (
            lambda: F.max_pooling_2d(X4, (2, 2, 2)),
            InvalidInputError,
            r"max_pooling_2d: expected ksize to be an int or a tuple of 2 ints, got \(2, 2, 2\)",
        ),
        (lambda: F.max_pooling_2d(X4, 2, stride=0), InvalidInputError, r"expected stride >= 1, got 0"),
        (lambda: F.average_pooling_2d(X4, 2, pad=-1), InvalidInputError, r"expected pad >= 0, got -1"),
        (
            lambda: F.max_pooling_2d(X4, 5, cover_all=False),
            ShapeError,
            r"max_pooling_2d: the window ksize=\(5, 5\) does not fit the input of spatial shape \(4, 4\)",
        ),
        (
            lambda: F.average_pooling_nd(X4, 2, pad_value=1),
            InvalidInputError,
            r"average_pooling_nd: expected pad_value to be 0 or None, got 1",
        ),
        (
            lambda: F.unpooling_2d(X4, 2, outsize=(9, 9)),
            ShapeError,
            r"unpooling_2d: expected x.shape\[2:\] == \(5, 5\) \(the pooled size of outsize=\(9, 9\)\), "
            r"got \(4, 4\)",
        ),
        (
            lambda: F.unpooling_1d(X4[0], 2, pad=5, cover_all=True),
            ShapeError,
            r"unpooling_1d: the output size \(-3,\) computed from x.shape\[2:\]=\(4,\)",
        ),
        (
            lambda: F.upsampling_2d(X4, X4, 2),
            DTypeError,
            r"upsampling_2d: expected indexes to be an integer array, got float32",
        ),
        (
            lambda: F.upsampling_2d(X4, numpy.zeros((1, 2, 4), numpy.int64), 2),
            ShapeError,
            r"upsampling_2d: expected indexes.shape == x.shape, got \(1, 2, 4\) != \(1, 2, 4, 4\)",
        ),
        (
            lambda: F.upsampling_2d(X4, numpy.full(X4.shape, 4), 2),
            InvalidInputError,
            r"upsampling_2d: expected 0 <= indexes < 4 \(offsets in a \(2, 2\) window\), "
            r"got values in \[4, 4\]",
        ),
        (
            lambda: F.spatial_pyramid_pooling_2d(X4, 2),
            InvalidInputError,
            r"spatial_pyramid_pooling_2d: unsupported pooling None: expected 'max'",
        ),
        (
            lambda: F.spatial_pyramid_pooling_2d(X4, 2, pooling="avg"),
            InvalidInputError,
            r"unsupported pooling 'avg'",
        ),
        (
            lambda: F.spatial_pyramid_pooling_2d(X4, 0, pooling="max"),
            InvalidInputError,
            r"expected pyramid_height >= 1, got 0",
        ),
    ],
)
def test_pooling_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


ROIS = numpy.array([[0, 0, 2, 2]], numpy.float32)
INDICES = numpy.array([0], numpy.int32)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda: F.roi_max_pooling_2d(X4, ROIS[:, :3], INDICES, 2, 1.0),
            ShapeError,
            r"roi_max_pooling_2d: expected rois.shape == \(R, 4\), got \(1, 3\)",
        ),
        (
            lambda: F.roi_pooling_2d(X4, ROIS, 2, 2, 1.0),
            ShapeError,
            r"roi_pooling_2d: expected rois.shape == \(R, 5\), got \(1, 4\)[\s\S]*batch_index, x_min",
        ),
        (
            lambda: F.roi_average_pooling_2d(X4, ROIS.astype(numpy.float64), INDICES, 2, 1.0),
            DTypeError,
            r"roi_average_pooling_2d: expected x.dtype == rois.dtype, got float32 != float64",
        ),
        (
            lambda: F.roi_average_align_2d(X4, ROIS, INDICES.astype(numpy.float32), 2, 1.0),
            DTypeError,
            r"roi_average_align_2d: expected roi_indices to be an integer array, got float32",
        ),
        (
            lambda: F.roi_max_align_2d(X4, ROIS, numpy.array([0, 0], numpy.int32), 2, 1.0),
            ShapeError,
            r"roi_max_align_2d: expected roi_indices.shape == \(1,\) \(one per ROI\), got \(2,\)",
        ),
        (
            lambda: F.roi_max_pooling_2d(X4, ROIS, numpy.array([1], numpy.int32), 2, 1.0),
            InvalidInputError,
            r"roi_max_pooling_2d: expected 0 <= roi_indices < 1 \(x.shape\[0\]\), got values in \[1, 1\]",
        ),
        (
            lambda: F.roi_pooling_2d(X4, numpy.array([[3, 0, 0, 1, 1]], numpy.float32), 2, 2, 1.0),
            InvalidInputError,
            r"roi_pooling_2d: expected 0 <= rois\[:, 0\] < 1",
        ),
        (
            lambda: F.roi_max_pooling_2d(X4, ROIS, INDICES, 2, 0.0),
            InvalidInputError,
            r"expected spatial_scale to be a positive number, got 0.0",
        ),
        (
            lambda: F.roi_average_pooling_2d(X4, ROIS, INDICES, (2, 0), 1.0),
            InvalidInputError,
            r"roi_average_pooling_2d: expected outsize >= 1, got \(2, 0\)",
        ),
        (
            lambda: F.roi_average_align_2d(X4, ROIS, INDICES, 2, 1.0, sampling_ratio=0),
            InvalidInputError,
            r"expected sampling_ratio to be None, an int >= 1 or a pair of them, got 0",
        ),
        (
            lambda: F.roi_max_align_2d(X4[0], ROIS, INDICES, 2, 1.0),
            ShapeError,
            r"roi_max_align_2d: expected x.ndim == 4, got 3",
        ),
    ],
)
def test_roi_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()
