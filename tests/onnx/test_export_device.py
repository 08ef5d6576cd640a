"""fnet.onnx.export of a function whose params and example inputs live on the device under test
(``--gpu-device``; ``@double`` on a machine without a GPU): the ONNX file is the one the same
function gives on the host, byte for byte (what goes into it is copied to the host)."""

from __future__ import annotations

import numpy
import pytest

pytest.importorskip("onnx", reason="the onnx extra is not installed: pip install fnet-chainer[onnx]")
pytest.importorskip("onnxruntime", reason="the onnx extra is not installed: pip install fnet-chainer[onnx]")

import fnet  # noqa: E402
import fnet.functions as F  # noqa: E402
import fnet.nn  # noqa: E402
from fnet import backend  # noqa: E402
from fnet import onnx as fonnx  # noqa: E402

from ._check import run_model  # noqa: E402

R = numpy.random.default_rng(5)
LINEAR = fnet.nn.Linear(3, 4)
NORM = fnet.nn.BatchNormalization(4)


def _params() -> dict:
    """The layers' params and the norm's running statistics (made on the host), one tree: the
    statistics are initializers too, so every float in the file is a copy of a given array."""
    state = {
        k: v + R.uniform(0.5, 1.0, numpy.shape(v)).astype(numpy.float32) for k, v in NORM.init_state().items()
    }
    return {"l1": LINEAR.init(fnet.random.key(0)), "bn": NORM.init(fnet.random.key(1)), "stats": state}


def _model(p, x, rows, constants):
    """Linear, inference batch norm, an index that is an input (``h[rows]``), a constant index
    array (``select_item``), constant weights (``average``) and a 0-d array scalar."""
    h = LINEAR.apply(p["l1"], x)
    h, _ = NORM.apply(p["bn"], h, p["stats"], train=False)
    picked = F.select_item(F.relu(h), constants["classes"])
    mean = F.average(h[rows], axis=1, weights=constants["weights"])
    return picked * constants["scale"], mean


def _example() -> tuple:
    constants = {
        "classes": numpy.array([1, 0, 3, 2, 2], numpy.int32),
        "weights": numpy.array([1, 2, 3, 4], numpy.float32),
        "scale": numpy.asarray(numpy.float32(0.5)).reshape(()),
    }
    x = R.standard_normal((5, 3)).astype(numpy.float32)
    rows = numpy.array([4, 0, 2], numpy.int32)
    return _params(), x, rows, constants


@pytest.mark.gpu
def test_export_on_the_device_writes_the_hosts_file(gpu_device, tmp_path):
    params, x, rows, constants = _example()

    def fn(p, x, rows):
        return _model(p, x, rows, constants)

    on_host = fonnx.export(fn, params, x, rows, filename=tmp_path / "host.onnx")
    sent = backend.to_device((params, x, rows, constants), gpu_device)

    def fn_there(p, x, rows):
        return _model(p, x, rows, sent[3])

    on_device = fonnx.export(fn_there, sent[0], sent[1], sent[2], filename=tmp_path / "device.onnx")
    assert on_device.SerializeToString() == on_host.SerializeToString()
    assert (tmp_path / "device.onnx").read_bytes() == (tmp_path / "host.onnx").read_bytes()
    assert [i.name for i in on_device.graph.input] == ["input_0", "input_1"]  # h[rows]: an input
    expected = [numpy.asarray(fnet.autodiff.unbox_all(y)) for y in fn(params, x, rows)]
    for got, want in zip(run_model(on_device, [x, rows]), expected):
        # onnxruntime's kernels (Gemm, the normalization) round differently from NumPy's
        numpy.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
