"""black_out and negative_sampling: per-example loops as references, gradients, errors."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import errors
from fnet.functions import black_out, negative_sampling
from fnet.testing import check_grads

TOLERANCE = {numpy.float16: 5e-3, numpy.float32: 1e-5, numpy.float64: 1e-10}
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def arrays(batch, in_size, n_vocab, dtype, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(-1, 1, (batch, in_size)).astype(dtype)
    W = rng.uniform(-1, 1, (n_vocab, in_size)).astype(dtype)
    return x, W


# -- black_out -----------------------------------------------------------------------------
def reference_black_out(x, t, W, samples):
    x, W = numpy.asarray(x, numpy.float64), numpy.asarray(W, numpy.float64)
    losses = []
    for n in range(len(x)):
        positive = numpy.exp(W[t[n]] @ x[n])
        negatives = [numpy.exp(W[s] @ x[n]) for s in samples[n]]
        z = positive + sum(negatives)
        losses.append(-(numpy.log(positive / z) + sum(numpy.log(1 - e / z) for e in negatives)))
    return numpy.array(losses)


BLACK_OUT_SHAPES = [(5, 4, 3, 2), (1, 3, 6, 1), (3, 2, 4, 4)]  # batch, in_size, n_vocab, n_samples


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch, in_size, n_vocab, n_samples", BLACK_OUT_SHAPES)
def test_black_out_forward(batch, in_size, n_vocab, n_samples, dtype, reduce):
    x, W = arrays(batch, in_size, n_vocab, dtype)
    rng = numpy.random.RandomState(1)
    t = rng.randint(n_vocab, size=batch).astype(numpy.int32)
    samples = rng.randint(n_vocab, size=(batch, n_samples)).astype(numpy.int32)
    loss = black_out(x, t, W, samples, reduce=reduce)
    expected = reference_black_out(x, t, W, samples)
    if reduce == "mean":
        expected = expected.mean()
    assert loss.dtype == dtype and loss.shape == expected.shape
    numpy.testing.assert_allclose(loss, expected, rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("batch, in_size, n_vocab, n_samples", BLACK_OUT_SHAPES[:2])
def test_black_out_grads(batch, in_size, n_vocab, n_samples, reduce):
    x, W = arrays(batch, in_size, n_vocab, numpy.float64, seed=2)
    rng = numpy.random.RandomState(3)
    t = rng.randint(n_vocab, size=batch)
    samples = rng.randint(n_vocab, size=(batch, n_samples))
    check_grads(lambda x, W: black_out(x, t, W, samples, reduce), (x, W), order=2)


X, W = arrays(2, 3, 5, numpy.float32)
T = numpy.array([0, 2], numpy.int32)
SAMPLES = numpy.array([[1, 4], [3, 3]], numpy.int32)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            {"reduce": "sum"},
            errors.InvalidInputError,
            r"black_out: expected reduce to be one of 'mean', 'no'",
        ),
        ({"x": X[0]}, errors.ShapeError, r"expected x.ndim == 2, got 1"),
        ({"x": X.astype(numpy.int32)}, errors.DTypeError, r"x to be a float array"),
        ({"W": W.astype(numpy.float64)}, errors.DTypeError, r"x.dtype == W.dtype, got float32 != float64"),
        ({"W": W[:, :2]}, errors.ShapeError, r"x.shape\[1\] == W.shape\[1\], got 3 != 2"),
        ({"t": T[:1]}, errors.ShapeError, r"t.shape == \(2,\), one label per row of x, got \(1,\)"),
        ({"t": T[:, None]}, errors.ShapeError, r"t.ndim == 1, got 2"),
        ({"t": T + 4}, errors.InvalidInputError, r"label 6 in t is out of range: expected 0 <= t < 5"),
        ({"t": T - 1}, errors.InvalidInputError, r"label -1 in t is out of range"),
        ({"samples": SAMPLES[0]}, errors.ShapeError, r"samples.ndim == 2, got 1"),
        ({"samples": SAMPLES[:1]}, errors.ShapeError, r"samples.shape\[0\] == 2, one row per example, got 1"),
        ({"samples": SAMPLES * 2}, errors.InvalidInputError, r"label 8 in samples is out of range"),
        ({"samples": SAMPLES.astype(numpy.float32)}, errors.DTypeError, r"samples to be an integer"),
    ],
)
def test_black_out_errors(kwargs, error, match):
    args = {"x": X, "t": T, "W": W, "samples": SAMPLES, **kwargs}
    with pytest.raises(error, match=match):
        black_out(**args)


# -- negative_sampling ---------------------------------------------------------------------
def cyclic_sampler(n_vocab):
    """A deterministic sampler (as in Chainer's tests): 0, 1, 2, ... modulo the vocabulary."""

    def sample(shape):
        return (numpy.arange(numpy.prod(shape)) % n_vocab).reshape(shape).astype(numpy.int32)

    return sample


def reference_negative_sampling(x, t, W, samples):
    x, W = numpy.asarray(x, numpy.float64), numpy.asarray(W, numpy.float64)
    losses = numpy.zeros(len(x))
    for n in range(len(x)):
        if t[n] == -1:
            continue
        labels = [t[n], *samples[n, 1:]]
        scores = numpy.array([W[k] @ x[n] for k in labels])
        scores[0] *= -1
        losses[n] = numpy.sum(numpy.log1p(numpy.exp(scores)))
    return losses


@pytest.mark.parametrize("reduce", ["sum", "no"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("t", [[0, 2], [-1, 1, 2], [4, -1, 3, 3]], ids=str)
def test_negative_sampling_forward(t, dtype, reduce):
    t = numpy.array(t, numpy.int32)
    x, W = arrays(len(t), 3, 5, dtype)
    sample_size = 2
    loss = negative_sampling(x, t, W, cyclic_sampler(5), sample_size, reduce=reduce)
    expected_samples = cyclic_sampler(5)((len(t), sample_size + 1))
    expected = reference_negative_sampling(x, t, W, expected_samples)
    if reduce == "sum":
        expected = expected.sum()
    assert loss.dtype == dtype and loss.shape == expected.shape
    numpy.testing.assert_allclose(loss, expected, rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])


def test_negative_sampling_returns_the_samples_it_used():
    t = numpy.array([-1, 1, 2], numpy.int32)
    x, W = arrays(3, 4, 6, numpy.float32)
    drawn = []

    def sampler(shape):
        drawn.append(numpy.random.RandomState(len(drawn)).randint(0, 6, shape).astype(numpy.int64))
        return drawn[-1]

    loss, samples = negative_sampling(x, t, W, sampler, 3, reduce="no", return_samples=True)
    assert samples.dtype == numpy.int32 and samples.shape == (3, 4)
    numpy.testing.assert_array_equal(samples[:, 0], t)
    numpy.testing.assert_array_equal(samples[:, 1:], drawn[0][:, 1:])
    # the sampler's own array is left as it was
    numpy.testing.assert_array_equal(drawn[0], numpy.random.RandomState(0).randint(0, 6, (3, 4)))
    numpy.testing.assert_allclose(loss, reference_negative_sampling(x, t, W, samples), rtol=1e-5)
    assert loss[0] == 0


def test_negative_sampling_takes_its_returned_samples_back_as_the_draw():
    """Column 0 of the draw is replaced by ``t`` (-1 where ignored), so it is not checked: the
    samples returned by one call, fed back through a sampler, give the same loss (Chainer's
    test_negative_sampling does this)."""
    t = numpy.array([-1, 1, 2], numpy.int32)
    x, W = arrays(3, 4, 6, numpy.float32)
    loss, samples = negative_sampling(x, t, W, cyclic_sampler(6), 2, reduce="no", return_samples=True)
    assert samples[0, 0] == -1
    again = negative_sampling(x, t, W, lambda shape: samples.copy(), 2, reduce="no")
    numpy.testing.assert_array_equal(again, loss)


def test_negative_sampling_ignored_examples_get_no_gradient():
    t = numpy.array([1, -1], numpy.int32)
    x, W = arrays(2, 3, 4, numpy.float64)
    f = lambda x, W: negative_sampling(x, t, W, cyclic_sampler(4), 3)  # samples [[1, 1, 2, 3], [-1, 1, 2, 3]]
    gx, gW = fnet.grad(f, argnums=(0, 1))(x, W)
    assert numpy.all(gx[1] == 0) and numpy.abs(gx[0]).max() > 0
    assert numpy.all(gW[0] == 0)  # label 0 is used by no kept example
    numpy.testing.assert_allclose(gW[3], x[0] / (1 + numpy.exp(-W[3] @ x[0])), rtol=1e-12)  # sigmoid(w.x) x


@pytest.mark.parametrize("reduce", ["sum", "no"])
@pytest.mark.parametrize("t, n_vocab, sample_size", [([0, 2], 5, 2), ([-1, 1, 3], 4, 3), ([2], 3, 0)])
def test_negative_sampling_grads(t, n_vocab, sample_size, reduce):
    t = numpy.array(t, numpy.int32)
    x, W = arrays(len(t), 3, n_vocab, numpy.float64, seed=4)
    sampler = cyclic_sampler(n_vocab)
    check_grads(lambda x, W: negative_sampling(x, t, W, sampler, sample_size, reduce), (x, W), order=2)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            {"reduce": "mean"},
            errors.InvalidInputError,
            r"negative_sampling: .* one of 'sum', 'no', got 'mean'",
        ),
        ({"x": X[:, :, None]}, errors.ShapeError, r"negative_sampling: expected x.ndim == 2, got 3"),
        ({"W": W.astype(numpy.float16)}, errors.DTypeError, r"x.dtype == W.dtype, got float32 != float16"),
        (
            {"t": numpy.array([0, 5])},
            errors.InvalidInputError,
            r"label 5 in t .* or t == -1 \(ignore_label\)",
        ),
        ({"t": numpy.array([0, -2])}, errors.InvalidInputError, r"label -2 in t is out of range"),
        ({"sample_size": -1}, errors.InvalidInputError, r"sample_size to be a non-negative int, got -1"),
        ({"sample_size": 2.0}, errors.InvalidInputError, r"got 2.0"),
        (
            {"sampler": lambda shape: numpy.zeros(shape[0], numpy.int32)},
            errors.ShapeError,
            r"sampler\(\(2, 3\)\) to return an array of shape \(2, 3\), got \(2,\)",
        ),
        (
            {"sampler": lambda shape: numpy.full(shape, 7)},
            errors.InvalidInputError,
            r"label 7 in sampler\(shape\)\[:, 1:\] is out of range",
        ),
        (
            {"sampler": lambda shape: numpy.zeros(shape)},
            errors.DTypeError,
            r"sampler\(shape\)\[:, 1:\] to be an integer label array, got float64",
        ),
    ],
)
def test_negative_sampling_errors(kwargs, error, match):
    args = {"x": X, "t": T, "W": W, "sampler": cyclic_sampler(5), "sample_size": 2, **kwargs}
    with pytest.raises(error, match=match):
        negative_sampling(**args)
