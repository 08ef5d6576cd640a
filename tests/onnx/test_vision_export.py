"""ResNet-50 and VGG16 (fnet.nn.vision, random weights) export and match fnet in onnxruntime.

The deep stacks of float32 convolutions sum in another order in onnxruntime: the logits are
compared with rtol 1e-4 and an absolute tolerance of 1e-4 times their largest magnitude (an
entry near zero is the difference of large terms and carries their rounding error).
"""

from __future__ import annotations

import numpy
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx extra is not installed: pip install fnet-chainer[onnx]")
pytest.importorskip("onnxruntime", reason="the onnx extra is not installed: pip install fnet-chainer[onnx]")

import fnet  # noqa: E402
import fnet.onnx  # noqa: E402
from fnet.nn import vision  # noqa: E402

from ._check import run_model  # noqa: E402


def _check(model, size: int, layer: str, batch: int = 2):
    params, state = model.init(fnet.random.key(0)), model.init_state()
    x = numpy.random.default_rng(0).uniform(-1, 1, (batch, 3, size, size)).astype(numpy.float32)

    def logits(p, x):
        found = model.extract(p, x, [layer], state, train=False)
        return (found[0] if isinstance(found, tuple) else found)[layer]  # (layers, state) with state

    expected = numpy.asarray(logits(params, x))
    exported = fnet.onnx.export(logits, params, x, opset=13)
    onnx.checker.check_model(exported)  # not full_check: VGG16 is 0.5 GB, the checker copies it
    (got,) = run_model(exported, [x])
    numpy.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * numpy.abs(expected).max())
    return exported


def test_resnet50_exports_and_matches():
    model = vision.ResNet50()
    exported = _check(model, 64, "fc6")
    names = {i.name for i in exported.graph.initializer}
    assert {"conv1/W", "bn1/gamma", "res2/a/conv1/W", "fc6/W", "res5/b2/bn3/beta"} <= names
    assert "bn1/avg_mean" not in names  # the running statistics are state, not params: constants


@pytest.mark.slow
def test_vgg16_exports_and_matches():
    _check(vision.VGG16(), 224, "fc8", batch=1)
