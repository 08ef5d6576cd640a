"""``LinearShift``: move an optimizer attribute linearly from one value to another."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...optim import schedules
from ._shift import Shift

__all__ = ["LinearShift"]


class LinearShift(Shift):
    """Set ``optimizer.<attr>`` to ``value_range[0]`` until call ``time_range[0]``, then linearly
    to ``value_range[1]`` at call ``time_range[1]``, and keep it there.

    Args:
        attr: the attribute to change (e.g. ``'lr'``).
        value_range: ``(first value, last value)``.
        time_range: ``(first call, last call)`` of the change.
        optimizer: the optimizer to change; the trainer's ``'main'`` optimizer when None.

    The schedule is ``fnet.optim.schedules.linear``.

    >>> class Optimizer:
    ...     lr = None
    >>> optimizer = Optimizer()
    >>> shift = LinearShift("lr", (1.0, 2.0), (1, 3), optimizer=optimizer)
    >>> shift.initialize(None)
    >>> values = [optimizer.lr]
    >>> for _ in range(4):
    ...     shift(None)
    ...     values.append(optimizer.lr)
    >>> values
    [1.0, 1.0, 1.5, 2.0, 2.0]
    """

    def __init__(
        self, attr: str, value_range: Sequence[float], time_range: Sequence[int], optimizer: Any = None
    ):
        super().__init__(attr, None, optimizer)
        self._value_range = value_range
        self._time_range = time_range

    def _read_init(self, optimizer) -> None:
        """Nothing to read: the values are given."""

    def _make_schedule(self, init: float | None):
        return schedules.linear(self._value_range, self._time_range)
