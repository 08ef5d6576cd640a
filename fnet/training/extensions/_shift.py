"""What the shift extensions share: set an optimizer attribute from a schedule of ``fnet.optim``.

A shift extension sets ``optimizer.<attr>`` to ``schedule(t)``, where ``t`` is the number of
times it has been called (once per iteration by default) and the schedule is the matching pure
function of ``fnet.optim.schedules`` (one formula for both worlds). Before training it sets the
value for the current ``t``, so that a resumed training goes on with the value it had; and when
a snapshot is loaded into it after that (``snapshot(autoload=True)`` loads once the extensions
with a higher priority are initialized), it sets the loaded value at once.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import Any

import numpy

from ...serialization import Deserializer
from ..extension import Extension

_Schedule = Callable[[int], float]


class Shift(Extension):
    """Base of the shift extensions: ``attr`` of ``optimizer`` (the trainer's ``'main'`` optimizer
    when None) follows ``schedule(t)``.

    Subclasses define ``_make_schedule(init)``. ``init`` (the value at ``t = 0``) is read from
    the optimizer before training when it is None. The state saved by ``serialize`` is Chainer's:
    ``_t`` and ``_last_value`` (subclasses that save other keys override ``_serialize_state``
    and set ``_saves_last_value = False``).
    """

    _saves_last_value = True  # whether ``_last_value`` is part of the serialized state

    def __init__(self, attr: str, init: float | None, optimizer: Any = None):
        self._attr = attr
        self._init = init
        self._optimizer = optimizer
        self._t = 0
        self._last_value: float | None = None
        self._schedule: _Schedule | None = None
        self._optimizer_in_use = None  # the optimizer found by initialize

    @abc.abstractmethod
    def _make_schedule(self, init: float) -> _Schedule:
        """The schedule ``t -> value`` that starts from ``init``."""

    def _get_optimizer(self, trainer):
        return self._optimizer or trainer.updater.get_optimizer("main")

    def _read_init(self, optimizer) -> None:
        """Take the starting value from the optimizer when it was not given."""
        if self._init is None:
            self._init = getattr(optimizer, self._attr)

    def _value(self, optimizer, t: int) -> float:
        if self._schedule is None:
            self._read_init(optimizer)
            self._schedule = self._make_schedule(self._init)
        return self._schedule(t)

    def initialize(self, trainer) -> None:
        """Set the attribute for the current step (the last value set, after a resume)."""
        self._optimizer_in_use = self._get_optimizer(trainer)
        self._set_current(self._optimizer_in_use)

    def _set_current(self, optimizer) -> None:
        """Set the value of the current step: the last value set when it is saved, else the
        schedule's."""
        scheduled = self._value(optimizer, self._t)  # first: ``init`` may be read from the optimizer
        last = self._last_value if self._saves_last_value else None
        self._update_value(optimizer, scheduled if last is None else last)

    def __call__(self, trainer) -> None:
        """Advance one step and set the attribute to the schedule's value."""
        self._t += 1
        optimizer = self._get_optimizer(trainer)
        self._update_value(optimizer, self._value(optimizer, self._t))

    def serialize(self, serializer) -> None:
        """Save or load the state; once loaded, the optimizer in use gets the value of that state."""
        self._serialize_state(serializer)
        optimizer = self._optimizer or self._optimizer_in_use
        if isinstance(serializer, Deserializer) and optimizer is not None:
            self._set_current(optimizer)

    def _serialize_state(self, serializer) -> None:
        """Save or load the step count (``_t``) and the last value set (``_last_value``)."""
        self._t = serializer("_t", self._t)
        last = serializer("_last_value", self._last_value)
        self._last_value = last.item() if isinstance(last, numpy.ndarray) else last

    def _update_value(self, optimizer, value: float) -> None:
        setattr(optimizer, self._attr, value)
        self._last_value = value


def check_not_negative(who: str, name: str, value: float) -> None:
    """Chainer's check of the rate-like arguments that cannot be negative."""
    if value < 0:
        raise ValueError(f"{who} does not support negative {name}\n  hint: got {name}={value!r}")
