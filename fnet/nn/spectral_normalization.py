"""Spectral normalization (Miyato et al., arXiv:1802.05957), pure: a weight divided by its
largest singular value, estimated by power iteration from a vector ``u`` the caller keeps.

``spectral_normalize(W, u)`` returns the normalized weight and the next ``u``; the caller
stores ``u`` (Chainer's link hook keeps it as a persistent, updated in training only). The
power iteration runs on values, as bookkeeping, and the singular value ``u W v`` is computed
with differentiable functions, so gradients reach ``W`` through it.

>>> import numpy
>>> W = numpy.diag([3.0, 1.0])
>>> W_sn, u = spectral_normalize(W, numpy.array([1.0, 1.0]), n_power_iteration=20)
>>> numpy.round(W_sn, 4)
array([[1.    , 0.    ],
       [0.    , 0.3333]])
"""

from __future__ import annotations

from .. import functions as F
from .. import ops
from ..autodiff.tracer import shape_of, unbox_all

__all__ = ["as_matrix", "power_iteration", "max_singular_value", "spectral_normalize"]


def as_matrix(W, axis: int = 0):
    """``W`` as a matrix whose rows are its ``axis`` (the output axis: 1 for deconvolutions)."""
    ndim = len(shape_of(W))
    if axis != 0:
        W = ops.transpose(W, [axis] + [i for i in range(ndim) if i != axis])
    return W if ndim == 2 else ops.reshape(W, (shape_of(W)[0], -1))


def power_iteration(matrix, u, n_power_iteration: int = 1, eps: float = 1e-6) -> tuple:
    """``(u, v)``: the first left and right singular vectors of ``matrix`` approximated by
    ``n_power_iteration`` steps from ``u``, on values (no gradient flows through them)."""
    matrix, u = unbox_all(matrix), unbox_all(u)
    v = None
    for _ in range(n_power_iteration):
        v = F.normalize(F.matmul(u, matrix), eps, axis=0)
        u = F.normalize(F.matmul(matrix, v), eps, axis=0)
    return u, v


def max_singular_value(matrix, u, v):
    """The largest singular value of ``matrix`` estimated from its singular vectors: ``u W v``."""
    return F.matmul(F.matmul(u, matrix), v)


def spectral_normalize(
    W, u, *, n_power_iteration: int = 1, eps: float = 1e-6, axis: int = 0, factor: float | None = None
) -> tuple:
    """``(W / sigma, u)``: ``W`` divided by its largest singular value ``sigma`` (divided by
    ``factor`` if given), estimated from ``u`` (of ``W.shape[axis]`` entries) by power
    iteration; ``u`` is the next estimate, to keep for the next call."""
    matrix = as_matrix(W, axis)
    u, v = power_iteration(matrix, u, n_power_iteration, eps)
    sigma = max_singular_value(matrix, u, v)
    if factor is not None:
        sigma = ops.divide(sigma, factor)
    return ops.divide(W, sigma), u
