"""The Pareto distribution, by scale (the least value) and shape ``alpha``."""

from __future__ import annotations

import attrs
import numpy

from .. import functions as F
from .. import ops
from ._noise import open_uniform
from .constraints import dependent, greater_equal, positive
from .distribution import (
    Parametric,
    register_kl,
    validate_args_field,
    validated,
)

__all__ = ["Pareto"]


@attrs.frozen
class Pareto(Parametric):
    """Pareto distributions of scale ``scale`` and shape ``alpha`` (density
    ``alpha scale^alpha / x^(alpha + 1)`` for ``x >= scale``). Sampling is reparameterized in
    both parameters: ``scale * u^(-1/alpha)`` with ``u`` uniform (Chainer's only in ``scale``)."""

    scale: object
    alpha: object
    validate_args: bool = validate_args_field()
    constraints = {
        "scale": positive,
        "alpha": positive,
        "x": dependent(lambda d: greater_equal(d.scale, "scale")),
    }

    @property
    def support(self) -> str:
        return "[scale, inf]"

    def _moment(self, least_alpha: float, formula):
        """``formula(alpha)`` where ``alpha > least_alpha``, ``inf`` elsewhere (the moment
        diverges); the formula sees a safe ``alpha`` there, so its gradient is 0, not NaN."""
        alpha = ops.broadcast_to(self.alpha, self.batch_shape)
        finite = ops.greater(alpha, least_alpha)
        value = formula(ops.where(finite, alpha, ops.full_like(alpha, least_alpha + 1)))
        return ops.where(finite, value, ops.full_like(value, numpy.inf))

    @property
    def mean(self):
        """``alpha scale / (alpha - 1)``; ``inf`` for ``alpha <= 1``."""
        return self._moment(1, lambda a: a * self.scale / (a - 1))

    @property
    def variance(self):
        """``scale^2 alpha / ((alpha - 1)^2 (alpha - 2))``; ``inf`` for ``alpha <= 2``."""
        return self._moment(2, lambda a: self.scale**2 * a / ((a - 1) ** 2 * (a - 2)))

    @property
    def entropy(self):
        return F.log(self.scale / self.alpha) + 1 / self.alpha + 1

    @validated
    def log_prob(self, x):
        """The log-density at ``x``; ``-inf`` below ``scale``."""
        inside = ops.greater_equal(x, self.scale)
        safe_x = ops.where(inside, x, ops.broadcast_to(self.scale, inside.shape))
        logp = F.log(self.alpha) + self.alpha * F.log(self.scale) - (self.alpha + 1) * F.log(safe_x)
        return ops.where(inside, logp, ops.full_like(logp, -numpy.inf))

    def sample_n(self, key, n: int):
        u = open_uniform(key, (n, *self.batch_shape), self.scale)
        return self.scale * F.exp(-F.log(u) / self.alpha)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto):
    """Finite where ``p.scale >= q.scale``; ``inf`` elsewhere (``p`` has mass where ``q`` has none)."""
    kl = q.alpha * F.log(p.scale / q.scale) + F.log(p.alpha / q.alpha) + (q.alpha - p.alpha) / p.alpha
    return ops.where(ops.greater_equal(p.scale, q.scale), kl, ops.full_like(kl, numpy.inf))
