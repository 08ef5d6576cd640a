"""``Independent``: the rightmost batch axes of a distribution read as event axes."""

from __future__ import annotations

import math

import attrs

from .. import backend, ops
from ..autodiff import unbox_all
from ..errors import InvalidInputError, NotDefinedError, message
from ..tree import static_field
from .constraints import dependent
from .distribution import (
    Distribution,
    check_parameters,
    kl_divergence,
    register_kl,
    validate_args_field,
    validated,
)

__all__ = ["Independent"]


@attrs.frozen
class Independent(Distribution):
    """The distribution of ``distribution``'s last ``reinterpreted_batch_ndims`` batch axes taken
    as one event of independent parts: densities multiply (log-densities and entropies add) over
    those axes. By default every batch axis but the first is reinterpreted."""

    distribution: Distribution
    _ndims: int | None = static_field(default=None, alias="reinterpreted_batch_ndims")
    validate_args: bool = validate_args_field()
    constraints = {"x": dependent(lambda d: d.distribution.constraints["x"].bind(d.distribution))}

    def __attrs_post_init__(self):
        batch_ndim = len(self.distribution.batch_shape)
        if self._ndims is not None and not 0 <= self._ndims <= batch_ndim:
            raise InvalidInputError(
                message(
                    "Independent",
                    f"expected reinterpreted_batch_ndims in [0, {batch_ndim}] (the batch axes of "
                    f"the distribution, of shape {self.distribution.batch_shape}), got {self._ndims}",
                    hint="reinterpret at most as many axes as the distribution's batch_shape has",
                )
            )
        if self.validate_args:
            if not isinstance(getattr(self.distribution, "constraints", None), dict):
                raise InvalidInputError(
                    message(
                        "Independent",
                        f"validate_args needs a distribution that declares its constraints, got a "
                        f"{type(self.distribution).__name__}",
                        hint="give the inner distribution a constraints mapping, or leave validate_args off",
                    )
                )
            check_parameters(self.distribution, "Independent", prefix="distribution.")

    @property
    def reinterpreted_batch_ndims(self) -> int:
        """How many rightmost batch axes of ``distribution`` are event axes here."""
        if self._ndims is None:
            return max(0, len(self.distribution.batch_shape) - 1)
        return self._ndims

    @property
    def _split(self) -> int:
        """Where the inner batch shape splits into this batch shape and the reinterpreted axes."""
        return len(self.distribution.batch_shape) - self.reinterpreted_batch_ndims

    @property
    def batch_shape(self) -> tuple:
        return tuple(self.distribution.batch_shape[: self._split])

    @property
    def event_shape(self) -> tuple:
        return tuple(self.distribution.batch_shape[self._split :]) + tuple(self.distribution.event_shape)

    def _sum(self, value):
        return ops.sum(value, axis=tuple(range(-self.reinterpreted_batch_ndims, 0)))

    def _prod(self, value):
        return ops.prod(value, axis=tuple(range(-self.reinterpreted_batch_ndims, 0)))

    @property
    def params(self) -> dict:
        return self.distribution.params

    @property
    def support(self) -> str:
        return self.distribution.support

    @property
    def mean(self):
        return self.distribution.mean

    @property
    def mode(self):
        return self.distribution.mode

    @property
    def stddev(self):
        return self.distribution.stddev

    @property
    def variance(self):
        return self.distribution.variance

    @property
    def covariance(self):
        """Block-diagonal: the inner covariance of each reinterpreted part on the diagonal."""
        inner = self.distribution
        blocks = int(math.prod(inner.batch_shape[self._split :]))
        dim = int(math.prod(inner.event_shape))
        cov = ops.reshape(inner.covariance, (*self.batch_shape, blocks, dim, dim))
        eye = backend.xp(unbox_all(cov)).eye(blocks, dtype=unbox_all(cov).dtype)
        spread = ops.einsum("...iab,ij->...iajb", cov, eye)  # zero off the diagonal blocks
        return ops.reshape(spread, (*self.batch_shape, blocks * dim, blocks * dim))

    @property
    def entropy(self):
        return self._sum(self.distribution.entropy)

    @validated
    def log_prob(self, x):
        return self._sum(self.distribution.log_prob(x))

    @validated
    def log_cdf(self, x):
        return self._sum(self.distribution.log_cdf(x))

    @validated
    def log_survival_function(self, x):
        return self._sum(self.distribution.log_survival_function(x))

    @validated
    def prob(self, x):
        return self._prod(self.distribution.prob(x))

    @validated
    def cdf(self, x):
        return self._prod(self.distribution.cdf(x))

    @validated
    def survival_function(self, x):
        return self._prod(self.distribution.survival_function(x))

    @validated
    def perplexity(self, x):
        return self._prod(self.distribution.perplexity(x))

    def icdf(self, x):
        raise NotDefinedError(  # a NotImplementedError, so a RuntimeError as Chainer's
            message(
                "Independent.icdf",
                "the CDF of a multivariate variable is not invertible",
                hint="take the inner distribution's icdf, one part at a time",
            )
        )

    def sample_n(self, key, n: int):
        return self.distribution.sample_n(key, n)

    @property
    def xp(self):
        return self.distribution.xp


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent):
    """The sum of the inner KL divergences over the reinterpreted axes."""
    if p.event_shape != q.event_shape:
        raise InvalidInputError(
            message(
                "kl_divergence",
                "expected Independent distributions of one event shape, "
                f"got {p.event_shape} and {q.event_shape}",
                hint="reinterpret the same batch axes of distributions of one shape",
            )
        )
    if p.distribution.event_shape != q.distribution.event_shape:
        raise NotDefinedError(
            message(
                "kl_divergence",
                "the KL divergence of Independent distributions over inner distributions of "
                f"different event shapes ({p.distribution.event_shape} and "
                f"{q.distribution.event_shape}) is not defined",
                hint="wrap distributions of one event shape",
            )
        )
    axes = len(p.event_shape) - len(p.distribution.event_shape)
    return ops.sum(kl_divergence(p.distribution, q.distribution), axis=tuple(range(-axes, 0)))
