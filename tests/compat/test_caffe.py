"""Caffe interop: CaffeFunction on caffemodels built here, and the exporter's round trip."""

import os

import numpy
import pytest

pytest.importorskip("google.protobuf")

import fnet.compat as chainer  # noqa: E402
import fnet.compat.functions as F  # noqa: E402
import fnet.compat.links as L  # noqa: E402
from fnet.compat.exporters import caffe as exporter  # noqa: E402
from fnet.compat.links.caffe import CaffeFunction  # noqa: E402
from fnet.errors import CheckpointError  # noqa: E402
from fnet.io.caffe import schema  # noqa: E402

# The same float32 arithmetic in a different order (im2col vs direct, fused or not): a few ulps.
RTOL, ATOL = 1e-5, 1e-6


def _blob(layer, array):
    blob = layer.blobs.add()
    blob.shape.dim.extend(array.shape)
    blob.data.extend(array.ravel().tolist())


def _write(tmp_path, net):
    path = os.path.join(tmp_path, "net.caffemodel")
    with open(path, "wb") as f:
        f.write(net.SerializeToString())
    return path


def _weights(rng):
    return {
        "W1": rng.standard_normal((4, 3, 3, 3)).astype(numpy.float32),
        "b1": rng.standard_normal(4).astype(numpy.float32),
        "W2": rng.standard_normal((5, 4 * 3 * 3)).astype(numpy.float32),
        "b2": rng.standard_normal(5).astype(numpy.float32),
    }


def _expected(w, x):
    conv = L.Convolution2D(3, 4, 3, 1, 1, initialW=w["W1"], initial_bias=w["b1"])
    fc = L.Linear(36, 5, initialW=w["W2"], initial_bias=w["b2"])
    h = F.max_pooling_2d(F.relu(conv(x)), 2, stride=2)
    return F.softmax(fc(h)).array


def _net_v2(w):
    net = schema.NetParameter(name="small")
    conv = net.layer.add(name="conv1", type="Convolution", bottom=["data"], top=["conv1"])
    conv.convolution_param.num_output = 4
    conv.convolution_param.kernel_size.append(3)
    conv.convolution_param.pad.append(1)
    _blob(conv, w["W1"])
    _blob(conv, w["b1"])
    net.layer.add(name="relu1", type="ReLU", bottom=["conv1"], top=["conv1"])
    pool = net.layer.add(name="pool1", type="Pooling", bottom=["conv1"], top=["pool1"])
    pool.pooling_param.kernel_size, pool.pooling_param.stride = 2, 2
    fc = net.layer.add(name="fc", type="InnerProduct", bottom=["pool1"], top=["fc"])
    fc.inner_product_param.num_output = 5
    _blob(fc, w["W2"])
    _blob(fc, w["b2"])
    net.layer.add(name="prob", type="Softmax", bottom=["fc"], top=["prob"])
    return net


def _net_v1(w):
    net = schema.NetParameter(name="small_v1")
    T = schema.V1LayerParameter
    conv = net.layers.add(name="conv1", type=T.CONVOLUTION, bottom=["data"], top=["conv1"])
    conv.convolution_param.num_output = 4
    conv.convolution_param.kernel_size.append(3)
    conv.convolution_param.pad.append(1)
    for array, layer in ((w["W1"], conv), (w["b1"], conv)):
        blob = layer.blobs.add(num=1, channels=1, height=1, width=array.size)  # v1 blobs: 4 numbers
        if array.ndim == 4:
            blob.num, blob.channels, blob.height, blob.width = array.shape
        blob.data.extend(array.ravel().tolist())
    net.layers.add(name="relu1", type=T.RELU, bottom=["conv1"], top=["conv1"])
    pool = net.layers.add(name="pool1", type=T.POOLING, bottom=["conv1"], top=["pool1"])
    pool.pooling_param.kernel_size, pool.pooling_param.stride = 2, 2
    fc = net.layers.add(name="fc", type=T.INNER_PRODUCT, bottom=["pool1"], top=["fc"])
    fc.inner_product_param.num_output = 5
    fc.blobs.add(num=1, channels=1, height=5, width=36).data.extend(w["W2"].ravel().tolist())
    fc.blobs.add(num=1, channels=1, height=1, width=5).data.extend(w["b2"].tolist())
    net.layers.add(name="prob", type=T.SOFTMAX, bottom=["fc"], top=["prob"])
    return net


@pytest.mark.parametrize("make", [_net_v2, _net_v1], ids=["v2", "v1"])
def test_caffe_function_matches_the_same_network_of_links(tmp_path, make):
    rng = numpy.random.default_rng(0)
    w = _weights(rng)
    x = rng.standard_normal((2, 3, 6, 6)).astype(numpy.float32)
    func = CaffeFunction(_write(tmp_path, make(w)))
    (y,) = func(inputs={"data": x}, outputs=["prob"])
    numpy.testing.assert_allclose(y.array, _expected(w, x), rtol=RTOL, atol=ATOL)
    assert [name for name, _, _ in func.layers] == ["conv1", "relu1", "pool1", "fc", "prob"]


def test_unsupported_layer_warns_and_is_skipped(tmp_path):
    net = schema.NetParameter()
    net.layer.add(name="t", type="TanH", bottom=["data"], top=["t"])
    with pytest.warns(UserWarning, match='Skip the layer "t".*TanH'):
        func = CaffeFunction(_write(tmp_path, net))
    assert func.layers == []


def test_corrupt_file_is_a_clear_error(tmp_path):
    path = os.path.join(tmp_path, "bad.caffemodel")
    with open(path, "wb") as f:
        f.write(b"\x0a\xff\xff\xff\xff\x0f")  # a length-delimited field longer than the file
    with pytest.raises(CheckpointError, match="is not a Caffe network"):
        CaffeFunction(path)
    with pytest.raises(CheckpointError, match="cannot read the Caffe model"):
        CaffeFunction(os.path.join(tmp_path, "missing.caffemodel"))


class _Model(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(3, 4, 3, 1, 1)
            self.bn = L.BatchNormalization(4)
            self.fc = L.Linear(None, 5)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.bn(self.conv(x))), 2, stride=2)
        return F.softmax(self.fc(h) + self.fc(h))


def test_export_then_import_gives_the_same_outputs(tmp_path):
    rng = numpy.random.default_rng(1)
    model = _Model()
    model.bn.avg_mean[...] = rng.standard_normal(4)
    model.bn.avg_var[...] = rng.uniform(0.5, 2.0, 4)
    model.bn.gamma.array[...] = rng.standard_normal(4)
    x = chainer.Variable(rng.standard_normal((1, 3, 6, 6)).astype(numpy.float32))
    exporter.export(model, [x], str(tmp_path), graph_name="g")
    assert sorted(os.listdir(tmp_path)) == [
        "chainer_model.caffemodel",
        "chainer_model.prototxt",
    ]  # no temp files
    text = (tmp_path / "chainer_model.prototxt").read_text()
    assert text.startswith('name: "g"') and 'type: "Input"' in text and "blobs" not in text
    func = CaffeFunction(str(tmp_path / "chainer_model.caffemodel"))
    types = [type(getattr(func, name, None)).__name__ for name, _, _ in func.layers]
    assert types.count("BatchNormalization") == 1 and types.count("Scale") == 1
    with chainer.using_config("train", False):
        expected = model(x).array
        (y,) = func(inputs={"data": x}, outputs=[func.layers[-1][0]])
    numpy.testing.assert_allclose(y.array, expected, rtol=RTOL, atol=ATOL)


def test_export_refuses_a_function_caffe_has_no_layer_for():
    x = chainer.Variable(numpy.ones((1, 3), numpy.float32))
    with pytest.raises(ValueError, match="Tanh.*no Caffe layer"):
        exporter.export(lambda v: F.tanh(v), [x])


def test_creator_of_a_temporary_variable_is_kept():
    """The graph runs through Variables that are gone (``F.sigmoid(F.relu(x))``)."""
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    y = F.sigmoid(F.relu(x))
    (parent,) = y.creator.inputs
    assert parent.creator is not None and parent.creator.label == "ReLU"
