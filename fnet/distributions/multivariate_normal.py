"""The multivariate normal distribution, by location and lower-triangular scale."""

from __future__ import annotations

import math

import attrs

from .. import functions as F
from .. import ops
from ..autodiff import unbox_all
from ..errors import InvalidInputError, ShapeError, message
from ._noise import standard_normal
from .constraints import lower_cholesky, real
from .distribution import (
    Parametric,
    check_params,
    register_kl,
    validate_args_field,
    validated,
)

__all__ = ["MultivariateNormal"]

_ENTROPY_C = 0.5 * math.log(2 * math.pi * math.e)
_LOG_PROB_C = -0.5 * math.log(2 * math.pi)


def _squared_norm_of_solve(scale_tril, b):
    """``|L^-1 b|^2`` summed over the last two axes of ``b`` (``L`` lower-triangular)."""
    return ops.sum(ops.solve_triangular(scale_tril, b) ** 2, axis=(-2, -1))


@attrs.frozen
class MultivariateNormal(Parametric):
    """Multivariate normal distributions of mean ``loc`` (shape ``batch + (d,)``) and covariance
    ``L @ L.T``, where ``L = scale_tril`` (shape ``batch + (d, d)``) is lower-triangular (its upper
    triangle is not read). Sampling is reparameterized: ``loc + L @ eps``."""

    loc: object
    scale_tril: object = None
    validate_args: bool = validate_args_field()
    constraints = {"loc": real, "scale_tril": lower_cholesky, "x": real}

    def __attrs_post_init__(self):
        if self.scale_tril is None:
            raise InvalidInputError(
                message(
                    "MultivariateNormal",
                    "expected scale_tril",
                    {"loc": self.loc},
                    hint="give scale_tril=, the Cholesky factor of the covariance (numpy.linalg.cholesky)",
                )
            )
        super().__attrs_post_init__()

    @property
    def d(self) -> int:
        """The dimension of one event."""
        return self.scale_tril.shape[-1]

    @property
    def batch_shape(self) -> tuple:
        loc, scale_tril = unbox_all(self.loc), unbox_all(self.scale_tril)
        loc_shape, tril_shape = tuple(getattr(loc, "shape", ())), tuple(getattr(scale_tril, "shape", ()))
        if len(tril_shape) < 2 or tril_shape[-1] != tril_shape[-2] or loc_shape[-1:] != tril_shape[-1:]:
            raise ShapeError(
                message(
                    "MultivariateNormal",
                    f"expected loc of shape (..., d) and scale_tril of shape (..., d, d), got {loc_shape} "
                    f"and {tril_shape}",
                    {"loc": loc, "scale_tril": scale_tril},
                    hint="one location vector and one d-by-d lower-triangular matrix per distribution",
                )
            )
        # loc as (..., 1, d) against (..., d, d): the dtypes, and batch shapes that broadcast.
        return check_params("MultivariateNormal", {"loc": loc[..., None, :], "scale_tril": scale_tril})[:-2]

    @property
    def event_shape(self) -> tuple:
        return (self.d,)

    @property
    def support(self) -> str:
        return "real"

    @property
    def mean(self):
        return self.loc

    @property
    def covariance(self):
        scale_tril = ops.tril(self.scale_tril)
        return ops.matmul(scale_tril, ops.swapaxes(scale_tril, -1, -2))

    @property
    def _log_det_scale(self):
        """``log |det L|``: the log of the diagonal's magnitudes, summed."""
        return ops.sum(F.log(ops.absolute(ops.diagonal(self.scale_tril, 0, -2, -1))), axis=-1)

    @property
    def entropy(self):
        return ops.broadcast_to(self._log_det_scale + _ENTROPY_C * self.d, self.batch_shape)

    @validated
    def log_prob(self, x):
        """The log-density at ``x`` (shape ``sample_shape + batch_shape + (d,)``)."""
        mahalanobis = _squared_norm_of_solve(self.scale_tril, ops.expand_dims(x - self.loc, -1))
        return _LOG_PROB_C * self.d - self._log_det_scale - 0.5 * mahalanobis

    def sample_n(self, key, n: int):
        eps = standard_normal(key, (n, *self.batch_shape, self.d, 1), self.loc)
        return self.loc + ops.squeeze(ops.matmul(ops.tril(self.scale_tril), eps), -1)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariate_normal_multivariate_normal(p: MultivariateNormal, q: MultivariateNormal):
    trace = _squared_norm_of_solve(q.scale_tril, ops.tril(p.scale_tril))  # tr(Sq^-1 Sp)
    mahalanobis = _squared_norm_of_solve(q.scale_tril, ops.expand_dims(p.loc - q.loc, -1))
    return q._log_det_scale - p._log_det_scale + 0.5 * (trace + mahalanobis - p.d)
