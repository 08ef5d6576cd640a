"""Arithmetic and mathematical functions (Chainer's ``F.sum``, ``F.matmul``, ``F.erf``, ...), pure.

Most are Chainer's names, argument conventions and input checks laid over ``fnet.ops``, which
carries the math and its derivatives. Special functions (``erf``, ``digamma``, ``zeta``, ...) are
primitives computed by ``scipy.special`` (``cupyx.scipy.special`` on the GPU) whose VJPs are the
closed-form derivatives written with these same primitives, so derivatives of any order work.
``cholesky`` and ``fft`` / ``ifft`` are primitives with VJPs in fnet ops as well. The sparse
product ``sparse_matmul`` lives in ``fnet.functions.sparse`` and is re-exported here.
"""

from __future__ import annotations

import functools
import math
import string
import warnings

import numpy

from .. import backend, ops
from ..autodiff import primitive
from ..autodiff.tracer import shape_of as _shape
from ..autodiff.tracer import unbox_all
from ..errors import ArgumentTypeError, DTypeError, InvalidInputError, ShapeError, message
from ..ops.linalg import in_linalg_precision
from ..recording import opaque
from ._checks import check_axis, check_float, check_ndim, check_same_dtype, check_same_shape
from .array import pass_through
from .sparse import sparse_matmul

__all__ = [
    "absolute",
    "add",
    "arccos",
    "arcsin",
    "arctan",
    "arctan2",
    "arctanh",
    "argmax",
    "argmin",
    "average",
    "batch_det",
    "batch_inv",
    "batch_l2_norm_squared",
    "batch_matmul",
    "betaln",
    "bias",
    "ceil",
    "cholesky",
    "clip",
    "cos",
    "cosh",
    "cumprod",
    "cumsum",
    "det",
    "digamma",
    "einsum",
    "erf",
    "erfc",
    "erfcinv",
    "erfcx",
    "erfinv",
    "exp",
    "expm1",
    "fft",
    "fix",
    "floor",
    "fmod",
    "identity",
    "ifft",
    "inv",
    "lgamma",
    "linear_interpolate",
    "log",
    "log10",
    "log1p",
    "log2",
    "log_ndtr",
    "logsumexp",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "ndtr",
    "ndtri",
    "polygamma",
    "prod",
    "rsqrt",
    "scale",
    "sign",
    "sin",
    "sinh",
    "sparse_matmul",
    "sqrt",
    "square",
    "squared_difference",
    "sum",
    "sum_to",
    "tan",
    "tensordot",
    "zeta",
]

_Axis = int | tuple[int, ...] | None


# -- shared checks ---------------------------------------------------------------------------


def _check_floats(fn: str, **operands) -> None:
    """Every operand is a float array, and (for several) all have one dtype, as Chainer requires."""
    for name, x in operands.items():
        check_float(fn, name, x)
    names = list(operands)
    for other in names[1:]:
        check_same_dtype(fn, (names[0], other), operands[names[0]], operands[other])


def _is_int(a) -> bool:
    return isinstance(a, (int, numpy.integer)) and not isinstance(a, bool)


def _axes(fn: str, x, axis) -> tuple[int, ...] | None:
    """``axis`` (None, an int or a tuple of distinct ints) checked against ``x``, non-negative."""
    if axis is None:
        return None
    items = (axis,) if _is_int(axis) else axis
    if not isinstance(items, tuple) or not all(_is_int(a) for a in items):
        raise ArgumentTypeError(
            message(
                fn, f"expected axis to be None, an int or a tuple of ints, got {axis!r}", hint="e.g. axis=1"
            )
        )
    ndim = len(_shape(x))
    axes = tuple(check_axis(fn, "axis", int(a), ndim) for a in items)
    if len(set(axes)) != len(axes):
        raise InvalidInputError(
            message(fn, f"duplicate value in axis {axis!r}", {"x": x}, "name each axis once")
        )
    return axes


def _single_axis(fn: str, x, axis) -> int | None:
    """``axis`` (None or one int) checked against ``x``, non-negative."""
    if axis is None:
        return None
    if not _is_int(axis):
        raise ArgumentTypeError(
            message(fn, f"expected axis to be None or an int, got {axis!r}", hint="pass a single axis")
        )
    return check_axis(fn, "axis", int(axis), len(_shape(x)))


def _check_square(fn: str, a, ndim: int) -> None:
    """``a`` is a float array of ``ndim`` dimensions whose last two axes have one length."""
    check_float(fn, "a", a)
    layout = "(n, n)" if ndim == 2 else "(batch, n, n)"
    check_ndim(fn, "a", a, ndim, f"pass {'a single matrix' if ndim == 2 else 'a batch of matrices'} {layout}")
    shape = _shape(a)
    if shape[-1] != shape[-2]:
        raise ShapeError(
            message(fn, f"expected square matrices, got a.shape == {shape}", {"a": a}, f"a must be {layout}")
        )


# -- elementwise: Chainer's float-only wrappers of fnet.ops ----------------------------------
def _elementwise(op, name: str, doc: str):
    """A public function ``name(x)`` applying ``op`` to a float array ``x``."""

    def function(x):
        check_float(name, "x", x)
        return op(x)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


absolute = _elementwise(
    ops.absolute, "absolute", "Elementwise absolute value ``|x|``; its derivative is sign(x)."
)
arccos = _elementwise(ops.arccos, "arccos", "Elementwise inverse cosine, defined on ``[-1, 1]``.")
arcsin = _elementwise(ops.arcsin, "arcsin", "Elementwise inverse sine, defined on ``[-1, 1]``.")
arctan = _elementwise(ops.arctan, "arctan", "Elementwise inverse tangent, with values in ``(-pi/2, pi/2)``.")
arctanh = _elementwise(
    ops.arctanh, "arctanh", "Elementwise inverse hyperbolic tangent, defined on ``(-1, 1)``."
)
cos = _elementwise(ops.cos, "cos", "Elementwise cosine of angles in radians.")
cosh = _elementwise(ops.cosh, "cosh", "Elementwise hyperbolic cosine ``(e**x + e**-x) / 2``.")
exp = _elementwise(ops.exp, "exp", "Elementwise exponential ``e**x``.")
expm1 = _elementwise(ops.expm1, "expm1", "Elementwise ``e**x - 1``, accurate also for ``x`` near 0.")
log = _elementwise(ops.log, "log", "Elementwise natural logarithm.")
log10 = _elementwise(ops.log10, "log10", "Elementwise logarithm to base 10.")
log1p = _elementwise(ops.log1p, "log1p", "Elementwise ``log(1 + x)``, accurate also for ``x`` near 0.")
log2 = _elementwise(ops.log2, "log2", "Elementwise logarithm to base 2.")
sin = _elementwise(ops.sin, "sin", "Elementwise sine of angles in radians.")
sinh = _elementwise(ops.sinh, "sinh", "Elementwise hyperbolic sine ``(e**x - e**-x) / 2``.")
sqrt = _elementwise(
    ops.sqrt, "sqrt", "Elementwise square root; negative entries give NaN, as in NumPy and CuPy."
)
square = _elementwise(ops.square, "square", "Elementwise square ``x * x``.")
tan = _elementwise(ops.tan, "tan", "Elementwise tangent of angles in radians.")
rsqrt = _elementwise(
    lambda x: ops.reciprocal(ops.sqrt(x)),
    "rsqrt",
    "Elementwise reciprocal square root ``1 / sqrt(x)``, as used to normalize by a variance.",
)


def _piecewise_constant(op, name: str, doc: str):
    """A public function ``name(x)``: ``op`` on the values of ``x``, in ``x``'s dtype, no gradient."""

    def function(x):
        return ops.astype(op(x), unbox_all(x).dtype)  # recorded when traced (ONNX export records op)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


ceil = _piecewise_constant(
    ops.ceil,
    "ceil",
    "Elementwise ceiling (smallest integer not below ``x``), in ``x``'s dtype. It is piecewise "
    "constant, so it carries no gradient: the result is a plain array even for traced input.",
)
floor = _piecewise_constant(
    ops.floor,
    "floor",
    "Elementwise floor (largest integer not above ``x``), in ``x``'s dtype. It is piecewise "
    "constant, so it carries no gradient: the result is a plain array even for traced input.",
)
fix = _piecewise_constant(
    ops.fix,
    "fix",
    "Elementwise rounding toward zero, in ``x``'s dtype. It is piecewise constant, so it carries "
    "no gradient: the result is a plain array even for traced input.",
)
sign = _piecewise_constant(
    ops.sign,
    "sign",
    "Elementwise sign: -1 for negative entries, 0 for zeros, 1 for positive ones. Its derivative is "
    "zero wherever it exists, so, as in Chainer, the result carries no gradient (a plain array).",
)


def add(*xs):
    """Elementwise sum of any number of arrays, broadcast together (Chainer's n-ary ``F.add``): one
    argument is returned as it is, and with two the second may be a Python scalar. Each operand
    receives the output's cotangent, summed over the axes along which it was broadcast."""
    if not xs:
        raise InvalidInputError(
            message("add", "expected at least one operand, got none", hint="call add(x, y, ...)")
        )
    return functools.reduce(ops.add, xs)


def identity(*inputs):
    """Return the inputs unchanged: one array for one input, else a tuple. Each output is a node of
    its own whose gradient passes through as it is: Chainer code inserts ``F.identity`` as an
    explicit graph node (to hold a gradient of its own, or a hook)."""
    outputs = tuple(pass_through(x) for x in inputs)
    return outputs[0] if len(outputs) == 1 else outputs


def arctan2(x1, x2):
    """Elementwise angle of the point ``(x2, x1)``, i.e. ``arctan(x1 / x2)`` in the right quadrant;
    differentiable in both arguments, which broadcast together."""
    _check_floats("arctan2", x1=x1, x2=x2)
    return ops.arctan2(x1, x2)


def fmod(x, divisor):
    """Elementwise remainder of ``x / divisor`` with the sign of ``x`` (C's ``fmod``). Its gradient is
    1 for ``x`` and ``-fix(x / divisor)`` for the divisor, away from the jumps."""
    _check_floats("fmod", x=x, divisor=divisor)
    return ops.fmod(x, divisor)


def maximum(x1, x2):
    """Elementwise larger of two float arrays of one dtype (broadcast together); the gradient goes to
    the larger one, and to ``x1`` on ties."""
    _check_floats("maximum", x1=x1, x2=x2)
    return ops.maximum(x1, x2)


def minimum(x1, x2):
    """Elementwise smaller of two float arrays of one dtype (broadcast together); the gradient goes to
    the smaller one, and to ``x1`` on ties."""
    _check_floats("minimum", x1=x1, x2=x2)
    return ops.minimum(x1, x2)


def squared_difference(x1, x2):
    """Elementwise squared difference ``(x1 - x2) ** 2`` of two float arrays of one shape and dtype
    (the same function as Chainer's ``squared_error``, with other argument names)."""
    _check_floats("squared_difference", x1=x1, x2=x2)
    check_same_shape("squared_difference", ("x1", "x2"), x1, x2)
    return ops.square(ops.subtract(x1, x2))


def linear_interpolate(p, x, y):
    """Elementwise interpolation ``p * x + (1 - p) * y`` between ``x`` and ``y`` with weights ``p``;
    all three are float arrays of one shape and dtype, and all three receive gradients."""
    _check_floats("linear_interpolate", p=p, x=x, y=y)
    check_same_shape("linear_interpolate", ("p", "x"), p, x)
    check_same_shape("linear_interpolate", ("p", "y"), p, y)
    return ops.add(ops.multiply(p, x), ops.multiply(ops.subtract(1, p), y))


def _axis_broadcast(fn: str, x, y, axis: int):
    """``y`` reshaped so that its axes line up with axes ``axis, axis + 1, ...`` of ``x`` (Caffe's
    broadcasting), after checking that they match."""
    xs, ys = _shape(x), _shape(y)
    if not (_is_int(axis) and 0 <= axis <= len(xs) - len(ys) and xs[axis : axis + len(ys)] == ys):
        raise ShapeError(
            message(
                fn,
                f"expected y.shape == x.shape[axis:axis + y.ndim], got y.shape {ys} for x.shape {xs} "
                f"and axis={axis!r}",
                {"x": x, "y": y},
                "axis is the first axis of x that y covers (e.g. axis=1 for per-channel values)",
            )
        )
    return ops.reshape(y, (1,) * axis + ys + (1,) * (len(xs) - axis - len(ys)))


def bias(x, y, axis: int = 1):
    """Add ``y`` to ``x`` with Caffe-style broadcasting: the axes of ``y`` are matched to the axes of
    ``x`` starting at ``axis`` (``x`` of shape (100, 3, 40, 60) with ``y`` of shape (3, 40) and
    ``axis=1`` acts as ``y`` of shape (1, 3, 40, 1)), unlike NumPy's right-aligned broadcasting."""
    return ops.add(x, _axis_broadcast("bias", x, y, axis))


def scale(x, y, axis: int = 1):
    """Multiply ``x`` by ``y`` with Caffe-style broadcasting: the axes of ``y`` are matched to the axes
    of ``x`` starting at ``axis`` (see ``bias``); used for per-channel scaling such as a learned gain."""
    return ops.multiply(x, _axis_broadcast("scale", x, y, axis))


def clip(x, x_min: float | None, x_max: float | None):
    """Limit the entries of ``x`` to ``[x_min, x_max]`` (one bound may be None); the result has
    ``x``'s dtype. The gradient is 1 inside the interval and at its edges, 0 outside, as in
    Chainer."""
    check_float("clip", "x", x)
    if x_min is None and x_max is None:
        raise InvalidInputError(
            message(
                "clip", "expected at least one of x_min and x_max, got None for both", hint="pass a bound"
            )
        )
    if x_min is not None and x_max is not None and x_min >= x_max:
        raise InvalidInputError(
            message(
                "clip",
                f"expected x_min < x_max, got x_min={x_min!r} and x_max={x_max!r}",
                hint="swap the bounds",
            )
        )
    dtype = unbox_all(x).dtype  # the bounds take x's dtype, whatever theirs (as in Chainer)
    return ops.clip(x, *(None if b is None else dtype.type(b) for b in (x_min, x_max)))


# -- reductions and scans --------------------------------------------------------------------
def sum(x, axis: _Axis = None, keepdims: bool = False):
    """Sum of the entries of ``x`` over ``axis`` (an int, a tuple of ints, or None for all axes);
    ``keepdims`` keeps the reduced axes with length 1 so the result broadcasts against ``x``."""
    check_float("sum", "x", x)
    return ops.sum(x, _axes("sum", x, axis), keepdims)


def average(x, axis: _Axis = None, weights=None, keepdims: bool = False):
    """Mean of ``x`` over ``axis``, weighted by ``weights`` when given (also ``F.mean``).

    Without weights it is the plain mean. With weights, it is ``sum(x * w) / sum(w)``: ``weights``
    has the shape of ``x`` when ``axis`` is None, and the shape ``(x.shape[axis],)`` when ``axis``
    is one axis; a tuple of several axes cannot be combined with weights, as in Chainer.
    """
    check_float("average", "x", x)
    axes = _axes("average", x, axis)
    if weights is None:
        return ops.mean(x, axes, keepdims)
    _check_floats("average", x=x, weights=weights)
    if axes is not None and len(axes) > 1:
        raise InvalidInputError(
            message(
                "average",
                f"weights cannot be combined with a tuple of several axes, got axis={axis!r}",
                {"x": x, "weights": weights},
                "average over one axis at a time, or flatten those axes first",
            )
        )
    xs = _shape(x)
    expected = xs if axes is None else (xs[axes[0]],)
    if _shape(weights) != expected:
        raise ShapeError(
            message(
                "average",
                f"expected weights.shape == {expected}, got {_shape(weights)}",
                {"x": x, "weights": weights},
                "weights has x's shape when axis is None, else one weight per entry along axis",
            )
        )
    if axes is not None:
        weights = ops.reshape(weights, [d if i in axes else 1 for i, d in enumerate(xs)])
    total = ops.sum(ops.multiply(x, weights), axes, keepdims)
    return ops.divide(total, ops.sum(weights))


mean = average


def max(x, axis: _Axis = None, keepdims: bool = False):
    """Maximum of ``x`` over ``axis`` (an int, a tuple of ints, or None for all axes); the gradient
    flows to the maximal entries (shared equally among ties)."""
    check_float("max", "x", x)
    return ops.max(x, _axes("max", x, axis), keepdims)


def min(x, axis: _Axis = None, keepdims: bool = False):
    """Minimum of ``x`` over ``axis`` (an int, a tuple of ints, or None for all axes); the gradient
    flows to the minimal entries (shared equally among ties)."""
    check_float("min", "x", x)
    return ops.min(x, _axes("min", x, axis), keepdims)


def prod(x, axis: _Axis = None, keepdims: bool = False):
    """Product of the entries of ``x`` over ``axis``; its gradient is exact also where ``x`` has
    zeros (no division by the entries)."""
    check_float("prod", "x", x)
    return ops.prod(x, _axes("prod", x, axis), keepdims)


def logsumexp(x, axis: _Axis = None):
    """``log(sum(exp(x)))`` over ``axis``, computed after shifting by the maximum so that it neither
    overflows nor underflows; its gradient is the softmax of ``x`` over those axes."""
    check_float("logsumexp", "x", x)
    return ops.logsumexp(x, _axes("logsumexp", x, axis))


def _arg_extremum(op, name: str, doc: str):
    def function(x, axis: int | None = None):
        check_float(name, "x", x)
        index = op(x, _single_axis(name, x, axis))
        return ops.astype(index, numpy.int32)  # recorded when traced (ONNX export records argmax)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


argmax = _arg_extremum(
    ops.argmax,
    "argmax",
    "Index of the maximum of ``x`` along ``axis`` (over the flattened array when None), as int32 "
    "like Chainer; the first one wins among ties. An index has no gradient: the result is a plain array.",
)
argmin = _arg_extremum(
    ops.argmin,
    "argmin",
    "Index of the minimum of ``x`` along ``axis`` (over the flattened array when None), as int32 "
    "like Chainer; the first one wins among ties. An index has no gradient: the result is a plain array.",
)


def cumsum(x, axis: int | None = None):
    """Running sum of ``x`` along ``axis`` (over the flattened array when None); the gradient is the
    reversed running sum of the cotangent."""
    check_float("cumsum", "x", x)
    return ops.cumsum(x, _single_axis("cumsum", x, axis))


def cumprod(x, axis: int | None = None):
    """Running product of ``x`` along ``axis`` (over the flattened array when None); the gradient is
    exact also where ``x`` has zeros."""
    check_float("cumprod", "x", x)
    return ops.cumprod(x, _single_axis("cumprod", x, axis))


def sum_to(x, shape: tuple[int, ...]):
    """Sum ``x`` over the axes along which an array of ``shape`` would have been broadcast to
    ``x.shape``, so the result has ``shape``: the adjoint of ``broadcast_to``."""
    return ops.sum_to(x, tuple(shape))


def batch_l2_norm_squared(x):
    """Squared L2 norm of each example: ``x`` is ``(batch, ...)`` and the result, of shape
    ``(batch,)``, sums the squares of all other axes (no reduction over the batch)."""
    check_float("batch_l2_norm_squared", "x", x)
    shape = _shape(x)
    if len(shape) < 2:
        raise ShapeError(
            message(
                "batch_l2_norm_squared",
                f"expected x.ndim >= 2, got {len(shape)}",
                {"x": x},
                "the first axis is the batch; reshape a single vector to (1, n)",
            )
        )
    return ops.sum(ops.square(ops.reshape(x, (shape[0], -1))), axis=1)


# -- linear algebra --------------------------------------------------------------------------
def _check_product(fn: str, a, b) -> None:
    """``a @ b`` is defined: float operands of one dtype, matching contracted and batch axes."""
    _check_floats(fn, a=a, b=b)
    sa, sb = _shape(a), _shape(b)
    for name, s, x in (("a", sa, a), ("b", sb, b)):
        if not s:
            raise ShapeError(
                message(fn, f"expected {name}.ndim >= 1, got 0", {name: x}, "use multiply for scalars")
            )
    k_b = sb[-2] if len(sb) > 1 else sb[0]
    problem = None
    if sa[-1] != k_b:
        problem = f"the contracted axes do not match: a has {sa[-1]} columns, b has {k_b} rows"
    else:
        try:
            numpy.broadcast_shapes(sa[:-2], sb[:-2])
        except ValueError:
            problem = f"the batch shapes {sa[:-2]} and {sb[:-2]} cannot be broadcast together"
    if problem is not None:
        raise ShapeError(
            message(
                fn,
                problem,
                {"a": a, "b": b},
                "check transa/transb, the operands' order, and the leading (batch) axes",
            )
        )


def _transpose_last(x, flag: bool):
    return ops.swapaxes(x, -1, -2) if flag and len(_shape(x)) > 1 else x


def matmul(a, b, transa: bool = False, transb: bool = False):
    """Matrix product of ``a`` and ``b`` with NumPy's ``matmul`` rules: 1-D operands are vectors,
    operands of more than two axes are stacks of matrices on their last two axes, broadcast
    together. ``transa`` / ``transb`` transpose each matrix of that operand first (no-op on 1-D)."""
    a, b = _transpose_last(a, transa), _transpose_last(b, transb)
    _check_product("matmul", a, b)
    return ops.matmul(a, b)


def batch_matmul(a, b, transa: bool = False, transb: bool = False):
    """Product of two batches of matrices, Chainer's deprecated form of ``matmul``: a 3-D operand is
    ``B`` matrices, a 2-D one ``(B, N)`` is ``B`` column vectors ``N x 1``; the result is 3-D.
    It warns with a DeprecationWarning, as Chainer does; use ``matmul``."""
    warnings.warn("batch_matmul is deprecated. Use matmul instead.", DeprecationWarning, stacklevel=2)
    for name, x in (("a", a), ("b", b)):
        check_ndim("batch_matmul", name, x, (2, 3), "pass (B, M, N) matrices or (B, N) column vectors")
    a = _transpose_last(ops.reshape(a, _shape(a)[:2] + (-1,)), transa)
    b = _transpose_last(ops.reshape(b, _shape(b)[:2] + (-1,)), transb)
    _check_product("batch_matmul", a, b)
    return ops.matmul(a, b)


def tensordot(a, b, axes=2):
    """Sum of products over the given axes of ``a`` and ``b``, NumPy's ``tensordot``: ``axes`` is the
    number of trailing axes of ``a`` contracted with as many leading axes of ``b``, or a pair of
    axis lists; the free axes of ``a`` come first in the result."""
    _check_floats("tensordot", a=a, b=b)
    return ops.tensordot(a, b, axes)


_EINSUM_LETTERS = string.ascii_uppercase + string.ascii_lowercase


def _einsum_term(sublist) -> str:
    """A sublist of ints and Ellipsis, NumPy's alternative einsum notation, as letters."""
    letters = []
    for item in sublist:
        if item is Ellipsis:
            letters.append("...")
        elif _is_int(item) and 0 <= item < len(_EINSUM_LETTERS):
            letters.append(_EINSUM_LETTERS[item])
        else:
            raise InvalidInputError(
                message(
                    "einsum",
                    f"sublists must hold ints in [0, {len(_EINSUM_LETTERS)}) or Ellipsis, got {item!r}",
                    hint="e.g. einsum(x, [0, 1], y, [1, 2], [0, 2])",
                )
            )
    return "".join(letters)


def einsum(*operands):
    """Einstein summation, in both of NumPy's forms: ``einsum('ij,jk->ik', a, b)`` and
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])``. ``...`` stands for batch axes, the same in every
    operand, and an explicit output keeps them (as in Chainer, nothing is broadcast and ``...``
    is not summed over); without an output, the result keeps the letters used once, in
    alphabetical order. Differentiable in every operand."""
    if not operands:
        raise InvalidInputError(message("einsum", "expected subscripts and operands, got nothing"))
    if isinstance(operands[0], str):
        subscripts, arrays = operands[0], operands[1:]
    else:
        arrays = operands[0:-1:2] if len(operands) % 2 else operands[0::2]
        terms = [_einsum_term(s) for s in operands[1::2][: len(arrays)]]
        subscripts = ",".join(terms)
        if len(operands) % 2:
            subscripts += "->" + _einsum_term(operands[-1])
    inputs, arrow, output = subscripts.replace(" ", "").partition("->")
    n_terms = len(inputs.split(","))
    if n_terms != len(arrays):
        raise InvalidInputError(
            message(
                "einsum",
                f"expected {n_terms} operands for subscripts {subscripts!r}, got {len(arrays)}",
                hint="write one comma-separated term per operand",
            )
        )
    bad = sorted(set(output.replace("...", "")) - set(inputs))
    if bad:
        raise InvalidInputError(
            message(
                "einsum",
                f"output subscripts {bad} do not appear in the inputs of {subscripts!r}",
                hint="each output letter must name an axis of some operand",
            )
        )
    for i, x in enumerate(arrays):
        check_float("einsum", f"operands[{i}]", x)
    _check_einsum_axes(subscripts, inputs.split(","), arrow, output, arrays)
    return ops.einsum(subscripts, *arrays)


def _check_einsum_axes(subscripts: str, terms: list, arrow: str, output: str, arrays) -> None:
    """Chainer's rules for einsum: each letter has one length, ``...`` stands for the same axes in
    every operand (nothing is broadcast), and an explicit output keeps ``...`` exactly when the
    inputs have it (summing over ``...`` is refused)."""
    has_ellipsis = any("..." in term for term in terms)
    if arrow and has_ellipsis != ("..." in output):
        raise InvalidInputError(
            message(
                "einsum",
                f"expected '...' in the output of {subscripts!r} exactly when the inputs have it",
                hint="write '...' on both sides, or on neither (Chainer does not sum over '...')",
            )
        )
    lengths: dict = {}
    batch = None
    for i, (term, x) in enumerate(zip(terms, arrays)):
        shape = _shape(x)
        head, dots, tail = term.partition("...")
        n_batch = len(shape) - len(head) - len(tail)
        if n_batch < 0 or (n_batch and not dots):
            raise ShapeError(
                message(
                    "einsum",
                    f"operand {i} has {len(shape)} axes for the term {term!r}",
                    {f"operands[{i}]": x},
                    "write one letter per axis (or '...' for leading batch axes)",
                )
            )
        for letter, length in [*zip(head, shape), *zip(tail, shape[len(shape) - len(tail) :])]:
            if lengths.setdefault(letter, length) != length:
                raise ShapeError(
                    message(
                        "einsum",
                        f"axis {letter!r} has lengths {lengths[letter]} and {length} in {subscripts!r}",
                        {f"operands[{i}]": x},
                        "einsum does not broadcast, as in Chainer: give each letter one length",
                    )
                )
        if dots:
            here = shape[len(head) : len(head) + n_batch]
            if batch is not None and here != batch:
                raise ShapeError(
                    message(
                        "einsum",
                        f"'...' stands for axes {batch} and {here} in {subscripts!r}",
                        {f"operands[{i}]": x},
                        "einsum does not broadcast, as in Chainer: '...' is the same axes in every operand",
                    )
                )
            batch = here


def inv(a):
    """Inverse of one square matrix ``a`` of shape ``(n, n)``; float16 is computed in float32. Its
    gradient is ``-inv(a).T @ g @ inv(a).T``; a singular matrix is an error."""
    _check_square("inv", a, 2)
    return ops.inv(a)


def batch_inv(a):
    """Inverse of each matrix of a batch ``a`` of shape ``(m, n, n)``; float16 is computed in float32.
    A singular matrix in the batch is an error."""
    _check_square("batch_inv", a, 3)
    return ops.inv(a)


def det(a):
    """Determinant of one square matrix ``a`` of shape ``(n, n)``, a scalar; float16 is computed in
    float32. Its gradient is ``det(a) * inv(a).T``, so it needs an invertible ``a``."""
    _check_square("det", a, 2)
    return ops.det(a)


def batch_det(a):
    """Determinants of a batch ``a`` of square matrices ``(m, n, n)``, a vector of length ``m``;
    float16 is computed in float32."""
    _check_square("batch_det", a, 3)
    return ops.det(a)


@primitive
def _cholesky(a):
    return in_linalg_precision(backend.xp(a).linalg.cholesky)(a)


@_cholesky.defexplain
def _explain_cholesky(error, a):
    return InvalidInputError(
        message(
            "cholesky",
            f"a is not symmetric positive definite ({error})",
            {"a": a},
            "a must be symmetric with positive eigenvalues, e.g. x @ x.T + eps * I",
        )
    )


def _lower_half_diagonal(like):
    """The lower triangle of ones with the diagonal halved: a constant of ``like``'s dtype and device."""
    value = unbox_all(like)
    n = value.shape[-1]
    mask = numpy.tril(numpy.ones((n, n), dtype=value.dtype)) - value.dtype.type(0.5) * numpy.eye(
        n, dtype=value.dtype
    )
    return backend.get_device_from_array(value).send(mask)


@_cholesky.defvjp
def _cholesky_vjp(g, lower, a):
    # With a = L L^T: P = tril(L^T g) with its diagonal halved, S = L^-T P L^-1, and the gradient
    # is the symmetric part of S (Murray, 2016). Triangular systems are solved, not inverted.
    lower_t = ops.swapaxes(lower, -1, -2)
    phi = ops.multiply(ops.matmul(lower_t, g), _lower_half_diagonal(lower))
    left = ops.solve(lower_t, phi)  # L^-T P
    s = ops.swapaxes(ops.solve(lower_t, ops.swapaxes(left, -1, -2)), -1, -2)  # (L^-T P) L^-1
    return ops.multiply(ops.add(s, ops.swapaxes(s, -1, -2)), 0.5)


def cholesky(a):
    """Cholesky factor of a symmetric positive-definite matrix ``a`` of shape ``(n, n)``: the lower
    triangular ``L`` with ``L @ L.T == a``. Only the lower triangle of ``a`` is read; the gradient
    is symmetric and differentiable again. float16 is computed in float32."""
    _check_square("cholesky", a, 2)
    return _cholesky(a)


# -- Fourier transforms ----------------------------------------------------------------------
@primitive
def _fft(x, *, inverse):
    # x stacks the real and imaginary parts on axis 0; the transform runs along the last axis
    xp = backend.xp(x)
    y = (xp.fft.ifft if inverse else xp.fft.fft)(x[0] + 1j * x[1])
    return xp.stack([y.real, y.imag]).astype(x.dtype, copy=False)


# The DFT matrix F is symmetric, so the gradient F^H g is conj(F conj(g)); with the parts stacked,
# conjugation is swapping them up to a sign, which gives: flip, transform, flip back.
_fft.defvjp(lambda g, ans, x, *, inverse: ops.flip(_fft(ops.flip(g, 0), inverse=inverse), 0))


def _fourier(fn: str, x, inverse: bool):
    if not (isinstance(x, (tuple, list)) and len(x) == 2):
        raise InvalidInputError(
            message(
                fn,
                f"expected x to be a pair (real, imag), got {type(x).__name__}",
                hint=f"pass the parts separately, e.g. {fn}((x.real, x.imag))",
            )
        )
    real, imag = x
    _check_floats(fn, real=real, imag=imag)
    check_same_shape(fn, ("real", "imag"), real, imag)
    if not _shape(real):
        raise ShapeError(
            message(fn, "expected real.ndim >= 1, got 0", {"real": real}, "transform a 1-D array")
        )
    y = _fft(ops.stack([real, imag]), inverse=inverse)
    return ops.getitem(y, 0), ops.getitem(y, 1)


def fft(x):
    """Discrete Fourier transform along the last axis of a complex array given as a pair
    ``(real, imag)`` of float arrays of one shape; returns the pair ``(real, imag)`` of the result."""
    return _fourier("fft", x, inverse=False)


def ifft(x):
    """Inverse discrete Fourier transform (normalized by ``1/n``) along the last axis of a complex
    array given as a pair ``(real, imag)``; returns the pair ``(real, imag)`` of the result."""
    return _fourier("ifft", x, inverse=True)


# -- special functions -----------------------------------------------------------------------
def _special(name: str):
    """A primitive applying ``scipy.special.<name>`` (``cupyx.scipy.special`` on the GPU) to its
    operands; the result has the dtype of the last operand (float16 is computed in float32)."""

    @opaque  # on a device a captured step calls it whole: cupyx's kernels take device arrays only
    def impl(*args):
        xp = backend.xp(*args)
        if xp is numpy:
            import scipy.special as module
        else:  # pragma: no cover - needs a GPU
            import cupyx.scipy.special as module
        args = [xp.asarray(a) for a in args]  # CuPy's kernels take arrays only (n of polygamma)
        dtype = args[-1].dtype
        args = [a.astype(numpy.float32) if a.dtype == numpy.float16 else a for a in args]
        return xp.asarray(getattr(module, name)(*args), dtype=dtype)

    impl.__name__ = name
    return primitive(impl, name=f"special.{name}")


_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)

_erf = _special("erf")
_erfc = _special("erfc")
_erfcx = _special("erfcx")
_erfinv = _special("erfinv")
_erfcinv = _special("erfcinv")
_ndtr = _special("ndtr")
_ndtri = _special("ndtri")
_log_ndtr = _special("log_ndtr")
_lgamma = _special("gammaln")
_betaln = _special("betaln")
_digamma = _special("digamma")
_polygamma = _special("polygamma")
_zeta = _special("zeta")


def _gaussian(x, scale: float):
    """``scale * exp(-x**2)``, the derivative of the error functions up to ``scale``."""
    return ops.multiply(ops.exp(ops.negative(ops.square(x))), scale)


_erf.defvjp(lambda g, ans, x: ops.multiply(g, _gaussian(x, 2 / _SQRT_PI)))
_erfc.defvjp(lambda g, ans, x: ops.multiply(g, _gaussian(x, -2 / _SQRT_PI)))
_erfcx.defvjp(
    lambda g, ans, x: ops.multiply(g, ops.multiply(ops.subtract(ops.multiply(x, ans), 1 / _SQRT_PI), 2))
)
# the inverses: 1 / f'(y) at y = f^-1(x)
_erfinv.defvjp(lambda g, ans, x: ops.multiply(g, ops.multiply(ops.exp(ops.square(ans)), _SQRT_PI / 2)))
_erfcinv.defvjp(lambda g, ans, x: ops.multiply(g, ops.multiply(ops.exp(ops.square(ans)), -_SQRT_PI / 2)))
_ndtr.defvjp(lambda g, ans, x: ops.multiply(g, _gaussian(ops.multiply(x, math.sqrt(0.5)), 1 / _SQRT_2PI)))
_ndtri.defvjp(
    lambda g, ans, x: ops.multiply(g, ops.multiply(ops.exp(ops.multiply(ops.square(ans), 0.5)), _SQRT_2PI))
)
# d log(ndtr(x)) = pdf(x) / ndtr(x) = sqrt(2 / pi) / erfcx(-x / sqrt(2)), stable for very negative x
_log_ndtr.defvjp(
    lambda g, ans, x: ops.multiply(
        g, ops.divide(math.sqrt(2 / math.pi), _erfcx(ops.multiply(x, -math.sqrt(0.5))))
    )
)
_lgamma.defvjp(lambda g, ans, x: ops.multiply(g, _digamma(x)))


def _betaln_partial(g, a, b, wrt):
    """``g * d betaln(a, b) / d wrt`` for ``wrt`` one of ``a``, ``b``: digamma(wrt) - digamma(a + b)."""
    return ops.unbroadcast(ops.multiply(g, ops.subtract(_digamma(wrt), _digamma(ops.add(a, b)))), wrt)


_betaln.defvjp(
    lambda g, ans, a, b: _betaln_partial(g, a, b, a),
    lambda g, ans, a, b: _betaln_partial(g, a, b, b),
)
_digamma.defvjp(lambda g, ans, x: ops.multiply(g, _polygamma(1, x)))
_polygamma.defvjp(
    None, lambda g, ans, n, x: ops.unbroadcast(ops.multiply(g, _polygamma(ops.add(n, 1), x)), x)
)
_zeta.defvjp(
    None,
    lambda g, ans, s, q: ops.unbroadcast(
        ops.multiply(g, ops.multiply(_zeta(ops.add(s, 1), q), ops.negative(s))), q
    ),
)

erf = _elementwise(
    _erf, "erf", "Elementwise error function ``2 / sqrt(pi) * integral of exp(-t**2) from 0 to x``."
)
erfc = _elementwise(
    _erfc, "erfc", "Elementwise complementary error function ``1 - erf(x)``, accurate where erf is near 1."
)
erfcx = _elementwise(
    _erfcx,
    "erfcx",
    "Elementwise scaled complementary error function ``exp(x**2) * erfc(x)``, which stays finite "
    "for large ``x`` where ``erfc`` underflows.",
)
erfinv = _elementwise(_erfinv, "erfinv", "Elementwise inverse of the error function, defined on ``(-1, 1)``.")
erfcinv = _elementwise(
    _erfcinv, "erfcinv", "Elementwise inverse of the complementary error function, defined on ``(0, 2)``."
)
ndtr = _elementwise(
    _ndtr, "ndtr", "Elementwise cumulative distribution function of the standard normal distribution."
)
ndtri = _elementwise(
    _ndtri,
    "ndtri",
    "Elementwise inverse of ``ndtr``: the standard normal quantile of a probability in ``(0, 1)``.",
)
log_ndtr = _elementwise(
    _log_ndtr,
    "log_ndtr",
    "Elementwise logarithm of ``ndtr``, accurate also far in the lower tail where ``ndtr`` underflows.",
)
lgamma = _elementwise(
    _lgamma,
    "lgamma",
    "Elementwise logarithm of the absolute value of the gamma function; its derivative is digamma.",
)
digamma = _elementwise(
    _digamma,
    "digamma",
    "Elementwise digamma function, the derivative of ``lgamma``; its own derivative is ``polygamma(1, x)``.",
)


def betaln(a, b):
    """Elementwise logarithm of the absolute value of the beta function ``B(a, b) =
    gamma(a) * gamma(b) / gamma(a + b)``, with broadcasting; differentiable in both (``d/da`` is
    ``digamma(a) - digamma(a + b)``). More accurate than the sum of three ``lgamma`` for large
    arguments."""
    _check_floats("betaln", a=a, b=b)
    return _betaln(a, b)


def polygamma(n, x):
    """Elementwise polygamma function, the ``n``-th derivative of digamma (``n == 0`` is digamma).
    ``n`` is an integer array (or int), broadcast with ``x``; only ``x`` is differentiable."""
    check_float("polygamma", "x", x)
    n = unbox_all(n)
    if not (_is_int(n) or getattr(n, "dtype", numpy.dtype(float)).kind in "iu"):
        raise DTypeError(
            message(
                "polygamma",
                f"expected n to be an integer array, got {getattr(n, 'dtype', type(n).__name__)}",
                {"n": n},
                "the order of the derivative is an integer, e.g. numpy.array(1, numpy.int32)",
            )
        )
    return _polygamma(n, x)


def zeta(x, q):
    """Hurwitz zeta function ``sum over k >= 0 of (k + q) ** -x``, elementwise with broadcasting.
    As in Chainer it is differentiable in ``q`` only: ``x`` is held constant (taken in ``q``'s
    dtype), and the derivative is ``-x * zeta(x + 1, q)``."""
    check_float("zeta", "q", q)
    value = unbox_all(q)
    return _zeta(backend.xp(value).asarray(unbox_all(x), dtype=value.dtype), q)
