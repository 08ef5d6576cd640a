"""Loss functions (Chainer's ``F.softmax_cross_entropy``, ``F.huber_loss``, ...), pure and differentiable.

Most are composites of fnet.ops and of the activation primitives, so their gradients of every
order come from those. The softmax cross entropy, the hot path of classification, is a
primitive: the unnormalized softmax ``e`` and its sum ``s`` are computed once and kept for the
backward pass (Chainer's ``cache_score``: one pass of ``exp`` in all), and its gradient
``(e / s - onehot(t)) * g`` is a primitive too, whose VJPs are written in fnet ops, so that
double backprop works as well.
"""

from __future__ import annotations

import functools
import math

import numpy

from .. import backend, ops
from ..autodiff import primitive
from ..autodiff.tracer import Tracer, unbox_all
from ..autodiff.tracer import shape_of as _shape
from ..errors import DTypeError, InvalidInputError, ShapeError, message
from ..recording import opaque
from ..transforms import stop_gradient
from ._checks import check_float, check_labels, check_ndim, check_reduce, check_same_dtype, check_same_shape
from .activation import log_softmax, relu, softplus

__all__ = [
    "absolute_error",
    "bernoulli_nll",
    "contrastive",
    "cross_covariance",
    "decov",
    "discriminative_margin_based_clustering_loss",
    "gaussian_kl_divergence",
    "gaussian_nll",
    "hinge",
    "huber_loss",
    "mean_absolute_error",
    "mean_squared_error",
    "sigmoid_cross_entropy",
    "softmax_cross_entropy",
    "squared_error",
    "triplet",
]


# -- shared checks and reductions --------------------------------------------------------------


def _dtype(x) -> numpy.dtype:
    return unbox_all(x).dtype


def _check_floats(fn: str, names: tuple[str, ...], *arrays, same_shape: bool = True) -> None:
    """Every array is a float array of the first one's dtype (and shape, with ``same_shape``)."""
    for name, x in zip(names, arrays):
        check_float(fn, name, x)
    for name, x in zip(names[1:], arrays[1:]):
        check_same_dtype(fn, (names[0], name), arrays[0], x)
        if same_shape:
            check_same_shape(fn, (names[0], name), arrays[0], x)


def _check_choice(fn: str, name: str, value, allowed: tuple) -> None:
    if value not in allowed:
        options = ", ".join(repr(option) for option in allowed)
        raise InvalidInputError(
            message(
                fn, f"expected {name} to be one of {options}, got {value!r}", hint=f"pass one of {options}"
            )
        )


def _check_positive(fn: str, name: str, value, *, strict: bool = True) -> None:
    if not (value > 0 if strict else value >= 0):
        kind = "positive" if strict else "non-negative"
        raise InvalidInputError(
            message(
                fn,
                f"expected {name} {'>' if strict else '>='} 0, got {value!r}",
                hint=f"pass a {kind} number",
            )
        )


def _check_batch(fn: str, name: str, t, n: int) -> None:
    """``t`` holds one entry per sample: its shape is ``(n,)``."""
    if _shape(t) != (n,):
        raise ShapeError(
            message(
                fn,
                f"expected {name}.shape == ({n},) (one entry per sample), got {_shape(t)}",
                {name: t},
                "the first axis of the inputs is the batch; pass one label per row",
            )
        )


def _sum_all(x, divisor: int = 1):
    """``sum(x) / divisor`` over all elements; float16 is accumulated in float32 (as in Chainer)."""
    if _dtype(x) == numpy.float16:
        return ops.astype(_sum_all(ops.astype(x, numpy.float32), divisor), numpy.float16)
    total = ops.sum(x)
    return total if divisor == 1 else ops.divide(total, divisor)


def _reduce(loss, reduce: str):
    """Chainer's ``reduce`` of the Gaussian and Bernoulli losses: 'sum', 'mean' or 'no'."""
    if reduce == "no":
        return loss
    return _sum_all(loss, max(math.prod(_shape(loss)), 1) if reduce == "mean" else 1)


def _safe_sqrt(s):
    """``sqrt(s)`` for ``s >= 0``, with the slope at 0 taken as 0 instead of infinite."""
    positive = ops.greater(s, 0)
    return ops.multiply(ops.sqrt(ops.where(positive, s, 1)), positive)


def _norm(x, axis, p: int):
    """The L1 (``p=1``) or L2 (``p=2``) norm of ``x`` over ``axis``."""
    if p == 1:
        return ops.sum(ops.absolute(x), axis=axis)
    return _safe_sqrt(ops.sum(ops.square(x), axis=axis))


# -- elementwise and regression losses ---------------------------------------------------------
def absolute_error(x0, x1):
    """Elementwise absolute error ``|x0 - x1|``; the slope at ``x0 == x1`` is taken as 0.

    >>> import numpy
    >>> absolute_error(numpy.array([1.0, -2.0]), numpy.array([0.5, 1.0]))
    array([0.5, 3. ])
    """
    _check_floats("absolute_error", ("x0", "x1"), x0, x1)
    return ops.absolute(ops.subtract(x0, x1))


def squared_error(x0, x1):
    """Elementwise squared error ``(x0 - x1) ** 2``, not halved (the same as ``squared_difference``).

    >>> import numpy
    >>> squared_error(numpy.array([1.0, -2.0]), numpy.array([0.5, 1.0]))
    array([0.25, 9.  ])
    """
    _check_floats("squared_error", ("x0", "x1"), x0, x1)
    return ops.square(ops.subtract(x0, x1))


def mean_absolute_error(x0, x1):
    """Mean of ``|x0 - x1|`` over all elements: a scalar regression loss robust to outliers.

    >>> import numpy
    >>> float(mean_absolute_error(numpy.array([1.0, 2.0, 3.0]), numpy.zeros(3)))
    2.0
    """
    _check_floats("mean_absolute_error", ("x0", "x1"), x0, x1)
    return _sum_all(ops.absolute(ops.subtract(x0, x1)), math.prod(_shape(x0)))


def mean_squared_error(x0, x1):
    """Mean of ``(x0 - x1) ** 2`` over all elements (not halved): the Euclidean regression loss.

    >>> import numpy
    >>> float(mean_squared_error(numpy.array([1.0, 2.0, 3.0, 4.0]), numpy.zeros(4)))
    7.5
    """
    _check_floats("mean_squared_error", ("x0", "x1"), x0, x1)
    return _sum_all(ops.square(ops.subtract(x0, x1)), math.prod(_shape(x0)))


def huber_loss(x, t, delta: float, reduce: str = "sum_along_second_axis"):
    """Huber loss of ``a = x - t``: ``a ** 2 / 2`` where ``|a| <= delta``, else ``delta * (|a| - delta / 2)``.

    Quadratic near the target and linear far from it, so outliers pull less than in the squared
    error; its gradient is ``clip(a, -delta, delta)``. With ``reduce='sum_along_second_axis'``
    (the default) the losses are summed over axis 1, with ``'no'`` they are returned elementwise.
    The two pieces are computed separately (no cancellation for large ``|a|``).

    >>> import numpy
    >>> x = numpy.array([[-2.0, 3.0, 0.5], [5.0, 2.0, -0.5]], numpy.float32)
    >>> t = numpy.array([[-2.0, 3.0, 0.0], [10.0, 2.0, -0.5]], numpy.float32)
    >>> huber_loss(x, t, delta=1.0)
    array([0.125, 4.5  ], dtype=float32)
    """
    fn = "huber_loss"
    _check_floats(fn, ("x", "t"), x, t)
    check_reduce(fn, reduce, ("sum_along_second_axis", "no"))
    _check_positive(fn, "delta", delta, strict=False)
    if reduce == "sum_along_second_axis" and len(_shape(x)) < 2:
        raise ShapeError(
            message(
                fn,
                f"reduce='sum_along_second_axis' needs x.ndim >= 2, got {len(_shape(x))}",
                {"x": x},
                "pass reduce='no' for elementwise losses, or add a batch axis",
            )
        )
    diff = ops.subtract(x, t)
    inner = ops.clip(diff, -delta, delta)
    outer = relu(ops.subtract(ops.absolute(diff), delta))
    loss = ops.add(ops.multiply(ops.square(inner), 0.5), ops.multiply(outer, delta))
    return loss if reduce == "no" else ops.sum(loss, axis=1)


# -- probabilistic losses ----------------------------------------------------------------------
def gaussian_kl_divergence(mean, ln_var, reduce: str = "sum"):
    """KL divergence of the diagonal Gaussian ``N(mean, exp(ln_var))`` from the standard normal.

    Elementwise ``(mean ** 2 + exp(ln_var) - ln_var - 1) / 2``, the regularizer of a variational
    auto-encoder; ``reduce`` is ``'sum'`` (default), ``'mean'`` or ``'no'``.

    >>> import numpy
    >>> float(gaussian_kl_divergence(numpy.zeros(3), numpy.zeros(3)))
    0.0
    """
    fn = "gaussian_kl_divergence"
    _check_floats(fn, ("mean", "ln_var"), mean, ln_var)
    check_reduce(fn, reduce, ("sum", "mean", "no"))
    loss = ops.subtract(ops.add(ops.square(mean), ops.exp(ln_var)), ops.add(ln_var, 1))
    return _reduce(ops.multiply(loss, 0.5), reduce)


def bernoulli_nll(x, y, reduce: str = "sum"):
    """Negative log-likelihood of ``x`` under Bernoulli distributions with logits ``y``.

    Elementwise ``softplus(y) - x * y``, i.e. ``-x log p - (1 - x) log(1 - p)`` with
    ``p = sigmoid(y)``, so a linear layer's output can be passed directly; ``reduce`` is
    ``'sum'`` (default), ``'mean'`` or ``'no'``.

    >>> import numpy
    >>> round(float(bernoulli_nll(numpy.array([1.0]), numpy.array([0.0]))), 6)
    0.693147
    """
    fn = "bernoulli_nll"
    _check_floats(fn, ("x", "y"), x, y)
    check_reduce(fn, reduce, ("sum", "mean", "no"))
    return _reduce(ops.subtract(softplus(y), ops.multiply(x, y)), reduce)


def gaussian_nll(x, mean, ln_var, reduce: str = "sum"):
    """Negative log-likelihood of ``x`` under the diagonal Gaussian ``N(mean, exp(ln_var))``.

    Elementwise ``(ln_var + log(2 pi)) / 2 + (x - mean) ** 2 * exp(-ln_var) / 2``; the variance
    is parametrized by its logarithm so that it stays positive. ``reduce`` is ``'sum'``
    (default), ``'mean'`` or ``'no'``.

    >>> import numpy
    >>> round(float(gaussian_nll(numpy.zeros(1), numpy.zeros(1), numpy.zeros(1))), 6)
    0.918939
    """
    fn = "gaussian_nll"
    _check_floats(fn, ("x", "mean", "ln_var"), x, mean, ln_var)
    check_reduce(fn, reduce, ("sum", "mean", "no"))
    scaled = ops.multiply(ops.square(ops.subtract(x, mean)), ops.exp(ops.negative(ln_var)))
    loss = ops.multiply(ops.add(ops.add(ln_var, math.log(2 * math.pi)), scaled), 0.5)
    return _reduce(loss, reduce)


# -- metric-learning losses ---------------------------------------------------------------------
def _check_pairwise(fn: str, names: tuple[str, ...], *arrays, margin: float, reduce: str) -> None:
    """Checks shared by contrastive and triplet: (N, K) float arrays, N > 0, margin > 0."""
    _check_floats(fn, names, *arrays)
    check_ndim(
        fn, names[0], arrays[0], 2, hint=f"{names[0]} holds one K-dimensional vector per sample: (N, K)"
    )
    if _shape(arrays[0])[0] == 0:
        raise ShapeError(message(fn, f"expected at least one sample, got {names[0]}.shape[0] == 0", {}))
    _check_positive(fn, "margin", margin)
    check_reduce(fn, reduce, ("mean", "no"))


def contrastive(x0, x1, y, margin: float = 1, reduce: str = "mean"):
    """Contrastive loss of pairs of vectors: pull similar pairs together, push others past ``margin``.

    With ``d`` the Euclidean distance of the rows of ``x0`` and ``x1`` (shape ``(N, K)``) and
    ``y`` the labels (1: similar, 0: dissimilar), each pair costs
    ``(y d ** 2 + (1 - y) max(margin - d, 0) ** 2) / 2``; ``reduce='mean'`` averages over the
    pairs, ``'no'`` returns them. Identical dissimilar vectors get a zero gradient.

    >>> import numpy
    >>> x0 = numpy.array([[-2.0, 3.0, 0.5], [5.0, 2.0, -0.5]], numpy.float32)
    >>> x1 = numpy.array([[-1.0, 3.0, 1.0], [3.5, 0.5, -2.0]], numpy.float32)
    >>> float(contrastive(x0, x1, numpy.array([1, 0], numpy.int32)))
    0.3125
    """
    fn = "contrastive"
    _check_pairwise(fn, ("x0", "x1"), x0, x1, margin=margin, reduce=reduce)
    n = _shape(x0)[0]
    check_labels(fn, "y", y, 2)
    _check_batch(fn, "y", y, n)
    similar = unbox_all(y).astype(_dtype(x0))
    dist_sq = ops.sum(ops.square(ops.subtract(x0, x1)), axis=1)
    gap = relu(ops.subtract(margin, _safe_sqrt(dist_sq)))
    loss = ops.multiply(
        ops.add(ops.multiply(dist_sq, similar), ops.multiply(ops.square(gap), 1 - similar)), 0.5
    )
    return loss if reduce == "no" else _sum_all(loss, n)


def triplet(anchor, positive, negative, margin: float = 0.2, reduce: str = "mean"):
    """Triplet loss: the anchor should be nearer the positive than the negative by ``margin``.

    Each triplet of rows (shape ``(N, K)``) costs ``max(|a - p| ** 2 - |a - n| ** 2 + margin, 0)``
    with squared Euclidean distances; ``reduce='mean'`` averages over the triplets, ``'no'``
    returns them.

    >>> import numpy
    >>> a = numpy.array([[-2.0, 3.0, 0.5], [5.0, 2.0, -0.5]], numpy.float32)
    >>> p = numpy.array([[-2.1, 2.8, 0.5], [4.9, 2.0, -0.4]], numpy.float32)
    >>> n = numpy.array([[-2.1, 2.7, 0.7], [4.9, 2.0, -0.7]], numpy.float32)
    >>> numpy.round(triplet(a, p, n, reduce="no"), 6)
    array([0.11, 0.17], dtype=float32)
    """
    fn = "triplet"
    _check_pairwise(
        fn, ("anchor", "positive", "negative"), anchor, positive, negative, margin=margin, reduce=reduce
    )
    near = ops.sum(ops.square(ops.subtract(anchor, positive)), axis=1)
    far = ops.sum(ops.square(ops.subtract(anchor, negative)), axis=1)
    loss = relu(ops.add(ops.subtract(near, far), margin))
    return loss if reduce == "no" else _sum_all(loss, _shape(anchor)[0])


# -- covariance penalties ------------------------------------------------------------------------
def _centered(x):
    return ops.subtract(x, ops.mean(x, axis=0, keepdims=True))


def _half_squared_sum(matrix, reduce: str):
    return matrix if reduce == "no" else ops.multiply(_sum_all(ops.square(matrix)), 0.5)


def cross_covariance(y, z, reduce: str = "half_squared_sum"):
    """Cross-covariance penalty of two batches of features ``y`` (N, M) and ``z`` (N, K).

    The covariance matrix ``(y - mean y).T @ (z - mean z) / N`` (over the batch axis) is
    returned with ``reduce='no'``; the default ``'half_squared_sum'`` returns half the sum of
    its squared entries, a penalty that decorrelates the two sets of features.

    >>> import numpy
    >>> y = numpy.array([[1.0], [-1.0]])
    >>> cross_covariance(y, y, reduce="no")
    array([[1.]])
    """
    fn = "cross_covariance"
    _check_floats(fn, ("y", "z"), y, z, same_shape=False)
    check_ndim(fn, "y", y, 2, hint="y holds one feature vector per sample: (N, M)")
    check_ndim(fn, "z", z, 2, hint="z holds one feature vector per sample: (N, K)")
    check_reduce(fn, reduce, ("half_squared_sum", "no"))
    if _shape(y)[0] != _shape(z)[0]:
        raise ShapeError(
            message(
                fn,
                f"expected y.shape[0] == z.shape[0] (one batch), got {_shape(y)[0]} != {_shape(z)[0]}",
                {"y": y, "z": z},
                "the rows of y and z are the same samples",
            )
        )
    covariance = ops.divide(ops.matmul(ops.transpose(_centered(y)), _centered(z)), _shape(y)[0])
    return _half_squared_sum(covariance, reduce)


def decov(h, reduce: str = "half_squared_sum"):
    """DeCov penalty of a batch of hidden activations ``h`` (N, D): their off-diagonal covariances.

    The covariance matrix of the features over the batch with its diagonal set to zero is
    returned with ``reduce='no'``; the default ``'half_squared_sum'`` returns half the sum of
    its squared entries, which discourages redundant features (Cogswell et al., 2016). Unlike
    Chainer's, this one can be differentiated twice.

    >>> import numpy
    >>> decov(numpy.array([[1.0, 1.0], [-1.0, -1.0]]), reduce="no")
    array([[0., 1.],
           [1., 0.]])
    """
    fn = "decov"
    check_float(fn, "h", h)
    check_ndim(fn, "h", h, 2, hint="h holds one activation vector per sample: (N, D)")
    check_reduce(fn, reduce, ("half_squared_sum", "no"))
    n, d = _shape(h)
    centered = _centered(h)
    off_diagonal = 1 - backend.xp(unbox_all(h)).eye(d, dtype=_dtype(h))
    covariance = ops.multiply(ops.divide(ops.matmul(ops.transpose(centered), centered), n), off_diagonal)
    return _half_squared_sum(covariance, reduce)


# -- classification losses ---------------------------------------------------------------------
def sigmoid_cross_entropy(x, t, normalize: bool = True, reduce: str = "mean"):
    """Cross entropy of binary labels ``t`` (0 or 1; -1 to ignore) and pre-sigmoid scores ``x``.

    Each element costs ``softplus(x)`` if ``t == 0`` and ``softplus(-x)`` if ``t == 1``, which is
    exact also where the probability is very close to 0 or 1. With ``reduce='mean'`` the sum is
    divided by the number of labels that are not -1 (``normalize=True``) or by the batch size
    ``len(x)``; with ``'no'`` the elementwise losses are returned, 0 where ``t == -1``.

    >>> import numpy
    >>> x = numpy.array([[-2.0, 3.0, 0.5], [5.0, 2.0, -0.5]], numpy.float32)
    >>> t = numpy.array([[0, 1, 0], [1, 1, -1]], numpy.int32)
    >>> round(float(sigmoid_cross_entropy(x, t)), 4)  # float32 exp and log: the last bits vary by CPU
    0.2566
    """
    fn = "sigmoid_cross_entropy"
    check_float(fn, "x", x)
    check_reduce(fn, reduce, ("mean", "no"))
    check_labels(fn, "t", t, 2, ignore_label=-1)
    check_same_shape(fn, ("x", "t"), x, t)
    t = unbox_all(t)
    valid = t != -1
    dtype = _dtype(x)
    # softplus(s * x) with s = -1 for t == 1 and +1 for t == 0 (and 0 for ignored entries)
    sign = ((1 - 2 * t) * valid).astype(dtype)
    loss = ops.multiply(softplus(ops.multiply(x, sign)), valid.astype(dtype))
    if reduce == "no":
        return loss
    count = int(valid.sum()) if normalize else _shape(x)[0]
    return _sum_all(loss, max(count, 1))


def hinge(x, t, norm: str = "L1", reduce: str = "mean"):
    """Hinge loss of scores ``x`` (N, K) for the true classes ``t`` (N,), one-vs-rest.

    Each score costs ``max(0, 1 - x)`` for the true class and ``max(0, 1 + x)`` for the others,
    to the power 1 (``norm='L1'``) or 2 (``'L2'``); ``reduce='mean'`` sums them and divides by
    N, ``'no'`` returns them with the shape of ``x``.

    >>> import numpy
    >>> x = numpy.array([[-2.0, 3.0, 0.5], [5.0, 2.0, -0.5]], numpy.float32)
    >>> float(hinge(x, numpy.array([1, 0], numpy.int32)))
    2.5
    """
    fn = "hinge"
    check_float(fn, "x", x)
    check_ndim(fn, "x", x, 2, hint="x holds one score per class for every sample: (N, K)")
    _check_choice(fn, "norm", norm, ("L1", "L2"))
    check_reduce(fn, reduce, ("mean", "no"))
    n, k = _shape(x)
    check_labels(fn, "t", t, k)
    _check_batch(fn, "t", t, n)
    t = unbox_all(t)
    xp = backend.xp(t)
    sign = xp.where(xp.arange(k) == t[:, None], -1, 1).astype(_dtype(x))
    loss = relu(ops.add(ops.multiply(x, sign), 1))
    if norm == "L2":
        loss = ops.square(loss)
    return loss if reduce == "no" else _sum_all(loss, n)


# softmax cross entropy: with e = exp(x - c) (c constant per sample) and s the sum of e over the
# classes, the loss is log(s / e[t]) and its gradient (e / s - onehot(t)) * g. The forward pass
# hands e and s (raw arrays) to the loss primitive as static parameters, so its VJP reuses them:
# one pass of exp in all (Chainer's cache_score). When the gradient is itself differentiated, x
# is traced in the VJP, and e and s are recomputed from it with differentiable primitives.
@functools.lru_cache
def _limits(dtype: numpy.dtype) -> tuple[float, float]:
    """The smallest normal number of a float dtype, and that number times e ** 20."""
    tiny = float(numpy.finfo(dtype).tiny)
    return tiny, tiny * math.exp(20)


@functools.lru_cache
def _ones(n: int, dtype: numpy.dtype):
    """A read-only vector of ones (summing by a matrix product), made once per length."""
    ones = numpy.ones(n, dtype)
    ones.flags.writeable = False
    return ones


def _raw_class_sum(e):
    """Sum over axis 1 (for a matrix a matrix-vector product: 2.5x faster than ``sum``)."""
    if e.ndim != 2:
        return e.sum(axis=1)
    xp = backend.xp(e)
    return e @ (_ones(e.shape[1], e.dtype) if xp is numpy else xp.ones(e.shape[1], e.dtype))


@opaque  # it branches on the values: a captured step calls it whole
def _softmax_parts(x) -> tuple:
    """``e = exp(x - c)`` and its sum ``s`` over the classes, with c the maximum over axis 1.

    On the CPU, subtracting c costs two passes over x (its maximum and the difference). They are
    skipped when ``s`` of ``exp(x)`` itself is finite and large enough that entries up to 20
    below the maximum are normal numbers; c cancels out of every use of e and s.
    """
    xp = backend.xp(x)
    x = xp.ascontiguousarray(x)  # e is read at flat positions (see _label_positions)
    if xp is numpy and x.size:
        with numpy.errstate(over="ignore"):
            e = numpy.exp(x)
        s = _raw_class_sum(e)
        if s.max() < numpy.inf and s.min() > _limits(s.dtype)[1]:
            return e, s
    e = x - x.max(axis=1, keepdims=True)
    xp.exp(e, out=e)
    return e, _raw_class_sum(e)


@primitive(name="softmax_numerator")
def _softmax_numerator(x):
    """``e`` of ``_softmax_parts``, traced: for the derivatives of the gradient."""
    return _softmax_parts(x)[0]


# c is a constant of differentiation (as the shift in a logsumexp): it cancels out of e / s.
_softmax_numerator.defvjp(lambda g, ans, x: ops.multiply(g, ans))


def _class_sum(e):
    """``_raw_class_sum`` in fnet ops."""
    shape = _shape(e)
    if len(shape) == 2:
        value = unbox_all(e)
        return ops.matmul(e, backend.xp(value).ones(shape[1], dtype=value.dtype))
    return ops.sum(e, axis=1)


def _label_positions(t, n_classes: int):
    """Where ``x[n, t[n, i...], i...]`` lies in ``x.ravel()``, for x of shape (N, C, ...) in C order.

    One flat index is faster than an index per axis (fancy indexing costs about 2 us less).
    """
    xp = backend.xp(t)
    if t.ndim == 1:
        return xp.arange(0, t.shape[0] * n_classes, n_classes) + t
    inner = t[0].size
    rows = xp.arange(t.shape[0]).reshape((-1,) + (1,) * (t.ndim - 1))
    return (rows * n_classes + t) * inner + xp.arange(inner).reshape(t.shape[1:])


@primitive(name="softmax_xent")
def _softmax_xent(x, positions, coef, *, total, scores):
    """``coef * (logsumexp(x) - x[t])`` per sample, summed when ``total``.

    ``positions``: the labels as positions in ``x.ravel()``; ``scores``: ``(e, s)`` or None.
    """
    e, s = _softmax_parts(x) if scores is None else scores
    xp = backend.xp(x)
    picked = e.ravel()[positions]
    if xp is numpy and (picked.size == 0 or picked.min() >= _limits(picked.dtype)[0]):
        loss = numpy.log(s / picked)  # logsumexp(x) - x[t], as exact as s and e
    else:  # some e[t] underflowed (on GPUs: spare the check): use the largest entry j of e,
        # logsumexp(x) = log(s / e[j]) + x[j]
        top = _label_positions(e.argmax(axis=1), e.shape[1])
        flat = x.ravel()
        loss = numpy.log(s / e.ravel()[top]) + (flat[top] - flat[positions])
    if not total:
        loss *= coef
        return loss
    return loss.sum() * coef if numpy.ndim(coef) == 0 else xp.vdot(loss, coef)


def _softmax_xent_vjp(g, ans, x, positions, coef, *, total, scores):
    if scores is None or type(x) is Tracer:  # not kept, or the gradient will be differentiated
        e = _softmax_numerator(x)
        scores = e, _class_sum(e)
    return _softmax_xent_grad(*scores, g, positions, coef)


_softmax_xent.defvjp(_softmax_xent_vjp, None, None)


@primitive(name="softmax_xent_grad")
def _softmax_xent_grad(e, s, g, positions, coef):
    """``(e / s - onehot(t)) * g * coef``: the gradient of the softmax cross entropy."""
    k = g * coef
    grad = e * (k / s)[:, None]  # e is C-contiguous (see _softmax_parts), so is grad
    grad.ravel()[positions] -= k
    return grad


def _weighted_dot(u, e):
    return _class_sum(ops.multiply(u, e))


_softmax_xent_grad.defvjp(
    lambda u, ans, e, s, g, positions, coef: ops.multiply(
        u, ops.expand_dims(ops.divide(ops.multiply(g, coef), s), 1)
    ),
    lambda u, ans, e, s, g, positions, coef: ops.negative(
        ops.divide(ops.multiply(_weighted_dot(u, e), ops.multiply(g, coef)), ops.square(s))
    ),
    lambda u, ans, e, s, g, positions, coef: ops.sum_to(
        ops.multiply(
            ops.subtract(ops.divide(_weighted_dot(u, e), s), ops.getitem(ops.ravel(u), positions)), coef
        ),
        _shape(g),
    ),
    None,
    None,
)


def _hard_target_loss(x, t, normalize, cache_score, class_weight, ignore_label, reduce):
    """Cross entropy of integer labels: the weights, the ignored samples and the normalization
    are folded into one coefficient per sample, computed once on the raw labels."""
    value = unbox_all(x)
    total = reduce == "mean"
    xp = backend.xp(t)
    valid = t != ignore_label
    t = xp.where(valid, t, 0)
    # the same array operations whatever the labels hold, so that a captured step follows them
    coef = valid.astype(value.dtype)
    if class_weight is not None:
        coef *= class_weight.astype(value.dtype)[t]
    if total:  # 1 / count rounded once to x's dtype, as dtype.type(1 / count) is
        coef /= xp.maximum(valid.sum() if normalize else t.shape[0], 1)
    scores = _softmax_parts(value) if cache_score else None
    return _softmax_xent(x, _label_positions(t, value.shape[1]), coef, total=total, scores=scores)


def _soft_target_loss(x, t, reduce: str, kl: bool):
    """Cross entropy (or KL divergence) of probability targets ``t`` shaped like x."""
    _check_floats("softmax_cross_entropy", ("x", "t"), x, t)
    log_p = log_softmax(x, axis=1)
    if kl:
        loss = ops.sum(ops.multiply(t, ops.subtract(ops.log(ops.add(t, 1e-7)), log_p)), axis=1)
    else:
        loss = ops.negative(ops.sum(ops.multiply(t, log_p), axis=1))
    return loss if reduce == "no" else _sum_all(loss, max(math.prod(_shape(loss)), 1))


def _check_soft_targets(fn: str, x, t) -> None:
    """A float ``t`` holds soft targets, of x's shape; one shaped like labels is a label array of
    the wrong dtype (the common mistake), and is reported as such."""
    shape, t_shape = _shape(x), _shape(t)
    if t_shape == shape:
        return
    labels_shape = shape[:1] + shape[2:]
    if t_shape == labels_shape:
        raise DTypeError(
            message(
                fn,
                f"expected t to hold integer class labels, got {_dtype(t)} (a float t is read as soft "
                f"targets, which have x's shape {shape})",
                {"x": x, "t": t},
                "cast the labels, e.g. t.astype(numpy.int32)",
            )
        )
    raise ShapeError(
        message(
            fn,
            f"expected t to be integer class labels of shape {labels_shape} or float soft targets of "
            f"x's shape {shape}, got {_dtype(t)} of shape {t_shape}",
            {"x": x, "t": t},
            "labels: one class index per sample (and position), e.g. t.astype(numpy.int32)",
        )
    )


def _check_class_weight(fn: str, class_weight, n_classes: int):
    if isinstance(class_weight, Tracer):
        raise InvalidInputError(
            message(
                fn,
                "expected class_weight to be a plain array (a constant of the loss), got a traced value",
                {"class_weight": class_weight},
                "class weights get no gradient; pass them outside the differentiated arguments",
            )
        )
    check_float(fn, "class_weight", class_weight)
    if _shape(class_weight) != (n_classes,):
        raise ShapeError(
            message(
                fn,
                f"expected class_weight.shape == ({n_classes},) (one weight per class), "
                f"got {_shape(class_weight)}",
                {"class_weight": class_weight},
                "class_weight[c] multiplies the loss of the samples of class c",
            )
        )


def softmax_cross_entropy(
    x,
    t,
    normalize: bool = True,
    cache_score: bool = True,
    class_weight=None,
    ignore_label: int = -1,
    reduce: str = "mean",
    enable_double_backprop: bool = False,
    soft_target_loss: str = "cross-entropy",
):
    """Cross entropy of labels ``t`` and the softmax of scores ``x`` over the class axis 1.

    ``x`` is (N, C) or (N, C, d1, ...) (a softmax at every position) and ``t`` holds integer
    labels of shape (N, d1, ...). Samples labelled ``ignore_label`` cost 0; ``class_weight``
    (C,) scales the loss of each sample by the weight of its class. ``reduce='mean'`` divides
    the sum by the number of labels not ignored (``normalize=True``) or by N; ``'no'`` returns
    one loss per sample. A float ``t`` shaped like ``x`` holds target probabilities (soft
    targets): the loss is their cross entropy or, with ``soft_target_loss='kl-divergence'``,
    their KL divergence, averaged over N * d1 * ... (the other options do not apply); its
    gradient is the exact one, which is Chainer's ``softmax - t`` when each target sums to 1
    (the targets get none, as in Chainer).
    ``cache_score=True`` keeps the softmax from the forward pass for the backward pass (one
    ``exp`` pass less, more memory). Every result can be differentiated twice:
    ``enable_double_backprop`` is accepted for compatibility and changes nothing.

    >>> import numpy
    >>> x = numpy.array([[-1.0, 0.0, 1.0, 2.0], [2.0, 0.0, 1.0, -1.0]], numpy.float32)
    >>> round(float(softmax_cross_entropy(x, numpy.array([3, 0], numpy.int32))), 4)  # float32 exp, log
    0.4402
    """
    fn = "softmax_cross_entropy"
    check_float(fn, "x", x)
    check_reduce(fn, reduce, ("mean", "no"))
    _check_choice(fn, "soft_target_loss", soft_target_loss, ("cross-entropy", "kl-divergence"))
    shape = _shape(x)
    if len(shape) < 2 or shape[1] == 0:
        raise ShapeError(
            message(
                fn,
                f"expected x of shape (N, C, ...) with C >= 1 (samples on axis 0, classes on axis 1), "
                f"got {shape}",
                {"x": x},
                "for a single sample add the batch axis, e.g. x[None]",
            )
        )
    dtype = getattr(unbox_all(t), "dtype", None)
    if dtype is not None and dtype.kind == "f":
        _check_soft_targets(fn, x, t)
        # the targets are data, as in Chainer: no gradient flows into them
        return _soft_target_loss(x, stop_gradient(t), reduce, soft_target_loss == "kl-divergence")
    check_labels(fn, "t", t, shape[1], ignore_label)
    t = unbox_all(t)
    if t.shape != shape[:1] + shape[2:]:
        raise ShapeError(
            message(
                fn,
                f"expected t.shape == x.shape[:1] + x.shape[2:] = {shape[:1] + shape[2:]}, got {t.shape}",
                {"x": x, "t": t},
                "t holds one label per sample (and position); the classes are on axis 1 of x",
            )
        )
    if class_weight is not None:
        _check_class_weight(fn, class_weight, shape[1])
    if _dtype(x) == numpy.float16:  # computed in float32, as Chainer accumulates it
        x32 = ops.astype(x, numpy.float32)
        loss = _hard_target_loss(x32, t, normalize, cache_score, class_weight, ignore_label, reduce)
        return ops.astype(loss, numpy.float16)
    return _hard_target_loss(x, t, normalize, cache_score, class_weight, ignore_label, reduce)


# -- instance segmentation -----------------------------------------------------------------------
def discriminative_margin_based_clustering_loss(
    embeddings,
    labels,
    delta_v: float,
    delta_d: float,
    max_embedding_dim: int,
    norm: int = 1,
    alpha: float = 1.0,
    beta: float = 1.0,
    gamma: float = 0.001,
):
    """The three terms of the discriminative loss for instance segmentation (De Brabandere et al., 2017).

    ``embeddings`` (B, D, H, W) gives a D-dimensional vector per pixel (D = ``max_embedding_dim``)
    and ``labels`` (B, H, W) the instance of each pixel: 1 to D (other values, e.g. 0 for the
    background, belong to no instance). With the centre of an instance the mean vector of its
    pixels in one image and distances in the L1 (``norm=1``) or L2 (``norm=2``) norm, returns
    ``(alpha * variance, beta * distance, gamma * regularization)``: the variance term pulls
    pixels to within ``delta_v`` of their centre, the distance term pushes the centres of every
    two of the D instances at least ``2 * delta_d`` apart, and the regularization term keeps the
    centres near the origin. Chainer's version only runs when B is 1 or D; this one takes any B.

    >>> import numpy
    >>> emb = numpy.zeros((1, 2, 2, 2), numpy.float32)
    >>> lab = numpy.array([[[1, 1], [2, 0]]], numpy.int32)
    >>> [float(v) for v in discriminative_margin_based_clustering_loss(emb, lab, 0.5, 1.5, 2)]
    [0.0, 9.0, 0.0]
    """
    fn = "discriminative_margin_based_clustering_loss"
    check_float(fn, "embeddings", embeddings)
    check_ndim(
        fn, "embeddings", embeddings, 4, hint="embeddings have the layout (batch, dims, height, width)"
    )
    check_labels(fn, "labels", labels, None)
    _check_choice(fn, "norm", norm, (1, 2))
    _check_positive(fn, "max_embedding_dim", max_embedding_dim)
    _check_positive(fn, "delta_v", delta_v, strict=False)
    _check_positive(fn, "delta_d", delta_d, strict=False)
    shape = _shape(embeddings)
    labels = unbox_all(labels)
    if shape[1] != max_embedding_dim or labels.shape != shape[:1] + shape[2:]:
        raise ShapeError(
            message(
                fn,
                f"expected embeddings of shape (B, {max_embedding_dim}, H, W) and labels of shape (B, H, W), "
                f"got {shape} and {labels.shape}",
                {"embeddings": embeddings, "labels": labels},
                "axis 1 of embeddings has max_embedding_dim entries; labels give one instance per pixel",
            )
        )
    n, batch = max_embedding_dim, shape[0]
    xp = backend.xp(labels)
    dtype = _dtype(embeddings)
    masks = labels[None] == xp.arange(1, n + 1).reshape(-1, 1, 1, 1)  # (n, B, H, W)
    pixels = masks.sum(axis=(2, 3))  # (n, B)
    sums = ops.einsum("cbhw,bdhw->cbd", masks.astype(dtype), embeddings)
    centers = ops.divide(sums, xp.maximum(pixels, 1)[:, :, None].astype(dtype))  # (n, B, D)

    member = (labels >= 1) & (labels <= n)
    instance = xp.where(member, labels - 1, 0)
    own = ops.getitem(centers, (instance, xp.arange(batch).reshape(-1, 1, 1)))  # (B, H, W, D)
    spread = _norm(ops.subtract(ops.moveaxis(embeddings, 1, -1), own), -1, norm)
    weight = (member / xp.maximum(pixels.sum(axis=1), 1)[instance]).astype(dtype)
    variance = ops.divide(ops.sum(ops.multiply(ops.square(relu(ops.subtract(spread, delta_v))), weight)), n)

    first, second = xp.triu_indices(n, 1)
    gaps = _norm(ops.subtract(ops.getitem(centers, first), ops.getitem(centers, second)), -1, norm)  # (P, B)
    distance = ops.divide(
        ops.sum(ops.square(relu(ops.subtract(2 * delta_d, gaps)))), max(len(first) * batch, 1)
    )

    regularization = ops.divide(ops.sum(_norm(ops.reshape(centers, (n, -1)), 1, norm)), n * batch)
    return ops.multiply(variance, alpha), ops.multiply(distance, beta), ops.multiply(regularization, gamma)
