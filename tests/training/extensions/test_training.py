"""The extensions in real training loops: a Chainer-style Trainer (links, compat optimizer,
StandardUpdater) and a pure one (FunctionalUpdater), each resumed from its snapshot with
``autoload`` and compared with the uninterrupted run."""

from __future__ import annotations

import io
import json
import os

import numpy
import pytest

import fnet
import fnet.compat as chainer
import fnet.compat.iterators  # noqa: F401 - chainer.iterators
import fnet.compat.training  # noqa: F401 - chainer.training
from fnet import optim
from fnet.compat import links as L
from fnet.compat import optimizers
from fnet.data.datasets import TupleDataset
from fnet.data.iterators import SerialIterator
from fnet.training import FunctionalUpdater, Trainer
from fnet.training import extensions as E

X = numpy.linspace(-1, 1, 48, dtype=numpy.float32).reshape(16, 3)
T = (X @ numpy.array([1.0, -2.0, 0.5], numpy.float32) > 0).astype(numpy.int32)


def _chainer_trainer(out, epochs):
    numpy.random.seed(0)
    model = L.Classifier(L.Linear(3, 2, initialW=numpy.full((2, 3), 0.1, numpy.float32)))
    optimizer = optimizers.MomentumSGD(lr=0.5).setup(model)
    train = chainer.iterators.SerialIterator(TupleDataset(X, T), 4, shuffle=False)
    test = chainer.iterators.SerialIterator(TupleDataset(X, T), 8, repeat=False, shuffle=False)
    trainer = chainer.training.Trainer(
        chainer.training.updaters.StandardUpdater(train, optimizer), (epochs, "epoch"), out=str(out)
    )
    trainer.extend(E.Evaluator(test, model))
    trainer.extend(E.LogReport())
    trainer.extend(E.ExponentialShift("lr", 0.5), trigger=(1, "epoch"))
    trainer.extend(E.observe_lr())
    trainer.extend(E.MicroAverage("main/accuracy", "main/accuracy", "main/one"))
    printed = io.StringIO()
    trainer.extend(E.PrintReport(["epoch", "main/loss", "validation/main/accuracy", "lr"], out=printed))
    trainer.extend(E.ProgressBar(update_interval=2, out=io.StringIO()))
    trainer.extend(E.snapshot(autoload=True, n_retains=1))
    return trainer, model, printed


def _without_times(log):
    return [{k: v for k, v in entry.items() if k != "elapsed_time"} for entry in log]


def test_chainer_training_resumed_by_autoload_equals_the_straight_run(tmp_path):
    straight, model, printed = _chainer_trainer(tmp_path / "straight", 4)
    straight.run()
    lines = printed.getvalue().replace("\033[J", "").splitlines()
    assert lines[0].split() == ["epoch", "main/loss", "validation/main/accuracy", "lr"]
    assert [line.split()[0] for line in lines[1:]] == ["1", "2", "3", "4"]
    assert [line.split()[3] for line in lines[1:]] == ["0.5", "0.25", "0.125", "0.0625"]

    first, _, _ = _chainer_trainer(tmp_path / "resumed", 2)
    first.run()
    assert sorted(os.listdir(tmp_path / "resumed")) == ["log", "snapshot_iter_8"]
    second, resumed_model, _ = _chainer_trainer(tmp_path / "resumed", 4)
    second.run()
    assert sorted(os.listdir(tmp_path / "resumed")) == ["log", "snapshot_iter_16"]
    for a, b in zip(model.params(), resumed_model.params()):
        numpy.testing.assert_array_equal(a.array, b.array)
    assert second.updater.get_optimizer("main").lr == straight.updater.get_optimizer("main").lr
    with open(tmp_path / "straight" / "log") as f, open(tmp_path / "resumed" / "log") as g:
        assert _without_times(json.load(f)) == _without_times(json.load(g))


def _pure_trainer(out, epochs):
    def loss_fn(params, state, batch):
        x, t = batch
        y = fnet.ops.matmul(x, params["W"].T) + params["b"]
        loss = fnet.functions.softmax_cross_entropy(y, t)
        return loss, (state, {"accuracy": fnet.functions.accuracy(y, t)})

    tx = optim.Adam(alpha=0.05)
    params = {"W": numpy.zeros((2, 3), numpy.float32), "b": numpy.zeros(2, numpy.float32)}
    numpy.random.seed(1)
    updater = FunctionalUpdater(
        SerialIterator(TupleDataset(X, T), 4, shuffle=False),
        optim.make_train_step(loss_fn, tx),
        params,
        tx.init(params),
    )

    def evaluate(x, t):
        y = fnet.ops.matmul(x, updater.params["W"].T) + updater.params["b"]
        return {"accuracy": fnet.functions.accuracy(y, t)}

    trainer = Trainer(updater, (epochs, "epoch"), out=str(out))
    trainer.extend(E.Evaluator(SerialIterator(TupleDataset(X, T), 16, repeat=False, shuffle=False), evaluate))
    trainer.extend(E.LogReport())
    trainer.extend(E.FailOnNonNumber())
    trainer.extend(E.snapshot(autoload=True))
    return trainer, updater


def test_pure_training_with_evaluation_log_and_resume(tmp_path):
    straight, updater = _pure_trainer(tmp_path / "straight", 3)
    straight.run()
    log = straight.get_extension("LogReport").log
    assert [sorted(entry) for entry in log] == [
        ["elapsed_time", "epoch", "iteration", "main/accuracy", "main/loss", "validation/main/accuracy"]
    ] * 3
    assert log[-1]["validation/main/accuracy"] > 0.8

    _pure_trainer(tmp_path / "resumed", 1)[0].run()
    resumed, resumed_updater = _pure_trainer(tmp_path / "resumed", 3)
    resumed.run()
    for key in ("W", "b"):
        numpy.testing.assert_array_equal(updater.params[key], resumed_updater.params[key])
    assert _without_times(resumed.get_extension("LogReport").log) == _without_times(log)


def _dropout_trainer(out, epochs, masks):
    """A pure training with dropout keyed by FunctionalUpdater(key=...), snapshotted every epoch."""

    def loss_fn(params, state, batch, *, key, iteration):
        x, t = batch
        h, mask = fnet.functions.dropout(x, 0.5, key=key, return_mask=True)
        masks[iteration] = mask.copy()
        y = fnet.ops.matmul(h, params["W"].T) + params["b"]
        return fnet.functions.softmax_cross_entropy(y, t), (state, {})

    tx = optim.Adam(alpha=0.05)
    params = {"W": numpy.zeros((2, 3), numpy.float32), "b": numpy.zeros(2, numpy.float32)}
    updater = FunctionalUpdater(
        SerialIterator(TupleDataset(X, T), 4, shuffle=False),
        optim.make_train_step(loss_fn, tx),
        params,
        tx.init(params),
        key=fnet.random.key(7),
    )
    trainer = Trainer(updater, (epochs, "epoch"), out=str(out))
    trainer.extend(E.snapshot(autoload=True), trigger=(1, "epoch"))
    return trainer, updater


def test_dropout_masks_are_fresh_each_iteration_and_the_same_after_a_resume(tmp_path):
    straight_masks = {}
    straight, updater = _dropout_trainer(tmp_path / "straight", 3, straight_masks)
    straight.run()
    assert sorted(straight_masks) == list(range(12))
    distinct = {straight_masks[i].tobytes() for i in range(12)}
    assert len(distinct) == 12  # no mask is reused

    _dropout_trainer(tmp_path / "resumed", 1, {})[0].run()
    resumed_masks = {}
    resumed, resumed_updater = _dropout_trainer(tmp_path / "resumed", 3, resumed_masks)
    resumed.run()  # autoload: from the snapshot of epoch 1 (iteration 4)
    assert sorted(resumed_masks) == list(range(4, 12))
    for i in range(4, 12):
        numpy.testing.assert_array_equal(resumed_masks[i], straight_masks[i])
    for key in ("W", "b"):
        numpy.testing.assert_array_equal(updater.params[key], resumed_updater.params[key])
    with numpy.load(tmp_path / "resumed" / "snapshot_iter_4") as snapshot:
        assert snapshot["updater/key"].tolist() == fnet.random.key(7).tolist()


def test_snapshot_on_error_saves_the_state_when_training_fails(tmp_path):
    trainer, _ = _pure_trainer(tmp_path, 3)

    def fail(trainer):
        if trainer.updater.iteration == 5:
            raise RuntimeError("boom")

    trainer.extend(fail)
    trainer.extend(E.snapshot(filename="crash_{.updater.iteration}", snapshot_on_error=True))
    with pytest.raises(RuntimeError, match="boom"):
        trainer.run(show_loop_exception_msg=False)
    assert "crash_5" in os.listdir(tmp_path)
