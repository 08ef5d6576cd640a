"""Chainer's two static-graph MNIST examples (``examples/static_graph_optimizations/mnist`` of
Chainer 7.8.1), unchanged, through ``python -m fnet.compat`` on a synthetic MNIST cache: they
train (accuracy rises well above chance) with ``@static_graph`` replaying the model. They run
where ``FNET_CHAINER_CHECKOUT`` names a Chainer 7.8.1 checkout.
"""

from __future__ import annotations

import json
import re

import pytest

from ._chainer_examples import needs_checkout, run_chainer_example, synthetic_mnist

pytestmark = [pytest.mark.slow, needs_checkout]


def _run(tmp_path, name, *args):
    pytest.importorskip("matplotlib", reason="Chainer's MNIST example draws its plots with matplotlib")
    env = synthetic_mnist(tmp_path / "datasets", n_train=1000, n_test=200)
    script = f"static_graph_optimizations/mnist/{name}"
    result = run_chainer_example(script, "--out", str(tmp_path / "result"), *args, env=env)
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
