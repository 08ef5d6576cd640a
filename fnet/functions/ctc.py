"""Connectionist temporal classification (Chainer's ``F.connectionist_temporal_classification``).

The loss runs the CTC forward algorithm in log space with fnet operations: one loop over time
steps, vectorized over the batch and the positions of the label path, so that gradients of any
order come from the tape.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy

from .. import backend, ops
from ..autodiff.tracer import unbox_all
from ..errors import DTypeError, InvalidInputError, ShapeError, aval, message
from ._checks import check_float, check_labels, check_ndim, check_reduce, check_same_dtype
from .activation import log_softmax

__all__ = ["connectionist_temporal_classification"]

_FN = "connectionist_temporal_classification"
# log(0) stand-in: finite, so that no derivative ever meets inf - inf on impossible paths.
_LOG_ZERO = -1e10


def _stacked_scores(x):
    """The list of per-step ``(B, V)`` scores as one ``(T, B, V)`` array."""
    if not isinstance(x, Sequence) or not x:
        raise DTypeError(
            message(
                _FN,
                f"expected x to be a non-empty list of (B, V) arrays, one per step, got {type(x).__name__}",
                {"x": x},
                "pass list(scores) to split a (T, B, V) array into its time steps",
            )
        )
    for i, step in enumerate(x):
        check_ndim(_FN, f"x[{i}]", step, 2, "each time step holds scores of shape (B, V)")
        check_float(_FN, f"x[{i}]", step)
        check_same_dtype(_FN, ("x[0]", f"x[{i}]"), x[0], step)
        if numpy.shape(unbox_all(step)) != numpy.shape(unbox_all(x[0])):
            raise ShapeError(
                message(
                    _FN,
                    f"expected every x[i] to have the shape of x[0], got {aval(step)} at i = {i}",
                    {"x[0]": x[0], f"x[{i}]": step},
                    "pad shorter sequences to a common length and pass input_length",
                )
            )
    return ops.stack(list(x))


def _lengths(name: str, lengths, batch: int, default: int, xp):
    """Per-example lengths as an integer array of shape ``(batch,)`` in ``[0, default]``."""
    if lengths is None:
        return xp.full(batch, default, dtype=numpy.int64)
    lengths = unbox_all(lengths)
    dtype = getattr(lengths, "dtype", None)
    if dtype is None or dtype.kind not in "iu":
        raise DTypeError(
            message(
                _FN,
                f"expected {name} to be an integer array, got {dtype}",
                {name: lengths},
                f"pass lengths as integers, e.g. {name}.astype(numpy.int32)",
            )
        )
    if lengths.shape != (batch,):
        raise ShapeError(
            message(
                _FN,
                f"expected {name}.shape == ({batch},), one length per example, got {lengths.shape}",
                {name: lengths},
                "the batch size B is x[i].shape[0]",
            )
        )
    low, high = (int(lengths.min()), int(lengths.max())) if batch else (0, 0)
    if low < 0 or high > default:
        raise InvalidInputError(
            message(
                _FN,
                f"expected 0 <= {name} <= {default}, got values in [{low}, {high}]",
                {name: lengths},
                "input_length may not exceed len(x), and label_length may not exceed t.shape[1]",
            )
        )
    return xp.asarray(lengths)


def _label_path(t, label_length, blank_symbol: int, n_vocab: int, xp):
    """The label sequences with blanks around every label, ``(B, 2M + 1)``; padding is blank."""
    batch, max_label = t.shape
    labels = xp.where(xp.arange(max_label) < label_length[:, None], t, blank_symbol)
    check_labels(_FN, "t", labels, n_vocab)
    path = xp.full((batch, 2 * max_label + 1), blank_symbol, dtype=labels.dtype)
    path[:, 1::2] = labels
    return path


def connectionist_temporal_classification(
    x: Sequence,
    t,
    blank_symbol: int,
    input_length=None,
    label_length=None,
    reduce: str = "mean",
):
    """CTC loss: minus the log-probability of the label sequence ``t`` summed over every alignment.

    Connectionist temporal classification (Graves et al., 2006) trains sequence labellers whose
    alignment between inputs and labels is unknown. ``x`` holds unnormalized scores; the softmax
    over labels is applied inside, in log space, so do not apply it yourself (decode from the
    softmax of the scores). The forward algorithm runs over the path of labels separated by
    blanks, frozen after ``input_length[b]`` steps, and sums the last two path positions of
    ``label_length[b]``. Impossible alignments (labels longer than the input) give a very large
    finite loss, as in Chainer. Unlike Chainer, the result is differentiable to any order;
    float16 scores are computed in float32 and the loss is returned as float16.

    Args:
        x: a list of ``T`` float arrays of shape ``(B, V)``: the scores of the ``V`` labels
            (blank included) at each time step.
        t: integer array ``(B, M)`` of label sequences; entries past ``label_length`` are ignored.
        blank_symbol: index of the blank label, in ``[0, V)``.
        input_length: integer array ``(B,)`` of valid time steps (all ``T`` if None).
        label_length: integer array ``(B,)`` of valid labels of ``t`` (all ``M`` if None).
        reduce: ``'mean'`` for the mean over the batch, ``'no'`` for one loss per example.

    Returns:
        The loss, a scalar (``'mean'``) or of shape ``(B,)`` (``'no'``), in the dtype of ``x``.

    >>> import numpy
    >>> x = [numpy.zeros((1, 3), numpy.float32)] * 2
    >>> loss = connectionist_temporal_classification(x, numpy.array([[1]]), 0)
    >>> round(float(loss), 4)  # 3 of the 9 equally likely alignments give "1"
    1.0986
    """
    check_reduce(_FN, reduce, ("mean", "no"))
    scores = _stacked_scores(x)
    n_time, batch, n_vocab = unbox_all(scores).shape
    if isinstance(blank_symbol, bool) or not isinstance(blank_symbol, (int, numpy.integer)):
        raise DTypeError(
            f"{_FN}: expected blank_symbol to be an int, got {type(blank_symbol).__name__}\n"
            "  hint: blank_symbol is the index of the blank label among the V scores"
        )
    if not 0 <= blank_symbol < n_vocab:
        raise InvalidInputError(
            f"{_FN}: expected 0 <= blank_symbol < {n_vocab} (the number of labels V), got {blank_symbol}\n"
            "  hint: x[i] has shape (B, V) and its scores include the blank"
        )
    check_ndim(_FN, "t", t, 2, "t holds label sequences of shape (B, M)")
    t = unbox_all(t)
    if t.shape[0] != batch:
        raise ShapeError(
            message(
                _FN,
                f"expected t.shape[0] == {batch} (the batch size of x), got {t.shape[0]}",
                {"t": t},
                "t holds one label sequence per example, padded to a common length M",
            )
        )
    xp = backend.xp(scores)
    input_length = _lengths("input_length", input_length, batch, n_time, xp)
    label_length = _lengths("label_length", label_length, batch, t.shape[1], xp)
    path = _label_path(xp.asarray(t), label_length, int(blank_symbol), n_vocab, xp)

    half = unbox_all(scores).dtype == numpy.float16
    if half:
        scores = ops.astype(scores, numpy.float32)
    dtype = unbox_all(scores).dtype
    width = path.shape[1]
    # emit[i, b, s]: log-probability of path symbol s of example b at time i
    emit = ops.getitem(log_softmax(scores, axis=2), (slice(None), xp.arange(batch)[:, None], path))
    # a path position is reached from itself, its predecessor, or (skipping a blank) the one before
    sources = xp.stack([xp.arange(width) + 2, xp.arange(width) + 1, xp.arange(width)])
    barred = xp.zeros((batch, 3, width), dtype=dtype)  # log-weights of those three moves: 0 or log(0)
    barred[:, 2, :2] = _LOG_ZERO
    barred[:, 2, 2:] = xp.where(path[:, 2:] != path[:, :-2], 0, _LOG_ZERO)  # no skip between equal symbols
    alpha = xp.full((batch, width), _LOG_ZERO, dtype=dtype)
    alpha[:, 0] = 0
    ragged = bool((input_length < n_time).any())
    for step in range(n_time):
        previous = ops.getitem(
            ops.pad(alpha, ((0, 0), (2, 0)), constant_values=_LOG_ZERO), (slice(None), sources)
        )
        reached = ops.add(ops.logsumexp(ops.add(previous, barred), axis=1), emit[step])
        alpha = ops.where((step < input_length)[:, None], reached, alpha) if ragged else reached
    positions = xp.arange(width)
    last = 2 * label_length[:, None]
    ends = xp.where((positions == last) | (positions == last - 1), 0, _LOG_ZERO).astype(dtype)
    loss = ops.negative(ops.logsumexp(ops.add(alpha, ends), axis=1))
    if reduce == "mean":
        loss = ops.mean(loss)
    return ops.astype(loss, numpy.float16) if half else loss
