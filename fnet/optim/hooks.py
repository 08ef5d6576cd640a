"""Chainer's optimizer hooks as gradient transformations, to be placed before an optimizer.

Chainer calls an optimizer's hooks in registration order on the gradients of all parameters,
before the step count is incremented and before any update rule runs (every built-in hook has
``timing = 'pre'``); a hook added to one parameter's update rule runs after the optimizer's
hooks. In fnet the same order is a ``chain``::

    chain(WeightDecay(1e-4), GradientClipping(5.0), MomentumSGD(lr=0.1))

and a per-parameter hook is ``masked(hook, mask)``. Chainer's ``'post'`` timing runs a hook on
the gradients after the update, where it cannot change that step; a transformation placed after
an optimizer in a chain acts on the optimizer's updates instead.

>>> import numpy
>>> from fnet import optim
>>> tx = optim.GradientClipping(1.0)
>>> tx.update({"a": numpy.array([3.0]), "b": numpy.array([4.0])}, tx.init(None), None)[0]
{'a': array([0.6]), 'b': array([0.8])}
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import attrs
import numpy

from .. import backend, random, tree
from ..errors import InvalidInputError, aval, message
from .transform import Transform, _constant, _describe, _flatten_pair

__all__ = [
    "WeightDecay",
    "Lasso",
    "GradientClipping",
    "GradientHardClipping",
    "GradientNoise",
    "GradientNoiseState",
    "GradientLARS",
    "exponential_decay_noise",
]


def _check_number(op: str, name: str, value, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidInputError(
            message(op, f"expected {name} to be a number, got {value!r}", hint=f"e.g. {op}({name}=0.01)")
        )


def _no_state(params) -> None:
    return None


def _with_params(op: str, f: Callable[[Any, Any], Any], hyperparams: dict) -> Transform:
    """A stateless hook computing each new gradient from ``(grad, param)``; ``hyperparams`` are
    its arguments, by name (for its repr and ``hyperparams``)."""

    def update(grads, state, params=None):
        if params is None:
            raise InvalidInputError(
                message(f"{op}.update", "expected params, got None", hint=f"{op} reads the parameters")
            )
        p_leaves, structure = _flatten_pair(f"{op}.update", grads, params)
        return tree.unflatten(structure, [f(g, p) for g, p in zip(tree.leaves(grads), p_leaves)]), None

    return Transform(
        _no_state, update, description=_describe(op, **hyperparams), values=_constant(hyperparams)
    )


def WeightDecay(rate: float) -> Transform:
    """L2 regularization: ``g += rate * p``.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.WeightDecay(0.1)
    >>> tx.update({"w": numpy.array([1.0])}, None, {"w": numpy.array([2.0])})[0]
    {'w': array([1.2])}
    """
    _check_number("WeightDecay", "rate", rate)
    return _with_params("WeightDecay", lambda g, p: g + rate * p, {"rate": rate})


def Lasso(rate: float) -> Transform:
    """L1 regularization: ``g += rate * sign(p)``.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.Lasso(0.1)
    >>> tx.update({"w": numpy.array([1.0, 1.0])}, None, {"w": numpy.array([2.0, -3.0])})[0]
    {'w': array([1.1, 0.9])}
    """
    _check_number("Lasso", "rate", rate)
    return _with_params("Lasso", lambda g, p: g + rate * backend.xp(p).sign(p), {"rate": rate})


def GradientLARS(threshold: float = 1e-2, weight_decay: float = 0.0, eps: float = 1e-9) -> Transform:
    """Layer-wise adaptive rate scaling: ``g = (g + weight_decay p) * rate`` for each parameter.

    ``rate = ‖p‖ / (eps + ‖g‖ + weight_decay ‖p‖)`` where ``‖p‖ > threshold``, else 1 (norms
    of the whole parameter array; ``‖g‖`` of the incoming gradient).

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.GradientLARS(eps=0.0)
    >>> tx.update({"w": numpy.array([0.0, 2.0])}, None, {"w": numpy.array([3.0, 4.0])})[0]
    {'w': array([0., 5.])}
    """
    for name, value in (("threshold", threshold), ("weight_decay", weight_decay), ("eps", eps)):
        _check_number("GradientLARS", name, value)

    def lars(g, p):
        xp = backend.xp(p)
        p_norm, g_norm = float(xp.linalg.norm(p)), float(xp.linalg.norm(g))
        rate = p_norm / (eps + g_norm + weight_decay * p_norm) if p_norm > threshold else 1.0
        out = g + weight_decay * p if weight_decay != 0 else g.copy()
        out *= rate
        return out

    return _with_params(
        "GradientLARS", lars, {"threshold": threshold, "weight_decay": weight_decay, "eps": eps}
    )


def GradientHardClipping(lower_bound: float | None, upper_bound: float | None) -> Transform:
    """Clip every gradient element to ``[lower_bound, upper_bound]`` (``None``: no bound on that side).

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.GradientHardClipping(-1.0, 0.5)
    >>> tx.update({"w": numpy.array([-3.0, 0.2, 2.0])}, None, None)[0]
    {'w': array([-1. ,  0.2,  0.5])}
    """
    _check_number("GradientHardClipping", "lower_bound", lower_bound, allow_none=True)
    _check_number("GradientHardClipping", "upper_bound", upper_bound, allow_none=True)

    def update(grads, state, params=None):
        return tree.map(lambda g: backend.xp(g).clip(g, lower_bound, upper_bound), grads), None

    bounds = {"lower_bound": lower_bound, "upper_bound": upper_bound}
    return Transform(
        _no_state,
        update,
        description=f"GradientHardClipping(lower_bound={lower_bound!r}, upper_bound={upper_bound!r})",
        values=_constant(bounds),
    )


def GradientClipping(threshold: float) -> Transform:
    """Scale all gradients together so that their global L2 norm is at most ``threshold``.

    The norm is taken over every leaf of the gradient tree (Chainer: every parameter of the
    target link, enabled or not); below the threshold the gradients pass through unchanged.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.GradientClipping(10.0)
    >>> tx.update({"w": numpy.array([3.0, 4.0])}, None, None)[0]
    {'w': array([3., 4.])}
    """
    _check_number("GradientClipping", "threshold", threshold)

    def update(grads, state, params=None):
        leaves, structure = tree.flatten(grads)
        sqnorm = sum(float(backend.xp(g).vdot(g, g)) for g in leaves)
        norm = math.sqrt(sqnorm)
        rate = threshold / norm if norm else math.inf
        if rate >= 1:
            return grads, None
        return tree.unflatten(structure, [g * rate for g in leaves]), None

    return Transform(
        _no_state,
        update,
        description=_describe("GradientClipping", threshold=threshold),
        values=_constant({"threshold": threshold}),
    )


def exponential_decay_noise(key: Any, shape: tuple, dtype: Any, eta: float, t: int) -> Any:
    """Gaussian noise of variance ``eta / (1 + t) ** 0.55`` (Neelakantan et al.), GradientNoise's default.

    >>> from fnet import random
    >>> exponential_decay_noise(random.key(0), (2,), "float32", 0.01, 0).shape
    (2,)
    """
    std = math.sqrt(eta / math.pow(1 + t, 0.55))
    return random.normal(key, shape, dtype, stddev=std)


@attrs.frozen
class GradientNoiseState:
    """GradientNoise's state: ``t`` updates done and the key of the next step's noise.

    >>> from fnet import optim, random
    >>> optim.GradientNoise(0.01, key=random.key(0)).init(None)
    GradientNoiseState(t=0, key=uint32[4])
    """

    t: int
    key: Any = attrs.field(repr=aval)


def GradientNoise(
    eta: float,
    noise_func: Callable[..., Any] = exponential_decay_noise,
    *,
    key: Any = None,
) -> Transform:
    """Add noise to every gradient: ``g += noise_func(key, g.shape, g.dtype, eta, t)``.

    ``t`` is the number of updates done before this one (Chainer's ``update_rule.t`` when its
    optimizer-level hooks run). The random key is explicit: ``key`` (from
    ``fnet.random.key(seed)``) seeds the state, which splits it at every step, so the same
    key gives the same noise. ``noise_func`` gets its own key for each parameter.

    >>> import numpy
    >>> from fnet import optim, random
    >>> tx = optim.GradientNoise(0.01, key=random.key(0))
    >>> grads = {"w": numpy.zeros(3)}
    >>> noisy, state = tx.update(grads, tx.init(grads), None)
    >>> state.t, noisy["w"].shape
    (1, (3,))
    """
    _check_number("GradientNoise", "eta", eta)
    if not callable(noise_func):
        raise InvalidInputError(
            message(
                "GradientNoise",
                f"expected noise_func to be a function, got {type(noise_func).__name__}",
                hint="noise_func(key, shape, dtype, eta, t) -> array, e.g. optim.exponential_decay_noise",
            )
        )
    example = random.key(0)
    given = None if key is None else numpy.asarray(backend.to_cpu(key))
    if given is None or given.shape != example.shape or given.dtype != example.dtype:
        raise InvalidInputError(
            message(
                "GradientNoise",
                f"expected key to be a random key, got {key!r}",
                hint="pass key=fnet.random.key(seed): the noise is a pure function of it",
            )
        )

    def init(params) -> GradientNoiseState:
        return GradientNoiseState(0, key)

    def update(grads, state, params=None):
        if not isinstance(state, GradientNoiseState):
            raise InvalidInputError(
                message(
                    "GradientNoise.update",
                    f"expected a GradientNoiseState, got {type(state).__name__}",
                    hint="pass the state that this hook's init (or its last update) returned",
                )
            )
        leaves, structure = tree.flatten(grads)
        next_key, *keys = random.split(state.key, len(leaves) + 1)
        noisy = []
        for k, g in zip(keys, leaves):
            noise = noise_func(k, g.shape, g.dtype, eta, state.t)
            noisy.append(g + backend.get_device_from_array(g).send(noise))
        return tree.unflatten(structure, noisy), GradientNoiseState(state.t + 1, next_key)

    shown_noise = None if noise_func is exponential_decay_noise else noise_func
    return Transform(
        init,
        update,
        description=_describe("GradientNoise", eta=eta, noise_func=shown_noise),
        values=_constant({"eta": eta}),
    )
