"""connectionist_temporal_classification: brute force over every alignment, gradients, errors."""

from __future__ import annotations

import itertools

import numpy
import pytest

import fnet
from fnet import errors
from fnet.functions import connectionist_temporal_classification as ctc
from fnet.testing import check_grads

TOLERANCE = {numpy.float16: 1e-2, numpy.float32: 1e-5, numpy.float64: 1e-10}


def reference_ctc(x, t, blank, input_length, label_length):
    """-log p(t | x) per example, summing softmax probabilities over every collapsing alignment."""
    x = numpy.asarray(x, numpy.float64)
    n_vocab = x.shape[2]
    losses = []
    for b in range(x.shape[1]):
        steps = x[: input_length[b], b]
        probs = numpy.exp(steps - steps.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        target = tuple(int(v) for v in t[b, : label_length[b]])
        total = 0.0
        for alignment in itertools.product(range(n_vocab), repeat=len(steps)):
            merged = [k for i, k in enumerate(alignment) if i == 0 or k != alignment[i - 1]]
            if tuple(k for k in merged if k != blank) == target:
                total += numpy.prod([probs[i, k] for i, k in enumerate(alignment)])
        losses.append(-numpy.log(total))
    return numpy.array(losses)


def scores(shape, dtype, seed=0):
    return list(numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype))


CASES = {  # name: (T, B, V, t, blank, input_length, label_length)
    "full": (4, 2, 3, [[0, 1], [1, 0]], 2, None, None),
    "repeated labels": (5, 2, 3, [[1, 1], [0, 0]], 2, None, None),
    "blank first": (4, 3, 4, [[1, 2], [3, 3], [2, 1]], 0, None, None),
    "ragged input": (5, 2, 3, [[0, 1], [1, 1]], 2, [5, 3], None),
    "ragged labels": (4, 3, 3, [[0, 1], [1, 0], [0, 0]], 2, None, [2, 1, 0]),
    "both ragged": (5, 3, 3, [[1, 0, 1], [0, 2, 2], [1, 1, 1]], 2, [5, 2, 4], [3, 0, 1]),
    "padding labels": (4, 2, 3, [[0, 7], [1, -1]], 2, None, [1, 1]),
}


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("case", sorted(CASES))
def test_forward_matches_brute_force(case, dtype, reduce):
    n_time, batch, n_vocab, t, blank, input_length, label_length = CASES[case]
    x = scores((n_time, batch, n_vocab), dtype)
    t = numpy.array(t, numpy.int32)
    lengths = {}
    if input_length is not None:
        lengths["input_length"] = numpy.array(input_length, numpy.int32)
    if label_length is not None:
        lengths["label_length"] = numpy.array(label_length, numpy.int32)
    loss = ctc(x, t, blank, reduce=reduce, **lengths)
    expected = reference_ctc(
        x,
        t,
        blank,
        input_length or [n_time] * batch,
        label_length or [t.shape[1]] * batch,
    )
    if reduce == "mean":
        expected = expected.mean()
    assert loss.dtype == dtype
    assert loss.shape == expected.shape
    numpy.testing.assert_allclose(loss, expected, rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])


def test_tuple_input_and_int64_labels():
    x = tuple(scores((3, 2, 3), numpy.float32))
    t = numpy.array([[1], [0]], numpy.int64)
    expected = reference_ctc(x, t, 2, [3, 3], [1, 1]).mean()
    numpy.testing.assert_allclose(ctc(x, t, numpy.int64(2)), expected, rtol=1e-5)


def test_impossible_alignment_gives_a_large_finite_loss_and_finite_gradient():
    x = scores((2, 1, 3), numpy.float64)
    t = numpy.array([[1, 1]])  # needs three steps: 1, blank, 1
    loss, grads = fnet.value_and_grad(lambda x: ctc(x, t, 0))(x)
    assert 1e9 < float(loss) < numpy.inf
    assert all(numpy.isfinite(g).all() for g in grads)


def test_empty_label_on_empty_input_has_probability_one():
    x = scores((2, 2, 3), numpy.float64)
    loss = ctc(x, numpy.array([[1], [2]]), 0, numpy.array([0, 2]), numpy.array([0, 1]), reduce="no")
    numpy.testing.assert_allclose(loss[0], 0.0, atol=1e-12)


def test_steps_past_input_length_get_no_gradient():
    x = scores((4, 2, 3), numpy.float64)
    t = numpy.array([[1], [0]])
    grads = fnet.grad(lambda x: ctc(x, t, 2, input_length=numpy.array([4, 2])))(x)
    assert numpy.abs(grads[2][1]).max() == 0 and numpy.abs(grads[3][1]).max() == 0
    assert numpy.abs(grads[1][1]).max() > 0


@pytest.mark.parametrize(
    "n_time, batch, t, input_length, label_length, reduce",
    [
        (3, 2, [[0, 1], [1, 1]], None, None, "mean"),
        (4, 2, [[1, 0], [0, 0]], [4, 2], [2, 1], "no"),
        (2, 1, [[1]], None, None, "no"),
    ],
)
def test_grads(n_time, batch, t, input_length, label_length, reduce):
    x = scores((n_time, batch, 3), numpy.float64, seed=1)
    t = numpy.array(t, numpy.int32)
    lengths = {
        "input_length": None if input_length is None else numpy.array(input_length),
        "label_length": None if label_length is None else numpy.array(label_length),
    }
    check_grads(lambda x: ctc(x, t, 2, reduce=reduce, **lengths), (x,), order=2)


def test_gradient_is_softmax_minus_posterior_summing_to_zero():
    x = scores((3, 2, 4), numpy.float64)
    grads = fnet.grad(lambda x: ctc(x, numpy.array([[1, 2], [3, 3]]), 0, reduce="mean"))(x)
    numpy.testing.assert_allclose(numpy.sum(grads, axis=2), 0.0, atol=1e-12)


# -- errors --------------------------------------------------------------------------------
X = scores((3, 2, 3), numpy.float32)
T = numpy.array([[0, 1], [1, 0]], numpy.int32)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"x": numpy.stack(X)}, errors.DTypeError, r"expected x to be a non-empty list .* got ndarray"),
        ({"x": []}, errors.DTypeError, r"non-empty list"),
        (
            {"x": [X[0], X[1][:1]]},
            errors.ShapeError,
            r"x\[i\] to have the shape of x\[0\], got float32\[1, 3\] at i = 1",
        ),
        (
            {"x": [X[0], X[1].astype(numpy.float64)]},
            errors.DTypeError,
            r"x\[0\].dtype == x\[1\].dtype, got float32 != float64",
        ),
        ({"x": [X[0][0]]}, errors.ShapeError, r"expected x\[0\].ndim == 2, got 1"),
        ({"x": [(X[0] * 3).astype(numpy.int32)]}, errors.DTypeError, r"x\[0\] to be a float array"),
        (
            {"reduce": "sum"},
            errors.InvalidInputError,
            r"expected reduce to be one of 'mean', 'no', got 'sum'",
        ),
        ({"blank_symbol": 3}, errors.InvalidInputError, r"0 <= blank_symbol < 3 .* got 3"),
        ({"blank_symbol": -1}, errors.InvalidInputError, r"got -1"),
        ({"blank_symbol": 1.0}, errors.DTypeError, r"blank_symbol to be an int, got float"),
        ({"t": T[0]}, errors.ShapeError, r"expected t.ndim == 2, got 1"),
        ({"t": T[:1]}, errors.ShapeError, r"t.shape\[0\] == 2 .* got 1"),
        ({"t": T.astype(numpy.float32)}, errors.DTypeError, r"t to be an integer label array"),
        ({"t": T + 2}, errors.InvalidInputError, r"label 3 in t is out of range: expected 0 <= t < 3"),
        ({"input_length": numpy.array([3, 4])}, errors.InvalidInputError, r"0 <= input_length <= 3"),
        ({"input_length": numpy.array([3])}, errors.ShapeError, r"input_length.shape == \(2,\)"),
        ({"label_length": numpy.array([1.0, 2.0])}, errors.DTypeError, r"label_length to be an integer"),
        ({"label_length": numpy.array([-1, 2])}, errors.InvalidInputError, r"0 <= label_length <= 2"),
    ],
)
def test_errors(kwargs, error, match):
    args = {"x": X, "t": T, "blank_symbol": 2, **kwargs}
    with pytest.raises(error, match=match):
        ctc(**args)
