"""Probability distributions, pure: parameters are pytree leaves, sampling takes a key.

``Distribution`` is the base (Chainer's members), ``Parametric`` the base of a distribution
whose parameters are its fields; ``kl_divergence`` dispatches on the types of
its two arguments to a function registered with ``register_kl``. Every distribution takes the
keyword-only option ``validate_args`` (default ``False``): with it, parameters outside their
constraints (``distributions.constraints``) raise ``InvalidInputError`` when it is built, and so
does an ``x`` outside the support in ``log_prob``, ``prob``, ``cdf``... (``icdf``: outside [0, 1]).
"""

from __future__ import annotations

from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .cauchy import Cauchy
from .chisquare import Chisquare
from .dirichlet import Dirichlet
from .distribution import Distribution, Parametric, cross_entropy, kl_divergence, register_kl
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .independent import Independent
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform

__all__ = [
    "Distribution",
    "Parametric",
    "Bernoulli",
    "Beta",
    "Categorical",
    "Cauchy",
    "Chisquare",
    "Dirichlet",
    "Exponential",
    "Gamma",
    "Geometric",
    "Gumbel",
    "Independent",
    "Laplace",
    "LogNormal",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Pareto",
    "Poisson",
    "Uniform",
    "kl_divergence",
    "register_kl",
    "cross_entropy",
]
