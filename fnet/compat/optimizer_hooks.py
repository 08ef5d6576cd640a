"""Chainer's optimizer hooks (``chainer.optimizer_hooks``): callables that edit gradients before an update.

Each hook keeps Chainer's attributes (``name``, ``timing``, ``call_for_each_param`` and its
constructor arguments, which may be changed between updates) and computes the new gradients
with the matching transformation of ``fnet.optim``; it then gives each parameter its new
``grad``. Registered on an optimizer (``optimizer.add_hook(hook)``), a per-parameter hook runs
once over all the parameters' gradients; called as Chainer calls it, ``hook(rule, param)`` (or
``hook(optimizer)`` for ``GradientClipping``), it edits the gradients it is given.

>>> import numpy
>>> from fnet.compat import Parameter
>>> param = Parameter(numpy.array([1.0, -2.0]))
>>> param.grad = numpy.array([0.5, 0.5])
>>> WeightDecay(0.1)(None, param)
>>> param.grad
array([0.6, 0.3])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import backend, optim, random
from ._random import next_key
from .chainerx._array import raw

__all__ = [
    "WeightDecay",
    "Lasso",
    "GradientClipping",
    "GradientHardClipping",
    "GradientNoise",
    "GradientLARS",
    "exponential_decay_noise",
]


def _with_grads(pairs) -> list:
    """The parameters of ``(rule, param)`` pairs that have both an array and a gradient."""
    return [param for _, param in pairs if param.array is not None and param.grad is not None]


def _edit_grads(transform: optim.Transform, params: list) -> None:
    """Run ``transform`` over the gradients of ``params`` and give each parameter its new grad."""
    if not params:
        return
    grads = [raw(param.grad) for param in params]  # a ChainerX parameter's: the data under it
    arrays = [raw(param.array) for param in params]
    new, _ = transform.update(grads, transform.init(arrays), arrays)
    for param, old, g in zip(params, grads, new):
        if g is old:
            continue
        if param._has_chainerx_array:  # into the memory under its ChainerX gradient, as Chainer's fallback
            old[...] = g
        else:  # Chainer edits the gradient in place: it keeps its dtype (and stays an array)
            param.grad = backend.xp(old).asarray(g, dtype=old.dtype)


class _GradientHook:
    """A hook run on each parameter's gradient: ``hook(rule, param)``, or all at once by an optimizer."""

    name = "GradientHook"
    timing = "pre"
    call_for_each_param = True

    def __call__(self, rule, param) -> None:
        """Edit ``param.grad`` (``rule`` is the parameter's update rule)."""
        self._apply([(rule, param)])

    def _apply(self, pairs) -> None:
        """Edit the gradients of all ``(rule, param)`` pairs, in one pass of the hook's
        transformation (``self._transform()``, built from its current attributes)."""
        _edit_grads(self._transform(), _with_grads(pairs))


class WeightDecay(_GradientHook):
    """L2 regularization: ``grad += rate * param`` (``rate`` scaled by the loss scale, as in Chainer).

    >>> import numpy
    >>> from fnet.compat import Parameter
    >>> param = Parameter(numpy.array([2.0]))
    >>> param.grad = numpy.array([1.0])
    >>> WeightDecay(0.5)(None, param)
    >>> param.grad
    array([2.])
    """

    name = "WeightDecay"

    def __init__(self, rate: float):
        optim.WeightDecay(rate)  # checks the argument now, with the message of fnet.optim
        self.rate = rate

    def _transform(self, loss_scale=None) -> optim.Transform:
        return optim.WeightDecay(self.rate if loss_scale is None else self.rate * loss_scale)

    def _apply(self, pairs) -> None:
        # a parameter whose loss was scaled has a scaled gradient: Chainer scales the decay too
        by_scale: dict = {}
        for param in _with_grads(pairs):
            by_scale.setdefault(getattr(param, "_loss_scale", None), []).append(param)
        for loss_scale, params in by_scale.items():
            _edit_grads(self._transform(loss_scale), params)


class Lasso(_GradientHook):
    """L1 regularization: ``grad += rate * sign(param)``.

    >>> import numpy
    >>> from fnet.compat import Parameter
    >>> param = Parameter(numpy.array([2.0, -3.0]))
    >>> param.grad = numpy.array([1.0, 1.0])
    >>> Lasso(0.5)(None, param)
    >>> param.grad
    array([1.5, 0.5])
    """

    name = "Lasso"

    def __init__(self, rate: float):
        optim.Lasso(rate)
        self.rate = rate

    def _transform(self) -> optim.Transform:
        return optim.Lasso(self.rate)


class GradientHardClipping(_GradientHook):
    """Clip every gradient element to ``[lower_bound, upper_bound]`` (``None``: no bound on that side).

    >>> import numpy
    >>> from fnet.compat import Parameter
    >>> param = Parameter(numpy.zeros(3))
    >>> param.grad = numpy.array([-2.0, 0.1, 2.0])
    >>> GradientHardClipping(-1.0, 1.0)(None, param)
    >>> param.grad
    array([-1. ,  0.1,  1. ])
    """

    name = "GradientHardClipping"

    def __init__(self, lower_bound: float | None, upper_bound: float | None):
        optim.GradientHardClipping(lower_bound, upper_bound)
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def _transform(self) -> optim.Transform:
        return optim.GradientHardClipping(self.lower_bound, self.upper_bound)


class GradientLARS(_GradientHook):
    """Layer-wise adaptive rate scaling: ``grad = (grad + weight_decay * param) * rate`` per parameter.

    ``rate = ‖param‖ / (eps + ‖grad‖ + weight_decay ‖param‖)`` where ``‖param‖ > threshold``,
    else 1.

    >>> import numpy
    >>> from fnet.compat import Parameter
    >>> param = Parameter(numpy.array([3.0, 4.0]))
    >>> param.grad = numpy.array([0.0, 2.0])
    >>> GradientLARS(eps=0.0)(None, param)
    >>> param.grad
    array([0., 5.])
    """

    name = "GradientLARS"

    def __init__(self, threshold: float = 1e-2, weight_decay: float = 0.0, eps: float = 1e-9):
        optim.GradientLARS(threshold, weight_decay, eps)
        self.threshold = threshold
        self.weight_decay = weight_decay
        self.eps = eps

    def _transform(self) -> optim.Transform:
        return optim.GradientLARS(self.threshold, self.weight_decay, self.eps)


class GradientClipping(_GradientHook):
    """Scale all gradients of the optimizer's target together so that their L2 norm is at most ``threshold``.

    Called once per update with the optimizer: ``hook(optimizer)``.
    """

    name = "GradientClipping"
    call_for_each_param = False

    def __init__(self, threshold: float):
        optim.GradientClipping(_scalar(threshold))
        self.threshold = threshold

    def __call__(self, opt) -> None:
        """Clip the gradients of ``opt.target``'s parameters."""
        self._apply([(None, param) for param in opt.target.params(False)])

    def _transform(self) -> optim.Transform:
        return optim.GradientClipping(_scalar(self.threshold))


def _scalar(value):
    """``value`` as a Python float when it is a 0-d array (a norm computed on a GPU is a 0-d
    CuPy array, which Chainer takes as a threshold); anything else as it is."""
    if backend.is_array(value) and value.ndim == 0 and value.dtype.kind in "fiu":
        return float(value)
    return value


def exponential_decay_noise(xp, shape: tuple, dtype: Any, hook: GradientNoise, opt) -> Any:
    """Gaussian noise of variance ``hook.eta / (1 + opt.t) ** 0.55``: GradientNoise's default ``noise_func``.

    ``opt`` is the update rule of the parameter (its ``t`` is the step count). The random key
    comes from NumPy's global random state, so ``numpy.random.seed`` repeats the noise.

    >>> import numpy
    >>> class Rule:
    ...     t = 0
    >>> exponential_decay_noise(numpy, (2, 3), numpy.float32, GradientNoise(0.01), Rule()).shape
    (2, 3)
    """
    noise = optim.exponential_decay_noise(next_key(), shape, dtype, hook.eta, opt.t)
    return xp.asarray(noise)


# GradientNoise's transformation draws no random numbers itself here: noise_func does.
_UNUSED_KEY = random.key(0)


class GradientNoise(_GradientHook):
    """Add noise to every gradient: ``grad += noise_func(xp, grad.shape, grad.dtype, hook, rule)``.

    >>> import numpy
    >>> from fnet.compat import Parameter
    >>> param = Parameter(numpy.zeros(2))
    >>> param.grad = numpy.zeros(2)
    >>> def constant(xp, shape, dtype, hook, opt):
    ...     return xp.full(shape, hook.eta, dtype)
    >>> GradientNoise(0.5, noise_func=constant)(None, param)
    >>> param.grad
    array([0.5, 0.5])
    """

    name = "GradientNoise"

    def __init__(self, eta: float, noise_func: Callable[..., Any] = exponential_decay_noise):
        optim.GradientNoise(eta, noise_func, key=_UNUSED_KEY)
        self.eta = eta
        self.noise_func = noise_func

    def _apply(self, pairs) -> None:
        # noise_func sees each parameter's own update rule: one transformation per parameter
        for rule, param in pairs:
            if param.array is not None and param.grad is not None:
                _edit_grads(self._transform_for(rule, param.device.xp), [param])

    def _transform_for(self, rule, xp) -> optim.Transform:
        def noise(key, shape, dtype, eta, t):  # drawn with the parameter's module (chainerx too)
            return raw(self.noise_func(xp, shape, dtype, self, rule))

        return optim.GradientNoise(self.eta, noise, key=_UNUSED_KEY)
