"""The pure training step: gradients of a loss, one optimizer step, and the step's metrics.

>>> import numpy
>>> import fnet
>>> from fnet import optim
>>> def loss_fn(params, state, batch):
...     x, y = batch
...     loss = fnet.ops.mean((x * params["w"] - y) ** 2)
...     return loss, (state, {})
>>> train_step = optim.make_train_step(loss_fn, optim.SGD(lr=0.1))
>>> params = {"w": numpy.array(0.0)}
>>> opt_state = optim.SGD(lr=0.1).init(params)
>>> batch = (numpy.array([1.0, 2.0]), numpy.array([2.0, 4.0]))
>>> params, state, opt_state, metrics = train_step(params, None, opt_state, batch)
>>> float(params["w"]), float(metrics["loss"])
(1.0, 10.0)

A loss function that declares ``key`` (or ``iteration``) gets it through the step, which then
takes it as a keyword argument: ``FunctionalUpdater(..., key=fnet.random.key(0))`` passes a
fresh key at every iteration, e.g. for dropout:

>>> def noisy_loss_fn(params, state, batch, *, key):
...     x, y = batch
...     x = fnet.functions.dropout(x, 0.5, key=key)
...     return fnet.ops.mean((x * params["w"] - y) ** 2), (state, {})
>>> step = optim.make_train_step(noisy_loss_fn, optim.SGD(lr=0.1))
>>> step
make_train_step(<function noisy_loss_fn>, SGD(lr=0.1))
>>> _ = step(params, None, opt_state, batch, key=fnet.random.key(0))
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ..errors import InvalidInputError, aval, message
from ..transforms import value_and_grad
from .transform import Transform, _check_transform, _describe, step

__all__ = ["make_train_step"]

# The keyword arguments that a step (and its loss function) may declare to receive
_STEP_KEYWORDS = ("key", "iteration")


def _describe_output(out) -> str:
    if isinstance(out, tuple):
        return "(" + ", ".join(_describe_output(x) for x in out) + ")"
    return aval(out) if hasattr(getattr(out, "value", out), "dtype") else type(out).__name__


def _declared_keywords(fn: Callable) -> dict[str, bool]:
    """Which of ``_STEP_KEYWORDS`` ``fn`` declares, each mapped to whether it is required (has no
    default). Read from its signature, once, by whoever is about to call it many times; a
    function with ``**kwargs`` takes them all (none required)."""
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # no signature to read (a builtin): it declares none
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return dict.fromkeys(_STEP_KEYWORDS, False)
    by_keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {
        name: parameters[name].default is inspect.Parameter.empty
        for name in _STEP_KEYWORDS
        if name in parameters and parameters[name].kind in by_keyword
    }


class _TrainStep:
    """The step made by ``make_train_step``: a callable with its ``loss_fn`` and ``optimizer``."""

    __slots__ = ("loss_fn", "optimizer", "keywords", "_value_and_grad")

    def __init__(self, loss_fn: Callable, optimizer: Transform):
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.keywords = _declared_keywords(loss_fn)
        self._value_and_grad = value_and_grad(self._checked_loss_fn, has_aux=True)

    def _checked_loss_fn(self, params, state, batch, **keywords):
        out = self.loss_fn(params, state, batch, **keywords)
        aux = out[1] if isinstance(out, tuple) and len(out) == 2 else None
        if not (isinstance(aux, tuple) and len(aux) == 2 and isinstance(aux[1], dict)):
            raise InvalidInputError(
                message(
                    "make_train_step",
                    "expected loss_fn to return (loss, (new_state, metrics)) with metrics a dict, "
                    f"got {_describe_output(out)}",
                    hint="return e.g. (loss, (state, {})) when there is no state and nothing to report",
                )
            )
        return out

    def __call__(self, params, state, opt_state, batch, **keywords):
        (loss, (new_state, metrics)), grads = self._value_and_grad(params, state, batch, **keywords)
        params, opt_state = step(self.optimizer, grads, opt_state, params)
        return params, new_state, opt_state, {**metrics, "loss": loss}

    @property
    def __signature__(self) -> inspect.Signature:
        """The step's signature: the four trees, then the keywords that ``loss_fn`` declares."""
        positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
        parameters = [inspect.Parameter(n, positional) for n in ("params", "state", "opt_state", "batch")]
        for name, required in self.keywords.items():
            default = inspect.Parameter.empty if required else None
            parameters.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default))
        return inspect.Signature(parameters)

    def __repr__(self) -> str:
        return _describe("make_train_step", self.loss_fn, self.optimizer)


def make_train_step(
    loss_fn: Callable[..., tuple[Any, tuple[Any, dict]]], optimizer: Transform
) -> Callable[..., tuple[Any, Any, Any, dict]]:
    """Build ``step(params, state, opt_state, batch) -> (params, state, opt_state, metrics)``.

    ``loss_fn(params, state, batch)`` must return ``(loss, (new_state, metrics))``: ``loss`` a
    real scalar differentiated with respect to ``params``; ``state`` the non-trainable state
    (batch-norm statistics, RNN states; any pytree, ``None`` when there is none), returned
    updated; ``metrics`` a dict of values to report (``{}`` for none). The step returns the
    new params (``fnet.optim.step(optimizer, ...)``), the new state, the new
    optimizer state, and ``metrics`` with the loss added under ``"loss"``. Nothing is mutated.

    ``loss_fn`` may also declare the keyword arguments ``key`` (a random key, e.g. for dropout)
    and ``iteration`` (the number of updates done before this one): the step then takes them
    as keyword arguments and passes them on, and its signature says so, which is how
    ``FunctionalUpdater`` knows to give them. Which ones ``loss_fn`` declares is read once,
    here. The step has the attributes ``loss_fn`` and ``optimizer``.
    """
    _check_transform("make_train_step", "optimizer", optimizer)
    if not callable(loss_fn):
        raise InvalidInputError(
            message(
                "make_train_step",
                f"expected loss_fn to be a function, got {type(loss_fn).__name__}",
                hint="loss_fn(params, state, batch) -> (loss, (new_state, metrics))",
            )
        )
    return _TrainStep(loss_fn, optimizer)
