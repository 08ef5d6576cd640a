"""Losses over sampled labels for large vocabularies: Chainer's ``F.black_out`` and
``F.negative_sampling``.

Both score each example against its true label and a few sampled ones only, gathering those rows
of the weight matrix, so a step costs O(samples) instead of O(vocabulary). They are composed of
fnet operations, so gradients of any order come from the tape.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy

from .. import backend, ops
from ..autodiff.tracer import unbox_all
from ..errors import InvalidInputError, ShapeError, message
from ._checks import check_float, check_labels, check_ndim, check_reduce, check_same_dtype
from .activation import softplus

__all__ = ["black_out", "negative_sampling"]


def _check_embedding_inputs(fn: str, x, t, W) -> int:
    """``x`` ``(N, D)``, ``W`` ``(V, D)`` of one float dtype, ``t`` integer ``(N,)``; returns V."""
    check_ndim(fn, "x", x, 2, "x is a batch of input vectors, (N, D)")
    check_float(fn, "x", x)
    check_ndim(fn, "W", W, 2, "W holds one weight vector per label, (V, D)")
    check_same_dtype(fn, ("x", "W"), x, W)
    (batch, width), (n_label, w_width) = unbox_all(x).shape, unbox_all(W).shape
    if width != w_width:
        raise ShapeError(
            message(
                fn,
                f"expected x.shape[1] == W.shape[1], got {width} != {w_width}",
                {"x": x, "W": W},
                "W has shape (n_vocab, in_size); did you pass W.T?",
            )
        )
    check_ndim(fn, "t", t, 1, "t holds one label per example")
    if numpy.shape(unbox_all(t))[0] != batch:
        raise ShapeError(
            message(
                fn,
                f"expected t.shape == ({batch},), one label per row of x, got {numpy.shape(unbox_all(t))}",
                {"x": x, "t": t},
                "x and t must describe the same examples",
            )
        )
    return n_label


def _logits(x, W, labels):
    """``logits[n, k] = W[labels[n, k]] . x[n]``: the scores of the gathered labels."""
    return ops.einsum("nkd,nd->nk", ops.getitem(W, labels), x)


def black_out(x, t, W, samples, reduce: str = "mean"):
    """BlackOut loss: a softmax over the true label and the sampled ones, with negatives pushed out.

    With ``p`` the softmax of the scores ``W[k] . x`` over the true label ``t`` and the sampled
    labels ``S`` only, the loss of an example is ``-log p(t) - sum_{s in S} log(1 - p(s))``
    (Ji et al., 2016): a cheap stand-in for a softmax over the whole vocabulary, whose samples
    the caller draws (e.g. from a unigram distribution) and passes in. ``log(1 - p)`` is
    computed as ``log(-expm1(log p))``, exact also where ``p`` is close to 1.

    Args:
        x: float array ``(N, D)`` of input vectors.
        t: integer array ``(N,)`` of true labels, in ``[0, V)``.
        W: float array ``(V, D)``, one weight vector per label (same dtype as ``x``).
        samples: integer array ``(N, S)`` of negative labels, in ``[0, V)``.
        reduce: ``'mean'`` for the mean over the batch, ``'no'`` for one loss per example.

    Returns:
        The loss, a scalar or of shape ``(N,)``, differentiable in ``x`` and ``W``.

    >>> import numpy
    >>> x, W = numpy.ones((1, 2)), numpy.zeros((4, 2))
    >>> round(float(black_out(x, numpy.array([0]), W, numpy.array([[1, 2]]))), 4)  # 3 log 3 - 2 log 2
    1.9095
    """
    check_reduce("black_out", reduce, ("mean", "no"))
    n_label = _check_embedding_inputs("black_out", x, t, W)
    check_ndim("black_out", "samples", samples, 2, "samples holds S negative labels per example, (N, S)")
    t, samples = unbox_all(t), unbox_all(samples)
    if samples.shape[0] != t.shape[0]:
        raise ShapeError(
            message(
                "black_out",
                f"expected samples.shape[0] == {t.shape[0]}, one row per example, got {samples.shape[0]}",
                {"x": x, "samples": samples},
                "samples has shape (N, S): S negative labels for each of the N examples",
            )
        )
    check_labels("black_out", "t", t, n_label)
    check_labels("black_out", "samples", samples, n_label)
    xp = backend.xp(x, W)
    labels = xp.concatenate([xp.asarray(t)[:, None], xp.asarray(samples)], axis=1)
    logits = _logits(x, W, labels)
    log_p = ops.subtract(logits, ops.logsumexp(logits, axis=1, keepdims=True))
    log_not_sampled = ops.log(ops.negative(ops.expm1(log_p[:, 1:])))
    loss = ops.negative(ops.add(log_p[:, 0], ops.sum(log_not_sampled, axis=1)))
    return ops.mean(loss) if reduce == "mean" else loss


def negative_sampling(
    x,
    t,
    W,
    sampler: Callable,
    sample_size: int,
    reduce: str = "sum",
    *,
    return_samples: bool = False,
):
    """Negative sampling loss (word2vec): the true label against ``sample_size`` drawn ones.

    Each example scores its true label ``t`` and ``sample_size`` labels drawn by
    ``sampler((N, sample_size + 1))`` (whose first column is replaced by ``t``, as Chainer does,
    so a deterministic sampler reproduces Chainer's samples); the loss is
    ``-log sigmoid(W[t] . x) - sum_n log sigmoid(-W[n] . x)``, a logistic regression that tells
    the true label from noise instead of a softmax over the vocabulary (Mikolov et al., 2013).
    Examples whose label is -1 are ignored (loss 0). float16 inputs are computed in float32.

    Args:
        x: float array ``(N, D)`` of input vectors.
        t: integer array ``(N,)`` of true labels in ``[0, V)``, or -1 to ignore the example.
        W: float array ``(V, D)``, one weight vector per label (same dtype as ``x``).
        sampler: ``sampler(shape) -> integer array of that shape`` of labels in ``[0, V)``,
            e.g. a Walker alias sampler of the unigram distribution raised to the power 3/4.
        sample_size: number of negative samples per example.
        reduce: ``'sum'`` for the sum over the batch, ``'no'`` for one loss per example.
        return_samples: also return the int32 ``(N, sample_size + 1)`` labels that were used.

    Returns:
        The loss (a scalar or of shape ``(N,)``), or ``(loss, samples)`` if ``return_samples``.

    >>> import numpy
    >>> x, W = numpy.zeros((2, 3)), numpy.zeros((5, 3))
    >>> sampler = lambda shape: numpy.ones(shape, numpy.int32)
    >>> round(float(negative_sampling(x, numpy.array([0, -1]), W, sampler, 2)), 4)  # 3 log 2
    2.0794
    """
    check_reduce("negative_sampling", reduce, ("sum", "no"))
    n_label = _check_embedding_inputs("negative_sampling", x, t, W)
    t = unbox_all(t)
    check_labels("negative_sampling", "t", t, n_label, ignore_label=-1)
    if isinstance(sample_size, bool) or not isinstance(sample_size, (int, numpy.integer)) or sample_size < 0:
        raise InvalidInputError(
            f"negative_sampling: expected sample_size to be a non-negative int, got {sample_size!r}\n"
            "  hint: sample_size is the number of negative labels drawn per example"
        )
    xp = backend.xp(x, W)
    shape = (t.shape[0], int(sample_size) + 1)
    drawn = xp.asarray(sampler(shape))
    if drawn.shape != shape:
        raise ShapeError(
            message(
                "negative_sampling",
                f"expected sampler({shape}) to return an array of shape {shape}, got {drawn.shape}",
                {"sampler(shape)": drawn},
                "the sampler takes a shape and returns labels of exactly that shape",
            )
        )
    check_labels("negative_sampling", "sampler(shape)[:, 1:]", drawn[:, 1:], n_label)  # column 0 becomes t
    samples = drawn.astype(numpy.int32)  # a copy: the sampler's array is left as it was
    samples[:, 0] = xp.asarray(t)
    kept = samples[:, 0] != -1

    half = unbox_all(x).dtype == numpy.float16
    if half:
        x, W = ops.astype(x, numpy.float32), ops.astype(W, numpy.float32)
    logits = _logits(x, W, xp.where(kept[:, None], samples, 0))
    signs = xp.ones(shape[1], dtype=unbox_all(x).dtype)
    signs[0] = -1  # -log sigmoid(a) = softplus(-a) for the true label, softplus(a) for the others
    loss = ops.where(kept, ops.sum(softplus(ops.multiply(logits, signs)), axis=1), 0)
    if reduce == "sum":
        loss = ops.sum(loss)
    if half:
        loss = ops.astype(loss, numpy.float16)
    return (loss, samples) if return_samples else loss
