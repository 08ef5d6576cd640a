"""``EarlyStoppingTrigger``: a stop trigger that ends training when a monitored value stops improving.

>>> class Updater:
...     iteration, epoch, epoch_detail, previous_epoch_detail = 0, 0, 0.0, None
>>> class Trainer:
...     updater, observation = Updater(), {}
>>> trainer = Trainer()
>>> trigger = EarlyStoppingTrigger(check_trigger=(1, "iteration"), patience=2,
...                                max_trigger=(100, "iteration"))
>>> stops = []
>>> for i, loss in enumerate([1.0, 0.5, 0.6, 0.7], 1):
...     trainer.updater.iteration, trainer.observation = i, {"main/loss": loss}
...     stops.append(trigger(trainer))
>>> stops
[False, False, False, True]
"""

from __future__ import annotations

import logging
import operator
import warnings

from ..reporter import DictSummary
from .interval import get_trigger

__all__ = ["EarlyStoppingTrigger"]

logger = logging.getLogger(__name__)

_MODES = ("auto", "max", "min")


class EarlyStoppingTrigger:
    """Stops the training when the mean of ``monitor`` over a check interval (``check_trigger``)
    has not improved on the best mean for ``patience`` checks in a row (3 when None), or when
    ``max_trigger`` fires.

    ``mode`` is ``'max'`` (larger is better), ``'min'``, or ``'auto'``: ``'max'`` when the
    monitored name contains ``'accuracy'``, else ``'min'``. ``verbose`` prints the comparison
    chosen and the epoch of the stop, as messages of the logger ``fnet.training.triggers.
    early_stopping`` at level INFO (DEBUG without ``verbose``): configure logging to see them,
    e.g. ``logging.basicConfig(level=logging.INFO)``. ``patients`` is an old spelling of
    ``patience``.

    Attributes:
        count: checks in a row without improvement.
        best: the best mean seen (starting at -inf or inf).
        patience, monitor, verbose: as given.
    """

    def __init__(
        self,
        check_trigger=(1, "epoch"),
        monitor: str = "main/loss",
        patience: int | None = None,
        mode: str = "auto",
        verbose: bool = False,
        max_trigger=(100, "epoch"),
        *,
        patients: int | None = None,
    ):
        if patients is not None:
            if patience is not None:
                raise TypeError(
                    "EarlyStoppingTrigger: both patience and patients were given; patients is an old "
                    "name of patience\n  hint: pass only patience"
                )
            patience = patients
        if mode not in _MODES:
            raise ValueError(
                f"EarlyStoppingTrigger: mode must be one of {_MODES}, got {mode!r}\n"
                "  hint: 'max' when larger values are better (accuracy), 'min' for losses"
            )
        self.count = 0
        self.patience = 3 if patience is None else patience
        self.monitor = monitor
        self.verbose = verbose
        self.already_warning = False
        self._max_trigger = get_trigger(max_trigger)
        self._interval_trigger = get_trigger(check_trigger)
        self._summary = DictSummary()
        if mode == "auto":
            mode = "max" if "accuracy" in monitor else "min"
        self._compare = operator.gt if mode == "max" else operator.lt
        self.best = float("-inf") if mode == "max" else float("inf")
        self._level = logging.INFO if verbose else logging.DEBUG
        logger.log(self._level, "early stopping: operator is %s", "greater" if mode == "max" else "less")

    def __call__(self, trainer) -> bool:
        """Whether the training should stop now."""
        observation = trainer.observation
        if self.monitor in observation:
            self._summary.add({self.monitor: observation[self.monitor]})
        if self._max_trigger(trainer):
            return True
        if not self._interval_trigger(trainer):
            return False
        if self.monitor not in observation:
            warnings.warn(f"{self.monitor} is not in observation", stacklevel=2)
            return False
        value = self._summary.compute_mean()[self.monitor]
        self._summary = DictSummary()
        if self._compare(value, self.best):
            self.best = value
            self.count = 0
        else:
            self.count += 1
        if self.count >= self.patience:
            logger.log(self._level, "Epoch %s: early stopping", trainer.updater.epoch)
            return True
        return False

    def get_training_length(self) -> tuple:
        """The training length of ``max_trigger`` (e.g. ``(100, 'epoch')``)."""
        return self._max_trigger.get_training_length()

    def serialize(self, serializer) -> None:
        """Save or load ``count``, ``best``, the values accumulated (``summary/``) and both
        triggers (``interval_trigger/``, ``max_trigger/``). A snapshot without them (Chainer
        keeps no early-stopping state) leaves the state as it is, with a warning."""
        try:
            self.count = serializer("count", self.count)
        except KeyError:
            warnings.warn(
                "EarlyStoppingTrigger: the snapshot holds no early-stopping state (Chainer does not save "
                "it); patience and the best value start afresh",
                stacklevel=2,
            )
            return
        self.best = serializer("best", self.best)
        self._summary.serialize(serializer["summary"])
        for name, trigger in (
            ("interval_trigger", self._interval_trigger),
            ("max_trigger", self._max_trigger),
        ):
            if hasattr(trigger, "serialize"):
                trigger.serialize(serializer[name])
