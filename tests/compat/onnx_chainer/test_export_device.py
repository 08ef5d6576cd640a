"""onnx_chainer.export and export_testcase of a model that lives on the device under test
(``--gpu-device``; ``@double`` on a machine without a GPU): the files are those the same model
writes on the host (Chainer copies what goes into a proto with ``cuda.to_cpu``)."""

from __future__ import annotations

import copy

import numpy
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx extra is not installed: pip install fnet-chainer[onnx]")
pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")

import fnet.compat as chainer  # noqa: E402
from fnet import backend  # noqa: E402
from fnet.compat import onnx_chainer  # noqa: E402
from fnet.compat.onnx_chainer import onnx_helper  # noqa: E402

F = chainer.functions
L = chainer.links


class Scale(chainer.FunctionNode):
    """``x * w``, with ``w`` an array held by the node (not an input): its converter adds ``w``
    as an initializer."""

    def __init__(self, w):
        self.w = w

    def forward(self, inputs):
        return (inputs[0] * self.w,)

    def backward(self, indexes, grad_outputs):
        return (grad_outputs[0] * self.w,)


def convert_scale(params):
    w = params.context.add_param(params.func.w, "w")
    return (onnx_helper.make_node("Mul", [params.input_names[0], w], params.output_names),)


class Net(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 4)
            self.bn = L.BatchNormalization(4)
        self.w = numpy.linspace(0.5, 2.0, 4, dtype=numpy.float32)  # neither a param nor persistent

    def device_resident_accept(self, visitor):
        super().device_resident_accept(visitor)
        self.w = visitor.visit_array(self.w)

    def forward(self, x):
        return Scale(self.w).apply((F.relu(self.bn(self.l1(x))),))[0]


class _Sending:
    """A ``device_resident_accept`` visitor that sends the arrays to an fnet Device (Chainer's
    ``to_device`` knows the stand-in as a GPU only when fnet.compat was imported with it)."""

    def __init__(self, device):
        self.device = device

    def visit_device_resident(self, link):
        """Nothing to do for the link itself: its arrays are sent one by one."""

    def visit_array(self, array):
        return self.device.send(array)

    def visit_variable(self, variable):
        variable.array = self.device.send(variable.array)


def _made():
    numpy.random.seed(3)
    model = Net()
    model.bn.avg_mean[...] = numpy.random.uniform(-1, 1, 4)
    model.bn.avg_var[...] = numpy.random.uniform(0.5, 1.5, 4)
    return model, numpy.random.standard_normal((5, 3)).astype(numpy.float32)


def _on(device, model, x):
    model = copy.deepcopy(model)
    model.device_resident_accept(_Sending(device))
    assert backend.get_device_from_array(model.l1.W.array) == device
    return model, device.send(x)


@pytest.mark.gpu
@pytest.mark.parametrize("train", [False, True])
def test_export_on_the_device_writes_the_hosts_file(gpu_device, train, tmp_path):
    model, x = _made()
    kwargs = {"train": train, "external_converters": {"Scale": convert_scale}}
    host_model = copy.deepcopy(model)
    on_host = onnx_chainer.export(host_model, x, **kwargs)
    there, x_there = _on(gpu_device, model, x)
    on_device = onnx_chainer.export(there, x_there, **kwargs)
    assert on_device.SerializeToString() == on_host.SerializeToString()
    assert "Scale_param_w" in {i.name for i in on_device.graph.initializer}
    # the running averages: arrays on the model's device again, updated as on the host in training
    for name in ("avg_mean", "avg_var"):
        value = getattr(there.bn, name)
        assert type(value) is type(there.l1.W.array)
        numpy.testing.assert_allclose(backend.to_cpu(value), getattr(host_model.bn, name), rtol=1e-6)
    tensor = onnx_chainer.convert_parameter(there.l1.W, onnx_chainer.context.Context(there))
    numpy.testing.assert_array_equal(onnx.numpy_helper.to_array(tensor), model.l1.W.array)


def _tensors(folder):
    return {p.name: onnx.load_tensor(str(p)) for p in sorted((folder / "test_data_set_0").iterdir())}


@pytest.mark.gpu
def test_export_testcase_on_the_device_writes_the_hosts_tensors(gpu_device, tmp_path):
    model, x = _made()
    kwargs = {"output_grad": True, "external_converters": {"Scale": convert_scale}}
    onnx_chainer.export_testcase(copy.deepcopy(model), [x], str(tmp_path / "host"), **kwargs)
    there, x_there = _on(gpu_device, model, x)
    onnx_chainer.export_testcase(there, [x_there], str(tmp_path / "device"), **kwargs)
    assert (tmp_path / "device" / "model.onnx").read_bytes() == (
        tmp_path / "host" / "model.onnx"
    ).read_bytes()
    host, device = _tensors(tmp_path / "host"), _tensors(tmp_path / "device")
    assert sorted(device) == sorted(host) and "gradient_0.pb" in host and "input_0.pb" in host
    assert device["input_0.pb"].SerializeToString() == host["input_0.pb"].SerializeToString()
    for name, expected in host.items():  # outputs and gradients: computed there (a GPU rounds its own way)
        got = device[name]
        assert (got.name, got.data_type, list(got.dims)) == (
            expected.name,
            expected.data_type,
            list(expected.dims),
        )
        numpy.testing.assert_allclose(
            onnx.numpy_helper.to_array(got), onnx.numpy_helper.to_array(expected), rtol=1e-5, atol=1e-6
        )
