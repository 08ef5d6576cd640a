"""The categorical distribution over ``{0, ..., k - 1}``, by probabilities ``p`` or ``logit``."""

from __future__ import annotations

import attrs
import numpy

from .. import backend, ops, random
from .. import functions as F
from ..autodiff import unbox_all
from ..errors import ShapeError, message
from ._noise import dtype_and_device
from .constraints import dependent, extended_real, integer_interval, simplex
from .distribution import (
    Parametric,
    check_one_of,
    check_params,
    register_kl,
    validate_args_field,
    validated,
)
from .utils import xlogx

__all__ = ["Categorical"]


def category_batch_shape(op: str, params: dict) -> tuple:
    """Check parameters whose last axis holds the ``k`` categories; return the batch shape."""
    shape = check_params(op, params)
    if len(shape) == 0:
        raise ShapeError(
            message(
                op,
                "expected parameters with a last axis of categories, got a scalar",
                {k: v for k, v in params.items() if v is not None},
                hint="give one probability per category along the last axis",
            )
        )
    return shape[:-1]


def sample_categories(key, p, n: int):
    """``n`` category indices (int64) per distribution of ``p`` (categories on the last axis),
    drawn by inverting the cumulative sum of ``p`` at uniform noise."""
    p = unbox_all(p)
    xp = backend.xp(p)
    _, device = dtype_and_device(p)
    cumulative = xp.cumsum(xp.asarray(p, dtype=numpy.float64), axis=-1)
    u = random.uniform(key, (n, *p.shape[:-1], 1), dtype=numpy.float64, device=device)
    index = (cumulative <= u * cumulative[..., -1:]).sum(axis=-1)
    return xp.minimum(index, p.shape[-1] - 1).astype(numpy.int64)  # u * total rounded up to it


@attrs.frozen
class Categorical(Parametric):
    """Categorical distributions over ``{0, ..., k - 1}``, by ``p`` (the last axis holds the ``k``
    probabilities) or ``logit`` (``log(p)`` up to a constant); give exactly one."""

    _p: object = None
    _logit: object = None
    validate_args: bool = validate_args_field()
    constraints = {
        "p": simplex,
        "logit": extended_real,
        "x": dependent(
            lambda d: integer_interval(0, numpy.shape(unbox_all(d._logit if d._p is None else d._p))[-1] - 1)
        ),
    }

    def __attrs_post_init__(self):
        check_one_of("Categorical", "p", self._p, "logit", self._logit)
        super().__attrs_post_init__()

    @property
    def p(self):
        return F.exp(self.log_p) if self._p is None else self._p

    @property
    def log_p(self):
        if self._p is None:
            return F.log_softmax(self._logit, axis=-1)
        with numpy.errstate(divide="ignore"):  # a probability of 0: log_p of -inf
            return F.log(self._p)

    @property
    def batch_shape(self) -> tuple:
        return category_batch_shape("Categorical", self._given)

    @property
    def params(self) -> dict:
        return {"p": self.p}

    @property
    def entropy(self):
        return -ops.sum(xlogx(self.p), axis=-1)

    @validated
    def log_prob(self, x):
        """``log_p`` at the categories ``x`` (integers; shape ``sample_shape + batch_shape``)."""
        log_p = self.log_p
        batch = self.batch_shape
        xp = backend.xp(unbox_all(log_p))
        x = xp.asarray(unbox_all(x)).astype(numpy.int64)
        grids = tuple(
            xp.arange(size).reshape((size,) + (1,) * (len(batch) - 1 - axis))
            for axis, size in enumerate(batch)
        )
        return ops.getitem(log_p, (*grids, x))

    def sample_n(self, key, n: int):
        """Category indices (int64, not differentiable)."""
        return sample_categories(key, self.p, n)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical):
    return ops.sum(p.p * (p.log_p - q.log_p), axis=-1)
