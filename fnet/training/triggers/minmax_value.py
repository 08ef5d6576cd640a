"""Triggers that fire when a reported value reaches its best so far: ``MaxValueTrigger``,
``MinValueTrigger`` and their base ``BestValueTrigger``.

>>> class Updater:
...     iteration, epoch_detail, previous_epoch_detail = 0, 0.0, None
>>> class Trainer:
...     updater, observation = Updater(), {}
>>> trainer, trigger = Trainer(), MaxValueTrigger("acc", trigger=(1, "iteration"))
>>> fired = []
>>> for i, acc in enumerate([0.5, 0.7, 0.6, 0.8], 1):
...     trainer.updater.iteration, trainer.observation = i, {"acc": acc}
...     fired.append(trigger(trainer))
>>> fired
[True, True, False, True]
"""

from __future__ import annotations

from collections.abc import Callable

from ..reporter import DictSummary
from .interval import get_trigger

__all__ = ["BestValueTrigger", "MaxValueTrigger", "MinValueTrigger"]


class BestValueTrigger:
    """Fires when the mean of the value reported as ``key`` over the last interval (``trigger``,
    a ``(period, unit)`` pair or a trigger) is better than every earlier interval's, by
    ``compare(best, new) -> bool``. The first interval's mean always fires."""

    def __init__(self, key: str, compare: Callable[[float, float], bool], trigger=(1, "epoch")):
        self._key = key
        self._best_value = None
        self._interval_trigger = get_trigger(trigger)
        self._summary = DictSummary()
        self._compare = compare

    def __call__(self, trainer) -> bool:
        """Accumulate this iteration's value; at the end of an interval, whether its mean is the best."""
        observation = trainer.observation
        if self._key in observation:
            self._summary.add({self._key: observation[self._key]})
        if not self._interval_trigger(trainer):
            return False
        means = self._summary.compute_mean()
        if self._key not in means:
            raise KeyError(
                f"{type(self).__name__}: no value was reported as {self._key!r} in the last interval; "
                f"this iteration's observation has {sorted(observation)}\n"
                "  hint: check the key (e.g. 'validation/main/accuracy'), and that the extension "
                "reporting it runs on the same interval"
            )
        value = float(means[self._key])
        self._summary = DictSummary()
        if self._best_value is None or self._compare(self._best_value, value):
            self._best_value = value
            return True
        return False

    def serialize(self, serializer) -> None:
        """Save or load the interval trigger (``interval_trigger/``), the values accumulated
        (``summary/``) and the best value (``best_value``; absent while there is none)."""
        if hasattr(self._interval_trigger, "serialize"):
            self._interval_trigger.serialize(serializer["interval_trigger"])
        self._summary.serialize(serializer["summary"])
        try:
            best = serializer("best_value", self._best_value)
        except KeyError:  # save_npz leaves None out of the file
            best = None
        self._best_value = None if best is None else float(best)


class MaxValueTrigger(BestValueTrigger):
    """Fires when the mean of the value reported as ``key`` over an interval is the largest so far
    (e.g. to snapshot the model of best validation accuracy)."""

    def __init__(self, key: str, trigger=(1, "epoch")):
        super().__init__(key, _greater, trigger)


class MinValueTrigger(BestValueTrigger):
    """Fires when the mean of the value reported as ``key`` over an interval is the smallest so far
    (e.g. to snapshot the model of least validation loss)."""

    def __init__(self, key: str, trigger=(1, "epoch")):
        super().__init__(key, _less, trigger)


def _greater(best: float, new: float) -> bool:
    return new > best


def _less(best: float, new: float) -> bool:
    return new < best
