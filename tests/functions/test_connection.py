"""Tests of fnet.functions' connections (linear, bilinear, embed_id, shift, local and deformable
convolutions): forward values against plain NumPy loops (float16, float32, float64), derivatives
to order 2 (float64), and the error messages."""

from __future__ import annotations

import itertools
import math

import numpy
import pytest

import fnet
import fnet.functions as F
from fnet import ops
from fnet.errors import DTypeError, InvalidInputError, ShapeError
from fnet.testing import check_grads

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {
    numpy.float16: dict(rtol=2e-2, atol=2e-2),
    numpy.float32: dict(rtol=1e-5, atol=1e-5),
    numpy.float64: dict(rtol=1e-12, atol=1e-12),
}


def rand(*shape, seed=0, dtype=numpy.float64):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def assert_forward(actual, expected, dtype):
    actual = numpy.asarray(actual)
    assert actual.dtype == dtype
    assert actual.shape == numpy.shape(expected)
    numpy.testing.assert_allclose(actual.astype(numpy.float64), expected, **TOL[dtype])


def as64(*arrays):
    return [a.astype(numpy.float64) for a in arrays]


# -- linear ----------------------------------------------------------------------------------
def linear_reference(x, W, b, n_batch_axes):
    batch = x.shape[:n_batch_axes]
    rows = x.reshape(math.prod(batch), -1)
    y = numpy.zeros((rows.shape[0], W.shape[0]))
    for i in range(rows.shape[0]):
        for o in range(W.shape[0]):
            y[i, o] = sum(rows[i, k] * W[o, k] for k in range(W.shape[1])) + (0 if b is None else b[o])
    return y.reshape(*batch, W.shape[0])


LINEAR_CASES = [  # x shape, n_batch_axes, with bias
    ((3, 4), 1, True),
    ((3, 4), 1, False),
    ((2, 3, 2), 1, True),
    ((2, 3, 4), 2, True),
    ((1, 1), 1, True),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, n_batch_axes, bias", LINEAR_CASES)
def test_linear_forward(shape, n_batch_axes, bias, dtype):
    x = rand(*shape, dtype=dtype)
    n_in = math.prod(shape[n_batch_axes:])
    W, b = rand(5, n_in, seed=1, dtype=dtype), rand(5, seed=2, dtype=dtype)
    b = b if bias else None
    expected = linear_reference(*as64(x, W), None if b is None else b.astype(numpy.float64), n_batch_axes)
    assert_forward(F.linear(x, W, b, n_batch_axes=n_batch_axes), expected, dtype)


@pytest.mark.parametrize("shape, n_batch_axes, bias", LINEAR_CASES[:4])
def test_linear_grads(shape, n_batch_axes, bias):
    n_in = math.prod(shape[n_batch_axes:])
    args = [rand(*shape), rand(4, n_in, seed=1)] + ([rand(4, seed=2)] if bias else [])
    check_grads(lambda x, W, *b: F.linear(x, W, *b, n_batch_axes=n_batch_axes), args, order=2)


def test_linear_weight_gradient_is_contiguous():
    """The gradient of W comes out in W's own (out, in) layout, not as a transposed view."""
    x, W = rand(3, 4), rand(5, 4, seed=1)
    gW = fnet.grad(lambda W: ops.sum(F.linear(x, W)))(W)
    assert gW.flags.c_contiguous
    numpy.testing.assert_allclose(gW, numpy.tile(x.sum(axis=0), (5, 1)))


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        (
            (rand(3, 4), rand(5, 3)),
            {},
            ShapeError,
            r"linear: expected the features of x .* to number W.shape\[1\] == 3",
        ),
        ((rand(3, 4), rand(4)), {}, ShapeError, r"linear: expected W.ndim == 2, got 1"),
        ((rand(4), rand(5, 4)), {}, ShapeError, r"linear: expected x.ndim > n_batch_axes = 1"),
        ((rand(3, 4), rand(5, 4)), {"n_batch_axes": 0}, InvalidInputError, r"n_batch_axes to be an int >= 1"),
        (
            (rand(3, 4), rand(5, 4), rand(4)),
            {},
            ShapeError,
            r"linear: expected b.shape == \(5,\), got \(4,\)",
        ),
        ((rand(3, 4, dtype=numpy.float32), rand(5, 4)), {}, DTypeError, r"x.dtype == W.dtype"),
        ((numpy.ones((3, 4), numpy.int32), rand(5, 4)), {}, DTypeError, r"linear: expected x to be a float"),
    ],
)
def test_linear_errors(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        F.linear(*args, **kwargs)


def test_linear_error_hint_names_the_layout():
    with pytest.raises(ShapeError, match=r"hint: W has shape \(out_size, in_size\); did you pass W.T\?"):
        F.linear(rand(3, 4), rand(4, 5))


# -- bilinear --------------------------------------------------------------------------------
def bilinear_reference(e1, e2, W, V1=None, V2=None, b=None):
    e1 = e1.reshape(len(e1), -1)
    e2 = e2.reshape(len(e2), -1)
    J, K, L = W.shape
    y = numpy.zeros((len(e1), L))
    for i, j, k, l in itertools.product(range(len(e1)), range(J), range(K), range(L)):  # noqa: E741
        y[i, l] += e1[i, j] * e2[i, k] * W[j, k, l]
    if V1 is not None:
        for i, l in itertools.product(range(len(e1)), range(L)):  # noqa: E741
            y[i, l] += (
                sum(e1[i, j] * V1[j, l] for j in range(J)) + sum(e2[i, k] * V2[k, l] for k in range(K)) + b[l]
            )
    return y


def bilinear_args(dtype=numpy.float64, e1_shape=(3, 2), linear_terms=True):
    J = math.prod(e1_shape[1:])
    args = [rand(*e1_shape, dtype=dtype), rand(3, 3, seed=1, dtype=dtype), rand(J, 3, 4, seed=2, dtype=dtype)]
    if linear_terms:
        args += [
            rand(J, 4, seed=3, dtype=dtype),
            rand(3, 4, seed=4, dtype=dtype),
            rand(4, seed=5, dtype=dtype),
        ]
    return args


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("e1_shape", [(3, 2), (3, 2, 2)])
@pytest.mark.parametrize("linear_terms", [True, False])
def test_bilinear_forward(dtype, e1_shape, linear_terms):
    args = bilinear_args(dtype, e1_shape, linear_terms)
    assert_forward(F.bilinear(*args), bilinear_reference(*as64(*args)), dtype)


@pytest.mark.parametrize("e1_shape, linear_terms", [((3, 2), True), ((3, 1, 2), False)])
def test_bilinear_grads(e1_shape, linear_terms):
    check_grads(F.bilinear, bilinear_args(e1_shape=e1_shape, linear_terms=linear_terms), order=2)


def test_bilinear_errors():
    e1, e2, W, V1, V2, b = bilinear_args()
    with pytest.raises(
        InvalidInputError, match=r"bilinear: expected V1, V2 and b to be given all three or none"
    ):
        F.bilinear(e1, e2, W, V1, None, b)
    with pytest.raises(ShapeError, match=r"bilinear: expected e1 \(I, J\) and e2 \(I, K\) to fit W"):
        F.bilinear(e1[:2], e2, W)
    with pytest.raises(ShapeError, match=r"bilinear: expected W.ndim == 3"):
        F.bilinear(e1, e2, W[0])
    with pytest.raises(ShapeError, match=r"bilinear: expected V2.shape == \(3, 4\), got \(2, 4\)"):
        F.bilinear(e1, e2, W, V1, V2[:2], b)
    with pytest.raises(DTypeError, match=r"bilinear: expected e1.dtype == e2.dtype"):
        F.bilinear(e1, e2.astype(numpy.float32), W)


# -- embed_id --------------------------------------------------------------------------------
def embed_reference(ids, W, ignore_label=None):
    out = numpy.zeros(ids.shape + (W.shape[1],))
    for index in numpy.ndindex(*ids.shape):
        if ids[index] != ignore_label:
            out[index] = W[ids[index]]
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "ids, ignore_label",
    [
        (numpy.array([3, 0, 3, 1], numpy.int32), None),
        (numpy.array([[2, -1], [0, 2], [-1, -1]], numpy.int64), -1),
        (numpy.array([1, 4, 0], numpy.int32), 4),  # an ignore_label that is also a valid id
    ],
)
def test_embed_id_forward(dtype, ids, ignore_label):
    W = rand(5, 3, dtype=dtype)
    assert_forward(
        F.embed_id(ids, W, ignore_label), embed_reference(ids, W.astype(numpy.float64), ignore_label), dtype
    )


@pytest.mark.parametrize(
    "ids, ignore_label", [(numpy.array([3, 0, 3], numpy.int32), None), (numpy.array([[2, -1], [2, 0]]), -1)]
)
def test_embed_id_grads(ids, ignore_label):
    check_grads(lambda W: F.embed_id(ids, W, ignore_label), [rand(4, 3)], order=2)


def test_embed_id_gradient_adds_rows_and_skips_ignored():
    ids = numpy.array([3, 0, 3, -1], numpy.int32)
    g = rand(4, 2, seed=1)
    (gW,) = fnet.vjp(lambda W: F.embed_id(ids, W, ignore_label=-1), rand(5, 2))[1](g)
    expected = numpy.zeros((5, 2))
    expected[3] = g[0] + g[2]
    expected[0] = g[1]
    numpy.testing.assert_allclose(gW, expected)


@pytest.mark.parametrize(
    "ids, W, ignore_label, error, match",
    [
        (numpy.array([0, 5]), rand(5, 2), None, InvalidInputError, r"embed_id: label 5 in x is out of range"),
        (
            numpy.array([0, -1]),
            rand(5, 2),
            None,
            InvalidInputError,
            r"embed_id: label -1 in x is out of range",
        ),
        (numpy.array([0, -2]), rand(5, 2), -1, InvalidInputError, r"or x == -1 \(ignore_label\)"),
        (
            numpy.array([0.0, 1.0]),
            rand(5, 2),
            None,
            DTypeError,
            r"embed_id: expected x to be an integer label",
        ),
        (numpy.array([0, 1]), rand(5), None, ShapeError, r"embed_id: expected W.ndim == 2"),
        (numpy.int32(1), rand(5, 2), None, ShapeError, r"embed_id: expected x.ndim == 1..32, got 0"),
    ],
)
def test_embed_id_errors(ids, W, ignore_label, error, match):
    with pytest.raises(error, match=match):
        F.embed_id(ids, W, ignore_label)


# -- shift -----------------------------------------------------------------------------------
def shift_reference(x, ksize, dilate):
    """Chainer's rule, channel by channel: channel group g (the remainder joins the last group)
    takes the kernel position g, except that the centre position and the last one trade places;
    position (ky, kx) moves the channel by ((ky - kh // 2) * dy, (kx - kw // 2) * dx)."""
    kh, kw = ksize
    dy, dx = dilate
    n, c, h, w = x.shape
    groups = kh * kw
    center = (groups - 1) // 2
    y = numpy.zeros_like(x)
    for ch in range(c):
        group = min(ch // (c // groups), groups - 1)
        position = {center: groups - 1, groups - 1: center}.get(group, group)
        sy, sx = (position // kw - kh // 2) * dy, (position % kw - kw // 2) * dx
        for i, j in itertools.product(range(h), range(w)):
            if 0 <= i - sy < h and 0 <= j - sx < w:
                y[:, ch, i, j] = x[:, ch, i - sy, j - sx]
    return y


SHIFT_CASES = [  # x shape, ksize, dilate
    ((2, 9, 4, 5), 3, 1),
    ((1, 11, 5, 4), 3, 2),  # 11 channels: the remainder joins the last (unshifted) group
    ((1, 17, 6, 7), (3, 5), (2, -1)),
    ((1, 25, 3, 3), 5, 1),  # shifts by 2 on a 3x3 image
    ((1, 9, 2, 2), 3, 3),  # shifts beyond the image: zeros
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, ksize, dilate", SHIFT_CASES)
def test_shift_forward(dtype, shape, ksize, dilate):
    x = rand(*shape, dtype=dtype)
    pair = lambda v: (v, v) if isinstance(v, int) else v  # noqa: E731
    expected = shift_reference(x.astype(numpy.float64), pair(ksize), pair(dilate))
    assert_forward(F.shift(x, ksize, dilate), expected, dtype)


@pytest.mark.parametrize("shape, ksize, dilate", SHIFT_CASES[1:3])
def test_shift_grads(shape, ksize, dilate):
    check_grads(lambda x: F.shift(x, ksize, dilate), [rand(*shape)], order=2)


@pytest.mark.parametrize(
    "x, kwargs, error, match",
    [
        (rand(1, 9, 3, 3), {"ksize": 2}, InvalidInputError, r"shift: expected an odd ksize, got \(2, 2\)"),
        (rand(1, 8, 3, 3), {}, ShapeError, r"shift: expected at least ksize\[0\] \* ksize\[1\] = 9 channels"),
        (rand(9, 3, 3), {}, ShapeError, r"shift: expected x.ndim == 4, got 3"),
        (rand(1, 9, 3, 3), {"dilate": 0}, InvalidInputError, r"shift: expected a non-zero dilate"),
        (
            rand(1, 9, 3, 3),
            {"ksize": (3, 3, 3)},
            InvalidInputError,
            r"shift: expected ksize to be an int or a pair",
        ),
    ],
)
def test_shift_errors(x, kwargs, error, match):
    with pytest.raises(error, match=match):
        F.shift(x, **kwargs)


# -- local_convolution_2d --------------------------------------------------------------------
def local_conv_reference(x, W, b, stride):
    sy, sx = stride
    n = x.shape[0]
    out_c, out_h, out_w, in_c, kh, kw = W.shape
    y = numpy.zeros((n, out_c, out_h, out_w))
    for m, o, i, j in itertools.product(range(n), range(out_c), range(out_h), range(out_w)):
        patch = x[m, :, i * sy : i * sy + kh, j * sx : j * sx + kw]
        y[m, o, i, j] = numpy.sum(patch * W[o, i, j]) + (0 if b is None else b[o, i, j])
    return y


LOCAL_CASES = [  # x shape, kernel, stride, bias
    ((2, 3, 5, 4), (3, 3), (1, 1), True),
    ((1, 2, 7, 6), (3, 2), (2, 3), False),
    ((2, 1, 3, 3), (3, 3), (1, 1), True),  # a single output position
]


def local_args(shape, kernel, stride, dtype=numpy.float64):
    n, c, h, w = shape
    out = ((h - kernel[0]) // stride[0] + 1, (w - kernel[1]) // stride[1] + 1)
    x = rand(*shape, dtype=dtype)
    return x, rand(4, *out, c, *kernel, seed=1, dtype=dtype), rand(4, *out, seed=2, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, kernel, stride, bias", LOCAL_CASES)
def test_local_convolution_2d_forward(dtype, shape, kernel, stride, bias):
    x, W, b = local_args(shape, kernel, stride, dtype)
    b = b if bias else None
    expected = local_conv_reference(*as64(x, W), None if b is None else b.astype(numpy.float64), stride)
    assert_forward(F.local_convolution_2d(x, W, b, stride), expected, dtype)


@pytest.mark.parametrize("shape, kernel, stride, bias", LOCAL_CASES[:2])
def test_local_convolution_2d_grads(shape, kernel, stride, bias):
    x, W, b = local_args(shape, kernel, stride)
    args = [x, W, b] if bias else [x, W]
    check_grads(lambda *a: F.local_convolution_2d(*a, stride=stride), args, order=2)


def test_local_convolution_2d_errors():
    x, W, b = local_args((2, 3, 5, 4), (3, 3), (1, 1))
    with pytest.raises(ShapeError, match=r"local_convolution_2d: expected W.shape\[3\] == x.shape\[1\] == 3"):
        F.local_convolution_2d(x, W[:, :, :, :2])
    with pytest.raises(ShapeError, match=r"W.shape\[1:3\] == \(2, 1\)"):
        F.local_convolution_2d(x, W, stride=(2, 3))
    with pytest.raises(
        ShapeError, match=r"local_convolution_2d: expected b.shape == \(4, 3, 2\), got \(4,\)"
    ):
        F.local_convolution_2d(x, W, b[:, 0, 0])
    with pytest.raises(ShapeError, match=r"local_convolution_2d: expected W.ndim == 6, got 4"):
        F.local_convolution_2d(x, W[:, 0, 0])
    with pytest.raises(InvalidInputError, match=r"local_convolution_2d: expected stride >= 1"):
        F.local_convolution_2d(x, W, stride=0)


# -- deformable_convolution_2d_sampler -------------------------------------------------------
def bilinear_sample(img, y, x):
    """``img`` (c, h, w) at the real position (y, x), zero outside the image."""
    h, w = img.shape[1:]
    y0, x0 = math.floor(y), math.floor(x)
    value = numpy.zeros(img.shape[0])
    for yy, xx in itertools.product((y0, y0 + 1), (x0, x0 + 1)):
        if 0 <= yy < h and 0 <= xx < w:
            value += (1 - abs(y - yy)) * (1 - abs(x - xx)) * img[:, yy, xx]
    return value


def deformable_reference(x, offset, W, b, stride, pad):
    (sy, sx), (ph, pw) = stride, pad
    n = x.shape[0]
    out_c, in_c, kh, kw = W.shape
    out_h, out_w = offset.shape[2:]
    padded = numpy.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    y = numpy.zeros((n, out_c, out_h, out_w))
    for m, i, j in itertools.product(range(n), range(out_h), range(out_w)):
        for k, (ki, kj) in enumerate(itertools.product(range(kh), range(kw))):
            row = i * sy + ki + offset[m, kh * kw + k, i, j]
            col = j * sx + kj + offset[m, k, i, j]
            y[m, :, i, j] += W[:, :, ki, kj] @ bilinear_sample(padded[m], row, col)
    return y if b is None else y + b[:, None, None]


def deformable_args(dtype=numpy.float64, scale=1.5, seed=0):
    x = rand(2, 3, 5, 4, seed=seed, dtype=dtype)
    W = rand(2, 3, 2, 3, seed=seed + 1, dtype=dtype)
    offset = (scale * rand(2, 12, 5, 2, seed=seed + 2)).astype(dtype)  # stride (1, 2), pad (1, 0)
    return x, offset, W, rand(2, seed=seed + 3, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scale, bias", [(0.0, True), (1.5, True), (4.0, False)])
def test_deformable_convolution_2d_sampler_forward(dtype, scale, bias):
    x, offset, W, b = deformable_args(dtype, scale)
    b = b if bias else None
    expected = deformable_reference(
        *as64(x, offset, W), None if b is None else b.astype(numpy.float64), (1, 2), (1, 0)
    )
    assert_forward(F.deformable_convolution_2d_sampler(x, offset, W, b, (1, 2), (1, 0)), expected, dtype)


def test_deformable_convolution_2d_sampler_without_offsets_is_a_convolution():
    x, _, W, b = deformable_args()
    offset = numpy.zeros((2, 12, 6, 1))  # the output size of the plain convolution
    y = F.deformable_convolution_2d_sampler(x, offset, W, b, (1, 2), (1, 0))
    padded = numpy.pad(x, ((0, 0), (0, 0), (1, 1), (0, 0)))
    expected = numpy.zeros((2, 2, 6, 1))
    for i in range(6):
        patch = padded[:, :, i : i + 2, 0:3]
        expected[:, :, i, 0] = numpy.einsum("nckl,ockl->no", patch, W) + b
    numpy.testing.assert_allclose(y, expected, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("seed, bias", [(0, True), (4, False)])
def test_deformable_convolution_2d_sampler_grads(seed, bias):
    x, offset, W, b = deformable_args(scale=0.9, seed=seed)
    offset += 0.05  # sampling points off the pixel grid, where bilinear interpolation has kinks
    args = [x, offset, W, b] if bias else [x, offset, W]
    check_grads(lambda *a: F.deformable_convolution_2d_sampler(*a, stride=(1, 2), pad=(1, 0)), args, order=2)


def test_deformable_convolution_2d_sampler_errors():
    x, offset, W, b = deformable_args()
    f = F.deformable_convolution_2d_sampler
    with pytest.raises(
        ShapeError, match=r"offset.shape\[:2\] == \(x.shape\[0\], 2 \* k_h \* k_w\) == \(2, 12\)"
    ):
        f(x, offset[:, :6], W, b)
    with pytest.raises(ShapeError, match=r"expected W.shape\[1\] == x.shape\[1\] == 3"):
        f(x, offset, W[:, :2], b)
    with pytest.raises(ShapeError, match=r"expected the padded image to be at least 2 x 2, got \(1, 3\)"):
        f(x[:, :, :1, :3], offset, W, b)
    with pytest.raises(DTypeError, match=r"expected x.dtype == offset.dtype"):
        f(x, offset.astype(numpy.float32), W, b)
    with pytest.raises(InvalidInputError, match=r"expected pad >= 0"):
        f(x, offset, W, b, pad=-1)
