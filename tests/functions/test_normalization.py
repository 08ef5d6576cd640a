"""Tests of fnet.functions' normalizations: forward values against plain NumPy/SciPy references
(float16 where Chainer supports it, float32, float64), the running statistics returned instead of
mutated, derivatives to order 2 (float64), Chainer's gradient formulas, and the error messages."""

from __future__ import annotations

import warnings

import numpy
import pytest
import scipy.linalg

import fnet
import fnet.functions as F
from fnet import ops
from fnet.errors import ArgumentTypeError, DTypeError, InvalidInputError, ShapeError
from fnet.testing import check_grads

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {
    numpy.float16: dict(rtol=2e-2, atol=2e-2),
    numpy.float32: dict(rtol=1e-5, atol=1e-5),
    numpy.float64: dict(rtol=1e-10, atol=1e-12),
}


# -- helpers ---------------------------------------------------------------------------------
def rng(seed: int = 0) -> numpy.random.RandomState:
    return numpy.random.RandomState(seed)


def normal(shape, seed=0, dtype=numpy.float64, scale=1.0, shift=0.0):
    return (rng(seed).standard_normal(shape) * scale + shift).astype(dtype)


def positive(shape, seed=0, dtype=numpy.float64):
    return rng(seed).uniform(0.5, 1.5, shape).astype(dtype)


def assert_forward(actual, expected, dtype, tol=None):
    actual = numpy.asarray(actual)
    assert actual.dtype == dtype
    assert actual.shape == numpy.shape(expected)
    numpy.testing.assert_allclose(actual.astype(numpy.float64), expected, **(tol or TOL[dtype]))


def f64(*arrays):
    return [numpy.asarray(a, numpy.float64) for a in arrays]


def pullback(fn, args, gy):
    """The cotangents of ``args`` for the output cotangent ``gy``, by ``fnet.vjp``."""
    _, pull = fnet.vjp(fn, *args)
    return pull(gy)


# -- references ------------------------------------------------------------------------------
def channel_shape(x_shape, axes):
    return tuple(1 if i in axes else d for i, d in enumerate(x_shape))


def default_axes(x_ndim, gamma_ndim):
    return (0, *range(gamma_ndim + 1, x_ndim))


def batch_norm_reference(x, gamma, beta, eps, axes):
    x, gamma, beta = f64(x, gamma, beta)
    kept = channel_shape(x.shape, axes)
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = gamma.reshape(kept) * (x - mean) / numpy.sqrt(var + eps) + beta.reshape(kept)
    return y, mean.reshape(gamma.shape), var.reshape(gamma.shape)


def batch_norm_grads_reference(x, gamma, gy, eps, axes):
    """Chainer's closed-form backward of batch normalization (x_hat, gbeta, ggamma, gx)."""
    kept = channel_shape(x.shape, axes)
    m = x.size // gamma.size
    mean = x.mean(axis=axes, keepdims=True)
    inv_std = 1.0 / numpy.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
    x_hat = (x - mean) * inv_std
    gbeta = gy.sum(axis=axes)
    ggamma = (gy * x_hat).sum(axis=axes)
    gx = gamma.reshape(kept) * inv_std * (gy - (x_hat * ggamma.reshape(kept) + gbeta.reshape(kept)) / m)
    return gx, ggamma, gbeta


def grouped_rows(x, groups):
    """For each group, the values of each of its channels over the batch and spatial axes."""
    c = x.shape[1]
    size = c // groups
    return [[x[:, k * size + j].reshape(-1) for j in range(size)] for k in range(groups)]


def decorrelated_reference(x, groups, eps):
    """ZCA whitening by scipy's matrix square root; returns (y, means, projections)."""
    x = numpy.asarray(x, numpy.float64)
    y = numpy.empty_like(x)
    size = x.shape[1] // groups
    means, projections = [], []
    for k, rows in enumerate(grouped_rows(x, groups)):
        data = numpy.stack(rows)
        mean = data.mean(axis=1)
        centered = data - mean[:, None]
        cov = centered @ centered.T / data.shape[1] + eps * numpy.eye(size)
        projection = numpy.linalg.inv(scipy.linalg.sqrtm(cov).real)
        white = projection @ centered
        for j in range(size):
            y[:, k * size + j] = white[j].reshape(y[:, 0].shape)
        means.append(mean)
        projections.append(projection)
    return y, numpy.stack(means), numpy.stack(projections)


def group_norm_reference(x, groups, gamma, beta, eps):
    x, gamma, beta = f64(x, gamma, beta)
    y = numpy.empty_like(x)
    size = x.shape[1] // groups
    for n in range(x.shape[0]):
        for k in range(groups):
            block = x[n, k * size : (k + 1) * size]
            y[n, k * size : (k + 1) * size] = (block - block.mean()) / numpy.sqrt(block.var() + eps)
    kept = (1, -1) + (1,) * (x.ndim - 2)
    return y * gamma.reshape(kept) + beta.reshape(kept)


def lrn_reference(x, n, k, alpha, beta):
    x = numpy.asarray(x, numpy.float64)
    y = numpy.empty_like(x)
    channels, half = x.shape[1], n // 2
    for i in range(channels):
        window = x[:, max(0, i - half) : min(channels, i + half + 1)]
        y[:, i] = x[:, i] / (k + alpha * (window**2).sum(axis=1)) ** beta
    return y


# -- batch_normalization ---------------------------------------------------------------------
BN_SHAPES = [(5, 3), (4, 3, 2), (2, 3, 2, 2)]


@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_normalization_forward(shape, dtype):
    x = normal(shape, 1, dtype, scale=2.0, shift=0.5)
    gamma, beta = positive(shape[1], 2, dtype), normal(shape[1], 3, dtype)
    expected, _, _ = batch_norm_reference(x, gamma, beta, 2e-5, default_axes(len(shape), 1))
    assert_forward(F.batch_normalization(x, gamma, beta), expected, dtype)


@pytest.mark.parametrize(
    "x_shape, gamma_shape, axis",
    [
        ((3, 4, 2), (2,), (0, 1)),  # normalized over the leading axes, one gamma per last entry
        ((4, 3), (3,), 0),  # an int axis
        ((3, 2, 4, 5), (2, 4), None),  # two channel axes by default: statistics over (0, 3)
        ((2, 3, 4), (3,), (0, -1)),  # negative axes count from the end
    ],
)
def test_batch_normalization_axis(x_shape, gamma_shape, axis):
    x = normal(x_shape, 4, numpy.float32)
    gamma, beta = positive(gamma_shape, 5, numpy.float32), normal(gamma_shape, 6, numpy.float32)
    ndim = len(x_shape)
    axes = (
        default_axes(ndim, len(gamma_shape))
        if axis is None
        else tuple(a % ndim for a in numpy.atleast_1d(axis))
    )
    expected, _, _ = batch_norm_reference(x, gamma, beta, 1e-3, axes)
    assert_forward(F.batch_normalization(x, gamma, beta, eps=1e-3, axis=axis), expected, numpy.float32)


@pytest.mark.parametrize("decay", [0.9, 0.5])
def test_batch_normalization_returns_updated_running_statistics(decay):
    x = normal((4, 3, 5), 7, numpy.float32, scale=3.0, shift=1.0)
    gamma, beta = positive(3, 8, numpy.float32), normal(3, 9, numpy.float32)
    running_mean, running_var = normal(3, 10, numpy.float32), positive(3, 11, numpy.float32)
    before = running_mean.copy(), running_var.copy()
    y, (new_mean, new_var) = F.batch_normalization(
        x, gamma, beta, running_mean=running_mean, running_var=running_var, decay=decay
    )
    expected_y, mean, var = batch_norm_reference(x, gamma, beta, 2e-5, (0, 2))
    m = 4 * 5
    assert_forward(y, expected_y, numpy.float32)
    assert_forward(new_mean, decay * running_mean + (1 - decay) * mean, numpy.float32)
    assert_forward(new_var, decay * running_var + (1 - decay) * m / (m - 1) * var, numpy.float32)
    numpy.testing.assert_array_equal(running_mean, before[0])  # pure: the inputs are untouched
    numpy.testing.assert_array_equal(running_var, before[1])


def test_batch_normalization_running_statistics_carry_no_gradient():
    x, gamma, beta = normal((4, 2), 12), positive(2, 13), normal(2, 14)
    stats = {}

    def loss(x):
        y, stats["new"] = F.batch_normalization(
            x, gamma, beta, running_mean=numpy.zeros(2), running_var=numpy.ones(2)
        )
        return ops.sum(ops.square(y))

    fnet.grad(loss)(x)
    assert all(type(s) is numpy.ndarray for s in stats["new"])


def test_batch_normalization_float16_input_with_float32_parameters():
    x = normal((6, 4), 15, numpy.float16)
    gamma, beta = positive(4, 16, numpy.float32), normal(4, 17, numpy.float32)
    running = numpy.zeros(4, numpy.float32), numpy.ones(4, numpy.float32)
    y, (mean, var) = F.batch_normalization(x, gamma, beta, running_mean=running[0], running_var=running[1])
    expected, batch_mean, _ = batch_norm_reference(x, gamma, beta, 2e-5, (0,))
    assert_forward(y, expected, numpy.float16)
    assert mean.dtype == var.dtype == numpy.float32
    numpy.testing.assert_allclose(mean, 0.1 * batch_mean, rtol=1e-5, atol=1e-6)


def test_float16_statistics_do_not_overflow():
    x = normal((64, 2, 32, 32), 104, numpy.float16, shift=5.0)  # per-channel sums far above 65504
    gamma, beta = numpy.ones(2, numpy.float16), numpy.zeros(2, numpy.float16)
    expected, _, _ = batch_norm_reference(x, gamma, beta, 2e-5, (0, 2, 3))
    assert_forward(F.batch_normalization(x, gamma, beta), expected, numpy.float16)
    x64 = x.astype(numpy.float64)
    norm = numpy.sqrt((x64**2).sum(axis=(2, 3), keepdims=True))
    assert_forward(F.normalize(x, axis=(2, 3)), x64 / (norm + 1e-5), numpy.float16)


def test_batch_normalization_warns_on_a_single_value_per_channel():
    x = normal((1, 3), 18, numpy.float32)
    with pytest.warns(UserWarning, match=r"batch_normalization: the statistics are taken over a single"):
        y = F.batch_normalization(x, numpy.ones(3, numpy.float32), numpy.full(3, 0.5, numpy.float32))
    numpy.testing.assert_array_equal(y, numpy.full((1, 3), 0.5, numpy.float32))


@pytest.mark.parametrize(
    "x_shape, gamma_shape, axis",
    [
        ((4, 3), (3,), None),
        ((3, 2, 2), (2,), None),
        ((3, 2, 1), (2,), None),  # a size-1 spatial axis
        ((3, 2, 2), (2,), (0, 1)),
        ((2, 2, 3), (2, 3), None),
    ],
)
def test_batch_normalization_grads(x_shape, gamma_shape, axis):
    args = (normal(x_shape, 19), positive(gamma_shape, 20), normal(gamma_shape, 21))
    check_grads(lambda x, g, b: F.batch_normalization(x, g, b, axis=axis), args, order=2)


def test_batch_normalization_grads_with_running_statistics():
    args = (normal((3, 2, 2), 22), positive(2, 23), normal(2, 24))
    running = dict(running_mean=numpy.zeros(2), running_var=numpy.ones(2))
    check_grads(lambda x, g, b: F.batch_normalization(x, g, b, **running)[0], args, order=2)


def test_batch_normalization_gradient_is_chainers_closed_form():
    x, gamma, beta = normal((5, 3, 4), 25, scale=2.0), positive(3, 26), normal(3, 27)
    gy = normal((5, 3, 4), 28)
    gx, ggamma, gbeta = pullback(lambda x, g, b: F.batch_normalization(x, g, b), (x, gamma, beta), gy)
    expected = batch_norm_grads_reference(x, gamma, gy, 2e-5, (0, 2))
    for actual, desired in zip((gx, ggamma, gbeta), expected):
        numpy.testing.assert_allclose(actual, desired, rtol=1e-9, atol=1e-12)


# -- fixed_batch_normalization ---------------------------------------------------------------
@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_fixed_batch_normalization_forward(shape, dtype):
    c = shape[1]
    x = normal(shape, 29, dtype)
    gamma, beta, mean, var = (
        positive(c, 30, dtype),
        normal(c, 31, dtype),
        normal(c, 32, dtype),
        positive(c, 33, dtype),
    )
    kept = (1, c) + (1,) * (len(shape) - 2)
    x64, g64, b64, m64, v64 = f64(x, gamma, beta, mean, var)
    expected = g64.reshape(kept) * (x64 - m64.reshape(kept)) / numpy.sqrt(v64.reshape(kept) + 2e-5)
    assert_forward(
        F.fixed_batch_normalization(x, gamma, beta, mean, var), expected + b64.reshape(kept), dtype
    )


def test_fixed_batch_normalization_axis():
    x = normal((3, 4, 2), 34, numpy.float32)
    gamma, beta, mean, var = positive(2, 35), normal(2, 36), normal(2, 37), positive(2, 38)
    gamma, beta, mean, var = (a.astype(numpy.float32) for a in (gamma, beta, mean, var))
    expected = gamma * (x.astype(numpy.float64) - mean) / numpy.sqrt(var + 1e-3) + beta
    actual = F.fixed_batch_normalization(x, gamma, beta, mean, var, eps=1e-3, axis=(0, 1))
    assert_forward(actual, expected, numpy.float32)


@pytest.mark.parametrize(
    "x_shape, axis", [((3, 2), None), ((1, 3), None), ((2, 3, 2), None), ((2, 2, 3), (0, 1))]
)
def test_fixed_batch_normalization_grads(x_shape, axis):
    c = x_shape[1] if axis is None else x_shape[2]
    args = (normal(x_shape, 39), positive(c, 40), normal(c, 41), normal(c, 42), positive(c, 43))
    check_grads(lambda *a: F.fixed_batch_normalization(*a, axis=axis), args, order=2)


def test_fixed_batch_renormalization_is_fixed_batch_normalization():
    x, gamma, beta, mean, var = (
        normal((3, 4, 2), 44),
        positive(4, 45),
        normal(4, 46),
        normal(4, 47),
        positive(4, 48),
    )
    with pytest.warns(DeprecationWarning, match="fixed_batch_renormalization is deprecated"):  # as Chainer
        y = F.fixed_batch_renormalization(x, gamma, beta, mean, var, eps=1e-3)
    numpy.testing.assert_array_equal(y, F.fixed_batch_normalization(x, gamma, beta, mean, var, eps=1e-3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check_grads(
            F.fixed_batch_renormalization,
            (normal((3, 2), 49), positive(2, 50), normal(2, 51), normal(2, 52), positive(2, 53)),
        )


# -- batch_renormalization -------------------------------------------------------------------
def renorm_reference(x, gamma, beta, rmax, dmax, eps, running_mean, running_var):
    """Forward of batch renormalization and Chainer's backward (r and d held constant)."""
    x, gamma, beta, running_mean, running_var = f64(x, gamma, beta, running_mean, running_var)
    axes = default_axes(x.ndim, gamma.ndim)
    kept = channel_shape(x.shape, axes)
    mean = x.mean(axis=axes)
    var = x.var(axis=axes)
    sigma = numpy.sqrt(var + eps)
    running_sigma = numpy.sqrt(running_var + eps)
    r = numpy.clip(sigma / running_sigma, 1 / rmax, rmax)
    d = numpy.clip((mean - running_mean) / running_sigma, -dmax, dmax)
    x_hat = (x - mean.reshape(kept)) / sigma.reshape(kept)
    y = gamma.reshape(kept) * (x_hat * r.reshape(kept) + d.reshape(kept)) + beta.reshape(kept)
    return y, mean, var, r, d


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 2)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_renormalization_forward(shape, dtype):
    c = shape[1]
    x = normal(shape, 54, dtype, scale=2.0, shift=0.3)
    gamma, beta = positive(c, 55, dtype), normal(c, 56, dtype)
    running_mean, running_var = normal(c, 57, dtype, scale=0.3), positive(c, 58, dtype)
    y = F.batch_renormalization(x, gamma, beta, 1.5, 1.0, running_mean=running_mean, running_var=running_var)
    expected, _, _, r, d = renorm_reference(x, gamma, beta, 1.5, 1.0, 2e-5, running_mean, running_var)
    clipped_r, clipped_d = (r == 1.5) | (r == 1 / 1.5), numpy.abs(d) == 1.0
    assert clipped_r.any() and clipped_d.any() and not (clipped_r.all() or clipped_d.all())
    assert_forward(y, expected, dtype)


def test_batch_renormalization_updates_statistics_only_when_asked():
    x, gamma, beta = (
        normal((5, 2, 3), 59, numpy.float32),
        positive(2, 60, numpy.float32),
        normal(2, 61, numpy.float32),
    )
    running = dict(running_mean=normal(2, 62, numpy.float32), running_var=positive(2, 63, numpy.float32))
    plain = F.batch_renormalization(x, gamma, beta, 2.0, 1.0, **running)
    y, (new_mean, new_var) = F.batch_renormalization(
        x, gamma, beta, 2.0, 1.0, **running, update_statistics=True
    )
    _, mean, var, _, _ = renorm_reference(x, gamma, beta, 2.0, 1.0, 2e-5, **running)
    numpy.testing.assert_array_equal(y, plain)
    assert_forward(new_mean, 0.9 * running["running_mean"] + 0.1 * mean, numpy.float32)
    assert_forward(new_var, 0.9 * running["running_var"] + 0.1 * 15 / 14 * var, numpy.float32)


def test_batch_renormalization_gradient_holds_r_and_d_constant():
    x, gamma, beta, gy = normal((6, 3, 2), 64), positive(3, 65), normal(3, 66), normal((6, 3, 2), 67)
    running = dict(running_mean=normal(3, 68, scale=0.2), running_var=positive(3, 69))
    _, _, _, r, _ = renorm_reference(x, gamma, beta, 3.0, 1.0, 2e-5, **running)
    gx, ggamma, gbeta = pullback(
        lambda x, g, b: F.batch_renormalization(x, g, b, 3.0, 1.0, **running), (x, gamma, beta), gy
    )
    # Chainer's backward is batch normalization's with gamma scaled by r, and x_hat_renorm for gamma
    expected_gx, _, expected_gbeta = batch_norm_grads_reference(x, gamma * r, gy, 2e-5, (0, 2))
    y0 = F.batch_renormalization(x, numpy.ones(3), numpy.zeros(3), 3.0, 1.0, **running)
    numpy.testing.assert_allclose(gx, expected_gx, rtol=1e-9, atol=1e-12)
    numpy.testing.assert_allclose(ggamma, (gy * y0).sum(axis=(0, 2)), rtol=1e-9, atol=1e-12)
    numpy.testing.assert_allclose(gbeta, expected_gbeta, rtol=1e-9, atol=1e-12)


def test_batch_renormalization_grads_where_r_and_d_are_clipped():
    # far running statistics clip r to 1/rmax and d to +-dmax: there they are truly constant
    running = dict(running_mean=numpy.array([30.0, -30.0]), running_var=numpy.array([100.0, 100.0]))
    args = (normal((3, 2, 2), 70), positive(2, 71), normal(2, 72))
    check_grads(lambda x, g, b: F.batch_renormalization(x, g, b, 1.5, 0.5, **running), args, order=2)


# -- decorrelated batch normalization --------------------------------------------------------
DBN_CASES = [((6, 4), 1), ((5, 4, 3), 2), ((3, 6, 2, 2), 3)]


DBN_TOL = {
    numpy.float16: dict(rtol=2e-2, atol=2e-2),
    numpy.float32: dict(rtol=1e-4, atol=1e-4),
    numpy.float64: dict(rtol=1e-9, atol=1e-10),
}


@pytest.mark.parametrize("shape, groups", DBN_CASES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_decorrelated_batch_normalization_forward(shape, groups, dtype):
    x = normal(shape, 73, dtype, scale=2.0, shift=1.0)
    y = F.decorrelated_batch_normalization(x, groups=groups, eps=1e-3)
    expected, _, _ = decorrelated_reference(x, groups, 1e-3)
    assert_forward(y, expected, dtype, DBN_TOL[dtype])


def test_decorrelated_batch_normalization_whitens_each_group():
    x = normal((40, 6, 2), 74) @ normal((2, 2), 75) + 3.0  # correlated channels with an offset
    y = F.decorrelated_batch_normalization(x, groups=2, eps=1e-9)
    for rows in grouped_rows(y, 2):
        data = numpy.stack(rows)
        numpy.testing.assert_allclose(data.mean(axis=1), 0.0, atol=1e-10)
        numpy.testing.assert_allclose(data @ data.T / data.shape[1], numpy.eye(3), atol=1e-6)


def test_decorrelated_batch_normalization_returns_updated_running_statistics():
    x = normal((4, 4, 3), 76, numpy.float32)
    running_mean = normal((2, 2), 77, numpy.float32)
    running_projection = numpy.tile(numpy.eye(2, dtype=numpy.float32), (2, 1, 1))
    y, (new_mean, new_projection) = F.decorrelated_batch_normalization(
        x, groups=2, running_mean=running_mean, running_projection=running_projection, decay=0.8
    )
    expected_y, mean, projection = decorrelated_reference(x, 2, 2e-5)
    m = 4 * 3
    tol = dict(rtol=1e-4, atol=1e-4)
    assert_forward(y, expected_y, numpy.float32, tol)
    assert_forward(new_mean, 0.8 * running_mean + 0.2 * mean, numpy.float32, tol)
    assert_forward(
        new_projection, 0.8 * running_projection + 0.2 * m / (m - 1) * projection, numpy.float32, tol
    )
    _, (only_mean, none) = F.decorrelated_batch_normalization(
        x, groups=2, running_mean=running_mean, decay=0.8
    )
    assert none is None
    numpy.testing.assert_array_equal(only_mean, new_mean)


@pytest.mark.parametrize(
    "shape, groups",
    [((5, 4, 2), 2), ((2, 4), 1), ((1, 3, 2, 2), 1)],  # (2, 4): 2 samples, 4 channels: degenerate eigenvalues
)
def test_decorrelated_batch_normalization_grads(shape, groups):
    check_grads(lambda x: F.decorrelated_batch_normalization(x, groups=groups), (normal(shape, 78),), order=2)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_fixed_decorrelated_batch_normalization_forward(dtype):
    x = normal((3, 4, 2), 79, dtype)
    mean, projection = normal((2, 2), 80, dtype), normal((2, 2, 2), 81, dtype)
    expected = numpy.empty((3, 4, 2))
    for k in range(2):
        for j in range(2):
            c = 2 * k + j
            expected[:, c] = sum(projection[k, j, i] * (x[:, 2 * k + i] - mean[k, i]) for i in range(2))
    assert_forward(F.fixed_decorrelated_batch_normalization(x, mean, projection, groups=2), expected, dtype)


@pytest.mark.parametrize("shape, groups", [((3, 4, 2), 2), ((2, 3), 1)])
def test_fixed_decorrelated_batch_normalization_grads(shape, groups):
    size = shape[1] // groups
    args = (normal(shape, 82), normal((groups, size), 83), normal((groups, size, size), 84))
    check_grads(lambda *a: F.fixed_decorrelated_batch_normalization(*a, groups=groups), args, order=2)


# -- group and layer normalization -----------------------------------------------------------
GN_CASES = [((3, 4), 2), ((2, 6, 3), 3), ((2, 4, 2, 2), 1), ((1, 4, 3), 4)]


@pytest.mark.parametrize("shape, groups", GN_CASES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_group_normalization_forward(shape, groups, dtype):
    c = shape[1]
    x = normal(shape, 85, dtype, scale=2.0, shift=-1.0)
    gamma, beta = positive(c, 86, dtype), normal(c, 87, dtype)
    expected = group_norm_reference(x, groups, gamma, beta, 1e-5)
    assert_forward(F.group_normalization(x, groups, gamma, beta), expected, dtype)


@pytest.mark.parametrize("shape, groups", [((2, 4), 2), ((2, 4, 3), 2), ((1, 2, 2, 2), 1)])
def test_group_normalization_grads(shape, groups):
    c = shape[1]
    args = (normal(shape, 88), positive(c, 89), normal(c, 90))
    check_grads(lambda x, g, b: F.group_normalization(x, groups, g, b), args, order=2)


@pytest.mark.parametrize("shape", [(3, 5), (1, 4), (6, 2)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_normalization_forward(shape, dtype):
    x = normal(shape, 91, dtype, scale=3.0, shift=2.0)
    gamma, beta = positive(shape[1], 92, dtype), normal(shape[1], 93, dtype)
    x64, g64, b64 = f64(x, gamma, beta)
    mean, var = x64.mean(axis=1, keepdims=True), x64.var(axis=1, keepdims=True)
    expected = (x64 - mean) / numpy.sqrt(var + 1e-5) * g64 + b64
    assert_forward(F.layer_normalization(x, gamma, beta), expected, dtype)


@pytest.mark.parametrize("shape", [(3, 4), (1, 3)])
def test_layer_normalization_grads(shape):
    args = (normal(shape, 94), positive(shape[1], 95), normal(shape[1], 96))
    check_grads(F.layer_normalization, args, order=2)


# -- local response normalization ------------------------------------------------------------
@pytest.mark.parametrize(
    "shape, params",
    [
        ((2, 7), {}),
        ((2, 6, 3, 2), dict(n=3, k=1.0, alpha=0.5, beta=0.6)),
        ((1, 5, 2), dict(n=4, k=0.5, alpha=0.2)),  # even n: window 2 * (n // 2) + 1 (Chainer's CPU code)
        ((2, 2, 2), dict(n=7, alpha=1.0)),  # window wider than the channels
    ],
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_local_response_normalization_forward(shape, params, dtype):
    x = normal(shape, 97, dtype, scale=2.0)
    reference_params = dict(n=5, k=2.0, alpha=1e-4, beta=0.75) | params
    expected = lrn_reference(x, **reference_params)
    assert_forward(F.local_response_normalization(x, **params), expected, dtype)


@pytest.mark.parametrize("shape, n", [((2, 5), 3), ((1, 4, 3), 4), ((2, 3, 2, 2), 5)])
def test_local_response_normalization_grads(shape, n):
    check_grads(
        lambda x: F.local_response_normalization(x, n=n, k=1.0, alpha=0.3), (normal(shape, 98),), order=2
    )


# -- normalize -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, axis", [((3, 4), 1), ((2, 3, 4), (1, 2)), ((2, 3, 4), -1), ((4, 2), 0)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_normalize_forward(shape, axis, dtype):
    x = normal(shape, 99, dtype)
    x64 = x.astype(numpy.float64)
    norm = numpy.sqrt((x64**2).sum(axis=axis, keepdims=True))
    assert_forward(F.normalize(x, axis=axis), x64 / (norm + 1e-5), dtype)


def test_normalize_keeps_zero_vectors_with_a_finite_gradient():
    x = normal((3, 4), 100)
    x[1] = 0.0
    gy = normal((3, 4), 101)
    y = F.normalize(x, eps=1e-3)
    numpy.testing.assert_array_equal(y[1], 0.0)
    (gx,) = pullback(lambda x: F.normalize(x, eps=1e-3), (x,), gy)
    numpy.testing.assert_allclose(gx[1], gy[1] / 1e-3)  # Chainer's choice at a zero vector
    second = fnet.grad(
        lambda x: ops.sum(ops.square(pullback(lambda v: F.normalize(v, eps=1e-3), (x,), gy)[0]))
    )(x)
    assert numpy.isfinite(second).all()


@pytest.mark.parametrize("shape, axis", [((3, 4), 1), ((2, 2, 3), (0, 2))])
def test_normalize_grads(shape, axis):
    check_grads(lambda x: F.normalize(x, axis=axis), (normal(shape, 102),), order=2)


# -- errors ----------------------------------------------------------------------------------
def f32(*shape):
    return numpy.ones(shape, numpy.float32)


def test_batch_normalization_errors():
    x = f32(4, 3, 2)
    with pytest.raises(
        ShapeError, match=r"batch_normalization: expected gamma.shape == \(3,\)(.|\n)*got \(4,\)"
    ):
        F.batch_normalization(x, f32(4), f32(4))
    with pytest.raises(
        ShapeError, match=r"batch_normalization: axis=3 is out of bounds for an array of 3 dim"
    ):
        F.batch_normalization(x, f32(3), f32(3), axis=(0, 3))
    with pytest.raises(
        InvalidInputError, match=r"axes in axis to be distinct and in ascending order, got \(2, 0\)"
    ):
        F.batch_normalization(x, f32(3), f32(3), axis=(2, 0))
    with pytest.raises(ShapeError, match=r"expected x.ndim >= gamma.ndim \+ 1, got 2 and 2"):
        F.batch_normalization(f32(3, 2), f32(3, 2), f32(3, 2))
    with pytest.raises(DTypeError, match=r"batch_normalization: expected x to be a float array, got int32"):
        F.batch_normalization(numpy.ones((2, 3), numpy.int32), f32(3), f32(3))
    with pytest.raises(DTypeError, match=r"expected gamma.dtype == beta.dtype, got float32 != float64"):
        F.batch_normalization(x, f32(3), numpy.ones(3))
    with pytest.raises(ShapeError, match=r"expected beta.shape == gamma.shape, got \(2,\) != \(3,\)"):
        F.batch_normalization(x, f32(3), f32(2))
    with pytest.raises(
        InvalidInputError, match=r"running_mean and running_var to be given together, got only run"
    ):
        F.batch_normalization(x, f32(3), f32(3), running_mean=f32(3))
    with pytest.raises(ShapeError, match=r"expected running_var.shape == gamma.shape, got \(4,\) != \(3,\)"):
        F.batch_normalization(x, f32(3), f32(3), running_mean=f32(3), running_var=f32(4))


def test_fixed_and_renormalization_errors():
    x = f32(4, 3)
    with pytest.raises(ShapeError, match=r"fixed_batch_normalization: expected var.shape == gamma.shape"):
        F.fixed_batch_normalization(x, f32(3), f32(3), f32(3), f32(2))
    with pytest.raises(DTypeError, match=r"expected gamma.dtype == mean.dtype, got float32 != float64"):
        F.fixed_batch_normalization(x, f32(3), f32(3), numpy.ones(3), f32(3))
    with pytest.raises(
        InvalidInputError,
        match=r"batch_renormalization: expected running_mean and running_var(.|\n)*got neither",
    ):
        F.batch_renormalization(x, f32(3), f32(3), 2.0, 1.0)


def test_decorrelated_batch_normalization_errors():
    with pytest.raises(
        ShapeError, match=r"expected x.shape\[1\] to be divisible by groups, got 6 channels and gr"
    ):
        F.decorrelated_batch_normalization(f32(2, 6))
    with pytest.raises(InvalidInputError, match=r"expected groups to be a positive int, got 0"):
        F.decorrelated_batch_normalization(f32(2, 6), groups=0)
    with pytest.raises(ShapeError, match=r"expected x.ndim == 2..32, got 1"):
        F.decorrelated_batch_normalization(f32(6), groups=2)
    with pytest.raises(ShapeError, match=r"expected running_projection.shape == \(2, 3, 3\), got \(3, 3\)"):
        F.decorrelated_batch_normalization(f32(2, 6), groups=2, running_projection=f32(3, 3))
    with pytest.raises(
        ShapeError, match=r"fixed_decorrelated_batch_normalization: expected mean.shape == \(2, 3\)"
    ):
        F.fixed_decorrelated_batch_normalization(f32(2, 6), f32(6), f32(2, 3, 3), groups=2)
    with pytest.raises(DTypeError, match=r"expected x.dtype == projection.dtype, got float32 != float64"):
        F.fixed_decorrelated_batch_normalization(f32(2, 6), f32(2, 3), numpy.ones((2, 3, 3)), groups=2)


def test_group_and_layer_normalization_errors():
    with pytest.raises(
        ShapeError, match=r"group_normalization: expected x.shape\[1\] to be divisible by groups"
    ):
        F.group_normalization(f32(2, 6), 4, f32(6), f32(6))
    with pytest.raises(
        ShapeError, match=r"group_normalization: expected gamma.shape == \(x.shape\[1\],\) == \(6,"
    ):
        F.group_normalization(f32(2, 6), 3, f32(3), f32(3))
    with pytest.raises(ArgumentTypeError, match=r"expected groups to be a positive int, got 2.0"):
        F.group_normalization(f32(2, 6), 2.0, f32(6), f32(6))  # a TypeError, as in Chainer
    with pytest.raises(
        ShapeError, match=r"layer_normalization: expected x.ndim == 2, got 3(.|\n)*hint: x is"
    ):
        F.layer_normalization(f32(2, 3, 4), f32(3), f32(3))
    with pytest.raises(DTypeError, match=r"layer_normalization: expected x.dtype == gamma.dtype"):
        F.layer_normalization(f32(2, 3), numpy.ones(3), numpy.ones(3))
    with pytest.raises(ShapeError, match=r"layer_normalization: expected gamma.ndim == 1, got 2"):
        F.layer_normalization(f32(2, 3), f32(1, 3), f32(1, 3))


def test_local_response_and_l2_normalization_errors():
    with pytest.raises(ShapeError, match=r"local_response_normalization: expected x.ndim == 2..32, got 1"):
        F.local_response_normalization(f32(5))
    with pytest.raises(
        InvalidInputError, match=r"local_response_normalization: expected n to be a positive int"
    ):
        F.local_response_normalization(f32(2, 5), n=0)
    with pytest.raises(ShapeError, match=r"normalize: axis=2 is out of bounds for an array of 2 dimensions"):
        F.normalize(f32(2, 5), axis=2)
    with pytest.raises(InvalidInputError, match=r"normalize: expected distinct axes, got axis=\(1, -1\)"):
        F.normalize(f32(2, 5), axis=(1, -1))
    with pytest.raises(DTypeError, match=r"normalize: expected x to be a float array, got int64"):
        F.normalize(numpy.ones((2, 5), numpy.int64))


def test_decorrelated_running_statistics_of_another_dtype_keep_it():
    # Chainer checks only x and updates its running statistics in place, in their own dtype
    x = numpy.random.RandomState(4).uniform(-1, 1, (6, 4))
    mean, projection = (
        numpy.zeros((2, 2), numpy.float32),
        numpy.tile(numpy.eye(2, dtype=numpy.float32), (2, 1, 1)),
    )
    y, (new_mean, new_projection) = F.decorrelated_batch_normalization(
        x, groups=2, running_mean=mean, running_projection=projection, decay=0.5
    )
    assert y.dtype == numpy.float64 and new_mean.dtype == new_projection.dtype == numpy.float32
    expected = 0.5 * x.reshape(6, 2, 2).mean(axis=0)
    numpy.testing.assert_allclose(new_mean, expected, rtol=1e-6)
