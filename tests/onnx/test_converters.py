"""Every converter, run in onnxruntime on random inputs against fnet's forward, at several opsets.

Tolerances: float32, rtol 1e-5 for elementwise functions, 1e-4 for convolutions and reductions
(onnxruntime sums in another order), as the issue asks. Integer and boolean outputs are exact.
"""

from __future__ import annotations

import numpy
import pytest

pytest.importorskip("onnx", reason="the onnx extra is not installed: pip install fnet-chainer[onnx]")
pytest.importorskip("onnxruntime", reason="the onnx extra is not installed: pip install fnet-chainer[onnx]")

import fnet.functions as F  # noqa: E402
import fnet.ops as O  # noqa: E402

from ._check import check_export  # noqa: E402

R = numpy.random.default_rng(0)


def a(*shape, low=-2.0, high=2.0, dtype=numpy.float32):
    return R.uniform(low, high, shape).astype(dtype)


X = a(3, 4)
POS = a(3, 4, low=0.1, high=3.0)
UNIT = a(3, 4, low=-0.9, high=0.9)
IMG = a(2, 3, 7, 7)
SEQ = a(2, 4, 9)
VOL = a(1, 2, 5, 5, 5)
GATES = a(3, 8)
C = a(3, 2)
NONE = {}

ELEMENTWISE = 1e-5
WINDOW = 1e-4


def _unary(name: str):
    f = getattr(O, name)
    return lambda p, x: f(x)


# (id, fn(params, *args), params, args, rtol)
CASES = [
    # elementwise arithmetic and broadcasting
    ("add", lambda p, x, y: x + y, NONE, (X, a(4)), ELEMENTWISE),
    ("subtract_scalar", lambda p, x: 2.0 - x, NONE, (X,), ELEMENTWISE),
    ("multiply", lambda p, x, y: x * y, NONE, (X, a(3, 1)), ELEMENTWISE),
    ("divide", lambda p, x, y: x / y, NONE, (X, POS), ELEMENTWISE),
    ("power", lambda p, x, y: x**y, NONE, (POS, X), ELEMENTWISE),
    ("power_const", lambda p, x: x**2.0, NONE, (X,), ELEMENTWISE),
    ("maximum", lambda p, x, y: O.maximum(x, y), NONE, (X, a(3, 4)), ELEMENTWISE),
    ("minimum", lambda p, x, y: O.minimum(x, y), NONE, (X, a(3, 4)), ELEMENTWISE),
    ("fmod", lambda p, x, y: O.fmod(x, y), NONE, (X, POS), ELEMENTWISE),
    ("floor_divide", lambda p, x, y: O.floor_divide(x, y), NONE, (X, POS), ELEMENTWISE),
    ("arctan2", lambda p, x, y: O.arctan2(x, y), NONE, (X, a(3, 4)), ELEMENTWISE),
    ("matmul", lambda p, x, y: O.matmul(x, y), NONE, (X, a(4, 5)), WINDOW),
    ("batch_matmul", lambda p, x, y: F.matmul(x, y), NONE, (a(2, 3, 4), a(2, 4, 5)), WINDOW),
    ("einsum", lambda p, x, y: O.einsum("ij,jk->ik", x, y), NONE, (X, a(4, 2)), WINDOW),
    (
        "linear_interpolate",
        lambda p, t, x, y: F.linear_interpolate(t, x, y),
        NONE,
        (UNIT, X, a(3, 4)),
        ELEMENTWISE,
    ),
    ("squared_difference", lambda p, x, y: F.squared_difference(x, y), NONE, (X, a(3, 4)), ELEMENTWISE),
    # unary math
    *[
        (name, _unary(name), NONE, (data,), ELEMENTWISE)
        for name, data in [
            ("absolute", X),
            ("arccos", UNIT),
            ("arccosh", POS + 1),
            ("arcsin", UNIT),
            ("arcsinh", X),
            ("arctan", X),
            ("arctanh", UNIT),
            ("ceil", X),
            ("cos", X),
            ("cosh", X),
            ("exp", X),
            ("expm1", X),
            ("fix", X),
            ("floor", X),
            ("log", POS),
            ("log10", POS),
            ("log1p", POS),
            ("log2", POS),
            ("negative", X),
            ("reciprocal", POS),
            ("sign", X),
            ("sin", X),
            ("sinh", X),
            ("sqrt", POS),
            ("square", X),
            ("tan", UNIT),
            ("tanh", X),
        ]
    ],
    ("rsqrt", lambda p, x: F.rsqrt(x), NONE, (POS,), ELEMENTWISE),
    ("piecewise_constant", lambda p, x: (F.sign(x), F.ceil(x), F.floor(x)), NONE, (X,), ELEMENTWISE),
    ("erf", lambda p, x: F.erf(x), NONE, (X,), ELEMENTWISE),
    ("erfc", lambda p, x: F.erfc(x), NONE, (UNIT,), ELEMENTWISE),
    ("ndtr", lambda p, x: F.ndtr(x), NONE, (X,), ELEMENTWISE),
    ("log_ndtr", lambda p, x: F.log_ndtr(x), NONE, (X,), ELEMENTWISE),
    # comparisons and logic (recorded for export)
    ("where_greater", lambda p, x, y: O.where(x > 0, x, y), NONE, (X, a(3, 4)), ELEMENTWISE),
    ("where_scalar", lambda p, x: F.where(x < 0.5, x, 0.0 * x), NONE, (X,), ELEMENTWISE),
    (
        "compare",
        lambda p, x, y: (O.equal(x, y), O.not_equal(x, y), O.less_equal(x, y), O.greater_equal(x, y)),
        NONE,
        (numpy.round(X), numpy.round(a(3, 4))),
        ELEMENTWISE,
    ),
    (
        "logic",
        lambda p, x, y: (
            O.logical_and(x > 0, y > 0),
            O.logical_or(x > 0, y > 0),
            O.logical_xor(x > 0, y > 0),
            O.logical_not(x > 0),
        ),
        NONE,
        (X, a(3, 4)),
        ELEMENTWISE,
    ),
    (
        "finite",
        lambda p, x: (O.isfinite(x), O.isnan(x), O.isinf(x)),
        NONE,
        (numpy.array([1.0, numpy.inf, -numpy.inf, numpy.nan], numpy.float32),),
        ELEMENTWISE,
    ),
    ("clip", lambda p, x: F.clip(x, -0.5, 0.7), NONE, (X,), ELEMENTWISE),
    ("cast", lambda p, x: F.cast(x, numpy.float64), NONE, (X,), ELEMENTWISE),
    ("cast_int", lambda p, x: O.astype(x, numpy.int32), NONE, (X * 3,), ELEMENTWISE),
    # activations
    ("relu", lambda p, x: F.relu(x), NONE, (X,), ELEMENTWISE),
    ("clipped_relu", lambda p, x: F.clipped_relu(x, 1.5), NONE, (X,), ELEMENTWISE),
    ("relu6", lambda p, x: F.relu6(x * 4), NONE, (X,), ELEMENTWISE),
    ("elu", lambda p, x: F.elu(x, 0.7), NONE, (X,), ELEMENTWISE),
    ("selu", lambda p, x: F.selu(x), NONE, (X,), ELEMENTWISE),
    ("leaky_relu", lambda p, x: F.leaky_relu(x, 0.1), NONE, (X,), ELEMENTWISE),
    ("prelu", lambda p, x: F.prelu(x, p["W"]), {"W": a(4)}, (X,), ELEMENTWISE),
    ("crelu", lambda p, x: F.crelu(x), NONE, (X,), ELEMENTWISE),
    ("hard_sigmoid", lambda p, x: F.hard_sigmoid(x), NONE, (X * 2,), ELEMENTWISE),
    ("sigmoid", lambda p, x: F.sigmoid(x), NONE, (X,), ELEMENTWISE),
    ("swish", lambda p, x: F.swish(x, p["beta"]), {"beta": a(4)}, (X,), ELEMENTWISE),
    ("softplus", lambda p, x: F.softplus(x, 2.0), NONE, (X,), ELEMENTWISE),
    ("softmax", lambda p, x: F.softmax(x, axis=1), NONE, (IMG,), ELEMENTWISE),
    ("log_softmax", lambda p, x: F.log_softmax(x), NONE, (X,), ELEMENTWISE),
    ("maxout", lambda p, x: F.maxout(x, 2), NONE, (X,), ELEMENTWISE),
    ("lstm", lambda p, c, x: F.lstm(c, x), NONE, (C, GATES), ELEMENTWISE),
    ("lstm_short_batch", lambda p, c, x: F.lstm(c, x), NONE, (C, GATES[:2]), ELEMENTWISE),
    (
        "slstm",
        lambda p, c1, c2, x1, x2: F.slstm(c1, c2, x1, x2),
        NONE,
        (C, a(3, 2), GATES, a(3, 8)),
        ELEMENTWISE,
    ),
    # shapes and indexing
    ("reshape", lambda p, x: F.reshape(x, (2, 6)), NONE, (X,), ELEMENTWISE),
    ("flatten", lambda p, x: F.flatten(x), NONE, (X,), ELEMENTWISE),
    ("transpose", lambda p, x: F.transpose(x, (2, 0, 1, 3)), NONE, (IMG,), ELEMENTWISE),
    ("transpose_default", lambda p, x: F.transpose(x), NONE, (IMG,), ELEMENTWISE),
    ("swapaxes", lambda p, x: F.swapaxes(x, 1, 3), NONE, (IMG,), ELEMENTWISE),
    ("moveaxis", lambda p, x: F.moveaxis(x, 0, -1), NONE, (IMG,), ELEMENTWISE),
    ("expand_dims", lambda p, x: F.expand_dims(x, 1), NONE, (X,), ELEMENTWISE),
    ("squeeze", lambda p, x: F.squeeze(x), NONE, (a(3, 1, 4, 1),), ELEMENTWISE),
    ("broadcast_to", lambda p, x: F.broadcast_to(x, (2, 3, 4)), NONE, (a(3, 1),), ELEMENTWISE),
    ("sum_to", lambda p, x: F.sum_to(x, (3, 1)), NONE, (a(2, 3, 4),), WINDOW),
    ("concat", lambda p, x, y: F.concat((x, y), axis=1), NONE, (X, a(3, 2)), ELEMENTWISE),
    ("stack", lambda p, x, y: F.stack((x, y), axis=1), NONE, (X, a(3, 4)), ELEMENTWISE),
    ("hstack", lambda p, x, y: F.hstack((x, y)), NONE, (X, a(3, 4)), ELEMENTWISE),
    ("vstack", lambda p, x, y: F.vstack((x, y)), NONE, (X, a(3, 4)), ELEMENTWISE),
    ("dstack", lambda p, x, y: F.dstack((x, y)), NONE, (X, a(3, 4)), ELEMENTWISE),
    ("split_axis", lambda p, x: F.split_axis(x, [1, 3], axis=1), NONE, (X,), ELEMENTWISE),
    ("separate", lambda p, x: F.separate(x, axis=0), NONE, (X,), ELEMENTWISE),
    ("tile", lambda p, x: F.tile(x, (2, 1, 3)), NONE, (X,), ELEMENTWISE),
    ("repeat", lambda p, x: F.repeat(x, 2, axis=1), NONE, (X,), ELEMENTWISE),
    ("flip", lambda p, x: (F.flip(x, 1), F.fliplr(x), F.flipud(x)), NONE, (X,), ELEMENTWISE),
    (
        "pad",
        lambda p, x: F.pad(x, ((0, 0), (0, 0), (1, 2), (2, 1)), "constant", constant_values=0.5),
        NONE,
        (IMG,),
        ELEMENTWISE,
    ),
    ("permutate", lambda p, x: F.permutate(x, numpy.array([2, 0, 1], numpy.int32)), NONE, (X,), ELEMENTWISE),
    ("depth2space", lambda p, x: F.depth2space(x, 2), NONE, (a(1, 8, 2, 3),), ELEMENTWISE),
    ("space2depth", lambda p, x: F.space2depth(x, 2), NONE, (a(1, 2, 4, 6),), ELEMENTWISE),
    ("getitem_basic", lambda p, x: x[1:, None, ::-2, 3], NONE, (IMG,), ELEMENTWISE),
    ("getitem_int", lambda p, x: x[-1], NONE, (IMG,), ELEMENTWISE),
    ("getitem_ellipsis", lambda p, x: x[..., 1:3], NONE, (IMG,), ELEMENTWISE),
    ("getitem_array", lambda p, x: x[:, [2, 0, 2]], NONE, (IMG,), ELEMENTWISE),
    ("getitem_arrays", lambda p, x: x[[0, 1], :, [1, 2]], NONE, (IMG,), ELEMENTWISE),
    ("getitem_adjacent", lambda p, x: x[:, [0, 2], [1, 3]], NONE, (IMG,), ELEMENTWISE),
    ("getitem_mask", lambda p, x: x[numpy.array([True, False, True])], NONE, (X,), ELEMENTWISE),
    ("getitem_index_input", lambda p, x, i: x[i], NONE, (X, numpy.array([2, 0], numpy.int32)), ELEMENTWISE),
    (
        "select_item",
        lambda p, x: F.select_item(x, numpy.array([1, 0, 3], numpy.int32)),
        NONE,
        (X,),
        ELEMENTWISE,
    ),
    ("resize_images", lambda p, x: F.resize_images(x, (9, 5)), NONE, (IMG,), ELEMENTWISE),
    (
        "resize_images_corners",
        lambda p, x: F.resize_images(x, (4, 12), align_corners=False),
        NONE,
        (IMG,),
        ELEMENTWISE,
    ),
    ("diagonal", lambda p, x: F.diagonal(x), NONE, (a(4, 4),), ELEMENTWISE),
    # reductions
    ("sum", lambda p, x: (F.sum(x), F.sum(x, axis=(0, 2), keepdims=True)), NONE, (IMG,), WINDOW),
    ("mean", lambda p, x: F.mean(x, axis=1), NONE, (IMG,), WINDOW),
    (
        "average",
        lambda p, x: F.average(x, axis=1, weights=numpy.array([1, 2, 3], numpy.float32)),
        NONE,
        (IMG,),
        WINDOW,
    ),
    ("prod", lambda p, x: F.prod(x, axis=0), NONE, (X,), WINDOW),
    ("max_min", lambda p, x: (F.max(x, axis=1), F.min(x, keepdims=True)), NONE, (IMG,), WINDOW),
    ("logsumexp", lambda p, x: F.logsumexp(x, axis=1), NONE, (IMG,), WINDOW),
    ("argmax", lambda p, x: (F.argmax(x, axis=1), F.argmin(x)), NONE, (X,), WINDOW),
    ("cumsum", lambda p, x: F.cumsum(x, axis=1), NONE, (X,), WINDOW),
    ("batch_l2_norm_squared", lambda p, x: F.batch_l2_norm_squared(x), NONE, (IMG,), WINDOW),
    ("det", lambda p, x: F.det(x), NONE, (a(3, 3),), WINDOW),
    ("batch_det", lambda p, x: F.batch_det(x), NONE, (a(2, 3, 3),), WINDOW),
    ("tril", lambda p, x: (O.tril(x, -1), O.triu(x, 1)), NONE, (a(4, 4),), ELEMENTWISE),
]


@pytest.mark.parametrize("fn, params, args, rtol", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_converter(fn, params, args, rtol):
    check_export(fn, params, *args, rtol=rtol, atol=rtol * 1e-2)
