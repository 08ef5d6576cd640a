"""The beta distribution on ``[0, 1]``, by ``a`` and ``b``."""

from __future__ import annotations

import attrs
import numpy

from .. import functions as F
from .. import ops, random
from ..autodiff import unbox_all
from ._noise import dtype_and_device
from .constraints import positive, unit_interval
from .distribution import (
    Parametric,
    register_kl,
    validate_args_field,
    validated,
)

__all__ = ["Beta"]


@attrs.frozen
class Beta(Parametric):
    """Beta distributions of parameters ``a`` and ``b`` (density
    ``x**(a - 1) * (1 - x)**(b - 1) / B(a, b)`` on ``[0, 1]``). Samples are not differentiable
    (as Chainer's)."""

    a: object
    b: object
    validate_args: bool = validate_args_field()
    constraints = {"a": positive, "b": positive, "x": unit_interval}

    @property
    def support(self) -> str:
        return "[0, 1]"

    @property
    def mean(self):
        return self.a / (self.a + self.b)

    @property
    def variance(self):
        total = self.a + self.b
        return self.a * self.b / total**2 / (total + 1)

    @property
    def entropy(self):
        a, b = self.a, self.b
        return (
            F.betaln(a, b) - (a - 1) * F.digamma(a) - (b - 1) * F.digamma(b) + (a + b - 2) * F.digamma(a + b)
        )

    @validated
    def log_prob(self, x):
        """The log-density at ``x``; ``-inf`` outside ``[0, 1]``."""
        with numpy.errstate(invalid="ignore", divide="ignore"):  # x outside [0, 1]: replaced below
            logp = (self.a - 1) * F.log(x) + (self.b - 1) * F.log1p(-x) - F.betaln(self.a, self.b)
        inside = ops.logical_and(ops.greater_equal(x, 0), ops.less_equal(x, 1))
        return ops.where(inside, logp, ops.full_like(logp, -numpy.inf))

    def sample_n(self, key, n: int):
        dtype, device = dtype_and_device(self.a)
        a, b = unbox_all(self.a), unbox_all(self.b)
        return random.beta(key, a, b, (n, *self.batch_shape), dtype=dtype, device=device)


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta):
    p_total, q_total = p.a + p.b, q.a + q.b
    return (
        F.betaln(q.a, q.b)
        - F.betaln(p.a, p.b)
        + (p.a - q.a) * F.digamma(p.a)
        + (p.b - q.b) * F.digamma(p.b)
        + (q_total - p_total) * F.digamma(p_total)
    )
