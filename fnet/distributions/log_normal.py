"""The log-normal distribution, by the mean ``mu`` and standard deviation ``sigma`` of its log."""

from __future__ import annotations

import math

import attrs
import numpy

from .. import functions as F
from .. import ops
from ._noise import standard_normal
from .constraints import positive, real
from .distribution import (
    Parametric,
    register_kl,
    validate_args_field,
    validated,
)

__all__ = ["LogNormal"]

_LOG_PROB_C = -0.5 * math.log(2 * math.pi)


@attrs.frozen
class LogNormal(Parametric):
    """Distributions of ``exp(y)`` with ``y`` normal of mean ``mu`` and standard deviation
    ``sigma``. Sampling is reparameterized: ``exp(mu + sigma * eps)``."""

    mu: object
    sigma: object
    validate_args: bool = validate_args_field()
    constraints = {"mu": real, "sigma": positive, "x": positive}

    @property
    def support(self) -> str:
        return "positive"

    @property
    def mean(self):
        return F.exp(self.mu + 0.5 * self.sigma**2)

    @property
    def variance(self):
        return F.exp(2 * self.mu + self.sigma**2) * F.expm1(self.sigma**2)

    @property
    def entropy(self):
        return 0.5 - _LOG_PROB_C + F.log(self.sigma) + self.mu

    @validated
    def log_prob(self, x):
        """The log-density at ``x``; ``-inf`` at ``x <= 0`` (where Chainer's gives NaN)."""
        positive = ops.greater(x, 0)
        log_x = F.log(ops.where(positive, x, ops.ones_like(x)))  # finite, and so its derivative
        logp = _LOG_PROB_C - F.log(self.sigma) - log_x - 0.5 * (log_x - self.mu) ** 2 / self.sigma**2
        return ops.where(positive, logp, ops.full_like(logp, -numpy.inf))

    def sample_n(self, key, n: int):
        eps = standard_normal(key, (n, *self.batch_shape), self.mu)
        return F.exp(self.mu + self.sigma * eps)


@register_kl(LogNormal, LogNormal)
def _kl_log_normal_log_normal(p: LogNormal, q: LogNormal):
    # the KL of the two normal distributions of the logs: exp is one-to-one
    return F.log(q.sigma / p.sigma) + 0.5 * ((p.mu - q.mu) ** 2 + p.sigma**2) / q.sigma**2 - 0.5
