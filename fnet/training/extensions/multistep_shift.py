"""``MultistepShift``: multiply an optimizer attribute by ``gamma`` at given call counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...optim import schedules
from ._shift import Shift

__all__ = ["MultistepShift"]


class MultistepShift(Shift):
    """Set ``optimizer.<attr>`` to ``init * gamma ** k`` once ``k`` of the ``step_value`` call
    counts are reached (as in Chainer, at most one is passed per call).

    Args:
        attr: the attribute to change (e.g. ``'lr'``).
        gamma: the factor applied at each step value.
        step_value: the call counts (increasing) at which the value changes.
        init: the value at the start; read from the optimizer when None.
        optimizer: the optimizer to change; the trainer's ``'main'`` optimizer when None.

    The schedule is ``fnet.optim.schedules.multistep``. The state saved by ``serialize`` is
    Chainer's: ``_t`` and ``_current_step`` (the number of step values passed).

    >>> class Optimizer:
    ...     lr = 1.0
    >>> optimizer = Optimizer()
    >>> shift = MultistepShift("lr", 0.5, [2, 4], None, optimizer=optimizer)
    >>> shift.initialize(None)
    >>> values = []
    >>> for _ in range(5):
    ...     shift(None)
    ...     values.append(optimizer.lr)
    >>> values
    [1.0, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(
        self, attr: str, gamma: float, step_value: Sequence[int], init: float | None, optimizer: Any = None
    ):
        super().__init__(attr, init, optimizer)
        self._gamma = gamma
        self._step_value = step_value
        self._current_step = 0

    _saves_last_value = False

    def _make_schedule(self, init: float):
        return schedules.multistep(init, self._gamma, self._step_value)

    def __call__(self, trainer) -> None:
        """Advance one step (passing the next step value if it is reached) and set the attribute."""
        super().__call__(trainer)
        if self._current_step < len(self._step_value) and self._t >= self._step_value[self._current_step]:
            self._current_step += 1

    def _serialize_state(self, serializer) -> None:
        """Save or load the step count (``_t``) and the number of step values passed."""
        self._t = serializer("_t", self._t)
        self._current_step = serializer("_current_step", self._current_step)
