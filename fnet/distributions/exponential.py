"""The exponential distribution, by rate ``lam``."""

from __future__ import annotations

import attrs
import numpy

from .. import backend, ops, random
from .. import functions as F
from ._noise import dtype_and_device
from .constraints import nonnegative, positive
from .distribution import (
    Parametric,
    register_kl,
    validate_args_field,
    validated,
    validated_quantile,
)

__all__ = ["Exponential"]


@attrs.frozen
class Exponential(Parametric):
    """Exponential distributions of rate ``lam`` (density ``lam * exp(-lam * x)`` for ``x >= 0``).
    Sampling is reparameterized: ``eps / lam`` with ``eps`` standard exponential."""

    lam: object
    validate_args: bool = validate_args_field()
    constraints = {"lam": positive, "x": nonnegative}

    @property
    def support(self) -> str:
        return "positive"

    @property
    def mean(self):
        return 1 / self.lam

    @property
    def variance(self):
        return self.mean**2

    @property
    def entropy(self):
        return 1 - F.log(self.lam)

    @validated
    def log_prob(self, x):
        """``log(lam) - lam * x`` for ``x >= 0``, ``-inf`` below."""
        logp = F.log(self.lam) - self.lam * x
        return ops.where(ops.greater_equal(x, 0), logp, ops.full_like(logp, -numpy.inf))

    @validated
    def cdf(self, x):
        return -F.expm1(-self.lam * x)

    @validated_quantile
    def icdf(self, x):
        return -F.log1p(-x) / self.lam

    def sample_n(self, key, n: int):
        dtype, device = dtype_and_device(self.lam)
        u = random.uniform(key, (n, *self.batch_shape), dtype=dtype, device=device)
        return -backend.xp(u).log1p(-u) / self.lam  # standard exponential noise, then scaled


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential):
    return F.log(p.lam) - F.log(q.lam) + q.lam / p.lam - 1.0
