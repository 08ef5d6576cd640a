"""The chi-square distribution, by degrees of freedom ``k``: the gamma distribution of shape
``k / 2`` and scale 2."""

from __future__ import annotations

import attrs

from .. import ops
from .constraints import nonnegative, positive
from .distribution import Parametric, validate_args_field, validated
from .gamma import Gamma

__all__ = ["Chisquare"]


@attrs.frozen
class Chisquare(Parametric):
    """Chi-square distributions of ``k`` degrees of freedom (density
    ``x**(k/2 - 1) * exp(-x / 2) / (2**(k/2) * gamma(k/2))`` for ``x >= 0``). Every member is
    the one of ``Gamma(k / 2, 2)``; sampling is not differentiable in ``k`` (as Chainer's)."""

    k: object
    validate_args: bool = validate_args_field()
    constraints = {"k": positive, "x": nonnegative}

    @property
    def _gamma(self) -> Gamma:
        return Gamma(0.5 * self.k, ops.full_like(self.k, 2.0))

    @property
    def support(self) -> str:
        return "positive"

    @property
    def mean(self):
        return self._gamma.mean

    @property
    def variance(self):
        return self._gamma.variance

    @property
    def entropy(self):
        return self._gamma.entropy

    @validated
    def log_prob(self, x):
        """The log-density at ``x``; ``-inf`` below 0."""
        return self._gamma.log_prob(x)

    def sample_n(self, key, n: int):
        return self._gamma.sample_n(key, n)
