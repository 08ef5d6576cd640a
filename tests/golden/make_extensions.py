"""Golden data for the trainer extensions, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``extensions.json`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_extensions.py

Each function below takes the ``chainer`` module (Chainer itself here, ``fnet.compat`` in
``tests/training/extensions/test_golden.py``) and drives extensions with a stand-in trainer
whose observations, iteration counts and elapsed times are fixed, so that both give the same
output: the JSON log file and the table printed by ``PrintReport``, the progress bar (without
its timing line), the values set by every shift extension, what ``MicroAverage`` and
``ParameterStatistics`` report, what ``Evaluator`` reports for a ``Classifier``, and the
entries each extension writes when it is serialized.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import re
import sys
import tempfile

import numpy

OUT = pathlib.Path(__file__).with_name("extensions.json")
ITERS_PER_EPOCH = 5


class Updater:
    """What extensions read from ``trainer.updater``, with ``ITERS_PER_EPOCH`` iterations an epoch."""

    def __init__(self, optimizer=None):
        self.iteration = 0
        self.optimizer = optimizer

    @property
    def epoch(self):
        return self.iteration // ITERS_PER_EPOCH

    @property
    def epoch_detail(self):
        return self.iteration / ITERS_PER_EPOCH

    @property
    def previous_epoch_detail(self):
        return None if self.iteration == 0 else (self.iteration - 1) / ITERS_PER_EPOCH

    @property
    def is_new_epoch(self):
        return self.iteration > 0 and self.iteration % ITERS_PER_EPOCH == 0

    def get_optimizer(self, name):
        return self.optimizer

    def get_all_optimizers(self):
        return {"main": self.optimizer}


class Trainer:
    """A stand-in trainer: fixed elapsed times, extensions found by name."""

    def __init__(self, out, optimizer=None, stop_trigger=None):
        self.updater = Updater(optimizer)
        self.observation = {}
        self.out = out
        self.elapsed_time = 0.0
        self.stop_trigger = stop_trigger
        self.extensions = {}

    @property
    def is_before_training(self):
        return self.updater.iteration == 0

    def get_extension(self, name):
        return self.extensions[name]


def _observation(chainer, i):
    """The values reported at iteration ``i``: floats, float32 scalars, ints, Variables, gaps."""
    obs = {
        "main/loss": numpy.float32(1.0 / i + 0.1 * (i % 3)),
        "main/accuracy": float(i % 4) / 4,
        "count": i,
    }
    if i % 2 == 0:
        obs["validation/main/loss"] = chainer.Variable(numpy.asarray(0.5 + 1.0 / i, numpy.float32))
    if i % 5 == 0:
        obs["validation/main/accuracy"] = numpy.float64(0.123456789 * i)
    return obs


class _Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def log_and_print(chainer) -> dict:
    """The log files and the printed table of LogReport and PrintReport over 12 iterations."""
    extensions = chainer.training.extensions
    with tempfile.TemporaryDirectory() as out:
        trainer = Trainer(out)
        log = extensions.LogReport(trigger=(4, "iteration"))
        per_epoch = extensions.LogReport(
            keys=["main/loss", "validation/main/loss"],
            postprocess=lambda entry: entry.update(extra=len(entry)),
            filename="log_{epoch}_{iteration}",
        )
        trainer.extensions = {"LogReport": log}
        printed = _Terminal()  # fnet erases a progress bar's lines on a terminal only
        entries = ["epoch", "iteration", "main/loss", "validation/main/loss", "validation/main/accuracy"]
        printer = extensions.PrintReport(entries + ["a_rather_long_entry_name", "elapsed_time"], out=printed)
        own = _Terminal()
        own_printer = extensions.PrintReport(
            ["epoch", "main/accuracy"], log_report=extensions.LogReport(), out=own
        )
        for i in range(1, 13):
            trainer.updater.iteration = i
            trainer.elapsed_time = 0.25 * i
            trainer.observation = _observation(chainer, i)
            for ext in (log, per_epoch, printer, own_printer):
                ext(trainer)
        files = {name: open(os.path.join(out, name)).read() for name in sorted(os.listdir(out))}
    return {"files": files, "printed": printed.getvalue(), "own": own.getvalue(), "log": log.log}


def progress_bar(chainer) -> list:
    """The progress bar's drawings at some iterations, without the line with the speed."""
    extensions = chainer.training.extensions
    trigger = chainer.training.triggers.IntervalTrigger(3, "epoch")
    out = _Terminal()  # fnet draws the bars on a terminal only (plain lines elsewhere)
    with contextlib.redirect_stdout(out):  # Chainer 7.8.1 draws on sys.stdout whatever `out` is
        trainer = Trainer(".", stop_trigger=trigger)
        bar = extensions.ProgressBar(update_interval=4, out=sys.stdout)
        for i in range(1, 18):
            trainer.updater.iteration = i
            bar(trainer)
        bar.finalize()
    return [
        re.sub(r"\s*\S+ iters/sec\. Estimated time to finish: [^\n]*\.\n", "<speed>", part)
        for part in out.getvalue().split("\033[J")
    ]


class Optimizer:
    lr = 0.1
    alpha = 0.001


def _run_shift(make, calls=12):
    optimizer = Optimizer()
    trainer = Trainer(".", optimizer)
    shift = make(optimizer)
    shift.initialize(trainer)
    values = [optimizer.lr]
    for i in range(1, calls + 1):
        trainer.updater.iteration = i
        shift(trainer)
        values.append(float(optimizer.lr))
    return values, shift


def shifts(chainer) -> dict:
    """The values each shift extension sets over 12 calls, and the entries it serializes."""
    E = chainer.training.extensions
    cases = {
        "exponential": lambda o: E.ExponentialShift("lr", 0.5),
        "exponential_target": lambda o: E.ExponentialShift("lr", 0.5, init=0.2, target=0.01),
        "exponential_up": lambda o: E.ExponentialShift("lr", 2.0, target=1.0),
        "exponential_negative": lambda o: E.ExponentialShift("lr", 0.5, init=-0.1, target=-0.01),
        "inverse": lambda o: E.InverseShift("lr", 0.5, 0.75),
        "inverse_target": lambda o: E.InverseShift("lr", 1.0, 2.0, init=1.0, target=0.05),
        "inverse_negative_power": lambda o: E.InverseShift("lr", 1.0, -1.0, target=0.5),
        "linear": lambda o: E.LinearShift("lr", (0.1, 0.01), (2, 7)),
        "multistep": lambda o: E.MultistepShift("lr", 0.1, [2, 2, 5, 20], 0.5),
        "multistep_init_none": lambda o: E.MultistepShift("lr", 0.5, [3, 6], None),
        "polynomial": lambda o: E.PolynomialShift("lr", 0.5, 10),
        "polynomial_target": lambda o: E.PolynomialShift("lr", 2.0, 14, init=1.0, target=0.2),
        "step": lambda o: E.StepShift("lr", 0.5, 3),
        "step_target": lambda o: E.StepShift("lr", 0.1, 2, init=1.0, target=0.005),
        "warmup": lambda o: E.WarmupShift("lr", 0.0, 4, 0.2),
        "warmup_start_none": lambda o: E.WarmupShift("lr", None, 5, 1.0),
        "other_optimizer": lambda o: E.ExponentialShift("lr", 0.9, optimizer=o),
    }
    result = {}
    for name, make in cases.items():
        values, shift = _run_shift(make)
        serializer = chainer.serializers.DictionarySerializer()
        shift.serialize(serializer)
        result[name] = {
            "values": values,
            "state": {k: v.tolist() for k, v in sorted(serializer.target.items())},
        }
    return result


def micro_average(chainer) -> list:
    """What MicroAverage reports over 10 iterations (some without the values)."""
    trainer = Trainer(".")
    reporter = chainer.Reporter()
    average = chainer.training.extensions.MicroAverage(
        "main/correct", "main/total", "main/accuracy", trigger=(3, "iteration")
    )
    reported = []
    for i in range(1, 11):
        trainer.updater.iteration = i
        trainer.observation = {}
        if i != 4:
            trainer.observation.update({"main/correct": numpy.int64(i % 3 + 1), "main/total": 4})
        with reporter.scope(trainer.observation):
            average(trainer)
        reported.append(trainer.observation.get("main/accuracy"))
    serializer = chainer.serializers.DictionarySerializer()
    average.serialize(serializer)
    return [reported, sorted(serializer.target)]


def _model(chainer):
    L = chainer.links
    W1 = numpy.linspace(-1, 1, 12, dtype=numpy.float32).reshape(4, 3)
    W2 = numpy.linspace(0.5, -0.5, 8, dtype=numpy.float32).reshape(2, 4)
    model = chainer.Sequential(
        L.Linear(3, 4, initialW=W1), chainer.functions.relu, L.Linear(4, 2, initialW=W2)
    )
    return model


def parameter_statistics(chainer) -> dict:
    """What ParameterStatistics reports for a two-layer model (params and grads), means of 2 calls."""
    model = _model(chainer)
    for param in model.params():
        param.grad = numpy.cos(numpy.arange(param.size, dtype=numpy.float32)).reshape(param.shape)
        param.grad[0] = 0
    trainer = Trainer(".")
    reporter = chainer.Reporter()
    stats = chainer.training.extensions.ParameterStatistics(
        [model, model[0]], trigger=(2, "iteration"), prefix="stats"
    )
    stats.register_statistics("l1", lambda x: abs(x).sum())
    observation = {}
    for i in (1, 2):
        trainer.updater.iteration = i
        with reporter.scope(observation):
            stats(trainer)
        model[0].W.array += 0.5
    return {key: float(value) for key, value in sorted(observation.items())}


def evaluator(chainer) -> dict:
    """What Evaluator reports for a Classifier over 10 examples in batches of 4."""
    model = chainer.links.Classifier(_model(chainer))
    x = numpy.linspace(-2, 2, 30, dtype=numpy.float32).reshape(10, 3)
    t = numpy.array([0, 1, 1, 0, 1, 0, 0, 1, 1, 1], numpy.int32)
    it = chainer.iterators.SerialIterator(chainer.datasets.TupleDataset(x, t), 4, repeat=False, shuffle=False)
    ext = chainer.training.extensions.Evaluator(it, model)
    ext.name = "validation"
    hooked = []
    ext.eval_hook = lambda e: hooked.append(chainer.config.train)
    reporter = chainer.Reporter()
    observation = {}
    with reporter.scope(observation):
        first = ext()
        second = ext()
    return {
        "first": {k: float(v) for k, v in sorted(first.items())},
        "same": sorted(first) == sorted(second) and all(float(first[k]) == float(second[k]) for k in first),
        "observation": sorted(observation),
        "train_in_hook": hooked,
    }


def serialized(chainer) -> dict:
    """The entries LogReport, PrintReport (with its own LogReport) and DumpGraph serialize."""
    E = chainer.training.extensions
    trainer = Trainer(".")
    log = E.LogReport(trigger=(2, "iteration"), log_name=None)
    printer = E.PrintReport(["main/loss"], log_report=E.LogReport(log_name=None), out=io.StringIO())
    for i in range(1, 4):
        trainer.updater.iteration = i
        trainer.elapsed_time = float(i)
        trainer.observation = {"main/loss": float(i), "n": numpy.float32(2 * i)}
        log(trainer)
        printer(trainer)
    result = {}
    for name, ext in (("log", log), ("print", printer), ("dump_graph", E.DumpGraph("main/loss"))):
        serializer = chainer.serializers.DictionarySerializer()
        ext.serialize(serializer)
        result[name] = {k: v.tolist() for k, v in sorted(serializer.target.items())}
    return result


def make(chainer) -> dict:
    return {
        "log_and_print": log_and_print(chainer),
        "progress_bar": progress_bar(chainer),
        "shifts": shifts(chainer),
        "micro_average": micro_average(chainer),
        "parameter_statistics": parameter_statistics(chainer),
        "evaluator": evaluator(chainer),
        "serialized": serialized(chainer),
    }


if __name__ == "__main__":
    import chainer
    import chainer.training.extensions  # noqa: F401

    OUT.write_text(json.dumps(make(chainer), indent=1, sort_keys=True) + "\n")
    print("wrote", OUT)
