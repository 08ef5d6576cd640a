"""fnet.functions evaluation metrics: values against loop references, Chainer's edge cases, errors.

The metrics are not differentiable, so there is no gradient check: they look through traced
inputs and return plain arrays.
"""

from __future__ import annotations

import numpy
import pytest

import fnet
import fnet.functions as F
from fnet import ops
from fnet.errors import DTypeError, InvalidInputError, ShapeError

_rng = numpy.random.RandomState(7)

FLOATS = [numpy.float16, numpy.float32, numpy.float64]

# (y shape, t shape): y is (N, C, d1, ...), t is (N, d1, ...); y may end with size-1 axes.
LAYOUTS = [((12, 3), (12,)), ((6, 4, 3), (6, 3)), ((5, 3, 2, 1), (5, 2)), ((7, 5, 1), (7,))]


def scores(shape, dtype):
    """Scores with distinct values along every row (no arg-max ties, even in float16)."""
    n_classes = shape[1]
    ranks = numpy.argsort(_rng.uniform(size=shape), axis=1).astype(numpy.float64)
    return ((ranks - n_classes / 2) / 4 + _rng.uniform(0, 0.01, shape)).astype(dtype)


def labels(shape, n_classes, low=0):
    return _rng.randint(low, n_classes, shape).astype(numpy.int32)


def predicted(y, t_shape):
    """The first arg-max over axis 1 of each sample, by a Python loop."""
    out = numpy.zeros(t_shape, numpy.int64)
    for index in numpy.ndindex(*t_shape):
        full = (index[0], slice(None)) + index[1:] + (0,) * (y.ndim - len(t_shape) - 1)
        row = [float(v) for v in y[full]]
        out[index] = max(range(len(row)), key=row.__getitem__)
    return out


# -- accuracy ----------------------------------------------------------------------------------
def ref_accuracy(y, t, ignore_label):
    pred = predicted(y, t.shape)
    right = total = 0
    for p, label in zip(pred.ravel(), t.ravel()):
        if ignore_label is not None and label == ignore_label:
            continue
        total += 1
        right += int(p == label)
    return right / total if total else 0.0


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("y_shape, t_shape", LAYOUTS)
@pytest.mark.parametrize("ignore_label", [None, -1, 0])
def test_accuracy_forward(dtype, y_shape, t_shape, ignore_label):
    y = scores(y_shape, dtype)
    low = -1 if ignore_label == -1 else 0
    t = labels(t_shape, y_shape[1], low)
    acc = F.accuracy(y, t, ignore_label)
    assert isinstance(acc, numpy.ndarray) and acc.shape == () and acc.dtype == dtype
    numpy.testing.assert_allclose(
        acc, ref_accuracy(y, t, ignore_label), rtol=1e-3 if dtype == numpy.float16 else 1e-6
    )


def test_accuracy_chainer_examples():
    y = numpy.array([[0.1, 0.7, 0.2], [8.0, 1.0, 2.0], [-8.0, 1.0, 2.0], [-8.0, -1.0, -2.0]])
    assert F.accuracy(y, numpy.array([1, 0, 2, 1], numpy.int32)) == 1.0
    t = numpy.array([1, 0, 0, 0], numpy.int32)
    assert F.accuracy(y, t) == 0.5
    assert F.accuracy(y, t, ignore_label=0) == 1.0


def test_accuracy_all_ignored_is_zero():
    y = scores((4, 3), numpy.float32)
    acc = F.accuracy(y, numpy.full(4, -1, numpy.int32), ignore_label=-1)
    assert acc.dtype == numpy.float32 and acc == 0.0


def test_metrics_look_through_tracers():
    y = scores((5, 3), numpy.float64)
    t = labels((5,), 3)
    seen = {}

    def loss(y):
        seen["accuracy"] = F.accuracy(y, t)
        seen["summary"] = F.classification_summary(y, t, 3)
        seen["r2"] = F.r2_score(y, y * 2)
        return ops.sum(y)

    fnet.grad(loss)(y)
    assert type(seen["accuracy"]) is numpy.ndarray
    assert all(type(a) is numpy.ndarray for a in seen["summary"])
    assert type(seen["r2"]) is numpy.ndarray
    numpy.testing.assert_allclose(seen["accuracy"], ref_accuracy(y, t, None))


def test_accuracy_errors():
    y = scores((4, 3), numpy.float32)
    t = labels((4,), 3)
    with pytest.raises(DTypeError, match=r"accuracy: expected y to be a float array, got int32"):
        F.accuracy(t.reshape(4, 1), t)
    with pytest.raises(DTypeError, match=r"accuracy: expected t to be an integer label array, got float32"):
        F.accuracy(y, t.astype(numpy.float32))
    with pytest.raises(
        ShapeError, match=r"accuracy: expected y.shape == \(N, C\) \+ t.shape\[1:\].*\(4, 3\) and \(3,\)"
    ):
        F.accuracy(y, t[:3])
    with pytest.raises(ShapeError, match=r"y holds the class scores on axis 1"):
        F.accuracy(scores((4, 3, 2), numpy.float32), labels((4, 3), 3))


def test_accuracy_counts_labels_out_of_range_as_wrong_like_chainer():
    # A Classifier with -1 padded labels and the default accfun must not crash.
    y = numpy.eye(3, dtype=numpy.float32)[[0, 1, 2, 0]]
    assert F.accuracy(y, numpy.array([0, 1, 2, -1], numpy.int32)) == numpy.float32(0.75)
    assert F.accuracy(y, numpy.array([0, 1, 2, 3], numpy.int32)) == numpy.float32(0.75)
    assert F.accuracy(y, numpy.array([0, 1, 2, -1], numpy.int32), ignore_label=-1) == numpy.float32(1.0)


# -- binary_accuracy ---------------------------------------------------------------------------
def ref_binary_accuracy(y, t):
    right = total = 0
    for score, label in zip(y.ravel(), t.ravel()):
        if label == -1:
            continue
        total += 1
        right += int((1 if score >= 0 else 0) == label)
    return right / total if total else 0.0


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(9,), (3, 4), (2, 3, 2)])
def test_binary_accuracy_forward(dtype, shape):
    y = _rng.uniform(-1, 1, shape).astype(dtype)
    y.flat[0] = 0  # a score of exactly 0 predicts the positive class
    t = _rng.randint(-1, 2, shape).astype(numpy.int32)
    acc = F.binary_accuracy(y, t)
    assert acc.shape == () and acc.dtype == dtype
    numpy.testing.assert_allclose(
        acc, ref_binary_accuracy(y, t), rtol=1e-3 if dtype == numpy.float16 else 1e-6
    )


def test_binary_accuracy_chainer_examples_and_all_ignored():
    y = numpy.array([[-2.0, 0.0], [3.0, -5.0]])
    assert F.binary_accuracy(y, numpy.array([[0, 1], [1, 0]], numpy.int32)) == 1.0
    assert F.binary_accuracy(y, numpy.array([[0, 0], [1, 1]], numpy.int32)) == 0.5
    assert F.binary_accuracy(y, numpy.array([[0, -1], [1, -1]], numpy.int32)) == 1.0
    assert F.binary_accuracy(y, numpy.full((2, 2), -1, numpy.int32)) == 0.0


def test_binary_accuracy_errors():
    y = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(
        ShapeError, match=r"binary_accuracy: expected y.shape == t.shape, got \(2, 3\) != \(3, 2\)"
    ):
        F.binary_accuracy(y, numpy.zeros((3, 2), numpy.int32))
    assert F.binary_accuracy(y, numpy.full((2, 3), 2, numpy.int32)) == 0  # counted wrong, as in Chainer
    with pytest.raises(
        DTypeError, match=r"binary_accuracy: expected t to be an integer label array, got bool"
    ):
        F.binary_accuracy(y, numpy.zeros((2, 3), bool))
    with pytest.raises(DTypeError, match=r"binary_accuracy: expected y to be a float array, got int32"):
        F.binary_accuracy(numpy.zeros((2, 3), numpy.int32), numpy.zeros((2, 3), numpy.int32))


# -- classification_summary, precision, recall, f1_score --------------------------------------
def ref_summary(y, t, label_num, beta, ignore_label):
    pred = predicted(y, t.shape)
    tp, relevant, support = (numpy.zeros(label_num) for _ in range(3))
    for p, label in zip(pred.ravel(), t.ravel()):
        if label == ignore_label:
            continue
        support[label] += 1
        if p < label_num:
            relevant[p] += 1
        if p == label:
            tp[label] += 1
    with numpy.errstate(invalid="ignore", divide="ignore"):
        prec, rec = tp / relevant, tp / support
        fbeta = (1 + beta**2) * prec * rec / (beta**2 * prec + rec)
    return prec, rec, fbeta, support


def assert_summary(actual, expected):
    for got, want in zip(actual, expected):
        assert got.shape == want.shape
        numpy.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
    assert [a.dtype.kind for a in actual] == ["f", "f", "f", "i"]
    assert actual[0].dtype == numpy.float64


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("y_shape, t_shape", [((40, 3), (40,)), ((10, 3, 4), (10, 4)), ((8, 3, 1), (8,))])
@pytest.mark.parametrize(
    "label_num, beta, ignore_label", [(3, 1.0, -1), (None, 2.0, -1), (3, 0.5, 0), (5, 1.0, -1)]
)
def test_classification_summary_forward(dtype, y_shape, t_shape, label_num, beta, ignore_label):
    y = scores(y_shape, dtype)
    t = labels(t_shape, 3, low=-1)
    if ignore_label != -1:
        t[t == -1] = 1
    summary = F.classification_summary(y, t, label_num, beta, ignore_label)
    n = int(t.max()) + 1 if label_num is None else label_num
    assert_summary(summary, ref_summary(y, t, n, beta, ignore_label))


def test_classification_summary_empty_classes_give_nan_and_all_ignored():
    y = numpy.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]], numpy.float32)
    prec, rec, fbeta, support = F.classification_summary(y, numpy.array([0, 1], numpy.int32), label_num=3)
    numpy.testing.assert_array_equal(prec, [0.5, numpy.nan, numpy.nan])
    numpy.testing.assert_array_equal(rec, [1.0, 0.0, numpy.nan])
    numpy.testing.assert_array_equal(support, [1, 1, 0])
    numpy.testing.assert_allclose(fbeta, [2 / 3, numpy.nan, numpy.nan])
    ignored = numpy.full(2, -1, numpy.int32)
    assert all(a.shape == (0,) for a in F.classification_summary(y, ignored))
    prec, rec, fbeta, support = F.classification_summary(y, ignored, label_num=2)
    assert numpy.isnan(prec).all() and numpy.isnan(rec).all() and (support == 0).all()


@pytest.mark.parametrize("name, index", [("precision", 0), ("recall", 1), ("f1_score", 2)])
@pytest.mark.parametrize("label_num, ignore_label", [(None, -1), (4, 2)])
def test_precision_recall_f1(name, index, label_num, ignore_label):
    y = scores((30, 4), numpy.float32)
    t = labels((30,), 4, low=-1 if ignore_label == -1 else 0)
    value, support = getattr(F, name)(y, t, label_num=label_num, ignore_label=ignore_label)
    n = int(t.max()) + 1 if label_num is None else label_num
    expected = ref_summary(y, t, n, 1.0, ignore_label)
    numpy.testing.assert_allclose(value, expected[index], rtol=1e-12, equal_nan=True)
    numpy.testing.assert_array_equal(support, expected[3])


@pytest.mark.parametrize("fn", ["classification_summary", "precision", "recall", "f1_score"])
def test_summary_errors_name_the_function(fn):
    y = scores((4, 3), numpy.float32)
    with pytest.raises(InvalidInputError, match=rf"{fn}: label 3 in t is out of range: expected 0 <= t < 3"):
        getattr(F, fn)(y, numpy.array([0, 1, 2, 3], numpy.int32), label_num=3)
    with pytest.raises(InvalidInputError, match=rf"{fn}: label -2 in t is out of range"):
        getattr(F, fn)(y, numpy.array([0, 1, -2, -1], numpy.int32))
    with pytest.raises(DTypeError, match=rf"{fn}: expected t to be an integer label array, got float64"):
        getattr(F, fn)(y, numpy.zeros(4))
    with pytest.raises(ShapeError, match=rf"{fn}: expected y.shape == \(N, C\)"):
        getattr(F, fn)(y[0], numpy.zeros(3, numpy.int32))


# -- r2_score ----------------------------------------------------------------------------------
def ref_r2(pred, true):
    pred2 = pred.astype(numpy.float64).reshape(len(pred), -1)
    true2 = true.astype(numpy.float64).reshape(len(true), -1)
    out = []
    for column in range(pred2.shape[1]):
        p, t = pred2[:, column], true2[:, column]
        mean = sum(t) / len(t)
        ss_res = sum((a - b) ** 2 for a, b in zip(p, t))
        ss_tot = sum((b - mean) ** 2 for b in t)
        out.append(0.0 if ss_tot == 0 else 1 - ss_res / ss_tot)
    return numpy.array(out).reshape(pred.shape[1:])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(10,), (12, 3), (6, 2, 2)])
@pytest.mark.parametrize("multioutput", ["uniform_average", "raw_values"])
def test_r2_score_forward(dtype, shape, multioutput):
    true = _rng.standard_normal(shape).astype(dtype)
    pred = (true + 0.3 * _rng.standard_normal(shape)).astype(dtype)
    if len(shape) > 1:
        true[:, 0] = 1.5  # a constant column scores 0
    score = F.r2_score(pred, true, multioutput=multioutput)
    expected = ref_r2(pred, true)
    if multioutput == "uniform_average":
        expected = numpy.mean(expected)
    assert score.dtype == dtype and score.shape == numpy.shape(expected)
    tol = 2e-2 if dtype == numpy.float16 else 1e-5
    numpy.testing.assert_allclose(score, expected, rtol=tol, atol=tol)


def test_r2_score_errors():
    x = numpy.zeros((4, 2), numpy.float32)
    with pytest.raises(InvalidInputError, match=r"r2_score: sample_weight is not supported, got ndarray"):
        F.r2_score(x, x, sample_weight=numpy.ones(4))
    with pytest.raises(InvalidInputError, match=r"multioutput to be one of .*, got 'variance_weighted'"):
        F.r2_score(x, x, multioutput="variance_weighted")
    with pytest.raises(
        ShapeError, match=r"r2_score: expected pred.shape == true.shape, got \(4, 2\) != \(4,\)"
    ):
        F.r2_score(x, x[:, 0])
    with pytest.raises(DTypeError, match=r"r2_score: expected true to be a float array, got int64"):
        F.r2_score(x, numpy.zeros((4, 2), numpy.int64))
    with pytest.raises(ShapeError, match=r"r2_score: expected pred.ndim == 1..32, got 0"):
        F.r2_score(numpy.float32(1.0), numpy.float32(2.0))
