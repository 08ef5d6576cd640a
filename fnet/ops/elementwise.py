"""Elementwise operations with NumPy's names and broadcasting, and their VJPs in fnet ops
(``unbroadcast`` sums a cotangent back to the shape of its operand)."""

from __future__ import annotations

import math

import numpy

from ..autodiff import primitive
from ..autodiff.tracer import unbox_all
from ..backend import check_same_device
from ..errors import ShapeError, message
from ._dtypes import binary_operands
from .broadcast import _sum_to
from .compare import equal, greater, greater_equal, less_equal, logical_not

__all__ = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "floor_divide",
    "negative",
    "power",
    "square",
    "sqrt",
    "reciprocal",
    "exp",
    "expm1",
    "log",
    "log1p",
    "log2",
    "log10",
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "arctan2",
    "sinh",
    "cosh",
    "tanh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "absolute",
    "abs",
    "sign",
    "maximum",
    "minimum",
    "clip",
    "where",
    "floor",
    "ceil",
    "fix",
    "fmod",
    "astype",
    "unbroadcast",
]


def _explain_broadcast(name: str):
    def explain(error, x, y, *rest, **params):
        if "broadcast" not in str(error):
            return None
        return ShapeError(
            message(
                name,
                f"operand shapes {numpy.shape(x)} and {numpy.shape(y)} cannot be broadcast together",
                {"x": x, "y": y},
                "aligned from the right, each axis must match or be 1; reshape or expand_dims one operand",
            )
        )

    return explain


def _binary(ufunc, name: str | None = None):
    """A primitive applying a binary NumPy ufunc under fnet's dtype rules."""
    name = name or ufunc.__name__

    def impl(x, y):
        x, y = binary_operands(name, x, y)
        return ufunc(x, y)

    impl.__name__ = name
    impl.__doc__ = f"``numpy.{ufunc.__name__}`` with broadcasting; differentiable in both operands."
    prim = primitive(impl, name=name)
    prim.defexplain(_explain_broadcast(name))
    return prim


def _unary(ufunc, name: str | None = None, differentiable: bool = True):
    name = name or ufunc.__name__
    prim = primitive(ufunc, name=name, differentiable=differentiable)
    prim.__doc__ = f"``numpy.{ufunc.__name__}``, elementwise."
    return prim


add = _binary(numpy.add)
subtract = _binary(numpy.subtract)
multiply = _binary(numpy.multiply)
divide = _binary(numpy.true_divide, "divide")
true_divide = divide
power = _binary(numpy.power)
maximum = _binary(numpy.maximum)
minimum = _binary(numpy.minimum)
arctan2 = _binary(numpy.arctan2)
fmod = _binary(numpy.fmod)


def unbroadcast(g, x):
    """The cotangent ``g`` summed back to the shape of the operand ``x`` (an array or tracer)."""
    shape = x.shape
    if g.shape != shape:
        g = _sum_to(g, shape=shape)
    if g.dtype != x.dtype and x.dtype.kind in "fc":  # a weak NumPy scalar took the other's dtype
        g = astype(g, x.dtype)
    return g


add.defvjp(
    lambda g, ans, x, y: unbroadcast(g, x),
    lambda g, ans, x, y: unbroadcast(g, y),
)
subtract.defvjp(
    lambda g, ans, x, y: unbroadcast(g, x),
    lambda g, ans, x, y: unbroadcast(negative(g), y),
)
multiply.defvjp(
    lambda g, ans, x, y: unbroadcast(multiply(g, y), x),
    lambda g, ans, x, y: unbroadcast(multiply(g, x), y),
)
divide.defvjp(
    lambda g, ans, x, y: unbroadcast(divide(g, y), x),
    lambda g, ans, x, y: unbroadcast(negative(multiply(g, divide(ans, y))), y),
)


def _power_vjp_base(g, ans, x, y):
    # y * x**(y - 1), with the exponent moved off y - 1 where y == 0 (the term is 0 there),
    # so that x == 0 gives 0 rather than 0 * inf
    if isinstance(y, (int, float)):
        exponent = 1 if y == 0 else y - 1
    else:
        exponent = where(equal(y, 0), 1, subtract(y, 1))
    return unbroadcast(multiply(g, multiply(y, power(x, exponent))), x)


def _power_vjp_exponent(g, ans, x, y):
    positive = greater(x, 0)
    safe_log = log(where(positive, x, 1))
    return unbroadcast(multiply(g, where(positive, multiply(ans, safe_log), 0)), y)


power.defvjp(_power_vjp_base, _power_vjp_exponent)


def _select_vjp(pick):
    """VJP of maximum/minimum for one operand: ``pick(x, y)`` says where x won (ties go to x).

    The cotangent is multiplied by the boolean mask, as Chainer's ReLU does: one pass, and a
    NaN cotangent stays NaN everywhere.
    """

    def vjp_x(g, ans, x, y):
        return unbroadcast(multiply(g, pick(x, y)), x)

    def vjp_y(g, ans, x, y):
        return unbroadcast(multiply(g, logical_not(pick(x, y))), y)

    return vjp_x, vjp_y


maximum.defvjp(*_select_vjp(greater_equal))
minimum.defvjp(*_select_vjp(less_equal))


def _arctan2_denominator(x, y):
    return add(square(x), square(y))


arctan2.defvjp(  # arctan2(y1, x2): d/dy1 = x2 / r^2, d/dx2 = -y1 / r^2
    lambda g, ans, y1, x2: unbroadcast(multiply(g, divide(x2, _arctan2_denominator(x2, y1))), y1),
    lambda g, ans, y1, x2: unbroadcast(negative(multiply(g, divide(y1, _arctan2_denominator(x2, y1)))), x2),
)
fmod.defvjp(
    lambda g, ans, x, y: unbroadcast(g, x),
    lambda g, ans, x, y: unbroadcast(negative(multiply(g, fix(divide(x, y)))), y),
)

negative = _unary(numpy.negative)
square = _unary(numpy.square)
sqrt = _unary(numpy.sqrt)
reciprocal = _unary(numpy.reciprocal)
exp = _unary(numpy.exp)
expm1 = _unary(numpy.expm1)
log = _unary(numpy.log)
log1p = _unary(numpy.log1p)
log2 = _unary(numpy.log2)
log10 = _unary(numpy.log10)
sin = _unary(numpy.sin)
cos = _unary(numpy.cos)
tan = _unary(numpy.tan)
arcsin = _unary(numpy.arcsin)
arccos = _unary(numpy.arccos)
arctan = _unary(numpy.arctan)
sinh = _unary(numpy.sinh)
cosh = _unary(numpy.cosh)
tanh = _unary(numpy.tanh)
arcsinh = _unary(numpy.arcsinh)
arccosh = _unary(numpy.arccosh)
arctanh = _unary(numpy.arctanh)
absolute = _unary(numpy.absolute)
abs = absolute
# Piecewise constant: their derivative is zero wherever it exists, so they record nothing.
sign = _unary(numpy.sign, differentiable=False)
floor = _unary(numpy.floor, differentiable=False)
ceil = _unary(numpy.ceil, differentiable=False)
fix = _unary(numpy.trunc, name="fix", differentiable=False)  # numpy.fix: deprecated in NumPy 2.5
floor_divide = primitive(
    lambda x, y: numpy.floor_divide(*binary_operands("floor_divide", x, y)),
    name="floor_divide",
    differentiable=False,
)
floor_divide.__doc__ = "``numpy.floor_divide`` (the ``//`` operator); piecewise constant, no gradient."

negative.defvjp(lambda g, ans, x: negative(g))
square.defvjp(lambda g, ans, x: multiply(g, multiply(2, x)))
sqrt.defvjp(lambda g, ans, x: divide(g, multiply(2, ans)))
reciprocal.defvjp(lambda g, ans, x: negative(multiply(g, square(ans))))
exp.defvjp(lambda g, ans, x: multiply(g, ans))
expm1.defvjp(lambda g, ans, x: multiply(g, add(ans, 1)))
log.defvjp(lambda g, ans, x: divide(g, x))
log1p.defvjp(lambda g, ans, x: divide(g, add(x, 1)))
log2.defvjp(lambda g, ans, x: divide(g, multiply(x, math.log(2.0))))
log10.defvjp(lambda g, ans, x: divide(g, multiply(x, math.log(10.0))))
sin.defvjp(lambda g, ans, x: multiply(g, cos(x)))
cos.defvjp(lambda g, ans, x: negative(multiply(g, sin(x))))
tan.defvjp(lambda g, ans, x: multiply(g, add(square(ans), 1)))
arcsin.defvjp(lambda g, ans, x: divide(g, sqrt(subtract(1, square(x)))))
arccos.defvjp(lambda g, ans, x: negative(divide(g, sqrt(subtract(1, square(x))))))
arctan.defvjp(lambda g, ans, x: divide(g, add(square(x), 1)))
sinh.defvjp(lambda g, ans, x: multiply(g, cosh(x)))
cosh.defvjp(lambda g, ans, x: multiply(g, sinh(x)))
tanh.defvjp(lambda g, ans, x: multiply(g, subtract(1, square(ans))))
arcsinh.defvjp(lambda g, ans, x: divide(g, sqrt(add(square(x), 1))))
arccosh.defvjp(lambda g, ans, x: divide(g, sqrt(subtract(square(x), 1))))
arctanh.defvjp(lambda g, ans, x: divide(g, subtract(1, square(x))))
absolute.defvjp(lambda g, ans, x: multiply(g, sign(x)))


def _is_zero(x) -> bool:
    return isinstance(x, (int, float, numpy.generic)) and x == 0


def _is_float_array(x) -> bool:
    return getattr(x, "dtype", None) is not None and x.dtype.kind == "f"


def _select_by_mask(condition, x, y):
    """``where(condition, x, y)`` from products with the boolean mask: ~10x faster than
    numpy.where, whose branches mispredict on random masks. None where that would not be exact
    (a non-boolean condition, branches that are not float arrays of one dtype or a zero
    scalar, or infinities and NaNs in the masked-out places)."""
    if getattr(condition, "dtype", None) is None or condition.dtype.kind != "b":
        return None
    with numpy.errstate(invalid="ignore"):
        if _is_zero(y) and _is_float_array(x):
            out = x * condition
        elif _is_zero(x) and _is_float_array(y):
            out = y * ~condition
        elif _is_float_array(x) and _is_float_array(y) and x.dtype == y.dtype:
            out = x * condition + y * ~condition
        else:
            return None
    return None if numpy.isnan(out).any() else out


@primitive
def _where(condition, x, y):
    if type(condition) is not type(x) or type(condition) is not type(y):
        check_same_device("where", {"condition": condition, "x": x, "y": y})
    x, y = binary_operands("where", x, y)
    out = _select_by_mask(condition, x, y)
    return numpy.where(condition, x, y) if out is None else out


_where.defvjp(
    None,
    lambda g, ans, c, x, y: unbroadcast(where(c, g, 0), x),
    lambda g, ans, c, x, y: unbroadcast(where(c, 0, g), y),
)


def where(condition, x, y):
    """Elements of ``x`` where ``condition`` holds, else of ``y``; differentiable in ``x`` and ``y``.

    A traced boolean condition (a comparison recorded for ONNX export) stays on the tape."""
    value = unbox_all(condition)
    return _where(condition if getattr(value, "dtype", None) == numpy.bool_ else value, x, y)


def clip(a, a_min, a_max):
    """``a`` limited to ``[a_min, a_max]`` (either bound may be None); the gradient passes inside."""
    if a_min is None and a_max is None:
        raise ValueError("clip: at least one of a_min and a_max must be given")
    out = a
    if a_min is not None:
        out = maximum(out, a_min)
    if a_max is not None:
        out = minimum(out, a_max)
    return out


@primitive
def _astype(x, *, dtype):
    return x.astype(dtype)


@_astype.defvjp
def _astype_vjp(g, ans, x, *, dtype):
    source = unbox_all(x).dtype
    return _astype(g, dtype=source) if source.kind in "fc" else None


def astype(x, dtype):
    """``x`` cast to ``dtype``; the gradient is cast back (integers get none)."""
    dtype = numpy.dtype(dtype)
    if unbox_all(x).dtype == dtype:
        return x
    return _astype(x, dtype=dtype)
