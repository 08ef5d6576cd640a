"""The makers of ChainerX routines from fnet's ops: one wrapper per kind of routine.

A routine unwraps its ndarray operands (checking that they share a device), applies ChainerX's
dtype rules (promotion, the dtypes it refuses), calls one fnet op and wraps the result. The
routine modules build their names from tables with these makers; ``method`` makes an ndarray
method of a routine.
"""

from __future__ import annotations

import contextlib

import numpy

from ... import ops
from ...autodiff import unbox_all
from ...errors import DTypeError, ShapeError, message
from . import _graph
from ._array import ndarray, unwrap, wrap
from ._device import get_default_device
from ._dtypes import result_type, scalar_kind
from ._errors import DimensionError, DtypeError

__all__ = [
    "unary",
    "binary",
    "reduction",
    "method",
    "cast_to",
    "dtype_error",
    "axis_error",
    "chainerx_errors",
]

_FLOAT32 = numpy.dtype("float32")
_INT64 = numpy.dtype("int64")


def dtype_error(name: str, what: str, hint: str) -> DtypeError:
    return DtypeError(message(f"chainerx.{name}", what, hint=hint))


def axis_error(name: str, axis, ndim: int) -> DimensionError:
    return DimensionError(
        message(
            f"chainerx.{name}",
            f"expected axes in [{-ndim}, {ndim}), got {axis}",
            hint=f"the array has {ndim} dimensions",
        )
    )


@contextlib.contextmanager
def chainerx_errors(name: str):
    """Within the block, fnet's and NumPy's errors about operands become ChainerX's: a dtype
    error a ``DtypeError``, a shape or size error (``ShapeError``, ``ValueError``) a
    ``DimensionError``; the message is kept, under the routine's name."""
    try:
        yield
    except DTypeError as error:
        raise DtypeError(f"chainerx.{name}: {error}") from error
    except ValueError as error:
        raise DimensionError(f"chainerx.{name}: {error}") from error


def cast_to(value, dtype):
    """``value`` (traced or not) as ``dtype``: a differentiable cast when it differs."""
    return value if unbox_all(value).dtype == dtype else ops.astype(value, dtype)


def _scalar(name: str, value, dtype):
    """A Python or NumPy scalar as a NumPy scalar of ``dtype`` (wrapping around as a cast does)."""
    if scalar_kind(value) is None:
        raise TypeError(
            message(f"chainerx.{name}", f"expected an ndarray or a scalar, got {type(value).__name__}")
        )
    return numpy.array(value).astype(dtype)[()]


def unary(name: str, op, *, floats: bool = False, no_bool: bool = False, keep_int: bool = False):
    """A routine of one array: ``floats`` computes non-float input as float32 (exp, sin);
    ``no_bool`` refuses bool arrays (negative)."""

    def routine(x):
        values, device = unwrap(name, (x,))
        value = values[0]
        dtype = unbox_all(value).dtype
        if no_bool and dtype.kind == "b":
            raise dtype_error(
                name, "expected a numeric array, got dtype bool", "use logical_not for booleans"
            )
        if floats and dtype.kind != "f":
            value = ops.astype(value, _FLOAT32)
        return wrap(op(value), device or get_default_device())

    routine.__name__ = name
    routine.__doc__ = f"``{name}`` of each element (fnet's ``{getattr(op, '__name__', name)}``)."
    return routine


def binary(
    name: str,
    op,
    *,
    no_bool: bool = False,
    bool_mix: bool = False,
    floats: bool = False,
    bool_scalar: bool = True,
):
    """A routine of two operands (arrays or scalars) promoted by ChainerX's rules: ``no_bool``
    refuses bool arrays (arithmetic), ``bool_mix`` a bool array with a numeric one
    (comparisons, maximum), ``floats`` computes integer results as float32 (true_divide),
    ``bool_scalar=False`` refuses bool scalars too (power)."""

    def routine(x1, x2):
        if type(x1) is ndarray and _graph.mode() is None:  # the fast path: nothing to promote
            dtype = unbox_all(x1._v).dtype
            if dtype.kind == "f" or not (no_bool or floats):
                if type(x2) is ndarray:
                    same = x2._device is x1._device and unbox_all(x2._v).dtype is dtype
                    other = x2._v
                else:
                    same = dtype.kind == "f" and type(x2) in (float, int)
                    other = x2
                if same:
                    try:
                        return wrap(op(x1._v, other), x1._device)
                    except (ShapeError, ValueError):
                        pass  # the full path below explains it
        values, device = unwrap(name, (x1, x2))
        operands = [v if type(o) is ndarray else o for v, o in zip(values, (x1, x2))]
        specs = [unbox_all(v).dtype if type(o) is ndarray else o for v, o in zip(values, (x1, x2))]
        if device is None:
            raise TypeError(
                message(f"chainerx.{name}", "expected at least one ndarray operand, got two scalars")
            )
        for spec in specs:
            if scalar_kind(spec) is None and not isinstance(spec, numpy.dtype):
                raise TypeError(message(f"chainerx.{name}", f"expected an ndarray or a scalar, got {spec!r}"))
        if no_bool and any(
            (s.kind == "b") if isinstance(s, numpy.dtype) else (not bool_scalar and scalar_kind(s) == 0)
            for s in specs
        ):
            raise dtype_error(
                name,
                f"expected numeric arrays, got dtypes {specs}",
                "cast bool arrays to a number dtype first",
            )
        kinds = {s.kind == "b" for s in specs if isinstance(s, numpy.dtype)}
        if bool_mix and len(kinds) == 2:
            raise dtype_error(
                name, f"expected two bool or two numeric arrays, got dtypes {specs}", "cast the bool array"
            )
        dtype = result_type(*specs)
        if floats and dtype.kind != "f":
            dtype = _FLOAT32
        operands = [
            cast_to(v, dtype) if isinstance(s, numpy.dtype) else _scalar(name, v, dtype)
            for v, s in zip(operands, specs)
        ]
        try:
            return wrap(op(*operands), device)
        except (ShapeError, ValueError) as error:
            if not isinstance(error, ShapeError) and "broadcast" not in str(error):
                raise
            shapes = [numpy.shape(unbox_all(v)) for v in operands]
            raise DimensionError(
                message(
                    f"chainerx.{name}",
                    f"operand shapes {shapes[0]} and {shapes[1]} cannot be broadcast together",
                    hint="aligned from the right, each axis must match or be 1",
                )
            ) from error

    routine.__name__ = name
    routine.__doc__ = f"``{name}`` of two arrays (or an array and a scalar), broadcast."
    return routine


def _axes(name: str, axis, ndim: int):
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
    normalized = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise axis_error(name, axis, ndim)
        normalized.append(a % ndim)
    if len(set(normalized)) != len(normalized):
        raise DimensionError(
            message(f"chainerx.{name}", f"expected distinct axes, got {axis}", hint="name each axis once")
        )
    return tuple(normalized)


def reduction(name: str, op, *, sum_dtype: bool = False, floats: bool = False, nonempty: bool = False):
    """A routine reducing ``a`` over ``axis`` (all axes for None) with ``keepdims``:
    ``sum_dtype`` sums bool and integers as int64, as ChainerX does; ``floats`` computes
    integers as float32 (mean); ``nonempty`` refuses to reduce zero elements (amax)."""

    def routine(a, axis=None, keepdims=False):
        values, device = unwrap(name, (a,))
        value = values[0]
        data = unbox_all(value)
        axes = _axes(name, axis, data.ndim)
        if nonempty:
            sizes = data.shape if axes is None else [data.shape[i] for i in axes]
            if 0 in sizes or data.size == 0 and axes is None:
                raise DimensionError(
                    message(
                        f"chainerx.{name}",
                        "expected a nonempty reduction, got zero elements",
                        hint="reduce over nonzero axes",
                    )
                )
        if sum_dtype and data.dtype.kind in "bui" and data.dtype != _INT64:  # (ChainerX has no uint64)
            value = ops.astype(value, _INT64)
        elif floats and data.dtype.kind != "f":
            value = ops.astype(value, _FLOAT32)
        return wrap(op(value, axis=axes, keepdims=keepdims), device)

    routine.__name__ = name
    routine.__doc__ = f"``{name}`` over ``axis`` (every axis when None)."
    return routine


def method(routine, *, reflected: bool = False):
    """An ndarray method calling ``routine`` with the array first (second when ``reflected``)."""
    if reflected:
        return lambda self, other: routine(other, self)
    return lambda self, *args, **kwargs: routine(self, *args, **kwargs)
