"""The Poisson distribution over the counts ``0, 1, 2, ...``, by mean ``lam``."""

from __future__ import annotations

import attrs

from .. import functions as F
from .. import ops, random
from ..autodiff import unbox_all
from ._noise import dtype_and_device
from .constraints import nonnegative_integer, positive
from .distribution import (
    Parametric,
    register_kl,
    validate_args_field,
    validated,
)

__all__ = ["Poisson"]


@attrs.frozen
class Poisson(Parametric):
    """Poisson distributions of mean ``lam`` (mass ``lam**x * exp(-lam) / x!``). Samples are
    counts in the dtype of ``lam``, not differentiable (as Chainer's)."""

    lam: object
    validate_args: bool = validate_args_field()
    constraints = {"lam": positive, "x": nonnegative_integer}

    @property
    def support(self) -> str:
        return "non negative integer"

    @property
    def mean(self):
        return self.lam

    @property
    def variance(self):
        return self.lam

    @validated
    def log_prob(self, x):
        """The log-probability of the count ``x`` (an integer or float array, read in the dtype of
        ``lam`` as Chainer's; not checked to be a count)."""
        dtype = unbox_all(self.lam).dtype
        if getattr(unbox_all(x), "dtype", dtype) != dtype:
            x = ops.astype(x, dtype)
        return x * F.log(self.lam) - F.lgamma(x + 1) - self.lam

    def sample_n(self, key, n: int):
        dtype, device = dtype_and_device(self.lam)
        return random.poisson(key, unbox_all(self.lam), (n, *self.batch_shape), dtype=dtype, device=device)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson):
    return p.lam * (F.log(p.lam) - F.log(q.lam)) - p.lam + q.lam
