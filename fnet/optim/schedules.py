"""Hyperparameter schedules: pure functions of the step count, shaped like Chainer's shift extensions.

Each factory returns ``schedule(t) -> value``, where ``schedule(t)`` is the value that Chainer's
``ExponentialShift``, ``LinearShift``, ... extension sets after it has been called ``t`` times
(``schedule(0)``: the value it sets when training starts). Pass a schedule in place of a
constant hyperparameter (``Adam(alpha=schedules.exponential(1e-3, 0.5))``): the optimizer reads
it at the number of updates done, as an extension triggered every iteration would. For a
trigger every ``n`` iterations, use ``lambda t: schedule(t // n)``.

The arguments are Chainer's, without ``attr`` and ``optimizer``; the initial value comes first
and must be given (Chainer reads it from the optimizer when it is ``None``).

>>> from fnet.optim import schedules
>>> s = schedules.exponential(0.1, 0.5, target=0.02)
>>> [s(t) for t in range(4)]
[0.1, 0.05, 0.025, 0.02]

A schedule's repr is the call that made it, so an optimizer's repr shows it:

>>> s
exponential(init=0.1, rate=0.5, target=0.02)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence

from ..errors import InvalidInputError, message

__all__ = ["exponential", "inverse", "linear", "multistep", "polynomial", "step", "warmup"]

_Schedule = Callable[[int], float]


class _Named:
    """A schedule that shows the call that made it as its repr."""

    __slots__ = ("_schedule", "_call")

    def __init__(self, schedule: _Schedule, name: str, **arguments):
        self._schedule = schedule
        self._call = f"{name}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"

    def __call__(self, t: int) -> float:
        return self._schedule(t)

    def __repr__(self) -> str:
        return self._call


def _check(op: str, **values) -> None:
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise InvalidInputError(
                message(op, f"expected {name} to be a number, got {value!r}", hint="pass a float or an int")
            )


def _divide(a: float, b: float) -> float:
    """``a / b`` with IEEE semantics (``±inf``, ``nan``) where Python's floats would raise."""
    if b:
        return a / b
    return math.copysign(math.inf, a) * math.copysign(1.0, b) if a else math.nan


def _past(value: float, target: float | None, ratio_above_one: bool) -> float:
    """Chainer's clamp to ``target``: ``value / target`` beyond 1 on the given side means past it."""
    if target is None:
        return value
    ratio = _divide(value, target)
    return target if (ratio > 1 if ratio_above_one else ratio < 1) else value


def exponential(init: float, rate: float, target: float | None = None) -> _Schedule:
    """``init * rate ** t``, stopped at ``target`` (ExponentialShift).

    >>> [exponential(1.0, 2.0, target=5.0)(t) for t in range(4)]
    [1.0, 2.0, 4.0, 5.0]
    """
    _check("exponential", init=init, rate=rate)
    if rate < 0:
        raise InvalidInputError(
            message("exponential", f"expected rate >= 0, got {rate}", hint="a negative rate flips the sign")
        )

    def schedule(t: int) -> float:
        if t == 0:
            return init
        return _past(init * rate**t, target, rate > 1)

    return _Named(schedule, "exponential", init=init, rate=rate, target=target)


def inverse(init: float, gamma: float, power: float, target: float | None = None) -> _Schedule:
    """``init * (1 + gamma t) ** -power``, stopped at ``target`` (InverseShift).

    >>> [inverse(1.0, 1.0, 1.0)(t) for t in range(4)]
    [1.0, 0.5, 0.3333333333333333, 0.25]
    """
    _check("inverse", init=init, gamma=gamma, power=power)
    if gamma < 0:
        raise InvalidInputError(
            message("inverse", f"expected gamma >= 0, got {gamma}", hint="gamma scales the step count")
        )

    def schedule(t: int) -> float:
        if t == 0:
            return init
        return _past(init * (1 + gamma * t) ** (-power), target, power < 0)

    return _Named(schedule, "inverse", init=init, gamma=gamma, power=power, target=target)


def linear(value_range: Sequence[float], time_range: Sequence[int]) -> _Schedule:
    """Linear from ``value_range[0]`` at step ``time_range[0]`` to ``value_range[1]`` at ``time_range[1]``.

    Constant before and after (LinearShift).

    >>> [linear((1.0, 2.0), (1, 3))(t) for t in range(5)]
    [1.0, 1.0, 1.5, 2.0, 2.0]
    """
    if len(value_range) != 2 or len(time_range) != 2:
        raise InvalidInputError(
            message(
                "linear",
                f"expected value_range and time_range to be pairs, got {value_range!r} and {time_range!r}",
                hint="e.g. linear((0.1, 0.01), (0, 1000))",
            )
        )
    (v1, v2), (t1, t2) = value_range, time_range
    _check("linear", v1=v1, v2=v2, t1=t1, t2=t2)

    def schedule(t: int) -> float:
        if t <= t1:
            return v1
        if t >= t2:
            return v2
        return v1 + (t - t1) / (t2 - t1) * (v2 - v1)

    return _Named(schedule, "linear", value_range=value_range, time_range=time_range)


def multistep(init: float, gamma: float, step_value: Sequence[int]) -> _Schedule:
    """``init * gamma ** k`` after the ``k``-th step value is reached (MultistepShift).

    As in Chainer, at most one step value is passed per call, so equal or early step values
    take effect one step later each.

    >>> [multistep(1.0, 0.5, [2, 4])(t) for t in range(6)]
    [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
    """
    _check("multistep", init=init, gamma=gamma)
    reached = []  # the call at which each step value is passed
    for i, value in enumerate(step_value):
        _check("multistep", **{f"step_value[{i}]": value})
        reached.append(max(reached[-1] + 1 if reached else 1, value))

    def schedule(t: int) -> float:
        return init * pow(gamma, sum(1 for r in reached if r <= t))

    return _Named(schedule, "multistep", init=init, gamma=gamma, step_value=step_value)


def polynomial(init: float, rate: float, max_count: int, target: float | None = None) -> _Schedule:
    """``init * (1 - t / max_count) ** rate``, 0 after ``max_count``, stopped at ``target`` (PolynomialShift).

    >>> [polynomial(1.0, 2.0, 4)(t) for t in range(6)]
    [1.0, 0.5625, 0.25, 0.0625, 0.0, 0.0]
    """
    _check("polynomial", init=init, rate=rate, max_count=max_count)

    def schedule(t: int) -> float:
        if t == 0:
            return init
        value = init * max(1 - t / max_count, 0) ** rate
        if target is None:
            return value
        ratio = _divide(target, value)  # Chainer divides by zero at max_count
        return target if (ratio > 1 if rate > 0 else ratio < 1) else value

    return _Named(schedule, "polynomial", init=init, rate=rate, max_count=max_count, target=target)


def step(init: float, gamma: float, step: int, target: float | None = None) -> _Schedule:
    """``init * gamma ** floor(t / step)``, stopped at ``target`` (StepShift).

    >>> [step(1.0, 0.5, 2)(t) for t in range(5)]
    [1.0, 1.0, 0.5, 0.5, 0.25]
    """
    _check("step", init=init, gamma=gamma, step=step)
    every = step

    def schedule(t: int) -> float:
        if t == 0:
            return init
        return _past(init * gamma ** math.floor(t / every), target, gamma > 1)

    return _Named(schedule, "step", init=init, gamma=gamma, step=every, target=target)


def warmup(init: float, warmup_start: float, warmup_iter: int) -> _Schedule:
    """From ``warmup_start`` to ``init`` linearly over ``warmup_iter`` steps, then constant (WarmupShift).

    >>> [warmup(1.0, 0.0, 4)(t) for t in range(6)]
    [0.0, 0.25, 0.5, 0.75, 1.0, 1.0]
    """
    _check("warmup", init=init, warmup_start=warmup_start, warmup_iter=warmup_iter)

    def schedule(t: int) -> float:
        if t == 0:
            return warmup_start
        t = min(t, warmup_iter)
        return (t * init + (warmup_iter - t) * warmup_start) / warmup_iter

    return _Named(schedule, "warmup", init=init, warmup_start=warmup_start, warmup_iter=warmup_iter)
