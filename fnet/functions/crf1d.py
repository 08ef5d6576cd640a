"""Linear-chain conditional random fields (Chainer's ``F.crf1d`` and ``F.argmax_crf1d``).

Sequences of a batch come transposed, as Chainer takes them: ``xs[i]`` holds position ``i`` of
every sequence still running, longest first, so batch sizes never grow along ``xs``. The
partition function is the forward algorithm in log space (one loop over positions, vectorized
over the batch and the labels); the decoder is Viterbi with a vectorized backtrack.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy

from .. import backend, ops
from ..autodiff.tracer import unbox_all
from ..errors import DTypeError, ShapeError, message
from ._checks import check_float, check_labels, check_ndim, check_reduce, check_same_dtype

__all__ = ["crf1d", "argmax_crf1d"]


def _batch_sizes(fn: str, cost, xs) -> list[int]:
    """Check ``cost`` against ``xs`` and return the batch size of each position."""
    check_ndim(fn, "cost", cost, 2, "cost is the (K, K) matrix of transition scores between labels")
    check_float(fn, "cost", cost)
    n_label = unbox_all(cost).shape[0]
    if unbox_all(cost).shape != (n_label, n_label):
        raise ShapeError(
            message(
                fn,
                f"expected cost to be square, got shape {unbox_all(cost).shape}",
                {"cost": cost},
                "cost[s, t] scores the transition from label s to label t: its shape is (K, K)",
            )
        )
    if not isinstance(xs, Sequence) or not xs:
        raise DTypeError(
            message(
                fn,
                f"expected xs to be a non-empty list of (B, K) arrays, one per step, got {type(xs).__name__}",
                {"xs": xs},
                "pass list(x) to split a (T, B, K) array into its positions",
            )
        )
    sizes = []
    for i, x in enumerate(xs):
        name = f"xs[{i}]"
        check_ndim(fn, name, x, 2, "each position holds label scores of shape (B, K)")
        check_same_dtype(fn, ("cost", name), cost, x)
        batch, width = unbox_all(x).shape
        if width != n_label:
            raise ShapeError(
                message(
                    fn,
                    f"expected {name}.shape[1] == {n_label} (the number of labels of cost), got {width}",
                    {"cost": cost, name: x},
                    "xs[i] holds the scores of all K labels at position i",
                )
            )
        if sizes and batch > sizes[-1]:
            raise ShapeError(
                message(
                    fn,
                    f"expected batch sizes that never grow along xs, got {name}.shape[0] == {batch} "
                    f"after {sizes[-1]}",
                    {f"xs[{i - 1}]": xs[i - 1], name: x},
                    "sort the sequences by decreasing length, then transpose them (see the docstring)",
                )
            )
        sizes.append(batch)
    return sizes


def _check_labels(fn: str, ys, sizes: list[int], n_label: int) -> list:
    """``ys`` must hold one integer label vector per position, of that position's batch size."""
    if not isinstance(ys, Sequence) or len(ys) != len(sizes):
        got = f"{type(ys).__name__} of length {len(ys)}" if isinstance(ys, Sequence) else type(ys).__name__
        raise ShapeError(
            f"{fn}: expected ys to be a list of {len(sizes)} label arrays, one per element of xs, got {got}\n"
            "  hint: ys[i] holds the true labels at position i, like xs[i]"
        )
    labels = []
    for i, (y, batch) in enumerate(zip(ys, sizes)):
        y = unbox_all(y)
        if numpy.shape(y) != (batch,):
            raise ShapeError(
                message(
                    fn,
                    f"expected ys[{i}].shape == ({batch},) like xs[{i}].shape[:1], got {numpy.shape(y)}",
                    {f"ys[{i}]": y},
                    "ys must be transposed and sorted like xs",
                )
            )
        check_labels(fn, f"ys[{i}]", y, n_label)
        labels.append(y)
    return labels


def _forward(cost, xs: Sequence, sizes: list[int], reduce):
    """The recursion ``alpha <- reduce(alpha[:, :, None] + cost) + x`` over positions.

    ``reduce`` folds the axis of previous labels (logsumexp for the partition function, max for
    Viterbi). Rows of sequences that end are split off as the batch shrinks; the last ``alpha``
    of every sequence comes back in batch order, ``(B_0, K)``.
    """
    alpha, finished = xs[0], []
    for x, batch in zip(xs[1:], sizes[1:]):
        if batch < unbox_all(alpha).shape[0]:
            finished.append(alpha[batch:])
            alpha = alpha[:batch]
        alpha = ops.add(reduce(ops.add(ops.expand_dims(alpha, 2), cost)), x)
    return ops.concatenate([alpha, *finished[::-1]], axis=0)


def crf1d(cost, xs: Sequence, ys: Sequence, reduce: str = "mean"):
    """Negative log-likelihood of label sequences under a linear-chain CRF.

    The score of labels ``y`` for inputs ``x`` is the sum of the unary scores ``x[i, y_i]`` and
    of the transition scores ``cost[y_i, y_{i+1}]``; the loss is ``log Z - score``, where the
    partition function ``Z`` sums ``exp(score)`` over every labelling. Sequences of different
    lengths are passed transposed and sorted, longest first: ``xs[i]`` stacks position ``i`` of
    the sequences long enough to have one, so ``xs[i].shape[0]`` never grows with ``i``.

    Args:
        cost: float array ``(K, K)``; ``cost[s, t]`` scores a transition from label s to t.
        xs: list of float arrays ``(B_i, K)``, the label scores at each position.
        ys: list of integer arrays ``(B_i,)``, the true labels at each position.
        reduce: ``'mean'`` for the mean over the ``B_0`` sequences, ``'no'`` for one loss each.

    Returns:
        The loss, a scalar or of shape ``(B_0,)``, differentiable in ``cost`` and ``xs``.

    >>> import numpy
    >>> cost = numpy.zeros((2, 2), numpy.float32)
    >>> xs = [numpy.zeros((1, 2), numpy.float32)] * 3
    >>> ys = [numpy.zeros(1, numpy.int32)] * 3
    >>> round(float(crf1d(cost, xs, ys)), 4)  # one of 8 equally likely labellings: log 8
    2.0794
    """
    check_reduce("crf1d", reduce, ("mean", "no"))
    sizes = _batch_sizes("crf1d", cost, xs)
    n_label = unbox_all(cost).shape[0]
    labels = _check_labels("crf1d", ys, sizes, n_label)

    log_z = ops.logsumexp(_forward(cost, xs, sizes, lambda scores: ops.logsumexp(scores, axis=1)), axis=1)

    # score: every unary and transition term, scattered onto its sequence in one operation
    xp = backend.xp(cost, *xs)
    labels = [xp.asarray(y) for y in labels]
    rows = xp.concatenate([xp.arange(batch) for batch in sizes] + [xp.arange(batch) for batch in sizes[1:]])
    current = xp.concatenate(labels)
    unary = ops.getitem(ops.concatenate(list(xs), axis=0), (xp.arange(len(current)), current))
    terms = unary
    if len(sizes) > 1:
        before = xp.concatenate([y[:batch] for y, batch in zip(labels[:-1], sizes[1:])])
        after = xp.concatenate(labels[1:])
        terms = ops.concatenate([unary, ops.getitem(cost, (before, after))])
    score = ops.scatter_add(xp.zeros(sizes[0], dtype=unbox_all(cost).dtype), rows, terms)
    loss = ops.subtract(log_z, score)
    return ops.mean(loss) if reduce == "mean" else loss


def argmax_crf1d(cost, xs: Sequence):
    """The best labelling of each sequence under a linear-chain CRF, and its score (Viterbi).

    Takes the transition scores and the transposed, longest-first batch of label scores of
    :func:`crf1d`, and finds for each sequence the labelling of highest score by dynamic
    programming over positions. The scores are differentiable (the gradient reaches the terms of
    the best path, as the gradient of a max does); the paths are integer arrays with no gradient.

    Args:
        cost: float array ``(K, K)`` of transition scores.
        xs: list of float arrays ``(B_i, K)`` of label scores, batch sizes non-increasing.

    Returns:
        ``(score, path)``: ``score`` of shape ``(B_0,)``, the score of each best labelling; and
        ``path``, a list of int32 arrays with ``path[i].shape == (B_i,)``, the labels chosen.

    >>> import numpy
    >>> cost = numpy.array([[0.0, -1.0], [-1.0, 0.0]])
    >>> score, path = argmax_crf1d(cost, [numpy.array([[1.0, 0.0]]), numpy.array([[0.0, 0.5]])])
    >>> float(score[0]), [int(p[0]) for p in path]
    (1.0, [0, 0])
    """
    sizes = _batch_sizes("argmax_crf1d", cost, xs)
    best_previous = []  # per position: the best previous label for each label, (B_i, K)

    def best(candidates):  # candidates[b, previous label, label]
        best_previous.append(ops.argmax(candidates, axis=1))
        return ops.max(candidates, axis=1)

    ends = _forward(cost, xs, sizes, best)
    labels = ops.argmax(ends, axis=1).astype(numpy.int32)  # the last label of each sequence
    xp = backend.xp(labels)
    path = [labels[: sizes[-1]]]  # built backwards, from the last position
    for i in range(len(sizes) - 1, 0, -1):
        back = best_previous[i - 1][xp.arange(sizes[i]), path[-1]].astype(numpy.int32)
        path.append(xp.concatenate([back, labels[sizes[i] : sizes[i - 1]]]))
    return ops.max(ends, axis=1), path[::-1]
