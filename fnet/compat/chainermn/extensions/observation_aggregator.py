"""``ObservationAggregator``: one observation summarized over every rank's recent values."""

from __future__ import annotations

import numpy

from ...training import extension, util
from ...variable import Variable

__all__ = ["ObservationAggregator"]


def _average_2d(histories):
    """The mean of every value in a list (one per rank) of lists of values."""
    values = [v for history in histories for v in history]
    return sum(values) / len(values)


def _plain(value):
    value = value.array if isinstance(value, Variable) else value
    return numpy.asarray(value) if hasattr(value, "dtype") else value


class ObservationAggregator(extension.Extension):
    """Replace (or add, under ``aggregated_key``) the observation ``original_key`` with a summary
    of the values every rank observed since the last communication, which happens when
    ``comm_trigger`` fires. ``aggregator`` takes the list (one per rank) of lists of values;
    by default, their mean."""

    trigger = 1, "iteration"
    priority = extension.PRIORITY_EDITOR
    name = None

    def __init__(
        self, comm, original_key, aggregated_key=None, *, comm_trigger=(1, "iteration"), aggregator=None
    ):
        self.comm = comm
        self.original_key = original_key
        self.aggregated_key = original_key if aggregated_key is None else aggregated_key
        self.comm_trigger = util.get_trigger(comm_trigger)
        self.observation_history = []
        self.aggregator = aggregator or _average_2d

    def compute_summary(self, trainer):
        """The summary over ranks when the communication trigger fires; None otherwise."""
        if self.original_key in trainer.observation:
            self.observation_history.append(_plain(trainer.observation[self.original_key]))
        if not self.comm_trigger(trainer):
            return None
        histories = self.comm.gather_obj(self.observation_history)
        self.observation_history = []
        summary = self.aggregator(histories) if self.comm.rank == 0 else None
        return self.comm.bcast_obj(summary)

    def __call__(self, trainer):
        summary = self.compute_summary(trainer)
        if summary is not None:
            trainer.observation[self.aggregated_key] = summary
