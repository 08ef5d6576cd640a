"""Chainer's two static-graph MNIST examples (``examples/static_graph_optimizations/mnist`` of
Chainer 7.8.1), unchanged, through ``python -m fnet.compat`` on a synthetic MNIST cache: they
train (accuracy rises well above chance) with ``@static_graph`` replaying the model.

fnet does not ship Chainer's code: the test runs where ``FNET_CHAINER_CHECKOUT`` names a Chainer
7.8.1 checkout, and is skipped elsewhere.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECKOUT = os.environ.get("FNET_CHAINER_CHECKOUT")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHECKOUT, reason="needs FNET_CHAINER_CHECKOUT: a Chainer 7.8.1 checkout"),
]


def _run(tmp_path, name, *args):
    pytest.importorskip("matplotlib", reason="Chainer's MNIST example draws its plots with matplotlib")
    script = pathlib.Path(CHECKOUT) / "examples" / "static_graph_optimizations" / "mnist" / name
    assert script.is_file(), f"{script} is not there: FNET_CHAINER_CHECKOUT must be a Chainer checkout"
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import synthetic_mnist
    finally:
        sys.path.pop(0)
    synthetic_mnist.write_cache(str(tmp_path / "datasets"), n_train=1000, n_test=200)
    env = {
        **os.environ,
        "CHAINER_DATASET_ROOT": str(tmp_path / "datasets"),
        "MPLBACKEND": "Agg",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    result = subprocess.run(
        [sys.executable, "-m", "fnet.compat", str(script), "--out", str(tmp_path / "result"), *args],
        cwd=script.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


@pytest.mark.parametrize("model", ["MLP", "MLPSideEffect"])
def test_the_trainer_example_trains_a_static_chain(tmp_path, model):
    _run(tmp_path, "train_mnist.py", "--epoch", "3", "--unit", "100", "--model", model)
    log = json.loads((tmp_path / "result" / "log").read_text())
    assert log[-1]["validation/main/accuracy"] > 0.8, log[-1]
    assert log[-1]["main/loss"] < log[0]["main/loss"]


def test_the_custom_loop_example_trains_a_static_chain(tmp_path):
    out = _run(tmp_path, "train_mnist_custom_loop.py", "--epoch", "3", "--unit", "100")
    accuracies = [float(a) for a in re.findall(r"test mean\s+loss: \S+, accuracy: (\S+)", out)]
    assert len(accuracies) == 3 and accuracies[-1] > 0.8, out[-2000:]
