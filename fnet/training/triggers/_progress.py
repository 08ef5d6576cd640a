"""What the iteration- and epoch-based triggers share: the training position seen at their last call."""

from __future__ import annotations

import warnings

_UNITS = ("epoch", "iteration")


class ProgressTrigger:
    """A trigger that remembers the updater's ``iteration`` and ``epoch_detail`` at its last call.

    A negative remembered value means "unknown" (a snapshot without it was loaded): the
    iteration is then taken to be the current one minus one, and the epoch detail the
    updater's ``previous_epoch_detail``.
    """

    def __init__(self, unit: str):
        if unit not in _UNITS:
            raise ValueError(
                f"{type(self).__name__}: the trigger unit must be either 'epoch' or 'iteration', "
                f"got {unit!r}\n"
                "  hint: e.g. (1, 'epoch') or (100, 'iteration')"
            )
        self.unit = unit
        self._previous_iteration = 0
        self._previous_epoch_detail = 0.0

    def _progress(self, updater) -> tuple:
        """``(previous, current)`` position in this trigger's unit."""
        if self.unit == "epoch":
            previous = self._previous_epoch_detail
            if previous < 0:
                previous = updater.previous_epoch_detail
            return previous, updater.epoch_detail
        current = updater.iteration
        previous = self._previous_iteration
        return (current - 1 if previous < 0 else previous), current

    def _remember(self, updater) -> None:
        self._previous_iteration = updater.iteration
        if hasattr(updater, "epoch_detail"):
            self._previous_epoch_detail = updater.epoch_detail

    def serialize(self, serializer) -> None:
        """Save or load the position seen at the last call (``previous_iteration``,
        ``previous_epoch_detail``); when the snapshot lacks one, warn and guess it."""
        name = type(self).__name__
        try:
            self._previous_iteration = serializer("previous_iteration", self._previous_iteration)
        except KeyError:
            warnings.warn(
                f"{name}: the snapshot has no previous_iteration; it is taken to be the current "
                "iteration minus one, which is wrong if the trigger is not called at every iteration",
                stacklevel=2,
            )
            self._previous_iteration = -1
        try:
            self._previous_epoch_detail = serializer("previous_epoch_detail", self._previous_epoch_detail)
        except KeyError:
            warnings.warn(
                f"{name}: the snapshot has no previous_epoch_detail; the updater's "
                "previous_epoch_detail is used, which is wrong if the trigger is not called at every "
                "iteration",
                stacklevel=2,
            )
            self._previous_epoch_detail = -1.0
