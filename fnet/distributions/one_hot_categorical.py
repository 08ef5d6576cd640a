"""The one-hot categorical distribution: a categorical draw as a one-hot vector."""

from __future__ import annotations

import attrs
import numpy

from .. import backend, ops
from .. import functions as F
from ..autodiff import unbox_all
from .categorical import category_batch_shape, sample_categories
from .constraints import one_hot, simplex
from .distribution import Parametric, register_kl, validate_args_field, validated

__all__ = ["OneHotCategorical"]


@attrs.frozen
class OneHotCategorical(Parametric):
    """Distributions over the ``k`` one-hot vectors of length ``k``, by probabilities ``p`` (the
    last axis holds the ``k`` probabilities; it is the event axis)."""

    p: object
    validate_args: bool = validate_args_field()
    constraints = {"p": simplex, "x": one_hot}

    @property
    def log_p(self):
        with numpy.errstate(divide="ignore"):  # a probability of 0: log_p of -inf
            return F.log(self.p)

    @property
    def batch_shape(self) -> tuple:
        return category_batch_shape("OneHotCategorical", {"p": self.p})

    @property
    def event_shape(self) -> tuple:
        return tuple(self.p.shape[-1:])

    @property
    def mean(self):
        return self.p

    @property
    def variance(self):
        return self.p * (1 - self.p)

    @validated
    def log_prob(self, x):
        """``sum(x * log_p)`` over the event axis (as Chainer's: NaN where ``x`` is 0 and ``p`` is 0)."""
        return ops.sum(self.log_p * x, axis=-1)

    def sample_n(self, key, n: int):
        """One-hot vectors in the dtype of ``p`` (not differentiable)."""
        p = unbox_all(self.p)
        xp = backend.xp(p)
        index = sample_categories(key, p, n)
        return xp.eye(p.shape[-1], dtype=p.dtype)[index]


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_one_hot_categorical_one_hot_categorical(p: OneHotCategorical, q: OneHotCategorical):
    return ops.sum(p.p * (p.log_p - q.log_p), axis=-1)
