"""``chainer.training.trigger``: the old home of ``IntervalTrigger`` and ``get_trigger``."""

from ...training.triggers import IntervalTrigger, get_trigger

__all__ = ["IntervalTrigger", "get_trigger"]
