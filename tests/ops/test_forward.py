"""Forward values of fnet.ops against NumPy, dtype rules, and traced values (Tracer) in use.

- Each op's value equals NumPy's on a few shapes, in float32 and float64; float32 in gives
  float32 out, also with Python scalar operands.
- Non-differentiable ops give plain arrays (never a Tracer), even on traced operands.
- Tracer's operators, attributes and NumPy ufunc dispatch work inside ``fnet.grad``.
"""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import ops
from fnet.autodiff import Tracer
from fnet.errors import DTypeError
from fnet.testing import check_grads, check_vjp

DTYPES = [numpy.float32, numpy.float64]
SHAPES = [(), (5,), (2, 3)]


def _rng(seed=0):
    return numpy.random.RandomState(seed)


def _tolerance(dtype):
    return {"rtol": 2e-6, "atol": 1e-6} if dtype == numpy.float32 else {"rtol": 1e-12, "atol": 1e-12}


def assert_same(actual, expected, dtype=None):
    """``actual`` is a plain array (or NumPy scalar) with ``expected``'s shape, dtype and values."""
    assert type(actual) is not Tracer
    actual_array, expected_array = numpy.asarray(actual), numpy.asarray(expected)
    assert actual_array.shape == expected_array.shape
    assert actual_array.dtype == expected_array.dtype, (actual_array.dtype, expected_array.dtype)
    if dtype is not None:
        assert actual_array.dtype == dtype
    if actual_array.dtype.kind in "fc":
        tol = _tolerance(actual_array.dtype)
        numpy.testing.assert_allclose(actual_array, expected_array, **tol)
    else:
        numpy.testing.assert_array_equal(actual_array, expected_array)


# -- elementwise -----------------------------------------------------------------------------
UNARY = {  # name: (low, high) of the sampled domain
    "negative": (-2, 2),
    "square": (-2, 2),
    "sqrt": (0.1, 3),
    "reciprocal": (0.5, 3),
    "exp": (-2, 2),
    "expm1": (-2, 2),
    "log": (0.1, 3),
    "log1p": (-0.5, 3),
    "log2": (0.1, 3),
    "log10": (0.1, 3),
    "sin": (-3, 3),
    "cos": (-3, 3),
    "tan": (-1.2, 1.2),
    "arcsin": (-0.9, 0.9),
    "arccos": (-0.9, 0.9),
    "arctan": (-3, 3),
    "sinh": (-2, 2),
    "cosh": (-2, 2),
    "tanh": (-2, 2),
    "arcsinh": (-3, 3),
    "arccosh": (1.1, 3),
    "arctanh": (-0.9, 0.9),
    "absolute": (-2, 2),
    "abs": (-2, 2),
    "sign": (-2, 2),
    "floor": (-3, 3),
    "ceil": (-3, 3),
    "fix": (-3, 3),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary(name, shape, dtype):
    x = _rng().uniform(*UNARY[name], shape).astype(dtype)
    assert_same(getattr(ops, name)(x), getattr(numpy, name)(x), dtype)


BINARY = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "floor_divide",
    "power",
    "maximum",
    "minimum",
    "arctan2",
    "fmod",
]
PAIRS = [((3, 1), (4,)), ((2, 3, 4), (3, 4)), ((), (2, 3)), ((), ())]


def _binary_operands(name, sx, sy, dtype):
    rng = _rng(1)
    x = rng.uniform(0.5, 2.0, sx).astype(dtype)
    y = rng.uniform(0.5, 2.0, sy).astype(dtype) * numpy.where(rng.uniform(size=sy) < 0.5, -1, 1).astype(dtype)
    return x, y


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("sx, sy", PAIRS, ids=lambda s: str(s))
@pytest.mark.parametrize("name", BINARY)
def test_binary(name, sx, sy, dtype):
    x, y = _binary_operands(name, sx, sy, dtype)
    assert_same(getattr(ops, name)(x, y), getattr(numpy, name)(x, y), dtype)


@pytest.mark.parametrize("scalar", [2, 1.5, numpy.float64(1.5), numpy.float32(1.5)], ids=repr)
@pytest.mark.parametrize("name", BINARY)
def test_binary_with_scalar_keeps_float32(name, scalar):
    x = _rng(2).uniform(0.5, 2.0, (3, 2)).astype(numpy.float32)
    op, reference = getattr(ops, name), getattr(numpy, name)
    assert_same(op(x, scalar), reference(x, numpy.float32(scalar)), numpy.float32)
    assert_same(op(scalar, x), reference(numpy.float32(scalar), x), numpy.float32)


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "where"])
def test_mixed_float_dtypes_are_an_error(name):
    x, y = numpy.ones(3, numpy.float32), numpy.ones(3, numpy.float64)
    op = (
        (lambda a, b: ops.where(numpy.array([True, False, True]), a, b))
        if name == "where"
        else getattr(ops, name)
    )
    with pytest.raises(DTypeError, match="float32"):
        op(x, y)
    for a, b in ((x, y), (y, x)):
        with pytest.raises(DTypeError):
            fnet.grad(lambda a: ops.sum(op(a, b)))(a)


def test_integer_array_meets_float32():
    x, n = numpy.full(3, 1.5, numpy.float32), numpy.arange(3)
    assert_same(ops.multiply(x, n), x * n.astype(numpy.float32), numpy.float32)
    assert_same(ops.add(n, x), n.astype(numpy.float32) + x, numpy.float32)


COMPARISONS = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
LOGICAL = ["logical_and", "logical_or", "logical_xor"]


@pytest.mark.parametrize("name", COMPARISONS + LOGICAL)
def test_comparison_and_logical(name):
    rng = _rng(3)
    x = rng.randint(0, 3, (3, 1)).astype(numpy.float32)
    y = rng.randint(0, 3, (4,)).astype(numpy.float32)
    assert_same(getattr(ops, name)(x, y), getattr(numpy, name)(x, y), bool)


@pytest.mark.parametrize("name", ["logical_not", "isfinite", "isnan", "isinf"])
def test_unary_predicates(name):
    x = numpy.array([0.0, 1.0, numpy.inf, -numpy.inf, numpy.nan], numpy.float32)
    assert_same(getattr(ops, name)(x), getattr(numpy, name)(x), bool)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_clip_where_astype(dtype):
    x = _rng(4).standard_normal((3, 4)).astype(dtype)
    assert_same(ops.clip(x, -0.5, 0.5), numpy.clip(x, -0.5, 0.5), dtype)
    assert_same(ops.clip(x, None, 0.5), numpy.minimum(x, dtype(0.5)), dtype)
    assert_same(ops.clip(x, -0.5, None), numpy.maximum(x, dtype(-0.5)), dtype)
    assert_same(ops.where(x > 0, x, 0.0), numpy.where(x > 0, x, dtype(0)), dtype)
    assert_same(ops.where(x > 0, x[:1], x), numpy.where(x > 0, x[:1], x), dtype)
    assert_same(ops.astype(x, numpy.int32), x.astype(numpy.int32))
    assert ops.astype(x, dtype) is x
    with pytest.raises(ValueError):
        ops.clip(x, None, None)


@pytest.mark.parametrize(
    "condition",
    [
        numpy.array([[True, False, True], [False, False, True]]),
        numpy.array([[1, 0, 2], [0, 0, -1]]),
        numpy.array([[0.5, 0.0, 1.0], [0.0, 0.0, -2.0]]),
        numpy.array([True, False, False]),
        True,
        False,
        numpy.bool_(False),
    ],
    ids=["bool", "int", "float", "bool-broadcast", "True", "False", "numpy.False"],
)
@pytest.mark.parametrize("zero", ["x", "y", "none"])
def test_where_conditions(condition, zero):
    x = numpy.array([[4.0, -3.0, numpy.inf], [2.0, 1.5, -0.5]], numpy.float32)
    y = numpy.array([-1.0, 2.5, 7.0], numpy.float32)
    x = 0.0 if zero == "x" else x
    y = 0.0 if zero == "y" else y
    assert_same(ops.where(condition, x, y), numpy.where(condition, x, y))


def test_creation_like():
    x = numpy.ones((2, 3), numpy.float32)
    assert_same(ops.zeros_like(x), numpy.zeros((2, 3), numpy.float32))
    assert_same(ops.ones_like(x, dtype=numpy.int64), numpy.ones((2, 3), numpy.int64))
    assert_same(ops.full_like(x, 2.5), numpy.full((2, 3), 2.5, numpy.float32))


# -- reductions ------------------------------------------------------------------------------
REDUCTION_AXES = [None, 0, -1, (0, 2), (-1, 0)]


def _logsumexp_reference(x, axis=None, keepdims=False):
    return numpy.log(numpy.sum(numpy.exp(x.astype(numpy.float64)), axis=axis, keepdims=keepdims)).astype(
        x.dtype
    )


REDUCTIONS = {
    "sum": numpy.sum,
    "mean": numpy.mean,
    "var": numpy.var,
    "std": numpy.std,
    "prod": numpy.prod,
    "max": numpy.max,
    "min": numpy.min,
    "amax": numpy.amax,
    "amin": numpy.amin,
    "logsumexp": _logsumexp_reference,
}


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("keepdims", [False, True], ids=["", "keepdims"])
@pytest.mark.parametrize("axis", REDUCTION_AXES, ids=lambda a: f"axis={a}")
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction(name, axis, keepdims, dtype):
    x = _rng(5).uniform(0.5, 1.5, (2, 3, 4)).astype(dtype)
    assert_same(
        getattr(ops, name)(x, axis, keepdims=keepdims), REDUCTIONS[name](x, axis, keepdims=keepdims), dtype
    )


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction_of_0d(name):
    x = numpy.array(0.75, numpy.float32)
    assert_same(getattr(ops, name)(x), REDUCTIONS[name](x), numpy.float32)


@pytest.mark.parametrize("name", list(REDUCTIONS))
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_the_gradient_of_a_reduction_of_0d_keeps_its_dtype(name, dtype):
    # max/min's gradient once divided by the tie count, a NumPy int64 scalar for a 0-d x: float64
    g = fnet.grad(getattr(ops, name))(numpy.array(0.75, dtype))
    assert g.dtype == dtype and g.shape == ()


def test_var_std_ddof():
    x = _rng(6).standard_normal((3, 5))
    assert_same(ops.var(x, 1, ddof=1), numpy.var(x, 1, ddof=1))
    assert_same(ops.std(x, None, ddof=1), numpy.std(x, ddof=1))


def test_float16_mean_and_var_accumulate_in_float32_as_numpy():
    x = _rng(7).uniform(3000, 7000, (30, 20, 40)).astype(numpy.float16)  # its sum overflows float16
    for axis in (None, 0, (1, 2)):
        mean = ops.mean(x, axis)
        assert mean.dtype == numpy.float16 and numpy.isfinite(mean).all()
        numpy.testing.assert_array_equal(mean, numpy.mean(x, axis))
    small = (x / 1000).astype(numpy.float16)
    numpy.testing.assert_allclose(ops.var(small, 1), numpy.var(small, 1), rtol=5e-3)
    g = fnet.grad(lambda x: ops.mean(x))(x)
    assert g.dtype == numpy.float16
    numpy.testing.assert_allclose(g, numpy.float16(1 / x.size))


def test_logsumexp_is_stable():
    x = numpy.array([[1000.0, 1000.0], [-1000.0, -numpy.inf]], numpy.float32)
    assert_same(ops.logsumexp(x, 1), numpy.array([1000 + numpy.log(2), -1000], numpy.float32))


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1], ids=lambda a: f"axis={a}")
@pytest.mark.parametrize("name", ["cumsum", "cumprod", "argmax", "argmin"])
def test_scan_and_arg(name, axis, dtype):
    x = _rng(7).uniform(0.5, 1.5, (3, 4)).astype(dtype)
    assert_same(getattr(ops, name)(x, axis), getattr(numpy, name)(x, axis=axis))


def test_argmax_keepdims():
    x = _rng(8).standard_normal((3, 4))
    assert_same(ops.argmax(x, 1, keepdims=True), numpy.argmax(x, 1, keepdims=True))


# -- shapes and indexing ---------------------------------------------------------------------
X = numpy.arange(24, dtype=numpy.float64).reshape(2, 3, 4) / 7
M = numpy.arange(12, dtype=numpy.float64).reshape(3, 4) / 5
MASK = (numpy.arange(12).reshape(3, 4) % 3) == 1

SHAPE_CASES = {
    "reshape": (lambda m, x: m.reshape(x, (4, -1)), lambda x: x.reshape(4, -1)),
    "reshape-int": (lambda m, x: m.reshape(x, 24), lambda x: x.reshape(24)),
    "ravel": (lambda m, x: m.ravel(x), numpy.ravel),
    "transpose": (lambda m, x: m.transpose(x), numpy.transpose),
    "transpose-axes": (lambda m, x: m.transpose(x, (1, -1, 0)), lambda x: x.transpose(1, 2, 0)),
    "moveaxis": (lambda m, x: m.moveaxis(x, (0, -1), (-1, 1)), lambda x: numpy.moveaxis(x, (0, -1), (-1, 1))),
    "swapaxes": (lambda m, x: m.swapaxes(x, 0, -1), lambda x: numpy.swapaxes(x, 0, -1)),
    "expand_dims": (lambda m, x: m.expand_dims(x, (0, -1)), lambda x: numpy.expand_dims(x, (0, -1))),
    "squeeze": (lambda m, x: m.squeeze(m.reshape(x, (2, 1, 12, 1))), lambda x: x.reshape(2, 12)),
    "squeeze-axis": (lambda m, x: m.squeeze(m.reshape(x, (1, 24, 1)), -1), lambda x: x.reshape(1, 24)),
    "broadcast_to": (
        lambda m, x: m.broadcast_to(x[:, :, :1], (5, 2, 3, 4)),
        lambda x: numpy.broadcast_to(x[:, :, :1], (5, 2, 3, 4)),
    ),
    "sum_to": (lambda m, x: m.sum_to(x, (3, 1)), lambda x: x.sum(axis=(0, 2))[:, None]),
    "concatenate": (
        lambda m, x: m.concatenate([x, x[:, :1]], 1),
        lambda x: numpy.concatenate([x, x[:, :1]], 1),
    ),
    "stack": (lambda m, x: m.stack([x, x * 2], -1), lambda x: numpy.stack([x, x * 2], -1)),
    "split": (lambda m, x: m.split(x, [1, 3], axis=-1)[1], lambda x: numpy.split(x, [1, 3], axis=-1)[1]),
    "split-sections": (lambda m, x: m.split(x, 3, axis=1)[2], lambda x: numpy.split(x, 3, axis=1)[2]),
    "tile": (lambda m, x: m.tile(x, (2, 1, 1, 2)), lambda x: numpy.tile(x, (2, 1, 1, 2))),
    "repeat": (lambda m, x: m.repeat(x, 2, axis=1), lambda x: numpy.repeat(x, 2, axis=1)),
    "repeat-flat": (lambda m, x: m.repeat(x, 2), lambda x: numpy.repeat(x, 2)),
    "flip": (lambda m, x: m.flip(x, (0, -1)), lambda x: numpy.flip(x, (0, -1))),
    "flip-all": (lambda m, x: m.flip(x), numpy.flip),
    "diagonal": (lambda m, x: m.diagonal(x, 1, 1, 2), lambda x: numpy.diagonal(x, 1, 1, 2)),
    "diagonal-negative": (lambda m, x: m.diagonal(x, -1, -1, 1), lambda x: numpy.diagonal(x, -1, -1, 1)),
    "atleast_1d": (lambda m, x: m.atleast_1d(x[0, 0, 0]), lambda x: numpy.atleast_1d(x[0, 0, 0])),
    "getitem-basic": (
        lambda m, x: m.getitem(x, (slice(None, None, -1), None, Ellipsis, 2)),
        lambda x: x[::-1, None, ..., 2],
    ),
    "getitem-advanced": (
        lambda m, x: m.getitem(x, (numpy.array([1, 1, 0]), slice(1, None), [3, 0, 3])),
        lambda x: x[numpy.array([1, 1, 0]), 1:, [3, 0, 3]],
    ),
    "getitem-mask": (lambda m, x: m.getitem(x, (slice(None), MASK)), lambda x: x[:, MASK]),
    "take": (
        lambda m, x: m.take(x, [[0, 3], [3, 3]], axis=-1),
        lambda x: numpy.take(x, [[0, 3], [3, 3]], axis=-1),
    ),
    "take-flat": (lambda m, x: m.take(x, [5, 0, 23]), lambda x: numpy.take(x, [5, 0, 23])),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(SHAPE_CASES))
def test_shape_op(name, dtype):
    ours, reference = SHAPE_CASES[name]
    x = X.astype(dtype)
    assert_same(ours(ops, x), reference(x), dtype)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_pad(mode, dtype):
    m = M.astype(dtype)
    for width in [((1, 2), (0, 3)), 2, (1,)]:
        assert_same(ops.pad(m, width, mode=mode), numpy.pad(m, width, mode=mode), dtype)
    assert_same(ops.pad(m, 1, constant_values=2.5), numpy.pad(m, 1, constant_values=2.5), dtype)
    scalar = numpy.asarray(dtype(0.5))
    assert_same(ops.pad(scalar, 3, mode=mode), numpy.pad(scalar, 3, mode=mode), dtype)  # no axis to pad


def test_scatter_add():
    a = M.copy()
    index = (numpy.array([0, 2, 0]), numpy.array([1, 1, 1]))
    values = numpy.array([1.0, 2.0, 3.0])
    expected = M.copy()
    numpy.add.at(expected, index, values)
    assert_same(ops.scatter_add(a, index, values), expected)
    assert_same(a, M)  # a is not modified
    expected = M.copy()
    expected[1:, ::-1] += numpy.arange(4.0)
    assert_same(ops.scatter_add(M, (slice(1, None), slice(None, None, -1)), numpy.arange(4.0)), expected)
    expected = M.copy()
    expected[MASK] += 1.5
    assert_same(ops.scatter_add(M, MASK, 1.5), expected)


# -- linear algebra --------------------------------------------------------------------------
def _well_conditioned(*shape, dtype):
    n = shape[-1]
    return (_rng(9).standard_normal(shape) * 0.3 + n * numpy.eye(n)).astype(dtype)


LINALG_CASES = {
    "matmul": (lambda m, a, b: m.matmul(a, b), [(2, 3, 4), (4, 5)]),
    "matmul-vec-left": (lambda m, a, b: m.matmul(a, b), [(4,), (2, 4, 5)]),
    "matmul-vec-right": (lambda m, a, b: m.matmul(a, b), [(2, 3, 4), (4,)]),
    "matmul-vec-vec": (lambda m, a, b: m.matmul(a, b), [(4,), (4,)]),
    "matmul-batch-broadcast": (lambda m, a, b: m.matmul(a, b), [(2, 1, 3, 4), (5, 4, 2)]),
    "dot": (lambda m, a, b: m.dot(a, b), [(3, 4), (4,)]),
    "dot-0d": (lambda m, a, b: m.dot(a, b), [(), (3, 2)]),
    "tensordot": (lambda m, a, b: m.tensordot(a, b, ([1, 0], [0, -1])), [(2, 3, 4), (3, 5, 2)]),
    "tensordot-2": (lambda m, a, b: m.tensordot(a, b), [(2, 3, 4), (3, 4, 5)]),
    "einsum": (lambda m, a, b: m.einsum("...ij,...jk->...ik", a, b), [(1, 2, 3), (4, 3, 5)]),
    "einsum-implicit": (lambda m, a, b: m.einsum("ij,kj", a, b), [(2, 3), (4, 3)]),
    "einsum-trace": (lambda m, a: m.einsum("ii", a), [(3, 3)]),
    "einsum-diag": (lambda m, a: m.einsum("...ii->...i", a), [(2, 3, 3)]),
    "einsum-3": (lambda m, a, b, c: m.einsum("ij,jk,kl->li", a, b, c), [(2, 3), (3, 4), (4, 2)]),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(LINALG_CASES))
def test_linalg(name, dtype):
    f, shapes = LINALG_CASES[name]
    rng = _rng(10)
    args = [rng.standard_normal(s).astype(dtype) for s in shapes]
    reference = f(numpy, *args)
    assert_same(f(ops, *args), reference, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("batch", [(), (2,)], ids=["", "batch"])
def test_inv_det_solve(batch, dtype):
    a = _well_conditioned(*batch, 3, 3, dtype=dtype)
    assert_same(ops.inv(a), numpy.linalg.inv(a), dtype)
    assert_same(ops.det(a), numpy.linalg.det(a), dtype)
    rng = _rng(11)
    for b_shape, x_shape in [
        ((3,), batch + (3,)),
        ((3, 2), batch + (3, 2)),
        (batch + (3, 1), batch + (3, 1)),
    ]:
        b = rng.standard_normal(b_shape).astype(dtype)
        x = ops.solve(a, b)
        assert x.dtype == dtype and x.shape == x_shape
        product = ops.einsum("...ij,...j->...i", a, x) if len(b_shape) == 1 else a @ x
        numpy.testing.assert_allclose(product, numpy.broadcast_to(b, x_shape), **_tolerance(dtype))


# -- non-differentiable ops give plain arrays, also on traced values --------------------------
NON_DIFFERENTIABLE = {
    "equal": lambda x: ops.equal(x, 0.5),
    "not_equal": lambda x: ops.not_equal(x, x[0]),
    "less": lambda x: ops.less(x, 0.5),
    "less_equal": lambda x: ops.less_equal(0.5, x),
    "greater": lambda x: ops.greater(x, x[::-1]),
    "greater_equal": lambda x: ops.greater_equal(x, 0.5),
    "logical_and": lambda x: ops.logical_and(x > 0, x < 1),
    "logical_or": lambda x: ops.logical_or(x, x > 1),
    "logical_xor": lambda x: ops.logical_xor(x > 0, x),
    "logical_not": lambda x: ops.logical_not(x),
    "isfinite": lambda x: ops.isfinite(x),
    "isnan": lambda x: ops.isnan(x),
    "isinf": lambda x: ops.isinf(x),
    "argmax": lambda x: ops.argmax(x),
    "argmin": lambda x: ops.argmin(x, 0, keepdims=True),
    "argmax-method": lambda x: x.argmax(axis=0),
    "sign": lambda x: ops.sign(x),
    "floor": lambda x: ops.floor(x),
    "ceil": lambda x: ops.ceil(x),
    "fix": lambda x: ops.fix(x),
    "floor_divide": lambda x: ops.floor_divide(x, 0.3),
    "zeros_like": lambda x: ops.zeros_like(x),
    "ones_like": lambda x: ops.ones_like(x),
    "full_like": lambda x: ops.full_like(x, 3.0),
    "operator-//": lambda x: x // 0.3,
    "operator-r//": lambda x: 2.0 // x,
    "operator-<": lambda x: x < 0.5,
    "operator-<=": lambda x: x <= x[1],
    "operator->": lambda x: x > 0.5,
    "operator->=": lambda x: 0.5 >= x,
    "operator-==": lambda x: x == x[2],
    "operator-!=": lambda x: x != 0.5,
    "ndarray<tracer": lambda x: numpy.full(4, 0.5) < x,
    "numpy.sign": lambda x: numpy.sign(x),
    "numpy.isfinite": lambda x: numpy.isfinite(x),
    "numpy.greater": lambda x: numpy.greater(x, 0.5),
}


@pytest.mark.parametrize("nested", [False, True], ids=["grad", "grad-of-grad"])
@pytest.mark.parametrize("name", list(NON_DIFFERENTIABLE))
def test_non_differentiable_gives_plain_arrays(name, nested):
    op = NON_DIFFERENTIABLE[name]
    x0 = numpy.array([0.25, 1.5, -0.75, 0.5])
    seen = []

    def f(x):
        result = op(x)
        assert type(result) is not Tracer, f"{name} returned a Tracer"
        assert fnet.backend.is_array(result)
        seen.append(result)
        return ops.sum(x * x * x)

    g = fnet.grad(lambda x: ops.sum(fnet.grad(f)(x))) if nested else fnet.grad(f)
    assert_same(g(x0), 6 * x0 if nested else 3 * x0 * x0)
    assert_same(seen[0], op(x0))


def test_non_differentiable_primitives_are_marked():
    for name in [
        "equal",
        "not_equal",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
        "logical_and",
        "logical_or",
        "logical_xor",
        "logical_not",
        "isfinite",
        "isnan",
        "isinf",
        "argmax",
        "argmin",
        "sign",
        "floor",
        "ceil",
        "fix",
        "floor_divide",
    ]:
        assert getattr(ops, name).differentiable is False, name


# -- Tracer operators, attributes and NumPy dispatch inside fnet.grad ------------------------
A = numpy.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [0.75, 1.25, 1.0]])
V = numpy.array([1.0, -2.0, 0.5])

# Each expression runs both on a traced value and on a plain NumPy array (the reference).
OPERATOR_CASES = {
    "x+y": lambda x: x + V,
    "y+x": lambda x: V[0] + x,
    "ndarray+x": lambda x: A + x,
    "x-y": lambda x: x - A,
    "ndarray-x": lambda x: A - x,
    "1-x": lambda x: 1 - x,
    "x*y": lambda x: x * V,
    "ndarray*x": lambda x: V * x,
    "x*x": lambda x: x * x,
    "x/y": lambda x: x / 3.0,
    "y/x": lambda x: 2.0 / x,
    "ndarray/x": lambda x: A / x,
    "x**2": lambda x: x**2,
    "x**0.5": lambda x: abs(x) ** 0.5,
    "2**x": lambda x: 2.0**x,
    "x**x": lambda x: abs(x) ** x,
    "x@A": lambda x: x @ A,
    "A@x": lambda x: A @ x,
    "x@V": lambda x: x @ V,
    "-x": lambda x: -x,
    "+x": lambda x: +x,
    "abs": lambda x: abs(x),
    "x[1:]": lambda x: x[1:],
    "x[::-1,0]": lambda x: x[::-1, 0],
    "x[None,...,1]": lambda x: x[None, ..., 1],
    "x[[2,0,2]]": lambda x: x[[2, 0, 2]],
    "x[mask]": lambda x: x[A > 0.6],
    ".T": lambda x: x.T @ x,
    ".mT": lambda x: x.mT if isinstance(x, Tracer) else numpy.swapaxes(x, -1, -2),  # NumPy 1.26 has no .mT
    ".reshape": lambda x: x.reshape(9) * x.reshape((1, 9)),
    ".transpose": lambda x: x.transpose(1, 0) + x.transpose(),
    ".swapaxes": lambda x: x.swapaxes(0, 1),
    ".squeeze": lambda x: x[None].squeeze(),
    ".ravel": lambda x: x.ravel(),
    ".flatten": lambda x: x.flatten(),
    ".astype": lambda x: x.astype(numpy.float64),
    ".clip": lambda x: x.clip(-0.6, 0.6),
    ".dot": lambda x: x.dot(V),
    ".sum": lambda x: x.sum(axis=1),
    ".mean": lambda x: x.mean(0),
    ".var": lambda x: x.var(),
    ".std": lambda x: x.std(axis=1),
    ".prod": lambda x: x.prod(axis=0),
    ".max": lambda x: x.max(axis=1),
    ".min": lambda x: x.min(),
    ".cumsum": lambda x: x.cumsum(axis=0),
    ".cumprod": lambda x: x.cumprod(axis=1),
    "numpy.sin": lambda x: numpy.sin(x),
    "numpy.exp": lambda x: numpy.exp(x * 0.5),
    "numpy.add": lambda x: numpy.add(A, x),
    "numpy.multiply": lambda x: numpy.multiply(x, x),
    "numpy.maximum": lambda x: numpy.maximum(x, 0.6),
    "numpy.matmul": lambda x: numpy.matmul(A, x),
    "numpy.tanh": lambda x: numpy.tanh(x),
    "numpy.abs": lambda x: numpy.abs(x),
    "iteration": lambda x: [row * i for i, row in enumerate(x)][2],
}


@pytest.mark.parametrize("name", list(OPERATOR_CASES))
def test_tracer_operator(name):
    expr = OPERATOR_CASES[name]
    x0 = A.copy()
    values = []

    def f(x):
        y = expr(x)
        assert type(y) is Tracer, f"{name} did not give a traced value"
        values.append(y.value)
        return ops.sum(y * y)

    g = fnet.grad(f)(x0)
    expected = expr(x0)
    assert_same(values[0], expected)
    assert g.shape == x0.shape and g.dtype == x0.dtype
    check_vjp(lambda x: expr(x), (x0,))  # the gradient through the operator is right


def test_tracer_attributes():
    seen = {}

    def f(x):
        seen.update(
            shape=x.shape,
            ndim=x.ndim,
            dtype=x.dtype,
            size=x.size,
            len=len(x),
            bool=bool(x[0, 0] > 0),
            float=float(x[0, 0]),
            int=int(x[1, 1] * 4),
            item=x[0, 0].item(),
        )
        if x[0, 0] > 0:  # Python control flow on values
            return ops.sum(x)
        return ops.sum(-x)

    g = fnet.grad(f)(A.astype(numpy.float32))
    assert seen == dict(
        shape=(3, 3), ndim=2, dtype=numpy.float32, size=9, len=3, bool=True, float=0.5, int=1, item=0.5
    )
    assert_same(g, numpy.ones((3, 3), numpy.float32))


def test_tracer_comparisons_give_boolean_arrays():
    def f(x):
        for result in (x > 0, x <= V, V < x, x == x, 0.5 != x):
            assert type(result) is numpy.ndarray and result.dtype == bool
        assert_same(x > 0, A > 0)
        return ops.sum(x)

    fnet.grad(f)(A)


def test_tracer_python_scalars_keep_float32():
    x0 = A.astype(numpy.float32)

    def f(x):
        for y in (x + 1, 2 * x, x / 3, 1.5 - x, x**2, 2.0**x, -x, abs(x), x * numpy.float64(0.5)):
            assert y.dtype == numpy.float32
        return ops.sum(x * 2.0 + x**2)

    g = fnet.grad(f)(x0)
    assert_same(g, 2.0 + 2 * x0, numpy.float32)


# -- float32 gradients stay float32 (the table checks float64) --------------------------------
X32 = numpy.array([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]], numpy.float32)
FLOAT32_GRAD_CASES = {
    "elementwise": lambda x: ops.tanh(x) * ops.exp(x) + ops.sqrt(abs(x)) + ops.arctan2(x, 1.5),
    "scalar-operands": lambda x: 2 * x - 1.5 + x / 2 + x**3 + ops.maximum(x, 0.1),
    "sum-mean-var": lambda x: ops.sum(x, 1) * ops.mean(x) + ops.var(x, 0)[:2] + ops.std(x),
    "prod-cumprod": lambda x: ops.prod(x, 0) + ops.cumprod(x, 1)[1],
    "prod-cumprod-zeros": lambda x: ops.prod(x * (x > 0), 0) + ops.cumprod(x * (x > 0), 1)[1],
    "max-min": lambda x: ops.max(x, 1)[:, None] * ops.min(x) + ops.amax(x),
    "logsumexp": lambda x: ops.logsumexp(x, 1),
    "shapes": lambda x: ops.pad(ops.tile(x.T, 2), 1, mode="reflect")[::2] ** 2,
    "getitem-scatter": lambda x: ops.scatter_add(x, [0, 0], x[[1, 1]] * x[0]),
    "linalg": lambda x: ops.einsum("ij,kj->ik", x, x) @ ops.inv(x @ x.T) + ops.det(x @ x.T),
    "solve": lambda x: ops.solve(x @ x.T + numpy.eye(2, dtype=x.dtype), x),
    "where-clip": lambda x: ops.where(x > 0, x * x, ops.clip(x, -1, 1)),
    "astype-roundtrip": lambda x: ops.astype(ops.astype(x, numpy.float64) * 2, numpy.float32),
    "reduction-scalar-times-float64": lambda x: ops.sum(x) * numpy.array([1.0, 2.0]),
    "float64-reduction-times-float32": lambda x: ops.sum(ops.astype(x, numpy.float64)) * x,
}


@pytest.mark.parametrize("name", list(FLOAT32_GRAD_CASES))
def test_float32_gradients(name):
    f = FLOAT32_GRAD_CASES[name]

    def loss(x):
        return ops.sum(ops.astype(f(x), numpy.float32) ** 2)

    g = fnet.grad(loss)(X32)
    assert g.dtype == numpy.float32 and g.shape == X32.shape
    g64 = fnet.grad(lambda x: ops.sum(ops.astype(f(x), numpy.float64) ** 2))(X32.astype(numpy.float64))
    numpy.testing.assert_allclose(g, g64, rtol=2e-3, atol=2e-3)
    hvp = fnet.grad(lambda x: ops.sum(fnet.grad(loss)(x) * X32))(X32)  # double backprop
    assert hvp.dtype == numpy.float32 and hvp.shape == X32.shape


def test_max_ties_share_the_gradient():
    x = numpy.array([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]], numpy.float32)
    assert_same(
        fnet.grad(lambda x: ops.sum(ops.max(x, 1)))(x),
        numpy.array([[0, 0.5, 0.5], [0.5, 0, 0.5]], numpy.float32),
    )
    assert_same(fnet.grad(ops.min)(numpy.ones(4)), numpy.full(4, 0.25))


def test_astype_to_integer_gives_no_gradient():
    g = fnet.grad(lambda x: ops.sum(ops.astype(ops.astype(x * 3, numpy.int64), numpy.float64) + x))(V)
    assert_same(g, numpy.ones(3))


@pytest.mark.parametrize("axis", [None, 2, (0, 2)])
def test_prod_of_an_empty_array_has_an_empty_gradient(axis):
    x = numpy.ones((3, 1, 0))
    g = fnet.grad(lambda x: ops.sum(ops.prod(x, axis=axis, keepdims=True)))(x)
    assert g.shape == (3, 1, 0)


def test_getitem_with_an_empty_list_selects_nothing_as_numpy():
    x = numpy.arange(6.0).reshape(2, 3)
    assert ops.getitem(x, []).shape == x[[]].shape == (0, 3)
    g = fnet.grad(lambda x: ops.sum(ops.getitem(x, [])))(x)
    numpy.testing.assert_array_equal(g, numpy.zeros_like(x))


@pytest.mark.parametrize("index", [True, numpy.array(False), (slice(None), numpy.array(True)), (1, True)])
def test_getitem_with_a_0d_mask_adds_an_axis_as_numpy(index):
    x = numpy.arange(6.0).reshape(2, 3)
    numpy.testing.assert_array_equal(ops.getitem(x, index), x[index])
    g = fnet.grad(lambda x: ops.sum(ops.square(ops.getitem(x, index))))(x)
    expected = numpy.zeros_like(x)
    expected[index] += 2 * x[index]
    numpy.testing.assert_array_equal(g, expected)
    check_grads(lambda x: ops.getitem(x, index), (x,), order=2)


@pytest.mark.parametrize(
    "source, destination, error, match",
    [
        (
            (0, 1),
            (2, 2),
            fnet.errors.InvalidInputError,
            r"moveaxis: expected distinct axes in destination, got \(2, 2\)",
        ),
        (
            (0, 0),
            (1, 2),
            fnet.errors.InvalidInputError,
            r"moveaxis: expected distinct axes in source, got \(0, 0\)",
        ),
        ((1, 2.0), (1, 2), TypeError, r"moveaxis: expected each axis to be an int, got 2.0"),
        ((1, 2), (1, 2.0), TypeError, r"moveaxis: expected each axis to be an int, got 2.0"),
    ],
)
def test_moveaxis_refuses_what_numpy_refuses(source, destination, error, match):
    # NumPy (and Chainer) raise ValueError for a repeated axis and TypeError for a float one
    x = numpy.zeros((2, 3, 4))
    with pytest.raises(error, match=match):
        ops.moveaxis(x, source, destination)
    with pytest.raises(TypeError if error is TypeError else ValueError):
        numpy.moveaxis(x, source, destination)


def test_axes_may_be_numpy_ints_and_bools_as_in_numpy():
    x = numpy.zeros((2, 3, 4))
    assert ops.moveaxis(x, numpy.int64(0), 2).shape == numpy.moveaxis(x, 0, 2).shape == (3, 4, 2)
    assert ops.swapaxes(x, True, 2).shape == numpy.swapaxes(x, True, 2).shape == (2, 4, 3)
