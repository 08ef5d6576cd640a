"""``MultiNodeEarlyStoppingTrigger``: early stopping on a value averaged over ranks, so that
every rank stops at the same iteration."""

from __future__ import annotations

from ...training.triggers import EarlyStoppingTrigger
from .observation_aggregator import ObservationAggregator

__all__ = ["MultiNodeEarlyStoppingTrigger"]


class MultiNodeEarlyStoppingTrigger:
    """``EarlyStoppingTrigger`` watching ``monitor + suffix``, the mean over ranks of ``monitor``
    that an ``ObservationAggregator`` computes at every check."""

    def __init__(
        self,
        comm,
        *,
        check_trigger=(1, "epoch"),
        monitor="main/loss",
        patience=None,
        mode="auto",
        verbose=False,
        max_trigger=(100, "epoch"),
        suffix="_aggregated",
        **kwargs,
    ):
        aggregated = monitor + suffix
        self.actual_trigger = EarlyStoppingTrigger(
            check_trigger=check_trigger,
            monitor=aggregated,
            patience=patience,
            mode=mode,
            verbose=verbose,
            max_trigger=max_trigger,
            **kwargs,
        )
        self.aggregator = ObservationAggregator(
            comm, monitor, aggregated_key=aggregated, comm_trigger=check_trigger
        )

    def __call__(self, trainer):
        self.aggregator(trainer)
        return self.actual_trigger(trainer)

    def _stop_condition(self):
        return self.actual_trigger._stop_condition()

    def _init_summary(self):
        return self.actual_trigger._init_summary()

    def get_training_length(self):
        return self.actual_trigger.get_training_length()
