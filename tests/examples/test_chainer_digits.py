"""The Chainer 7 program (``import chainer``, ``chainer.functions``, ``chainer.links``,
``chainer.training.extensions``), unchanged, trains on fnet through ``python -m fnet.compat``:
Evaluator, LogReport, PrintReport and snapshots work, and a snapshot resumes the training."""

import json
import os
import re
import subprocess
import sys

import pytest

from .conftest import example_script

SCRIPT = example_script("chainer_digits")


def test_the_program_is_written_for_chainer_only():
    source = SCRIPT.read_text()
    assert not re.search(r"^\s*(import|from)\s+fnet", source, re.M)
    for line in (
        "import chainer",
        "import chainer.functions as F",
        "import chainer.links as L",
        "from chainer import training",
        "from chainer.training import extensions",
    ):
        assert re.search(rf"^{re.escape(line)}$", source, re.M), line


@pytest.mark.skipif(
    subprocess.run([sys.executable, "-c", "import chainer"], capture_output=True).returncode == 0,
    reason="a real Chainer is installed here",
)
def test_without_the_launcher_chainer_is_not_found(tmp_path):
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--smoke"], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 1 and "No module named 'chainer'" in result.stderr


def test_runs_and_resumes_through_fnet_compat(run_example, tmp_path):
    out = run_example("chainer_digits", "--smoke", compat=True)
    header = "epoch       main/loss   validation/main/loss  main/accuracy  validation/main/accuracy"
    assert header in out  # PrintReport's table
    with open(tmp_path / "result" / "log") as f:
        log = json.load(f)  # LogReport's file
    assert [entry["epoch"] for entry in log] == [1, 2]
    assert log[-1]["main/loss"] < log[0]["main/loss"]
    assert log[-1]["validation/main/accuracy"] > 0.85  # Evaluator on held-out digits; chance is 0.1
    final = float(re.search(r"final test accuracy: ([\d.]+)", out).group(1))
    assert final > 0.85
    assert sorted(os.listdir(tmp_path / "result")) == [
        "log",
        "mlp.npz",
        "snapshot_epoch_1",
        "snapshot_epoch_2",
    ]

    run_example("chainer_digits", "--epoch", "3", "--resume", "result/snapshot_epoch_2", compat=True)
    with open(tmp_path / "result" / "log") as f:
        resumed = json.load(f)
    assert [entry["epoch"] for entry in resumed] == [1, 2, 3]
    assert resumed[:2] == log  # the log came back from the snapshot
    assert resumed[2]["iteration"] == log[1]["iteration"] + log[0]["iteration"]
    assert os.path.exists(tmp_path / "result" / "snapshot_epoch_3")


CHAINER_PYTHON = os.environ.get("FNET_CHAINER_PYTHON")  # a Python with Chainer 7 and scikit-learn


@pytest.mark.skipif(not CHAINER_PYTHON, reason="set FNET_CHAINER_PYTHON to a Python with Chainer 7.8.1")
def test_runs_under_chainer_itself(tmp_path):
    result = subprocess.run(
        [CHAINER_PYTHON, str(SCRIPT), "--smoke"], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    assert float(re.search(r"final test accuracy: ([\d.]+)", result.stdout).group(1)) > 0.85
