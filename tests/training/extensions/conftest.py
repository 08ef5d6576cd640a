"""A stand-in trainer for the extension tests: a fixed number of iterations per epoch, settable
observations and elapsed time, a real reporter, extensions found by name, and serialization
of the registered extensions under Chainer's keys."""

from __future__ import annotations

import pytest

from fnet.training import Reporter


class FakeUpdater:
    """What extensions read from ``trainer.updater``."""

    def __init__(self, iters_per_epoch: int = 5, optimizers: dict | None = None):
        self.iteration = 0
        self.iters_per_epoch = iters_per_epoch
        self.optimizers = optimizers or {}

    @property
    def epoch(self) -> int:
        return self.iteration // self.iters_per_epoch

    @property
    def epoch_detail(self) -> float:
        return self.iteration / self.iters_per_epoch

    @property
    def previous_epoch_detail(self):
        return None if self.iteration == 0 else (self.iteration - 1) / self.iters_per_epoch

    @property
    def is_new_epoch(self) -> bool:
        return self.iteration > 0 and self.iteration % self.iters_per_epoch == 0

    def get_optimizer(self, name):
        return self.optimizers[name]

    def get_all_optimizers(self) -> dict:
        return dict(self.optimizers)

    def serialize(self, serializer) -> None:
        self.iteration = serializer("iteration", self.iteration)


class FakeTrainer:
    """A trainer without a loop: ``step(observation)`` advances one iteration and runs the
    extensions whose triggers fire, inside a reporter scope as the Trainer does."""

    def __init__(self, out=".", iters_per_epoch: int = 5, optimizers: dict | None = None, stop_trigger=None):
        self.updater = FakeUpdater(iters_per_epoch, optimizers)
        self.observation: dict = {}
        self.out = str(out)
        self.elapsed_time = 0.0
        self.stop_trigger = stop_trigger
        self.reporter = Reporter()
        self.extensions: dict = {}
        self.triggers: dict = {}

    @property
    def is_before_training(self) -> bool:
        return self.updater.iteration == 0

    def get_extension(self, name):
        return self.extensions[name]

    def extend(self, extension, name=None, trigger=None):
        from fnet.training import get_trigger

        name = name or getattr(extension, "default_name", None) or extension.__name__
        self.extensions[name] = extension
        self.triggers[name] = get_trigger(trigger if trigger is not None else extension.trigger)
        return extension

    def initialize(self):
        for extension in self.extensions.values():
            initialize = getattr(extension, "initialize", None)
            if initialize:
                initialize(self)

    def step(self, observation: dict | None = None, elapsed: float | None = None):
        self.updater.iteration += 1
        self.elapsed_time = float(self.updater.iteration) if elapsed is None else elapsed
        self.observation = {}
        with self.reporter.scope(self.observation):
            self.reporter.report(observation or {})
            for name, extension in self.extensions.items():
                if self.triggers[name](self):
                    extension(self)

    def serialize(self, serializer):
        self.updater.serialize(serializer["updater"])
        for name, extension in self.extensions.items():
            if hasattr(extension, "serialize"):
                extension.serialize(serializer["extensions"][name])


@pytest.fixture
def make_trainer(tmp_path):
    """``make_trainer(**kwargs)``: a FakeTrainer writing into a temporary directory."""

    def make(**kwargs):
        kwargs.setdefault("out", tmp_path)
        return FakeTrainer(**kwargs)

    return make
