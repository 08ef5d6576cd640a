"""``StepShift``: multiply an optimizer attribute by ``gamma`` every ``step`` calls."""

from __future__ import annotations

from typing import Any

from ...optim import schedules
from ._shift import Shift

__all__ = ["StepShift"]


class StepShift(Shift):
    """Set ``optimizer.<attr>`` to ``init * gamma ** floor(t / step)`` after ``t`` calls,
    stopping at ``target``.

    Args:
        attr: the attribute to change (e.g. ``'lr'``).
        gamma: the factor applied every ``step`` calls.
        step: the number of calls between two changes.
        init: the value at the start; read from the optimizer when None.
        target: a value the attribute does not go past (None: no limit).
        optimizer: the optimizer to change; the trainer's ``'main'`` optimizer when None.

    The schedule is ``fnet.optim.schedules.step``.

    >>> class Optimizer:
    ...     lr = 1.0
    >>> optimizer = Optimizer()
    >>> shift = StepShift("lr", gamma=0.5, step=2, optimizer=optimizer)
    >>> shift.initialize(None)
    >>> values = []
    >>> for _ in range(4):
    ...     shift(None)
    ...     values.append(optimizer.lr)
    >>> values
    [1.0, 0.5, 0.5, 0.25]
    """

    def __init__(
        self,
        attr: str,
        gamma: float,
        step: int,
        init: float | None = None,
        target: float | None = None,
        optimizer: Any = None,
    ):
        super().__init__(attr, init, optimizer)
        self._gamma = gamma
        self._step = step
        self._target = target

    def _make_schedule(self, init: float):
        return schedules.step(init, self._gamma, self._step, self._target)
