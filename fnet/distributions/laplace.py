"""The Laplace distribution, by location and scale."""

from __future__ import annotations

import math

import attrs

from .. import functions as F
from .. import ops
from ._noise import open_uniform
from .constraints import positive, real
from .distribution import (
    Parametric,
    register_kl,
    validate_args_field,
    validated,
    validated_quantile,
)

__all__ = ["Laplace", "standard_cdf", "standard_icdf"]


def standard_cdf(z):
    """The cdf of the standard Laplace distribution: ``exp(z) / 2`` below 0 and
    ``1 - exp(-z) / 2`` from 0 on, each branch finite everywhere (its derivative, the density,
    is right at 0 too, and the lower tail keeps its precision)."""
    below = ops.less(z, 0)
    half_tail = 0.5 * F.exp(ops.where(below, z, -z))  # exp(-|z|) / 2
    return ops.where(below, half_tail, 1 - half_tail)


def standard_icdf(q):
    """The inverse of :func:`standard_cdf`: ``log(2q)`` below 1/2, ``-log(2 - 2q)`` from 1/2
    on (no ``1 - 2q`` that would round a tiny ``q`` away)."""
    below = ops.less(q, 0.5)
    log_tail = F.log(ops.where(below, 2 * q, 2 - 2 * q))
    return ops.where(below, log_tail, -log_tail)


@attrs.frozen
class Laplace(Parametric):
    """Laplace distributions of location ``loc`` and scale ``scale`` (density
    ``exp(-|x - loc| / scale) / (2 scale)``). Sampling is reparameterized:
    ``loc + scale * eps`` with ``eps`` standard Laplace."""

    loc: object
    scale: object
    validate_args: bool = validate_args_field()
    constraints = {"loc": real, "scale": positive, "x": real}

    @property
    def support(self) -> str:
        return "real"

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    @property
    def variance(self):
        return 2 * self.scale**2

    @property
    def entropy(self):
        return 1 + F.log(2 * self.scale)

    @validated
    def log_prob(self, x):
        return -F.log(2 * self.scale) - F.absolute(x - self.loc) / self.scale

    @validated
    def prob(self, x):
        return (0.5 / self.scale) * F.exp(-F.absolute(x - self.loc) / self.scale)

    @validated
    def cdf(self, x):
        return standard_cdf((x - self.loc) / self.scale)

    @validated_quantile
    def icdf(self, x):
        return self.loc + self.scale * standard_icdf(x)

    def sample_n(self, key, n: int):
        u = open_uniform(key, (n, *self.batch_shape), self.loc)
        return self.loc + self.scale * standard_icdf(u)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace):
    distance = F.absolute(p.loc - q.loc)
    ratio = p.scale / q.scale
    return -F.log(ratio) + distance / q.scale + ratio * F.exp(-distance / p.scale) - 1
