"""``InverseShift``: an optimizer attribute decaying as ``init * (1 + gamma t) ** -power``."""

from __future__ import annotations

from typing import Any

from ...optim import schedules
from ._shift import Shift, check_not_negative

__all__ = ["InverseShift"]


class InverseShift(Shift):
    """Set ``optimizer.<attr>`` to ``init * (1 + gamma * t) ** (-power)`` after ``t`` calls,
    stopping at ``target``.

    Args:
        attr: the attribute to change (e.g. ``'lr'``).
        gamma: how fast the value changes (not negative).
        power: the exponent.
        init: the value at the start; read from the optimizer when None.
        target: a value the attribute does not go past (None: no limit).
        optimizer: the optimizer to change; the trainer's ``'main'`` optimizer when None.

    The schedule is ``fnet.optim.schedules.inverse``.

    >>> class Optimizer:
    ...     lr = 1.0
    >>> optimizer = Optimizer()
    >>> shift = InverseShift("lr", gamma=1.0, power=1.0, optimizer=optimizer)
    >>> shift.initialize(None)
    >>> shift(None)
    >>> optimizer.lr
    0.5
    """

    def __init__(
        self,
        attr: str,
        gamma: float,
        power: float,
        init: float | None = None,
        target: float | None = None,
        optimizer: Any = None,
    ):
        check_not_negative("InverseShift", "gamma", gamma)
        super().__init__(attr, init, optimizer)
        self._gamma = gamma
        self._power = power
        self._target = target

    def _make_schedule(self, init: float):
        return schedules.inverse(init, self._gamma, self._power, self._target)
