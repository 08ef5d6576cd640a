"""The gradient table of fnet.ops: one row per differentiable operation, checked to order 2.

Each row is keyed by a public name of ``fnet.ops`` and holds several cases (shapes, axes,
indices...). Every case is checked with ``fnet.testing.check_grads(f, args, order=2)`` in
float64, at inputs inside the operation's domain and away from its kinks and ties.

The completeness tests below fail when a differentiable primitive of fnet.ops, or a
differentiable public name of ``fnet.ops.__all__``, has no row: add one when you add an op.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import numpy
import pytest

import fnet
from fnet import ops
from fnet.autodiff import Primitive, Tracer, all_primitives, new_level
from fnet.testing import check_grads

_rng = numpy.random.RandomState(20240611)


# -- inputs ----------------------------------------------------------------------------------
def normal(*shape):
    return numpy.asarray(_rng.standard_normal(shape))


def uniform(lo, hi, *shape):
    return numpy.asarray(_rng.uniform(lo, hi, shape))


def away_from_zero(*shape, gap=0.3):
    """Magnitudes in [gap, gap + 1.5), random signs."""
    signs = numpy.where(_rng.uniform(size=shape) < 0.5, -1.0, 1.0)
    return numpy.asarray(signs * uniform(gap, gap + 1.5, *shape))


def distinct(*shape):
    """Values at least 0.2 apart from each other (no ties for max, min, sorting)."""
    n = int(numpy.prod(shape))
    values = (_rng.permutation(n) - n / 2) * 0.25 + _rng.uniform(0, 0.05, n)
    return numpy.asarray(values.reshape(shape))


def well_conditioned(*shape):
    """A (batch of) square matrices with a dominant diagonal."""
    n = shape[-1]
    return normal(*shape) * 0.3 + n * numpy.eye(n)


def separated_pair(shape_x, shape_y, gap=0.05):
    """Two arrays whose broadcast elements differ by more than ``gap`` (no ties for maximum)."""
    while True:
        x, y = normal(*shape_x), normal(*shape_y)
        if numpy.abs(x - y).min() > gap:
            return x, y


def away_from(*kinks, shape, gap=0.05):
    """A normal array with no element within ``gap`` of the given points (clip's bounds)."""
    while True:
        x = normal(*shape)
        if all(numpy.abs(x - k).min() > gap for k in kinks):
            return x


def fmod_pair(shape_x, shape_y):
    """Operands whose quotient stays away from integers (where fmod jumps)."""
    while True:
        x, y = away_from_zero(*shape_x) * 2, away_from_zero(*shape_y, gap=0.4)
        frac = numpy.abs(x / y) % 1.0
        if ((frac > 0.05) & (frac < 0.95)).all():
            return x, y


def with_zeros(shape, zeros):
    """A normal array with zeros at the given flat positions (for prod and cumprod)."""
    x = away_from_zero(*shape, gap=0.5).ravel()
    x[list(zeros)] = 0.0
    return x.reshape(shape)


# -- the table -------------------------------------------------------------------------------
TABLE: dict[str, list] = {}


def case(case_id: str, f, *args, **check_options):
    return (case_id, f, args, check_options)


def row(name: str, *cases) -> None:
    assert name not in TABLE, f"duplicate row {name}"
    assert hasattr(ops, name), f"row {name} is not a name of fnet.ops"
    TABLE[name] = list(cases)


def shape_id(*shapes) -> str:
    return ",".join("(" + ",".join(map(str, s)) + ")" for s in shapes)


# Elementwise, one operand: (name, domain sampler).
UNARY_DOMAINS = {
    "negative": normal,
    "square": normal,
    "sqrt": lambda *s: uniform(0.3, 3.0, *s),
    "reciprocal": away_from_zero,
    "exp": lambda *s: uniform(-2, 2, *s),
    "expm1": lambda *s: uniform(-2, 2, *s),
    "log": lambda *s: uniform(0.3, 3.0, *s),
    "log1p": lambda *s: uniform(-0.6, 3.0, *s),
    "log2": lambda *s: uniform(0.3, 3.0, *s),
    "log10": lambda *s: uniform(0.3, 3.0, *s),
    "sin": lambda *s: uniform(-3, 3, *s),
    "cos": lambda *s: uniform(-3, 3, *s),
    "tan": lambda *s: uniform(-1.2, 1.2, *s),
    "arcsin": lambda *s: uniform(-0.8, 0.8, *s),
    "arccos": lambda *s: uniform(-0.8, 0.8, *s),
    "arctan": lambda *s: uniform(-3, 3, *s),
    "sinh": lambda *s: uniform(-2, 2, *s),
    "cosh": lambda *s: uniform(-2, 2, *s),
    "tanh": lambda *s: uniform(-2, 2, *s),
    "arcsinh": lambda *s: uniform(-3, 3, *s),
    "arccosh": lambda *s: uniform(1.2, 3.0, *s),
    "arctanh": lambda *s: uniform(-0.8, 0.8, *s),
    "absolute": away_from_zero,
}
UNARY_SHAPES = [(), (5,), (2, 1, 3)]

for _name, _domain in UNARY_DOMAINS.items():
    _op = getattr(ops, _name)
    row(_name, *[case(shape_id(s), _op, _domain(*s)) for s in UNARY_SHAPES])

# Elementwise, two operands with broadcasting: (name, sampler of a pair of operands).
BINARY_SHAPES = [((3, 1), (4,)), ((2, 3, 4), (3, 4)), ((), (2, 3)), ((2, 1, 3), (1, 4, 1)), ((), ())]


def _independent(sample_x, sample_y):
    return lambda sx, sy: (sample_x(*sx), sample_y(*sy))


BINARY_DOMAINS = {
    "add": _independent(normal, normal),
    "subtract": _independent(normal, normal),
    "multiply": _independent(normal, normal),
    "divide": _independent(normal, away_from_zero),
    "power": _independent(lambda *s: uniform(0.5, 2.0, *s), lambda *s: uniform(-2, 2, *s)),
    "arctan2": _independent(away_from_zero, away_from_zero),
    "maximum": separated_pair,
    "minimum": separated_pair,
    "fmod": fmod_pair,
}
# With a Python scalar on either side: (scalar, sampler of the array operand for each side).
BINARY_SCALAR = {
    "add": (1.5, normal, normal),
    "subtract": (1.5, normal, normal),
    "multiply": (1.5, normal, normal),
    "divide": (1.5, normal, away_from_zero),
    "power": (1.5, lambda *s: uniform(0.5, 2.0, *s), lambda *s: uniform(-2, 2, *s)),
    "arctan2": (1.5, normal, normal),
    "maximum": (0.25, lambda *s: away_from_zero(*s) + 0.25, lambda *s: away_from_zero(*s) + 0.25),
    "minimum": (0.25, lambda *s: away_from_zero(*s) + 0.25, lambda *s: away_from_zero(*s) + 0.25),
    "fmod": (2.5, lambda *s: fmod_pair(s, ())[0], lambda *s: uniform(0.6, 2.0, *s)),
}

for _name, _sampler in BINARY_DOMAINS.items():
    _op = getattr(ops, _name)
    _scalar, _left, _right = BINARY_SCALAR[_name]
    row(
        _name,
        *[case(shape_id(sx, sy), _op, *_sampler(sx, sy)) for sx, sy in BINARY_SHAPES],
        case(f"x,{_scalar}", lambda x, _op=_op, _s=_scalar: _op(x, _s), _left(3, 2)),
        case(f"{_scalar},y", lambda y, _op=_op, _s=_scalar: _op(_s, y), _right(3, 2)),
    )

row(
    "power",
    *TABLE.pop("power"),
    case("negative-base,int-exponent", lambda x: ops.power(x, 3), normal(4, 3)),
    case("operator", lambda x, y: x**y + x**2, uniform(0.5, 2, 3, 1), uniform(-1, 1, 4)),
)
row(
    "clip",
    case("both-bounds", lambda x: ops.clip(x, -0.5, 0.5), away_from(-0.5, 0.5, shape=(3, 4))),
    case("min-only", lambda x: ops.clip(x, 0.125, None), away_from(0.125, shape=(2, 5))),
    case("max-only", lambda x: ops.clip(x, None, 0.125), away_from(0.125, shape=(2, 5))),
    case(
        "array-bounds",
        lambda x, lo, hi: ops.clip(x, lo, hi),
        *[numpy.array(v) for v in ([[-1.0, 0.2, 0.8], [0.45, -0.3, 1.5]], [-0.5, 0.0, 0.5], [[0.5], [1.0]])],
    ),
)
row(
    "where",
    case(
        "(3,1),(4,),(3,4)",
        lambda x, y: ops.where(numpy.array([[True], [False], [True]]), x, y),
        normal(4),
        normal(3, 4),
    ),
    case("traced-condition", lambda x, y: ops.where(x > y, x * y, y - x), *separated_pair((2, 3), (3,))),
    case("0-d", lambda x, y: ops.where(numpy.array(False), x, y), normal(), normal()),
    case("scalar-branch", lambda x: ops.where(x > 0, x, 0.0), away_from_zero(2, 3)),
)
row(
    "astype",
    # float32 rounding: a wide step keeps central differences accurate for this linear map
    case(
        "f64-f32-f64",
        lambda x: ops.astype(ops.astype(x, numpy.float32), numpy.float64) * 3.0,
        normal(3, 4),
        eps=1e-2,
        rtol=1e-3,
    ),
    case("f64-f64", lambda x: ops.astype(x, numpy.float64) * x, normal(2, 3)),
    case("0-d", lambda x: ops.astype(ops.astype(x, "float32") * 2, "float64"), normal(), eps=1e-2, rtol=1e-3),
)

# Reductions.
row(
    "sum",
    case("axis=None", ops.sum, normal(3, 4)),
    case("axis=1", lambda x: ops.sum(x, 1), normal(3, 4)),
    case("axis=-1,keepdims", lambda x: ops.sum(x, -1, keepdims=True), normal(2, 3, 4)),
    case("axis=(0,2)", lambda x: ops.sum(x, (0, 2)), normal(2, 3, 4)),
    case("axis=(-1,0),keepdims", lambda x: ops.sum(x, (-1, 0), keepdims=True), normal(2, 3, 4)),
    case("axis=()", lambda x: ops.sum(x, ()), normal(2, 3)),
    case("0-d", ops.sum, normal()),
    case("size-1-axis", lambda x: ops.sum(x, 1), normal(3, 1, 2)),
)
row(
    "mean",
    case("axis=None", ops.mean, normal(3, 4)),
    case("axis=0", lambda x: ops.mean(x, 0), normal(3, 4)),
    case("axis=(1,-1),keepdims", lambda x: ops.mean(x, (1, -1), keepdims=True), normal(2, 3, 4)),
    case("0-d", ops.mean, normal()),
)
row(
    "var",
    case("axis=None", ops.var, normal(3, 4)),
    case("axis=1,ddof=1", lambda x: ops.var(x, 1, ddof=1), normal(3, 4)),
    case("axis=(0,2),keepdims", lambda x: ops.var(x, (0, 2), keepdims=True), normal(2, 3, 4)),
)
row(
    "std",
    case("axis=None", ops.std, normal(3, 4)),
    case("axis=-1,ddof=1", lambda x: ops.std(x, -1, ddof=1), normal(2, 3, 4)),
    case("axis=0,keepdims", lambda x: ops.std(x, 0, keepdims=True), normal(3, 4)),
)
row(
    "prod",
    case("axis=None", ops.prod, away_from_zero(2, 3, gap=0.5)),
    case("axis=1", lambda x: ops.prod(x, 1), away_from_zero(3, 4, gap=0.5)),
    case(
        "axis=(0,2),keepdims", lambda x: ops.prod(x, (0, 2), keepdims=True), away_from_zero(2, 3, 2, gap=0.5)
    ),
    case("one-zero", lambda x: ops.prod(x, 1), with_zeros((3, 4), [1])),
    case("two-zeros-in-a-lane", lambda x: ops.prod(x, -1), with_zeros((3, 4), [0, 2, 5])),
    case("zeros,axis=None", ops.prod, with_zeros((2, 3), [4])),
    case("0-d", ops.prod, normal()),
    case("size-1-axis", lambda x: ops.prod(x, 1), normal(3, 1)),
)
for _name in ("max", "min"):
    _op = getattr(ops, _name)
    row(
        _name,
        case("axis=None", _op, distinct(3, 4)),
        case("axis=1", lambda x, _op=_op: _op(x, 1), distinct(3, 4)),
        case("axis=-1,keepdims", lambda x, _op=_op: _op(x, -1, keepdims=True), distinct(2, 3, 4)),
        case("axis=(0,2)", lambda x, _op=_op: _op(x, (0, 2)), distinct(2, 3, 4)),
        case("0-d", _op, normal()),
    )
row(
    "logsumexp",
    case("axis=None", ops.logsumexp, normal(3, 4)),
    case("axis=1", lambda x: ops.logsumexp(x, 1), normal(3, 4)),
    case("axis=(0,-1),keepdims", lambda x: ops.logsumexp(x, (0, -1), keepdims=True), normal(2, 3, 4)),
    case("large-values", lambda x: ops.logsumexp(x, 0), normal(4, 2) + 500.0),
    case("0-d", ops.logsumexp, normal()),
)
row(
    "cumsum",
    case("axis=None", ops.cumsum, normal(3, 4)),
    case("axis=0", lambda x: ops.cumsum(x, 0), normal(3, 4)),
    case("axis=-1", lambda x: ops.cumsum(x, -1), normal(2, 3, 4)),
    case("0-d", ops.cumsum, normal()),
)
row(
    "cumprod",
    case("axis=None", ops.cumprod, away_from_zero(2, 3, gap=0.5)),
    case("axis=1", lambda x: ops.cumprod(x, 1), away_from_zero(3, 4, gap=0.5)),
    case("axis=-2", lambda x: ops.cumprod(x, -2), away_from_zero(2, 3, 2, gap=0.5)),
    case("one-zero", lambda x: ops.cumprod(x, 1), with_zeros((3, 4), [1, 6])),
    case("two-zeros-in-a-lane", lambda x: ops.cumprod(x, -1), with_zeros((2, 4), [0, 2, 7])),
    case("zeros,axis=None", ops.cumprod, with_zeros((2, 3), [3])),
    case("size-1-axis", lambda x: ops.cumprod(x, 0), normal(1, 3)),
    case("0-d", ops.cumprod, normal()),
)

# Shapes.
row(
    "reshape",
    case("(3,4)->(2,-1)", lambda x: ops.reshape(x, (2, -1)), normal(3, 4)),
    case("(1,1)->()", lambda x: ops.reshape(x, ()), normal(1, 1)),
    case("()->(1,1,1)", lambda x: ops.reshape(x, (1, 1, 1)), normal()),
    case("method", lambda x: x.reshape(4, 3) * x.reshape((4, 3)), normal(2, 6)),
)
row("ravel", case("(2,3,4)", ops.ravel, normal(2, 3, 4)), case("0-d", ops.ravel, normal()))
row("atleast_1d", case("0-d", ops.atleast_1d, normal()), case("(3,)", ops.atleast_1d, normal(3)))
row(
    "transpose",
    case("default", ops.transpose, normal(2, 3, 4)),
    case("axes", lambda x: ops.transpose(x, (1, 2, 0)), normal(2, 3, 4)),
    case("negative-axes", lambda x: ops.transpose(x, (-1, 0, -2)), normal(2, 3, 4)),
    case(".T", lambda x: x.T, normal(3, 4)),
)
row(
    "moveaxis",
    case("0->-1", lambda x: ops.moveaxis(x, 0, -1), normal(2, 3, 4)),
    case("tuples", lambda x: ops.moveaxis(x, (0, 1), (-1, 0)), normal(2, 3, 4, 1)),
)
row("swapaxes", case("0,-1", lambda x: ops.swapaxes(x, 0, -1), normal(2, 3, 4)))
row(
    "expand_dims",
    case("axis=0", lambda x: ops.expand_dims(x, 0), normal(3, 4)),
    case("axis=-1", lambda x: ops.expand_dims(x, -1), normal(3, 4)),
    case("axis=(0,-1)", lambda x: ops.expand_dims(x, (0, -1)), normal(3)),
    case("0-d", lambda x: ops.expand_dims(x, 0), normal()),
)
row(
    "squeeze",
    case("all", ops.squeeze, normal(1, 3, 1)),
    case("axis=-1", lambda x: ops.squeeze(x, -1), normal(1, 3, 1)),
    case("axis=(0,2)", lambda x: ops.squeeze(x, (0, 2)), normal(1, 3, 1)),
    case("to-0-d", ops.squeeze, normal(1, 1)),
)
row(
    "broadcast_to",
    case("(3,1)->(2,3,4)", lambda x: ops.broadcast_to(x, (2, 3, 4)), normal(3, 1)),
    case("(4,)->(3,4)", lambda x: ops.broadcast_to(x, (3, 4)), normal(4)),
    case("()->(2,3)", lambda x: ops.broadcast_to(x, (2, 3)), normal()),
)
row(
    "sum_to",
    case("(2,3,4)->(3,1)", lambda x: ops.sum_to(x, (3, 1)), normal(2, 3, 4)),
    case("(3,4)->(4,)", lambda x: ops.sum_to(x, (4,)), normal(3, 4)),
    case("(2,3)->()", lambda x: ops.sum_to(x, ()), normal(2, 3)),
)
row(
    "unbroadcast",
    case("(2,3,4)->(3,1)", lambda g: ops.unbroadcast(g, numpy.zeros((3, 1))), normal(2, 3, 4)),
    case("same-shape", lambda g: ops.unbroadcast(g, numpy.zeros((3,))) * g, normal(3)),
)
row(
    "concatenate",
    case("axis=0", lambda a, b: ops.concatenate([a, b]), normal(2, 3), normal(4, 3)),
    case(
        "axis=-1,three",
        lambda a, b, c: ops.concatenate((a, b, c), axis=-1),
        normal(2, 1),
        normal(2, 3),
        normal(2, 2),
    ),
    case("same-operand-twice", lambda a: ops.concatenate([a, a * 2], 1), normal(2, 3)),
)
row(
    "stack",
    case("axis=0", lambda a, b: ops.stack([a, b]), normal(2, 3), normal(2, 3)),
    case("axis=-1,three", lambda a, b, c: ops.stack([a, b, c], axis=-1), normal(3), normal(3), normal(3)),
    case("0-d", lambda a, b: ops.stack([a, b]), normal(), normal()),
)
row(
    "split",
    case("sections", lambda x: ops.split(x, 3, axis=1), normal(2, 6)),
    case("indices,axis=-1", lambda x: ops.split(x, [1, 3], axis=-1), normal(2, 5)),
    case("one-piece-used", lambda x: ops.split(x, 2)[1], normal(4, 2)),
)
row(
    "tile",
    case("int", lambda x: ops.tile(x, 3), normal(2, 3)),
    case("reps-longer", lambda x: ops.tile(x, (2, 1, 3)), normal(2, 3)),
    case("reps-shorter", lambda x: ops.tile(x, (2,)), normal(2, 1, 3)),
    case("0-d", lambda x: ops.tile(x, (2, 2)), normal()),
)
row(
    "repeat",
    case("axis=None", lambda x: ops.repeat(x, 2), normal(2, 3)),
    case("axis=1,array", lambda x: ops.repeat(x, numpy.array([1, 0, 3]), axis=1), normal(2, 3)),
    case("axis=-1", lambda x: ops.repeat(x, 2, axis=-1), normal(2, 2, 3)),
)
row(
    "flip",
    case("axis=None", ops.flip, normal(2, 3)),
    case("axis=-1", lambda x: ops.flip(x, -1), normal(2, 3, 4)),
    case("axis=(0,2)", lambda x: ops.flip(x, (0, 2)), normal(2, 3, 4)),
)
_PAD_WIDTHS = ((1, 2), (0, 2))
row(
    "pad",
    case("constant", lambda x: ops.pad(x, _PAD_WIDTHS), normal(3, 4)),
    case("constant-values", lambda x: ops.pad(x, 1, constant_values=2.5), normal(2, 3)),
    case("constant-1d", lambda x: ops.pad(x, (2,)), normal(3)),
    *[
        case(mode, lambda x, _m=mode: ops.pad(x, _PAD_WIDTHS, mode=_m), normal(3, 4))
        for mode in ("edge", "reflect", "symmetric", "wrap")
    ],
    case("reflect-wide", lambda x: ops.pad(x, 4, mode="reflect"), normal(3)),
)
row(
    "diagonal",
    case("square", ops.diagonal, normal(3, 3)),
    case("offset=1", lambda x: ops.diagonal(x, 1), normal(3, 4)),
    case("offset=-1", lambda x: ops.diagonal(x, -1), normal(4, 3)),
    case("axes=(1,2)", lambda x: ops.diagonal(x, 0, 1, 2), normal(2, 3, 3)),
    case("axes=(-1,0)", lambda x: ops.diagonal(x, 0, -1, 0), normal(3, 2, 4)),
)

# Indexing.
_MASK = _rng.uniform(size=(4, 5)) < 0.5
row(
    "getitem",
    case("slices,int,negative-step", lambda x: x[1:3, ::-1, 2], normal(4, 5, 6)),
    case("None,Ellipsis,negative-int", lambda x: ops.getitem(x, (None, Ellipsis, -1)), normal(4, 5, 6)),
    case("step=-2", lambda x: x[..., ::-2], normal(4, 5)),
    case("int-array-repeats", lambda x: x[[0, 2, 2, 0, -1]], normal(4, 5)),
    case(
        "int-arrays-around-slice",
        lambda x: x[numpy.array([[0, 1], [3, 3]]), :, numpy.array([1, 1])],
        normal(4, 5, 6),
    ),
    case("bool-mask", lambda x: x[_MASK], normal(4, 5, 6)),
    case("bool-mask-axis1", lambda x: x[:, numpy.array([True, False, True, True, False])], normal(4, 5)),
    case("to-0-d", lambda x: x[1, -2, 3], normal(4, 5, 6)),
    case("0-d-input", lambda x: ops.getitem(x, (None, Ellipsis)), normal()),
    case("iteration", lambda x: sum(v * (i + 1) for i, v in enumerate(x)), normal(3, 2)),
)
row(
    "scatter_add",
    case(
        "repeated-indices",
        lambda a, v: ops.scatter_add(a, numpy.array([0, 2, 0, 4, 2]), v),
        normal(5, 3),
        normal(5, 3),
    ),
    case(
        "basic-broadcast-values",
        lambda a, v: ops.scatter_add(a, (slice(1, 4), slice(None, None, -1)), v),
        normal(5, 3),
        normal(3),
    ),
    case(
        "pairs-repeated",
        lambda a, v: ops.scatter_add(a, (numpy.array([1, 1, 0]), numpy.array([2, 2, 0])), v),
        normal(3, 4),
        normal(3),
    ),
    case("bool-mask", lambda a, v: ops.scatter_add(a, _MASK, v), normal(4, 5), normal(int(_MASK.sum()))),
    case("0-d-values", lambda a, v: ops.scatter_add(a, [1, 1, 3], v), normal(4, 2), normal()),
    case("nonlinear", lambda a, v: ops.scatter_add(a * a, [0, 0], v * a[1]), normal(2, 3), normal(3)),
)
row(
    "take",
    case("axis=None", lambda x: ops.take(x, [3, 0, 3]), normal(2, 3)),
    case("axis=1,2-d-indices", lambda x: ops.take(x, numpy.array([[0, 2], [2, 2]]), axis=1), normal(2, 3, 2)),
    case("axis=-1", lambda x: ops.take(x, [1, 1, 0], axis=-1), normal(2, 3)),
)

# Linear algebra.
row(
    "matmul",
    case("(3,4)@(4,5)", ops.matmul, normal(3, 4), normal(4, 5)),
    case("(4,)@(4,5)", ops.matmul, normal(4), normal(4, 5)),
    case("(3,4)@(4,)", ops.matmul, normal(3, 4), normal(4)),
    case("(4,)@(4,)", ops.matmul, normal(4), normal(4)),
    case("(2,3,4)@(4,5)", ops.matmul, normal(2, 3, 4), normal(4, 5)),
    case("(2,1,3,4)@(5,4,2)", ops.matmul, normal(2, 1, 3, 4), normal(5, 4, 2)),
    case("(4,)@(2,4,5)", ops.matmul, normal(4), normal(2, 4, 5)),
    case("(2,3,4)@(4,)", ops.matmul, normal(2, 3, 4), normal(4)),
    case("operator", lambda a, b: (a @ b) @ a, normal(3, 3), normal(3, 3)),
)
row(
    "dot",
    case("vec.vec", ops.dot, normal(4), normal(4)),
    case("mat.vec", ops.dot, normal(3, 4), normal(4)),
    case("mat.mat", ops.dot, normal(3, 4), normal(4, 2)),
    case("0-d.mat", ops.dot, normal(), normal(2, 3)),
)
row(
    "tensordot",
    case("axes=2", ops.tensordot, normal(2, 3, 4), normal(3, 4, 5)),
    case("axes=1", lambda a, b: ops.tensordot(a, b, 1), normal(2, 3), normal(3, 4)),
    case("axes=0", lambda a, b: ops.tensordot(a, b, 0), normal(2), normal(3)),
    case("axes-pairs", lambda a, b: ops.tensordot(a, b, ([1, 0], [0, -1])), normal(2, 3, 4), normal(3, 5, 2)),
)
row(
    "einsum",
    case("ij,jk->ik", lambda a, b: ops.einsum("ij,jk->ik", a, b), normal(2, 3), normal(3, 4)),
    case("implicit", lambda a, b: ops.einsum("ij,jk", a, b), normal(2, 3), normal(3, 4)),
    case("i,i", lambda a, b: ops.einsum("i,i", a, b), normal(4), normal(4)),
    case("ellipsis", lambda a, b: ops.einsum("...ij,...jk->...ik", a, b), normal(2, 2, 3), normal(3, 4)),
    case(
        "ellipsis-broadcast",
        lambda a, b: ops.einsum("...ij,...jk->...ik", a, b),
        normal(1, 2, 3),
        normal(4, 3, 5),
    ),
    case("ellipsis-implicit", lambda a: ops.einsum("i...->...", a), normal(3, 2, 2)),
    case("ii->i", lambda a: ops.einsum("ii->i", a), normal(3, 3)),
    case("ii", lambda a: ops.einsum("ii", a), normal(3, 3)),
    case("bii,bi->b", lambda a, b: ops.einsum("bii,bi->b", a, b), normal(2, 3, 3), normal(2, 3)),
    case(
        "three-operands",
        lambda a, b, c: ops.einsum("ij,jk,kl->il", a, b, c),
        normal(2, 3),
        normal(3, 4),
        normal(4, 2),
    ),
    case("outer", lambda a, b: ops.einsum("i,j->ij", a, b), normal(3), normal(2)),
    case("sum-and-permute", lambda a: ops.einsum("ijk->kj", a), normal(2, 3, 4)),
    case("size-1-broadcast", lambda a, b: ops.einsum("ij,ij->ij", a, b), normal(1, 3), normal(4, 3)),
)
row(
    "inv",
    case("(3,3)", ops.inv, well_conditioned(3, 3)),
    case("batch", ops.inv, well_conditioned(2, 3, 3)),
    case("(1,1)", ops.inv, well_conditioned(1, 1)),
)
row(
    "det",
    case("(3,3)", ops.det, well_conditioned(3, 3)),
    case("batch", ops.det, well_conditioned(2, 3, 3)),
    case("(1,1)", ops.det, well_conditioned(1, 1)),
)
row(
    "solve",
    case("vector-rhs", ops.solve, well_conditioned(3, 3), normal(3)),
    case("matrix-rhs", ops.solve, well_conditioned(3, 3), normal(3, 2)),
    case("batch-a,vector-rhs", ops.solve, well_conditioned(2, 3, 3), normal(3)),
    case("batch-a,matrix-rhs", ops.solve, well_conditioned(2, 3, 3), normal(3, 2)),
    case("batch-rhs", ops.solve, well_conditioned(3, 3), normal(2, 3, 2)),
    case("batch-both", ops.solve, well_conditioned(2, 3, 3), normal(2, 3, 1)),
)
row(
    "tril",
    case("(3,4)", ops.tril, normal(3, 4)),
    case("batch,k=1", lambda x: ops.tril(x, 1), normal(2, 3, 3)),
)
row(
    "triu",
    case("(4,3)", ops.triu, normal(4, 3)),
    case("batch,k=-1", lambda x: ops.triu(x, -1), normal(2, 3, 3)),
)
row(
    "solve_triangular",
    case("lower,vector-rhs", ops.solve_triangular, well_conditioned(3, 3), normal(3)),
    case(
        "upper,matrix-rhs",
        lambda a, b: ops.solve_triangular(a, b, lower=False),
        well_conditioned(3, 3),
        normal(3, 2),
    ),
    case("batch-a,matrix-rhs", ops.solve_triangular, well_conditioned(2, 3, 3), normal(3, 2)),
)


def symmetric_spread(*shape):
    """A (batch of) symmetric matrices with eigenvalues at least 0.5 apart (no ties)."""
    n = shape[-1]
    q, _ = numpy.linalg.qr(normal(*shape))
    values = numpy.arange(n) * 0.7 + _rng.uniform(0, 0.2, n)
    return q @ (values[:, None] * numpy.swapaxes(q, -1, -2))


def spread_singular(*shape):
    """A (batch of) matrices with singular values in [0.5, 2.6], at least 0.5 apart."""
    m, n = shape[-2:]
    k = min(m, n)
    u, _ = numpy.linalg.qr(normal(*shape[:-2], m, k))
    v, _ = numpy.linalg.qr(normal(*shape[:-2], n, k))
    s = 0.5 + numpy.arange(k)[::-1] * 0.7 + _rng.uniform(0, 0.2, k)
    return (u * s) @ numpy.swapaxes(v, -1, -2)


def _svd_invariants(a):
    """Functions of svd's outputs that do not depend on the signs LAPACK picks."""
    u, s, vh = ops.svd(a, full_matrices=False)
    return ops.matmul(u, ops.swapaxes(u, -1, -2)), s, ops.matmul(ops.swapaxes(vh, -1, -2), vh)


def _eigh_invariants(uplo):
    def f(a):
        w, v = ops.eigh(a, uplo)
        return w, ops.multiply(v, v)

    return f


row(
    "svd",
    case("square", _svd_invariants, spread_singular(3, 3)),
    case("tall", _svd_invariants, spread_singular(4, 2)),
    case("wide", _svd_invariants, spread_singular(2, 4)),
    case("batch", _svd_invariants, spread_singular(2, 3, 2)),
    case("values-only", lambda a: ops.svd(a, compute_uv=False), spread_singular(3, 4)),
    case("square,full", lambda a: ops.matmul(*ops.svd(a)[::2]), spread_singular(3, 3)),
)
row(
    "eigh",
    case("lower", _eigh_invariants("L"), symmetric_spread(3, 3)),
    case("upper,non-symmetric-input", _eigh_invariants("U"), normal(3, 3) * 0.1 + symmetric_spread(3, 3)),
    case("batch", _eigh_invariants("L"), symmetric_spread(2, 3, 3)),
)
row(
    "eigvalsh",
    case("lower", ops.eigvalsh, symmetric_spread(3, 3)),
    case("upper,batch", lambda a: ops.eigvalsh(a, "U"), symmetric_spread(2, 3, 3)),
)
row(
    "qr",
    case("square", ops.qr, well_conditioned(3, 3)),
    case("tall", ops.qr, spread_singular(4, 2)),
    case("batch", ops.qr, spread_singular(2, 3, 2)),
    case("r", lambda a: ops.qr(a, mode="r"), spread_singular(4, 3)),
    case("complete,square", lambda a: ops.qr(a, mode="complete"), well_conditioned(2, 2)),
)
row(
    "pinv",
    case("square", ops.pinv, well_conditioned(3, 3)),
    case("tall", ops.pinv, spread_singular(4, 2)),
    case("wide,batch", ops.pinv, spread_singular(2, 2, 3)),
)

# Private primitives and the public row that exercises each (checked by test_private_map_is_exercised).
PRIVATE_PRIMITIVE_ROWS = {
    "_astype": "astype",
    "_broadcast_to": "broadcast_to",
    "_concatenate": "concatenate",
    "_cumprod": "cumprod",
    "_cumsum": "cumsum",
    "_eigh": "eigh",
    "_eigvalsh": "eigvalsh",
    "_einsum": "einsum",
    "_flip": "flip",
    "_getitem": "getitem",
    "_pinv": "pinv",
    "_qr": "qr",
    "_logsumexp": "logsumexp",
    "_pad_constant": "pad",
    "_prod": "prod",
    "_reshape": "reshape",
    "_scatter_add": "scatter_add",
    "_solve": "solve",
    "_sum": "sum",
    "_sum_to": "sum_to",
    "_svd": "svd",
    "_tile": "tile",
    "_transpose": "transpose",
    "_triangle": "tril",
    "_where": "where",
}
# Primitives of the tape itself whose order-2 gradient checks live with the tape's tests.
CHECKED_ELSEWHERE = {
    "take_output": "tests/autodiff/test_engine.py (test_tuple_valued_primitive_...)",
    "accumulate": "tests/autodiff/test_engine.py (test_the_engines_own_sum_...)",
}
# Public names that are differentiable in no argument but are not non-differentiable primitives.
NOT_DIFFERENTIABLE = {"zeros_like", "ones_like", "full_like"}
# Known bugs outside fnet/ops (xfail strictly, so a fix shows up): "row-case id" -> reason.
KNOWN_FAILURES: dict[str, str] = {}


def _squared(f):
    """``f`` followed by ``y * y``: the cotangent reaching ``f``'s VJP then depends on the inputs,
    so order 2 also differentiates that VJP with respect to its cotangent (for linear ops, the
    plain check's second order is trivially zero)."""
    return lambda *args: fnet.tree.map(lambda y: y * y, f(*args))


def _params():
    for name, cases in TABLE.items():
        for case_id, f, args, options in cases:
            for variant, g in (("", f), ("-squared", _squared(f))):
                test_id = f"{name}-{case_id}{variant}"
                reason = KNOWN_FAILURES.get(f"{name}-{case_id}")
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                yield pytest.param(g, args, options, id=test_id, marks=marks)


@pytest.mark.parametrize("f, args, options", list(_params()))
def test_grads(f, args, options):
    assert all(a.dtype == numpy.float64 for a in args)
    check_grads(f, args, order=2, **options)


# -- completeness ----------------------------------------------------------------------------
OPS_PACKAGES = ("fnet.ops", "fnet.autodiff")


def ops_primitives() -> dict[str, Primitive]:
    """Every primitive defined by fnet.ops (and the autodiff core), by name.

    A primitive counts when a module of these packages binds it at top level, or when its
    ``impl`` was written in fnet.ops (primitives made by factories). Primitives defined in
    tests or doctests (``cube``) are neither, so they do not count. ``impl.__module__``
    alone is not enough: the unary ops use NumPy's ufuncs as ``impl``.
    """
    for package in OPS_PACKAGES:
        module = importlib.import_module(package)
        for info in pkgutil.iter_modules(module.__path__):
            importlib.import_module(f"{package}.{info.name}")
    found = {}
    for module_name, module in list(sys.modules.items()):
        if any(module_name == p or module_name.startswith(p + ".") for p in OPS_PACKAGES):
            for value in vars(module).values():
                if isinstance(value, Primitive):
                    found[value.name] = value
    for prim in all_primitives().values():
        if getattr(prim.impl, "__module__", "").startswith("fnet.ops"):
            found[prim.name] = prim
    return found


def test_ops_primitives_are_found():
    prims = ops_primitives()
    for name in ("add", "exp", "matmul", "_sum", "_getitem", "max", "equal"):
        assert name in prims
    assert "cube" not in prims  # the doctest primitive of fnet.autodiff.primitive


def _covering_row(name: str, obj) -> str | None:
    """The row covering a public name or primitive (aliases like abs share absolute's row)."""
    if name in TABLE:
        return name
    if name in PRIVATE_PRIMITIVE_ROWS:
        return PRIVATE_PRIMITIVE_ROWS[name]
    for row_name in TABLE:
        if getattr(ops, row_name) is obj:
            return row_name
    return None


def test_every_differentiable_primitive_has_a_row():
    missing = sorted(
        name
        for name, prim in ops_primitives().items()
        if prim.differentiable and _covering_row(name, prim) is None and name not in CHECKED_ELSEWHERE
    )
    assert not missing, (
        f"differentiable primitives with no row in the gradient table: {missing}; add a row to "
        "TABLE (keyed by the public op) and, for a private primitive, an entry to PRIVATE_PRIMITIVE_ROWS"
    )


def test_every_differentiable_public_op_has_a_row():
    missing = []
    for name in ops.__all__:
        obj = getattr(ops, name)
        if name in NOT_DIFFERENTIABLE or (isinstance(obj, Primitive) and not obj.differentiable):
            continue
        if _covering_row(name, obj) is None:
            missing.append(name)
    assert not missing, (
        f"differentiable names of fnet.ops.__all__ with no row in the gradient table: {missing}; "
        "add a row to TABLE, or list the name in NOT_DIFFERENTIABLE if it has no gradient"
    )


def test_table_has_no_stale_entries():
    prims = ops_primitives()
    assert set(TABLE) <= set(ops.__all__)
    for private, target in PRIVATE_PRIMITIVE_ROWS.items():
        assert private in prims and prims[private].differentiable, f"{private} is not a primitive any more"
        assert target in TABLE, f"{private} is mapped to {target}, which has no row"
    assert not NOT_DIFFERENTIABLE & set(TABLE)
    case_ids = {f"{name}-{c[0]}" for name, cases in TABLE.items() for c in cases}
    assert set(KNOWN_FAILURES) <= case_ids


def _recorded_primitives(f, args) -> set[str]:
    """Names of the primitives recorded when ``f(*args)`` runs on traced inputs."""
    level = new_level()
    inputs = [Tracer.input(a, level) for a in args]
    outputs = fnet.tree.leaves(f(*inputs))
    names, seen = set(), set()
    stack = [o for o in outputs if type(o) is Tracer]
    while stack:
        record = stack.pop().record
        if id(record) in seen:
            continue
        seen.add(id(record))
        if record.primitive is not None:
            names.add(record.primitive.name)
        stack.extend(p for p in record.parents if p is not None)
    return names


def test_rows_exercise_their_primitives():
    """Each primitive covered by a row is really recorded by that row's cases."""
    prims = ops_primitives()
    exercised = {
        name: set().union(*(_recorded_primitives(f, args) for _, f, args, _ in cases))
        for name, cases in TABLE.items()
    }
    wrong = [
        f"{name} (row {_covering_row(name, prim)})"
        for name, prim in prims.items()
        if prim.differentiable
        and _covering_row(name, prim)
        is not None  # missing rows: test_every_differentiable_primitive_has_a_row
        and name not in exercised[_covering_row(name, prim)]
    ]
    assert not wrong, f"rows that do not record the primitive they cover: {wrong}"
