"""The Bernoulli distribution, by probability ``p`` or log-odds ``logit``."""

from __future__ import annotations

import attrs
import numpy

from .. import functions as F
from .. import ops, random
from ..autodiff import unbox_all
from ..tree import static_field
from ._noise import dtype_and_device
from .constraints import boolean, extended_real, unit_interval
from .distribution import (
    Parametric,
    check_one_of,
    register_kl,
    validate_args_field,
    validated,
)
from .utils import xlogx

__all__ = ["Bernoulli"]


@attrs.frozen
class Bernoulli(Parametric):
    """Bernoulli distributions over ``{0, 1}``, by ``p`` or ``logit = log(p / (1 - p))``; give
    exactly one. With ``binary_check``, a value other than 0 or 1 has probability 0."""

    _p: object = None
    _logit: object = None
    binary_check: bool = static_field(default=False)
    validate_args: bool = validate_args_field()
    constraints = {"p": unit_interval, "logit": extended_real, "x": boolean}

    def __attrs_post_init__(self):
        check_one_of("Bernoulli", "p", self._p, "logit", self._logit)
        super().__attrs_post_init__()

    @property
    def p(self):
        return F.sigmoid(self._logit) if self._p is None else self._p

    @property
    def logit(self):
        if self._logit is not None:
            return self._logit
        with numpy.errstate(divide="ignore"):  # p of 0 or 1: a logit of -inf or inf
            return F.log(self._p) - F.log1p(-self._p)

    @property
    def params(self) -> dict:
        return {"logit": self.logit}

    @property
    def support(self) -> str:
        return "{0, 1}"

    @property
    def mean(self):
        return self.p

    @property
    def variance(self):
        return self.p * (1 - self.p)

    @property
    def stddev(self):
        return self.variance**0.5

    @property
    def entropy(self):
        return -xlogx(self.p) - xlogx(1 - self.p)

    def _invalid(self, x):
        """Where ``x`` is neither 0 nor 1."""
        return ops.logical_and(ops.not_equal(x, 0), ops.not_equal(x, 1))

    @validated
    def log_prob(self, x):
        """The log-probability of ``x``, read in the dtype of the parameters (as Chainer's)."""
        logit = self.logit
        dtype = unbox_all(logit).dtype
        if getattr(unbox_all(x), "dtype", dtype) != dtype:
            x = ops.astype(x, dtype)
        with numpy.errstate(invalid="ignore"):  # an infinite logit: replaced below
            y = logit * (x - 1) - F.softplus(-logit)
        infinite = ops.isinf(logit)  # p of 0 or 1: log(1 - x) or log(x)
        if unbox_all(infinite).any():
            with numpy.errstate(divide="ignore"):
                y = ops.where(ops.logical_and(infinite, ops.greater(logit, 0)), F.log(x), y)
                y = ops.where(ops.logical_and(infinite, ops.less(logit, 0)), F.log(1 - x), y)
        if self.binary_check:
            y = ops.where(self._invalid(x), ops.full_like(y, -numpy.inf), y)
        return y

    @validated
    def prob(self, x):
        p = self.p
        prob = x * p + (1 - x) * (1 - p)
        if self.binary_check:
            prob = ops.where(self._invalid(x), ops.zeros_like(prob), prob)
        return prob

    def sample_n(self, key, n: int):
        """0/1 samples in the dtype of ``p`` (not differentiable)."""
        dtype, device = dtype_and_device(self.p)
        drawn = random.bernoulli(key, unbox_all(self.p), shape=(n, *self.batch_shape), device=device)
        return drawn.astype(dtype)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli):
    return (p.logit - q.logit) * (p.p - 1.0) - F.softplus(-p.logit) + F.softplus(-q.logit)
