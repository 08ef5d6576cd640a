"""Chainer's ``chainer.distributions``: Chainer's constructors over ``fnet.distributions``.

Each class takes Chainer's arguments (arrays or Variables), returns Variables, and draws its
sampling keys from NumPy's global random state; the math is the pure distribution's.
"""

from __future__ import annotations

from ... import distributions as _pure
from ...distributions.utils import xlogx
from ..distribution import PureDistribution, _value
from ..functions._lift import unwrap, wrap
from ..utils import argument

__all__ = ["Bernoulli", "Beta", "Chisquare", "Dirichlet", "Exponential", "Gamma", "Normal", "Poisson"]


class Normal(PureDistribution, pure_type=_pure.Normal, parameters=("loc", "scale", "log_scale")):
    """Normal distributions: ``Normal(loc, scale=None, log_scale=None)``, one of the two scales."""

    def __init__(self, loc, scale=None, **kwargs):
        (log_scale,) = argument.parse_kwargs(kwargs, ("log_scale", None))
        super().__init__({"loc": loc, "scale": scale, "log_scale": log_scale})


class Exponential(PureDistribution, pure_type=_pure.Exponential, parameters=("lam",)):
    """Exponential distributions: ``Exponential(lam)``, of rate ``lam``."""

    def __init__(self, lam):
        super().__init__({"lam": lam})


class Beta(PureDistribution, pure_type=_pure.Beta, parameters=("a", "b")):
    """Beta distributions: ``Beta(a, b)``, on ``[0, 1]``."""

    def __init__(self, a, b):
        super().__init__({"a": a, "b": b})


class Chisquare(PureDistribution, pure_type=_pure.Chisquare, parameters=("k",)):
    """Chi-square distributions: ``Chisquare(k)``, of ``k`` degrees of freedom."""

    def __init__(self, k):
        super().__init__({"k": k})


class Dirichlet(PureDistribution, pure_type=_pure.Dirichlet, parameters=("alpha",)):
    """Dirichlet distributions: ``Dirichlet(alpha)``, of concentrations along the last axis."""

    alpha0 = _value("alpha0")

    def __init__(self, alpha):
        super().__init__({"alpha": alpha})


class Gamma(PureDistribution, pure_type=_pure.Gamma, parameters=("k", "theta")):
    """Gamma distributions: ``Gamma(k, theta)``, of shape ``k`` and scale ``theta``."""

    def __init__(self, k, theta):
        super().__init__({"k": k, "theta": theta})


class Bernoulli(PureDistribution, pure_type=_pure.Bernoulli, parameters=("p", "logit")):
    """Bernoulli distributions: ``Bernoulli(p=None, logit=None, binary_check=False)``."""

    def __init__(self, p=None, logit=None, binary_check=False):
        super().__init__({"p": p, "logit": logit}, binary_check=binary_check)


class Poisson(PureDistribution, pure_type=_pure.Poisson, parameters=("lam",)):
    """Poisson distributions: ``Poisson(lam)``, of mean ``lam``."""

    def __init__(self, lam):
        super().__init__({"lam": lam})


def _bernoulli_log_prob(logit, x, binary_check=False):
    """Chainer's private ``chainer.distributions.bernoulli._bernoulli_log_prob``, which its tests
    differentiate: the log-probability of ``x`` under Bernoulli distributions of ``logit``."""
    return Bernoulli(logit=logit, binary_check=binary_check).log_prob(x)


def _modified_xlogx(x):
    """Chainer's private ``chainer.distributions.utils._modified_xlogx``, which its tests
    differentiate: ``x * log(x)``, 0 at 0 (:func:`fnet.distributions.utils.xlogx`)."""
    return wrap(xlogx(unwrap(x)))
