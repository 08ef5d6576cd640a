"""Chainer's function catalogue (``chainer.functions``, imported as ``F``) as pure functions.

They take arrays (NumPy, CuPy, or traced values under ``fnet.grad``) and return arrays, with
Chainer's names, argument order, defaults, shapes and dtypes. Randomness is explicit: noise
functions take a ``key`` from ``fnet.random``. The Chainer layer (``fnet.compat``) wraps them.
"""

from . import (
    activation,
    array,
    connection,
    convolution,
    crf1d,
    ctc,
    evaluation,
    loss,
    math,
    noise,
    normalization,
    pooling,
    rnn,
    sampled_loss,
    sparse,
)

# Kept before the star imports, which rebind names such as ``crf1d`` to functions.
_MODULES = (
    activation,
    array,
    connection,
    convolution,
    crf1d,
    ctc,
    evaluation,
    loss,
    math,
    noise,
    normalization,
    pooling,
    rnn,
    sampled_loss,
    sparse,
)

from .activation import *  # noqa: E402, F403
from .array import *  # noqa: E402, F403
from .connection import *  # noqa: E402, F403
from .convolution import *  # noqa: E402, F403
from .crf1d import *  # noqa: E402, F403
from .ctc import *  # noqa: E402, F403
from .evaluation import *  # noqa: E402, F403
from .loss import *  # noqa: E402, F403
from .math import *  # noqa: E402, F403
from .noise import *  # noqa: E402, F403
from .normalization import *  # noqa: E402, F403
from .pooling import *  # noqa: E402, F403
from .rnn import *  # noqa: E402, F403
from .sampled_loss import *  # noqa: E402, F403
from .sparse import *  # noqa: E402, F403

__all__ = sorted({name for module in _MODULES for name in module.__all__})
