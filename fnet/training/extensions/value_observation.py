"""``observe_value`` and ``observe_lr``: extensions that put a value into each observation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..extension import PRIORITY_WRITER, make_extension

__all__ = ["observe_value", "observe_lr"]


def observe_value(observation_key: str, target_func: Callable[[Any], Any]) -> Callable:
    """An extension that records ``target_func(trainer)`` as ``observation_key``, once per epoch
    by default (priority ``PRIORITY_WRITER``, so the other extensions see it).

    >>> class Trainer:
    ...     observation = {}
    >>> trainer = Trainer()
    >>> ext = observe_value("answer", lambda trainer: 42)
    >>> ext(trainer)
    >>> trainer.observation, ext.trigger, ext.priority
    ({'answer': 42}, (1, 'epoch'), 300)
    """

    @make_extension(trigger=(1, "epoch"), priority=PRIORITY_WRITER)
    def observe_value(trainer) -> None:
        trainer.observation[observation_key] = target_func(trainer)

    return observe_value


def observe_lr(optimizer_name: str = "main", observation_key: str = "lr") -> Callable:
    """An extension that records the learning rate (``lr``) of the updater's optimizer named
    ``optimizer_name`` as ``observation_key``, once per epoch by default."""
    return observe_value(observation_key, lambda trainer: trainer.updater.get_optimizer(optimizer_name).lr)
