"""The Dirichlet distribution on the simplex, by concentrations ``alpha`` (the last axis)."""

from __future__ import annotations

import attrs

from .. import functions as F
from .. import random
from ..autodiff import unbox_all
from ..errors import ShapeError, message
from ._noise import dtype_and_device
from .constraints import positive, simplex
from .distribution import (
    Parametric,
    check_params,
    register_kl,
    validate_args_field,
    validated,
)

__all__ = ["Dirichlet"]


def _log_beta(alpha):
    """The log of the multivariate beta function of the vectors along the last axis."""
    return F.sum(F.lgamma(alpha), axis=-1) - F.lgamma(F.sum(alpha, axis=-1))


@attrs.frozen
class Dirichlet(Parametric):
    """Dirichlet distributions of concentrations ``alpha``: each vector along the last axis is one
    distribution over points ``x`` of the simplex (``x >= 0``, summing to 1), of density
    ``prod(x**(alpha - 1)) / B(alpha)``. Samples are not differentiable (as Chainer's)."""

    alpha: object
    validate_args: bool = validate_args_field()
    constraints = {"alpha": positive, "x": simplex}

    @property
    def batch_shape(self) -> tuple:
        shape = check_params("Dirichlet", {"alpha": self.alpha})
        if not shape:
            raise ShapeError(
                message(
                    "Dirichlet",
                    "expected alpha with at least one axis (the concentrations of each distribution)",
                    {"alpha": self.alpha},
                    hint="put the concentrations along the last axis: alpha of shape batch_shape + (k,)",
                )
            )
        return shape[:-1]

    @property
    def event_shape(self) -> tuple:
        return tuple(self.alpha.shape[-1:])

    @property
    def support(self) -> str:
        return "[0, 1]"

    @property
    def alpha0(self):
        """The total concentration of each distribution, ``sum(alpha, axis=-1)``."""
        return F.sum(self.alpha, axis=-1)

    @property
    def mean(self):
        return self.alpha / F.expand_dims(self.alpha0, -1)

    @property
    def variance(self):
        alpha0 = F.expand_dims(self.alpha0, -1)
        return self.alpha * (alpha0 - self.alpha) / alpha0**2 / (alpha0 + 1)

    @property
    def entropy(self):
        alpha, alpha0 = self.alpha, self.alpha0
        return (
            _log_beta(alpha)
            + (alpha0 - self.event_shape[0]) * F.digamma(alpha0)
            - F.sum((alpha - 1) * F.digamma(alpha), axis=-1)
        )

    @validated
    def log_prob(self, x):
        """The log-density at ``x`` (points of the simplex along the last axis; as in Chainer,
        ``x`` is not checked to lie on it)."""
        return F.sum((self.alpha - 1) * F.log(x), axis=-1) - _log_beta(self.alpha)

    def sample_n(self, key, n: int):
        dtype, device = dtype_and_device(self.alpha)
        return random.dirichlet(key, unbox_all(self.alpha), (n,), dtype=dtype, device=device)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet):
    centred = F.digamma(p.alpha) - F.expand_dims(F.digamma(p.alpha0), -1)
    return _log_beta(q.alpha) - _log_beta(p.alpha) + F.sum((p.alpha - q.alpha) * centred, axis=-1)
