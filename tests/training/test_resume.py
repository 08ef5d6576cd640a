"""Resuming a training killed with SIGKILL at any point: the final parameters are those of an
uninterrupted run, bit for bit, with a shuffling iterator and dropout drawing from NumPy's
global generator (whose state the snapshot holds, through the iterator's order sampler)."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

TRAINING = """
import os, sys
import numpy
import fnet.compat as chainer
import fnet.compat.training
from fnet.compat import functions as F, links as L, optimizers, serializers
from fnet.compat.training import extensions

out = sys.argv[1]
numpy.random.seed(0)
rng = numpy.random.RandomState(1)
x = rng.randn(40, 5).astype(numpy.float32)
t = (rng.rand(40) * 3).astype(numpy.int32)


class Net(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(5, 8)
            self.l2 = L.Linear(8, 3)

    def forward(self, x):
        return self.l2(F.dropout(F.relu(self.l1(x)), 0.3))


model = L.Classifier(Net())
optimizer = optimizers.Adam()
optimizer.setup(model)
iterator = chainer.iterators.SerialIterator(list(zip(x, t)), 6)  # shuffles with NumPy's generator
updater = chainer.training.updaters.StandardUpdater(iterator, optimizer)
trainer = chainer.training.Trainer(updater, (30, "iteration"), out=out)
trainer.extend(extensions.snapshot(n_retains=2, autoload=True), trigger=(1, "iteration"))


@chainer.training.make_extension(trigger=(1, "iteration"), priority=-1000)
def progress(trainer):  # after the snapshot (priority -100)
    print(trainer.updater.iteration, flush=True)


trainer.extend(progress)
trainer.run()
serializers.save_npz(os.path.join(out, "model.npz"), model)
"""

# (iteration after which the kill comes, seconds waited first): some kills land between two
# iterations, some in an update, some in the middle of writing a snapshot
KILLS = [(2, 0.0), (5, 0.003), (8, 0.0), (11, 0.01), (15, 0.001), (19, 0.0), (23, 0.006), (28, 0.002)]


def _train(script, out, kill_after=None, delay=0.0) -> None:
    """Run the training in ``out`` to its end, or kill it with SIGKILL after ``kill_after``."""
    child = subprocess.Popen(
        [sys.executable, str(script), str(out)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        for line in child.stdout:
            if kill_after is not None and int(line) == kill_after:
                time.sleep(delay)
                child.send_signal(signal.SIGKILL)
                assert child.wait(timeout=60) == -signal.SIGKILL
                return
        assert child.wait(timeout=120) == 0
        assert kill_after is None, f"the training ended before iteration {kill_after}"
    finally:
        child.kill()
        child.wait()
        child.stdout.close()


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="kills with SIGKILL")
def test_a_training_killed_at_any_point_resumes_to_the_same_parameters_bit_for_bit(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(TRAINING)
    _train(script, tmp_path / "straight")
    with numpy.load(tmp_path / "straight" / "model.npz") as f:
        straight = dict(f)
    assert sorted(straight) == ["predictor/l1/W", "predictor/l1/b", "predictor/l2/W", "predictor/l2/b"]
    exact = []
    for i, (kill_after, delay) in enumerate(KILLS):
        out = tmp_path / f"killed_{i}"
        _train(script, out, kill_after, delay)
        _train(script, out)  # resumes from the newest snapshot
        with numpy.load(out / "model.npz") as f:
            # the same arithmetic on the same machine: bit for bit
            exact.append(all(numpy.array_equal(f[key], value) for key, value in straight.items()))
        left = {name: sorted(os.listdir(out / name)) for name in os.listdir(out) if name.startswith(".")}
        assert left == {}, f"the killed write left {left} (killed after {kill_after})"
    assert all(exact), (
        f"{sum(exact)} of {len(KILLS)} resumed runs end with the uninterrupted run's parameters"
    )
