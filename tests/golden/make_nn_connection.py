"""Golden data for the connection layers of ``fnet.nn``, made with Chainer 7.8.1.

Run with the Chainer venv's python (``benchmarks/.venvs/chainer/bin/python
tests/golden/make_nn_connection.py``); it writes ``nn_connection.npz`` next to itself.

For every case a Chainer link is built (in float64, except where Chainer only takes float32),
lazily sized ones by a first forward pass; then each parameter is overwritten with seeded random
values, and the forward pass runs on fixed inputs. Stored, under ``<case>/``: ``param/<name>``
(``namedparams`` names without the leading slash, so the keys are also the expected parameter
paths and shapes), ``in/<i>`` and ``out``; for the links with batch normalization also
``state/<link>/<name>`` (the persistent values after the pass) and ``out_test`` (a second pass in
test mode). ``stats/<case>/<name>`` holds ``(mean, std, min, max)`` of the default initial values
of a large float32 link, to check which initializers the defaults are.
"""

from __future__ import annotations

import os

import chainer
import chainer.functions as F
import chainer.links as L
import numpy

rng = numpy.random.RandomState(0)
data: dict[str, numpy.ndarray] = {}


def _inputs(*shapes, dtype=numpy.float64):
    return [rng.standard_normal(shape).astype(dtype) for shape in shapes]


def _params(link, scale=0.5):
    for name, param in sorted(link.namedparams()):
        param.array[...] = rng.standard_normal(param.shape) * scale
        if name.endswith("/gamma"):
            param.array[...] += 1.0


def case(name, make, inputs, *, lazy=False, scale=0.5, call=None, test_mode=False, dtype=numpy.float64):
    """Build ``make()`` with params of ``dtype``, set them, run it on ``inputs`` and store everything."""
    call = call or (lambda link, xs: link(*xs))
    with chainer.using_config("dtype", dtype):
        link = make()
        if lazy:
            with chainer.using_config("train", False):
                call(link, inputs)
        _params(link, scale)
        y = call(link, inputs)
        if test_mode:
            with chainer.using_config("train", False):
                data[f"{name}/out_test"] = call(link, inputs).array
    for pname, param in link.namedparams():
        data[f"{name}/param/{pname[1:]}"] = param.array.copy()
    for i, x in enumerate(inputs):
        data[f"{name}/in/{i}"] = x
    data[f"{name}/out"] = y.array
    for lname, sub in link.namedlinks() if test_mode else ():
        for persistent in sorted(getattr(sub, "_persistent", ())):
            value = numpy.asarray(getattr(sub, persistent))
            data[f"{name}/state/{lname[1:]}/{persistent}".replace("//", "/")] = value


def stats(name, link, x=None):
    """Summaries of the default initial params of ``link`` (float32, Chainer's default dtype)."""
    if x is not None:
        link(x)
    for pname, param in link.namedparams():
        a = param.array.astype(numpy.float64)
        data[f"stats/{name}/{pname[1:]}"] = numpy.array([a.mean(), a.std(), a.min(), a.max()])


# -- convolutions ----------------------------------------------------------------------------
case("conv2d", lambda: L.Convolution2D(3, 4, 3, stride=2, pad=1), _inputs((2, 3, 7, 6)))
case(
    "conv2d_lazy_groups",
    lambda: L.Convolution2D(None, 6, (3, 2), dilate=2, groups=2),
    _inputs((2, 4, 9, 8)),
    lazy=True,
)
case("conv2d_shifted", lambda: L.Convolution2D(4, 3, nobias=True), _inputs((2, 3, 5, 5)), lazy=True)
case("conv1d", lambda: L.Convolution1D(2, 3, 3, pad=1, cover_all=True, stride=2), _inputs((2, 2, 8)))
case("conv3d", lambda: L.Convolution3D(2, 3, 2, stride=(1, 2, 1), pad=1), _inputs((1, 2, 4, 5, 4)))
case("convnd", lambda: L.ConvolutionND(2, 3, 2, 3, stride=2, cover_all=True), _inputs((2, 3, 6, 6)))
case("convnd_shifted", lambda: L.ConvolutionND(1, 3, 2), _inputs((2, 4, 6)), lazy=True)
case("deconv2d", lambda: L.Deconvolution2D(3, 4, 3, stride=2, pad=1), _inputs((2, 3, 4, 5)))
case(
    "deconv2d_outsize",
    lambda: L.Deconvolution2D(3, 2, 4, stride=2, pad=1, outsize=(9, 10)),
    _inputs((1, 3, 4, 5)),
)
case("deconv2d_shifted_groups", lambda: L.Deconvolution2D(4, 3, groups=2), _inputs((2, 4, 3, 3)), lazy=True)
case("deconv1d", lambda: L.Deconvolution1D(2, 3, 3, stride=2, dilate=2), _inputs((2, 2, 5)))
case("deconv3d", lambda: L.Deconvolution3D(2, 3, 2, stride=2, nobias=True), _inputs((1, 2, 2, 3, 2)))
case("deconvnd", lambda: L.DeconvolutionND(2, None, 3, 3, pad=1, groups=1), _inputs((2, 2, 4, 4)), lazy=True)
case("depthwise", lambda: L.DepthwiseConvolution2D(3, 2, 3, stride=2, pad=1), _inputs((2, 3, 6, 7)))
case("depthwise_lazy", lambda: L.DepthwiseConvolution2D(None, 2, 2), _inputs((2, 3, 4, 4)), lazy=True)
case("dilated", lambda: L.DilatedConvolution2D(3, 4, 3, pad=2, dilate=2), _inputs((2, 3, 6, 7)))
case("dilated_shifted", lambda: L.DilatedConvolution2D(4, 3, dilate=2), _inputs((1, 2, 7, 7)), lazy=True)
case("local", lambda: L.LocalConvolution2D(3, 2, in_size=(5, 6), ksize=3), _inputs((2, 3, 5, 6)))
case(
    "local_lazy",
    lambda: L.LocalConvolution2D(None, 2, ksize=(2, 3), nobias=True),
    _inputs((2, 3, 4, 5)),
    lazy=True,
)
case("deformable", lambda: L.DeformableConvolution2D(3, 4, 3, pad=1), _inputs((2, 3, 5, 6)), scale=0.3)
case(
    "deformable_lazy",
    lambda: L.DeformableConvolution2D(None, 2, (2, 3), stride=2, deform_nobias=True),
    _inputs((1, 2, 6, 7)),
    lazy=True,
    scale=0.3,
)

# -- other connections -----------------------------------------------------------------------
# Chainer's bilinear accepts float32 only.
f32 = numpy.float32
case("bilinear", lambda: L.Bilinear(3, 4, 5), _inputs((6, 3), (6, 4), dtype=f32), dtype=f32)
case(
    "bilinear_nobias", lambda: L.Bilinear(2, 3, 2, nobias=True), _inputs((4, 2), (4, 3), dtype=f32), dtype=f32
)
ids = numpy.array([[0, 5, -1], [3, 3, 1]], numpy.int32)
case("embed_id", lambda: L.EmbedID(6, 4, ignore_label=-1), [ids])
case("highway", lambda: L.Highway(5), _inputs((3, 5)))
case("highway_tanh", lambda: L.Highway(4, activate=F.tanh), _inputs((3, 4)))
case("inception", lambda: L.Inception(4, 2, 2, 3, 2, 2, 2), _inputs((2, 4, 5, 5)))
case(
    "inception_bn",
    lambda: L.InceptionBN(4, 2, 2, 3, 2, 2, "max", proj_pool=2),
    _inputs((3, 4, 5, 5)),
    test_mode=True,
)
case(
    "inception_bn_avg",
    lambda: L.InceptionBN(4, 0, 2, 3, 2, 2, "avg", stride=2),
    _inputs((3, 4, 6, 5)),
    test_mode=True,
)
case("mlpconv", lambda: L.MLPConvolution2D(3, (4, 5, 2), 3, pad=1), _inputs((2, 3, 5, 5)))
case(
    "mlpconv_shifted",
    lambda: L.MLPConvolution2D((4, 2), 2, activation=F.tanh),
    _inputs((2, 3, 4, 4)),
    lazy=True,
)
case("maxout", lambda: L.Maxout(4, 3, 2), _inputs((5, 4)))
case("maxout_nobias", lambda: L.Maxout(6, 2, 3, initial_bias=None), _inputs((3, 2, 3)))
case("prelu", lambda: L.PReLU((3,)), _inputs((2, 3, 4)))
case("prelu_scalar", lambda: L.PReLU(), _inputs((2, 3)))
case("scale", lambda: L.Scale(axis=1, W_shape=(3,), bias_term=True), _inputs((2, 3, 4)))
case("scale_two", lambda: L.Scale(axis=1), _inputs((2, 3, 4), (3, 4)))
case("scale_two_bias", lambda: L.Scale(axis=2, bias_term=True, bias_shape=(4,)), _inputs((2, 3, 4), (4,)))
case("bias", lambda: L.Bias(axis=1, shape=(3, 4)), _inputs((2, 3, 4, 2)))
case("bias_two", lambda: L.Bias(axis=0), _inputs((2, 3), (2,)))
case("swish", lambda: L.Swish((3,)), _inputs((2, 3, 4)))
case("swish_lazy", lambda: L.Swish(None), _inputs((2, 3, 4)), lazy=True)
mask3 = rng.uniform(size=(4, 3, 6)) > 0.3
mask2 = rng.uniform(size=(3, 6)) > 0.3
case(
    "dropconnect_mask",
    lambda: L.SimplifiedDropconnect(6, 3, ratio=0.3),
    _inputs((4, 2, 3)),
    call=lambda link, xs: link(xs[0], mask=mask3),
)
data["dropconnect_mask/mask"] = mask3
case(
    "dropconnect_mask2",
    lambda: L.SimplifiedDropconnect(None, 3, ratio=0.6, nobias=True),
    _inputs((4, 6)),
    lazy=True,
    call=lambda link, xs: link(xs[0], mask=mask2, use_batchwise_mask=False),
)
data["dropconnect_mask2/mask"] = mask2
case(
    "dropconnect_test",
    lambda: L.SimplifiedDropconnect(6, 3),
    _inputs((4, 6)),
    call=lambda link, xs: link(xs[0], train=False),
)
case("parameter", lambda: L.Parameter(numpy.arange(6.0).reshape(2, 3)), [])

# -- default initializers --------------------------------------------------------------------
numpy.random.seed(1)
stats("conv2d", L.Convolution2D(64, 32, 3))
stats("conv3d", L.Convolution3D(16, 32, 3))
stats("deconv2d", L.Deconvolution2D(64, 32, 3))
stats("deconvnd", L.DeconvolutionND(1, 64, 32, 5))
stats("depthwise", L.DepthwiseConvolution2D(64, 8, 3))
stats("dilated", L.DilatedConvolution2D(64, 32, 3))
stats("local", L.LocalConvolution2D(16, 8, in_size=8, ksize=3))
stats("deformable", L.DeformableConvolution2D(32, 16, 3))
stats("bilinear", L.Bilinear(20, 30, 40))
stats("embed_id", L.EmbedID(300, 100))
stats("highway", L.Highway(200))
stats("inception", L.Inception(32, 16, 8, 16, 8, 16, 8))
stats("inception_bn", L.InceptionBN(32, 16, 8, 16, 8, 16, "max", proj_pool=8))
stats("mlpconv", L.MLPConvolution2D(32, (64, 32), 3))
stats("maxout", L.Maxout(200, 50, 4))
stats("prelu", L.PReLU((10,)))
stats("scale", L.Scale(W_shape=(10,), bias_term=True))
stats("bias", L.Bias(shape=(10,)))
stats("swish", L.Swish((10,)))
stats("dropconnect", L.SimplifiedDropconnect(300, 100))

numpy.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_connection.npz"), **data)
print(f"wrote {len(data)} arrays")
