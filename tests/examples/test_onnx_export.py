"""The ONNX round trip: the digits CNN trained, exported, and run by onnxruntime predicts the
same classes as fnet on the whole test split."""

import re

import pytest

pytest.importorskip("onnxruntime", reason="the onnx extra is not installed: pip install fnet-chainer[onnx]")


def test_onnx_export_smoke(run_example, tmp_path):
    out = run_example("onnx_export", "--smoke", "--opset", "13")
    same, total = map(int, re.search(r"same class as fnet for (\d+) of (\d+) test images", out).groups())
    assert total == 360 and same == total
    assert float(re.search(r"fnet test accuracy ([\d.]+)", out).group(1)) > 0.85  # chance is 0.1
    assert float(re.search(r"largest probability difference ([\d.e+-]+)", out).group(1)) < 1e-5
    assert "(opset 13): " in out and "Conv" in out
    assert (tmp_path / "result" / "digits.onnx").is_file()
