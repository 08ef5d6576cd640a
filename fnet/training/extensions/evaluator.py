"""``Evaluator``: run the model over a validation set and report the mean of what it reports.

Each evaluation sweeps the ``'main'`` iterator once; every batch is converted (as the updater
converts training batches) and passed to the evaluation function, the target by default. The
values it reports are averaged over the batches and reported under the extension's name: a
``Classifier`` registered as ``'main'`` reporting ``loss`` gives ``'validation/main/loss'``.

No graph is recorded during the evaluation (``no_grad``), and every evaluation mode registered
in ``fnet.training.modes`` is on: for Chainer links, ``chainer.config.train`` is False. For pure
models, pass an ``eval_func`` that computes with the
current params; it may report with ``fnet.training.report(values, target)``, or return a dict
of values, which is reported as the target's (so ``{'loss': ...}`` gives
``'validation/main/loss'``).

An evaluation that cannot be named after the targets is an error (``ObserverError``, a
``KeyError``), not a log with empty ``validation/*`` columns: values reported for an observer
that is not a registered target (as in Chainer), and an evaluation by ``Evaluator()`` whose
batches reported nothing under any target (values reported without an observer, or nothing).
"""

from __future__ import annotations

import copy
import time
import warnings
from collections.abc import Callable

from ... import backend
from ...autodiff.tracer import no_grad
from ...data import convert
from .. import modes
from .. import reporter as _reporter
from ..extension import PRIORITY_WRITER, Extension
from ..reporter import ObserverError, _describe_observer
from ._util import TerminalBar

__all__ = ["Evaluator"]


class Evaluator(Extension):
    """Evaluate the targets on a validation iterator and report the means (once per epoch).

    Args:
        iterator: the validation iterator (it should not repeat), or a dict of them with one
            named ``'main'``.
        target: the model to evaluate (registered as ``'main'``), or a dict of them. A Chainer
            link's sub-links are registered too, so their reports are named after their paths.
        converter: ``converter(batch, device)`` makes the arguments of ``eval_func``:
            a tuple is passed as positional arguments, a dict as keyword arguments.
        device: where the batches are sent (``'@numpy'``, ``'@cupy:0'``, a GPU id, -1).
        eval_hook: ``eval_hook(evaluator)``, called before each evaluation.
        eval_func: what is called on each batch; the ``'main'`` target when None.
        progress_bar: draw a progress bar of the evaluation on the standard output.

    Attributes:
        converter, device, eval_hook, eval_func: as given (``device`` as a device object).

    Subclasses may override ``evaluate`` (it returns the dict of means).

    >>> import numpy
    >>> from fnet.data.iterators import SerialIterator
    >>> from fnet.training import report
    >>> data = [(numpy.float32(x), numpy.float32(2 * x)) for x in range(4)]
    >>> def model(x, t):
    ...     report({"loss": float(((2 * x - t) ** 2 + x).mean())}, model)
    >>> evaluator = Evaluator(SerialIterator(data, 2, repeat=False, shuffle=False), model)
    >>> evaluator.name = "validation"
    >>> evaluator()
    {'validation/main/loss': 1.5}
    """

    trigger = 1, "epoch"
    default_name = "validation"
    priority = PRIORITY_WRITER
    name = None

    def __init__(
        self,
        iterator,
        target,
        converter: Callable = convert.concat_examples,
        device=None,
        eval_hook: Callable | None = None,
        eval_func: Callable | None = None,
        *,
        progress_bar: bool = False,
    ):
        iterators = dict(iterator) if isinstance(iterator, dict) else {"main": iterator}
        for key, it in iterators.items():
            if not callable(getattr(it, "__next__", None)):
                raise TypeError(
                    f"Evaluator: the iterator {key!r} must be a dataset iterator, got {type(it).__name__}\n"
                    "  hint: e.g. iterators.SerialIterator(test_data, 100, repeat=False, shuffle=False)"
                )
            if getattr(it, "repeat", False) is True:
                warnings.warn(
                    f"Evaluator: the iterator {key!r} repeats (repeat=True), so an evaluation, which runs "
                    "until the iterator stops, may never end; build it with repeat=False",
                    stacklevel=2,
                )
        if "main" not in iterators:
            raise KeyError(f"Evaluator: the iterators must include one named 'main', got {sorted(iterators)}")
        self._iterators = iterators
        self._targets = dict(target) if isinstance(target, dict) else {"main": target}
        self.converter = converter
        self.device = None if device is None else backend.get_device(device)
        self.eval_hook = eval_hook
        self.eval_func = eval_func
        self._progress_bar = progress_bar
        self._expected_prefixes: tuple[str, ...] | None = None  # set by __call__ for evaluate

    def get_iterator(self, name: str):
        """The iterator registered as ``name``."""
        return self._iterators[name]

    def get_all_iterators(self) -> dict:
        """All iterators, by name (a new dict)."""
        return dict(self._iterators)

    def get_target(self, name: str):
        """The target registered as ``name``."""
        return self._targets[name]

    def get_all_targets(self) -> dict:
        """All targets, by name (a new dict)."""
        return dict(self._targets)

    def __call__(self, trainer=None) -> dict:
        """Evaluate, report the means to the current reporter (the trainer's, during training)
        and return them. It can be called without a trainer.

        Each target is registered as an observer under ``<name>/<target name>``; when the
        batches reported nothing under any of them, ``ObserverError`` says so."""
        reporter = _reporter.Reporter()
        prefix = "" if self.name is None else self.name + "/"
        for name, target in self._targets.items():
            reporter.add_observer(prefix + name, target)
            if hasattr(target, "namedlinks"):
                reporter.add_observers(prefix + name, target.namedlinks(skipself=True))
        self._expected_prefixes = tuple(prefix + name + "/" for name in self._targets)
        try:
            with reporter, modes.evaluation_mode():
                result = self.evaluate()
        finally:
            self._expected_prefixes = None
        _reporter.report(result)
        return result

    def evaluate(self) -> dict:
        """Run ``eval_func`` over one sweep of the ``'main'`` iterator; the means of the reports.

        The iterator is ``reset()`` first (an iterator without ``reset`` is copied, which is
        deprecated). Nothing is recorded for backprop during the calls.
        """
        iterator = self._iterators["main"]
        eval_func = self.eval_func or self._targets["main"]
        if self.eval_hook:
            self.eval_hook(self)
        if hasattr(iterator, "reset"):
            iterator.reset()
            it = iterator
        else:
            warnings.warn(
                "This iterator does not have the reset method. Evaluator copies the iterator instead of "
                "resetting. This behavior is deprecated. Please implement the reset method.",
                DeprecationWarning,
                stacklevel=2,
            )
            it = copy.copy(iterator)
        summary = _reporter.DictSummary()
        bar = _IterationBar(it) if self._progress_bar else None
        batches = 0
        for batch in it:
            observation: dict = {}
            with _reporter.report_scope(observation):
                in_arrays = convert._call_converter(self.converter, batch, self.device)
                with no_grad():
                    if isinstance(in_arrays, tuple):
                        returned = eval_func(*in_arrays)
                    elif isinstance(in_arrays, dict):
                        returned = eval_func(**in_arrays)
                    else:
                        returned = eval_func(in_arrays)
                if isinstance(returned, dict):
                    self._report_returned(returned)
            summary.add(observation)
            batches += 1
            if bar is not None:
                bar.update()
        if bar is not None:
            bar.close()
        result = summary.compute_mean()
        if batches and self._expected_prefixes is not None:
            self._check_named(result)
        return result

    def _report_returned(self, returned: dict) -> None:
        """Report the dict that ``eval_func`` returned as the ``'main'`` target's values."""
        if "main" not in self._targets:
            raise ObserverError(
                f"Evaluator: eval_func returned {sorted(returned)}, which are reported as the 'main' "
                f"target's values, but the targets are {sorted(self._targets)}\n"
                "  hint: pass the evaluated model (or the eval function itself) as target, e.g. "
                "Evaluator(iterator, target=eval_func)"
            )
        _reporter.report(returned, self._targets["main"])

    def _check_named(self, result: dict) -> None:
        """Raise when nothing in ``result`` is named after a target (the columns would be empty)."""
        expected = self._expected_prefixes
        if any(key.startswith(expected) for key in result):
            return
        eval_func = self.eval_func or self._targets.get("main")
        got = f"values named {sorted(result)}" if result else "nothing"
        if expected:
            wanted = "values named " + " or ".join(repr(p + "...") for p in expected)
        else:
            wanted = "values named after a target, but it has no target"
        targets = ", ".join(f"{name!r}: {_describe_observer(t)}" for name, t in self._targets.items())
        raise ObserverError(
            f"Evaluator: expected the evaluation to report {wanted}, got {got} (targets {{{targets}}}, "
            f"eval_func {_describe_observer(eval_func)})\n"
            "  hint: report each value with its target as observer, fnet.training.report({'loss': loss}, "
            "target) (a Chainer link: chainer.report(..., self)), or return a dict of values from eval_func"
        )

    def finalize(self) -> None:
        """Finalize every iterator (called at the end of training)."""
        for iterator in self._iterators.values():
            iterator.finalize()


class _IterationBar:
    """The progress of one sweep of an iterator: a bar, the position and the speed (on a
    terminal; elsewhere one plain line when the sweep ends)."""

    def __init__(self, iterator):
        if not (hasattr(iterator, "current_position") and hasattr(iterator, "epoch_detail")):
            raise TypeError(
                "Evaluator: progress_bar=True needs an iterator with current_position and epoch_detail, "
                f"got {type(iterator).__name__}\n  hint: use a built-in iterator or progress_bar=False"
            )
        self._iterator = iterator
        self._bar = TerminalBar()
        self._batches = 0
        self._start = time.perf_counter()

    def update(self) -> None:
        """Redraw the display for the iterator's current position."""
        iterator, bar = self._iterator, self._bar
        self._batches += 1
        if not bar.interactive:
            return
        position, epoch_detail = iterator.current_position, iterator.epoch_detail
        per_iteration, per_epoch = bar.speed(position, epoch_detail)
        size = getattr(iterator, "_epoch_size", None)
        bar.update(
            [
                bar.bar("validation", epoch_detail),
                f"{position:10} / {size} iterations\n" if size else f"{position:10} iterations\n",
                bar.speed_line(per_iteration, 1.0 - epoch_detail, per_epoch),
            ]
        )

    def close(self) -> None:
        """Erase the display (on a terminal), or write where the sweep ended (elsewhere)."""
        bar = self._bar
        if not bar.interactive:
            seconds = time.perf_counter() - self._start
            bar.update([f"validation: {self._batches} batches in {seconds:.3g} s\n"])
        bar.close()
