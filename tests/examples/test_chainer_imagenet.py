"""Chainer's own ImageNet example (``examples/imagenet`` of Chainer 7.8.1: ``compute_mean.py`` and
``train_imagenet.py``), unchanged, through ``python -m fnet.compat`` on a tiny synthetic image list
(``tools/synthetic_imagenet.py``): one training iteration and one validation of several of its
architectures, with its Evaluator, DumpGraph, snapshots, LogReport and PrintReport.

fnet does not ship Chainer's code: the tests that run the example need ``FNET_CHAINER_CHECKOUT``
(a Chainer 7.8.1 checkout, whose ``examples`` folder is used) and are skipped elsewhere.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
import subprocess
import sys

import numpy
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECKOUT = os.environ.get("FNET_CHAINER_CHECKOUT")

needs_checkout = pytest.mark.skipif(
    not CHECKOUT, reason="needs FNET_CHAINER_CHECKOUT: a Chainer 7.8.1 checkout"
)


@pytest.fixture
def synthetic(tmp_path):
    """Two training and two validation 256x256 JPEG images, their lists and their mean file."""
    pytest.importorskip("PIL", reason="the example reads its images with Pillow")
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import synthetic_imagenet
    finally:
        sys.path.pop(0)
    return synthetic_imagenet.write_dataset(str(tmp_path / "data"), n_train=2, n_val=2)


def test_the_synthetic_list_is_what_the_example_reads(synthetic):
    from fnet.compat.datasets import LabeledImageDataset

    root = os.path.dirname(synthetic["train"])
    train = LabeledImageDataset(synthetic["train"], root)
    images = [train[i][0] for i in range(len(train))]
    assert len(train) == 2 and all(image.shape == (3, 256, 256) for image in images)
    assert all(0 <= train[i][1] < 10 for i in range(len(train)))
    mean = numpy.load(synthetic["mean"])
    assert mean.dtype == numpy.float32 and mean.shape == (3, 256, 256)
    # the mean of two images of integers: exact in float32 and float64 alike
    numpy.testing.assert_array_equal(mean, (images[0] + images[1]) / 2)
    assert sorted(os.listdir(root)) == ["images", "mean.npy", "train.txt", "val.txt"]  # no temporaries


def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    folder = pathlib.Path(CHECKOUT) / "examples" / "imagenet"
    assert (folder / script).is_file(), (
        f"{folder / script} is not there: FNET_CHAINER_CHECKOUT must be a Chainer checkout"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    return subprocess.run(
        [sys.executable, "-m", "fnet.compat", script, *args],
        cwd=folder,  # the example imports its models and dataset_util from beside it
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@needs_checkout
def test_chainers_compute_mean_gives_the_mean_file(synthetic, tmp_path):
    root = os.path.dirname(synthetic["train"])
    result = _run(
        "compute_mean.py", synthetic["train"], "--root", root, "--output", str(tmp_path / "mean.npy")
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    mean = numpy.load(tmp_path / "mean.npy")
    assert mean.shape == (3, 256, 256)
    numpy.testing.assert_array_equal(mean, numpy.load(synthetic["mean"]))  # sums of integers: exact


@pytest.mark.slow
@needs_checkout
@pytest.mark.parametrize("arch", ["nin", "resnet50"])
def test_chainers_imagenet_example_trains_on_fnet(synthetic, tmp_path, arch):
    root = os.path.dirname(synthetic["train"])
    out = tmp_path / "result"
    args = ["--root", root, "--mean", synthetic["mean"], "--arch", arch, "--out", str(out)]
    args += ["--batchsize", "2", "--val_batchsize", "2", "--epoch", "1", "--test"]
    result = _run("train_imagenet.py", synthetic["train"], synthetic["val"], *args)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    (entry,) = json.loads((out / "log").read_text())  # two images, batch 2: one iteration
    assert entry["iteration"] == 1 and entry["lr"] == 0.01
    for key in ("main/loss", "validation/main/loss", "main/accuracy", "validation/main/accuracy"):
        assert math.isfinite(entry[key]), (key, entry)
    assert entry["main/loss"] > 0
    for name in ("cg.dot", "snapshot_iter_1", "model_iter_1"):
        assert (out / name).is_file(), name
    assert "main/loss" in result.stdout and "validation/main/accuracy" in result.stdout
