"""Keys for Chainer-style code: drawn from NumPy's global random state.

The pure API takes explicit keys; Chainer code does not pass any, and expects
``numpy.random.seed(n)`` to make its runs repeatable. Each call here draws a fresh key from
NumPy's global generator, so that seeding it repeats the keys.
"""

from __future__ import annotations

import numpy

from .. import random

__all__ = ["next_key"]


def next_key():
    """A fresh key from NumPy's global random state."""
    return random.key(int(numpy.random.randint(0, 2**63 - 1, dtype=numpy.int64)))
