"""fnet.compat.onnx_chainer: Chainer's exporter API on fnet.onnx, checked in onnxruntime."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx extra is not installed: pip install fnet-chainer[onnx]")
onnxruntime = pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")

import fnet.compat as chainer  # noqa: E402
from fnet.compat import onnx_chainer  # noqa: E402
from fnet.compat.onnx_chainer import onnx_helper  # noqa: E402
from fnet.compat.onnx_chainer.replace_func import as_funcnode  # noqa: E402
from fnet.compat.onnx_chainer.testing import input_generator  # noqa: E402
from fnet.compat.onnx_chainer.testing.test_onnxruntime import check_model_expect  # noqa: E402

F = chainer.functions
L = chainer.links


class MLP(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 5)
            self.bn = L.BatchNormalization(5)
            self.l2 = L.Linear(5, 2)

    def forward(self, x):
        return self.l2(F.dropout(F.relu(self.bn(self.l1(x)))))


def run(model, feed):
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feed)


def test_export_names_and_values_as_chainer():
    numpy.random.seed(0)
    model = MLP()
    model.bn.avg_mean[...] = numpy.random.rand(5)
    x = input_generator.increasing(4, 3)
    onnx_model = onnx_chainer.export(model, x)
    onnx.checker.check_model(onnx_model)
    assert [i.name for i in onnx_model.graph.input] == ["Input_0"]
    assert [o.name for o in onnx_model.graph.output] == ["LinearFunction_1"]
    names = {i.name for i in onnx_model.graph.initializer}
    assert {
        "param_l1_W",
        "param_l1_b",
        "param_l2_W",
        "param_bn_gamma",
        "param_bn_avg_mean",
        "param_bn_avg_var",
    } <= names
    assert not any(n.op_type == "Dropout" for n in onnx_model.graph.node)  # train=False: no dropout
    with chainer.using_config("train", False):
        expected = model(x).array
    numpy.testing.assert_allclose(run(onnx_model, {"Input_0": x})[0], expected, rtol=1e-5, atol=1e-6)


def test_export_in_training_mode_updates_the_running_averages_as_a_forward_pass():
    model = MLP()
    before = model.bn.avg_mean.copy()
    onnx_chainer.export(model, input_generator.increasing(4, 3), train=True)
    assert type(model.bn.avg_mean) is type(model.l1.W.array)  # an array where the model is, not a tracer
    assert not numpy.array_equal(model.bn.avg_mean, before)
    onnx_chainer.export(model, input_generator.increasing(4, 3))  # train=False: unchanged
    assert type(model.bn.avg_mean) is type(model.l1.W.array)


def test_export_testcase_layout(tmp_path):
    model = MLP()
    x = input_generator.increasing(4, 3)
    onnx_chainer.export_testcase(
        model, [x], str(tmp_path), input_names=["x"], output_names=["y"], output_grad=True
    )
    assert (tmp_path / "model.onnx").is_file()
    data = tmp_path / "test_data_set_0"
    assert onnx.load_tensor(str(data / "input_0.pb")).name == "x"
    assert onnx.load_tensor(str(data / "output_0.pb")).name == "y"
    assert onnx.load_tensor(str(data / "gradient_0.pb")).name.startswith("param_")
    check_model_expect(str(tmp_path))


def test_opset_outside_the_range_is_an_error():
    with pytest.raises(ValueError, match="expected opset_version in 13"):
        onnx_chainer.export(MLP(), input_generator.increasing(1, 3), opset_version=11)


def test_external_converter_for_a_user_function_node():
    class Twice(chainer.FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 2,)

    def converter(params):
        gb = onnx_helper.GraphBuilder()
        two = gb.op("Constant", [], value=onnx.numpy_helper.from_array(numpy.array(2, numpy.float32)))
        gb.op("Mul", [params.input_names[0], two])
        return gb.nodes(output_names=params.output_names)

    model = chainer.Sequential(lambda x: Twice().apply((x,))[0], F.tanh)
    x = input_generator.increasing(2, 3)
    with pytest.raises(ValueError, match="'Twice' has no converter"):
        onnx_chainer.export(model, x)
    onnx_model = onnx_chainer.export(model, x, external_converters={"Twice": converter})
    numpy.testing.assert_allclose(run(onnx_model, {"Input_0": x})[0], numpy.tanh(2 * x), rtol=1e-5)


def test_external_converter_overrides_a_builtin_function():
    model = chainer.Sequential(F.sigmoid)
    x = input_generator.increasing(2, 3)

    def as_tanh(params):
        return (onnx_helper.make_node("Tanh", params.input_names, params.output_names),)

    onnx_model = onnx_chainer.export(model, x, external_converters={"Sigmoid": as_tanh})
    assert [n.op_type for n in onnx_model.graph.node if n.op_type != "Identity"] == ["Tanh"]
    numpy.testing.assert_allclose(run(onnx_model, {"Input_0": x})[0], numpy.tanh(x), rtol=1e-5)


def test_as_funcnode_makes_one_node_with_attributes():
    class Model(chainer.Chain):
        @as_funcnode("AddValue")
        def add(self, x, value=1.0):
            return x.array + value

        def forward(self, x):
            return F.relu(self.add(x, value=3.0))

    def converter(params):
        value = numpy.array(params.func.value, numpy.float32)
        const = params.context.add_const(value, "value")
        return (onnx_helper.make_node("Add", [params.input_names[0], const], params.output_names),)

    x = input_generator.increasing(2, 3)
    onnx_model = onnx_chainer.export(Model(), x, external_converters={"AddValue": converter})
    numpy.testing.assert_allclose(run(onnx_model, {"Input_0": x})[0], numpy.maximum(x + 3, 0), rtol=1e-6)


def test_onnx_chainer_resolves_through_the_alias(tmp_path):
    script = tmp_path / "uses_onnx_chainer.py"
    script.write_text(
        "import onnx_chainer, chainer\n"
        "import numpy\n"
        "m = chainer.Sequential(chainer.links.Linear(3, 2))\n"
        "model = onnx_chainer.export(m, numpy.ones((1, 3), numpy.float32))\n"
        "print(onnx_chainer.__name__, model.graph.output[0].name)\n"
    )
    out = subprocess.run(
        [sys.executable, "-m", "fnet.compat", str(script)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert out.stdout.split() == ["fnet.compat.onnx_chainer", "LinearFunction_0"]


def test_a_wrapped_function_named_after_a_chainer_function_uses_its_attributes():
    @as_funcnode("AddConstant", rename_attributes=[("b", "value")])
    def add(x, b=0.25):  # the default is an attribute too
        return x.array + b

    model = chainer.Sequential(add, F.sigmoid)
    x = input_generator.increasing(2, 3)
    onnx_model = onnx_chainer.export(model, x)
    numpy.testing.assert_allclose(
        run(onnx_model, {"Input_0": x})[0], 1 / (1 + numpy.exp(-(x + 0.25))), rtol=1e-6
    )


def test_a_wrapped_function_keeps_the_structure_of_its_result():
    @as_funcnode("Split")
    def split(x):
        return {"head": x.array[:1], "rest": [x.array[1:], x.array * 2]}

    out = split(chainer.Variable(input_generator.increasing(3, 2)))
    assert sorted(out) == ["head", "rest"] and isinstance(out["rest"], list) and len(out["rest"]) == 2
    assert isinstance(out["head"], chainer.Variable) and out["rest"][1].shape == (3, 2)
