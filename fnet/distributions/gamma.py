"""The gamma distribution, by shape ``k`` and scale ``theta``."""

from __future__ import annotations

import attrs
import numpy

from .. import functions as F
from .. import ops, random
from ..autodiff import unbox_all
from ._noise import dtype_and_device
from .constraints import nonnegative, positive
from .distribution import (
    Parametric,
    register_kl,
    validate_args_field,
    validated,
)

__all__ = ["Gamma"]


@attrs.frozen
class Gamma(Parametric):
    """Gamma distributions of shape ``k`` and scale ``theta`` (density
    ``x**(k - 1) * exp(-x / theta) / (gamma(k) * theta**k)`` for ``x >= 0``). A sample is
    ``theta * g`` with ``g`` a standard gamma draw of shape ``k``: differentiable in ``theta``,
    not in ``k`` (as Chainer's)."""

    k: object
    theta: object
    validate_args: bool = validate_args_field()
    constraints = {"k": positive, "theta": positive, "x": nonnegative}

    @property
    def support(self) -> str:
        return "positive"

    @property
    def mean(self):
        return self.k * self.theta

    @property
    def variance(self):
        return self.mean * self.theta

    @property
    def entropy(self):
        return self.k + F.log(self.theta) + F.lgamma(self.k) + (1 - self.k) * F.digamma(self.k)

    @validated
    def log_prob(self, x):
        """The log-density at ``x``; ``-inf`` below 0."""
        with numpy.errstate(invalid="ignore"):  # log of x < 0: replaced below
            logp = (self.k - 1) * F.log(x) - x / self.theta - F.lgamma(self.k) - self.k * F.log(self.theta)
        return ops.where(ops.greater_equal(x, 0), logp, ops.full_like(logp, -numpy.inf))

    def sample_n(self, key, n: int):
        dtype, device = dtype_and_device(self.k)
        g = random.gamma(key, unbox_all(self.k), (n, *self.batch_shape), dtype=dtype, device=device)
        return self.theta * g


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma):
    return (
        (p.k - q.k) * F.digamma(p.k)
        - F.lgamma(p.k)
        + F.lgamma(q.k)
        + q.k * (F.log(q.theta) - F.log(p.theta))
        + p.k * (p.theta / q.theta - 1)
    )
