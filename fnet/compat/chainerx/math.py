"""Math routines (``chainerx.math``): arithmetic, exponents and logarithms, trigonometric and
hyperbolic functions, rounding, reductions, statistics, and the arithmetic operators.

Each name is made from a table row by a ``_routine`` maker around one fnet op; the operators
and methods of ndarray are installed from the same routines at the end.
"""

from __future__ import annotations

import builtins

import numpy

from ... import backend, ops
from ... import functions as F
from ...autodiff import unbox_all
from ...errors import message
from ._array import ndarray, raw, run, unwrap, wrap
from ._dtypes import scalar_kind
from ._errors import DtypeError
from ._routine import axis_error, binary, dtype_error, method, reduction, unary

__all__ = [
    # arithmetic
    "negative", "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power",
    "mod", "remainder", "fmod", "reciprocal", "bitwise_and", "bitwise_or", "bitwise_xor",
    "left_shift", "right_shift",
    # exponents and logarithms
    "exp", "exp2", "expm1", "log", "log10", "log2", "log1p", "logsumexp", "log_softmax", "softmax",
    # trigonometric and hyperbolic
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2",
    "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
    # rounding and misc
    "ceil", "floor", "sqrt", "square", "abs", "absolute", "fabs", "sign", "maximum", "minimum", "clip", "erf",
    # reductions and statistics
    "sum", "nansum", "amax", "amin", "max", "min", "cumsum", "mean", "var",
]  # fmt: skip


def _mod(a, b):
    """``numpy.mod`` from ``fmod``: the remainder takes the divisor's sign (differentiable)."""
    r = ops.fmod(a, b)
    raw_r, raw_b = unbox_all(r), unbox_all(b)
    fix = (raw_r != 0) & ((raw_r < 0) != (raw_b < 0))
    return ops.where(fix, ops.add(r, b), r) if fix.any() else r


def _bitwise(ufunc):
    def op(a, b):
        if unbox_all(a).dtype.kind == "f":
            raise dtype_error(
                ufunc.__name__, "expected integer or bool arrays, got float", "cast to an integer dtype"
            )
        return ufunc(unbox_all(a), unbox_all(b))

    return op


def _shift(name: str, ufunc):
    """A shift of integers: the result has the dtype of the array shifted (int64 for a scalar
    shifted by an array, as ChainerX's); bool and float operands are refused."""

    def routine(x1, x2):
        values, device = unwrap(name, (x1, x2))
        if device is None:
            raise TypeError(
                message(f"chainerx.{name}", "expected at least one ndarray operand, got two scalars")
            )
        data = [unbox_all(v) if type(x) is ndarray else v for v, x in zip(values, (x1, x2))]
        kinds = [d.dtype.kind if type(x) is ndarray else scalar_kind(d) for d, x in zip(data, (x1, x2))]
        if not all(k in ("i", "u", 1) for k in kinds):
            raise dtype_error(
                name,
                f"expected integer operands, got {_described(data)}",
                "cast bool and float operands to an integer dtype",
            )
        dtype = data[0].dtype if type(x1) is ndarray else numpy.dtype("int64")
        a, b = (
            d.astype(dtype, copy=False) if type(x) is ndarray else numpy.array(d).astype(dtype)[()]
            for d, x in zip(data, (x1, x2))
        )
        return wrap(ufunc(a, b).astype(dtype, copy=False), device)

    routine.__name__ = name
    routine.__doc__ = f"``{name}`` of integer operands (an array and an array or a scalar), broadcast."
    return routine


def _described(values) -> str:
    return " and ".join(str(v.dtype) if hasattr(v, "dtype") else type(v).__name__ for v in values)


def _exp2(x):
    return ops.power(unbox_all(x).dtype.type(2), x)


def _reciprocal(x):
    return ops.divide(unbox_all(x).dtype.type(1), x)


negative = unary("negative", ops.negative, no_bool=True)
add = binary("add", ops.add, no_bool=True)
subtract = binary("subtract", ops.subtract, no_bool=True)
multiply = binary("multiply", ops.multiply)
divide = true_divide = binary("divide", ops.divide, no_bool=True, floats=True)
floor_divide = binary("floor_divide", ops.floor_divide, no_bool=True)
power = binary("power", ops.power, no_bool=True, bool_scalar=False)
mod = remainder = binary("mod", _mod, no_bool=True)
fmod = binary("fmod", ops.fmod, no_bool=True)
reciprocal = unary("reciprocal", _reciprocal, floats=True)
bitwise_and = binary("bitwise_and", _bitwise(numpy.bitwise_and))
bitwise_or = binary("bitwise_or", _bitwise(numpy.bitwise_or))
bitwise_xor = binary("bitwise_xor", _bitwise(numpy.bitwise_xor))
left_shift = _shift("left_shift", numpy.left_shift)
right_shift = _shift("right_shift", numpy.right_shift)

exp = unary("exp", ops.exp, floats=True)
exp2 = unary("exp2", _exp2, floats=True)
expm1 = unary("expm1", ops.expm1, floats=True)
log = unary("log", ops.log, floats=True)
log10 = unary("log10", ops.log10, floats=True)
log2 = unary("log2", ops.log2, floats=True)
log1p = unary("log1p", ops.log1p, floats=True)
sin = unary("sin", ops.sin, floats=True)
cos = unary("cos", ops.cos, floats=True)
tan = unary("tan", ops.tan, floats=True)
arcsin = unary("arcsin", ops.arcsin, floats=True)
arccos = unary("arccos", ops.arccos, floats=True)
arctan = unary("arctan", ops.arctan, floats=True)
arctan2 = binary("arctan2", ops.arctan2, no_bool=True, floats=True)
sinh = unary("sinh", ops.sinh, floats=True)
cosh = unary("cosh", ops.cosh, floats=True)
tanh = unary("tanh", ops.tanh, floats=True)
arcsinh = unary("arcsinh", ops.arcsinh, floats=True)
arccosh = unary("arccosh", ops.arccosh, floats=True)
arctanh = unary("arctanh", ops.arctanh, floats=True)
erf = unary("erf", F.erf, floats=True)
ceil = unary("ceil", ops.ceil, floats=True)
floor = unary("floor", ops.floor, floats=True)
sqrt = unary("sqrt", ops.sqrt, floats=True)
square = unary("square", ops.square, no_bool=True)
abs = absolute = unary("absolute", ops.absolute, no_bool=True)  # noqa: A001 (ChainerX's name)
fabs = unary("fabs", ops.absolute, floats=True)
sign = unary("sign", ops.sign, no_bool=True)
maximum = binary("maximum", ops.maximum, bool_mix=True)
minimum = binary("minimum", ops.minimum, bool_mix=True)

sum = reduction("sum", ops.sum, sum_dtype=True)  # noqa: A001 (ChainerX's name)
amax = max = reduction("amax", ops.amax, nonempty=True)  # noqa: A001
amin = min = reduction("amin", ops.amin, nonempty=True)  # noqa: A001
mean = reduction("mean", ops.mean, floats=True)


def nansum(a, axis=None, keepdims=False) -> ndarray:
    """``sum`` with NaNs counted as zeros."""
    data = raw(a)
    if data.dtype.kind != "f":
        return sum(a, axis, keepdims)
    return sum(run("nansum", _nan_to_zero, a), axis, keepdims)


def _nan_to_zero(v):
    data = unbox_all(v)
    return ops.where(numpy.isnan(data), data.dtype.type(0), v)


def var(a, axis=None, keepdims=False) -> ndarray:
    """The variance over ``axis`` (every axis when None)."""
    return reduction("var", ops.var, floats=True)(a, axis, keepdims)


def cumsum(a, axis=None) -> ndarray:
    """The cumulative sum along ``axis`` (of the flattened array when None)."""
    data = raw(a)
    if axis is not None and not -data.ndim <= axis < builtins.max(data.ndim, 1):
        raise axis_error("cumsum", axis, data.ndim)
    if data.dtype.kind in "bui":  # integers sum as int64, as in ChainerX's sum
        a = a.astype("int64", copy=False)
    return run("cumsum", ops.cumsum, a, axis=axis)


def logsumexp(x, axis=None, keepdims=False) -> ndarray:
    return reduction("logsumexp", ops.logsumexp, floats=True)(x, axis, keepdims)


def log_softmax(x, axis=None) -> ndarray:
    """``x - logsumexp(x, axis)``: log-probabilities along ``axis`` (axis 1 when None, as
    ChainerX's)."""
    lse = logsumexp(x, 1 if axis is None else axis, keepdims=True)
    return subtract(x if x.dtype.kind == "f" else x.astype("float32"), lse)


def softmax(x, axis=None) -> ndarray:
    """Probabilities along ``axis`` (axis 1 when None)."""
    return exp(log_softmax(x, axis))


def clip(a, a_min, a_max) -> ndarray:
    """``a`` with its elements limited to ``[a_min, a_max]`` (either may be None)."""
    if a_min is None and a_max is None:
        raise ValueError(
            message("chainerx.clip", "expected a_min or a_max, got neither", hint="give at least one bound")
        )
    result = a
    if a_min is not None:
        result = maximum(result, a_min)
    if a_max is not None:
        result = minimum(result, a_max)
    return result


_IN_PLACE_UFUNCS = {"__iadd__": "add", "__isub__": "subtract", "__imul__": "multiply"}


def _in_place(routine, name: str):
    """An in-place operator: the result of ``routine`` written into the array's own data; an
    array operand of another dtype of an allowed kind is cast to the array's dtype first."""

    ufunc = _IN_PLACE_UFUNCS.get(name)

    def operator(self, other):
        self._check_in_place(name)
        if (
            ufunc is not None
            and type(other) is ndarray
            and other.dtype == self.dtype
            and self.dtype.kind in "iuf"
            and other.device == self.device
        ):  # computed into the array's own data, as ChainerX's in-place kernels do
            data = raw(self)
            getattr(backend.xp(data), ufunc)(data, raw(other), out=data)
            return self
        result = routine(self, other)
        into, got = self.dtype.kind, result.dtype.kind
        if (got == "f" and into != "f") or (into == "b" and got != "b"):
            raise DtypeError(
                message(
                    f"ndarray.{name}",
                    f"expected a result of the array's kind ({self.dtype}), got {result.dtype}: ChainerX "
                    "assigns no floats into an integer array, nor numbers into a bool array",
                    hint="use the out-of-place form, which promotes: a = a + b",
                )
            )
        if type(other) is ndarray and other.dtype != self.dtype:  # computed in the array's dtype
            result = routine(self, other.astype(self.dtype))
        raw(self)[...] = raw(result).astype(self.dtype, copy=False)  # ChainerX casts within a kind
        return self

    return operator


_OPERATORS = {
    "add": add, "sub": subtract, "mul": multiply, "truediv": true_divide, "floordiv": floor_divide,
    "pow": power, "mod": mod, "and": bitwise_and, "or": bitwise_or, "xor": bitwise_xor,
    "lshift": left_shift, "rshift": right_shift,
}  # fmt: skip
for _name, _routine in _OPERATORS.items():
    setattr(ndarray, f"__{_name}__", method(_routine))
    setattr(ndarray, f"__r{_name}__", method(_routine, reflected=True))
    setattr(ndarray, f"__i{_name}__", _in_place(_routine, f"__i{_name}__"))
ndarray.__neg__ = method(negative)
ndarray.__abs__ = method(absolute)
ndarray.__pos__ = lambda self: self
_METHODS = {"sum": sum, "max": amax, "min": amin, "mean": mean, "var": var, "clip": clip, "cumsum": cumsum}
for _name, _routine in _METHODS.items():
    setattr(ndarray, _name, method(_routine))
del _name, _routine
