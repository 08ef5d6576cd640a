"""The data-parallel example (examples/distributed_mlp) on 2 ranks: it learns the digits and
ends with the same parameters on both ranks."""

import os
import re

import pytest

from tests import _mpi

SCRIPT = os.path.join(_mpi.ROOT, "examples", "distributed_mlp", "train.py")


@pytest.mark.mpi
def test_distributed_mlp_learns_with_identical_params_on_two_ranks(tmp_path):
    pytest.importorskip("sklearn", reason="the example's digits ship with scikit-learn")
    done = _mpi.launch(2, [SCRIPT, "--epochs", "6", "--check"], timeout=120, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr[-4000:]
    assert re.search(r"identical parameters on 2 ranks: hash [0-9a-f]{32}", done.stdout), done.stdout
    accuracy = float(re.search(r"^test accuracy (\S+)$", done.stdout, re.M).group(1))
    assert accuracy > 0.9, done.stdout


@pytest.mark.mpi
def test_distributed_mlp_smoke_run():
    pytest.importorskip("sklearn", reason="the example's digits ship with scikit-learn")
    done = _mpi.launch(2, [SCRIPT, "--smoke"], timeout=120)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "epoch   2" in done.stdout and "identical parameters on 2 ranks" in done.stdout
