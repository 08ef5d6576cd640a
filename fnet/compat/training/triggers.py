"""``chainer.training.triggers``: the triggers of ``fnet.training.triggers``."""

from ...training.triggers import (
    BestValueTrigger,
    EarlyStoppingTrigger,
    IntervalTrigger,
    ManualScheduleTrigger,
    MaxValueTrigger,
    MinValueTrigger,
    OnceTrigger,
    TimeTrigger,
)

__all__ = [
    "IntervalTrigger",
    "ManualScheduleTrigger",
    "BestValueTrigger",
    "MaxValueTrigger",
    "MinValueTrigger",
    "EarlyStoppingTrigger",
    "TimeTrigger",
    "OnceTrigger",
]
