"""Probability distributions, pure: parameters are pytree leaves, sampling takes a key.

``Distribution`` is the base (Chainer's members); ``kl_divergence`` dispatches on the types of
its two arguments to a function registered with ``register_kl``.
"""

from __future__ import annotations

from .bernoulli import Bernoulli
from .beta import Beta
from .chisquare import Chisquare
from .dirichlet import Dirichlet
from .distribution import Distribution, cross_entropy, kl_divergence, register_kl
from .exponential import Exponential
from .gamma import Gamma
from .normal import Normal
from .poisson import Poisson

__all__ = [
    "Distribution",
    "Bernoulli",
    "Beta",
    "Chisquare",
    "Dirichlet",
    "Exponential",
    "Gamma",
    "Normal",
    "Poisson",
    "kl_divergence",
    "register_kl",
    "cross_entropy",
]
