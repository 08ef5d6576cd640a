"""Optimizers as pure gradient transformations: Chainer's optimizers, hooks and schedules.

``tx = fnet.optim.Adam()`` is a ``Transform``: ``state = tx.init(params)``, then every step
``params, state = tx.step(grads, state, params)`` (or ``updates, state = tx.update(grads,
state, params)`` and ``apply_updates(params, updates)``). Hooks are transformations chained
before the optimizer; schedules are functions of the step count; ``make_train_step`` ties a
loss function and an optimizer into one pure training step.

>>> import numpy
>>> from fnet import optim
>>> tx = optim.chain(optim.GradientClipping(1.0), optim.Adam(alpha=0.01))
>>> params = {"W": numpy.ones((2, 2), numpy.float32)}
>>> state = tx.init(params)
>>> params, state = tx.step({"W": numpy.full((2, 2), 3.0, numpy.float32)}, state, params)
>>> params["W"].dtype, state[1].t
(dtype('float32'), 1)
"""

from . import hooks, optimizers, schedules, step, transform
from .hooks import *  # noqa: F403
from .optimizers import *  # noqa: F403
from .step import *  # noqa: F403
from .transform import *  # noqa: F403

__all__ = [
    "schedules",
    *transform.__all__,
    *step.__all__,
    *optimizers.__all__,
    *hooks.__all__,
]
