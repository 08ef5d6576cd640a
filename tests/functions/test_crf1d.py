"""crf1d and argmax_crf1d: brute force over every labelling, gradients, errors."""

from __future__ import annotations

import itertools

import numpy
import pytest

from fnet import errors
from fnet.functions import argmax_crf1d, crf1d
from fnet.testing import check_grads

TOLERANCE = {numpy.float16: 2e-2, numpy.float32: 1e-5, numpy.float64: 1e-10}
BATCHES = [[2, 2, 2], [3, 2, 1], [3, 1, 1], [2], [4, 4, 2, 1]]


def make(batches, n_label=3, dtype=numpy.float64, seed=0):
    rng = numpy.random.RandomState(seed)
    cost = rng.uniform(-1, 1, (n_label, n_label)).astype(dtype)
    xs = [rng.uniform(-1, 1, (b, n_label)).astype(dtype) for b in batches]
    ys = [rng.randint(0, n_label, b).astype(numpy.int32) for b in batches]
    return cost, xs, ys


def sequences(xs):
    """The transposed batch back as one (length, K) float64 array per sequence."""
    return [numpy.array([x[b] for x in xs if len(x) > b], numpy.float64) for b in range(len(xs[0]))]


def path_score(cost, x, labels):
    return sum(x[i, y] for i, y in enumerate(labels)) + sum(cost[a, b] for a, b in zip(labels, labels[1:]))


def labellings(x):
    return itertools.product(range(x.shape[1]), repeat=len(x))


def reference_nll(cost, xs, ys):
    cost = numpy.asarray(cost, numpy.float64)
    losses = []
    for b, x in enumerate(sequences(xs)):
        log_z = numpy.logaddexp.reduce([path_score(cost, x, labels) for labels in labellings(x)])
        losses.append(log_z - path_score(cost, x, [int(y[b]) for y in ys[: len(x)]]))
    return numpy.array(losses)


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("batches", BATCHES, ids=str)
def test_crf1d_matches_brute_force(batches, dtype, reduce):
    cost, xs, ys = make(batches, dtype=dtype)
    loss = crf1d(cost, xs, ys, reduce=reduce)
    expected = reference_nll(cost, xs, ys)
    if reduce == "mean":
        expected = expected.mean()
    assert loss.dtype == dtype and loss.shape == expected.shape
    numpy.testing.assert_allclose(loss, expected, rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("batches", BATCHES, ids=str)
def test_argmax_crf1d_matches_brute_force(batches, dtype):
    cost, xs, _ = make(batches, n_label=3, dtype=dtype, seed=1)
    score, path = argmax_crf1d(cost, xs)
    assert score.shape == (batches[0],) and score.dtype == dtype
    assert [p.shape for p in path] == [(b,) for b in batches]
    assert all(p.dtype == numpy.int32 for p in path)
    for b, x in enumerate(sequences(xs)):
        best = max(labellings(x), key=lambda labels: path_score(cost, x, labels))
        assert [int(p[b]) for p in path[: len(x)]] == list(best)
        numpy.testing.assert_allclose(score[b], path_score(cost, x, best), rtol=TOLERANCE[dtype])


def test_two_labels_and_a_single_step():
    cost, xs, ys = make([3], n_label=2)
    numpy.testing.assert_allclose(crf1d(cost, xs, ys, reduce="no"), reference_nll(cost, xs, ys), rtol=1e-12)
    score, path = argmax_crf1d(cost, xs)
    numpy.testing.assert_array_equal(path[0], xs[0].argmax(axis=1))
    numpy.testing.assert_allclose(score, xs[0].max(axis=1))


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("batches", [[2, 2], [3, 2, 1], [1]], ids=str)
def test_crf1d_grads(batches, reduce):
    cost, xs, ys = make(batches, n_label=3, seed=2)
    check_grads(lambda cost, xs: crf1d(cost, xs, ys, reduce=reduce), (cost, xs), order=2)


@pytest.mark.parametrize("batches", [[2, 2], [3, 1, 1]], ids=str)
def test_argmax_crf1d_score_grads(batches):
    cost, xs, _ = make(batches, n_label=3, seed=3)
    check_grads(lambda cost, xs: argmax_crf1d(cost, xs)[0], (cost, xs), order=2)


# -- errors --------------------------------------------------------------------------------
COST, XS, YS = make([2, 1], dtype=numpy.float32)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"reduce": "sum"}, errors.InvalidInputError, r"crf1d: expected reduce to be one of 'mean', 'no'"),
        ({"cost": COST[0]}, errors.ShapeError, r"expected cost.ndim == 2, got 1"),
        ({"cost": COST[:2]}, errors.ShapeError, r"cost to be square, got shape \(2, 3\)"),
        ({"cost": COST.astype(numpy.int32)}, errors.DTypeError, r"cost to be a float array"),
        ({"cost": COST.astype(numpy.float64)}, errors.DTypeError, r"cost.dtype == xs\[0\].dtype"),
        ({"xs": numpy.stack([XS[0], XS[0]])}, errors.DTypeError, r"xs to be a non-empty list"),
        ({"xs": [XS[0][:, :2], XS[1][:, :2]]}, errors.ShapeError, r"xs\[0\].shape\[1\] == 3 .* got 2"),
        ({"xs": [XS[0][0]]}, errors.ShapeError, r"xs\[0\].ndim == 2"),
        ({"xs": [XS[1], XS[0]], "ys": [YS[1], YS[0]]}, errors.ShapeError, r"never grow .* == 2 after 1"),
        ({"ys": YS[:1]}, errors.ShapeError, r"ys to be a list of 2 label arrays, .* got list of length 1"),
        (
            {"ys": [YS[0], YS[0]]},
            errors.ShapeError,
            r"ys\[1\].shape == \(1,\) like xs\[1\].shape\[:1\], got \(2,\)",
        ),
        ({"ys": [YS[0], YS[1] + 3]}, errors.InvalidInputError, r"label \d in ys\[1\] is out of range"),
        ({"ys": [YS[0], YS[1].astype(numpy.float32)]}, errors.DTypeError, r"ys\[1\] to be an integer"),
    ],
)
def test_crf1d_errors(kwargs, error, match):
    args = {"cost": COST, "xs": XS, "ys": YS, **kwargs}
    with pytest.raises(error, match=match):
        crf1d(**args)


@pytest.mark.parametrize(
    "cost, xs, error, match",
    [
        (COST, [], errors.DTypeError, r"argmax_crf1d: expected xs to be a non-empty list"),
        (COST, [XS[1], XS[0]], errors.ShapeError, r"argmax_crf1d: expected batch sizes that never grow"),
    ],
)
def test_argmax_crf1d_errors(cost, xs, error, match):
    with pytest.raises(error, match=match):
        argmax_crf1d(cost, xs)
