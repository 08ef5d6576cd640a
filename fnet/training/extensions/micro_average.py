"""``MicroAverage``: the ratio of two reported sums over an interval (e.g. an exact accuracy).

With a numerator ``n_i`` (say, the correct predictions) and a denominator ``d_i`` (the
examples) reported at each iteration, it reports ``sum(n_i) / sum(d_i)`` over the interval:
unlike the mean of the ratios ``n_i / d_i``, it weighs every example the same even when the
batches differ in size.
"""

from __future__ import annotations

from typing import Any

from .. import reporter as _reporter
from ..extension import PRIORITY_EDITOR, Extension
from ..triggers.interval import get_trigger

__all__ = ["MicroAverage"]


def _raw(value):
    """A reported value as a number or array (a Chainer Variable gives its array)."""
    return getattr(value, "array", value)


class MicroAverage(Extension):
    """Sum ``numerator_key`` and ``denominator_key`` at every call and, when ``trigger`` fires,
    report their ratio as ``result_key`` (then start new sums).

    Args:
        numerator_key: the name of the reported numerator (e.g. ``'main/correct'``).
        denominator_key: the name of the reported denominator (e.g. ``'main/total'``).
        result_key: the name under which the ratio is reported (e.g. ``'main/accuracy'``).
        trigger: when to report: a trigger or a ``(period, unit)`` pair.

    Iterations that report only one of the two values are skipped.

    >>> from fnet.training import Reporter
    >>> class Updater:
    ...     iteration, epoch_detail, previous_epoch_detail = 0, 0.0, None
    >>> class Trainer:
    ...     updater, observation = Updater(), {}
    >>> trainer, average = Trainer(), MicroAverage("correct", "total", "accuracy", trigger=(2, "iteration"))
    >>> with Reporter().scope(trainer.observation):
    ...     for i, (correct, total) in enumerate([(3, 4), (1, 4)], 1):
    ...         trainer.updater.iteration = i
    ...         trainer.observation.update(correct=correct, total=total)
    ...         average(trainer)
    >>> trainer.observation["accuracy"]
    0.5
    """

    priority = PRIORITY_EDITOR

    def __init__(
        self, numerator_key: str, denominator_key: str, result_key: str, trigger: Any = (1, "epoch")
    ):
        self._trigger = get_trigger(trigger)
        self._numerator_key = numerator_key
        self._denominator_key = denominator_key
        self._result_key = result_key
        self._numerator = 0
        self._denominator = 0

    def __call__(self, trainer) -> None:
        """Add this iteration's values; report the ratio when the trigger fires."""
        observation = trainer.observation
        if not (self._numerator_key in observation and self._denominator_key in observation):
            return
        self._numerator += _raw(observation[self._numerator_key])
        self._denominator += _raw(observation[self._denominator_key])
        if self._trigger(trainer):
            result = float(self._numerator) / self._denominator
            self._numerator = 0
            self._denominator = 0
            _reporter.report({self._result_key: result})

    def serialize(self, serializer) -> None:
        """Save or load the running sums (``_numerator``, ``_denominator``)."""
        self._numerator = serializer("_numerator", self._numerator)
        self._denominator = serializer("_denominator", self._denominator)
