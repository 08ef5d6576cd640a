"""A short training run on the device under test, with a snapshot and a resume from it: the
parameters live on the device throughout and the run ends where one on the CPU ends."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import backend, tree
from fnet.data.iterators import SerialIterator
from fnet.training import Trainer, extensions
from fnet.training.updaters import FunctionalUpdater

from .._gpu import assert_close, host

DATA = [(numpy.float64(x), numpy.float64(2 * x)) for x in range(1, 9)]


def _step(params, state, opt_state, batch):
    x, y = batch
    loss, grads = fnet.value_and_grad(lambda p: fnet.ops.mean((x * p["w"] - y) ** 2))(params)
    return tree.map(lambda p, g: p - 0.01 * g, params, grads), state, opt_state, {"loss": loss}


def _trainer(out, epochs, device):
    params = {"w": numpy.zeros((), numpy.float64)}
    updater = FunctionalUpdater(SerialIterator(DATA, 4, shuffle=False), _step, params, {}, device=device)
    trainer = Trainer(updater, (epochs, "epoch"), out=str(out))
    trainer.extend(extensions.snapshot(filename="snapshot_{.updater.epoch}", autoload=True))
    return trainer


@pytest.mark.gpu
def test_trainer_snapshot_and_resume_on_device(tmp_path, gpu_device):
    cpu = _trainer(tmp_path / "cpu", 3, backend.CPU)
    cpu.run()
    first = _trainer(tmp_path / "dev", 2, gpu_device)
    first.run()
    assert backend.get_device_from_array(first.updater.params["w"]) == gpu_device
    resumed = _trainer(tmp_path / "dev", 3, gpu_device)
    resumed.run()  # loads snapshot_2, then trains the third epoch
    assert resumed.updater.iteration == 6
    assert_close(host(resumed.updater.params, gpu_device), cpu.updater.params, "params after resume")
