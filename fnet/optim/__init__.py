"""Optimizers as pure gradient transformations: Chainer's optimizers, hooks and schedules.

``tx = fnet.optim.Adam()`` is a ``Transform``, a pair of functions: ``state = tx.init(params)``,
then every step ``updates, state = tx.update(grads, state, params)`` and ``params =
apply_updates(params, updates)``, which ``step(tx, grads, state, params)`` does in one call
(``step_in_place`` writes into the parameters' arrays instead). Hooks are transformations
chained before the optimizer; schedules are functions of the step count; ``make_train_step``
ties a loss function and an optimizer into one pure training step.

The modules: ``transform`` (the contract, ``step`` and the combinators), ``engine`` (what every
optimizer shares: per-parameter plans, checks, state), ``optimizers`` (one kernel per
optimizer), ``hooks``, ``schedules`` and ``train_step``.

>>> import numpy
>>> from fnet import optim
>>> tx = optim.chain(optim.GradientClipping(1.0), optim.Adam(alpha=0.01))
>>> params = {"W": numpy.ones((2, 2), numpy.float32)}
>>> state = tx.init(params)
>>> params, state = optim.step(tx, {"W": numpy.full((2, 2), 3.0, numpy.float32)}, state, params)
>>> params["W"].dtype, state[1].t
(dtype('float32'), 1)
"""

from . import hooks, optimizers, schedules, train_step, transform
from .hooks import *  # noqa: F403
from .optimizers import *  # noqa: F403
from .train_step import *  # noqa: F403
from .transform import *  # noqa: F403

__all__ = [
    "schedules",
    *transform.__all__,
    *train_step.__all__,
    *optimizers.__all__,
    *hooks.__all__,
]
