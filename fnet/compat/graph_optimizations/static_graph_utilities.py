"""Chainer's ``static_code``: code of a static chain that runs on every call, not only the first."""

from __future__ import annotations

import functools

from ...recording import active_recorder
from ...recording._record import record_effect

__all__ = ["static_code"]


def static_code(*args, **kwargs):
    """Mark a function (or method) called from a static chain's ``__call__`` to run on every
    call of the chain, not only when its schedule is recorded (decorator, with or without
    Chainer's keyword arguments, which fnet has no use for). Arrays it takes come from the
    recording; arrays it is given in ``outputs=[...]`` it may write into in place."""
    if len(args) == 1 and not kwargs and callable(args[0]):
        return _mark(args[0])
    return _mark


def _mark(func):
    @functools.wraps(func)
    def run_every_call(*args, **kwargs):
        if active_recorder() is None:
            return func(*args, **kwargs)
        return record_effect(func, args, kwargs, written=kwargs.get("outputs", ()))

    return run_every_call
