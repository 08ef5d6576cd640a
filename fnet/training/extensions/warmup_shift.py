"""``WarmupShift``: raise an optimizer attribute linearly to its value during the first calls."""

from __future__ import annotations

from typing import Any

from ...optim import schedules
from ._shift import Shift

__all__ = ["WarmupShift"]


class WarmupShift(Shift):
    """Move ``optimizer.<attr>`` linearly from ``warmup_start`` to ``init`` over the first
    ``warmup_iter`` calls; later calls leave it alone.

    Args:
        attr: the attribute to change (e.g. ``'lr'``).
        warmup_start: the value at the start; read from the optimizer when None.
        warmup_iter: the number of calls of the warm-up.
        init: the value at the end of the warm-up.
        optimizer: the optimizer to change; the trainer's ``'main'`` optimizer when None.

    The schedule is ``fnet.optim.schedules.warmup``. The state saved by ``serialize`` is
    Chainer's: ``_t``.

    >>> class Optimizer:
    ...     lr = 0.0
    >>> optimizer = Optimizer()
    >>> shift = WarmupShift("lr", 0.0, 4, 1.0, optimizer=optimizer)
    >>> shift.initialize(None)
    >>> values = []
    >>> for _ in range(5):
    ...     shift(None)
    ...     values.append(optimizer.lr)
    >>> values
    [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(
        self, attr: str, warmup_start: float | None, warmup_iter: int, init: float, optimizer: Any = None
    ):
        super().__init__(attr, init, optimizer)
        self._warmup_start = warmup_start
        self._warmup_iter = warmup_iter

    def _read_init(self, optimizer) -> None:
        """Take the starting value of the warm-up from the optimizer when it was not given."""
        if self._warmup_start is None:
            self._warmup_start = getattr(optimizer, self._attr)

    _saves_last_value = False

    def _make_schedule(self, init: float):
        return schedules.warmup(init, self._warmup_start, self._warmup_iter)

    def __call__(self, trainer) -> None:
        """Advance one step; during the warm-up, set the attribute to the schedule's value."""
        self._t += 1
        if self._t <= self._warmup_iter:
            optimizer = self._get_optimizer(trainer)
            self._update_value(optimizer, self._value(optimizer, self._t))

    def _serialize_state(self, serializer) -> None:
        """Save or load the step count (``_t``)."""
        self._t = serializer("_t", self._t)
