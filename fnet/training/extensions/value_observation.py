"""``observe_value`` and ``observe_lr``: extensions that put a value into each observation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import InvalidInputError, message
from ..extension import PRIORITY_WRITER, make_extension
from ..updaters.functional_updater import FunctionalUpdater

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
    """An extension that records the learning rate of the updater's optimizer named
    ``optimizer_name`` as ``observation_key``, once per epoch by default.

    For a Chainer optimizer it is the optimizer's ``lr``. With a ``FunctionalUpdater`` it is
    the rate that the update of this iteration used, read from the optimizer's hyperparameters
    at its state (``optimizer.hyperparams(opt_state, last_update=True)``, a schedule read at
    that update's count): the ``lr`` hyperparameter, or ``alpha`` for the Adam family (whose
    Chainer ``lr`` is the bias-corrected ``alpha_t``); in a chain, the last member that has one.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.chain(optim.WeightDecay(1e-4), optim.MomentumSGD(lr=optim.schedules.step(0.1, 0.5, 1)))
    >>> params = {"w": numpy.zeros(2)}
    >>> _, state = tx.step({"w": numpy.ones(2)}, tx.init(params), params)
    >>> tx.hyperparams(state, last_update=True)[1]["lr"]  # what observe_lr records (next: 0.05)
    0.1
    """
    return observe_value(observation_key, lambda trainer: _observed_lr(trainer.updater, optimizer_name))


def _observed_lr(updater, optimizer_name: str) -> Any:
    if not isinstance(updater, FunctionalUpdater):
        return updater.get_optimizer(optimizer_name).lr
    if optimizer_name != "main" or updater.optimizer is None:
        problem = (
            f"a FunctionalUpdater has one optimizer, 'main', got optimizer_name={optimizer_name!r}"
            if optimizer_name != "main"
            else "the FunctionalUpdater does not know its step's optimizer"
        )
        raise InvalidInputError(
            message(
                "observe_lr",
                problem,
                hint="make the step with fnet.optim.make_train_step(loss_fn, optimizer), or pass "
                "FunctionalUpdater(..., optimizer=optimizer) with a hand-written step",
            )
        )
    return _learning_rate(updater.optimizer, updater.opt_state)


def _learning_rate(optimizer: Any, state: Any) -> float:
    """The learning rate that the last update of a ``fnet.optim`` ``optimizer`` used, at
    ``state`` (the first update's before any): its ``lr``, or ``alpha`` for the Adam family."""
    values = optimizer.hyperparams(state, last_update=True)
    found = []

    def collect(v):
        if isinstance(v, dict):
            found.append(v)
        elif isinstance(v, tuple):
            for member in v:
                collect(member)

    collect(values)
    for name in ("lr", "alpha"):
        for hyperparams in reversed(found):
            if name in hyperparams:
                return hyperparams[name]
    raise InvalidInputError(
        message(
            "observe_lr",
            f"the optimizer {optimizer!r} has no learning rate (no hyperparameter lr or alpha); "
            f"its hyperparameters are {values!r}",
            hint="record another hyperparameter with observe_value(key, lambda trainer: "
            "trainer.updater.optimizer.hyperparams(trainer.updater.opt_state, last_update=True)[...])",
        )
    )
