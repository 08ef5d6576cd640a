"""``PolynomialShift``: an optimizer attribute decaying as ``init * (1 - t / max_count) ** rate``."""

from __future__ import annotations

from typing import Any

from ...optim import schedules
from ._shift import Shift

__all__ = ["PolynomialShift"]


class PolynomialShift(Shift):
    """Set ``optimizer.<attr>`` to ``init * (1 - t / max_count) ** rate`` after ``t`` calls (0
    from ``max_count`` on), stopping at ``target``.

    Args:
        attr: the attribute to change (e.g. ``'lr'``).
        rate: the exponent of the decay.
        max_count: the number of calls after which the value is 0 (e.g. the number of
            iterations of the training).
        init: the value at the start; read from the optimizer when None.
        target: a value the attribute does not go past (None: no limit).
        optimizer: the optimizer to change; the trainer's ``'main'`` optimizer when None.

    The schedule is ``fnet.optim.schedules.polynomial``.

    >>> class Optimizer:
    ...     lr = 1.0
    >>> optimizer = Optimizer()
    >>> shift = PolynomialShift("lr", rate=2.0, max_count=4, optimizer=optimizer)
    >>> shift.initialize(None)
    >>> shift(None)
    >>> optimizer.lr
    0.5625
    """

    def __init__(
        self,
        attr: str,
        rate: float,
        max_count: int,
        init: float | None = None,
        target: float | None = None,
        optimizer: Any = None,
    ):
        super().__init__(attr, init, optimizer)
        self._rate = rate
        self._max_count = max_count
        self._target = target

    def _make_schedule(self, init: float):
        return schedules.polynomial(init, self._rate, self._max_count, self._target)
