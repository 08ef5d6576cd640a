"""Chainer's own VAE example (``examples/vae/train_vae.py`` of Chainer 7.8.1), unchanged, through
``python -m fnet.compat`` on a synthetic MNIST cache: it trains, and its loss falls.

fnet does not ship Chainer's code: the test runs where ``FNET_CHAINER_CHECKOUT`` names a Chainer
7.8.1 checkout (its ``examples`` folder is what is used), and is skipped elsewhere.
"""

from __future__ import annotations

import json

import pytest

from ._chainer_examples import needs_checkout, run_chainer_example, synthetic_mnist

pytestmark = [pytest.mark.slow, needs_checkout]


def test_chainers_vae_example_trains_on_fnet(tmp_path):
    pytest.importorskip("matplotlib", reason="Chainer's VAE example draws its images with matplotlib")
    env = synthetic_mnist(tmp_path / "datasets", n_train=300, n_test=100)
    args = ["--epoch", "4", "--dim-h", "64", "--batch-size", "50", "--out", str(tmp_path / "result")]
    result = run_chainer_example("vae/train_vae.py", *args, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    log = json.loads((tmp_path / "result" / "log").read_text())
    losses = [entry["main/loss"] for entry in log]
    assert len(losses) == 4 and losses[-1] < 0.8 * losses[0], losses
    assert log[-1]["validation/main/loss"] < log[0]["validation/main/loss"]
    for image in ("train.png", "train_reconstructed.png", "test.png", "sampled.png"):
        assert (tmp_path / "result" / image).is_file(), image
