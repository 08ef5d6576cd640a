"""Tests of fnet.functions' losses: forward values against plain NumPy references written here
(float32, float64, and float16 where Chainer supports it), derivatives to order 2 (float64, away
from kinks), the numerics of the softmax cross entropy, and the error messages."""

from __future__ import annotations

import itertools
import math

import numpy
import pytest

import fnet
import fnet.functions as F
from fnet import ops
from fnet.errors import DTypeError, InvalidInputError, ShapeError
from fnet.testing import check_grads

FLOATS = [numpy.float32, numpy.float64]
TOL = {
    numpy.float16: dict(rtol=1e-2, atol=1e-2),
    numpy.float32: dict(rtol=2e-5, atol=1e-6),
    numpy.float64: dict(rtol=1e-11, atol=1e-12),
}


# -- helpers ---------------------------------------------------------------------------------
def rng(seed: int = 0) -> numpy.random.RandomState:
    return numpy.random.RandomState(seed)


def normal(*shape, seed=0, dtype=numpy.float64):
    return rng(seed).standard_normal(shape).astype(dtype)


def labels(shape, n_classes, seed=0):
    return rng(seed).randint(0, n_classes, shape).astype(numpy.int32)


def assert_forward(actual, expected, dtype):
    actual = numpy.asarray(actual)
    assert actual.dtype == dtype
    assert actual.shape == numpy.shape(expected)
    numpy.testing.assert_allclose(actual.astype(numpy.float64), expected, **TOL[dtype])


def f64(x):
    return numpy.asarray(x, numpy.float64)


def reduce_ref(loss, reduce):
    return {"no": loss, "sum": loss.sum(), "mean": loss.mean()}[reduce]


def logsumexp_ref(v) -> float:
    m = max(v)
    return m + math.log(sum(math.exp(a - m) for a in v))


# -- elementwise and mean regression losses ---------------------------------------------------
PAIRWISE = {
    "absolute_error": (F.absolute_error, lambda a, b: numpy.abs(a - b)),
    "squared_error": (F.squared_error, lambda a, b: (a - b) ** 2),
    "mean_absolute_error": (F.mean_absolute_error, lambda a, b: numpy.abs(a - b).mean()),
    "mean_squared_error": (F.mean_squared_error, lambda a, b: ((a - b) ** 2).mean()),
}


@pytest.mark.parametrize("name", sorted(PAIRWISE))
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 2)])
@pytest.mark.parametrize("dtype", [numpy.float16, *FLOATS])
def test_pairwise_forward(name, shape, dtype):
    fn, reference = PAIRWISE[name]
    x0, x1 = normal(*shape, seed=1, dtype=dtype), normal(*shape, seed=2, dtype=dtype)
    assert_forward(fn(x0, x1), reference(f64(x0), f64(x1)), dtype)


def test_pairwise_documented_examples():
    x = numpy.array([[1, 2], [3, 4]], numpy.float32)
    y = numpy.full((2, 2), 8, numpy.float32)
    assert float(F.mean_squared_error(x, y)) == 31.5
    assert float(F.mean_absolute_error(x, y)) == 5.5


@pytest.mark.parametrize("name", sorted(PAIRWISE))
@pytest.mark.parametrize("shape", [(4,), (2, 3)])
def test_pairwise_grads(name, shape):
    x0 = normal(*shape, seed=3)
    x1 = x0 + numpy.where(rng(4).uniform(size=shape) < 0.5, -1, 1) * rng(5).uniform(0.2, 1.0, shape)
    check_grads(PAIRWISE[name][0], (x0, x1), order=2)


@pytest.mark.parametrize("name", sorted(PAIRWISE))
def test_pairwise_errors(name):
    fn = PAIRWISE[name][0]
    with pytest.raises(ShapeError, match=rf"{name}: expected x0.shape == x1.shape, got \(2, 3\) != \(3, 2\)"):
        fn(numpy.zeros((2, 3)), numpy.zeros((3, 2)))
    with pytest.raises(DTypeError, match=rf"{name}: expected x0.dtype == x1.dtype, got float32 != float64"):
        fn(numpy.zeros(3, numpy.float32), numpy.zeros(3))
    with pytest.raises(DTypeError, match=rf"{name}: expected x0 to be a float array, got int64"):
        fn(numpy.zeros(3, numpy.int64), numpy.zeros(3))


def huber_ref(x, t, delta, reduce):
    a = f64(x) - f64(t)
    loss = numpy.where(numpy.abs(a) <= delta, 0.5 * a * a, delta * (numpy.abs(a) - 0.5 * delta))
    return loss.sum(axis=1) if reduce == "sum_along_second_axis" else loss


@pytest.mark.parametrize("reduce", ["sum_along_second_axis", "no"])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4)])
@pytest.mark.parametrize("dtype", [numpy.float16, *FLOATS])
def test_huber_loss_forward(reduce, shape, dtype):
    x, t = 2 * normal(*shape, seed=1, dtype=dtype), 2 * normal(*shape, seed=2, dtype=dtype)
    assert_forward(F.huber_loss(x, t, 0.8, reduce=reduce), huber_ref(x, t, 0.8, reduce), dtype)


def test_huber_loss_documented_example_and_large_errors():
    x = numpy.array([[-2.0, 3.0, 0.5], [5.0, 2.0, -0.5]], numpy.float32)
    t = numpy.array([[-2.0, 3.0, 0.0], [10.0, 2.0, -0.5]], numpy.float32)
    numpy.testing.assert_allclose(F.huber_loss(x, t, delta=1.0), [0.125, 4.5])
    # the linear piece is not computed as a difference of squares: exact far from the target
    big = F.huber_loss(numpy.array([[1e6]], numpy.float32), numpy.zeros((1, 1), numpy.float32), 1.0)
    assert float(big[0]) == 1e6 - 0.5


@pytest.mark.parametrize("reduce", ["sum_along_second_axis", "no"])
@pytest.mark.parametrize("shape", [(3, 2), (2, 2, 3)])
def test_huber_loss_grads(reduce, shape):
    delta = 0.8
    t = normal(*shape, seed=6)
    magnitude = numpy.where(rng(7).uniform(size=shape) < 0.5, 0.4, 1.5)  # both pieces, off the kink
    x = t + numpy.where(rng(8).uniform(size=shape) < 0.5, -1, 1) * magnitude
    check_grads(lambda x, t: F.huber_loss(x, t, delta, reduce=reduce), (x, t), order=2)


def test_huber_loss_second_derivative_is_one_inside_and_zero_outside():
    x = numpy.array([[0.0, 0.3, 2.0, -3.0]])
    hessian_diagonal = fnet.grad(
        lambda x: ops.sum(fnet.grad(lambda y: ops.sum(F.huber_loss(y, 0 * y, 1.0)))(x))
    )(x)
    numpy.testing.assert_array_equal(hessian_diagonal, [[1.0, 1.0, 0.0, 0.0]])


def test_huber_loss_errors():
    with pytest.raises(
        InvalidInputError, match=r"huber_loss: expected reduce to be one of 'sum_along_second_axis', 'no'"
    ):
        F.huber_loss(numpy.zeros((2, 2)), numpy.zeros((2, 2)), 1.0, reduce="mean")
    with pytest.raises(
        ShapeError, match=r"huber_loss: reduce='sum_along_second_axis' needs x.ndim >= 2, got 1"
    ):
        F.huber_loss(numpy.zeros(3), numpy.zeros(3), 1.0)
    with pytest.raises(InvalidInputError, match=r"huber_loss: expected delta >= 0, got -1"):
        F.huber_loss(numpy.zeros((2, 2)), numpy.zeros((2, 2)), -1)
    with pytest.raises(ShapeError, match=r"huber_loss: expected x.shape == t.shape"):
        F.huber_loss(numpy.zeros((2, 2)), numpy.zeros((2, 3)), 1.0)


# -- probabilistic losses --------------------------------------------------------------------
def kl_ref(mean, ln_var):
    mean, ln_var = f64(mean), f64(ln_var)
    return 0.5 * (mean**2 + numpy.exp(ln_var) - ln_var - 1)


def bernoulli_ref(x, y):
    x, y = f64(x), f64(y)
    p = 1 / (1 + numpy.exp(-y))
    return -(x * numpy.log(p) + (1 - x) * numpy.log(1 - p))


def gaussian_nll_ref(x, mean, ln_var):
    x, mean, ln_var = f64(x), f64(mean), f64(ln_var)
    var = numpy.exp(ln_var)
    return 0.5 * numpy.log(2 * numpy.pi * var) + (x - mean) ** 2 / (2 * var)


PROBABILISTIC = {
    "gaussian_kl_divergence": (F.gaussian_kl_divergence, kl_ref, 2),
    "bernoulli_nll": (F.bernoulli_nll, bernoulli_ref, 2),
    "gaussian_nll": (F.gaussian_nll, gaussian_nll_ref, 3),
}


def probabilistic_args(name, shape, dtype, seed=0):
    args = [normal(*shape, seed=seed + i, dtype=dtype) for i in range(PROBABILISTIC[name][2])]
    if name == "bernoulli_nll":  # observations in [0, 1]
        args[0] = rng(seed).uniform(0, 1, shape).astype(dtype)
    return args


@pytest.mark.parametrize("name", sorted(PROBABILISTIC))
@pytest.mark.parametrize("reduce", ["sum", "mean", "no"])
@pytest.mark.parametrize("shape", [(4,), (3, 2, 2)])
@pytest.mark.parametrize("dtype", [numpy.float16, *FLOATS])
def test_probabilistic_forward(name, reduce, shape, dtype):
    fn, reference, _ = PROBABILISTIC[name]
    args = probabilistic_args(name, shape, dtype)
    assert_forward(fn(*args, reduce=reduce), reduce_ref(reference(*args), reduce), dtype)


def test_probabilistic_defaults_sum():
    args = probabilistic_args("gaussian_nll", (3,), numpy.float64)
    assert float(F.gaussian_nll(*args)) == pytest.approx(gaussian_nll_ref(*args).sum())
    assert float(F.bernoulli_nll(*args[:2])) == pytest.approx(bernoulli_ref(*args[:2]).sum())


@pytest.mark.parametrize("name", sorted(PROBABILISTIC))
@pytest.mark.parametrize("reduce", ["sum", "mean", "no"])
@pytest.mark.parametrize("shape", [(3,), (2, 1, 3)])
def test_probabilistic_grads(name, reduce, shape):
    fn = PROBABILISTIC[name][0]
    check_grads(
        lambda *args: fn(*args, reduce=reduce), probabilistic_args(name, shape, numpy.float64, 5), order=2
    )


@pytest.mark.parametrize("name", sorted(PROBABILISTIC))
def test_probabilistic_errors(name):
    fn, _, arity = PROBABILISTIC[name]
    good = [numpy.zeros(3)] * arity
    with pytest.raises(
        InvalidInputError, match=rf"{name}: expected reduce to be one of 'sum', 'mean', 'no', got 'max'"
    ):
        fn(*good, reduce="max")
    with pytest.raises(ShapeError, match=rf"{name}: expected .*\.shape == .*\.shape, got \(3,\) != \(4,\)"):
        fn(*good[:-1], numpy.zeros(4))
    with pytest.raises(DTypeError, match=rf"{name}: expected .*\.dtype == .*\.dtype, got float64 != float32"):
        fn(*good[:-1], numpy.zeros(3, numpy.float32))


# -- metric learning -------------------------------------------------------------------------
def contrastive_ref(x0, x1, y, margin, reduce):
    losses = []
    for a, b, similar in zip(f64(x0), f64(x1), y):
        d = math.sqrt(((a - b) ** 2).sum())
        losses.append(0.5 * (d * d if similar else max(margin - d, 0.0) ** 2))
    losses = numpy.array(losses)
    return losses if reduce == "no" else losses.mean()


def triplet_ref(a, p, n, margin, reduce):
    losses = numpy.array(
        [
            max(((ai - pi) ** 2).sum() - ((ai - ni) ** 2).sum() + margin, 0.0)
            for ai, pi, ni in zip(f64(a), f64(p), f64(n))
        ]
    )
    return losses if reduce == "no" else losses.mean()


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("shape", [(4, 3), (1, 5)])
@pytest.mark.parametrize("dtype", [numpy.float16, *FLOATS])
def test_contrastive_forward(reduce, shape, dtype):
    x0, x1 = normal(*shape, seed=1, dtype=dtype), normal(*shape, seed=2, dtype=dtype)
    y = labels(shape[0], 2, seed=3)
    assert_forward(
        F.contrastive(x0, x1, y, margin=2.5, reduce=reduce), contrastive_ref(x0, x1, y, 2.5, reduce), dtype
    )


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("shape", [(4, 3), (1, 5)])
@pytest.mark.parametrize("dtype", [numpy.float16, *FLOATS])
def test_triplet_forward(reduce, shape, dtype):
    a, p, n = (normal(*shape, seed=s, dtype=dtype) for s in (1, 2, 3))
    assert_forward(F.triplet(a, p, n, margin=0.5, reduce=reduce), triplet_ref(a, p, n, 0.5, reduce), dtype)


def test_metric_documented_examples():
    x0 = numpy.array([[-2.0, 3.0, 0.5], [5.0, 2.0, -0.5]], numpy.float32)
    x1 = numpy.array([[-1.0, 3.0, 1.0], [3.5, 0.5, -2.0]], numpy.float32)
    y = numpy.array([1, 0], numpy.int32)
    assert float(F.contrastive(x0, x1, y)) == pytest.approx(0.3125)
    assert float(F.contrastive(x0, x1, y, margin=3.0)) == pytest.approx(0.3528857)
    p = numpy.array([[-2.1, 2.8, 0.5], [4.9, 2.0, -0.4]], numpy.float32)
    n = numpy.array([[-2.1, 2.7, 0.7], [4.9, 2.0, -0.7]], numpy.float32)
    assert float(F.triplet(x0, p, n)) == pytest.approx(0.14, rel=1e-5)


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("shape", [(4, 3), (2, 1)])
def test_contrastive_grads(reduce, shape):
    x0 = normal(*shape, seed=11)
    x1 = normal(*shape, seed=12)
    d = numpy.sqrt(((x0 - x1) ** 2).sum(axis=1))
    margin = float(numpy.median(d)) + 0.05  # some dissimilar pairs inside the margin, some outside
    assert numpy.abs(d - margin).min() > 0.02
    y = numpy.array([1, 0, 0, 1][: shape[0]], numpy.int32)
    check_grads(lambda a, b: F.contrastive(a, b, y, margin=margin, reduce=reduce), (x0, x1), order=2)


def test_contrastive_identical_dissimilar_pair_has_zero_gradient():
    x = numpy.array([[1.0, 2.0]])
    g0, g1 = fnet.grad(lambda a, b: F.contrastive(a, b, numpy.array([0])), argnums=(0, 1))(x, x.copy())
    numpy.testing.assert_array_equal(g0, 0.0)
    numpy.testing.assert_array_equal(g1, 0.0)


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("shape", [(4, 3), (1, 2)])
def test_triplet_grads(reduce, shape):
    a, p, n = (normal(*shape, seed=s) for s in (21, 22, 23))
    gap = ((a - p) ** 2).sum(axis=1) - ((a - n) ** 2).sum(axis=1)
    margin = 0.3
    assert numpy.abs(gap + margin).min() > 0.05
    check_grads(lambda a, p, n: F.triplet(a, p, n, margin=margin, reduce=reduce), (a, p, n), order=2)


def test_metric_errors():
    x, y = numpy.zeros((2, 3)), numpy.array([0, 1], numpy.int32)
    with pytest.raises(InvalidInputError, match=r"contrastive: expected margin > 0, got 0"):
        F.contrastive(x, x, y, margin=0)
    with pytest.raises(
        InvalidInputError, match=r"contrastive: label 2 in y is out of range: expected 0 <= y < 2"
    ):
        F.contrastive(x, x, numpy.array([0, 2]))
    with pytest.raises(
        DTypeError, match=r"contrastive: expected y to be an integer label array, got float64"
    ):
        F.contrastive(x, x, numpy.zeros(2))
    with pytest.raises(
        ShapeError, match=r"contrastive: expected y.shape == \(2,\) \(one entry per sample\), got \(3,\)"
    ):
        F.contrastive(x, x, numpy.zeros(3, numpy.int32))
    with pytest.raises(ShapeError, match=r"contrastive: expected x0.ndim == 2, got 3"):
        F.contrastive(numpy.zeros((2, 3, 1)), numpy.zeros((2, 3, 1)), y)
    with pytest.raises(ShapeError, match=r"contrastive: expected at least one sample"):
        F.contrastive(numpy.zeros((0, 3)), numpy.zeros((0, 3)), numpy.zeros(0, numpy.int32))
    with pytest.raises(
        InvalidInputError, match=r"contrastive: expected reduce to be one of 'mean', 'no', got 'sum'"
    ):
        F.contrastive(x, x, y, reduce="sum")
    with pytest.raises(InvalidInputError, match=r"triplet: expected margin > 0, got -0.5"):
        F.triplet(x, x, x, margin=-0.5)
    with pytest.raises(ShapeError, match=r"triplet: expected anchor.shape == negative.shape"):
        F.triplet(x, x, numpy.zeros((2, 4)))
    with pytest.raises(DTypeError, match=r"triplet: expected anchor.dtype == positive.dtype"):
        F.triplet(x, x.astype(numpy.float32), x)


# -- covariance penalties --------------------------------------------------------------------
def covariance_ref(y, z):
    y, z = f64(y), f64(z)
    n = len(y)
    cov = numpy.zeros((y.shape[1], z.shape[1]))
    for i, j in itertools.product(range(y.shape[1]), range(z.shape[1])):
        cov[i, j] = sum((y[k, i] - y[:, i].mean()) * (z[k, j] - z[:, j].mean()) for k in range(n)) / n
    return cov


def decov_ref(h):
    cov = covariance_ref(h, h)
    numpy.fill_diagonal(cov, 0.0)
    return cov


@pytest.mark.parametrize("reduce", ["half_squared_sum", "no"])
@pytest.mark.parametrize("shapes", [((5, 3), (5, 2)), ((1, 2), (1, 1))])
@pytest.mark.parametrize("dtype", [numpy.float16, *FLOATS])
def test_cross_covariance_forward(reduce, shapes, dtype):
    y, z = normal(*shapes[0], seed=1, dtype=dtype), normal(*shapes[1], seed=2, dtype=dtype)
    cov = covariance_ref(y, z)
    expected = cov if reduce == "no" else 0.5 * (cov**2).sum()
    assert_forward(F.cross_covariance(y, z, reduce=reduce), expected, dtype)


@pytest.mark.parametrize("reduce", ["half_squared_sum", "no"])
@pytest.mark.parametrize("shape", [(5, 3), (2, 1)])
@pytest.mark.parametrize("dtype", [numpy.float16, *FLOATS])
def test_decov_forward(reduce, shape, dtype):
    h = normal(*shape, seed=3, dtype=dtype)
    cov = decov_ref(h)
    assert_forward(F.decov(h, reduce=reduce), cov if reduce == "no" else 0.5 * (cov**2).sum(), dtype)


@pytest.mark.parametrize("reduce", ["half_squared_sum", "no"])
@pytest.mark.parametrize("shapes", [((4, 3), (4, 2)), ((3, 1), (3, 2))])
def test_covariance_grads(reduce, shapes):
    y, z = normal(*shapes[0], seed=4), normal(*shapes[1], seed=5)
    check_grads(lambda y, z: F.cross_covariance(y, z, reduce=reduce), (y, z), order=2)
    check_grads(lambda y: F.decov(y, reduce=reduce), (y,), order=2)


def test_covariance_errors():
    with pytest.raises(
        ShapeError, match=r"cross_covariance: expected y.shape\[0\] == z.shape\[0\] \(one batch\), got 3 != 4"
    ):
        F.cross_covariance(numpy.zeros((3, 2)), numpy.zeros((4, 2)))
    with pytest.raises(ShapeError, match=r"cross_covariance: expected z.ndim == 2, got 1"):
        F.cross_covariance(numpy.zeros((3, 2)), numpy.zeros(3))
    with pytest.raises(
        InvalidInputError, match=r"cross_covariance: expected reduce to be one of 'half_squared_sum', 'no'"
    ):
        F.cross_covariance(numpy.zeros((3, 2)), numpy.zeros((3, 2)), reduce="mean")
    with pytest.raises(ShapeError, match=r"decov: expected h.ndim == 2, got 3"):
        F.decov(numpy.zeros((2, 2, 2)))
    with pytest.raises(DTypeError, match=r"decov: expected h to be a float array, got int32"):
        F.decov(numpy.zeros((2, 2), numpy.int32))


# -- sigmoid cross entropy and hinge ---------------------------------------------------------
def sigmoid_ce_ref(x, t, normalize, reduce):
    x = f64(x)
    loss = numpy.zeros(x.shape)
    for i in numpy.ndindex(*x.shape):
        if t[i] != -1:
            p = 1 / (1 + math.exp(-x[i]))
            loss[i] = -math.log(p) if t[i] == 1 else -math.log(1 - p)
    if reduce == "no":
        return loss
    return loss.sum() / max((t != -1).sum() if normalize else len(x), 1)


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("shape", [(4, 3), (5,), (2, 2, 3)])
@pytest.mark.parametrize("dtype", [numpy.float16, *FLOATS])
def test_sigmoid_cross_entropy_forward(normalize, reduce, shape, dtype):
    x = 3 * normal(*shape, seed=1, dtype=dtype)
    t = rng(2).randint(-1, 2, shape).astype(numpy.int32)
    expected = sigmoid_ce_ref(x, t, normalize, reduce)
    assert_forward(F.sigmoid_cross_entropy(x, t, normalize=normalize, reduce=reduce), expected, dtype)


def test_sigmoid_cross_entropy_documented_example_and_extremes():
    x = numpy.array([[-2.0, 3.0, 0.5], [5.0, 2.0, -0.5]], numpy.float32)
    t = numpy.array([[0, 1, 0], [1, 1, -1]], numpy.int32)
    assert float(F.sigmoid_cross_entropy(x, t)) == pytest.approx(0.25664714)
    assert float(F.sigmoid_cross_entropy(x, t, normalize=False)) == pytest.approx(0.64161783)
    # confident and right: log(1 + exp(-30)) is not lost to rounding; confident and wrong: finite
    x = numpy.array([30.0, -30.0, 100.0], numpy.float32)
    t = numpy.array([1, 0, 0], numpy.int32)
    numpy.testing.assert_allclose(
        F.sigmoid_cross_entropy(x, t, reduce="no"), [math.exp(-30), math.exp(-30), 100.0], rtol=1e-6
    )
    assert float(F.sigmoid_cross_entropy(numpy.zeros(2), numpy.array([-1, -1]))) == 0.0


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("shape", [(3, 2), (4,)])
def test_sigmoid_cross_entropy_grads(normalize, reduce, shape):
    x = 2 * normal(*shape, seed=7)
    t = rng(8).randint(-1, 2, shape).astype(numpy.int32)
    check_grads(lambda x: F.sigmoid_cross_entropy(x, t, normalize=normalize, reduce=reduce), (x,), order=2)


def test_sigmoid_cross_entropy_errors():
    x = numpy.zeros((2, 2))
    with pytest.raises(
        InvalidInputError,
        match=r"sigmoid_cross_entropy: label 2 in t is out of range: expected 0 <= t < 2 or t == -1",
    ):
        F.sigmoid_cross_entropy(x, numpy.array([[0, 1], [2, 0]]))
    with pytest.raises(
        DTypeError, match=r"sigmoid_cross_entropy: expected t to be an integer label array, got float64"
    ):
        F.sigmoid_cross_entropy(x, x)
    with pytest.raises(
        ShapeError, match=r"sigmoid_cross_entropy: expected x.shape == t.shape, got \(2, 2\) != \(2,\)"
    ):
        F.sigmoid_cross_entropy(x, numpy.array([0, 1]))
    with pytest.raises(
        InvalidInputError, match=r"sigmoid_cross_entropy: expected reduce to be one of 'mean', 'no'"
    ):
        F.sigmoid_cross_entropy(x, numpy.zeros((2, 2), numpy.int32), reduce="sum")


def hinge_ref(x, t, norm, reduce):
    x = f64(x)
    loss = numpy.zeros(x.shape)
    for n, k in numpy.ndindex(*x.shape):
        margin = max(0.0, 1 - x[n, k]) if k == t[n] else max(0.0, 1 + x[n, k])
        loss[n, k] = margin if norm == "L1" else margin**2
    return loss if reduce == "no" else loss.sum() / len(x)


@pytest.mark.parametrize("norm", ["L1", "L2"])
@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("shape", [(4, 3), (1, 5)])
@pytest.mark.parametrize("dtype", [numpy.float16, *FLOATS])
def test_hinge_forward(norm, reduce, shape, dtype):
    x = 2 * normal(*shape, seed=1, dtype=dtype)
    t = labels(shape[0], shape[1], seed=2)
    assert_forward(F.hinge(x, t, norm=norm, reduce=reduce), hinge_ref(x, t, norm, reduce), dtype)


def test_hinge_documented_example():
    x = numpy.array([[-2.0, 3.0, 0.5], [5.0, 2.0, -0.5]], numpy.float32)
    t = numpy.array([1, 0], numpy.int32)
    assert float(F.hinge(x, t)) == 2.5
    assert float(F.hinge(x, t, norm="L2")) == 5.75
    numpy.testing.assert_array_equal(F.hinge(x, t, reduce="no"), [[0, 0, 1.5], [0, 3, 0.5]])


@pytest.mark.parametrize("norm", ["L1", "L2"])
@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("shape", [(3, 4), (2, 1)])
def test_hinge_grads(norm, reduce, shape):
    x = normal(*shape, seed=9) * 2
    x[numpy.abs(numpy.abs(x) - 1) < 0.1] += 0.3  # away from the kinks at +-1
    t = labels(shape[0], shape[1], seed=10)
    check_grads(lambda x: F.hinge(x, t, norm=norm, reduce=reduce), (x,), order=2)


def test_hinge_errors():
    x = numpy.zeros((2, 3))
    with pytest.raises(InvalidInputError, match=r"hinge: expected norm to be one of 'L1', 'L2', got 'L3'"):
        F.hinge(x, numpy.array([0, 1]), norm="L3")
    with pytest.raises(InvalidInputError, match=r"hinge: label 3 in t is out of range: expected 0 <= t < 3"):
        F.hinge(x, numpy.array([0, 3]))
    with pytest.raises(ShapeError, match=r"hinge: expected x.ndim == 2, got 1"):
        F.hinge(numpy.zeros(3), numpy.array([0]))
    with pytest.raises(ShapeError, match=r"hinge: expected t.shape == \(2,\)"):
        F.hinge(x, numpy.array([[0, 1]]))


# -- softmax cross entropy -------------------------------------------------------------------
def softmax_ce_ref(x, t, normalize=True, class_weight=None, ignore_label=-1, reduce="mean"):
    """Loops over the samples (and positions) of integer labels, in float64."""
    x = f64(x)
    loss = numpy.zeros(t.shape)
    for i in numpy.ndindex(*t.shape):
        if t[i] == ignore_label:
            continue
        scores = list(x[(i[0], slice(None)) + i[1:]])
        weight = 1.0 if class_weight is None else float(class_weight[t[i]])
        loss[i] = weight * (logsumexp_ref(scores) - scores[t[i]])
    if reduce == "no":
        return loss
    return loss.sum() / max((t != ignore_label).sum() if normalize else len(x), 1)


def soft_target_ref(x, t, kl, reduce):
    x, t = f64(x), f64(t)
    loss = numpy.zeros(x.shape[:1] + x.shape[2:])
    for i in numpy.ndindex(*loss.shape):
        at = (i[0], slice(None)) + i[1:]
        scores, target = x[at], t[at]
        log_p = scores - logsumexp_ref(list(scores))
        loss[i] = (target * (numpy.log(target + 1e-7) - log_p)).sum() if kl else -(target * log_p).sum()
    return loss if reduce == "no" else loss.mean()


SCE_CASES = [  # (x shape, options)
    ((5, 4), {}),
    ((5, 4), {"normalize": False}),
    ((5, 4), {"class_weight": numpy.array([0.5, 1.0, 2.0, 0.25])}),
    ((5, 4), {"ignore_label": 2, "reduce": "no"}),
    ((1, 3), {"reduce": "no"}),
    ((3, 4, 2, 3), {}),
    ((3, 4, 2, 3), {"normalize": False, "class_weight": numpy.array([0.5, 1.0, 2.0, 0.25])}),
    ((2, 3, 4), {"reduce": "no", "cache_score": False}),
]


def sce_inputs(shape, seed=0, dtype=numpy.float64):
    x = 3 * normal(*shape, seed=seed, dtype=dtype)
    t = labels(shape[:1] + shape[2:], shape[1], seed=seed + 1)
    t.ravel()[::3] = -1  # some ignored samples
    return x, t


@pytest.mark.parametrize("shape, options", SCE_CASES)
@pytest.mark.parametrize("dtype", [numpy.float16, *FLOATS])
def test_softmax_cross_entropy_forward(shape, options, dtype):
    x, t = sce_inputs(shape, dtype=dtype)
    if "ignore_label" in options:
        t[t == -1] = options["ignore_label"]
    options = dict(options)
    if "class_weight" in options:
        options["class_weight"] = options["class_weight"].astype(dtype)
    reference_options = {k: v for k, v in options.items() if k != "cache_score"}
    expected = softmax_ce_ref(x, t, **reference_options)
    assert_forward(F.softmax_cross_entropy(x, t, **options), expected, dtype)


def test_softmax_cross_entropy_documented_example():
    x = numpy.array([[-1, 0, 1, 2], [2, 0, 1, -1]], numpy.float32)
    t = numpy.array([3, 0], numpy.int32)
    assert float(F.softmax_cross_entropy(x, t)) == pytest.approx(0.44018972, rel=1e-6)


@pytest.mark.parametrize("kl", [False, True])
@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 2, 2)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_cross_entropy_soft_targets_forward(kl, reduce, shape, dtype):
    x = 2 * normal(*shape, seed=1, dtype=dtype)
    t = rng(2).uniform(0.05, 1, shape)
    t = (t / t.sum(axis=1, keepdims=True)).astype(dtype)
    loss = "kl-divergence" if kl else "cross-entropy"
    actual = F.softmax_cross_entropy(x, t, reduce=reduce, soft_target_loss=loss)
    assert_forward(actual, soft_target_ref(x, t, kl, reduce), dtype)


def test_softmax_cross_entropy_extreme_scores_float32():
    x = numpy.array(
        [
            [1000.0, 0.0, -1000.0],  # huge scores: the shift keeps them finite
            [0.0, 0.0, -300.0],  # the target's exponential underflows
            [-90.0, -95.0, -100.0],  # every exponential is subnormal without a shift
            [20.0, 20.5, 19.0],  # a small loss next to large scores: no cancellation
            [30.0, -80.0, 0.0],  # entries far below the maximum
        ],
        numpy.float32,
    )
    t = numpy.array([1, 2, 0, 1, 1], numpy.int32)
    actual = F.softmax_cross_entropy(x, t, reduce="no")
    # as accurate as float32 allows: a relative 1e-6, or the resolution of log(1 + small)
    numpy.testing.assert_allclose(actual, softmax_ce_ref(x, t, reduce="no"), rtol=1e-6, atol=1e-7)
    grad = fnet.grad(lambda x: F.softmax_cross_entropy(x, t))(x)
    x64 = f64(x)
    probabilities = numpy.exp(x64 - x64.max(axis=1, keepdims=True))
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    probabilities[numpy.arange(5), t] -= 1
    numpy.testing.assert_allclose(grad, probabilities / 5, rtol=1e-5, atol=1e-12)


def test_softmax_cross_entropy_ignored_samples_and_empty_batches():
    x = normal(3, 4, seed=3)
    t = numpy.array([-1, -1, -1], numpy.int32)
    assert float(F.softmax_cross_entropy(x, t)) == 0.0
    numpy.testing.assert_array_equal(fnet.grad(lambda x: F.softmax_cross_entropy(x, t))(x), 0.0)
    numpy.testing.assert_array_equal(F.softmax_cross_entropy(x, t, reduce="no"), [0.0, 0.0, 0.0])
    assert float(F.softmax_cross_entropy(numpy.zeros((0, 4)), numpy.zeros(0, numpy.int32))) == 0.0


def test_softmax_cross_entropy_options_that_change_nothing():
    x, t = sce_inputs((4, 5), seed=4)
    expected = F.softmax_cross_entropy(x, t)
    gradient = fnet.grad(lambda x: F.softmax_cross_entropy(x, t))(x)
    for options in ({"cache_score": False}, {"enable_double_backprop": True}):
        assert float(F.softmax_cross_entropy(x, t, **options)) == pytest.approx(float(expected), rel=1e-14)
        other = fnet.grad(lambda x: F.softmax_cross_entropy(x, t, **options))(x)
        numpy.testing.assert_allclose(other, gradient, rtol=1e-13, atol=1e-15)


def test_softmax_cross_entropy_float16_is_computed_in_float32():
    x, t = sce_inputs((6, 5), seed=5, dtype=numpy.float16)
    loss, grad = fnet.value_and_grad(lambda x: F.softmax_cross_entropy(x, t))(x)
    assert loss.dtype == numpy.float16 and grad.dtype == numpy.float16
    exact = fnet.grad(lambda x: F.softmax_cross_entropy(x, t))(f64(x))
    numpy.testing.assert_allclose(grad, exact, atol=2e-4)


@pytest.mark.parametrize("shape, options", SCE_CASES)
def test_softmax_cross_entropy_grads(shape, options):
    x, t = sce_inputs(shape, seed=6)
    if "ignore_label" in options:
        t[t == -1] = options["ignore_label"]
    check_grads(lambda x: F.softmax_cross_entropy(x, t, **options), (x,), order=2)


@pytest.mark.parametrize("cache_score", [True, False])
def test_softmax_cross_entropy_grads_of_a_function_of_the_loss(cache_score):
    # the cotangent of the loss then depends on x: the second derivative goes through it too
    x, t = sce_inputs((3, 4), seed=7)
    check_grads(
        lambda x: ops.sum(ops.sin(F.softmax_cross_entropy(x, t, reduce="no", cache_score=cache_score))),
        (x,),
        order=2,
    )
    check_grads(lambda x: ops.square(F.softmax_cross_entropy(x, t, cache_score=cache_score)), (x,), order=2)


def test_softmax_cross_entropy_grads_where_exp_underflows():
    x = numpy.array([[0.0, -800.0, 1.0], [2.0, 0.5, -1.0]])
    t = numpy.array([1, 0], numpy.int32)
    check_grads(lambda x: F.softmax_cross_entropy(x, t), (x,), order=2)
    numpy.testing.assert_allclose(
        F.softmax_cross_entropy(x, t, reduce="no"), softmax_ce_ref(x, t, reduce="no")
    )


@pytest.mark.parametrize("kl", [False, True])
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 2)])
def test_softmax_cross_entropy_soft_target_grads(kl, shape):
    x = normal(*shape, seed=8)
    t = rng(9).uniform(0.1, 1, shape)
    t /= t.sum(axis=1, keepdims=True)
    loss = "kl-divergence" if kl else "cross-entropy"
    check_grads(lambda x: F.softmax_cross_entropy(x, t, reduce="no", soft_target_loss=loss), (x,), order=2)
    # the targets are data, as in Chainer: they get no gradient
    gt = fnet.grad(lambda t: fnet.ops.sum(F.softmax_cross_entropy(x, t, soft_target_loss=loss)))(t)
    assert not numpy.any(gt)


def test_softmax_cross_entropy_double_backprop_matches_the_softmax_jacobian():
    x, t = sce_inputs((2, 3), seed=10)
    t[:] = [0, 2]
    v = normal(2, 3, seed=11)
    hvp = fnet.grad(lambda x: ops.sum(fnet.grad(lambda y: F.softmax_cross_entropy(y, t))(x) * v))(x)
    p = numpy.exp(x - x.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    expected = (p * v - p * (p * v).sum(axis=1, keepdims=True)) / 2
    numpy.testing.assert_allclose(hvp, expected, rtol=1e-10)


def test_softmax_cross_entropy_errors():
    x = numpy.zeros((2, 3))
    name = "softmax_cross_entropy"
    with pytest.raises(
        InvalidInputError, match=rf"{name}: label 3 in t is out of range: expected 0 <= t < 3 or t == -1"
    ):
        F.softmax_cross_entropy(x, numpy.array([0, 3]))
    with pytest.raises(
        InvalidInputError, match=rf"{name}: label -1 in t is out of range: .* or t == 5 \(ignore_label\)"
    ):
        F.softmax_cross_entropy(x, numpy.array([0, -1]), ignore_label=5)
    with pytest.raises(
        ShapeError,
        match=rf"{name}: expected t.shape == x.shape\[:1\] \+ x.shape\[2:\] = \(2,\), got \(2, 1\)",
    ):
        F.softmax_cross_entropy(x, numpy.zeros((2, 1), numpy.int32))
    with pytest.raises(
        ShapeError, match=rf"{name}: expected x of shape \(N, C, \.\.\.\) with C >= 1 .*, got \(3,\)"
    ):
        F.softmax_cross_entropy(numpy.zeros(3), numpy.array([0]))
    with pytest.raises(ShapeError, match=rf"{name}: expected x of shape .* with C >= 1 .*, got \(2, 0\)"):
        F.softmax_cross_entropy(numpy.zeros((2, 0)), numpy.array([-1, -1]))
    with pytest.raises(DTypeError, match=rf"{name}: expected t to be an integer label array, got bool"):
        F.softmax_cross_entropy(x, numpy.array([True, False]))
    with pytest.raises(
        ShapeError,
        match=rf"{name}: expected class_weight.shape == \(3,\) \(one weight per class\), got \(2,\)",
    ):
        F.softmax_cross_entropy(x, numpy.array([0, 1]), class_weight=numpy.ones(2))
    with pytest.raises(DTypeError, match=rf"{name}: expected class_weight to be a float array"):
        F.softmax_cross_entropy(x, numpy.array([0, 1]), class_weight=numpy.ones(3, numpy.int32))
    with pytest.raises(InvalidInputError, match=rf"{name}: expected class_weight to be a plain array"):
        fnet.grad(lambda w: F.softmax_cross_entropy(x, numpy.array([0, 1]), class_weight=w))(numpy.ones(3))
    with pytest.raises(
        InvalidInputError,
        match=rf"{name}: expected soft_target_loss to be one of 'cross-entropy', 'kl-divergence'",
    ):
        F.softmax_cross_entropy(x, numpy.array([0, 1]), soft_target_loss="kl")
    with pytest.raises(
        InvalidInputError, match=rf"{name}: expected reduce to be one of 'mean', 'no', got 'sum'"
    ):
        F.softmax_cross_entropy(x, numpy.array([0, 1]), reduce="sum")
    with pytest.raises(
        ShapeError,
        match=rf"{name}: expected t to be integer class labels of shape \(2,\) or float soft targets of "
        r"x's shape \(2, 3\), got float64 of shape \(2, 2\)",
    ):
        F.softmax_cross_entropy(x, numpy.zeros((2, 2)))
    with pytest.raises(DTypeError, match=rf"{name}: expected x.dtype == t.dtype, got float64 != float32"):
        F.softmax_cross_entropy(x, numpy.zeros((2, 3), numpy.float32))


@pytest.mark.parametrize("x_shape", [(4, 3), (4, 3, 5)])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64, numpy.float16])
def test_softmax_cross_entropy_names_float_labels_as_a_dtype_error(x_shape, dtype):
    # float labels of the labels' shape: the common mistake, reported as one (not as a shape mismatch)
    x = numpy.zeros(x_shape, numpy.float32)
    t = numpy.zeros(x_shape[:1] + x_shape[2:], dtype)
    with pytest.raises(DTypeError) as info:
        F.softmax_cross_entropy(x, t)
    text = str(info.value)
    assert text.startswith(
        f"softmax_cross_entropy: expected t to hold integer class labels, got {numpy.dtype(dtype)}"
    )
    assert "t.astype(numpy.int32)" in text
    assert float(F.softmax_cross_entropy(x, t.astype(numpy.int32))) > 0  # the fix the hint gives works


# -- discriminative margin-based clustering loss ---------------------------------------------
def discriminative_ref(emb, lab, delta_v, delta_d, n, norm, alpha, beta, gamma):
    """The three terms, by loops over instances, images and pixels (float64)."""
    emb = f64(emb)
    batch = emb.shape[0]

    def dist(v):
        return numpy.abs(v).sum() if norm == 1 else math.sqrt((v**2).sum())

    centers = numpy.zeros((n, batch, emb.shape[1]))
    pixels = {}
    for c, b in itertools.product(range(n), range(batch)):
        pixels[c, b] = [(h, w) for h, w in numpy.ndindex(*lab.shape[1:]) if lab[b, h, w] == c + 1]
        if pixels[c, b]:
            centers[c, b] = numpy.mean([emb[b, :, h, w] for h, w in pixels[c, b]], axis=0)
    variance = 0.0
    for c in range(n):
        total = sum(
            max(dist(emb[b, :, h, w] - centers[c, b]) - delta_v, 0.0) ** 2
            for b in range(batch)
            for h, w in pixels[c, b]
        )
        variance += total / max(sum(len(pixels[c, b]) for b in range(batch)), 1)
    distance = sum(
        max(2 * delta_d - dist(centers[i, b] - centers[j, b]), 0.0) ** 2
        for i, j in itertools.combinations(range(n), 2)
        for b in range(batch)
    )
    distance /= max(n * (n - 1) // 2 * batch, 1)
    regularization = sum(dist(centers[c].ravel()) for c in range(n)) / (n * batch)
    return alpha * variance / n, beta * distance, gamma * regularization


def discriminative_inputs(batch, n, size=(4, 5), seed=0, dtype=numpy.float64):
    emb = normal(batch, n, *size, seed=seed, dtype=dtype)
    lab = rng(seed + 1).randint(0, n + 2, (batch, *size)).astype(numpy.int32)  # n + 1: no instance
    return emb, lab


@pytest.mark.parametrize("norm", [1, 2])
@pytest.mark.parametrize("batch, n", [(2, 3), (1, 2), (3, 1)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_discriminative_forward(norm, batch, n, dtype):
    emb, lab = discriminative_inputs(batch, n, dtype=dtype)
    args = (0.3, 1.2, n, norm, 1.5, 2.0, 0.1)
    actual = F.discriminative_margin_based_clustering_loss(emb, lab, *args)
    expected = discriminative_ref(emb, lab, *args)
    assert len(actual) == 3
    for a, e in zip(actual, expected):
        assert_forward(a, e, dtype)


def test_discriminative_default_weights():
    emb, lab = discriminative_inputs(2, 2, seed=3)
    actual = F.discriminative_margin_based_clustering_loss(emb, lab, 0.5, 1.5, 2)
    numpy.testing.assert_allclose(actual, discriminative_ref(emb, lab, 0.5, 1.5, 2, 1, 1.0, 1.0, 0.001))


@pytest.mark.parametrize("norm", [1, 2])
@pytest.mark.parametrize("batch, n", [(2, 2), (1, 3)])
def test_discriminative_grads(norm, batch, n):
    emb, lab = discriminative_inputs(batch, n, size=(3, 4), seed=4)
    lab[:, 0, :2] = 1  # every present instance has several pixels
    delta_v, delta_d = 0.05, 0.9

    def f(emb):
        return F.discriminative_margin_based_clustering_loss(
            emb, lab, delta_v, delta_d, n, norm, 1.0, 1.0, 0.5
        )

    check_grads(f, (emb,), order=2)


def test_discriminative_l2_gradient_is_finite_with_absent_instances():
    emb, lab = discriminative_inputs(1, 3, seed=5)
    lab[lab == 3] = 0  # instance 3 is absent: its centre is 0, as is a distance to a coincident one
    grad = fnet.grad(
        lambda e: ops.sum(ops.stack(F.discriminative_margin_based_clustering_loss(e, lab, 0.3, 1.0, 3, 2)))
    )(emb)
    assert numpy.isfinite(grad).all()


def test_discriminative_errors():
    name = "discriminative_margin_based_clustering_loss"
    emb, lab = discriminative_inputs(2, 3)
    with pytest.raises(
        ShapeError,
        match=rf"{name}: expected embeddings of shape \(B, 4, H, W\) and labels of shape \(B, H, W\), "
        r"got \(2, 3, 4, 5\) and \(2, 4, 5\)",
    ):
        F.discriminative_margin_based_clustering_loss(emb, lab, 0.5, 1.5, 4)
    with pytest.raises(
        ShapeError, match=rf"{name}: expected embeddings of shape .* got \(2, 3, 4, 5\) and \(2, 5\)"
    ):
        F.discriminative_margin_based_clustering_loss(emb, lab[:, 0], 0.5, 1.5, 3)
    with pytest.raises(ShapeError, match=rf"{name}: expected embeddings.ndim == 4, got 3"):
        F.discriminative_margin_based_clustering_loss(emb[0], lab, 0.5, 1.5, 3)
    with pytest.raises(
        DTypeError, match=rf"{name}: expected labels to be an integer label array, got float64"
    ):
        F.discriminative_margin_based_clustering_loss(emb, lab.astype(float), 0.5, 1.5, 3)
    with pytest.raises(InvalidInputError, match=rf"{name}: expected norm to be one of 1, 2, got 3"):
        F.discriminative_margin_based_clustering_loss(emb, lab, 0.5, 1.5, 3, norm=3)
    with pytest.raises(InvalidInputError, match=rf"{name}: expected max_embedding_dim > 0, got 0"):
        F.discriminative_margin_based_clustering_loss(emb, lab, 0.5, 1.5, 0)
    with pytest.raises(InvalidInputError, match=rf"{name}: expected delta_v >= 0, got -0.5"):
        F.discriminative_margin_based_clustering_loss(emb, lab, -0.5, 1.5, 3)


# -- every error names the function and gives a hint -----------------------------------------
def test_error_messages_have_a_hint():
    with pytest.raises(ShapeError) as info:
        F.softmax_cross_entropy(numpy.zeros((2, 3)), numpy.zeros(3, numpy.int32))
    text = str(info.value)
    assert (
        text.startswith("softmax_cross_entropy: ") and "\n  x: float64[2, 3]" in text and "\n  hint: " in text
    )
