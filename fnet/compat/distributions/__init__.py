"""Chainer's ``chainer.distributions``: Chainer's constructors over ``fnet.distributions``.

Each class takes Chainer's arguments (arrays or Variables), returns Variables, and draws its
sampling keys from NumPy's global random state; the math is the pure distribution's.
"""

from __future__ import annotations

from ... import distributions as _pure
from ..distribution import PureDistribution
from ..functions._lift import unwrap, wrap
from ..utils import argument

__all__ = [
    "Bernoulli",
    "Cauchy",
    "Exponential",
    "Gumbel",
    "Laplace",
    "LogNormal",
    "Normal",
    "Pareto",
    "Uniform",
]


class Normal(PureDistribution, pure_type=_pure.Normal, parameters=("loc", "scale", "log_scale")):
    """Normal distributions: ``Normal(loc, scale=None, log_scale=None)``, one of the two scales."""

    def __init__(self, loc, scale=None, **kwargs):
        (log_scale,) = argument.parse_kwargs(kwargs, ("log_scale", None))
        super().__init__({"loc": loc, "scale": scale, "log_scale": log_scale})


class Exponential(PureDistribution, pure_type=_pure.Exponential, parameters=("lam",)):
    """Exponential distributions: ``Exponential(lam)``, of rate ``lam``."""

    def __init__(self, lam):
        super().__init__({"lam": lam})


class Bernoulli(PureDistribution, pure_type=_pure.Bernoulli, parameters=("p", "logit")):
    """Bernoulli distributions: ``Bernoulli(p=None, logit=None, binary_check=False)``."""

    def __init__(self, p=None, logit=None, binary_check=False):
        super().__init__({"p": p, "logit": logit}, binary_check=binary_check)


def _bernoulli_log_prob(logit, x, binary_check=False):
    """Chainer's private ``chainer.distributions.bernoulli._bernoulli_log_prob``, which its tests
    differentiate: the log-probability of ``x`` under Bernoulli distributions of ``logit``."""
    return Bernoulli(logit=logit, binary_check=binary_check).log_prob(x)


class Cauchy(PureDistribution, pure_type=_pure.Cauchy, parameters=("loc", "scale")):
    """Cauchy distributions: ``Cauchy(loc, scale)``."""

    def __init__(self, loc, scale):
        super().__init__({"loc": loc, "scale": scale})


class Gumbel(PureDistribution, pure_type=_pure.Gumbel, parameters=("loc", "scale")):
    """Gumbel distributions: ``Gumbel(loc, scale)``."""

    def __init__(self, loc, scale):
        super().__init__({"loc": loc, "scale": scale})


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


class Pareto(PureDistribution, pure_type=_pure.Pareto, parameters=("scale", "alpha")):
    """Pareto distributions: ``Pareto(scale, alpha)``."""

    def __init__(self, scale, alpha):
        super().__init__({"scale": scale, "alpha": alpha})


class Uniform(PureDistribution, pure_type=_pure.Uniform, parameters=("low", "high", "loc", "scale")):
    """Uniform distributions: ``Uniform(low=, high=)`` or ``Uniform(loc=, scale=)``."""

    def __init__(self, **kwargs):
        low, high, loc, scale = argument.parse_kwargs(
            kwargs, ("low", None), ("high", None), ("loc", None), ("scale", None)
        )
        super().__init__({"low": low, "high": high, "loc": loc, "scale": scale})
