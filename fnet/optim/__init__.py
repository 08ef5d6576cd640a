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

from . import schedules
from .hooks import (
    GradientClipping,
    GradientHardClipping,
    GradientLARS,
    GradientNoise,
    GradientNoiseState,
    Lasso,
    WeightDecay,
    exponential_decay_noise,
)
from .optimizers import (
    MSVAG,
    SGD,
    SMORMS3,
    AdaBound,
    AdaDelta,
    AdaGrad,
    Adam,
    AdamW,
    AMSBound,
    AMSGrad,
    CorrectedMomentumSGD,
    MomentumSGD,
    NesterovAG,
    OptimizerState,
    RMSprop,
    RMSpropGraves,
    adabound,
    adadelta,
    adagrad,
    adam,
    adamw,
    amsbound,
    amsgrad,
    corrected_momentum_sgd,
    momentum_sgd,
    msvag,
    nesterov_ag,
    rmsprop,
    rmsprop_graves,
    sgd,
    smorms3,
)
from .step import make_train_step
from .transform import Transform, apply_updates, chain, masked

__all__ = [
    "Transform",
    "chain",
    "masked",
    "apply_updates",
    "make_train_step",
    "schedules",
    "OptimizerState",
    "SGD",
    "MomentumSGD",
    "CorrectedMomentumSGD",
    "NesterovAG",
    "AdaGrad",
    "AdaDelta",
    "Adam",
    "AdamW",
    "AMSGrad",
    "AdaBound",
    "AMSBound",
    "RMSprop",
    "RMSpropGraves",
    "SMORMS3",
    "MSVAG",
    "sgd",
    "momentum_sgd",
    "corrected_momentum_sgd",
    "nesterov_ag",
    "adagrad",
    "adadelta",
    "adam",
    "adamw",
    "amsgrad",
    "adabound",
    "amsbound",
    "rmsprop",
    "rmsprop_graves",
    "smorms3",
    "msvag",
    "WeightDecay",
    "Lasso",
    "GradientClipping",
    "GradientHardClipping",
    "GradientNoise",
    "GradientNoiseState",
    "GradientLARS",
    "exponential_decay_noise",
]
