"""ChainerX's dtype rules: promotion of two arrays, and of an array with a Python scalar.

Arrays promote as NumPy's types do, except that an integer array meeting a float array takes the
float's dtype (int64 with float16 is float16). A scalar is weak: it keeps the array's dtype
unless it is of a higher kind (bool < int < float), when the result is that kind's default
(int32, float32). fnet's own binary ops refuse to mix float dtypes; ChainerX promotes, so the
routines cast their operands here first.
"""

from __future__ import annotations

import numpy

from ._errors import DtypeError

__all__ = ["all_dtypes", "check_dtype", "default_for", "result_type", "scalar_kind", "to_dtype"]

all_dtypes = tuple(
    numpy.dtype(name)
    for name in ("bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64")
)
_ALLOWED = frozenset(all_dtypes)
_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2}
_KIND_DEFAULT = {0: numpy.dtype(bool), 1: numpy.dtype("int32"), 2: numpy.dtype("float32")}


def to_dtype(spec) -> numpy.dtype:
    """``numpy.dtype(spec)``, for the nine dtypes ChainerX has (a DtypeError for the rest)."""
    dtype = numpy.dtype(spec)
    check_dtype("dtype", dtype)
    return dtype


def check_dtype(where: str, dtype) -> None:
    if dtype not in _ALLOWED:
        raise DtypeError(
            f"{where}: expected one of ChainerX's dtypes (bool, int8-64, uint8, float16-64), got {dtype}\n"
            "  hint: cast the data first, e.g. numpy.asarray(x, numpy.float32)"
        )


def scalar_kind(value) -> int | None:
    """The kind rank of a Python or NumPy scalar (0 bool, 1 int, 2 float), None for others."""
    if isinstance(value, (bool, numpy.bool_)):
        return 0
    if isinstance(value, (int, numpy.integer)):
        return 1
    if isinstance(value, (float, numpy.floating)):
        return 2
    return None


def result_type(*operands) -> numpy.dtype:
    """The dtype of a routine's result on ``operands``: dtypes (of arrays) and scalars."""
    arrays = [op for op in operands if isinstance(op, numpy.dtype)]
    if not arrays:
        return _KIND_DEFAULT[max(scalar_kind(op) for op in operands)]
    floats = [d for d in arrays if d.kind == "f"]
    if floats:
        result = floats[0]
        for dtype in floats[1:]:
            result = numpy.promote_types(result, dtype)
    else:
        result = arrays[0]
        for dtype in arrays[1:]:
            result = numpy.promote_types(result, dtype)
    rank = _KIND_RANK[result.kind]
    scalar_ranks = [scalar_kind(op) for op in operands if not isinstance(op, numpy.dtype)]
    top = max((r for r in scalar_ranks if r is not None), default=-1)
    return _KIND_DEFAULT[top] if top > rank else result


def default_for(value) -> numpy.dtype:
    """The default dtype of a Python scalar's kind: bool, int32 or float32."""
    return _KIND_DEFAULT[scalar_kind(value)]
