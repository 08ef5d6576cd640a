"""The continuous uniform distribution, by its bounds ``low``/``high`` or by ``loc``/``scale``."""

from __future__ import annotations

import math

import attrs
import numpy

from .. import functions as F
from .. import ops
from ..errors import InvalidInputError, message
from ._noise import open_uniform
from .constraints import dependent, greater_than, interval, positive, real
from .distribution import (
    Parametric,
    register_kl,
    validate_args_field,
    validated,
    validated_quantile,
)

__all__ = ["Uniform"]


@attrs.frozen
class Uniform(Parametric):
    """Uniform distributions on ``[low, high]``, given by ``low`` and ``high`` or by
    ``loc = low`` and ``scale = high - low`` (one pair, by keyword). Sampling is
    reparameterized: ``loc + scale * u`` with ``u`` uniform on ``(0, 1)``."""

    _low: object = attrs.field(default=None, kw_only=True)
    _high: object = attrs.field(default=None, kw_only=True)
    _loc: object = attrs.field(default=None, kw_only=True)
    _scale: object = attrs.field(default=None, kw_only=True)
    validate_args: bool = validate_args_field()
    constraints = {
        "low": real,
        "high": dependent(lambda d: greater_than(d._low, "low")),
        "loc": real,
        "scale": positive,
        "x": dependent(lambda d: interval(d.low, d.high, "[low, high]")),
    }

    def __attrs_post_init__(self):
        given = {k: v for k, v in self._given.items() if v is not None}
        if set(given) not in ({"low", "high"}, {"loc", "scale"}):
            raise InvalidInputError(
                message(
                    "Uniform",
                    "expected either low and high or loc and scale (one pair, not both)",
                    given,
                    hint="give Uniform(low=..., high=...) or Uniform(loc=..., scale=...)",
                )
            )
        super().__attrs_post_init__()

    @property
    def _by_bounds(self) -> bool:
        return self._low is not None

    @property
    def low(self):
        return self._low if self._by_bounds else self._loc

    @property
    def high(self):
        return self._high if self._by_bounds else self._loc + self._scale

    @property
    def loc(self):
        return self.low

    @property
    def scale(self):
        return self._high - self._low if self._by_bounds else self._scale

    @property
    def params(self) -> dict:
        """The pair given: ``low`` and ``high``, or ``loc`` and ``scale``."""
        if self._by_bounds:
            return {"low": self.low, "high": self.high}
        return {"loc": self.loc, "scale": self.scale}

    @property
    def support(self) -> str:
        return "[low, high]"

    @property
    def mean(self):
        return (self.low + self.high) / 2

    @property
    def stddev(self):
        return self.scale / math.sqrt(12)

    @property
    def variance(self):
        return self.scale**2 / 12

    @property
    def entropy(self):
        return F.log(self.scale)

    @validated
    def log_prob(self, x):
        """``-log(scale)`` on ``[low, high]``, ``-inf`` elsewhere."""
        inside = ops.logical_and(ops.greater_equal(x, self.low), ops.less_equal(x, self.high))
        logp = ops.broadcast_to(-F.log(self.scale), inside.shape)
        return ops.where(inside, logp, ops.full_like(logp, -numpy.inf))

    @validated
    def cdf(self, x):
        return F.clip((x - self.loc) / self.scale, 0.0, 1.0)

    @validated_quantile
    def icdf(self, x):
        return self.loc + x * self.scale

    def sample_n(self, key, n: int):
        return self.icdf(open_uniform(key, (n, *self.batch_shape), self.low))


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform):
    """``log(q.scale / p.scale)`` where ``p``'s interval lies in ``q``'s, ``inf`` elsewhere."""
    kl = F.log(q.scale / p.scale)
    outside = ops.logical_or(ops.less(p.low, q.low), ops.greater(p.high, q.high))
    return ops.where(outside, ops.full_like(kl, numpy.inf), kl)
