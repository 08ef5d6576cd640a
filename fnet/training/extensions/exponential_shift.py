"""``ExponentialShift``: multiply an optimizer attribute by ``rate`` at each call."""

from __future__ import annotations

from typing import Any

from ...optim import schedules
from ._shift import Shift, check_not_negative

__all__ = ["ExponentialShift"]


class ExponentialShift(Shift):
    """Set ``optimizer.<attr>`` to ``init * rate ** t`` after ``t`` calls, stopping at ``target``.

    Args:
        attr: the attribute to change (e.g. ``'lr'``).
        rate: the factor applied at each call (not negative).
        init: the value at the start; read from the optimizer when None.
        target: a value the attribute does not go past (None: no limit).
        optimizer: the optimizer to change; the trainer's ``'main'`` optimizer when None.

    The schedule is ``fnet.optim.schedules.exponential``. It runs every iteration by default:
    pass ``trigger=(1, 'epoch')`` to ``Trainer.extend`` to change the value once per epoch.

    >>> class Optimizer:
    ...     lr = 0.1
    >>> optimizer = Optimizer()
    >>> shift = ExponentialShift("lr", 0.5, optimizer=optimizer)
    >>> shift.initialize(None)
    >>> for _ in range(2):
    ...     shift(None)
    >>> optimizer.lr
    0.025
    """

    def __init__(
        self,
        attr: str,
        rate: float,
        init: float | None = None,
        target: float | None = None,
        optimizer: Any = None,
    ):
        check_not_negative("ExponentialShift", "rate", rate)
        super().__init__(attr, init, optimizer)
        self._rate = rate
        self._target = target

    def _make_schedule(self, init: float):
        return schedules.exponential(init, self._rate, self._target)
