"""Golden data for ``chainer.training`` (Trainer, updaters, triggers), made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``training.json`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_training.py

``trigger_runs(chainer)`` calls every kind of trigger along a fixed schedule (10 examples, batches
of 3) with fixed observations, and records when each fires and its serialized state after 17
iterations. ``training_run(chainer, kind)`` trains a small classifier with fixed weights through
``Trainer`` and a ``StandardUpdater`` or a CPU ``ParallelUpdater``, recording each iteration's
observation, the epoch bookkeeping, the order of the extension calls, the final parameters and
the keys of a trainer snapshot. The tests call both with ``fnet.compat`` and compare.
"""

from __future__ import annotations

import importlib
import json
import math
import pathlib
import tempfile
import warnings

import numpy

OUT = pathlib.Path(__file__).with_name("training.json")

N_ITERATIONS = 40
DATASET_SIZE, BATCH_SIZE = 10, 3
SNAPSHOT_AT = 17


class FakeUpdater:
    """What triggers read: the position of a SerialIterator-like schedule."""

    def __init__(self):
        self.iteration = 0
        self.epoch = 0
        self.epoch_detail = 0.0
        self.previous_epoch_detail = 0.0
        self.is_new_epoch = False

    def step(self):
        self.iteration += 1
        self.previous_epoch_detail = self.epoch_detail
        self.epoch_detail = self.iteration * BATCH_SIZE / DATASET_SIZE
        epoch = int(self.epoch_detail)
        self.is_new_epoch = epoch > self.epoch
        self.epoch = epoch


class FakeTrainer:
    def __init__(self):
        self.updater = FakeUpdater()
        self.observation = {}
        self.elapsed_time = 0.0

    def step(self):
        self.updater.step()
        i = self.updater.iteration
        self.elapsed_time = 0.7 * i
        self.observation = {"main/loss": 1.0 / (1 + 0.2 * i) + 0.3 * math.sin(i)}
        if i % 5:
            self.observation["main/accuracy"] = 0.5 + 0.4 * math.sin(0.7 * i)


def _triggers(chainer) -> dict:
    triggers = importlib.import_module(chainer.__name__ + ".training.triggers")
    return {
        "interval_iteration_3": lambda: triggers.IntervalTrigger(3, "iteration"),
        "interval_iteration_1": lambda: triggers.IntervalTrigger(1, "iteration"),
        "interval_epoch_1": lambda: triggers.IntervalTrigger(1, "epoch"),
        "interval_epoch_0.5": lambda: triggers.IntervalTrigger(0.5, "epoch"),
        "interval_epoch_2.5": lambda: triggers.IntervalTrigger(2.5, "epoch"),
        "manual_iteration": lambda: triggers.ManualScheduleTrigger([2, 5, 11], "iteration"),
        "manual_iteration_scalar": lambda: triggers.ManualScheduleTrigger(4, "iteration"),
        "manual_epoch": lambda: triggers.ManualScheduleTrigger([0.5, 2, 3.3, 6], "epoch"),
        "max_accuracy_epoch": lambda: triggers.MaxValueTrigger("main/accuracy"),
        "min_loss_iteration_4": lambda: triggers.MinValueTrigger("main/loss", (4, "iteration")),
        "early_loss": lambda: triggers.EarlyStoppingTrigger(
            check_trigger=(1, "epoch"), monitor="main/loss", patience=2, max_trigger=(100, "epoch")
        ),
        "early_loss_max": lambda: triggers.EarlyStoppingTrigger(
            check_trigger=(1, "epoch"), monitor="main/loss", patience=1, mode="max"
        ),
        "early_accuracy": lambda: triggers.EarlyStoppingTrigger(
            check_trigger=(2, "iteration"), monitor="main/accuracy", patience=3, max_trigger=(30, "iteration")
        ),
        "once": lambda: triggers.OnceTrigger(),
        "once_on_resume": lambda: triggers.OnceTrigger(call_on_resume=True),
        "time_2.5": lambda: triggers.TimeTrigger(2.5),
    }


def _plain(value):
    value = numpy.asarray(value)
    if value.dtype.kind in "US":
        return str(value)
    return value.tolist()


def trigger_runs(chainer) -> dict:
    """For each trigger: what it returns at each of N_ITERATIONS steps, ``finished`` where it
    has one, and its serialized state after SNAPSHOT_AT steps."""
    serializers = importlib.import_module(chainer.__name__ + ".serializers")
    runs = {}
    for name, make in _triggers(chainer).items():
        trainer, trigger = FakeTrainer(), make()
        fired, finished, state = [], [], None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # EarlyStoppingTrigger warns when accuracy is missing
            for _ in range(N_ITERATIONS):
                trainer.step()
                fired.append(bool(trigger(trainer)))
                finished.append(bool(getattr(trigger, "finished", False)))
                if trainer.updater.iteration == SNAPSHOT_AT and hasattr(trigger, "serialize"):
                    serializer = serializers.DictionarySerializer()
                    trigger.serialize(serializer)
                    state = {k: _plain(v) for k, v in sorted(serializer.target.items())}
        runs[name] = {"fired": fired, "finished": finished, "state": state}
    return runs


def make_model(chainer):
    """A Classifier over Linear(4, 3) with fixed weights."""
    L = importlib.import_module(chainer.__name__ + ".links")
    model = L.Classifier(L.Linear(4, 3))
    model.predictor.W.array[...] = numpy.linspace(-1, 1, 12, dtype=numpy.float32).reshape(3, 4)
    model.predictor.b.array[...] = numpy.array([0.1, -0.2, 0.05], numpy.float32)
    return model


def make_dataset():
    rng = numpy.random.RandomState(3)
    x = rng.randn(DATASET_SIZE, 4).astype(numpy.float32)
    t = (numpy.arange(DATASET_SIZE) % 3).astype(numpy.int32)
    return list(zip(x, t))


def training_run(chainer, kind: str) -> dict:
    """Train 3 epochs (``kind``: ``'standard'`` or ``'parallel'`` updater) and record what happened."""
    training = importlib.import_module(chainer.__name__ + ".training")
    iterators = importlib.import_module(chainer.__name__ + ".iterators")
    optimizers = importlib.import_module(chainer.__name__ + ".optimizers")
    serializers = importlib.import_module(chainer.__name__ + ".serializers")
    model = make_model(chainer)
    optimizer = optimizers.MomentumSGD(lr=0.1)
    optimizer.setup(model)
    iterator = iterators.SerialIterator(make_dataset(), 4, shuffle=False)
    if kind == "standard":
        updater = training.updaters.StandardUpdater(iterator, optimizer)
    else:
        updater = training.updaters.ParallelUpdater(
            iterator, optimizer, devices={"main": "@numpy", "second": "@numpy"}
        )
    out = tempfile.mkdtemp()
    trainer = training.Trainer(updater, (3, "epoch"), out=out)
    record = {"observations": [], "epochs": [], "calls": []}

    def observe(trainer):
        obs = trainer.observation
        record["observations"].append(
            {k: float(numpy.asarray(getattr(v, "array", v))) for k, v in sorted(obs.items())}
        )

    def epochs(trainer):
        u = trainer.updater
        record["epochs"].append([u.iteration, u.epoch, u.epoch_detail, u.is_new_epoch, optimizer.epoch])

    def caller(name):
        def call(trainer):
            if trainer.updater.iteration <= 2:
                record["calls"].append(name)

        return call

    trainer.extend(observe, name="observe", trigger=(1, "iteration"), priority=training.PRIORITY_READER)
    trainer.extend(epochs, name="epochs", trigger=(1, "epoch"))
    trainer.extend(caller("reader"), name="reader", priority=training.PRIORITY_READER)
    trainer.extend(caller("writer"), name="writer", priority=training.PRIORITY_WRITER)
    trainer.extend(caller("editor"), name="editor", priority=training.PRIORITY_EDITOR)
    trainer.extend(caller("writer_2"), name="writer", priority=training.PRIORITY_WRITER)
    trainer.run()
    serializer = serializers.DictionarySerializer()
    serializer.save(trainer)
    record["snapshot_keys"] = sorted(serializer.target)
    record["W"] = model.predictor.W.array.tolist()
    record["b"] = model.predictor.b.array.tolist()
    record["iteration"] = updater.iteration
    record["extension_names"] = sorted(trainer._extensions)
    return record


def main() -> None:
    import chainer

    data = {
        "triggers": trigger_runs(chainer),
        "standard": training_run(chainer, "standard"),
        "parallel": training_run(chainer, "parallel"),
    }
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
