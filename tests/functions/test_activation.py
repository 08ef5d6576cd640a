"""Tests of fnet.functions' activations: forward values against plain NumPy/SciPy references
(float16, float32, float64), derivatives to order 2 (float64, away from kinks), Chainer's
conventions at the kinks, and the error messages."""

from __future__ import annotations

import math

import numpy
import pytest
import scipy.special

import fnet
import fnet.functions as F
from fnet import ops
from fnet.errors import DTypeError, InvalidInputError, ShapeError
from fnet.testing import assert_ulp_close, check_grads

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {
    numpy.float16: dict(rtol=1e-2, atol=2e-3),
    numpy.float32: dict(rtol=1e-5, atol=1e-6),
    numpy.float64: dict(rtol=1e-12, atol=1e-13),
}
SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805


# -- helpers ---------------------------------------------------------------------------------
def rng(seed: int = 0) -> numpy.random.RandomState:
    return numpy.random.RandomState(seed)


def away_from(kinks, shape, *, low=-3.0, high=3.0, gap=0.1, seed=0):
    """Uniform samples on [low, high) pushed at least ``gap`` away from every kink."""
    x = rng(seed).uniform(low, high, shape)
    for k in kinks:
        near = numpy.abs(x - k) < gap
        x[near] = k + numpy.where(x[near] < k, -2 * gap, 2 * gap)
    return x


def distinct(shape, seed=0):
    """Values at least 0.2 apart from each other (no ties for a maximum)."""
    n = int(numpy.prod(shape))
    return ((rng(seed).permutation(n) - n / 2) * 0.25).reshape(shape)


def sig(v):
    return 1.0 / (1.0 + numpy.exp(-v))


def elementwise(scalar_fn, x):
    """``scalar_fn`` applied to each element of ``x``, in float64."""
    values = numpy.asarray(x, numpy.float64)
    return numpy.array([scalar_fn(float(v)) for v in values.ravel()]).reshape(values.shape)


def assert_forward(actual, expected, dtype):
    actual = numpy.asarray(actual)
    assert actual.dtype == dtype
    assert actual.shape == numpy.shape(expected)
    numpy.testing.assert_allclose(actual.astype(numpy.float64), expected, **TOL[dtype])


def derivative(fn, points):
    """The derivative of elementwise ``fn`` at ``points`` (float64), by ``fnet.grad``."""
    return fnet.grad(lambda x: ops.sum(fn(x)))(numpy.asarray(points, numpy.float64))


# -- elementwise activations -----------------------------------------------------------------
# name: (function, scalar reference, kinks)
ELEMENTWISE = {
    "relu": (F.relu, lambda v: max(v, 0.0), [0.0]),
    "relu6": (F.relu6, lambda v: min(max(v, 0.0), 6.0), [0.0, 6.0]),
    "clipped_relu": (F.clipped_relu, lambda v: min(max(v, 0.0), 20.0), [0.0]),
    "clipped_relu(z=1.5)": (lambda x: F.clipped_relu(x, z=1.5), lambda v: min(max(v, 0.0), 1.5), [0.0, 1.5]),
    "hard_sigmoid": (
        F.hard_sigmoid,
        lambda v: 0.0 if v < -2.5 else 1.0 if v > 2.5 else 0.2 * v + 0.5,
        [-2.5, 2.5],
    ),
    "leaky_relu": (F.leaky_relu, lambda v: v if v > 0 else 0.2 * v, [0.0]),
    "leaky_relu(slope=-0.5)": (
        lambda x: F.leaky_relu(x, slope=-0.5),
        lambda v: v if v > 0 else -0.5 * v,
        [0.0],
    ),
    "elu": (F.elu, lambda v: v if v > 0 else math.expm1(v), [0.0]),
    "elu(alpha=0.5)": (lambda x: F.elu(x, alpha=0.5), lambda v: v if v > 0 else 0.5 * math.expm1(v), [0.0]),
    "selu": (F.selu, lambda v: SELU_SCALE * (v if v > 0 else SELU_ALPHA * math.expm1(v)), [0.0]),
    "selu(alpha=2, scale=0.5)": (
        lambda x: F.selu(x, alpha=2.0, scale=0.5),
        lambda v: 0.5 * (v if v > 0 else 2.0 * math.expm1(v)),
        [0.0],
    ),
    "sigmoid": (F.sigmoid, lambda v: 1.0 / (1.0 + math.exp(-v)), []),
    "tanh": (F.tanh, math.tanh, []),
    "softplus": (F.softplus, lambda v: math.log1p(math.exp(v)), []),
    "softplus(beta=2)": (lambda x: F.softplus(x, beta=2.0), lambda v: math.log1p(math.exp(2 * v)) / 2, []),
    "rrelu(train=False)": (
        lambda x: F.rrelu(x, train=False),
        lambda v: v if v >= 0 else v * (1 / 8 + 1 / 3) / 2,
        [0.0],
    ),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
@pytest.mark.parametrize("shape", [(), (7,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_elementwise_forward(name, shape, dtype):
    fn, reference, kinks = ELEMENTWISE[name]
    x = away_from(kinks, shape, low=-8.0, high=8.0, gap=0.05).astype(dtype)
    assert_forward(fn(x), elementwise(reference, x), dtype)


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
@pytest.mark.parametrize("shape", [(5,), (2, 3)])
def test_elementwise_grads(name, shape):
    fn, _, kinks = ELEMENTWISE[name]
    check_grads(fn, (away_from(kinks, shape, low=-4.0, high=4.0),), order=2)


@pytest.mark.parametrize(
    "fn, points, expected",
    [
        (F.relu, [0.0, 1.0], [0.0, 1.0]),
        (F.leaky_relu, [0.0, -1.0, 1.0], [0.2, 0.2, 1.0]),  # Chainer: x <= 0 takes the slope
        (lambda x: F.clipped_relu(x, 1.5), [0.0, 1.5, 1.0], [0.0, 0.0, 1.0]),
        (F.relu6, [0.0, 6.0, 3.0], [0.0, 0.0, 1.0]),
        (F.hard_sigmoid, [-2.5, 2.5, 0.0], [0.0, 0.0, 0.2]),
        (lambda x: F.elu(x, alpha=0.5), [0.0, 1.0], [0.5, 1.0]),  # x <= 0 takes alpha * exp(x)
        (lambda x: F.prelu(x, numpy.array(0.3)), [0.0, -1.0], [1.0, 0.3]),  # x >= 0 passes through
        (lambda x: F.rrelu(x, r=numpy.array([0.3, 0.3])), [0.0, -1.0], [1.0, 0.3]),
    ],
)
def test_derivatives_at_the_kinks_follow_chainer(fn, points, expected):
    numpy.testing.assert_allclose(derivative(fn, points), expected, rtol=1e-12)


def test_clipped_relu_default_ceiling_is_20():
    x = numpy.array([-3.0, 19.0, 25.0], numpy.float32)
    numpy.testing.assert_array_equal(F.clipped_relu(x), numpy.array([0.0, 19.0, 20.0], numpy.float32))


def test_sigmoid_softplus_and_elu_do_not_overflow():
    x = numpy.array([-1000.0, -80.0, 80.0, 1000.0], numpy.float32)
    with numpy.errstate(over="raise", invalid="raise", divide="raise"):
        numpy.testing.assert_allclose(F.sigmoid(x), [0.0, 0.0, 1.0, 1.0])
        numpy.testing.assert_allclose(F.softplus(x), [0.0, 0.0, 80.0, 1000.0], atol=1e-30)
        numpy.testing.assert_allclose(F.elu(x), [-1.0, -1.0, 80.0, 1000.0])
        assert numpy.isfinite(derivative(F.softplus, x.astype(numpy.float64))).all()


def test_rectifiers_keep_infinities_and_nans():
    inf, nan = numpy.inf, numpy.nan
    v = numpy.array([inf, -inf, nan, -1.0, 2.0], numpy.float32)

    def expect(*values):
        return numpy.array(values, numpy.float32)

    numpy.testing.assert_array_equal(F.leaky_relu(v), expect(inf, -inf, nan, -0.2, 2.0))
    numpy.testing.assert_array_equal(
        F.prelu(v[None], expect(0.5).reshape(())), expect(inf, -inf, nan, -0.5, 2.0)[None]
    )
    numpy.testing.assert_array_equal(F.rrelu(v, 0.2, 0.4, train=False), expect(inf, -inf, nan, -0.3, 2.0))
    # NumPy's float32 expm1 is within 3 ulp of the truth (its validation data), libm's float64 one
    # rounded to float32 within 1: 4 ulp; the infinities and the NaN must be exact
    assert_ulp_close(F.elu(v), expect(inf, -1.0, nan, math.expm1(-1.0), 2.0), max_ulp=4)
    numpy.testing.assert_array_equal(F.clipped_relu(v, 1.5), expect(1.5, 0.0, nan, 0.0, 1.5))


# -- softmax family --------------------------------------------------------------------------
SOFTMAX_CASES = [((2, 5), 1), ((3, 4, 2), 1), ((3, 4, 2), -1), ((4, 3), 0)]


@pytest.mark.parametrize(
    "fn, reference", [(F.softmax, scipy.special.softmax), (F.log_softmax, scipy.special.log_softmax)]
)
@pytest.mark.parametrize("shape, axis", SOFTMAX_CASES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_family_forward(fn, reference, shape, axis, dtype):
    x = (rng(1).standard_normal(shape) * 3).astype(dtype)
    assert_forward(fn(x, axis=axis), reference(x.astype(numpy.float64), axis=axis), dtype)


def test_softmax_family_default_axis_is_1_and_large_scores_stay_finite():
    x = numpy.array([[1000.0, 0.0], [0.0, -1000.0]], numpy.float32)
    numpy.testing.assert_allclose(F.softmax(x), [[1.0, 0.0], [1.0, 0.0]])
    numpy.testing.assert_allclose(F.log_softmax(x), [[0.0, -1000.0], [0.0, -1000.0]])


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
@pytest.mark.parametrize("shape, axis", [((3, 4), 1), ((2, 3, 2), -1), ((1, 3), 0)])
def test_softmax_family_grads(fn, shape, axis):
    check_grads(lambda x: fn(x, axis=axis), (rng(2).standard_normal(shape),), order=2)


# -- crelu and maxout ------------------------------------------------------------------------
def crelu_reference(x, axis):
    x = x.astype(numpy.float64)
    return numpy.concatenate(
        [elementwise(lambda v: max(v, 0.0), x), elementwise(lambda v: max(-v, 0.0), x)], axis
    )


@pytest.mark.parametrize("shape, axis", [((2, 3), 1), ((2, 3, 4), -1), ((3, 2), 0), ((2, 1, 3), 1)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_crelu_forward(shape, axis, dtype):
    x = rng(3).standard_normal(shape).astype(dtype)
    assert_forward(F.crelu(x, axis=axis), crelu_reference(x, axis), dtype)


@pytest.mark.parametrize("shape, axis", [((2, 3), 1), ((2, 1, 3), -1)])
def test_crelu_grads(shape, axis):
    check_grads(lambda x: F.crelu(x, axis=axis), (away_from([0.0], shape),), order=2)


def maxout_reference(x, pool_size, axis):
    x = numpy.moveaxis(x.astype(numpy.float64), axis, -1)
    out = numpy.empty(x.shape[:-1] + (x.shape[-1] // pool_size,))
    for index in numpy.ndindex(*out.shape):
        group = index[-1]
        out[index] = max(x[index[:-1]][group * pool_size : (group + 1) * pool_size])
    return numpy.moveaxis(out, -1, axis)


MAXOUT_CASES = [((2, 6), 3, 1), ((2, 4, 3), 2, 1), ((3, 2, 4), 4, -1), ((4, 3), 2, 0), ((2, 5), 1, 1)]


@pytest.mark.parametrize("shape, pool_size, axis", MAXOUT_CASES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_maxout_forward(shape, pool_size, axis, dtype):
    x = rng(4).standard_normal(shape).astype(dtype)
    assert_forward(F.maxout(x, pool_size, axis=axis), maxout_reference(x, pool_size, axis), dtype)


def test_maxout_default_axis_is_1():
    x = numpy.arange(8.0).reshape(2, 4)
    numpy.testing.assert_array_equal(F.maxout(x, 2), [[1.0, 3.0], [5.0, 7.0]])


@pytest.mark.parametrize("shape, pool_size, axis", [((2, 6), 3, 1), ((3, 2, 4), 2, -1)])
def test_maxout_grads(shape, pool_size, axis):
    check_grads(lambda x: F.maxout(x, pool_size, axis=axis), (distinct(shape),), order=2)


# -- prelu and swish (a parameter shared over the batch and trailing axes) --------------------
def with_param_reference(x, w, scalar_fn):
    """``scalar_fn(x_value, w_value)`` where ``w`` is indexed by ``x``'s axes 1..w.ndim."""
    x, w = x.astype(numpy.float64), w.astype(numpy.float64)
    out = numpy.empty(x.shape)
    for index in numpy.ndindex(*x.shape):
        out[index] = scalar_fn(x[index], w[index[1 : 1 + w.ndim]])
    return out


def prelu_scalar(v, w):
    return v if v >= 0 else w * v


def swish_scalar(v, b):
    return v / (1.0 + math.exp(-b * v))


PARAM_SHAPES = [((4, 3), ()), ((4, 3), (3,)), ((2, 3, 4, 2), (3,)), ((2, 3, 4), (3, 4)), ((2, 1, 3), (1,))]


@pytest.mark.parametrize("fn, scalar_fn", [(F.prelu, prelu_scalar), (F.swish, swish_scalar)])
@pytest.mark.parametrize("x_shape, w_shape", PARAM_SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_parametric_forward(fn, scalar_fn, x_shape, w_shape, dtype):
    x = rng(5).standard_normal(x_shape).astype(dtype)
    w = rng(6).uniform(-1.0, 1.0, w_shape).astype(dtype)
    assert_forward(fn(x, w), with_param_reference(x, w, scalar_fn), dtype)


@pytest.mark.parametrize("fn", [F.prelu, F.swish])
@pytest.mark.parametrize("x_shape, w_shape", [((3, 2), ()), ((2, 3, 2), (3,)), ((2, 2, 3), (2, 3))])
def test_parametric_grads(fn, x_shape, w_shape):
    x = away_from([0.0], x_shape)
    w = rng(7).uniform(-1.0, 1.0, w_shape)
    check_grads(fn, (x, w), order=2)


def test_swish_limits():
    x = numpy.array([[-2.0, 3.0]])
    numpy.testing.assert_allclose(F.swish(x, numpy.zeros(2)), x / 2)
    numpy.testing.assert_allclose(F.swish(x, numpy.full(2, 200.0)), [[0.0, 3.0]], atol=1e-12)


# -- rrelu -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_rrelu_draws_slopes_from_the_key(dtype):
    x = away_from([0.0], (4, 5), seed=8).astype(dtype)
    y, r = F.rrelu(x, l=0.1, u=0.3, key=fnet.random.key(0), return_r=True)
    assert r.shape == x.shape and r.dtype == dtype
    assert ((r >= dtype(0.1)) & (r < dtype(0.3))).all()
    assert numpy.unique(r).size > 10  # one slope per element
    x64, r64 = x.astype(numpy.float64), r.astype(numpy.float64)
    expected = numpy.array([v if v >= 0 else s * v for v, s in zip(x64.ravel(), r64.ravel())]).reshape(
        x.shape
    )
    assert_forward(y, expected, dtype)
    numpy.testing.assert_array_equal(F.rrelu(x, l=0.1, u=0.3, key=fnet.random.key(0)), y)
    assert not numpy.array_equal(F.rrelu(x, l=0.1, u=0.3, key=fnet.random.key(1)), y)


def test_rrelu_uses_the_given_r_in_training_and_the_mean_slope_in_test_mode():
    x = numpy.array([[-2.0, 1.0], [-4.0, 0.0]], numpy.float32)
    r = numpy.array([[0.1, 0.9], [0.25, 0.5]], numpy.float32)
    y, r_out = F.rrelu(x, r=r, return_r=True)
    numpy.testing.assert_allclose(y, [[-0.2, 1.0], [-1.0, 0.0]])
    assert r_out is r
    y, r_out = F.rrelu(x, l=0.1, u=0.3, train=False, r=r, return_r=True)  # r is ignored, as in Chainer
    numpy.testing.assert_allclose(y, [[-0.4, 1.0], [-0.8, 0.0]], rtol=1e-6)
    numpy.testing.assert_allclose(r_out, numpy.full((2, 2), 0.2, numpy.float32))
    assert r_out.dtype == numpy.float32


@pytest.mark.parametrize(
    "call",
    [
        lambda x: F.rrelu(x, key=fnet.random.key(3)),
        lambda x: F.rrelu(x, r=numpy.linspace(0.1, 0.3, x.size).reshape(x.shape)),
        lambda x: F.rrelu(x, 0.2, 0.4, train=False),
    ],
)
@pytest.mark.parametrize("shape", [(5,), (2, 3)])
def test_rrelu_grads(call, shape):
    check_grads(call, (away_from([0.0], shape),), order=2)


# -- LSTM cells ------------------------------------------------------------------------------
def lstm_reference(c_prev, x):
    """Chainer's lstm, unit by unit: the gates of unit j are x[:, 4j], ..., x[:, 4j + 3]."""
    c_prev, x = c_prev.astype(numpy.float64), x.astype(numpy.float64)
    batch, units = x.shape[0], c_prev.shape[1]
    c, h = c_prev.copy(), numpy.empty((batch,) + c_prev.shape[1:])
    for b in range(batch):
        for j in range(units):
            a, i, f, o = (x[b, 4 * j + k] for k in range(4))
            c[b, j] = numpy.tanh(a) * sig(i) + sig(f) * c_prev[b, j]
            h[b, j] = sig(o) * numpy.tanh(c[b, j])
    return c, h


def slstm_reference(c1, c2, x1, x2):
    """Chainer 7's slstm code: one tanh(a) * sigmoid(i) term per child, o summed."""
    c1, c2, x1, x2 = (v.astype(numpy.float64) for v in (c1, c2, x1, x2))
    c, h = numpy.empty(c1.shape), numpy.empty(c1.shape)
    for b in range(c1.shape[0]):
        for j in range(c1.shape[1]):
            a1, i1, f1, o1 = (x1[b, 4 * j + k] for k in range(4))
            a2, i2, f2, o2 = (x2[b, 4 * j + k] for k in range(4))
            c[b, j] = (
                numpy.tanh(a1) * sig(i1) + numpy.tanh(a2) * sig(i2) + sig(f1) * c1[b, j] + sig(f2) * c2[b, j]
            )
            h[b, j] = sig(o1 + o2) * numpy.tanh(c[b, j])
    return c, h


def tree_lstm_reference(*inputs):
    """Chainer's tree_lstm: x is the blocks a, i, o, f_1, ..., f_N of H units each."""
    *cells, x = (v.astype(numpy.float64) for v in inputs)
    units = cells[0].shape[1]
    c, h = numpy.empty(cells[0].shape), numpy.empty(cells[0].shape)
    for b in range(x.shape[0]):
        for j in range(units):
            a, i, o, *fs = (x[b, k * units + j] for k in range(3 + len(cells)))
            c[b, j] = numpy.tanh(a) * sig(i) + sum(sig(f) * cell[b, j] for f, cell in zip(fs, cells))
            h[b, j] = sig(o) * numpy.tanh(c[b, j])
    return c, h


def assert_cell(actual, expected, dtype):
    assert isinstance(actual, tuple) and len(actual) == 2
    for a, e in zip(actual, expected):
        assert_forward(a, e, dtype)


def normals(seed, *shapes):
    r = rng(seed)
    return [r.standard_normal(s) for s in shapes]


LSTM_SHAPES = [((3, 4), (3, 16)), ((4, 2), (2, 8)), ((2, 3, 2), (2, 12, 2)), ((3, 1), (1, 4))]


@pytest.mark.parametrize("c_shape, x_shape", LSTM_SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_lstm_forward(c_shape, x_shape, dtype):
    c_prev, x = (v.astype(dtype) for v in normals(9, c_shape, x_shape))
    assert_cell(F.lstm(c_prev, x), lstm_reference(c_prev, x), dtype)


def test_lstm_keeps_the_rows_beyond_a_shorter_batch():
    c_prev, x = normals(10, (4, 3), (2, 12))
    c, h = F.lstm(c_prev, x)
    assert h.shape == (2, 3)
    numpy.testing.assert_array_equal(c[2:], c_prev[2:])


@pytest.mark.parametrize("c_shape, x_shape", [((2, 3), (2, 12)), ((3, 2), (2, 8)), ((2, 1, 2), (1, 4, 2))])
def test_lstm_grads(c_shape, x_shape):
    check_grads(F.lstm, normals(11, c_shape, x_shape), order=2)


@pytest.mark.parametrize("c_shape, x_shape", [((3, 4), (3, 16)), ((2, 3, 2), (2, 12, 2)), ((1, 1), (1, 4))])
@pytest.mark.parametrize("dtype", DTYPES)
def test_slstm_forward(c_shape, x_shape, dtype):
    inputs = [v.astype(dtype) for v in normals(12, c_shape, c_shape, x_shape, x_shape)]
    assert_cell(F.slstm(*inputs), slstm_reference(*inputs), dtype)


@pytest.mark.parametrize("c_shape, x_shape", [((2, 3), (2, 12)), ((1, 2, 2), (1, 8, 2))])
def test_slstm_grads(c_shape, x_shape):
    check_grads(F.slstm, normals(13, c_shape, c_shape, x_shape, x_shape), order=2)


TREE_CASES = [(1, (3, 4), (3, 16)), (2, (2, 3), (2, 15)), (3, (2, 2, 3), (2, 12, 3))]


@pytest.mark.parametrize("n, c_shape, x_shape", TREE_CASES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_tree_lstm_forward(n, c_shape, x_shape, dtype):
    inputs = [v.astype(dtype) for v in normals(14, *[c_shape] * n, x_shape)]
    assert_cell(F.tree_lstm(*inputs), tree_lstm_reference(*inputs), dtype)


@pytest.mark.parametrize("n, c_shape, x_shape", [(1, (2, 2), (2, 8)), (2, (2, 1, 2), (2, 5, 2))])
def test_tree_lstm_grads(n, c_shape, x_shape):
    check_grads(F.tree_lstm, normals(15, *[c_shape] * n, x_shape), order=2)


# -- errors ----------------------------------------------------------------------------------
X = numpy.zeros((2, 4), numpy.float32)
INT_X = numpy.zeros((2, 4), numpy.int32)


@pytest.mark.parametrize(
    "name",
    ["relu", "relu6", "clipped_relu", "hard_sigmoid", "leaky_relu", "elu", "selu", "sigmoid", "tanh"]
    + ["softplus", "softmax", "log_softmax", "crelu", "rrelu"],
)
def test_integer_inputs_are_rejected(name):
    with pytest.raises(
        DTypeError, match=rf"{name}: expected x to be a float array, got int32(.|\n)*hint: cast"
    ):
        getattr(F, name)(INT_X)


@pytest.mark.parametrize("z", [0.0, -1.0, float("nan")])
def test_clipped_relu_needs_a_positive_ceiling(z):
    with pytest.raises(InvalidInputError, match=r"clipped_relu: expected a clipping value z > 0, got z="):
        F.clipped_relu(X, z)


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax, F.crelu])
def test_axis_out_of_bounds(fn):
    with pytest.raises(
        ShapeError, match=r"axis=2 is out of bounds for an array of 2 dimensions(.|\n)*\[-2, 1\]"
    ):
        fn(X, axis=2)


@pytest.mark.parametrize("pool_size", [0, -2, 1.5, True])
def test_maxout_pool_size_must_be_a_positive_int(pool_size):
    with pytest.raises(InvalidInputError, match=r"maxout: expected pool_size to be a positive int"):
        F.maxout(X, pool_size)


def test_maxout_axis_must_divide_into_groups():
    with pytest.raises(
        ShapeError, match=r"maxout: expected x.shape\[1\] to be a multiple of pool_size, got 4"
    ):
        F.maxout(X, 3)
    with pytest.raises(ShapeError, match=r"maxout: axis=-3 is out of bounds"):
        F.maxout(X, 2, axis=-3)


@pytest.mark.parametrize("fn, name", [(F.prelu, "W"), (F.swish, "beta")])
def test_parameter_shape_and_dtype(fn, name):
    with pytest.raises(
        ShapeError, match=rf"expected x.shape\[1:2\] == {name}.shape(.|\n)*got x.shape=\(2, 4\) and"
    ):
        fn(X, numpy.zeros(3, numpy.float32))
    with pytest.raises(ShapeError, match=rf"x.ndim > {name}.ndim"):
        fn(numpy.zeros(4, numpy.float32), numpy.zeros(4, numpy.float32))
    dtypes = rf"{fn.__name__}: expected x.dtype == {name}.dtype, got float32 != float64"
    with pytest.raises(DTypeError, match=dtypes):
        fn(X, numpy.zeros(4))
    with pytest.raises(DTypeError, match=rf"expected {name} to be a float array"):
        fn(X, numpy.zeros(4, numpy.int32))


def test_rrelu_errors():
    with pytest.raises(InvalidInputError, match=r"rrelu: expected 0 <= l < u < 1, got l=0.5, u=0.2"):
        F.rrelu(X, 0.5, 0.2, key=fnet.random.key(0))
    with pytest.raises(InvalidInputError, match=r"expected 0 <= l < u < 1, got l=-0.1"):
        F.rrelu(X, -0.1, train=False)
    with pytest.raises(
        InvalidInputError, match=r"rrelu: expected a key(.|\n)*hint: pass key=fnet.random.key"
    ):
        F.rrelu(X)
    with pytest.raises(ShapeError, match=r"rrelu: expected x.shape == r.shape, got \(2, 4\) != \(4,\)"):
        F.rrelu(X, r=numpy.zeros(4, numpy.float32))
    with pytest.raises(DTypeError, match=r"rrelu: expected x.dtype == r.dtype, got float32 != float64"):
        F.rrelu(X, r=numpy.zeros((2, 4)))


def test_lstm_errors():
    c = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(
        ShapeError, match=r"lstm: expected x.shape\[1\] == 4 \* c_prev.shape\[1\](.|\n)*\(2, 8\)"
    ):
        F.lstm(c, numpy.zeros((2, 8), numpy.float32))
    with pytest.raises(ShapeError, match=r"x.shape\[0\] <= c_prev.shape\[0\](.|\n)*got x.shape=\(3, 12\)"):
        F.lstm(c, numpy.zeros((3, 12), numpy.float32))
    with pytest.raises(ShapeError, match=r"lstm: expected x.ndim == c_prev.ndim >= 2, got 1 and 1"):
        F.lstm(numpy.zeros(3, numpy.float32), numpy.zeros(12, numpy.float32))
    with pytest.raises(ShapeError, match=r"equal trailing axes"):
        F.lstm(numpy.zeros((2, 3, 2), numpy.float32), numpy.zeros((2, 12, 3), numpy.float32))
    dtypes = r"lstm: expected c_prev.dtype == x.dtype, got float32 != float64(.|\n)*hint: cast"
    with pytest.raises(DTypeError, match=dtypes):
        F.lstm(c, numpy.zeros((2, 12)))
    with pytest.raises(DTypeError, match=r"lstm: expected c_prev to be a float array"):
        F.lstm(c.astype(numpy.int32), numpy.zeros((2, 12), numpy.float32))


def test_slstm_errors():
    c = numpy.zeros((2, 3), numpy.float32)
    x = numpy.zeros((2, 12), numpy.float32)
    with pytest.raises(
        ShapeError, match=r"slstm: expected x2.shape\[1\] == 4 \* c_prev2.shape\[1\], the same batch"
    ):
        F.slstm(c, c, x, numpy.zeros((3, 12), numpy.float32))
    with pytest.raises(ShapeError, match=r"slstm: expected c_prev1.shape == c_prev2.shape"):
        F.slstm(c, numpy.zeros((2, 2), numpy.float32), x, numpy.zeros((2, 8), numpy.float32))
    with pytest.raises(DTypeError, match=r"slstm: expected c_prev1.dtype == c_prev2.dtype, got float32 !="):
        F.slstm(c, c.astype(numpy.float64), x, x.astype(numpy.float64))


def test_tree_lstm_errors():
    c = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(InvalidInputError, match=r"tree_lstm: expected the cell states of 1 or more children"):
        F.tree_lstm(c)
    with pytest.raises(ShapeError, match=r"tree_lstm: expected x.shape\[1\] == 5 \* c_2.shape\[1\]"):
        F.tree_lstm(c, numpy.zeros((2, 2), numpy.float32), numpy.zeros((2, 15), numpy.float32))
    with pytest.raises(ShapeError, match=r"tree_lstm: expected x.shape\[1\] == 4 \* c_1.shape\[1\]"):
        F.tree_lstm(c, numpy.zeros((2, 15), numpy.float32))
