"""Converters of the layers' functions (connections, pooling, normalization, losses, recurrent
cells), run in onnxruntime against fnet's forward at several opsets.

float32 tolerances: rtol 1e-4 where a convolution, matrix product or reduction sums in another
order than NumPy; 1e-5 for elementwise steps.
"""

from __future__ import annotations

import numpy
import pytest

pytest.importorskip("onnx", reason="the onnx extra is not installed: pip install fnet-chainer[onnx]")
pytest.importorskip("onnxruntime", reason="the onnx extra is not installed: pip install fnet-chainer[onnx]")

import fnet.functions as F  # noqa: E402

from ._check import check_export  # noqa: E402

R = numpy.random.default_rng(1)


def a(*shape, low=-1.0, high=1.0):
    return R.uniform(low, high, shape).astype(numpy.float32)


IMG = a(2, 4, 9, 8)
NONE = {}
WINDOW = 1e-4
ELEMENTWISE = 1e-5
CONV = {"W": a(6, 4, 3, 3), "b": a(6)}
GROUPED = {"W": a(6, 2, 3, 3), "b": a(6)}
ROIS = numpy.array([[0, 1, 2, 10, 12], [1, 0, 0, 15, 16], [1, 4.5, 3.2, 9, 7.5]], numpy.float32)
BN = {"gamma": a(4), "beta": a(4), "mean": a(4), "var": a(4, low=0.5, high=2.0)}


def _lstm_params(n_layers, in_size, units):
    ws, bs = [], []
    for layer in range(n_layers):
        size = in_size if layer == 0 else units
        ws.append([a(units, size) for _ in range(4)] + [a(units, units) for _ in range(4)])
        bs.append([a(units) for _ in range(8)])
    return {"ws": ws, "bs": bs}


def _gru_params(n_layers, in_size, units):
    ws, bs = [], []
    for layer in range(n_layers):
        size = in_size if layer == 0 else units
        ws.append([a(units, size) for _ in range(3)] + [a(units, units) for _ in range(3)])
        bs.append([a(units) for _ in range(6)])
    return {"ws": ws, "bs": bs}


CASES = [
    ("linear", lambda p, x: F.linear(x, p["W"], p["b"]), {"W": a(5, 12), "b": a(5)}, (a(3, 12),), WINDOW),
    (
        "linear_nobias_3d",
        lambda p, x: F.linear(x, p["W"], n_batch_axes=2),
        {"W": a(5, 4)},
        (a(2, 3, 4),),
        WINDOW,
    ),
    ("linear_flatten", lambda p, x: F.linear(x, p["W"]), {"W": a(5, 4 * 9 * 8)}, (IMG,), WINDOW),
    ("bilinear", lambda p, x, y: F.bilinear(x, y, p["W"]), {"W": a(3, 4, 2)}, (a(5, 3), a(5, 4)), WINDOW),
    (
        "convolution_2d",
        lambda p, x: F.convolution_2d(x, p["W"], p["b"], stride=2, pad=1),
        CONV,
        (IMG,),
        WINDOW,
    ),
    (
        "convolution_cover_all",
        lambda p, x: F.convolution_2d(x, p["W"], stride=2, cover_all=True),
        CONV,
        (IMG,),
        WINDOW,
    ),
    (
        "convolution_dilated",
        lambda p, x: F.convolution_2d(x, p["W"], p["b"], pad=2, dilate=2),
        CONV,
        (IMG,),
        WINDOW,
    ),
    (
        "convolution_groups",
        lambda p, x: F.convolution_2d(x, p["W"], p["b"], groups=2),
        GROUPED,
        (IMG,),
        WINDOW,
    ),
    (
        "depthwise_convolution_2d",
        lambda p, x: F.depthwise_convolution_2d(x, p["W"], p["b"], pad=1),
        {"W": a(2, 4, 3, 3), "b": a(8)},
        (IMG,),
        WINDOW,
    ),
    (
        "convolution_1d",
        lambda p, x: F.convolution_1d(x, p["W"], p["b"], stride=2),
        {"W": a(3, 4, 3), "b": a(3)},
        (a(2, 4, 11),),
        WINDOW,
    ),
    (
        "convolution_3d",
        lambda p, x: F.convolution_3d(x, p["W"], pad=1),
        {"W": a(3, 2, 2, 3, 2)},
        (a(1, 2, 5, 4, 5),),
        WINDOW,
    ),
    (
        "deconvolution_2d",
        lambda p, x: F.deconvolution_2d(x, p["W"], p["b"], stride=2, pad=1),
        {"W": a(4, 3, 3, 3), "b": a(3)},
        (IMG,),
        WINDOW,
    ),
    (
        "deconvolution_outsize",
        lambda p, x: F.deconvolution_2d(x, p["W"], stride=2, pad=1, outsize=(18, 16)),
        {"W": a(4, 3, 3, 3)},
        (IMG,),
        WINDOW,
    ),
    (
        "deconvolution_groups_dilated",
        lambda p, x: F.deconvolution_2d(x, p["W"], dilate=2, groups=2),
        {"W": a(4, 3, 3, 3)},
        (IMG,),
        WINDOW,
    ),
    (
        "deconvolution_1d",
        lambda p, x: F.deconvolution_1d(x, p["W"], stride=3),
        {"W": a(4, 2, 3)},
        (a(2, 4, 6),),
        WINDOW,
    ),
    (
        "embed_id",
        lambda p, x: F.embed_id(x, p["W"]),
        {"W": a(10, 3)},
        (numpy.array([[1, 9, 0], [2, 2, 5]], numpy.int32),),
        ELEMENTWISE,
    ),
    ("max_pooling_2d", lambda p, x: F.max_pooling_2d(x, 3, 2, 1), NONE, (IMG,), ELEMENTWISE),
    (
        "max_pooling_no_cover_all",
        lambda p, x: F.max_pooling_2d(x, 2, cover_all=False),
        NONE,
        (IMG,),
        ELEMENTWISE,
    ),
    ("max_pooling_1d", lambda p, x: F.max_pooling_1d(x, 3, 2), NONE, (a(2, 3, 10),), ELEMENTWISE),
    ("max_pooling_3d", lambda p, x: F.max_pooling_3d(x, 2), NONE, (a(1, 2, 5, 4, 6),), ELEMENTWISE),
    ("average_pooling_2d", lambda p, x: F.average_pooling_2d(x, 3, 2, 1), NONE, (IMG,), WINDOW),
    (
        "average_pooling_nd_ignore",
        lambda p, x: F.average_pooling_nd(x, 3, 2, 1, pad_value=None),
        NONE,
        (IMG,),
        WINDOW,
    ),
    ("average_pooling_1d", lambda p, x: F.average_pooling_1d(x, 2), NONE, (a(2, 3, 10),), WINDOW),
    ("unpooling_2d", lambda p, x: F.unpooling_2d(x, 2, outsize=(9, 8)), NONE, (a(2, 3, 5, 4),), ELEMENTWISE),
    (
        "unpooling_overlap",
        lambda p, x: F.unpooling_2d(x, 3, 2, 1, cover_all=False),
        NONE,
        (a(1, 2, 4, 3),),
        WINDOW,
    ),
    (
        "spatial_pyramid_pooling_2d",
        lambda p, x: F.spatial_pyramid_pooling_2d(x, 2, pooling="max"),
        NONE,
        (IMG,),
        ELEMENTWISE,
    ),
    ("roi_pooling_2d", lambda p, x: F.roi_pooling_2d(x, ROIS, 2, 3, 0.5), NONE, (IMG,), ELEMENTWISE),
    (
        "roi_max_pooling_2d",
        lambda p, x: F.roi_max_pooling_2d(x, ROIS[:, 1:], ROIS[:, 0].astype("i"), 2, 0.5),
        NONE,
        (IMG,),
        ELEMENTWISE,
    ),
    (
        "roi_average_align_2d",
        lambda p, x: F.roi_average_align_2d(x, ROIS[:, 1:], ROIS[:, 0].astype("i"), (3, 2), 0.5, 2),
        NONE,
        (IMG,),
        WINDOW,
    ),
    ("batch_normalization", lambda p, x: F.batch_normalization(x, p["gamma"], p["beta"]), BN, (IMG,), WINDOW),
    (
        "fixed_batch_normalization",
        lambda p, x: F.fixed_batch_normalization(x, p["gamma"], p["beta"], p["mean"], p["var"]),
        BN,
        (IMG,),
        WINDOW,
    ),
    (
        "layer_normalization",
        lambda p, x: F.layer_normalization(x, p["g"], p["b"]),
        {"g": a(6), "b": a(6)},
        (a(3, 6),),
        WINDOW,
    ),
    (
        "group_normalization",
        lambda p, x: F.group_normalization(x, 2, p["gamma"], p["beta"]),
        BN,
        (IMG,),
        WINDOW,
    ),
    ("local_response_normalization", lambda p, x: F.local_response_normalization(x, 3), NONE, (IMG,), WINDOW),
    ("normalize", lambda p, x: F.normalize(x), NONE, (a(3, 6),), WINDOW),
    ("dropout_inference", lambda p, x: F.dropout(x, 0.5, train=False), NONE, (IMG,), ELEMENTWISE),
    (
        "softmax_cross_entropy",
        lambda p, x: F.softmax_cross_entropy(x, numpy.array([1, 0, 4], numpy.int32)),
        NONE,
        (a(3, 5),),
        WINDOW,
    ),
    (
        "softmax_cross_entropy_none",
        lambda p, x: F.softmax_cross_entropy(x, numpy.array([1, 0, 4], numpy.int32), reduce="no"),
        NONE,
        (a(3, 5),),
        WINDOW,
    ),
    (
        "sigmoid_cross_entropy",
        lambda p, x: F.sigmoid_cross_entropy(x, numpy.array([[1, 0], [0, 1]], numpy.int32)),
        NONE,
        (a(2, 2),),
        WINDOW,
    ),
    ("mean_squared_error", lambda p, x, y: F.mean_squared_error(x, y), NONE, (a(3, 4), a(3, 4)), WINDOW),
    ("mean_absolute_error", lambda p, x, y: F.mean_absolute_error(x, y), NONE, (a(3, 4), a(3, 4)), WINDOW),
    ("huber_loss", lambda p, x, y: F.huber_loss(x, y, 0.5), NONE, (a(3, 4), a(3, 4)), WINDOW),
    (
        "gaussian_kl_divergence",
        lambda p, m, v: F.gaussian_kl_divergence(m, v),
        NONE,
        (a(3, 4), a(3, 4)),
        WINDOW,
    ),
    (
        "n_step_lstm",
        lambda p, h, c, x0, x1: F.n_step_lstm(2, 0.0, h, c, p["ws"], p["bs"], [x0, x1], train=False),
        _lstm_params(2, 3, 4),
        (a(2, 2, 4), a(2, 2, 4), a(2, 3), a(1, 3)),
        WINDOW,
    ),
    (
        "n_step_gru",
        lambda p, h, x0, x1: F.n_step_gru(1, 0.0, h, p["ws"], p["bs"], [x0, x1], train=False),
        _gru_params(1, 3, 4),
        (a(1, 2, 4), a(2, 3), a(2, 3)),
        WINDOW,
    ),
]


@pytest.mark.parametrize("fn, params, args, rtol", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_converter(fn, params, args, rtol):
    check_export(fn, params, *args, rtol=rtol, atol=rtol * 1e-2)
