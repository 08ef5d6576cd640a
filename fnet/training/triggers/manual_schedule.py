"""``ManualScheduleTrigger``: fire at given iterations or epochs.

>>> class Updater:
...     iteration, epoch_detail, previous_epoch_detail = 0, 0.0, None
>>> class Trainer:
...     updater = Updater()
>>> trainer, trigger = Trainer(), ManualScheduleTrigger([2, 5], "iteration")
>>> fired = []
>>> for i in range(1, 7):
...     trainer.updater.iteration = i
...     fired.append(trigger(trainer))
>>> fired, trigger.finished
([False, True, False, False, True, False], True)
"""

from __future__ import annotations

import warnings

from ._progress import ProgressTrigger

__all__ = ["ManualScheduleTrigger"]


class ManualScheduleTrigger(ProgressTrigger):
    """Fires when the training reaches one of ``points`` (a number or a list of numbers of
    ``unit``: ``'iteration'`` or ``'epoch'``, fractions allowed for epochs).

    Attributes:
        points: the list of points.
        unit: ``'iteration'`` or ``'epoch'``.
        finished: True once the last point has fired: the trigger will not fire again (the
            trainer then skips the extension's ``initialize`` on a resume).
    """

    def __init__(self, points, unit: str):
        super().__init__(unit)
        self.points = list(points) if isinstance(points, (list, tuple)) else [points]
        if not self.points:
            raise ValueError(
                "ManualScheduleTrigger: points is empty\n  hint: give at least one point, e.g. [10, 20]"
            )
        self.finished = False
        self._finished_unknown = False

    def __call__(self, trainer) -> bool:
        """Whether the last update reached one of the points."""
        updater = trainer.updater
        previous, current = self._progress(updater)
        fire = any(previous < p <= current for p in self.points)
        last = max(self.points)
        if self._finished_unknown:
            self._finished_unknown = False
            self.finished = current >= last
        if fire and current >= last:
            self.finished = True
        self._remember(updater)
        return fire

    def serialize(self, serializer) -> None:
        """Save or load the last position seen and ``finished`` (when a snapshot lacks it, warn
        and decide it at the next call)."""
        super().serialize(serializer)
        try:
            self.finished = serializer("finished", self.finished)
        except KeyError:
            warnings.warn(
                "ManualScheduleTrigger: the snapshot has no 'finished' flag; it is set at the next call "
                "from the position then",
                stacklevel=2,
            )
            self.finished = False
            self._finished_unknown = True
