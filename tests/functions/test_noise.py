"""fnet.functions noise injections: values given the noise, statistics of the noise, keys, gradients.

With the noise fixed (by the key, or by a given mask or eps) each function is deterministic, so
its gradients are checked exactly, to order 2.
"""

from __future__ import annotations

import numpy
import pytest

import fnet
import fnet.functions as F
from fnet.errors import DTypeError, InvalidInputError, ShapeError
from fnet.testing import check_grads

_rng = numpy.random.RandomState(11)

FLOATS = [numpy.float16, numpy.float32, numpy.float64]
KEY = fnet.random.key(3)


def normal(*shape, dtype=numpy.float64):
    return _rng.standard_normal(shape).astype(dtype)


def tol(dtype):
    return {"rtol": 1e-2, "atol": 1e-2} if dtype == numpy.float16 else {"rtol": 1e-5, "atol": 1e-6}


def within_sigmas(fraction, p, n, sigmas=5):
    """Whether an observed fraction of ``n`` Bernoulli(p) draws is within ``sigmas`` std devs of p."""
    return abs(fraction - p) <= sigmas * numpy.sqrt(p * (1 - p) / n)


# -- dropout -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, ratio", [((4, 5), 0.5), ((2, 3, 4), 0.2), ((7,), 0.9)])
def test_dropout_forward(dtype, shape, ratio):
    x = normal(*shape, dtype=dtype)
    y, mask = F.dropout(x, ratio, key=KEY, return_mask=True)
    assert y.dtype == dtype and mask.dtype == dtype and y.shape == shape
    scale = 1 / (1 - ratio)
    assert numpy.all((mask == 0) | numpy.isclose(mask, scale, rtol=1e-3))
    expected = numpy.array([v * m for v, m in zip(x.ravel().tolist(), mask.ravel().tolist())]).reshape(shape)
    numpy.testing.assert_allclose(y, expected, **tol(dtype))
    again = F.dropout(x, 0.0, mask=mask)  # a given mask is used as it is; ratio and key are unused
    numpy.testing.assert_array_equal(again, y)


def test_dropout_statistics_and_keys():
    x = numpy.ones((400, 500), numpy.float32)
    ratio = 0.3
    y = F.dropout(x, ratio, key=KEY)
    kept = float((y != 0).mean())
    assert within_sigmas(kept, 1 - ratio, x.size)
    assert abs(float(y.mean()) - 1.0) < 0.01  # the scaling keeps the expectation
    numpy.testing.assert_array_equal(F.dropout(x, ratio, key=KEY), y)
    other = F.dropout(x, ratio, key=fnet.random.split(KEY)[0])
    assert (other != y).any()


def test_dropout_test_mode_and_zero_ratio():
    x = normal(3, 4, dtype=numpy.float32)
    assert F.dropout(x, train=False) is x
    y, mask = F.dropout(x, 0.7, train=False, return_mask=True)
    assert y is x and mask is None
    numpy.testing.assert_array_equal(F.dropout(x, 0.0, key=KEY), x)


@pytest.mark.parametrize("shape, ratio", [((3, 4), 0.5), ((2, 1, 3), 0.25), ((5,), 0.0)])
def test_dropout_grads(shape, ratio):
    check_grads(lambda x: F.dropout(x, ratio, key=KEY), (normal(*shape),), order=2)


def test_dropout_grads_with_given_mask():
    mask = numpy.array([[2.0, 0.0, 2.0], [0.0, 2.0, 2.0]])
    check_grads(lambda x: F.dropout(x, mask=mask), (normal(2, 3),), order=2)


def test_dropout_errors():
    x = normal(2, 3, dtype=numpy.float32)
    with pytest.raises(
        InvalidInputError, match=r"dropout: expected a random key.*got key=None\n.*key=fnet.random.key"
    ):
        F.dropout(x)
    with pytest.raises(InvalidInputError, match=r"dropout: expected 0 <= ratio < 1, got ratio=1.0"):
        F.dropout(x, 1.0, key=KEY)
    with pytest.raises(DTypeError, match=r"dropout: expected x to be a float array, got int32"):
        F.dropout(numpy.zeros(3, numpy.int32), key=KEY)
    with pytest.raises(ShapeError, match=r"dropout: expected mask.shape in \[\(2, 3\)\], got \(3, 2\)"):
        F.dropout(x, mask=numpy.ones((3, 2), numpy.float32))
    with pytest.raises(DTypeError, match=r"dropout: operands have different float dtypes: float32, float64"):
        F.dropout(x, mask=numpy.ones((2, 3)))


# -- gaussian ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 1, 3)])
def test_gaussian_forward(dtype, shape):
    mean, ln_var = normal(*shape, dtype=dtype), normal(*shape, dtype=dtype)
    y, eps = F.gaussian(mean, ln_var, key=KEY, return_eps=True)
    assert y.dtype == dtype and eps.dtype == dtype and y.shape == shape
    m, v, e = (a.astype(numpy.float64).ravel().tolist() for a in (mean, ln_var, eps))
    expected = numpy.array([a + numpy.sqrt(numpy.exp(b)) * c for a, b, c in zip(m, v, e)]).reshape(shape)
    numpy.testing.assert_allclose(y, expected, **tol(dtype))
    numpy.testing.assert_array_equal(F.gaussian(mean, ln_var, eps=eps), y)


def test_gaussian_statistics_and_keys():
    mean = numpy.full((200, 500), 1.5)
    ln_var = numpy.full((200, 500), numpy.log(4.0))
    y = F.gaussian(mean, ln_var, key=KEY)
    assert abs(y.mean() - 1.5) < 5 * 2 / numpy.sqrt(y.size)
    assert abs(y.std() - 2.0) < 0.02
    numpy.testing.assert_array_equal(F.gaussian(mean, ln_var, key=KEY), y)
    assert (F.gaussian(mean, ln_var, key=fnet.random.split(KEY)[1]) != y).any()


@pytest.mark.parametrize("shape", [(4,), (2, 1, 3)])
def test_gaussian_grads(shape):
    check_grads(lambda m, v: F.gaussian(m, v, key=KEY), (normal(*shape), normal(*shape)), order=2)
    eps = normal(*shape)
    check_grads(lambda m, v: F.gaussian(m, v, eps=eps), (normal(*shape), normal(*shape)), order=2)


def test_gaussian_errors():
    m = normal(2, 3, dtype=numpy.float32)
    with pytest.raises(InvalidInputError, match=r"gaussian: expected a random key.*\n.*or eps"):
        F.gaussian(m, m)
    with pytest.raises(
        ShapeError, match=r"gaussian: expected mean.shape == ln_var.shape, got \(2, 3\) != \(3,\)"
    ):
        F.gaussian(m, m[0], key=KEY)
    with pytest.raises(DTypeError, match=r"gaussian: operands have different float dtypes: float32, float64"):
        F.gaussian(m, m.astype(numpy.float64), key=KEY)
    with pytest.raises(DTypeError, match=r"gaussian: expected ln_var to be a float array, got int64"):
        F.gaussian(m, numpy.zeros((2, 3), numpy.int64), key=KEY)
    with pytest.raises(ShapeError, match=r"gaussian: expected eps.shape in \[\(2, 3\)\], got \(6,\)"):
        F.gaussian(m, m, eps=numpy.zeros(6, numpy.float32))


# -- gumbel_softmax ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, axis", [((4, 3), 1), ((2, 5, 3), 1), ((6, 2), 0), ((2, 3, 4), -1)])
def test_gumbel_softmax_forward(dtype, shape, axis):
    log_pi = normal(*shape, dtype=dtype)
    y = F.gumbel_softmax(log_pi, 0.5, axis, key=KEY)
    assert y.dtype == dtype and y.shape == shape
    assert (y >= 0).all()
    numpy.testing.assert_allclose(y.astype(numpy.float64).sum(axis=axis), 1.0, **tol(dtype))
    # log y = (log_pi + g) / tau - log Z: the noise recovered from two temperatures agrees.
    if dtype == numpy.float64:
        g1 = 0.5 * numpy.log(y) - log_pi
        g2 = 2.0 * numpy.log(F.gumbel_softmax(log_pi, 2.0, axis, key=KEY)) - log_pi
        diff = g1 - g2  # a constant along axis
        numpy.testing.assert_allclose(diff, numpy.broadcast_to(diff.mean(axis=axis, keepdims=True), shape))


def test_gumbel_softmax_samples_follow_the_categorical_distribution():
    probs = numpy.array([0.5, 0.3, 0.15, 0.05])
    log_pi = numpy.tile(numpy.log(probs), (20000, 1)) + 3.0  # unnormalized is fine
    y = F.gumbel_softmax(log_pi, 0.1, key=KEY)
    counts = [int((y.argmax(axis=1) == c).sum()) for c in range(4)]
    for count, p in zip(counts, probs):
        assert within_sigmas(count / len(log_pi), p, len(log_pi))
    assert numpy.median(y.max(axis=1)) > 0.9  # a low temperature gives nearly one-hot samples


def test_gumbel_softmax_scalar_and_keys():
    one = F.gumbel_softmax(numpy.float32(0.3))
    assert one.shape == () and one.dtype == numpy.float32 and one == 1
    log_pi = normal(3, 4)
    numpy.testing.assert_array_equal(F.gumbel_softmax(log_pi, key=KEY), F.gumbel_softmax(log_pi, key=KEY))
    assert (
        F.gumbel_softmax(log_pi, 1.0, key=KEY) != F.gumbel_softmax(log_pi, 1.0, key=fnet.random.key(4))
    ).any()


@pytest.mark.parametrize("shape, axis", [((3, 4), 1), ((2, 3, 1), 0)])
def test_gumbel_softmax_grads(shape, axis):
    check_grads(lambda lp: F.gumbel_softmax(lp, 1.5, axis, key=KEY), (normal(*shape),), order=2)
    tau = numpy.array(1.2)
    check_grads(lambda lp, tau: F.gumbel_softmax(lp, tau, axis, key=KEY), (normal(*shape), tau), order=2)


def test_gumbel_softmax_errors():
    with pytest.raises(InvalidInputError, match=r"gumbel_softmax: expected a random key.*\n.*Gumbel noise"):
        F.gumbel_softmax(normal(2, 3))
    with pytest.raises(
        ShapeError, match=r"gumbel_softmax: axis=2 is out of bounds for an array of 2 dimensions"
    ):
        F.gumbel_softmax(normal(2, 3), axis=2, key=KEY)
    with pytest.raises(DTypeError, match=r"gumbel_softmax: expected log_pi to be a float array, got int64"):
        F.gumbel_softmax(numpy.zeros((2, 3), numpy.int64), key=KEY)


# -- simplified_dropconnect --------------------------------------------------------------------
def ref_dropconnect(x, W, b, mask, scale):
    """``y[i, j] = sum_k W[j, k] mask[(i,) j, k] scale x[i, k] + b[j]`` by loops, in float64."""
    x2 = x.reshape(len(x), -1).astype(numpy.float64)
    n, (m, k) = len(x2), W.shape
    y = numpy.zeros((n, m))
    for i in range(n):
        kept = mask[i] if mask.ndim == 3 else mask
        for j in range(m):
            y[i, j] = sum(W[j, c] * kept[j, c] * scale * x2[i, c] for c in range(k))
            y[i, j] += 0 if b is None else b[j]
    return y


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("x_shape, with_bias", [((4, 3), True), ((3, 2, 2), False), ((1, 5), True)])
@pytest.mark.parametrize("batchwise", [True, False])
def test_simplified_dropconnect_forward(dtype, x_shape, with_bias, batchwise):
    x = normal(*x_shape, dtype=dtype)
    n, k = x_shape[0], int(numpy.prod(x_shape[1:]))
    W = normal(2, k, dtype=dtype)
    b = normal(2, dtype=dtype) if with_bias else None
    mask = _rng.uniform(size=(n, 2, k) if batchwise else (2, k)) >= 0.4
    y = F.simplified_dropconnect(x, W, b, 0.4, mask=mask)
    assert y.dtype == dtype and y.shape == (n, 2)
    numpy.testing.assert_allclose(y, ref_dropconnect(x, W, b, mask, 1 / 0.6), **tol(dtype))
    linear = F.simplified_dropconnect(x, W, b, 0.4, train=False)
    numpy.testing.assert_allclose(linear, ref_dropconnect(x, W, b, numpy.ones((2, k)), 1.0), **tol(dtype))


@pytest.mark.parametrize("batchwise", [True, False])
def test_simplified_dropconnect_statistics_and_keys(batchwise):
    x, W = numpy.ones((50, 400)), numpy.ones((20, 400))
    y = F.simplified_dropconnect(x, W, ratio=0.25, use_batchwise_mask=batchwise, key=KEY)
    kept = y * 0.75 / 400  # each output is (number of kept weights) * scale
    assert within_sigmas(float(kept.mean()), 0.75, 20 * 400 * (50 if batchwise else 1))
    # one pattern per sample, or one for all (rows equal up to the BLAS's rounding)
    assert (not numpy.allclose(y, y[:1], rtol=1e-12, atol=0)) == batchwise
    numpy.testing.assert_array_equal(
        F.simplified_dropconnect(x, W, ratio=0.25, use_batchwise_mask=batchwise, key=KEY), y
    )


@pytest.mark.parametrize("x_shape, batchwise", [((3, 4), True), ((2, 2, 2), False), ((1, 4), True)])
def test_simplified_dropconnect_grads(x_shape, batchwise):
    x, W, b = normal(*x_shape), normal(3, 4), normal(3)
    check_grads(
        lambda x, W, b: F.simplified_dropconnect(x, W, b, 0.3, use_batchwise_mask=batchwise, key=KEY),
        (x, W, b),
        order=2,
    )
    check_grads(lambda x, W: F.simplified_dropconnect(x, W, train=False), (x, W), order=2)


def test_simplified_dropconnect_errors():
    x, W = normal(2, 3, dtype=numpy.float32), normal(4, 3, dtype=numpy.float32)
    fn = "simplified_dropconnect"
    with pytest.raises(
        InvalidInputError, match=rf"{fn}: expected a random key.*\n.*or a mask, or train=False"
    ):
        F.simplified_dropconnect(x, W)
    with pytest.raises(
        ShapeError, match=rf"{fn}: expected prod\(x.shape\[1:\]\) == W.shape\[1\], got 4 != 3"
    ):
        F.simplified_dropconnect(normal(2, 4, dtype=numpy.float32), W, key=KEY)
    with pytest.raises(ShapeError, match=rf"{fn}: expected W.ndim == 2, got 3"):
        F.simplified_dropconnect(x, W[None], key=KEY)
    with pytest.raises(ShapeError, match=rf"{fn}: expected x.ndim == 2..32, got 1"):
        F.simplified_dropconnect(x[0], W, key=KEY)
    with pytest.raises(
        ShapeError, match=rf"{fn}: expected b.shape == \(W.shape\[0\],\) == \(4,\), got \(3,\)"
    ):
        F.simplified_dropconnect(x, W, numpy.zeros(3, numpy.float32), key=KEY)
    with pytest.raises(DTypeError, match=rf"{fn}: operands have different float dtypes: float32, float64"):
        F.simplified_dropconnect(x, W.astype(numpy.float64), key=KEY)
    with pytest.raises(
        ShapeError, match=rf"{fn}: expected mask.shape in \[\(2, 4, 3\), \(4, 3\)\], got \(3, 4\)"
    ):
        F.simplified_dropconnect(x, W, mask=numpy.ones((3, 4), bool))
    with pytest.raises(InvalidInputError, match=rf"{fn}: expected 0 <= ratio < 1, got ratio=-0.1"):
        F.simplified_dropconnect(x, W, ratio=-0.1, key=KEY)


# -- zoneout -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, ratio", [((4, 5), 0.5), ((2, 3, 2), 0.2)])
def test_zoneout_forward(dtype, shape, ratio):
    h, x = normal(*shape, dtype=dtype), normal(*shape, dtype=dtype) + 10
    y = F.zoneout(h, x, ratio, key=KEY)
    assert y.dtype == dtype and y.shape == shape
    for out, prev, new in zip(y.ravel(), h.ravel(), x.ravel()):
        assert out in (prev, new)
    assert F.zoneout(h, x, ratio, train=False) is x
    numpy.testing.assert_array_equal(F.zoneout(h, x, 0.0, key=KEY), x)
    numpy.testing.assert_array_equal(F.zoneout(h, x, 1.0, key=KEY), h)


def test_zoneout_statistics_and_keys():
    h, x = numpy.zeros((300, 300), numpy.float32), numpy.ones((300, 300), numpy.float32)
    y = F.zoneout(h, x, 0.35, key=KEY)
    assert within_sigmas(float((y == 0).mean()), 0.35, y.size)  # h is kept with probability ratio
    numpy.testing.assert_array_equal(F.zoneout(h, x, 0.35, key=KEY), y)
    assert (F.zoneout(h, x, 0.35, key=fnet.random.key(5)) != y).any()


def test_zoneout_takes_a_given_flag():
    h, x = numpy.zeros((2, 3), numpy.float32), numpy.ones((2, 3), numpy.float32)
    flag_x = numpy.array([[True, False, True], [False, False, True]])
    numpy.testing.assert_array_equal(F.zoneout(h, x, 0.5, flag_x=flag_x), flag_x.astype(numpy.float32))
    gh, gx = fnet.grad(lambda h, x: F.zoneout(h, x, flag_x=flag_x).sum(), argnums=(0, 1))(h, x)
    numpy.testing.assert_array_equal(gx, flag_x)
    numpy.testing.assert_array_equal(gh, ~flag_x)
    with pytest.raises(ShapeError, match=r"zoneout: expected flag_x.shape in \[\(2, 3\)\], got \(3,\)"):
        F.zoneout(h, x, flag_x=flag_x[0])
    with pytest.raises(DTypeError, match=r"zoneout: expected flag_x to be a bool array, got float32"):
        F.zoneout(h, x, flag_x=x)


@pytest.mark.parametrize("shape", [(3, 4), (2, 1, 3)])
def test_zoneout_grads(shape):
    check_grads(lambda h, x: F.zoneout(h, x, 0.4, key=KEY), (normal(*shape), normal(*shape)), order=2)


def test_zoneout_errors():
    h = normal(2, 3, dtype=numpy.float32)
    with pytest.raises(InvalidInputError, match=r"zoneout: expected a random key.*\n.*or train=False"):
        F.zoneout(h, h)
    with pytest.raises(ShapeError, match=r"zoneout: expected h.shape == x.shape, got \(2, 3\) != \(3,\)"):
        F.zoneout(h, h[0], key=KEY)
    with pytest.raises(InvalidInputError, match=r"zoneout: expected 0 <= ratio <= 1, got ratio=1.5"):
        F.zoneout(h, h, 1.5, key=KEY)
    with pytest.raises(DTypeError, match=r"zoneout: expected h to be a float array, got int32"):
        F.zoneout(numpy.zeros(3, numpy.int32), numpy.zeros(3, numpy.float32), key=KEY)
