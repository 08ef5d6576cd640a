"""The normal distribution, by location and scale (or log-scale)."""

from __future__ import annotations

import math

import attrs

from .. import functions as F
from ._noise import standard_normal
from .constraints import positive, real
from .distribution import (
    Parametric,
    check_one_of,
    register_kl,
    validate_args_field,
    validated,
    validated_quantile,
)

__all__ = ["Normal"]

_ENTROPY_C = 0.5 * math.log(2 * math.pi * math.e)
_LOG_PROB_C = -0.5 * math.log(2 * math.pi)
_PROB_C = 1.0 / math.sqrt(2 * math.pi)


@attrs.frozen
class Normal(Parametric):
    """Normal distributions of mean ``loc`` and standard deviation ``scale`` (or
    ``exp(log_scale)``); give exactly one of ``scale`` and ``log_scale``. Sampling is
    reparameterized: ``loc + scale * eps``."""

    loc: object
    _scale: object = None
    _log_scale: object = None
    validate_args: bool = validate_args_field()
    constraints = {"loc": real, "scale": positive, "log_scale": real, "x": real}

    def __attrs_post_init__(self):
        check_one_of("Normal", "scale", self._scale, "log_scale", self._log_scale)
        super().__attrs_post_init__()

    @property
    def scale(self):
        return F.exp(self._log_scale) if self._scale is None else self._scale

    @property
    def log_scale(self):
        return F.log(self._scale) if self._log_scale is None else self._log_scale

    @property
    def params(self) -> dict:
        return {"loc": self.loc, "scale": self.scale}

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
        return self.scale

    @property
    def variance(self):
        return self.scale**2

    @property
    def entropy(self):
        return self.log_scale + _ENTROPY_C

    @validated
    def log_prob(self, x):
        return _LOG_PROB_C - self.log_scale - 0.5 * (x - self.loc) ** 2 / self.variance

    @validated
    def prob(self, x):
        return (_PROB_C / self.scale) * F.exp(-0.5 * (x - self.loc) ** 2 / self.variance)

    @validated
    def cdf(self, x):
        return F.ndtr((x - self.loc) / self.scale)

    @validated
    def log_cdf(self, x):
        return F.log_ndtr((x - self.loc) / self.scale)

    @validated
    def survival_function(self, x):
        return F.ndtr((self.loc - x) / self.scale)

    @validated
    def log_survival_function(self, x):
        return F.log_ndtr((self.loc - x) / self.scale)

    @validated_quantile
    def icdf(self, x):
        return self.loc + self.scale * F.ndtri(x)

    def sample_n(self, key, n: int):
        eps = standard_normal(key, (n, *self.batch_shape), self.loc)
        return self.loc + self.scale * eps


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal):
    return q.log_scale - p.log_scale + 0.5 * (p.variance + (p.loc - q.loc) ** 2) / q.variance - 0.5
