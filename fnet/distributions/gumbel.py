"""The Gumbel distribution (of maxima), by location and scale."""

from __future__ import annotations

import math

import attrs

from .. import functions as F
from ._noise import open_uniform
from .constraints import positive, real
from .distribution import (
    Parametric,
    register_kl,
    validate_args_field,
    validated,
)

__all__ = ["Gumbel"]

EULER = 0.57721566490153286060651209008240243104215933593992  # the Euler-Mascheroni constant


@attrs.frozen
class Gumbel(Parametric):
    """Gumbel distributions of location ``loc`` and scale ``scale`` (density
    ``exp(-y - exp(-y)) / scale`` with ``y = (x - loc) / scale``). Sampling is
    reparameterized: ``loc - scale * log(-log(u))`` with ``u`` uniform."""

    loc: object
    scale: object
    validate_args: bool = validate_args_field()
    constraints = {"loc": real, "scale": positive, "x": real}

    @property
    def support(self) -> str:
        return "real"

    @property
    def mean(self):
        return self.loc + EULER * self.scale

    @property
    def variance(self):
        return (math.pi**2 / 6) * self.scale**2

    @property
    def entropy(self):
        return F.log(self.scale) + (EULER + 1)

    @validated
    def log_prob(self, x):
        y = (x - self.loc) / self.scale
        return -F.log(self.scale) - y - F.exp(-y)

    def sample_n(self, key, n: int):
        u = open_uniform(key, (n, *self.batch_shape), self.loc)
        return self.loc - self.scale * F.log(-F.log(u))


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel):
    ratio = p.scale / q.scale
    shift = (p.loc - q.loc) / q.scale
    return -F.log(ratio) + EULER * (ratio - 1) + F.exp(F.lgamma(ratio + 1) - shift) - 1 + shift
