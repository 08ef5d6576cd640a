"""Keys for Chainer-style code: drawn from NumPy's global random state.

The pure API takes explicit keys; Chainer code does not pass any, and expects
``numpy.random.seed(n)`` to make its runs repeatable. Each call here draws a fresh key from
NumPy's global generator, so that seeding it repeats the keys.
"""

from __future__ import annotations

import numpy

from .. import random

__all__ = ["next_key", "global_state"]


def next_key():
    """A fresh key from NumPy's global random state."""
    return random.key(int(numpy.random.randint(0, 2**63 - 1, dtype=numpy.int64)))


def global_state():
    """A key that draws from NumPy's global random state itself, with its legacy algorithms,
    as Chainer's samplers do (``numpy.random.standard_normal``...): seeded Chainer code then
    draws the very numbers it drew under Chainer where the sampler makes the same call."""
    return random.from_state(numpy.random)
