"""Evaluation metrics (Chainer's ``F.accuracy``, ``F.classification_summary``, ``F.r2_score``, ...).

They are not differentiable: traced inputs are looked through, and the results are plain arrays
with Chainer's dtypes (the score dtype for accuracies and R^2; float64 and the platform integer
for the per-class summary, as Chainer's division and bincount give).
"""

from __future__ import annotations

import numpy

from .. import backend
from ..autodiff.tracer import unbox_all
from ..errors import InvalidInputError, ShapeError, message
from ._checks import check_float, check_labels, check_ndim, check_same_shape

__all__ = [
    "accuracy",
    "binary_accuracy",
    "classification_summary",
    "precision",
    "recall",
    "f1_score",
    "r2_score",
]


def _scores_and_labels(fn: str, y, t):
    """Raw ``(y, t)`` after checking Chainer's layout: ``y`` is ``(N, C, d1, ...)``, ``t`` is
    ``(N, d1, ...)``; ``y`` may end with extra size-1 axes."""
    y, t = unbox_all(y), unbox_all(t)
    check_float(fn, "y", y)
    ys, ts = numpy.shape(y), numpy.shape(t)
    fits = (
        len(ys) >= 2
        and len(ys) >= len(ts) >= 1
        and ys[0] == ts[0]
        and ys[2 : len(ts) + 1] == ts[1:]
        and all(d == 1 for d in ys[len(ts) + 1 :])
    )
    if not fits:
        raise ShapeError(
            message(
                fn,
                f"expected y.shape == (N, C) + t.shape[1:] (with optional trailing 1s), got {ys} and {ts}",
                {"y": y, "t": t},
                "y holds the class scores on axis 1; t holds one label per sample, without that axis",
            )
        )
    return y, t


def _ratio(xp, count, total, dtype):
    """``count / total`` as a 0-d array of ``dtype``; 0 when ``total`` is 0 (Chainer's value)."""
    # copy, not asarray: NumPy hands it to a captured array, so a recording follows it (and it
    # makes a 0-d array of a NumPy scalar)
    return xp.copy((count / xp.maximum(total, 1)).astype(dtype))


def accuracy(y, t, ignore_label: int | None = None):
    """Fraction of samples whose arg-max class along axis 1 of ``y`` equals the label in ``t``.

    Samples labelled ``ignore_label`` count neither as right nor as wrong; when every label is
    ignored the accuracy is 0. Other labels outside ``[0, C)`` (such as -1 padding when
    ``ignore_label`` is None) count as wrong, as in Chainer. The result is a 0-d array of
    ``y``'s dtype and carries no gradient (the arg-max is piecewise constant).

    >>> import numpy
    >>> y = numpy.array([[0.1, 0.7, 0.2], [8.0, 1.0, 2.0]], numpy.float32)
    >>> accuracy(y, numpy.array([1, 2], numpy.int32))
    array(0.5, dtype=float32)
    """
    fn = "accuracy"
    y, t = _scores_and_labels(fn, y, t)
    check_labels(fn, "t", t, None)
    xp = backend.xp(y, t)
    hit = y.argmax(axis=1).reshape(t.shape) == t
    if ignore_label is None:
        return _ratio(xp, hit.sum(), t.size, y.dtype)
    valid = t != ignore_label
    return _ratio(xp, (hit & valid).sum(), valid.sum(), y.dtype)


def binary_accuracy(y, t):
    """Fraction of elements whose sign-based prediction ``y >= 0`` matches the 0/1 label in ``t``.

    Labels of -1 are ignored (they count neither as right nor as wrong); when every label is -1
    the accuracy is 0. Other labels than 0 and 1 count as wrong, as in Chainer. The result is a
    0-d array of ``y``'s dtype and carries no gradient.

    >>> import numpy
    >>> y = numpy.array([[-2.0, 0.0], [3.0, -5.0]], numpy.float32)
    >>> binary_accuracy(y, numpy.array([[0, -1], [0, -1]], numpy.int32))
    array(0.5, dtype=float32)
    """
    fn = "binary_accuracy"
    y, t = unbox_all(y), unbox_all(t)
    check_float(fn, "y", y)
    check_same_shape(fn, ("y", "t"), y, t)
    check_labels(fn, "t", t, None)
    xp = backend.xp(y, t)
    return _ratio(xp, ((y >= 0) == t).sum(), (t != -1).sum(), y.dtype)


def _summary(fn: str, y, t, label_num: int | None, beta: float, ignore_label: int):
    """Per-class precision, recall, F-beta score and support, computed with bincounts."""
    y, t = _scores_and_labels(fn, y, t)
    xp = backend.xp(y, t)
    if label_num is None:
        label_num = int(xp.max(t)) + 1 if numpy.size(t) else 0
    check_labels(fn, "t", t, label_num, ignore_label)
    ignored = (t == ignore_label).ravel()
    true = xp.where(ignored, label_num, t.ravel().astype(numpy.int64))
    pred = xp.where(ignored, label_num, y.argmax(axis=1).ravel())

    def per_class(labels):
        return xp.bincount(labels, minlength=label_num + 1)[:label_num]

    tp = per_class(xp.where(pred == true, true, label_num))
    support = per_class(true)
    beta2 = beta * beta
    with numpy.errstate(divide="ignore", invalid="ignore"):  # empty classes give NaN, as in Chainer
        prec = tp / per_class(pred)
        rec = tp / support
        fbeta = (1 + beta2) * prec * rec / (beta2 * prec + rec)
    return prec, rec, fbeta, support


def classification_summary(y, t, label_num: int | None = None, beta: float = 1.0, ignore_label: int = -1):
    """Per-class precision, recall, F-beta score and support of arg-max predictions along axis 1.

    Classes are ``0 .. label_num - 1`` (``label_num`` defaults to ``t.max() + 1``); samples
    labelled ``ignore_label`` are left out. As in Chainer, a class never predicted (or never
    present) gets a NaN precision (or recall), the three scores are float64 and the support is
    the platform's integer; nothing carries a gradient. Returns ``(precision, recall, fbeta,
    support)``, each of shape ``(label_num,)``.

    >>> import numpy
    >>> y = numpy.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], numpy.float32)
    >>> p, r, f, s = classification_summary(y, numpy.array([0, 1, 1], numpy.int32))
    >>> p, r, s
    (array([0.5, 1. ]), array([1. , 0.5]), array([1, 2]))
    """
    return _summary("classification_summary", y, t, label_num, beta, ignore_label)


def precision(y, t, label_num: int | None = None, ignore_label: int = -1):
    """Per-class precision ``tp / (tp + fp)`` and the support, as ``classification_summary`` does.

    Returns ``(precision, support)``; see ``classification_summary`` for the conventions.
    """
    summary = _summary("precision", y, t, label_num, 1.0, ignore_label)
    return summary[0], summary[3]


def recall(y, t, label_num: int | None = None, ignore_label: int = -1):
    """Per-class recall ``tp / (tp + fn)`` and the support, as ``classification_summary`` does.

    Returns ``(recall, support)``; see ``classification_summary`` for the conventions.
    """
    summary = _summary("recall", y, t, label_num, 1.0, ignore_label)
    return summary[1], summary[3]


def f1_score(y, t, label_num: int | None = None, ignore_label: int = -1):
    """Per-class F1 score (harmonic mean of precision and recall) and the support.

    Returns ``(f1, support)``; see ``classification_summary`` for the conventions.
    """
    summary = _summary("f1_score", y, t, label_num, 1.0, ignore_label)
    return summary[2], summary[3]


_MULTIOUTPUTS = ("uniform_average", "raw_values")


def r2_score(pred, true, sample_weight=None, multioutput: str = "uniform_average"):
    """Coefficient of determination ``1 - SS_res / SS_tot`` of each output column (axis 0 is the batch).

    A column whose targets are constant (``SS_tot == 0``) scores 0, as in Chainer.
    ``multioutput='uniform_average'`` averages the columns into a 0-d array, ``'raw_values'``
    returns one score per column; the dtype is ``pred``'s. ``sample_weight`` exists for
    scikit-learn's signature and must be None. No gradient is carried.

    >>> import numpy
    >>> r2_score(numpy.array([1.0, 2.0, 3.5]), numpy.array([1.0, 2.0, 3.0]))
    array(0.875)
    """
    fn = "r2_score"
    if sample_weight is not None:
        raise InvalidInputError(
            message(
                fn,
                f"sample_weight is not supported, got {type(sample_weight).__name__}",
                hint="pass sample_weight=None (Chainer accepts only None as well)",
            )
        )
    if multioutput not in _MULTIOUTPUTS:
        raise InvalidInputError(
            message(
                fn,
                f"expected multioutput to be one of {_MULTIOUTPUTS}, got {multioutput!r}",
                hint="'uniform_average' gives the mean score, 'raw_values' one score per output",
            )
        )
    pred, true = unbox_all(pred), unbox_all(true)
    check_float(fn, "pred", pred)
    check_float(fn, "true", true)
    check_same_shape(fn, ("pred", "true"), pred, true)
    check_ndim(fn, "pred", pred, range(1, 33), hint="the first axis must index the samples")
    xp = backend.xp(pred, true)
    ss_res = ((pred - true) ** 2).sum(axis=0)
    ss_tot = ((true - true.mean(axis=0)) ** 2).sum(axis=0)
    constant = ss_tot == 0
    score = xp.where(constant, 0.0, 1 - ss_res / xp.where(constant, 1, ss_tot)).astype(pred.dtype)
    return xp.asarray(score.mean()) if multioutput == "uniform_average" else score
