"""``IntervalTrigger``: fire every ``period`` iterations or epochs; ``get_trigger`` builds triggers.

>>> class Updater:  # what triggers read from ``trainer.updater``
...     iteration, epoch_detail, previous_epoch_detail = 0, 0.0, None
>>> class Trainer:
...     updater = Updater()
>>> trainer, trigger = Trainer(), get_trigger((3, "iteration"))
>>> fired = []
>>> for i in range(1, 8):
...     trainer.updater.iteration = i
...     fired.append(trigger(trainer))
>>> fired
[False, False, True, False, False, True, False]
"""

from __future__ import annotations

import numbers
from collections.abc import Callable

from ._progress import ProgressTrigger

__all__ = ["IntervalTrigger", "get_trigger"]


class IntervalTrigger(ProgressTrigger):
    """Fires when the training crosses a multiple of ``period`` (``unit``: ``'iteration'`` or
    ``'epoch'``; a fractional ``period`` of epochs is allowed, an iteration period should be an
    integer).

    Attributes:
        period: the interval length.
        unit: ``'iteration'`` or ``'epoch'``.
        count: with unit ``'epoch'``, the number of whole periods passed at the last call.
    """

    def __init__(self, period: int | float, unit: str):
        super().__init__(unit)
        if isinstance(period, bool) or not isinstance(period, numbers.Real) or not period > 0:
            raise ValueError(
                f"IntervalTrigger: period must be a positive number, got {period!r}\n"
                "  hint: e.g. IntervalTrigger(1, 'epoch') or IntervalTrigger(100, 'iteration')"
            )
        self.period = period
        self.count = 0

    def __call__(self, trainer) -> bool:
        """Whether the last update crossed a multiple of the period."""
        updater = trainer.updater
        previous, current = self._progress(updater)
        if self.unit == "epoch":
            self.count = current // self.period
        fire = previous // self.period != current // self.period
        self._remember(updater)
        return fire

    def get_training_length(self) -> tuple:
        """``(period, unit)``: the training length when this trigger stops a trainer."""
        return self.period, self.unit

    def __str__(self) -> str:
        return f"{type(self).__name__}({self.period}, '{self.unit}')"


def _never_fire_trigger(trainer) -> bool:
    """The trigger of ``None``: it never fires."""
    return False


def get_trigger(trigger) -> Callable:
    """A trigger from a spec: a callable is returned as it is, None gives a trigger that never
    fires, and a ``(period, unit)`` pair gives an ``IntervalTrigger``."""
    if callable(trigger):
        return trigger
    if trigger is None:
        return _never_fire_trigger
    if not (isinstance(trigger, (tuple, list)) and len(trigger) == 2):
        raise TypeError(
            f"get_trigger: expected a (period, unit) pair, a callable trigger or None, got {trigger!r}\n"
            "  hint: e.g. (1, 'epoch'), (100, 'iteration') or triggers.MaxValueTrigger('main/accuracy')"
        )
    return IntervalTrigger(*trigger)
