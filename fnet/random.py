"""Explicit, pure randomness: a key is a small array; the same key always gives the same numbers.

Keys are split, never mutated, so a function given a key is a pure function of it.

For Chainer-style code there is one exception: ``from_state(numpy.random)`` is a key that draws
from NumPy's global (legacy) random state and advances it, with NumPy's legacy algorithms, as
``numpy.random.standard_normal`` and the like do; a sampler given it draws what that call draws.

>>> from fnet import random
>>> key = random.key(0)
>>> k1, k2 = random.split(key)
>>> bool((random.normal(k1, (3,)) == random.normal(k1, (3,))).all())
True
"""

from __future__ import annotations

import numpy

from . import backend
from .errors import DTypeError, InvalidInputError, ShapeError, message
from .recording import opaque

__all__ = [
    "key",
    "from_state",
    "split",
    "fold_in",
    "normal",
    "uniform",
    "bernoulli",
    "gamma",
    "beta",
    "dirichlet",
    "poisson",
    "randint",
    "permutation",
    "choice",
]

_KEY_WORDS = 4


def key(seed: int):
    """A key from an integer seed."""
    if isinstance(seed, bool) or not isinstance(seed, (int, numpy.integer)):
        raise DTypeError(f"random.key: seed must be an int, got {type(seed).__name__}")
    if seed < 0:
        raise InvalidInputError(f"random.key: seed must be non-negative, got {seed}")
    return numpy.random.SeedSequence(int(seed)).generate_state(_KEY_WORDS)


class StateKey:
    """A key that draws from a NumPy ``RandomState`` (or the ``numpy.random`` module: its global
    state), advancing it; made by :func:`from_state`. It answers the samplers' draws with the
    state's legacy methods, so the numbers are those of the matching ``numpy.random`` call."""

    __slots__ = ("state",)

    def __init__(self, state):
        self.state = state

    def __repr__(self) -> str:
        return f"random.from_state({self.state!r})"

    def standard_normal(self, size, dtype=numpy.float64):
        return numpy.asarray(self.state.standard_normal(size), dtype)

    def random(self, size):
        return self.state.random_sample(size)

    def uniform(self, low, high, size):
        return self.state.uniform(low, high, size)

    def integers(self, low, high, size, dtype=numpy.int64):
        return self.state.randint(low, high, size, dtype=dtype)

    def permutation(self, x):
        return self.state.permutation(x)

    def choice(self, a, size, replace=True, p=None):
        return self.state.choice(a, size, replace, p)

    def standard_gamma(self, a, size):
        return self.state.standard_gamma(a, size)

    def beta(self, a, b, size):
        return self.state.beta(a, b, size)

    def dirichlet(self, alpha, size):
        return self.state.dirichlet(alpha, size)

    def poisson(self, lam, size):
        return self.state.poisson(lam, size)


def from_state(state=numpy.random) -> StateKey:
    """A key for Chainer-style code: it draws from ``state`` (a ``numpy.random.RandomState``, or
    the ``numpy.random`` module for the global state that ``numpy.random.seed`` seeds) and
    advances it, so it is not pure; ``split`` and ``fold_in`` give it back (later draws differ
    because the state has moved on)."""
    return StateKey(state)


def _check(k, op: str):
    k = numpy.asarray(backend.to_cpu(k))
    if k.shape != (_KEY_WORDS,) or k.dtype != numpy.uint32:
        raise DTypeError(
            f"random.{op}: expected a key (uint32[{_KEY_WORDS}]) from random.key or random.split, "
            f"got {k.dtype}[{', '.join(map(str, k.shape))}]"
        )
    return k


@opaque
def split(k, num: int = 2):
    """``num`` new independent keys from ``k`` (``k`` itself should not be used again)."""
    if type(k) is StateKey:
        return [k] * num
    words = [int(w) for w in _check(k, "split")]
    return [numpy.random.SeedSequence(words + [i]).generate_state(_KEY_WORDS) for i in range(num)]


_FOLD_IN_TAG = 0x666F6C64  # a different entropy length, so fold_in(k, i) never equals split(k)[i]


@opaque
def fold_in(k, data: int):
    """A new key from ``k`` and an integer (e.g. a step number)."""
    if type(k) is StateKey:
        return k
    k = _check(k, "fold_in")
    if int(data) < 0:
        raise InvalidInputError(f"random.fold_in: data must be a non-negative int, got {data}")
    entropy = [int(w) for w in k] + [int(data), _FOLD_IN_TAG]
    return numpy.random.SeedSequence(entropy).generate_state(_KEY_WORDS)


def _generator(k, op: str) -> numpy.random.Generator | StateKey:
    if type(k) is StateKey:
        return k
    return numpy.random.Generator(
        numpy.random.PCG64(numpy.random.SeedSequence([int(w) for w in _check(k, op)]))
    )


def _shape(shape) -> tuple:
    return (shape,) if isinstance(shape, int) else tuple(shape)


def _on(device, array):
    """A sample as an array (NumPy gives scalars for the shape ``()``) on ``device``."""
    array = numpy.asarray(array)
    return array if device is None else backend.get_device(device).send(array)


@opaque
def normal(k, shape=(), dtype=numpy.float32, mean=0.0, stddev=1.0, device=None):
    """Normally distributed samples."""
    dtype = numpy.dtype(dtype)
    sample = _generator(k, "normal").standard_normal(_shape(shape), dtype=numpy.float64)
    return _on(device, (sample * stddev + mean).astype(dtype))


@opaque
def uniform(k, shape=(), dtype=numpy.float32, low=0.0, high=1.0, device=None):
    """Samples uniform on ``[low, high)``."""
    dtype = numpy.dtype(dtype)
    sample = _generator(k, "uniform").uniform(low, high, _shape(shape)).astype(dtype)
    if dtype.kind == "f":  # rounding to a narrower dtype can reach ``high``: keep [low, high)
        top = numpy.nextafter(numpy.asarray(high, dtype), numpy.asarray(low, dtype))
        sample = numpy.minimum(sample, top).astype(dtype, copy=False)
    return _on(device, sample)


@opaque
def bernoulli(k, p=0.5, shape=None, device=None):
    """Boolean samples that are True with probability ``p`` (broadcast to ``shape``)."""
    p = numpy.asarray(backend.to_cpu(p))
    shape = p.shape if shape is None else _shape(shape)
    return _on(device, _generator(k, "bernoulli").random(shape) < p)


def _host(*params):
    """Parameters read on the host (NumPy), from wherever they are."""
    return [numpy.asarray(backend.to_cpu(p)) for p in params]


def _size(shape, *params) -> tuple:
    """``shape``, or where it is ``None`` the broadcast shape of the parameters."""
    return numpy.broadcast_shapes(*(p.shape for p in params)) if shape is None else _shape(shape)


@opaque
def gamma(k, a, shape=None, dtype=numpy.float32, device=None):
    """Gamma-distributed samples of shape ``a`` (and scale 1), ``a`` broadcast to ``shape``. Not
    reparameterized: the draw is not a differentiable function of ``a``."""
    (a,) = _host(a)
    sample = _generator(k, "gamma").standard_gamma(a, _size(shape, a))
    return _on(device, sample.astype(dtype))


@opaque
def beta(k, a, b, shape=None, dtype=numpy.float32, device=None):
    """Beta-distributed samples on ``[0, 1]`` of parameters ``a`` and ``b`` (broadcast to
    ``shape``). Not reparameterized."""
    a, b = _host(a, b)
    sample = _generator(k, "beta").beta(a, b, _size(shape, a, b))
    return _on(device, sample.astype(dtype))


@opaque
def dirichlet(k, alpha, shape=(), dtype=numpy.float32, device=None):
    """Dirichlet-distributed samples of shape ``shape + alpha.shape``: for each vector of
    concentrations along the last axis of ``alpha``, points on the simplex (summing to 1 along the
    last axis). Not reparameterized."""
    (alpha,) = _host(alpha)
    gen, size = _generator(k, "dirichlet"), _shape(shape)
    if alpha.ndim == 0:
        raise ShapeError(
            message(
                "random.dirichlet",
                "expected alpha with at least one axis (the concentrations), got a 0-d array",
                {"alpha": alpha},
                hint="give the concentrations of each distribution along the last axis",
            )
        )
    rows = alpha.reshape(-1, alpha.shape[-1])
    drawn = numpy.stack([gen.dirichlet(row, size) for row in rows], axis=len(size))  # per vector
    return _on(device, drawn.reshape(size + alpha.shape).astype(dtype))


@opaque
def poisson(k, lam, shape=None, dtype=numpy.int64, device=None):
    """Poisson-distributed counts of mean ``lam`` (broadcast to ``shape``), in ``dtype``."""
    (lam,) = _host(lam)
    return _on(device, _generator(k, "poisson").poisson(lam, _size(shape, lam)).astype(dtype))


@opaque
def randint(k, shape, low: int, high: int, dtype=numpy.int64, device=None):
    """Integers uniform on ``[low, high)``."""
    return _on(device, _generator(k, "randint").integers(low, high, _shape(shape), dtype=dtype))


@opaque
def permutation(k, x, device=None):
    """A permutation of ``range(x)`` for an int ``x``, or of ``x`` along its first axis."""
    gen = _generator(k, "permutation")
    if isinstance(x, (int, numpy.integer)):
        return _on(device, gen.permutation(int(x)))
    return x[backend.xp(x).asarray(gen.permutation(len(x)))]


@opaque
def choice(k, a, shape=(), replace: bool = True, p=None, device=None):
    """Samples from ``range(a)`` (an int) or from the elements of 1-D ``a``, optionally weighted."""
    gen = _generator(k, "choice")
    p = None if p is None else backend.to_cpu(p)
    if isinstance(a, (int, numpy.integer)):
        return _on(device, gen.choice(int(a), _shape(shape), replace=replace, p=p))
    index = gen.choice(len(a), _shape(shape), replace=replace, p=p)
    return a[backend.xp(a).asarray(index)]
