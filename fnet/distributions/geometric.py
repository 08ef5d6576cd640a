"""The geometric distribution over ``{1, 2, ...}``: the number of trials to the first success."""

from __future__ import annotations

import attrs
import numpy

from .. import backend, ops, random
from .. import functions as F
from ..autodiff import unbox_all
from ._noise import dtype_and_device
from .constraints import half_open_unit_interval, positive_integer
from .distribution import (
    Parametric,
    register_kl,
    validate_args_field,
    validated,
)

__all__ = ["Geometric"]


@attrs.frozen
class Geometric(Parametric):
    """Geometric distributions of success probability ``p``: ``P(x = k) = p (1 - p)^(k - 1)`` for
    ``k = 1, 2, ...``."""

    p: object
    validate_args: bool = validate_args_field()
    constraints = {"p": half_open_unit_interval, "x": positive_integer}

    @property
    def support(self) -> str:
        return "positive integer"

    @property
    def mean(self):
        return 1 / self.p

    @property
    def variance(self):
        return (1 - self.p) / self.p**2

    @validated
    def log_prob(self, x):
        """``(x - 1) log(1 - p) + log(p)``, with ``x`` read in the dtype of ``p`` (as Chainer's)."""
        dtype = unbox_all(self.p).dtype
        if getattr(unbox_all(x), "dtype", dtype) != dtype:
            x = ops.astype(x, dtype)
        return (x - 1) * F.log1p(-self.p) + F.log(self.p)

    def sample_n(self, key, n: int):
        """Trial counts in the dtype of ``p`` (not differentiable): ``floor(log(u) / log(1 - p)) + 1``
        for ``u`` uniform on ``(0, 1]``."""
        p = unbox_all(self.p)
        xp = backend.xp(p)
        _, device = dtype_and_device(p)
        u = 1 - random.uniform(key, (n, *self.batch_shape), dtype=numpy.float64, device=device)
        with numpy.errstate(divide="ignore"):  # p of 1: log(1 - p) of -inf, every draw 1
            trials = xp.floor(xp.log(u) / xp.log1p(-xp.asarray(p, dtype=numpy.float64))) + 1
        return trials.astype(getattr(p, "dtype", numpy.float32))


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric):
    return (1 / p.p - 1) * (F.log1p(-p.p) - F.log1p(-q.p)) + F.log(p.p) - F.log(q.p)
