"""``TimeTrigger``: fire once every ``period`` seconds of training time.

>>> class Trainer:
...     elapsed_time = 0.0
>>> trainer, trigger = Trainer(), TimeTrigger(10.0)
>>> fired = []
>>> for t in (5.0, 10.5, 15.0, 21.0):
...     trainer.elapsed_time = t
...     fired.append(trigger(trainer))
>>> fired
[False, True, False, True]
"""

from __future__ import annotations

import numbers

__all__ = ["TimeTrigger"]


class TimeTrigger:
    """Fires at the first call after each multiple of ``period`` seconds of ``trainer.elapsed_time``."""

    def __init__(self, period: float):
        if isinstance(period, bool) or not isinstance(period, numbers.Real) or not period > 0:
            raise ValueError(
                f"TimeTrigger: period must be a positive number of seconds, got {period!r}\n"
                "  hint: e.g. TimeTrigger(60.0) fires about once a minute"
            )
        self._period = period
        self._next_time = period

    def __call__(self, trainer) -> bool:
        """Whether the training time passed the next multiple of the period."""
        if self._next_time < trainer.elapsed_time:
            self._next_time += self._period
            return True
        return False

    def serialize(self, serializer) -> None:
        """Save or load the time of the next firing (``next_time``)."""
        self._next_time = serializer("next_time", self._next_time)
