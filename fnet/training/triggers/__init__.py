"""Triggers: callables ``trigger(trainer) -> bool`` that decide when an extension runs or training stops.

``get_trigger`` turns a ``(period, unit)`` pair into an ``IntervalTrigger`` (and None into a
trigger that never fires). Every trigger here saves its state with ``serialize`` under Chainer's
keys, so a resumed training fires exactly where the uninterrupted one would.
"""

from .early_stopping import EarlyStoppingTrigger
from .interval import IntervalTrigger, get_trigger
from .manual_schedule import ManualScheduleTrigger
from .minmax_value import BestValueTrigger, MaxValueTrigger, MinValueTrigger
from .once_trigger import OnceTrigger
from .time_trigger import TimeTrigger

__all__ = [
    "get_trigger",
    "IntervalTrigger",
    "ManualScheduleTrigger",
    "BestValueTrigger",
    "MaxValueTrigger",
    "MinValueTrigger",
    "EarlyStoppingTrigger",
    "TimeTrigger",
    "OnceTrigger",
]
