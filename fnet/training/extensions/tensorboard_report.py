"""``TensorBoardReport``: write the reported scalars to TensorBoard event files (tensorboardX).

Like ``LogReport``, it averages what is reported over an interval (``trigger``, one epoch by
default) and, each time the trigger fires, writes the mean of every reported scalar with the
iteration as its step, through tensorboardX's ``SummaryWriter``: ``main/loss`` and
``validation/main/loss`` become TensorBoard scalars of those names. Run ``tensorboard
--logdir result/tensorboard`` to watch them.

tensorboardX is an optional dependency: ``pip install 'fnet-chainer[tensorboard]'``. It is imported
when the extension is made, so the program fails at once, with that hint, when it is missing.
"""

from __future__ import annotations

import importlib
import os
import uuid
from collections.abc import Iterable
from typing import Any

from .. import reporter as _reporter
from ..extension import Extension
from ..triggers.interval import get_trigger
from . import _util

__all__ = ["TensorBoardReport"]


def _summary_writer_class():
    """tensorboardX's ``SummaryWriter``, or an ImportError that names the extra to install."""
    try:
        return importlib.import_module("tensorboardX").SummaryWriter
    except ImportError as error:
        raise ImportError(
            "TensorBoardReport: tensorboardX is not installed, and it writes the event files\n"
            "  hint: pip install 'fnet-chainer[tensorboard]' (or pip install 'tensorboardX>=2.6')"
        ) from error


class TensorBoardReport(Extension):
    """Accumulate the observations and, each time ``trigger`` fires, write their means to
    TensorBoard (one scalar per reported name, at the step ``iteration``).

    Args:
        keys: the names of the values to write (all reported scalars when None).
        trigger: when to write: a trigger or a ``(period, unit)`` pair.
        logdir: the directory of the event files, under ``trainer.out`` unless absolute.

    The extension runs every iteration (to see every observation). Its state (the trigger and
    the sums pending) is saved in snapshots; a resumed training writes to a new event file in
    the same directory, which TensorBoard reads as the same run.

    Example::

        trainer.extend(TensorBoardReport(trigger=(100, "iteration")))

    (No doctest: tensorboardX is optional; tests/training/extensions/test_tensorboard_report.py
    reads the event files back.)
    """

    def __init__(
        self, keys: Iterable[str] | None = None, trigger: Any = (1, "epoch"), logdir: str = "tensorboard"
    ):
        self._summary_writer_class = _summary_writer_class()
        self._keys = keys
        self._trigger = get_trigger(trigger)
        self._logdir = logdir
        self._summary = _reporter.DictSummary()
        self._writer = None

    def __call__(self, trainer) -> None:
        """Add the current observation; write the means if the trigger fires."""
        _util.accumulate(self._summary, trainer.observation, self._keys)
        if not self._trigger(trainer):
            return
        means = _util.host_means(self._summary, trainer.updater)
        step = means.pop("iteration")
        means.pop("epoch")
        if self._writer is None:  # a file of its own, even when another run opens one in the same second
            self._writer = self._summary_writer_class(
                os.path.join(trainer.out, self._logdir), filename_suffix=f".{uuid.uuid4().hex[:12]}"
            )
        for name, value in means.items():
            self._writer.add_scalar(name, value, global_step=step)
        self._writer.flush()
        self._summary = _reporter.DictSummary()

    def finalize(self) -> None:
        """Close the event file."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def serialize(self, serializer) -> None:
        """Save or load the trigger (``_trigger/``) and the pending sums (``_summary/``)."""
        if hasattr(self._trigger, "serialize"):
            self._trigger.serialize(serializer["_trigger"])
        self._summary.serialize(serializer["_summary"])
