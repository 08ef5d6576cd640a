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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..autodiff import value_and_grad
from ..errors import InvalidInputError, aval, message
from .transform import Transform, _check_transform

__all__ = ["make_train_step"]


def _describe(out) -> str:
    if isinstance(out, tuple):
        return "(" + ", ".join(_describe(x) for x in out) + ")"
    return aval(out) if hasattr(getattr(out, "value", out), "dtype") else type(out).__name__


def make_train_step(
    loss_fn: Callable[[Any, Any, Any], tuple[Any, tuple[Any, dict]]], optimizer: Transform
) -> Callable[[Any, Any, Any, Any], tuple[Any, Any, Any, dict]]:
    """Build ``step(params, state, opt_state, batch) -> (params, state, opt_state, metrics)``.

    ``loss_fn(params, state, batch)`` must return ``(loss, (new_state, metrics))``: ``loss`` a
    real scalar differentiated with respect to ``params``; ``state`` the non-trainable state
    (batch-norm statistics, RNN states; any pytree, ``None`` when there is none), returned
    updated; ``metrics`` a dict of values to report (``{}`` for none). The step returns the
    new params (``optimizer.step``: one fused pass per parameter), the new state, the new
    optimizer state, and ``metrics`` with the loss added under ``"loss"``. Nothing is mutated.
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

    def checked_loss_fn(params, state, batch):
        out = loss_fn(params, state, batch)
        aux = out[1] if isinstance(out, tuple) and len(out) == 2 else None
        if not (isinstance(aux, tuple) and len(aux) == 2 and isinstance(aux[1], dict)):
            raise InvalidInputError(
                message(
                    "make_train_step",
                    "expected loss_fn to return (loss, (new_state, metrics)) with metrics a dict, "
                    f"got {_describe(out)}",
                    hint="return e.g. (loss, (state, {})) when there is no state and nothing to report",
                )
            )
        return out

    value_and_grad_fn = value_and_grad(checked_loss_fn, has_aux=True)

    def train_step(params, state, opt_state, batch):
        (loss, (new_state, metrics)), grads = value_and_grad_fn(params, state, batch)
        params, opt_state = optimizer.step(grads, opt_state, params)
        return params, new_state, opt_state, {**metrics, "loss": loss}

    return train_step
