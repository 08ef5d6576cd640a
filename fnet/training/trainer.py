"""``Trainer``: the training loop that runs an updater and calls extensions when their triggers fire.

Each iteration makes a fresh ``observation`` dict, makes the trainer's ``reporter`` write into
it, calls ``updater.update()``, then calls every extension whose trigger fires, by descending
priority (registration order among equals); the loop ends when ``stop_trigger`` fires. The
state that changes during training (the updater with its iterators, optimizers and models,
the triggers, the extensions, the elapsed time) is saved by ``serialize`` under Chainer's keys,
so ``serializers.save_npz(path, trainer)`` and ``load_npz(path, trainer)`` suspend and resume.

>>> class CountingUpdater:  # the minimal updater: update, get_all_optimizers, finalize
...     iteration = epoch = 0
...     def update(self):
...         self.iteration += 1
...     def get_all_optimizers(self):
...         return {}
...     def finalize(self):
...         pass
...     def connect_trainer(self, trainer):
...         pass
>>> import tempfile
>>> trainer = Trainer(CountingUpdater(), (3, "iteration"), out=tempfile.mkdtemp())
>>> trainer.extend(lambda t: print("iteration", t.updater.iteration), trigger=(2, "iteration"))
>>> trainer.run()
iteration 2
>>> trainer.updater.iteration
3
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import Any

from ..errors import InvalidInputError
from ..serialization import Serializer
from .extension import PRIORITY_READER
from .reporter import Reporter
from .triggers.interval import get_trigger

__all__ = ["Trainer"]

logger = logging.getLogger(__name__)


class _ExtensionEntry:
    """An extension as registered: with its trigger, priority and whether it runs before training."""

    __slots__ = ("extension", "trigger", "priority", "call_before_training")

    def __init__(self, extension: Callable, trigger: Callable, priority: int, call_before_training: bool):
        self.extension = extension
        self.trigger = trigger
        self.priority = priority
        self.call_before_training = call_before_training


class Trainer:
    """The standard training loop: run ``updater`` until ``stop_trigger`` fires, calling extensions.

    Args:
        updater: what performs one training step (``update()``), e.g. ``StandardUpdater`` or
            ``FunctionalUpdater``.
        stop_trigger: when to stop: a trigger, or a ``(length, unit)`` pair such as
            ``(20, 'epoch')``; None never stops by itself.
        out: the output directory of the extensions (logs, snapshots); made by ``run``.
        extensions: extensions to register with their default settings.

    Attributes:
        updater: the updater.
        stop_trigger: the stop trigger (a trigger object).
        observation: the values reported during the last iteration.
        out: the output directory.
        reporter: the ``Reporter`` the updates and extensions report to. Each optimizer's
            target link is registered as an observer under the optimizer's name (``'main'``),
            and its sub-links under that name followed by their path (``'main/predictor'``).
    """

    _reporter_type: type = Reporter

    def __init__(self, updater, stop_trigger=None, out: str | os.PathLike = "result", extensions=None):
        for method in ("update", "get_all_optimizers", "finalize"):
            if not callable(getattr(updater, method, None)):
                raise TypeError(
                    f"Trainer: the updater must have a method {method}(), got a {type(updater).__name__}\n"
                    "  hint: pass an updater, e.g. training.updaters.StandardUpdater(train_iter, optimizer)"
                )
        self.updater = updater
        self.stop_trigger = get_trigger(stop_trigger)
        self.observation: dict = {}
        self.out = out
        reporter = self._reporter_type()
        for name, optimizer in updater.get_all_optimizers().items():
            target = optimizer.target
            reporter.add_observer(name, target)
            if hasattr(target, "namedlinks"):
                reporter.add_observers(name, target.namedlinks(skipself=True))
        self.reporter = reporter
        self._done = False
        self._extensions: dict[str, _ExtensionEntry] = {}
        self._start_at: float | None = None
        self._snapshot_elapsed_time = 0.0
        self._final_elapsed_time: float | None = None
        connect = getattr(updater, "connect_trainer", None)
        if connect is not None:
            connect(self)
        for extension in extensions or ():
            self.extend(extension)

    @property
    def is_before_training(self) -> bool:
        """True until the first update (the updater's iteration is 0)."""
        return self.updater.iteration == 0

    @property
    def elapsed_time(self) -> float:
        """Seconds spent in training, including the time before the snapshot it was resumed from."""
        if self._done:
            return self._final_elapsed_time
        if self._start_at is None:
            raise RuntimeError(
                "Trainer.elapsed_time: training has not been started yet\n"
                "  hint: it is known once Trainer.run() has started"
            )
        return time.perf_counter() - self._start_at + self._snapshot_elapsed_time

    def extend(
        self,
        extension: Callable,
        name: str | None = None,
        trigger: Any = None,
        priority: int | None = None,
        *,
        call_before_training: bool = False,
        **kwargs: Any,
    ) -> None:
        """Register ``extension``, called as ``extension(trainer)`` after updates when ``trigger`` fires.

        ``name`` defaults to the extension's ``name``, then ``default_name``, then ``__name__``;
        a name already taken gets the suffix ``_1``, ``_2``... (the final name is set as
        ``extension.name``). ``trigger`` defaults to ``extension.trigger`` (``(1, 'iteration')``
        without one); a ``(period, unit)`` pair makes an ``IntervalTrigger``. ``priority``
        defaults to ``extension.priority`` (``PRIORITY_READER`` without one): higher runs
        first. ``call_before_training`` also calls it once before the first update.
        """
        if "invoke_before_training" in kwargs:  # a ValueError, as Chainer's
            raise InvalidInputError(
                "Trainer.extend: invoke_before_training was removed in Chainer v2.0.0\n"
                "  hint: pass call_before_training=True, or give the extension an initializer"
            )
        if kwargs:
            raise TypeError(
                f"Trainer.extend() got unexpected keyword argument(s) {', '.join(map(repr, kwargs))}\n"
                "  hint: the arguments are extension, name, trigger, priority, call_before_training"
            )
        if not callable(extension):
            raise TypeError(
                f"Trainer.extend: an extension must be callable as extension(trainer), got "
                f"{type(extension).__name__}\n  hint: pass an Extension, a function decorated with "
                "training.make_extension, or any function of the trainer"
            )
        if name is None:
            name = getattr(extension, "name", None)
            if name is None:
                name = getattr(extension, "default_name", None)
            if name is None:
                name = getattr(extension, "__name__", None)
            if name is None:
                raise TypeError(
                    f"Trainer.extend: name is not given for the extension (a {type(extension).__name__} "
                    "with no name, default_name or __name__)\n  hint: pass name='...'"
                )
        if name == "training":
            raise ValueError(
                'Trainer.extend: the name "training" is prohibited as an extension name\n'
                "  hint: choose another name"
            )
        if trigger is None:
            trigger = getattr(extension, "trigger", (1, "iteration"))
        trigger = get_trigger(trigger)
        if priority is None:
            priority = getattr(extension, "priority", PRIORITY_READER)
        unique, ordinal = name, 0
        while unique in self._extensions:
            ordinal += 1
            unique = f"{name}_{ordinal}"
        extension.name = unique
        self._extensions[unique] = _ExtensionEntry(extension, trigger, priority, call_before_training)

    def get_extension(self, name: str):
        """The extension registered as ``name``."""
        entry = self._extensions.get(name)
        if entry is None:
            raise ValueError(
                f"Trainer.get_extension: extension {name} not found; registered: {list(self._extensions)}"
            )
        return entry.extension

    def run(self, show_loop_exception_msg: bool = True) -> None:
        """Run the training loop until the stop trigger fires (a trainer runs once).

        Before the loop, each extension's ``initialize(trainer)`` is called (unless its trigger
        is ``finished``), and the extensions registered with ``call_before_training`` are
        called when no update was made yet. If the loop raises, the error and its traceback
        are logged (logger ``fnet.training.trainer``, level ERROR, which Python shows on the
        standard error when logging is not configured; not when ``show_loop_exception_msg`` is
        False), every extension's ``on_error`` is called, and the error is raised again; in
        every case the extensions' ``finalize`` and the updater's ``finalize`` are called at
        the end.
        """
        if self._done:
            raise RuntimeError(
                "Trainer.run: cannot run training loop multiple times\n"
                "  hint: build a new Trainer (or load a snapshot into one) to train further"
            )
        try:
            os.makedirs(self.out)
        except OSError:  # it exists, or extensions that need it will say what is wrong
            pass
        entries = sorted(self._extensions.values(), key=lambda entry: entry.priority, reverse=True)
        self._start_at = time.perf_counter()
        for entry in entries:
            initialize = getattr(entry.extension, "initialize", None)
            if initialize and not getattr(entry.trigger, "finished", False):
                initialize(self)

        update = self.updater.update
        reporter = self.reporter
        stop_trigger = self.stop_trigger
        if self.is_before_training:
            self.observation = {}
            with reporter.scope(self.observation):
                for entry in entries:
                    if entry.call_before_training:
                        entry.extension(self)
        try:
            while not stop_trigger(self):
                self.observation = observation = {}
                with reporter.scope(observation):
                    update()
                    for entry in entries:
                        if entry.trigger(self):
                            entry.extension(self)
        except Exception as error:
            if show_loop_exception_msg:
                logger.error(
                    "Exception in main training loop: %s\n"
                    "Will finalize trainer extensions and updater before reraising the exception.",
                    error,
                    exc_info=error,
                )
            for entry in entries:
                on_error = getattr(entry.extension, "on_error", None)
                if on_error:
                    try:
                        on_error(self, error, error.__traceback__)
                    except Exception as handler_error:
                        logger.error("Exception in error handler: %s", handler_error, exc_info=handler_error)
            raise
        finally:
            for entry in entries:
                finalize = getattr(entry.extension, "finalize", None)
                if finalize:
                    finalize()
            self.updater.finalize()
        self._final_elapsed_time = self.elapsed_time
        self._done = True

    def serialize(self, serializer) -> None:
        """Save or load the training state: ``updater/``, ``stop_trigger/``,
        ``extensions/<name>/``, ``extension_triggers/<name>/`` (for the objects that have
        ``serialize``) and ``_snapshot_elapsed_time``."""
        self.updater.serialize(serializer["updater"])
        if hasattr(self.stop_trigger, "serialize"):
            self.stop_trigger.serialize(serializer["stop_trigger"])
        extensions, triggers = serializer["extensions"], serializer["extension_triggers"]
        for name, entry in self._extensions.items():
            if hasattr(entry.extension, "serialize"):
                entry.extension.serialize(extensions[name])
            if hasattr(entry.trigger, "serialize"):
                entry.trigger.serialize(triggers[name])
        if isinstance(serializer, Serializer):
            serializer("_snapshot_elapsed_time", self.elapsed_time)
        else:
            self._snapshot_elapsed_time = serializer("_snapshot_elapsed_time", 0.0)
