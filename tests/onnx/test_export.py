"""fnet.onnx.export: names, files, opsets, dynamic axes, the converter table's completeness,
and the errors for what ONNX cannot express."""

from __future__ import annotations

import os

import numpy
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx extra is not installed: pip install fnet-chainer[onnx]")
pytest.importorskip("onnxruntime", reason="the onnx extra is not installed: pip install fnet-chainer[onnx]")

import fnet  # noqa: E402
import fnet.functions as F  # noqa: E402
import fnet.nn  # noqa: E402
from fnet import onnx as fonnx  # noqa: E402
from fnet.autodiff.primitive import all_primitives, primitive  # noqa: E402
from fnet.errors import ExportError  # noqa: E402

from ._check import check_export, run_model  # noqa: E402

R = numpy.random.default_rng(2)


def mlp(p, x):
    h = F.relu(F.linear(x, p["predictor"]["l1"]["W"], p["predictor"]["l1"]["b"]))
    return F.linear(h, p["predictor"]["l2"]["W"], p["predictor"]["l2"]["b"])


PARAMS = {
    "predictor": {
        "l1": {"W": R.standard_normal((5, 3)).astype(numpy.float32), "b": numpy.zeros(5, numpy.float32)},
        "l2": {"W": R.standard_normal((2, 5)).astype(numpy.float32), "b": numpy.ones(2, numpy.float32)},
    }
}
X = R.standard_normal((4, 3)).astype(numpy.float32)


def test_initializers_are_named_by_tree_path():
    model = fonnx.export(mlp, PARAMS, X)
    names = [i.name for i in model.graph.initializer]
    assert names == ["predictor/l1/W", "predictor/l1/b", "predictor/l2/W", "predictor/l2/b"]
    assert [i.name for i in model.graph.input] == ["input_0"]
    assert [o.name for o in model.graph.output] == ["output_0"]


def test_unused_params_are_left_out_and_names_are_given():
    params = dict(PARAMS, unused={"W": numpy.ones(3, numpy.float32)})
    model = fonnx.export(mlp, params, X, input_names=["x"], output_names=["logits"])
    assert "unused/W" not in [i.name for i in model.graph.initializer]
    assert [i.name for i in model.graph.input] == ["x"]
    assert [o.name for o in model.graph.output] == ["logits"]


def test_default_opset_is_the_newest():
    model = fonnx.export(mlp, PARAMS, X)
    assert model.opset_import[0].version == fonnx.MAX_OPSET == onnx.defs.onnx_opset_version()
    assert list(fonnx.supported_opsets()) == list(range(fonnx.MIN_OPSET, fonnx.MAX_OPSET + 1))


def test_pytree_inputs_and_outputs():
    def f(p, xs):
        return {"sum": xs["a"] + xs["b"], "prod": xs["a"] * xs["b"]}

    xs = {"a": X, "b": X[::-1].copy()}
    model = check_export(f, {}, xs, input_names=["a", "b"], output_names=["prod", "sum"])
    assert [o.name for o in model.graph.output] == ["prod", "sum"]


def test_file_is_written_atomically(tmp_path):
    path = tmp_path / "model.onnx"
    path.write_bytes(b"old")
    model = fonnx.export(mlp, PARAMS, X, filename=path)
    assert onnx.load(str(path)) == model
    assert sorted(os.listdir(tmp_path)) == ["model.onnx"]  # no temporary file left behind


def test_a_failed_export_leaves_the_old_file(tmp_path):
    path = tmp_path / "model.onnx"
    path.write_bytes(b"old")
    with pytest.raises(ExportError):
        fonnx.export(mlp, PARAMS, X, filename=path, opset=7)
    assert path.read_bytes() == b"old"


def test_dynamic_batch_axis_runs_other_batch_sizes():
    def convnet(p, x):
        h = F.max_pooling_2d(F.relu(F.convolution_2d(x, p["W"], pad=1)), 2)
        return F.softmax(F.linear(F.reshape(h, (h.shape[0], -1)), p["L"]))

    params = {
        "W": R.standard_normal((3, 2, 3, 3)).astype(numpy.float32),
        "L": R.standard_normal((4, 48)).astype("f"),
    }
    x = R.standard_normal((2, 2, 8, 8)).astype(numpy.float32)
    model = fonnx.export(convnet, params, x, dynamic_axes={"input_0": [0], "output_0": {0: "batch"}})
    onnx.checker.check_model(model, full_check=True)
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "input_0_dim0"
    assert model.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    bigger = R.standard_normal((5, 2, 8, 8)).astype(numpy.float32)
    (got,) = run_model(model, [bigger])
    numpy.testing.assert_allclose(got, convnet(params, bigger), rtol=1e-4)


def test_inference_batch_normalization_and_dropout_of_a_layer():
    spec = fnet.nn.BatchNormalization(3)
    params, state = spec.init(fnet.random.key(0)), spec.init_state()
    state = {k: v + R.uniform(0.5, 1.0, v.shape).astype(v.dtype) for k, v in state.items()}

    def f(p, x):
        y, _ = spec.apply(p, x, state, train=False)
        return F.dropout(y, 0.5, train=False)

    model = check_export(f, params, R.standard_normal((4, 3, 2, 2)).astype(numpy.float32), rtol=1e-4)
    assert not any(n.op_type in ("Dropout", "ReduceMean") for n in model.graph.node)


# -- the table and its completeness ------------------------------------------------------------
def test_every_primitive_has_a_converter_or_a_reason():
    import fnet.compat  # noqa: F401  (its primitives are in the list too)

    names = {p.name for key, p in all_primitives().items() if key.startswith(("fnet.", "numpy."))}
    missing = sorted(names - set(fonnx.CONVERTERS) - set(fonnx.UNCONVERTED))
    assert missing == [], f"primitives with neither a converter nor a reason: {missing}"
    assert not set(fonnx.CONVERTERS) & set(fonnx.UNCONVERTED)
    assert all(fonnx.UNCONVERTED.values())


def test_primitive_names_are_unique():
    names = [p.name for p in all_primitives().values()]
    assert len(names) == len(set(names))


# -- errors -------------------------------------------------------------------------------------
@primitive
def _no_onnx_here(x):
    return x * 2


def test_unsupported_primitive_names_it_its_call_site_and_the_opsets():
    def f(p, x):
        return _no_onnx_here(F.relu(x))  # the call site named in the message

    with pytest.raises(ExportError) as info:
        fonnx.export(f, {}, X)
    text = str(info.value)
    assert "_no_onnx_here: has no ONNX converter" in text
    assert f"{__file__}:{f.__code__.co_firstlineno + 1}" in text
    assert f"opsets {fonnx.MIN_OPSET}..{fonnx.MAX_OPSET}" in text


def test_unconverted_primitive_gives_its_reason():
    with pytest.raises(ExportError, match="cholesky: has no ONNX converter: ONNX has no operator"):
        fonnx.export(lambda p, a: F.cholesky(a), {}, numpy.eye(3, dtype=numpy.float32))


@pytest.mark.parametrize("opset", [7, 12, fonnx.MAX_OPSET + 1, "13", True])
def test_unsupported_opset(opset):
    with pytest.raises(ExportError, match=rf"expected opset in {fonnx.MIN_OPSET}\.\.{fonnx.MAX_OPSET}"):
        fonnx.export(mlp, PARAMS, X, opset=opset)


def test_data_dependent_shape_is_an_error():
    with pytest.raises(ExportError, match="depend on the example's data"):
        fonnx.export(lambda p, x: F.sum(x[x > 0]), {}, X)


def test_input_read_as_data_is_an_error():
    def f(p, x, n):
        return x * float(numpy.asarray(fnet.autodiff.unbox_all(n)).sum())  # n read through NumPy

    with pytest.raises(ExportError, match="input 'input_1' reaches no output"):
        fonnx.export(f, {}, X, numpy.ones(2, numpy.float32))


def test_constant_output_is_an_error():
    with pytest.raises(ExportError, match="output 'output_1' is not computed from the inputs"):
        fonnx.export(lambda p, x: (x * 2, numpy.ones(3, numpy.float32)), {}, X)


def test_wrong_number_of_names():
    with pytest.raises(ExportError, match="expected 1 distinct input names, got"):
        fonnx.export(mlp, PARAMS, X, input_names=["a", "b"])


def test_constant_pad_on_each_side_is_unsupported():
    with pytest.raises(ExportError, match="different constant on each side"):
        fonnx.export(lambda p, x: fnet.ops.pad(x, 1, constant_values=((1, 2), (3, 4))), {}, X)


def test_a_registered_converter_exports_a_new_primitive(monkeypatch):
    monkeypatch.setitem(
        fonnx.CONVERTERS, "_no_onnx_here", lambda g, call: g.node("Add", [call.inputs[0]] * 2)
    )
    check_export(lambda p, x: _no_onnx_here(F.relu(x)), {}, X)
