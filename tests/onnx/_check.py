"""Export a function, check the model, run it in onnxruntime and compare with fnet's forward."""

from __future__ import annotations

import numpy
import onnx
import onnxruntime

import fnet
from fnet import onnx as fonnx

__all__ = ["OPSETS", "run_model", "check_export"]

# The oldest supported opset, 17 (before the reductions take their axes as inputs) and the newest
OPSETS = sorted({fonnx.MIN_OPSET, 17, fonnx.MAX_OPSET})


def run_model(model: onnx.ModelProto, inputs: list) -> list:
    """The outputs of ``model`` on ``inputs`` (in graph input order), run by onnxruntime on the CPU."""
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = {i.name: numpy.asarray(a) for i, a in zip(session.get_inputs(), inputs)}
    return session.run(None, feed)


def check_export(fn, params, *args, rtol=1e-5, atol=0.0, opsets=OPSETS, **kwargs) -> onnx.ModelProto:
    """Export ``fn`` at each opset, check the model, and compare onnxruntime's outputs with
    ``fn(params, *args)`` within ``rtol`` (and ``atol`` for values near zero)."""
    expected = [numpy.asarray(fnet.autodiff.unbox_all(e)) for e in fnet.tree.leaves(fn(params, *args))]
    model = None
    for opset in opsets:
        model = fonnx.export(fn, params, *args, opset=opset, **kwargs)
        onnx.checker.check_model(model, full_check=True)
        got = run_model(model, fnet.tree.leaves(args))
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.shape == e.shape, (opset, g.shape, e.shape)
            assert g.dtype == e.dtype, (opset, g.dtype, e.dtype)
            if e.dtype.kind in "biu":
                numpy.testing.assert_array_equal(g, e)
            else:
                numpy.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=f"opset {opset}")
    return model
