"""``check_model_expect``: run an exported test case in onnxruntime and compare the outputs."""

from __future__ import annotations

import glob
import os

import numpy
import onnx

try:
    import onnxruntime
except ImportError:  # pragma: no cover - the onnx extra brings it
    onnxruntime = None

__all__ = ["ONNXRUNTIME_AVAILABLE", "load_test_data", "check_model_expect"]

ONNXRUNTIME_AVAILABLE = onnxruntime is not None


def load_test_data(data_dir: str, input_names, output_names) -> tuple[dict, dict]:
    """The ``input_*.pb`` and ``output_*.pb`` of ``data_dir`` by name (a tensor without one of
    the expected names takes the next expected name)."""
    found = []
    for kind, names in (("input", input_names), ("output", output_names)):
        names = list(names)
        values = {}
        for path in sorted(glob.glob(os.path.join(data_dir, f"{kind}_*.pb"))):
            tensor = onnx.load_tensor(path)
            name = tensor.name if tensor.name in names else names[0]
            names.remove(name)
            values[name] = onnx.numpy_helper.to_array(tensor)
        found.append(values)
    return found[0], found[1]


def check_model_expect(test_path: str, input_names=None, rtol: float = 1e-5, atol: float = 1e-5) -> None:
    """Run ``test_path/model.onnx`` on each ``test_data_set_*`` and compare with its outputs."""
    if not ONNXRUNTIME_AVAILABLE:
        raise ImportError("check_model_expect needs onnxruntime: pip install fnet-chainer[onnx]")
    model = onnx.load_model(os.path.join(test_path, "model.onnx"))
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    in_names = [v.name for v in session.get_inputs()]
    out_names = [v.name for v in session.get_outputs()]
    if input_names is not None:
        assert sorted(input_names) == sorted(in_names), (input_names, in_names)
    for folder in sorted(p for p in os.listdir(test_path) if p.startswith("test_data_set_")):
        inputs, outputs = load_test_data(os.path.join(test_path, folder), in_names, out_names)
        got = session.run(list(outputs), inputs)
        for expected, value in zip(outputs.values(), got):
            numpy.testing.assert_allclose(expected, value, rtol=rtol, atol=atol)
