"""Chainer's function catalogue (``chainer.functions``, imported as ``F``) as pure functions.

They take arrays (NumPy, CuPy, or traced values under ``fnet.grad``) and return arrays, with
Chainer's names, argument order, defaults, shapes and dtypes. Randomness is explicit: noise
functions take a ``key`` from ``fnet.random``. The Chainer layer (``fnet.compat``) wraps them.
"""

from . import activation, array, crf1d, ctc, evaluation, loss, math, noise, sampled_loss
from .activation import *  # noqa: F403
from .array import *  # noqa: F403
from .crf1d import *  # noqa: F403
from .ctc import *  # noqa: F403
from .evaluation import *  # noqa: F403
from .loss import *  # noqa: F403
from .math import *  # noqa: F403
from .noise import *  # noqa: F403
from .sampled_loss import *  # noqa: F403

__all__ = sorted(
    {
        name
        for module in (activation, array, crf1d, ctc, evaluation, loss, math, noise, sampled_loss)
        for name in module.__all__
    }
)
