"""ChainerMN's MNIST example (``examples/chainermn/mnist/train_mnist.py`` of Chainer 7.8.1),
unchanged, under ``mpiexec -n 2 python -m fnet.compat`` on a synthetic MNIST cache: it reaches
the accuracy of one process given the same total batch (2 x 100 against 1 x 200).

fnet does not ship Chainer's code: the test runs where ``FNET_CHAINER_CHECKOUT`` names a Chainer
7.8.1 checkout, and is skipped elsewhere.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys

import pytest

from tests import _mpi

CHECKOUT = os.environ.get("FNET_CHAINER_CHECKOUT")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.mpi,
    pytest.mark.skipif(not CHECKOUT, reason="needs FNET_CHAINER_CHECKOUT: a Chainer 7.8.1 checkout"),
]


def _final_validation_accuracy(tmp_path, cache, n: int, batch: int) -> float:
    script = pathlib.Path(CHECKOUT) / "examples" / "chainermn" / "mnist" / "train_mnist.py"
    assert script.is_file(), f"{script} is not there: FNET_CHAINER_CHECKOUT must be a Chainer checkout"
    out = tmp_path / f"result{n}"
    args = ["-m", "fnet.compat", str(script), "--epoch", "10", "--unit", "100", "-b", str(batch)]
    env = _mpi.environment(CHAINER_DATASET_ROOT=str(cache))
    done = _mpi.launch(n, [*args, "--communicator", "naive", "--out", str(out)], timeout=600, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    log = json.loads((out / "log").read_text())
    assert len(log) == 10
    return log[-1]["validation/main/accuracy"]


def test_chainermn_mnist_example_on_two_ranks_matches_one(tmp_path):
    sys.path.insert(0, os.path.join(_mpi.ROOT, "tools"))
    try:
        import synthetic_mnist
    finally:
        sys.path.pop(0)
    synthetic_mnist.write_cache(str(tmp_path / "datasets"), n_train=600, n_test=200)
    two = _final_validation_accuracy(tmp_path, tmp_path / "datasets", 2, 100)
    one = _final_validation_accuracy(tmp_path, tmp_path / "datasets", 1, 200)
    assert two > 0.9 and one > 0.9, (two, one)
    assert abs(two - one) < 0.05, (two, one)  # the same model, data and total batch; other shuffles
