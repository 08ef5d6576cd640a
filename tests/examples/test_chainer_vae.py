"""Chainer's own VAE example (``examples/vae/train_vae.py`` of Chainer 7.8.1), unchanged, through
``python -m fnet.compat`` on a synthetic MNIST cache: it trains, and its loss falls.

fnet does not ship Chainer's code: the test runs where ``FNET_CHAINER_CHECKOUT`` names a Chainer
7.8.1 checkout (its ``examples`` folder is what is used), and is skipped elsewhere.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECKOUT = os.environ.get("FNET_CHAINER_CHECKOUT")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHECKOUT, reason="needs FNET_CHAINER_CHECKOUT: a Chainer 7.8.1 checkout"),
]


def test_chainers_vae_example_trains_on_fnet(tmp_path):
    pytest.importorskip("matplotlib", reason="Chainer's VAE example draws its images with matplotlib")
    script = pathlib.Path(CHECKOUT) / "examples" / "vae" / "train_vae.py"
    assert script.is_file(), f"{script} is not there: FNET_CHAINER_CHECKOUT must be a Chainer checkout"
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import synthetic_mnist
    finally:
        sys.path.pop(0)
    synthetic_mnist.write_cache(str(tmp_path / "datasets"), n_train=300, n_test=100)
    env = {
        **os.environ,
        "CHAINER_DATASET_ROOT": str(tmp_path / "datasets"),
        "MPLBACKEND": "Agg",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    args = ["--epoch", "4", "--dim-h", "64", "--batch-size", "50", "--out", str(tmp_path / "result")]
    result = subprocess.run(
        [sys.executable, "-m", "fnet.compat", str(script), *args],
        cwd=script.parent,  # the example imports its net.py from beside it
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    log = json.loads((tmp_path / "result" / "log").read_text())
    losses = [entry["main/loss"] for entry in log]
    assert len(losses) == 4 and losses[-1] < 0.8 * losses[0], losses
    assert log[-1]["validation/main/loss"] < log[0]["validation/main/loss"]
    for image in ("train.png", "train_reconstructed.png", "test.png", "sampled.png"):
        assert (tmp_path / "result" / image).is_file(), image
