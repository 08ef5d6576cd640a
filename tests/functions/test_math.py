"""Tests of fnet.functions' arithmetic and mathematical functions.

Forward values are compared with references written here in plain Python/NumPy (element loops
over the ``math`` module, series for the special functions, bisection for the inverses, explicit
DFT matrices), in float16, float32 and float64. Derivatives are checked to order 2 in float64,
away from kinks. Error messages are asserted.
"""

from __future__ import annotations

import math

import numpy
import pytest

import fnet
import fnet.functions as F
from fnet.autodiff import Tracer
from fnet.errors import ArgumentTypeError, DTypeError, InvalidInputError, ShapeError
from fnet.testing import check_grads

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {
    numpy.float16: dict(rtol=2e-2, atol=2e-2),
    numpy.float32: dict(rtol=2e-5, atol=2e-5),
    numpy.float64: dict(rtol=1e-9, atol=1e-10),
}
SHAPES = [(), (5,), (2, 3)]
GRAD_SHAPES = [(3,), (2, 1, 2)]


# -- helpers ---------------------------------------------------------------------------------
def rng(seed: int = 0) -> numpy.random.RandomState:
    return numpy.random.RandomState(seed)


def uniform(low, high, shape, dtype=numpy.float64, seed=0):
    return rng(seed).uniform(low, high, shape).astype(dtype)


def elementwise(scalar_fn, *xs):
    """``scalar_fn`` applied to each element of the broadcast ``xs``, in float64."""
    arrays = numpy.broadcast_arrays(*[numpy.asarray(x, numpy.float64) for x in xs])
    flat = [a.ravel() for a in arrays]
    return numpy.array([scalar_fn(*(float(a[i]) for a in flat)) for i in range(flat[0].size)]).reshape(
        arrays[0].shape
    )


def assert_forward(actual, expected, dtype, scale: float = 1.0):
    """``actual`` is a plain array of ``dtype`` and ``expected``'s shape, close to it."""
    assert type(actual) is not Tracer
    actual = numpy.asarray(actual)
    assert actual.dtype == dtype, (actual.dtype, dtype)
    assert actual.shape == numpy.shape(expected)
    tol = {k: v * scale for k, v in TOL[dtype].items()}
    numpy.testing.assert_allclose(actual.astype(numpy.float64), expected, **tol)


# -- scalar references of the special functions ----------------------------------------------
def ref_digamma(x: float) -> float:
    """Recurrence up to x >= 8, then the asymptotic series (error < 1e-12)."""
    shift = 0.0
    while x < 8:
        shift -= 1 / x
        x += 1
    inv2 = 1 / (x * x)
    return shift + math.log(x) - 0.5 / x - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 / 240)))


def ref_zeta(s: float, q: float) -> float:
    """Hurwitz zeta by a partial sum and the Euler-Maclaurin tail."""
    n = 30
    total = sum((k + q) ** -s for k in range(n))
    a = n + q
    tail = a ** (1 - s) / (s - 1) + 0.5 * a**-s + s * a ** (-s - 1) / 12
    tail -= s * (s + 1) * (s + 2) * a ** (-s - 3) / 720
    return total + tail


def ref_polygamma(n: float, x: float) -> float:
    n = int(n)
    if n == 0:
        return ref_digamma(x)
    return (-1) ** (n + 1) * math.factorial(n) * ref_zeta(n + 1, x)


def ref_ndtr(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))


def inverse_of(f, low: float, high: float, increasing: bool = True):
    """The inverse of a monotonic scalar function on ``[low, high]``, by bisection."""

    def inverse(y: float) -> float:
        lo, hi = low, high
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if (f(mid) < y) == increasing:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)

    return inverse


# -- elementwise functions -------------------------------------------------------------------
UNARY = {  # name: (scalar reference, low, high) of the sampled domain
    "absolute": (abs, 0.2, 2.0),
    "arccos": (math.acos, -0.9, 0.9),
    "arcsin": (math.asin, -0.9, 0.9),
    "arctan": (math.atan, -3.0, 3.0),
    "arctanh": (math.atanh, -0.9, 0.9),
    "cos": (math.cos, -3.0, 3.0),
    "cosh": (math.cosh, -2.0, 2.0),
    "exp": (math.exp, -2.0, 2.0),
    "expm1": (math.expm1, -2.0, 2.0),
    "log": (math.log, 0.2, 3.0),
    "log10": (math.log10, 0.2, 3.0),
    "log1p": (math.log1p, -0.5, 3.0),
    "log2": (math.log2, 0.2, 3.0),
    "sin": (math.sin, -3.0, 3.0),
    "sinh": (math.sinh, -2.0, 2.0),
    "sqrt": (math.sqrt, 0.2, 3.0),
    "square": (lambda v: v * v, -2.0, 2.0),
    "tan": (math.tan, -1.2, 1.2),
    "rsqrt": (lambda v: 1 / math.sqrt(v), 0.2, 3.0),
    "erf": (math.erf, -2.0, 2.0),
    "erfc": (math.erfc, -2.0, 2.0),
    "erfcx": (lambda v: math.exp(v * v) * math.erfc(v), -1.5, 3.0),
    "erfinv": (inverse_of(math.erf, -6, 6), -0.9, 0.9),
    "erfcinv": (inverse_of(math.erfc, -6, 6, increasing=False), 0.1, 1.9),
    "ndtr": (ref_ndtr, -3.0, 3.0),
    "ndtri": (inverse_of(ref_ndtr, -10, 10), 0.05, 0.95),
    "log_ndtr": (lambda v: math.log(ref_ndtr(v)), -4.0, 3.0),
    "lgamma": (math.lgamma, 0.3, 4.0),
    "digamma": (ref_digamma, 0.3, 4.0),
}
# float16 cannot resolve these near the ends of their domains: sample a narrower range
F16_RANGE = {"erfinv": (-0.7, 0.7), "erfcinv": (0.3, 1.7), "ndtri": (0.1, 0.9), "lgamma": (0.5, 4.0)}


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "f32", "f64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_forward(name, dtype):
    ref, low, high = UNARY[name]
    if dtype == numpy.float16:
        low, high = F16_RANGE.get(name, (low, high))
    for shape in SHAPES:
        x = uniform(low, high, shape, dtype)
        assert_forward(getattr(F, name)(x), elementwise(ref, x), dtype)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_grads(name):
    _, low, high = UNARY[name]
    for seed, shape in enumerate(GRAD_SHAPES):
        check_grads(getattr(F, name), (uniform(low, high, shape, seed=seed),), order=2)


@pytest.mark.parametrize("name", ["erf", "erfinv", "digamma", "log_ndtr", "exp"])
def test_unary_third_derivative(name):
    _, low, high = UNARY[name]
    check_grads(getattr(F, name), (uniform(low, high, (2,)),), order=3)


def test_log_ndtr_stays_finite_in_the_lower_tail():
    x = numpy.array([-40.0, -20.0])
    expected = [-x * x / 2 - math.log(-x * math.sqrt(2 * math.pi)) for x in (-40.0, -20.0)]
    numpy.testing.assert_allclose(F.log_ndtr(x), expected, rtol=1e-3)
    numpy.testing.assert_allclose(fnet.grad(lambda v: F.sum(F.log_ndtr(v)))(x), -x, rtol=1e-2)


PIECEWISE = {"ceil": math.ceil, "floor": math.floor, "fix": math.trunc, "sign": lambda v: (v > 0) - (v < 0)}


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "f32", "f64"])
@pytest.mark.parametrize("name", sorted(PIECEWISE))
def test_piecewise_constant_forward(name, dtype):
    for shape in SHAPES:
        x = uniform(-3, 3, shape, dtype)
        assert_forward(getattr(F, name)(x), elementwise(PIECEWISE[name], x), dtype)


@pytest.mark.parametrize("name", sorted(PIECEWISE))
def test_piecewise_constant_has_no_gradient(name):
    x = uniform(-3, 3, (4,), seed=1)
    # the function's value is a constant factor: the derivative of sum(f(x) * x) is f(x)
    grad = fnet.grad(lambda v: F.sum(getattr(F, name)(v) * v))(x)
    numpy.testing.assert_allclose(grad, elementwise(PIECEWISE[name], x))


def test_piecewise_constant_keeps_integer_dtype():
    x = numpy.array([-2, 0, 3], numpy.int32)
    assert F.floor(x).dtype == numpy.int32
    assert F.sign(x).tolist() == [-1, 0, 1]


BINARY = {  # name: (scalar reference, low, high) for both operands
    "arctan2": (math.atan2, 0.3, 2.0),
    "betaln": (lambda a, b: math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b), 0.3, 4.0),
    "fmod": (math.fmod, 0.3, 2.5),
    "maximum": (max, -2.0, 2.0),
    "minimum": (min, -2.0, 2.0),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "f32", "f64"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_forward(name, dtype):
    ref, low, high = BINARY[name]
    for sa, sb in [((), ()), ((5,), (5,)), ((2, 3), (3,)), ((2, 1), (1, 3))]:
        a, b = uniform(low, high, sa, dtype, 1), uniform(low, high, sb, dtype, 2)
        assert_forward(getattr(F, name)(a, b), elementwise(ref, a, b), dtype)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_grads(name):
    _, low, high = BINARY[name]
    for sa, sb in [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3))]:
        a, b = uniform(low, high, sa, seed=3), uniform(low, high, sb, seed=4)
        if name == "fmod":  # stay away from the jumps of fmod, where x / divisor is an integer
            a, b = uniform(2.2, 2.8, sa, seed=3), uniform(1.2, 1.8, sb, seed=4)
        if name in ("maximum", "minimum"):  # no ties
            b = a.max() + 0.5 - 2 * (rng(5).uniform(size=sb) < 0.5)
        check_grads(getattr(F, name), (a, b), order=2)


def test_maximum_minimum_ties_go_to_the_first_operand():
    x = numpy.array([1.0, 2.0])
    for fn in (F.maximum, F.minimum):
        gx, gy = fnet.grad(lambda a, b: F.sum(fn(a, b)), argnums=(0, 1))(x, x.copy())
        assert gx.tolist() == [1.0, 1.0] and gy.tolist() == [0.0, 0.0]


def test_add_is_n_ary():
    xs = [uniform(-1, 1, s, numpy.float32, i) for i, s in enumerate([(2, 3), (3,), (2, 1), (1, 3)])]
    assert_forward(F.add(*xs), xs[0] + xs[1] + xs[2] + xs[3], numpy.float32)
    assert F.add(xs[0]) is xs[0]
    assert_forward(F.add(xs[0], 2.0), xs[0] + 2, numpy.float32)
    check_grads(
        lambda a, b, c: F.add(a, b, c),
        [uniform(-1, 1, s, seed=i) for i, s in enumerate([(2, 3), (3,), (2, 1)])],
    )


def test_identity():
    x, y = numpy.ones(2), numpy.zeros(3)
    assert F.identity(x) is x
    assert F.identity(x, y) == (x, y)
    check_grads(lambda a, b: F.identity(a, b), (x, y))


def test_squared_difference():
    for dtype in DTYPES:
        a, b = uniform(-2, 2, (2, 3), dtype, 1), uniform(-2, 2, (2, 3), dtype, 2)
        assert_forward(F.squared_difference(a, b), elementwise(lambda u, v: (u - v) ** 2, a, b), dtype)
    check_grads(F.squared_difference, (uniform(-2, 2, (3,), seed=1), uniform(-2, 2, (3,), seed=2)))


def test_linear_interpolate():
    for dtype in DTYPES:
        p, x, y = (uniform(0, 1, (2, 3), dtype, s) for s in range(3))
        assert_forward(
            F.linear_interpolate(p, x, y), elementwise(lambda a, b, c: a * b + (1 - a) * c, p, x, y), dtype
        )
    check_grads(F.linear_interpolate, [uniform(-1, 1, (2, 2), seed=s) for s in range(3)])


@pytest.mark.parametrize("fn, scalar", [(F.bias, lambda u, v: u + v), (F.scale, lambda u, v: u * v)])
def test_bias_and_scale_broadcast_from_axis(fn, scalar):
    x = uniform(-1, 1, (2, 3, 4, 5), numpy.float32, 1)
    y = uniform(-1, 1, (3, 4), numpy.float32, 2)
    expected = numpy.empty(x.shape)
    for i, j, k, m in numpy.ndindex(*x.shape):
        expected[i, j, k, m] = scalar(float(x[i, j, k, m]), float(y[j, k]))
    assert_forward(fn(x, y), expected, numpy.float32)
    z = uniform(-1, 1, (5,), numpy.float32, 3)
    assert_forward(fn(x, z, axis=3), scalar(x.astype(numpy.float64), z.astype(numpy.float64)), numpy.float32)
    check_grads(fn, (uniform(-1, 1, (2, 3, 2), seed=1), uniform(-1, 1, (3,), seed=2)))
    check_grads(
        lambda a, b: fn(a, b, axis=0), (uniform(-1, 1, (2, 3), seed=1), uniform(-1, 1, (2, 3), seed=2))
    )


def test_clip():
    for dtype in DTYPES:
        x = uniform(-3, 3, (2, 5), dtype)
        assert_forward(F.clip(x, -1.0, 1.5), elementwise(lambda v: min(max(v, -1.0), 1.5), x), dtype)
        assert_forward(F.clip(x, None, 1.5), elementwise(lambda v: min(v, 1.5), x), dtype)
        assert_forward(F.clip(x, -1.0, None), elementwise(lambda v: max(v, -1.0), x), dtype)
    x = numpy.array([-2.0, -1.0, 0.3, 1.5, 2.0])
    grad = fnet.grad(lambda v: F.sum(F.clip(v, -1.0, 1.5)))(x)
    assert grad.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]  # 1 at the bounds, as in Chainer
    check_grads(lambda v: F.clip(v, -1.0, 1.0), (numpy.array([-1.7, -0.4, 0.6, 1.3]),))


@pytest.mark.parametrize("shape", [(), (3,)])
def test_clip_keeps_the_dtype_of_x_whatever_the_bounds(shape):
    # NumPy 2 would promote a 0-d float16 x with float32 bounds; Chainer's result is in x's dtype
    x = numpy.full(shape, 1.7, numpy.float16)
    y = F.clip(x, numpy.float32(-0.75), numpy.float64(1.53))
    assert y.dtype == numpy.float16 and y.shape == shape
    numpy.testing.assert_array_equal(y, numpy.full(shape, numpy.float16(1.53)))
    assert F.clip(x, numpy.float32(-0.75), None).dtype == numpy.float16
    check_grads(
        lambda v: F.clip(v, numpy.float32(-1.0), numpy.float32(1.0)), (numpy.array([-1.7, 0.6, 1.3]),)
    )


# -- reductions and scans ---------------------------------------------------------------------
def reduce_ref(fn, x, axis, keepdims=False):
    """Reduce ``x`` over ``axis`` by calling ``fn`` on each 1-D list of the reduced entries."""
    x = numpy.asarray(x, numpy.float64)
    axes = tuple(range(x.ndim)) if axis is None else ((axis,) if isinstance(axis, int) else axis)
    axes = tuple(a % x.ndim for a in axes)
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = numpy.transpose(x, kept + list(axes)).reshape([x.shape[a] for a in kept] + [-1])
    out = numpy.array([fn(list(row)) for row in moved.reshape(-1, moved.shape[-1])]).reshape(moved.shape[:-1])
    if keepdims:
        out = out.reshape([1 if a in axes else d for a, d in enumerate(x.shape)])
    return out


def _mean(values):
    return math.fsum(values) / len(values)


def _logsumexp(values):
    top = max(values)
    return top + math.log(math.fsum(math.exp(v - top) for v in values))


REDUCTIONS = {"sum": math.fsum, "mean": _mean, "average": _mean, "max": max, "min": min, "prod": math.prod}
AXES = [None, 0, -1, (0, 2), (2, 0, 1)]


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "f32", "f64"])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_forward(name, dtype):
    x = uniform(0.5, 1.5, (2, 3, 4), dtype)
    for axis in AXES:
        for keepdims in (False, True):
            expected = reduce_ref(REDUCTIONS[name], x, axis, keepdims)
            assert_forward(getattr(F, name)(x, axis=axis, keepdims=keepdims), expected, dtype, scale=2)


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_grads(name):
    x = (rng(2).permutation(12).reshape(2, 3, 2) - 5.5) * 0.2  # distinct entries: no ties
    for axis, keepdims in [(None, False), (1, True), ((0, 2), False)]:
        check_grads(lambda v: getattr(F, name)(v, axis=axis, keepdims=keepdims), (x,), order=2)


def test_logsumexp():
    for dtype in DTYPES:
        x = uniform(-2, 2, (2, 3, 4), dtype)
        for axis in AXES:
            assert_forward(F.logsumexp(x, axis), reduce_ref(_logsumexp, x, axis), dtype, scale=2)
    big = numpy.array([[1000.0, 1000.0], [-1000.0, -1001.0]])
    numpy.testing.assert_allclose(
        F.logsumexp(big, axis=1), [1000 + math.log(2), -1000 + math.log1p(math.exp(-1))]
    )
    for axis in (None, 1, (0, 2)):
        check_grads(lambda v: F.logsumexp(v, axis), (uniform(-1, 1, (2, 2, 3)),))


def test_weighted_average():
    x = uniform(-1, 1, (3, 4), numpy.float32)
    w_axis = uniform(0.5, 1, (4,), numpy.float32, 1)
    expected = [
        math.fsum(float(x[i, j]) * float(w_axis[j]) for j in range(4)) / math.fsum(w_axis) for i in range(3)
    ]
    assert_forward(F.average(x, axis=1, weights=w_axis), numpy.array(expected), numpy.float32)
    assert_forward(
        F.mean(x, axis=-1, weights=w_axis, keepdims=True), numpy.array(expected)[:, None], numpy.float32
    )
    w_all = uniform(0.5, 1, (3, 4), numpy.float32, 2)
    expected = math.fsum((x.astype(float) * w_all).ravel()) / math.fsum(w_all.ravel())
    assert_forward(F.average(x, weights=w_all), numpy.array(expected), numpy.float32)
    check_grads(lambda v, w: F.average(v, axis=0, weights=w), (uniform(-1, 1, (3, 2)), uniform(0.5, 1, (3,))))
    check_grads(lambda v, w: F.average(v, weights=w), (uniform(-1, 1, (2, 2)), uniform(0.5, 1, (2, 2))))


@pytest.mark.parametrize("name, pick", [("argmax", max), ("argmin", min)])
def test_argmax_argmin(name, pick):
    x = (rng(3).permutation(24).reshape(2, 3, 4) * 0.5).astype(numpy.float32)
    flat = list(x.ravel())
    out = getattr(F, name)(x)
    assert numpy.asarray(out).dtype == numpy.int32 and numpy.ndim(out) == 0
    assert int(out) == flat.index(pick(flat))
    for axis in (0, 1, -1):
        out = getattr(F, name)(x, axis=axis)
        assert out.dtype == numpy.int32
        expected = reduce_ref(lambda v: v.index(pick(v)), x, axis)
        numpy.testing.assert_array_equal(out, expected)
    traced = fnet.grad(lambda v: F.sum(v * getattr(F, name)(v, axis=1)[:, None]))(x.astype(numpy.float64))
    assert traced.shape == x.shape  # the index is a constant: no error, no gradient through it


@pytest.mark.parametrize("name, step", [("cumsum", lambda a, b: a + b), ("cumprod", lambda a, b: a * b)])
def test_cumulative(name, step):
    for dtype in DTYPES:
        x = uniform(0.5, 1.5, (2, 3, 4), dtype)
        for axis in (None, 0, 1, -1):
            data = numpy.asarray(x, numpy.float64)
            lanes = numpy.moveaxis(
                data.reshape(-1) if axis is None else data, 0 if axis is None else axis, -1
            )
            expected = numpy.empty(lanes.shape)
            for index in numpy.ndindex(*lanes.shape[:-1]):
                running = lanes[index][0]
                for i, v in enumerate(lanes[index]):
                    running = v if i == 0 else step(running, v)
                    expected[index + (i,)] = running
            expected = expected if axis is None else numpy.moveaxis(expected, -1, axis)
            assert_forward(getattr(F, name)(x, axis), expected, dtype, scale=2)
    for axis in (None, 1):
        check_grads(lambda v: getattr(F, name)(v, axis), (uniform(0.5, 1.5, (2, 3)),))
    check_grads(lambda v: getattr(F, name)(v, 0), (numpy.array([0.5, 0.0, 1.5, 2.0]),))  # a zero


def test_sum_to():
    x = uniform(-1, 1, (2, 3, 4), numpy.float32)
    assert_forward(F.sum_to(x, (3, 1)), x.astype(float).sum(axis=(0, 2))[:, None], numpy.float32)
    assert_forward(F.sum_to(x, (1, 3, 4)), x.astype(float).sum(axis=0, keepdims=True), numpy.float32)
    assert F.sum_to(x, (2, 3, 4)) is x
    check_grads(lambda v: F.sum_to(v, (1, 3)), (uniform(-1, 1, (2, 2, 3)),))


def test_batch_l2_norm_squared():
    for dtype in DTYPES:
        for shape in [(3, 4), (2, 3, 2)]:
            x = uniform(-1, 1, shape, dtype)
            expected = [math.fsum(float(v) ** 2 for v in x[i].ravel()) for i in range(shape[0])]
            assert_forward(F.batch_l2_norm_squared(x), numpy.array(expected), dtype)
    check_grads(F.batch_l2_norm_squared, (uniform(-1, 1, (2, 3)),))
    check_grads(F.batch_l2_norm_squared, (uniform(-1, 1, (1, 2, 2)),))


# -- linear algebra ---------------------------------------------------------------------------
def ref_matmul(a, b):
    """Matrix product of two 2-D arrays by explicit sums."""
    a, b = numpy.asarray(a, numpy.float64), numpy.asarray(b, numpy.float64)
    return numpy.array(
        [
            [math.fsum(a[i, k] * b[k, j] for k in range(a.shape[1])) for j in range(b.shape[1])]
            for i in range(a.shape[0])
        ]
    )


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "f32", "f64"])
def test_matmul_forward(dtype):
    a, b = uniform(-1, 1, (3, 4), dtype, 1), uniform(-1, 1, (4, 2), dtype, 2)
    assert_forward(F.matmul(a, b), ref_matmul(a, b), dtype)
    assert_forward(F.matmul(a.T.copy(), b, transa=True), ref_matmul(a, b), dtype)
    assert_forward(F.matmul(a, b.T.copy(), transb=True), ref_matmul(a, b), dtype)
    assert_forward(F.matmul(a.T.copy(), b.T.copy(), transa=True, transb=True), ref_matmul(a, b), dtype)
    v = uniform(-1, 1, (4,), dtype, 3)
    assert_forward(F.matmul(a, v), ref_matmul(a, v[:, None])[:, 0], dtype)
    assert_forward(F.matmul(v, b, transa=True), ref_matmul(v[None], b)[0], dtype)  # transa: no-op on 1-D
    assert_forward(F.matmul(v, v), numpy.array(ref_matmul(v[None], v[:, None])[0, 0]), dtype)
    batch = uniform(-1, 1, (2, 1, 3, 4), dtype, 4)
    stack = uniform(-1, 1, (3, 4, 2), dtype, 5)
    expected = numpy.array([[ref_matmul(batch[i, 0], stack[j]) for j in range(3)] for i in range(2)])
    assert_forward(F.matmul(batch, stack), expected, dtype)


def test_matmul_grads():
    cases = [((3, 4), (4, 2), False, False), ((4, 3), (2, 4), True, True), ((4,), (2, 4), False, True)]
    cases += [
        ((2, 3, 4), (4,), False, False),
        ((2, 1, 3, 2), (3, 2, 4), False, False),
        ((3,), (3,), False, False),
    ]
    for i, (sa, sb, ta, tb) in enumerate(cases):
        args = (uniform(-1, 1, sa, seed=i), uniform(-1, 1, sb, seed=i + 10))
        check_grads(lambda a, b: F.matmul(a, b, transa=ta, transb=tb), args)


def test_batch_matmul():
    a, b = uniform(-1, 1, (2, 3, 4), numpy.float32, 1), uniform(-1, 1, (2, 4, 5), numpy.float32, 2)
    with pytest.warns(DeprecationWarning, match="batch_matmul is deprecated"):
        out = F.batch_matmul(a, b)
    assert_forward(out, numpy.array([ref_matmul(a[i], b[i]) for i in range(2)]), numpy.float32)
    u, v = uniform(-1, 1, (2, 3), numpy.float32, 3), uniform(-1, 1, (2, 3), numpy.float32, 4)
    with pytest.warns(DeprecationWarning):
        outer = F.batch_matmul(u, v, transb=True)  # (B, N) is B column vectors N x 1
        inner = F.batch_matmul(u, v, transa=True)
        trans = F.batch_matmul(a.transpose(0, 2, 1), b.transpose(0, 2, 1), transa=True, transb=True)
    assert_forward(
        outer, numpy.array([ref_matmul(u[i][:, None], v[i][None]) for i in range(2)]), numpy.float32
    )
    assert_forward(
        inner, numpy.array([ref_matmul(u[i][None], v[i][:, None]) for i in range(2)]), numpy.float32
    )
    assert_forward(trans, numpy.array([ref_matmul(a[i], b[i]) for i in range(2)]), numpy.float32)
    with pytest.warns(DeprecationWarning):
        check_grads(
            lambda x, y: F.batch_matmul(x, y, transa=True),
            (uniform(-1, 1, (2, 3, 2)), uniform(-1, 1, (2, 3, 2))),
        )
        check_grads(
            lambda x, y: F.batch_matmul(x, y, transb=True), (uniform(-1, 1, (2, 3)), uniform(-1, 1, (2, 2)))
        )


def test_tensordot():
    a, b = uniform(-1, 1, (2, 3, 4), numpy.float32, 1), uniform(-1, 1, (3, 4, 5), numpy.float32, 2)
    expected = numpy.zeros((2, 5))
    for i, j, k, m in numpy.ndindex(2, 3, 4, 5):
        expected[i, m] += float(a[i, j, k]) * float(b[j, k, m])
    assert_forward(F.tensordot(a, b), expected, numpy.float32)
    c = uniform(-1, 1, (4, 2), numpy.float32, 3)
    expected = numpy.zeros((2, 3, 2))
    for i, j, k, m in numpy.ndindex(2, 3, 4, 2):
        expected[i, j, m] += float(a[i, j, k]) * float(c[k, m])
    assert_forward(F.tensordot(a, c, axes=([2], [0])), expected, numpy.float32)
    check_grads(lambda x, y: F.tensordot(x, y, axes=1), (uniform(-1, 1, (2, 3)), uniform(-1, 1, (3, 2))))
    check_grads(
        lambda x, y: F.tensordot(x, y, axes=([0, 1], [1, 0])),
        (uniform(-1, 1, (2, 3)), uniform(-1, 1, (3, 2, 2))),
    )


def test_einsum():
    x1 = numpy.arange(12).reshape(3, 4).astype(numpy.float32)
    x2 = numpy.arange(15).reshape(3, 5).astype(numpy.float32)
    w = numpy.arange(120).reshape(4, 5, 6).astype(numpy.float32) / 100
    expected = numpy.zeros((3, 6))
    for i, j, k, m in numpy.ndindex(3, 4, 5, 6):
        expected[i, m] += float(x1[i, j]) * float(x2[i, k]) * float(w[j, k, m])
    assert_forward(F.einsum("ij,ik,jkl->il", x1, x2, w), expected, numpy.float32)
    assert_forward(F.einsum("...j,...k,jkl", x1, x2, w), expected, numpy.float32)
    assert_forward(F.einsum(x1, [0, 1], x2, [0, 2], w, [1, 2, 3], [0, 3]), expected, numpy.float32)
    assert_forward(F.einsum(x1, [Ellipsis, 1], x2, [Ellipsis, 2], w, [1, 2, 3]), expected, numpy.float32)
    square = uniform(-1, 1, (3, 3), numpy.float64)
    assert_forward(
        F.einsum("ii", square), numpy.array(math.fsum(square[i, i] for i in range(3))), numpy.float64
    )
    check_grads(lambda a, b: F.einsum("ij,jk->ik", a, b), (uniform(-1, 1, (2, 3)), uniform(-1, 1, (3, 2))))
    check_grads(lambda a: F.einsum("ii->i", a), (uniform(-1, 1, (3, 3)),))
    check_grads(
        lambda a, b: F.einsum(a, [Ellipsis, 0], b, [0, 1]), (uniform(-1, 1, (2, 3)), uniform(-1, 1, (3, 2)))
    )


def spd(n, batch=(), seed=0, dtype=numpy.float64):
    x = rng(seed).uniform(-1, 1, batch + (n, n))
    return (x @ numpy.swapaxes(x, -1, -2) + n * numpy.eye(n)).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "f32", "f64"])
def test_inv_and_det_forward(dtype):
    a = spd(3, seed=1, dtype=dtype)
    ainv = F.inv(a)
    assert ainv.dtype == dtype and ainv.shape == (3, 3)
    assert_forward(
        ref_matmul(a, ainv), numpy.eye(3), numpy.float64, scale=1e6 if dtype == numpy.float16 else 1e4
    )
    batch = spd(3, (2,), seed=2, dtype=dtype)
    binv = F.batch_inv(batch)
    assert binv.dtype == dtype and binv.shape == (2, 3, 3)
    for i in range(2):
        assert_forward(
            ref_matmul(batch[i], binv[i]),
            numpy.eye(3),
            numpy.float64,
            scale=1e6 if dtype == numpy.float16 else 1e4,
        )

    def ref_det(m):  # cofactor expansion along the first row
        m = numpy.asarray(m, numpy.float64)
        if len(m) == 1:
            return m[0, 0]
        return math.fsum((-1) ** j * m[0, j] * ref_det(numpy.delete(m[1:], j, axis=1)) for j in range(len(m)))

    assert_forward(F.det(a), numpy.array(ref_det(a)), dtype)
    assert_forward(F.batch_det(batch), numpy.array([ref_det(m) for m in batch]), dtype)


def test_inv_and_det_grads():
    a = spd(3, seed=3) - numpy.eye(3) * 0.5 + numpy.triu(numpy.ones((3, 3)), 1) * 0.3  # not symmetric
    check_grads(F.inv, (a,))
    check_grads(F.det, (a,))
    check_grads(F.batch_inv, (spd(2, (2,), seed=4) + 0.2 * numpy.triu(numpy.ones((2, 2)), 1),))
    check_grads(F.batch_det, (spd(2, (3,), seed=5) + 0.2 * numpy.tril(numpy.ones((2, 2)), -1),))


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "f32", "f64"])
def test_cholesky_forward(dtype):
    a = spd(4, seed=6, dtype=dtype)
    lower = F.cholesky(a)
    assert lower.dtype == dtype and lower.shape == (4, 4)
    assert numpy.all(numpy.triu(numpy.asarray(lower, numpy.float64), 1) == 0)
    assert numpy.all(numpy.diagonal(lower) > 0)
    assert_forward(
        ref_matmul(lower, lower.T),
        a.astype(numpy.float64),
        numpy.float64,
        scale=1e7 if dtype == numpy.float16 else 1e4,
    )


def test_cholesky_grads():
    # the factor reads one triangle of a: differentiate along symmetric directions
    for n in (1, 3):
        check_grads(lambda a: F.cholesky((a + a.T) / 2), (spd(n, seed=7),), order=2)
    g = fnet.grad(lambda a: F.sum(F.cholesky(a) * numpy.arange(9.0).reshape(3, 3)))(spd(3, seed=8))
    numpy.testing.assert_allclose(g, g.T)  # the gradient is symmetric


def ref_dft(real, imag, inverse):
    n = real.shape[-1]
    sign = 1 if inverse else -1
    z = numpy.asarray(real, numpy.float64) + 1j * numpy.asarray(imag, numpy.float64)
    out = numpy.zeros(z.shape, complex)
    for index in numpy.ndindex(*z.shape[:-1]):
        for k in range(n):
            out[index + (k,)] = sum(
                z[index + (j,)]
                * complex(math.cos(2 * math.pi * j * k / n), sign * math.sin(2 * math.pi * j * k / n))
                for j in range(n)
            )
    return out / n if inverse else out


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "f32", "f64"])
@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_fft_forward(name, dtype):
    for shape in [(4,), (2, 5), (2, 1, 3)]:
        real, imag = uniform(-1, 1, shape, dtype, 1), uniform(-1, 1, shape, dtype, 2)
        out_real, out_imag = getattr(F, name)((real, imag))
        expected = ref_dft(real, imag, name == "ifft")
        assert_forward(out_real, expected.real, dtype, scale=2)
        assert_forward(out_imag, expected.imag, dtype, scale=2)


@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_fft_grads(name):
    for shape in [(4,), (2, 3)]:
        check_grads(
            lambda r, i: getattr(F, name)((r, i)),
            (uniform(-1, 1, shape, seed=1), uniform(-1, 1, shape, seed=2)),
        )
    # one part alone: the other gets no cotangent
    check_grads(
        lambda r, i: getattr(F, name)((r, i))[1], (uniform(-1, 1, (3,), seed=3), uniform(-1, 1, (3,), seed=4))
    )


# -- special functions of two arguments --------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "f32", "f64"])
def test_polygamma_forward(dtype):
    x = uniform(0.5, 3.0, (2, 3), dtype)
    for n in (0, 1, 2, 3):
        scale = 5 if n == 3 and dtype == numpy.float16 else 1
        assert_forward(
            F.polygamma(numpy.array(n, numpy.int32), x),
            elementwise(lambda v: ref_polygamma(n, v), x),
            dtype,
            scale,
        )
    n = numpy.array([[0], [2]])
    assert_forward(F.polygamma(n, x), elementwise(ref_polygamma, n, x), dtype)


def test_betaln_third_derivative_and_large_arguments():
    check_grads(F.betaln, (uniform(0.5, 3, (2,), seed=1), uniform(0.5, 3, (2,), seed=2)), order=3)
    # B(a, 1) = 1 / a; lgamma(a) + lgamma(1) - lgamma(a + 1) would lose 6 digits to cancellation here
    numpy.testing.assert_allclose(F.betaln(numpy.array(1e10), numpy.array(1.0)), -math.log(1e10), rtol=1e-14)


def test_polygamma_grads():
    check_grads(lambda x: F.polygamma(numpy.array([0, 1, 2]), x), (uniform(0.5, 3, (3,)),))
    check_grads(lambda x: F.polygamma(numpy.array([[1], [2]]), x), (uniform(0.5, 3, (3,)),))  # n broadcasts x


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "f32", "f64"])
def test_zeta_forward(dtype):
    q = uniform(0.5, 3.0, (2, 3), dtype)
    assert_forward(F.zeta(2.5, q), elementwise(lambda v: ref_zeta(2.5, v), q), dtype)
    s = numpy.array([2.0, 3.0, 4.5])
    assert_forward(F.zeta(s, q), elementwise(ref_zeta, s, q), dtype)


def test_zeta_grads_in_q():
    check_grads(lambda q: F.zeta(2.5, q), (uniform(0.5, 3, (3,)),))
    check_grads(lambda q: F.zeta(numpy.array([[2.0], [3.0]]), q), (uniform(0.5, 3, (3,)),))


# -- errors ----------------------------------------------------------------------------------
INT = numpy.arange(6).reshape(2, 3)
M23 = numpy.ones((2, 3), numpy.float32)


@pytest.mark.parametrize(
    "call, error, pattern",
    [
        (lambda: F.exp(INT), DTypeError, r"exp: expected x to be a float array, got int64"),
        (lambda: F.erfinv(INT), DTypeError, r"erfinv: expected x to be a float array"),
        (lambda: F.add(), InvalidInputError, r"add: expected at least one operand"),
        (
            lambda: F.maximum(M23, M23.astype(numpy.float64)),
            DTypeError,
            r"maximum: expected x1.dtype == x2.dtype",
        ),
        (lambda: F.fmod(M23, 2.0), DTypeError, r"fmod: expected divisor to be a float array"),
        (lambda: F.arctan2(M23, numpy.ones((4,), numpy.float32)), ShapeError, r"cannot be broadcast"),
        (
            lambda: F.squared_difference(M23, M23[:, :2]),
            ShapeError,
            r"squared_difference: expected x1.shape == x2.shape",
        ),
        (
            lambda: F.linear_interpolate(M23, M23, M23[0]),
            ShapeError,
            r"linear_interpolate: expected p.shape == y.shape",
        ),
        (
            lambda: F.bias(M23, numpy.ones(2, numpy.float32)),
            ShapeError,
            r"bias: expected y.shape == x.shape\[axis:axis \+ y.ndim\]",
        ),
        (lambda: F.scale(M23, numpy.ones(3, numpy.float32), axis=2), ShapeError, r"scale: .*axis=2"),
        (
            lambda: F.clip(M23, None, None),
            InvalidInputError,
            r"clip: expected at least one of x_min and x_max",
        ),
        (lambda: F.clip(M23, 1.0, 0.5), InvalidInputError, r"clip: expected x_min < x_max"),
        (lambda: F.sum(INT), DTypeError, r"sum: expected x to be a float array"),
        (lambda: F.sum(M23, axis=2), ShapeError, r"sum: axis=2 is out of bounds"),
        (lambda: F.max(M23, axis=(0, -2)), InvalidInputError, r"max: duplicate value in axis"),
        (
            lambda: F.prod(M23, axis=[0]),
            InvalidInputError,
            r"prod: expected axis to be None, an int or a tuple",
        ),
        (lambda: F.argmax(M23, axis=(0,)), InvalidInputError, r"argmax: expected axis to be None or an int"),
        (lambda: F.cumsum(M23, axis=-3), ShapeError, r"cumsum: axis=-3 is out of bounds"),
        (
            lambda: F.average(M23, axis=1, weights=numpy.ones(2, numpy.float32)),
            ShapeError,
            r"average: expected weights.shape == \(3,\)",
        ),
        (
            lambda: F.mean(M23, axis=(0, 1), weights=M23),
            InvalidInputError,
            r"average: weights cannot be combined",
        ),
        (
            lambda: F.average(M23, weights=M23.astype(numpy.float64)),
            DTypeError,
            r"average: expected x.dtype == weights.dtype",
        ),
        (
            lambda: F.batch_l2_norm_squared(M23[0]),
            ShapeError,
            r"batch_l2_norm_squared: expected x.ndim >= 2, got 1",
        ),
        (lambda: F.sum_to(M23, (4,)), ShapeError, r"sum_to: cannot sum shape \(2, 3\) to \(4,\)"),
        (
            lambda: F.matmul(M23, M23),
            ShapeError,
            r"matmul: the contracted axes do not match: a has 3 columns, b has 2 rows",
        ),
        (
            lambda: F.matmul(numpy.ones((2, 2, 3)), numpy.ones((3, 3, 1))),
            ShapeError,
            r"matmul: the batch shapes \(2,\) and \(3,\)",
        ),
        (lambda: F.matmul(M23, numpy.float32(1)), ShapeError, r"matmul: expected b.ndim >= 1, got 0"),
        (
            lambda: F.matmul(M23, M23.T.astype(numpy.float64)),
            DTypeError,
            r"matmul: expected a.dtype == b.dtype",
        ),
        (lambda: F.tensordot(INT, M23), DTypeError, r"tensordot: expected a to be a float array"),
        (
            lambda: F.einsum("ij,jk", M23),
            InvalidInputError,
            r"einsum: expected 2 operands for subscripts 'ij,jk', got 1",
        ),
        (
            lambda: F.einsum("ij->k", M23),
            InvalidInputError,
            r"einsum: output subscripts \['k'\] do not appear",
        ),
        (lambda: F.einsum(M23, [0, "a"]), InvalidInputError, r"einsum: sublists must hold ints"),
        (lambda: F.inv(M23), ShapeError, r"inv: expected square matrices, got a.shape == \(2, 3\)"),
        (lambda: F.inv(numpy.ones((2, 2, 2))), ShapeError, r"inv: expected a.ndim == 2, got 3"),
        (lambda: F.inv(numpy.ones((2, 2))), InvalidInputError, r"inv: the matrix is singular"),
        (lambda: F.batch_inv(numpy.ones((2, 2))), ShapeError, r"batch_inv: expected a.ndim == 3, got 2"),
        (lambda: F.det(INT[:, :2]), DTypeError, r"det: expected a to be a float array"),
        (lambda: F.batch_det(numpy.ones((2, 2, 3))), ShapeError, r"batch_det: expected square matrices"),
        (
            lambda: F.cholesky(-numpy.eye(2)),
            InvalidInputError,
            r"cholesky: a is not symmetric positive definite",
        ),
        (lambda: F.fft(M23), InvalidInputError, r"fft: expected x to be a pair \(real, imag\), got ndarray"),
        (lambda: F.ifft((M23, M23[0])), ShapeError, r"ifft: expected real.shape == imag.shape"),
        (
            lambda: F.fft((numpy.float32(1), numpy.float32(0))),
            ShapeError,
            r"fft: expected real.ndim >= 1, got 0",
        ),
        (
            lambda: F.polygamma(numpy.array(1.0), M23),
            DTypeError,
            r"polygamma: expected n to be an integer array",
        ),
        (lambda: F.zeta(2.0, INT), DTypeError, r"zeta: expected q to be a float array"),
    ],
)
def test_errors(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_batch_matmul_errors():
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(ShapeError, match=r"batch_matmul: expected a.ndim == 2 or 3, got 1"),
    ):
        F.batch_matmul(M23[0], M23)
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(ShapeError, match=r"batch_matmul: the contracted axes"),
    ):
        F.batch_matmul(numpy.ones((2, 3, 4), numpy.float32), numpy.ones((2, 3, 4), numpy.float32))


@pytest.mark.parametrize("axis", [[0], (1, "x"), 1.0, True], ids=["list", "str-in-tuple", "float", "bool"])
@pytest.mark.parametrize(
    "fn", [F.sum, F.prod, F.logsumexp, F.max, F.min, F.argmax, F.argmin, F.cumsum, F.cumprod, F.softmax]
)
def test_axis_of_a_wrong_type_is_a_type_error(fn, axis):
    # Chainer raises TypeError for these (a list, a string, a float or a bool as axis)
    with pytest.raises(ArgumentTypeError, match=rf"{fn.__name__}: expected axis to be") as info:
        fn(M23, axis=axis)
    assert isinstance(info.value, TypeError) and isinstance(info.value, InvalidInputError)


@pytest.mark.parametrize(
    "subscripts, shapes, error, match",
    [
        ("i,i", ((2,), (3,)), ShapeError, r"axis 'i' has lengths 2 and 3"),
        ("ii", ((2, 3),), ShapeError, r"axis 'i' has lengths 2 and 3"),
        ("ij", ((2,),), ShapeError, r"operand 0 has 1 axes for the term 'ij'"),
        ("...i,...i", ((2, 2), (3, 2)), ShapeError, r"'...' stands for axes \(2,\) and \(3,\)"),
        ("...i,...i", ((2, 2), (1, 2)), ShapeError, r"'...' stands for axes \(2,\) and \(1,\)"),
        ("i...,j...", ((2, 3), (3, 2)), ShapeError, r"'...' stands for axes \(3,\) and \(2,\)"),
        ("i,i->...", ((2,), (2,)), InvalidInputError, r"expected '...' in the output of 'i,i->...' exactly"),
        ("...->", ((2,),), InvalidInputError, r"expected '...' in the output"),
        ("i,...i->", ((2,), (3, 2)), InvalidInputError, r"expected '...' in the output"),
    ],
)
def test_einsum_refuses_what_chainer_refuses(subscripts, shapes, error, match):
    # Chainer's F.einsum broadcasts nothing and does not sum over '...' (NumPy's may do both)
    with pytest.raises(error, match=match):
        F.einsum(subscripts, *(numpy.zeros(shape, numpy.float32) for shape in shapes))


def test_einsum_keeps_ellipsis_axes_that_agree():
    a, b = uniform(-1, 1, (2, 3, 4), seed=3), uniform(-1, 1, (2, 3, 4), seed=4)
    numpy.testing.assert_allclose(F.einsum("...i,...i->...", a, b), (a * b).sum(-1), rtol=1e-12)
    check_grads(lambda a, b: F.einsum("...i,...i->...", a, b), (a, b), order=2)
