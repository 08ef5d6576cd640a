"""Dtype rules for operands of binary operations.

Arrays have strong dtypes: mixing float32 and float64 arrays is an error (as in Chainer), since
a silent upcast doubles memory and hides a bug. Python scalars and NumPy scalars are weak: they
take the array's dtype; so are a device's 0-d arrays, which CuPy gives where NumPy gives a
scalar (a reduction's result), so that a step behaves alike on both. An integer or boolean
array meeting a float array is cast to the float dtype. NumPy's own ufuncs dispatch to CuPy
through ``__array_ufunc__``, so calling them directly is both fast on the CPU and correct on
the GPU.
"""

from __future__ import annotations

import numpy

from ..backend import check_same_device, xp
from ..errors import DTypeError, message

__all__ = ["binary_operands", "strict_float_operands"]

_NEP50 = int(numpy.__version__.split(".")[0]) >= 2  # NumPy 2 already treats Python scalars as weak
_PY_SCALARS = (bool, int, float, complex)


# Types whose values go with a NumPy array: NumPy's arrays and scalars, Python's scalars (a set,
# so that the device check costs one lookup on the hot path).
_HOST_TYPES = frozenset(
    {numpy.ndarray, *_PY_SCALARS, *(numpy.dtype(code).type for code in numpy.typecodes["All"])}
)


def _weak_to(scalar, dtype):
    """A weak scalar cast to an array's dtype where that keeps its value's kind."""
    if dtype.kind in "fc" and not isinstance(scalar, complex):
        if _is_device_scalar(scalar):
            return scalar.astype(dtype)  # it stays on its device
        return dtype.type(scalar)
    return scalar


def _is_device_scalar(x) -> bool:
    """A 0-d array that is not NumPy's: CuPy's stand-in for a NumPy scalar."""
    return type(x) not in _HOST_TYPES and getattr(x, "ndim", None) == 0 and xp(x) is not numpy


def _is_weak(x) -> bool:
    return isinstance(x, _PY_SCALARS) or isinstance(x, numpy.generic)


def binary_operands(op: str, x, y):
    """``(x, y)`` ready for a NumPy binary operation under fnet's dtype rules; a ``DeviceError``
    if they are arrays on different devices (e.g. a NumPy and a CuPy array)."""
    tx, ty = type(x), type(y)
    if tx is not ty and (tx not in _HOST_TYPES or ty not in _HOST_TYPES):  # else: one device
        check_same_device(op, {"x": x, "y": y})
    dx = getattr(x, "dtype", None)
    dy = getattr(y, "dtype", None)
    if dx is dy:  # the same dtype, or two Python scalars
        return x, y
    if _NEP50 and (dx is None or dy is None):  # NumPy 2 treats Python scalars as weak itself
        return x, y
    return _resolve(op, x, y, dx, dy)


def _resolve(op: str, x, y, dx, dy):
    weak_x = dx is None or isinstance(x, numpy.generic) or _is_device_scalar(x)
    weak_y = dy is None or isinstance(y, numpy.generic) or _is_device_scalar(y)
    if weak_x and weak_y:  # a NumPy scalar is strong next to a Python scalar
        if dx is None and dy is not None:
            return _weak_to(x, dy), y
        if dy is None and dx is not None:
            return x, _weak_to(y, dx)
        return x, y
    if weak_x:
        return (_weak_to(x, dy) if (dx is not None or not _NEP50) else x), y
    if weak_y:
        return x, (_weak_to(y, dx) if (dy is not None or not _NEP50) else y)
    if dx == dy:
        return x, y
    kx, ky = dx.kind, dy.kind
    if kx in "fc" and ky in "fc":
        raise DTypeError(
            message(
                op,
                f"operands have different float dtypes, {dx} and {dy}; fnet does not upcast silently",
                {"x": x, "y": y},
                f"cast one of them explicitly, e.g. y.astype(numpy.{dx}) or x.astype(numpy.{dy})",
            )
        )
    if kx in "fc" and ky in "biu":
        return x, y.astype(dx)
    if ky in "fc" and kx in "biu":
        return x.astype(dy), y
    return x, y


def strict_float_operands(op: str, names: tuple[str, ...], *arrays) -> None:
    """Raise a DTypeError if the float arrays among ``arrays`` do not share one dtype."""
    dtypes = {a.dtype for a in arrays if getattr(a, "dtype", None) is not None and a.dtype.kind in "fc"}
    if len(dtypes) > 1:
        raise DTypeError(
            message(
                op,
                f"operands have different float dtypes: {', '.join(sorted(str(d) for d in dtypes))}",
                dict(zip(names, arrays)),
                "cast them to one dtype first, e.g. with .astype(numpy.float32)",
            )
        )
