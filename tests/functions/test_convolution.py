"""Tests of fnet.functions' convolutions: forward values against direct loop-based NumPy references
(float16, float32, float64) over strides, paddings, dilations, groups, cover_all and outsize in
1-D to 3-D; the deconvolution as the exact transpose of the convolution; derivatives to order 2
and beyond (float64), including those of the filter-gradient primitive; and the error messages."""

from __future__ import annotations

import itertools

import numpy
import pytest

import fnet
import fnet.functions as F
from fnet import ops
from fnet.errors import DTypeError, InvalidInputError, ShapeError
from fnet.functions import convolution as C
from fnet.testing import check_grads

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {
    numpy.float16: dict(rtol=2e-2, atol=2e-2),
    numpy.float32: dict(rtol=1e-4, atol=1e-5),
    numpy.float64: dict(rtol=1e-11, atol=1e-12),
}


# -- references: direct loops in float64 -------------------------------------------------------
def as_tuple(value, ndim):
    return (value,) * ndim if isinstance(value, int) else tuple(value)


def ref_convolution(x, W, b=None, stride=1, pad=0, cover_all=False, dilate=1, groups=1):
    """Every output pixel as the sum over its group's channels and the kernel taps of W * x."""
    x, W = numpy.asarray(x, numpy.float64), numpy.asarray(W, numpy.float64)
    nd = x.ndim - 2
    s, p, d = as_tuple(stride, nd), as_tuple(pad, nd), as_tuple(dilate, nd)
    n, size = x.shape[0], x.shape[2:]
    o, cg, ksize = W.shape[0], W.shape[1], W.shape[2:]
    og = o // groups
    out = []
    for i in range(nd):
        span = (ksize[i] - 1) * d[i] + 1
        extra = s[i] - 1 if cover_all else 0
        out.append((size[i] + 2 * p[i] - span + extra) // s[i] + 1)
    padded = numpy.pad(x, [(0, 0), (0, 0)] + [(p[i], p[i] + s[i]) for i in range(nd)])
    y = numpy.zeros((n, o, *out))
    for pos in itertools.product(*(range(m) for m in out)):
        for tap in itertools.product(*(range(k) for k in ksize)):
            where = tuple(pos[i] * s[i] + tap[i] * d[i] for i in range(nd))
            pixel = padded[(slice(None), slice(None), *where)]  # (n, c)
            for g in range(groups):
                w = W[(slice(g * og, (g + 1) * og), slice(None), *tap)]  # (og, cg)
                y[(slice(None), slice(g * og, (g + 1) * og), *pos)] += pixel[:, g * cg : (g + 1) * cg] @ w.T
    if b is not None:
        y += numpy.asarray(b, numpy.float64).reshape((1, o) + (1,) * nd)
    return y


def ref_deconvolution(x, W, b=None, stride=1, pad=0, outsize=None, dilate=1, groups=1):
    """Every input pixel scatters its filter-weighted copy onto the output, cropped by ``pad``."""
    x, W = numpy.asarray(x, numpy.float64), numpy.asarray(W, numpy.float64)
    nd = x.ndim - 2
    s, p, d = as_tuple(stride, nd), as_tuple(pad, nd), as_tuple(dilate, nd)
    n, c, insize = x.shape[0], x.shape[1], x.shape[2:]
    og, ksize = W.shape[1], W.shape[2:]
    cg = c // groups
    if outsize is None:
        outsize = tuple(s[i] * (insize[i] - 1) + (ksize[i] - 1) * d[i] + 1 - 2 * p[i] for i in range(nd))
    y = numpy.zeros((n, og * groups, *outsize))
    for pos in itertools.product(*(range(m) for m in insize)):
        for tap in itertools.product(*(range(k) for k in ksize)):
            where = tuple(pos[i] * s[i] + tap[i] * d[i] - p[i] for i in range(nd))
            if not all(0 <= where[i] < outsize[i] for i in range(nd)):
                continue
            for g in range(groups):
                w = W[(slice(g * cg, (g + 1) * cg), slice(None), *tap)]  # (cg, og)
                pixel = x[(slice(None), slice(g * cg, (g + 1) * cg), *pos)]  # (n, cg)
                y[(slice(None), slice(g * og, (g + 1) * og), *where)] += pixel @ w
    if b is not None:
        y += numpy.asarray(b, numpy.float64).reshape((1, -1) + (1,) * nd)
    return y


def ref_depthwise(x, W, b=None, stride=1, pad=0):
    """Output channel ``i * c_M + m``: input channel ``i`` convolved with filter ``W[m, i]``."""
    multiplier, channels = W.shape[:2]
    parts = [
        ref_convolution(x[:, i : i + 1], W[m, i][None, None], None, stride, pad)
        for i in range(channels)
        for m in range(multiplier)
    ]
    y = numpy.concatenate(parts, axis=1)
    return y if b is None else y + numpy.asarray(b, numpy.float64).reshape(1, -1, 1, 1)


def randn(shape, dtype=numpy.float64, seed=0):
    return numpy.random.RandomState(seed).standard_normal(shape).astype(dtype)


def operands(xshape, wshape, bias, dtype, seed=0):
    x, W = randn(xshape, dtype, seed), randn(wshape, dtype, seed + 1)
    b = randn((bias,), dtype, seed + 2) if bias else None
    return x, W, b


def assert_close(actual, expected, dtype):
    actual = numpy.asarray(actual)
    assert actual.dtype == dtype
    assert actual.shape == expected.shape
    numpy.testing.assert_allclose(actual.astype(numpy.float64), expected, **TOL[dtype])


# -- forward values ---------------------------------------------------------------------------
# (x shape, W shape, bias size or 0, keyword arguments)
STRIDED_CONV_CASES = [
    ((2, 6, 9), (3, 2, 3), 3, dict(stride=2, pad=1, dilate=2, groups=3)),
    ((2, 3, 8), (2, 3, 2), 0, dict(stride=3, pad=1, cover_all=True)),
    ((2, 3, 4, 4), (4, 3, 3, 3), 0, dict(pad=1)),  # stride 1, but narrow: the padding would cost too much
    ((2, 4, 7, 6), (6, 2, 3, 2), 6, dict(stride=(2, 1), pad=(1, 2), groups=2)),
    ((2, 3, 7, 8), (4, 3, 3, 3), 4, dict(stride=2, pad=1, cover_all=True)),
    ((1, 3, 9, 8), (4, 3, 3, 2), 0, dict(stride=(2, 3), pad=(0, 1), dilate=(2, 1), cover_all=True)),
    ((2, 2, 6, 7), (2, 2, 2, 3), 2, dict(pad=(2, 1), dilate=(3, 2))),
    ((1, 2, 5, 4, 6), (4, 1, 2, 3, 2), 4, dict(stride=(1, 2, 2), pad=(1, 0, 1), groups=2, cover_all=True)),
    ((2, 2, 4, 3, 4), (3, 2, 2, 2, 3), 0, dict(pad=1, dilate=(1, 2, 1))),
]
# stride 1 on images wide enough that the patches are read as flat runs over the padded width
FLAT_CONV_CASES = [
    ((2, 3, 7), (4, 3, 3), 4, dict()),
    ((2, 3, 5, 12), (4, 3, 3, 3), 4, dict(pad=1)),
    ((2, 4, 6, 11), (4, 2, 3, 3), 0, dict(pad=(2, 1), dilate=(2, 1), groups=2, cover_all=True)),
    ((1, 4, 5, 5), (4, 1, 1, 1), 0, dict(groups=4)),
    ((1, 2, 3, 10, 10), (2, 2, 2, 2, 2), 2, dict()),
]
CONV_CASES = STRIDED_CONV_CASES + FLAT_CONV_CASES


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("xshape, wshape, bias, kwargs", CONV_CASES)
def test_convolution_nd_forward(xshape, wshape, bias, kwargs, dtype):
    x, W, b = operands(xshape, wshape, bias, dtype)
    assert_close(F.convolution_nd(x, W, b, **kwargs), ref_convolution(x, W, b, **kwargs), dtype)


def conv_geometry(xshape, wshape, kwargs):
    nd = len(xshape) - 2
    s, p, d = (as_tuple(kwargs.get(k, v), nd) for k, v in (("stride", 1), ("pad", 0), ("dilate", 1)))
    out = tuple(
        C._conv_outsize(n, k, si, pi, kwargs.get("cover_all", False), di)
        for n, k, si, pi, di in zip(xshape[2:], wshape[2:], s, p, d)
    )
    return C._Geometry(xshape[2:], wshape[2:], out, s, p, d, kwargs.get("groups", 1))


def test_both_patch_layouts_are_tested():
    """The flat cases read their patches as runs of the flattened padded images (more positions
    than outputs); multi-dimensional strided or narrow cases read strided windows."""
    for xshape, wshape, _, kwargs in FLAT_CONV_CASES:
        assert C._layout(conv_geometry(xshape, wshape, kwargs)).flat
    for xshape, wshape, _, kwargs in STRIDED_CONV_CASES[2:]:
        assert not C._layout(conv_geometry(xshape, wshape, kwargs)).flat
    geom = conv_geometry((2, 3, 5, 12), (4, 3, 3, 3), dict(pad=1))
    assert C._layout(geom).grid == (5, 14) and geom.out == (5, 12)


@pytest.mark.parametrize(
    "fn, xshape, wshape, kwargs",
    [
        (F.convolution_1d, (2, 3, 8), (2, 3, 3), dict(stride=2, pad=1, dilate=1, groups=1)),
        (F.convolution_2d, (2, 4, 6, 5), (6, 2, 3, 3), dict(stride=(1, 2), pad=1, dilate=(1, 2), groups=2)),
        (F.convolution_3d, (1, 2, 4, 5, 3), (3, 2, 2, 2, 2), dict(stride=2, pad=(1, 0, 1), cover_all=True)),
        (F.dilated_convolution_2d, (2, 3, 9, 8), (2, 3, 3, 3), dict(pad=2, dilate=2)),
    ],
)
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_convolution_by_dimension(fn, xshape, wshape, kwargs, dtype):
    x, W, b = operands(xshape, wshape, wshape[0], dtype)
    assert_close(fn(x, W, b, **kwargs), ref_convolution(x, W, b, **kwargs), dtype)


def test_convolution_2d_chainer_example_shape():
    x, W, b = operands((10, 3, 30, 40), (1, 3, 10, 10), 1, numpy.float32)
    assert F.convolution_2d(x, W, b, stride=(5, 7), pad=(5, 5)).shape == (10, 1, 7, 6)


# (x shape, W shape, bias size or 0, keyword arguments)
DECONV_CASES = [
    ((2, 3, 5), (3, 2, 3), 2, dict(stride=2)),
    ((2, 4, 5), (4, 2, 3), 0, dict(stride=3, pad=1, dilate=2)),
    ((2, 4, 3, 4), (4, 3, 3, 2), 6, dict(stride=2, pad=1, groups=2)),
    ((2, 4, 3, 4), (4, 3, 3, 2), 0, dict(stride=2, pad=1, outsize=(5, 7))),
    ((1, 2, 4, 10), (2, 3, 3, 3), 3, dict(pad=1)),  # stride 1, wide: read as flat runs
    ((1, 3, 3, 5), (3, 2, 2, 3), 0, dict(stride=(1, 2), dilate=(2, 1), outsize=(5, 10))),
    ((1, 2, 2, 3, 2), (2, 2, 2, 3, 2), 2, dict(stride=(2, 1, 2), pad=(0, 1, 1), dilate=(1, 2, 1))),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("xshape, wshape, bias, kwargs", DECONV_CASES)
def test_deconvolution_nd_forward(xshape, wshape, bias, kwargs, dtype):
    x, W, b = operands(xshape, wshape, bias, dtype)
    assert_close(F.deconvolution_nd(x, W, b, **kwargs), ref_deconvolution(x, W, b, **kwargs), dtype)


@pytest.mark.parametrize(
    "fn, xshape, wshape, kwargs",
    [
        (F.deconvolution_1d, (2, 2, 4), (2, 3, 3), dict(stride=2, pad=1, outsize=(8,))),
        (F.deconvolution_2d, (2, 4, 3, 3), (4, 1, 3, 2), dict(stride=2, dilate=(1, 2), groups=2)),
        (F.deconvolution_3d, (1, 2, 2, 3, 2), (2, 2, 3, 2, 2), dict(stride=(2, 1, 1), pad=1)),
    ],
)
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_deconvolution_by_dimension(fn, xshape, wshape, kwargs, dtype):
    x, W, _ = operands(xshape, wshape, 0, dtype)
    b = randn((wshape[1] * kwargs.get("groups", 1),), dtype, 5)
    assert_close(fn(x, W, b, **kwargs), ref_deconvolution(x, W, b, **kwargs), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "xshape, wshape, kwargs",
    [((2, 3, 6, 5), (2, 3, 3, 2), dict(stride=(2, 1), pad=1)), ((1, 2, 4, 4), (1, 2, 3, 3), dict(pad=1))],
)
def test_depthwise_convolution_2d_forward(xshape, wshape, kwargs, dtype):
    x, W, _ = operands(xshape, wshape, 0, dtype)
    b = randn((wshape[0] * wshape[1],), dtype, 7)
    assert_close(F.depthwise_convolution_2d(x, W, b, **kwargs), ref_depthwise(x, W, b, **kwargs), dtype)


@pytest.mark.parametrize(
    "xshape, wshape, kwargs",
    [
        ((2, 3, 7, 8), (4, 3, 3, 3), dict(stride=2, pad=1, cover_all=True)),
        ((2, 4, 5, 6), (6, 2, 2, 3), dict(stride=(1, 2), pad=(1, 0), dilate=(2, 1), groups=2)),
        ((2, 2, 5), (3, 2, 3), dict(stride=3, pad=2, cover_all=True)),
    ],
)
def test_deconvolution_is_the_transpose_of_convolution(xshape, wshape, kwargs):
    """<conv(x, W), y> == <x, deconv(y, W)>, with outsize the size of x (cover_all included)."""
    x, W, _ = operands(xshape, wshape, 0, numpy.float64)
    y = F.convolution_nd(x, W, **kwargs)
    v = randn(y.shape, seed=9)
    kwargs = {k: v for k, v in kwargs.items() if k != "cover_all"}
    back = F.deconvolution_nd(v, W, outsize=xshape[2:], **kwargs)
    assert back.shape == x.shape
    numpy.testing.assert_allclose(numpy.sum(y * v), numpy.sum(x * back), rtol=1e-12)


def test_convolution_is_not_flipped():
    """Chainer's convolution is a correlation: W[0, 0, 0] meets the first pixel of each patch."""
    x = numpy.arange(5, dtype=numpy.float32).reshape(1, 1, 5)
    y = F.convolution_1d(x, numpy.array([[[1.0, 0.0]]], numpy.float32))
    numpy.testing.assert_array_equal(y[0, 0], [0.0, 1.0, 2.0, 3.0])


def test_non_contiguous_operands():
    x = randn((5, 5, 3, 2), numpy.float32).transpose(3, 2, 0, 1)
    W = randn((3, 3, 3, 4), numpy.float32, 1).transpose(3, 2, 0, 1)
    assert_close(
        F.convolution_2d(x, W, stride=2, pad=1), ref_convolution(x, W, stride=2, pad=1), numpy.float32
    )
    assert_close(
        F.deconvolution_2d(x, W.transpose(1, 0, 2, 3)),
        ref_deconvolution(x, W.transpose(1, 0, 2, 3)),
        numpy.float32,
    )


@pytest.mark.parametrize("stride, side", [(1, 5), (2, 3)])
def test_empty_batch(stride, side):
    x, W = numpy.zeros((0, 3, 5, 5), numpy.float32), numpy.ones((2, 3, 3, 3), numpy.float32)
    assert F.convolution_2d(x, W, pad=1, stride=stride).shape == (0, 2, side, side)
    assert F.deconvolution_2d(numpy.zeros((0, 2, side, side), numpy.float32), W, pad=1, stride=stride).shape[
        :2
    ] == (0, 3)
    gx, gW = fnet.grad(lambda x, W: ops.sum(F.convolution_2d(x, W, pad=1, stride=stride)), argnums=(0, 1))(
        x, W
    )
    assert gx.shape == x.shape and numpy.all(gW == 0)


# -- derivatives ------------------------------------------------------------------------------
GRAD_CONV = [
    ((2, 2, 5), (3, 2, 3), 3, dict(stride=2, pad=1, cover_all=True)),
    ((1, 4, 6), (2, 2, 2), 0, dict(dilate=2, groups=2)),
    ((2, 2, 4, 3), (3, 2, 2, 2), 3, dict(pad=1)),
    ((1, 4, 5, 4), (4, 2, 3, 2), 0, dict(stride=(2, 1), pad=(1, 0), dilate=(1, 2), groups=2, cover_all=True)),
    ((1, 1, 3, 3), (1, 1, 1, 1), 1, dict()),
    ((1, 2, 3, 9), (2, 2, 2, 3), 2, dict(pad=(0, 1))),  # flat
    ((1, 1, 2, 3, 12), (1, 1, 1, 1, 3), 0, dict(pad=(0, 0, 1))),  # flat
    ((1, 2, 3, 4, 3), (2, 2, 2, 2, 2), 2, dict(stride=(1, 2, 1), pad=1)),
]


@pytest.mark.parametrize("xshape, wshape, bias, kwargs", GRAD_CONV)
def test_convolution_nd_grads(xshape, wshape, bias, kwargs):
    args = [a for a in operands(xshape, wshape, bias, numpy.float64) if a is not None]
    check_grads(lambda *a: F.convolution_nd(*a, **kwargs), args, order=2)


GRAD_DECONV = [
    ((2, 2, 3), (2, 3, 3), 3, dict(stride=2, pad=1)),
    ((1, 4, 3, 3), (4, 1, 2, 3), 2, dict(stride=2, groups=2, outsize=(7, 7))),
    ((1, 2, 3, 2), (2, 2, 3, 2), 0, dict(pad=(1, 0), dilate=(1, 2))),
    ((1, 2, 2, 9), (2, 1, 2, 3), 0, dict(pad=(0, 1))),  # flat
    ((1, 2, 2, 2, 3), (2, 1, 2, 2, 2), 1, dict(stride=(2, 1, 1), pad=(0, 1, 0))),
]


@pytest.mark.parametrize("xshape, wshape, bias, kwargs", GRAD_DECONV)
def test_deconvolution_nd_grads(xshape, wshape, bias, kwargs):
    args = [a for a in operands(xshape, wshape, bias, numpy.float64) if a is not None]
    check_grads(lambda *a: F.deconvolution_nd(*a, **kwargs), args, order=2)


@pytest.mark.parametrize(
    "fn, xshape, wshape, bias, kwargs",
    [
        (F.convolution_1d, (2, 2, 5), (2, 2, 2), 2, dict(stride=2)),
        (F.convolution_2d, (1, 2, 4, 4), (2, 1, 2, 3), 2, dict(pad=1, dilate=(2, 1), groups=2)),
        (F.convolution_3d, (1, 1, 3, 3, 3), (2, 1, 2, 2, 2), 0, dict(cover_all=True, stride=2)),
        (F.deconvolution_1d, (1, 2, 3), (2, 2, 2), 2, dict(stride=2, pad=1)),
        (F.deconvolution_2d, (1, 2, 3, 2), (2, 2, 2, 2), 0, dict(stride=(1, 2), outsize=(4, 4))),
        (F.deconvolution_3d, (1, 1, 2, 2, 2), (1, 2, 2, 2, 2), 2, dict(pad=(1, 0, 0))),
        (F.dilated_convolution_2d, (1, 2, 5, 5), (2, 2, 2, 2), 2, dict(pad=1, dilate=2)),
        (F.depthwise_convolution_2d, (1, 2, 4, 3), (2, 2, 2, 2), 4, dict(stride=(2, 1), pad=(0, 1))),
    ],
)
def test_grads_by_function(fn, xshape, wshape, bias, kwargs):
    args = [a for a in operands(xshape, wshape, bias, numpy.float64) if a is not None]
    check_grads(lambda *a: fn(*a, **kwargs), args, order=2)


def _loss_grads(fn, **kwargs):
    """The gradient of ``sum(fn(x, W) ** 2)`` w.r.t. x and W: its backward pass feeds the forward
    output back into the deconvolution and the filter gradient, so differentiating it exercises
    every VJP of the three primitives (the cotangent is no longer a constant)."""
    return fnet.grad(lambda x, W: ops.sum(fn(x, W, **kwargs) ** 2), argnums=(0, 1))


@pytest.mark.parametrize(
    "fn, xshape, wshape, kwargs",
    [
        (F.convolution_nd, (1, 2, 5), (2, 2, 2), dict(stride=2, pad=1, cover_all=True)),
        (F.convolution_nd, (1, 2, 3, 4), (4, 1, 2, 2), dict(pad=(1, 0), groups=2)),
        (F.convolution_nd, (1, 1, 3, 2, 3), (1, 1, 2, 1, 2), dict(dilate=(1, 1, 2))),
        (F.convolution_nd, (1, 2, 3, 9), (2, 2, 2, 3), dict(pad=(0, 1))),  # flat
        (F.deconvolution_nd, (1, 2, 3), (2, 2, 2), dict(stride=2, outsize=(7,))),
        (F.deconvolution_nd, (1, 2, 3, 2), (2, 1, 2, 2), dict(stride=(2, 1), pad=1, groups=2)),
        (F.deconvolution_nd, (1, 1, 2, 2, 2), (1, 1, 2, 2, 1), dict(pad=(0, 1, 0))),
        (F.deconvolution_nd, (1, 2, 2, 9), (2, 1, 2, 3), dict(pad=(0, 1))),  # flat
    ],
)
def test_filter_gradient_primitive_grads(fn, xshape, wshape, kwargs):
    x, W, _ = operands(xshape, wshape, 0, numpy.float64)
    check_grads(_loss_grads(fn, **kwargs), (x, W), order=2)


def test_third_order():
    x, W, b = operands((1, 2, 4, 3), (2, 2, 2, 2), 2, numpy.float64)
    check_grads(lambda x, W, b: F.convolution_2d(x, W, b, stride=(2, 1), pad=1), (x, W, b), order=3)


def test_gradients_are_convolutions():
    """d/dx <conv(x, W), v> is the deconvolution of v, and d/dW the correlation of x with v."""
    x, W, _ = operands((2, 3, 6, 5), (4, 3, 3, 2), 0, numpy.float32)
    v = randn((2, 4, 3, 3), numpy.float32, 3)
    gx, gW = fnet.grad(lambda x, W: ops.sum(F.convolution_2d(x, W, stride=2, pad=1) * v), argnums=(0, 1))(
        x, W
    )
    assert gx.dtype == gW.dtype == numpy.float32
    expected_gx = ref_deconvolution(v, W, stride=2, pad=1, outsize=(6, 5))
    numpy.testing.assert_allclose(gx, expected_gx, rtol=1e-4, atol=1e-5)
    x64, v64 = x.astype(numpy.float64), v.astype(numpy.float64)
    padded = numpy.pad(x64, [(0, 0), (0, 0), (1, 1), (1, 1)])
    expected_gW = numpy.zeros(W.shape)
    for i, j in itertools.product(range(3), range(2)):
        patches = padded[:, :, i : i + 5 : 2, j : j + 5 : 2]  # (n, c, 3, 3)
        expected_gW[:, :, i, j] = numpy.einsum("nchw,nohw->oc", patches, v64)
    numpy.testing.assert_allclose(gW, expected_gW, rtol=1e-4, atol=1e-4)


# -- errors -----------------------------------------------------------------------------------
def f32(*shape):
    return numpy.zeros(shape, numpy.float32)


@pytest.mark.parametrize(
    "call, error, pattern",
    [
        (
            lambda: F.convolution_2d(f32(3, 4, 4), f32(2, 3, 3, 3)),
            ShapeError,
            r"convolution_2d: expected x\.ndim == 4, got 3",
        ),
        (
            lambda: F.convolution_1d(f32(1, 3, 4, 4), f32(2, 3, 3, 3)),
            ShapeError,
            r"convolution_1d: expected x\.ndim == 3, got 4",
        ),
        (
            lambda: F.convolution_3d(f32(1, 3, 4, 4), f32(2, 3, 3, 3)),
            ShapeError,
            r"convolution_3d: expected x\.ndim == 5",
        ),
        (
            lambda: F.convolution_nd(f32(1, 3), f32(2, 3)),
            ShapeError,
            r"convolution_nd: expected x\.ndim == 3\.\.63, got 2",
        ),
        (
            lambda: F.convolution_nd(f32(1, 3, 4, 4), f32(2, 3, 3)),
            ShapeError,
            r"expected W\.ndim == 4, got 3",
        ),
        (
            lambda: F.convolution_2d(f32(1, 3, 4, 4), f32(2, 4, 3, 3)),
            ShapeError,
            r"expected x\.shape\[1\] == W\.shape\[1\] \* groups, got 3 != 4 \* 1(.|\n)*hint: W has the"
            r" layout",
        ),
        (
            lambda: F.convolution_2d(f32(1, 4, 4, 4), f32(3, 2, 3, 3), groups=2),
            ShapeError,
            r"groups=2 to divide the output channels W\.shape\[0\], got 3",
        ),
        (
            lambda: F.convolution_2d(numpy.zeros((1, 3, 4, 4), numpy.int32), f32(2, 3, 3, 3)),
            DTypeError,
            r"convolution_2d: expected x to be a float array, got int32",
        ),
        (
            lambda: F.convolution_2d(f32(1, 3, 4, 4), numpy.zeros((2, 3, 3, 3))),
            DTypeError,
            r"expected x\.dtype == W\.dtype, got float32 != float64(.|\n)*hint: cast one of them",
        ),
        (
            lambda: F.convolution_2d(f32(1, 3, 4, 4), f32(2, 3, 3, 3), f32(3)),
            ShapeError,
            r"expected b\.shape == \(2,\), one bias per output channel, got \(3,\)",
        ),
        (
            lambda: F.convolution_2d(f32(1, 3, 4, 4), f32(2, 3, 3, 3), f32(2, 1)),
            ShapeError,
            r"expected b\.ndim == 1",
        ),
        (
            lambda: F.convolution_2d(f32(1, 3, 4, 4), f32(2, 3, 3, 3), stride=(1, 1, 1)),
            InvalidInputError,
            r"expected stride to be an int or a sequence of 2 ints, got \(1, 1, 1\)",
        ),
        (
            lambda: F.convolution_2d(f32(1, 3, 4, 4), f32(2, 3, 3, 3), stride=1.5),
            InvalidInputError,
            r"expected stride to be an int or a sequence of 2 ints, got 1\.5",
        ),
        (
            lambda: F.convolution_2d(f32(1, 3, 4, 4), f32(2, 3, 3, 3), stride=0),
            InvalidInputError,
            r"expected stride >= 1 on every axis, got stride=0",
        ),
        (
            lambda: F.convolution_2d(f32(1, 3, 4, 4), f32(2, 3, 3, 3), pad=(1, -1)),
            InvalidInputError,
            r"expected pad >= 0 on every axis",
        ),
        (
            lambda: F.convolution_2d(f32(1, 3, 4, 4), f32(2, 3, 3, 3), dilate=0),
            InvalidInputError,
            r"expected dilate >= 1",
        ),
        (
            lambda: F.convolution_2d(f32(1, 3, 4, 4), f32(2, 3, 3, 3), groups=0),
            InvalidInputError,
            r"expected groups to be a positive int, got 0",
        ),
        (
            lambda: F.convolution_2d(f32(1, 3, 4, 4), f32(2, 3, 3, 3), dilate=2),
            ShapeError,
            r"the kernel \(3, 3\) with dilation \(2, 2\) does not fit the image \(4, 4\) padded by \(0, 0\)"
            r"(.|\n)*hint: use a smaller kernel",
        ),
        (
            lambda: F.deconvolution_2d(f32(1, 3, 4, 4), f32(2, 3, 3, 3)),
            ShapeError,
            r"deconvolution_2d: expected x\.shape\[1\] == W\.shape\[0\], got 3 != 2"
            r"(.|\n)*in_channels, out_channels",
        ),
        (
            lambda: F.deconvolution_nd(f32(1, 3, 4), f32(3, 2, 3), groups=2),
            ShapeError,
            r"groups=2 to divide the input channels x\.shape\[1\], got 3",
        ),
        (
            lambda: F.deconvolution_2d(f32(1, 2, 4, 4), f32(2, 3, 3, 3), f32(2)),
            ShapeError,
            r"expected b\.shape == \(3,\)",
        ),
        (
            lambda: F.deconvolution_2d(f32(1, 2, 4, 4), f32(2, 3, 3, 3), stride=2, outsize=(12, 9)),
            ShapeError,
            r"outsize=\(12, 9\) does not fit x: a convolution of an image of size 12 on axis 0 has 5\.\.6 "
            r"positions, x has 4(.|\n)*hint: pass outsize=None",
        ),
        (
            lambda: F.deconvolution_1d(f32(1, 2, 2), f32(2, 3, 3), pad=3),
            ShapeError,
            r"deconvolution_1d: the output size \(-2,\) is not positive",
        ),
        (
            lambda: F.depthwise_convolution_2d(f32(1, 3, 4, 4), f32(2, 2, 3, 3)),
            ShapeError,
            r"depthwise_convolution_2d: expected x\.shape\[1\] == W\.shape\[1\], got 3 != 2"
            r"(.|\n)*channel_multiplier, in_channels",
        ),
    ],
)
def test_errors(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_convolution_2d_takes_dilate_and_groups_by_keyword_only():
    with pytest.raises(TypeError):
        F.convolution_2d(f32(1, 2, 4, 4), f32(2, 2, 3, 3), None, 1, 0, False, 1)
