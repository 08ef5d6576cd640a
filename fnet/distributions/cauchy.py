"""The Cauchy distribution, by location and scale."""

from __future__ import annotations

import math
import warnings

import attrs
import numpy

from .. import functions as F
from .. import ops
from ._noise import open_uniform
from .constraints import positive, real
from .distribution import (
    Parametric,
    validate_args_field,
    validated,
    validated_quantile,
)

__all__ = ["Cauchy"]


@attrs.frozen
class Cauchy(Parametric):
    """Cauchy distributions of location ``loc`` and scale ``scale`` (density
    ``scale / (pi ((x - loc)^2 + scale^2))``). The mean and variance are undefined: as in
    Chainer, they are NaN with a ``RuntimeWarning``. Sampling is reparameterized:
    ``loc + scale * tan(pi (u - 1/2))`` with ``u`` uniform."""

    loc: object
    scale: object
    validate_args: bool = validate_args_field()
    constraints = {"loc": real, "scale": positive, "x": real}

    @property
    def support(self) -> str:
        return "real"

    def _undefined_moment(self, member: str):
        warnings.warn(
            f"Cauchy.{member}: the {member} of a Cauchy distribution is undefined (NaN); "
            "use loc (the median) or scale (the half-width at half-maximum) instead",
            RuntimeWarning,
            stacklevel=3,
        )
        return ops.full_like(ops.broadcast_to(self.loc, self.batch_shape), numpy.nan)

    @property
    def mean(self):
        """NaN (undefined), with a ``RuntimeWarning``."""
        return self._undefined_moment("mean")

    @property
    def variance(self):
        """NaN (undefined), with a ``RuntimeWarning``."""
        return self._undefined_moment("variance")

    @property
    def entropy(self):
        return F.log(4 * math.pi * self.scale)

    @validated
    def log_prob(self, x):
        return F.log(self.scale) - F.log((x - self.loc) ** 2 + self.scale**2) - math.log(math.pi)

    @validated
    def cdf(self, x):
        return F.arctan((x - self.loc) / self.scale) / math.pi + 0.5

    @validated_quantile
    def icdf(self, x):
        return self.loc + self.scale * F.tan(math.pi * (x - 0.5))

    def sample_n(self, key, n: int):
        return self.icdf(open_uniform(key, (n, *self.batch_shape), self.loc))
