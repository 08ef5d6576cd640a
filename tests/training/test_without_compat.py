"""Pure training never needs the Chainer layer: a whole loop with reports, plots and snapshots
(and a resume from them) runs without ``fnet.compat`` ever being imported."""

from __future__ import annotations

import subprocess
import sys

PURE_LOOP = """
import os, sys
import numpy
import fnet
from fnet import tree
from fnet.data.iterators import SerialIterator
from fnet.training import Trainer, extensions
from fnet.training.updaters import FunctionalUpdater

out = sys.argv[1]
data = [(numpy.float32(x), numpy.float32(2 * x)) for x in range(1, 9)]

def step(params, state, opt_state, batch):
    x, y = batch
    loss, grads = fnet.value_and_grad(lambda p: fnet.ops.mean((x * p["w"] - y) ** 2))(params)
    return tree.map(lambda p, g: p - 0.01 * g, params, grads), state, opt_state, {"loss": loss}

def metrics(x, y):
    return {"loss": float(numpy.mean((x - y) ** 2))}

def make(epochs):
    params = {"w": numpy.zeros((), numpy.float32)}
    updater = FunctionalUpdater(SerialIterator(data, 4, shuffle=False), step, params, {})
    trainer = Trainer(updater, (epochs, "epoch"), out=out)
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PlotReport(["main/loss"], "epoch", file_name="loss.png"))
    trainer.extend(extensions.Evaluator(SerialIterator(data, 4, repeat=False, shuffle=False), metrics))
    trainer.extend(extensions.snapshot(filename="snapshot_{.updater.epoch}", autoload=True))
    return trainer

first = make(2)
first.run()
resumed = make(3)
resumed.run()  # loads snapshot_2, then trains the third epoch
assert resumed.updater.iteration == 6, resumed.updater.iteration
assert [entry["epoch"] for entry in resumed.get_extension("LogReport").log] == [1, 2, 3]
assert {"log", "loss.png", "snapshot_2", "snapshot_3"} <= set(os.listdir(out)), os.listdir(out)
assert float(resumed.updater.params["w"]) > float(first.updater.params["w"]) > 0
print("compat imported:", "fnet.compat" in sys.modules)
"""


def test_pure_training_with_reports_plots_and_snapshots_never_imports_compat(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", PURE_LOOP, str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "compat imported: False"
