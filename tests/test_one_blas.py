"""One BLAS per process: fnet's training steps run on NumPy's BLAS only.

A second BLAS library (SciPy's own OpenBLAS, for one) brings its own thread pool, whose
spinning threads fight NumPy's for the cores as soon as BLAS may use more than one thread.
The check runs in a fresh interpreter (this one has imported whatever other tests needed), runs
one step of every benchmark case, pure and through ``fnet.compat``, and one pure and one
in-place step of every optimizer, then lists the BLAS libraries loaded, with threadpoolctl.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("threadpoolctl", reason="threadpoolctl lists the BLAS libraries a process has loaded")

BENCHMARKS = pathlib.Path(__file__).resolve().parent.parent / "benchmarks"

_STEPS = """
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy, threadpoolctl
import shared
from fnet import optim, tree

import cases_fnet
import cases_compat  # Chainer's case code on fnet.compat

for module in (cases_fnet, cases_compat):
    for case, build in module.CASES.items():
        build(shared.make_data(case))()

rng = numpy.random.RandomState(0)
params = {"W": rng.randn(64, 64).astype(numpy.float32), "b": rng.randn(64).astype(numpy.float32)}
grads = tree.map(lambda p: rng.randn(*p.shape).astype(p.dtype), params)
for factory in optim.OPTIMIZERS.values():
    tx = factory()
    optim.step(tx, grads, tx.init(params), params)
    owned = tree.map(numpy.copy, params)
    optim.step_in_place(tx, grads, tx.init(owned), owned)

print(json.dumps(threadpoolctl.threadpool_info()))
"""


@pytest.mark.skipif(not (BENCHMARKS / "cases_fnet.py").exists(), reason="needs the repository's benchmarks/")
def test_a_training_step_of_every_benchmark_case_loads_one_blas():
    done = subprocess.run(
        [sys.executable, "-c", _STEPS, str(BENCHMARKS)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    pools = json.loads(done.stdout.splitlines()[-1])
    blas = [p["filepath"] for p in pools if p["user_api"] == "blas"]
    assert len(blas) == 1, f"expected NumPy's BLAS only, got {blas}"
