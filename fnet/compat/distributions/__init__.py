"""Chainer's ``chainer.distributions``: Chainer's constructors over ``fnet.distributions``.

Each class takes Chainer's arguments (arrays or Variables), returns Variables, and samples from
NumPy's global random state as Chainer's do; the math is the pure distribution's.
"""

from __future__ import annotations

from ... import backend, ops
from ... import distributions as _pure
from ...autodiff import unbox_all
from ...distributions.utils import xlogx
from ..distribution import PureDistribution, _value, pure_of
from ..functions._lift import unwrap, wrap
from ..utils import argument

# __all__ (the distribution classes) is built at the end, from the classes defined here.


class Bernoulli(PureDistribution, pure_type=_pure.Bernoulli, parameters=("p", "logit")):
    """Bernoulli distributions: ``Bernoulli(p=None, logit=None, binary_check=False)``."""

    def __init__(self, p=None, logit=None, binary_check=False):
        super().__init__({"p": p, "logit": logit}, binary_check=binary_check)


def _bernoulli_log_prob(logit, x, binary_check=False):
    """Chainer's private ``chainer.distributions.bernoulli._bernoulli_log_prob``, which its tests
    differentiate: the log-probability of ``x`` under Bernoulli distributions of ``logit``."""
    return Bernoulli(logit=logit, binary_check=binary_check).log_prob(x)


class Beta(PureDistribution, pure_type=_pure.Beta, parameters=("a", "b")):
    """Beta distributions: ``Beta(a, b)``, on ``[0, 1]``."""

    def __init__(self, a, b):
        super().__init__({"a": a, "b": b})


class Categorical(PureDistribution, pure_type=_pure.Categorical, parameters=("p", "log_p")):
    """Categorical distributions: ``Categorical(p=None, logit=None)``, one of the two."""

    def __init__(self, p=None, **kwargs):
        (logit,) = argument.parse_kwargs(kwargs, ("logit", None))
        super().__init__({"p": p, "logit": logit})


class Cauchy(PureDistribution, pure_type=_pure.Cauchy, parameters=("loc", "scale")):
    """Cauchy distributions: ``Cauchy(loc, scale)``."""

    def __init__(self, loc, scale):
        super().__init__({"loc": loc, "scale": scale})


class Chisquare(PureDistribution, pure_type=_pure.Chisquare, parameters=("k",)):
    """Chi-square distributions: ``Chisquare(k)``, of ``k`` degrees of freedom."""

    def __init__(self, k):
        super().__init__({"k": k})


class Dirichlet(PureDistribution, pure_type=_pure.Dirichlet, parameters=("alpha",)):
    """Dirichlet distributions: ``Dirichlet(alpha)``, of concentrations along the last axis."""

    alpha0 = _value("alpha0")

    def __init__(self, alpha):
        super().__init__({"alpha": alpha})


class Exponential(PureDistribution, pure_type=_pure.Exponential, parameters=("lam",)):
    """Exponential distributions: ``Exponential(lam)``, of rate ``lam``."""

    def __init__(self, lam):
        super().__init__({"lam": lam})


class Gamma(PureDistribution, pure_type=_pure.Gamma, parameters=("k", "theta")):
    """Gamma distributions: ``Gamma(k, theta)``, of shape ``k`` and scale ``theta``."""

    def __init__(self, k, theta):
        super().__init__({"k": k, "theta": theta})


class Geometric(PureDistribution, pure_type=_pure.Geometric, parameters=("p",)):
    """Geometric distributions: ``Geometric(p)``, of success probability ``p``."""

    def __init__(self, p):
        super().__init__({"p": p})


class Gumbel(PureDistribution, pure_type=_pure.Gumbel, parameters=("loc", "scale")):
    """Gumbel distributions: ``Gumbel(loc, scale)``."""

    def __init__(self, loc, scale):
        super().__init__({"loc": loc, "scale": scale})


class Independent(PureDistribution, pure_type=_pure.Independent):
    """``Independent(distribution, reinterpreted_batch_ndims=None)``: the last batch axes of a
    Chainer distribution (built in or a user's) read as event axes."""

    def __init__(self, distribution, reinterpreted_batch_ndims=None):
        self.distribution = distribution
        super().__init__({}, reinterpreted_batch_ndims=reinterpreted_batch_ndims)

    @property
    def pure(self):
        return _pure.Independent(pure_of(self.distribution), **self._options)

    @property
    def reinterpreted_batch_ndims(self) -> int:
        return self.pure.reinterpreted_batch_ndims


class Laplace(PureDistribution, pure_type=_pure.Laplace, parameters=("loc", "scale")):
    """Laplace distributions: ``Laplace(loc, scale)``."""

    def __init__(self, loc, scale):
        super().__init__({"loc": loc, "scale": scale})


def _laplace_cdf(x):
    """Chainer's private ``chainer.distributions.laplace._laplace_cdf``, which its tests
    differentiate: the cdf of the standard Laplace distribution at ``x``."""
    return wrap(_pure.laplace.standard_cdf(unwrap(x)))


def _laplace_icdf(x):
    """Chainer's private ``chainer.distributions.laplace._laplace_icdf``: the inverse of
    ``_laplace_cdf``."""
    return wrap(_pure.laplace.standard_icdf(unwrap(x)))


class LogNormal(PureDistribution, pure_type=_pure.LogNormal, parameters=("mu", "sigma")):
    """Log-normal distributions: ``LogNormal(mu, sigma)``, of the log's mean and deviation."""

    def __init__(self, mu, sigma):
        super().__init__({"mu": mu, "sigma": sigma})


class MultivariateNormal(
    PureDistribution, pure_type=_pure.MultivariateNormal, parameters=("loc", "scale_tril")
):
    """Multivariate normal distributions: ``MultivariateNormal(loc, scale_tril=...)``; ``scale_tril``
    is the lower-triangular factor of the covariance and must be given."""

    def __init__(self, loc, **kwargs):
        (scale_tril,) = argument.parse_kwargs(kwargs, ("scale_tril", None))
        super().__init__({"loc": loc, "scale_tril": scale_tril})


def _triangular_inv(x, lower=True):
    """Chainer's private ``chainer.distributions.multivariate_normal._triangular_inv``, which its
    tests differentiate: the inverse of the lower (or upper) triangle of the square matrix ``x``."""
    x = unwrap(x)
    return wrap(ops.solve_triangular(x, backend.xp(unbox_all(x)).eye(len(x), dtype=x.dtype), lower=lower))


class Normal(PureDistribution, pure_type=_pure.Normal, parameters=("loc", "scale", "log_scale")):
    """Normal distributions: ``Normal(loc, scale=None, log_scale=None)``, one of the two scales."""

    def __init__(self, loc, scale=None, **kwargs):
        (log_scale,) = argument.parse_kwargs(kwargs, ("log_scale", None))
        super().__init__({"loc": loc, "scale": scale, "log_scale": log_scale})


class OneHotCategorical(PureDistribution, pure_type=_pure.OneHotCategorical, parameters=("p", "log_p")):
    """One-hot categorical distributions: ``OneHotCategorical(p)``."""

    def __init__(self, p):
        super().__init__({"p": p})


class Pareto(PureDistribution, pure_type=_pure.Pareto, parameters=("scale", "alpha")):
    """Pareto distributions: ``Pareto(scale, alpha)``."""

    def __init__(self, scale, alpha):
        super().__init__({"scale": scale, "alpha": alpha})


class Poisson(PureDistribution, pure_type=_pure.Poisson, parameters=("lam",)):
    """Poisson distributions: ``Poisson(lam)``, of mean ``lam``."""

    def __init__(self, lam):
        super().__init__({"lam": lam})


class Uniform(PureDistribution, pure_type=_pure.Uniform, parameters=("low", "high", "loc", "scale")):
    """Uniform distributions: ``Uniform(low=, high=)`` or ``Uniform(loc=, scale=)``."""

    def __init__(self, **kwargs):
        low, high, loc, scale = argument.parse_kwargs(
            kwargs, ("low", None), ("high", None), ("loc", None), ("scale", None)
        )
        super().__init__({"low": low, "high": high, "loc": loc, "scale": scale})


def _modified_xlogx(x):
    """Chainer's private ``chainer.distributions.utils._modified_xlogx``, which its tests
    differentiate: ``x * log(x)``, 0 at 0 (:func:`fnet.distributions.utils.xlogx`)."""
    return wrap(xlogx(unwrap(x)))


__all__ = sorted(
    name
    for name, value in list(globals().items())
    if isinstance(value, type) and issubclass(value, PureDistribution) and value is not PureDistribution
)
