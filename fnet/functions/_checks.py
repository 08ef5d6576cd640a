"""Input checks shared by the functions of ``fnet.functions``: each raises a typed fnet error
whose message names the function, the argument, what was expected, what came, and a fix."""

from __future__ import annotations

import numpy

from ..autodiff.tracer import unbox_all
from ..errors import ArgumentTypeError, DTypeError, InvalidInputError, ShapeError, message
from ..recording import opaque

__all__ = [
    "check_array",
    "check_ndim",
    "check_float",
    "check_same_shape",
    "check_same_dtype",
    "check_labels",
    "check_axis",
    "check_reduce",
]


def _value(x):
    return unbox_all(x)


def check_ndim(fn: str, name: str, x, ndims, hint: str | None = None) -> None:
    """``x.ndim`` must be one of ``ndims`` (an int, a tuple of ints, or a ``range``)."""
    allowed = (ndims,) if isinstance(ndims, int) else tuple(ndims)
    ndim = numpy.ndim(_value(x))
    if ndim not in allowed:
        expected = (
            " or ".join(str(n) for n in allowed) if len(allowed) < 6 else f"{allowed[0]}..{allowed[-1]}"
        )
        raise ShapeError(
            message(
                fn,
                f"expected {name}.ndim == {expected}, got {ndim}",
                {name: x},
                hint or f"reshape {name} to the documented layout",
            )
        )


def _dtype_name(x) -> str:
    dtype = getattr(x, "dtype", None)
    return str(dtype) if dtype is not None else type(x).__name__


def check_array(fn: str, name: str, x) -> None:
    """``x`` must be an array (of any dtype), not a list, tuple or Python scalar."""
    if getattr(_value(x), "dtype", None) is None:
        raise ArgumentTypeError(
            message(
                fn,
                f"expected {name} to be an array, got {type(_value(x)).__name__}",
                {name: x},
                f"make it an array first, e.g. numpy.asarray({name}) (or F.stack for a list of arrays)",
            )
        )


def check_float(fn: str, name: str, x) -> None:
    """``x`` must be a floating-point array."""
    dtype = getattr(_value(x), "dtype", None)
    if dtype is None or dtype.kind != "f":
        raise DTypeError(
            message(
                fn,
                f"expected {name} to be a float array, got {_dtype_name(_value(x))}",
                {name: x},
                f"cast it first, e.g. {name}.astype(numpy.float32)",
            )
        )


def check_same_shape(fn: str, names: tuple[str, str], x, y) -> None:
    """``x`` and ``y`` must have the same shape."""
    sx, sy = numpy.shape(_value(x)), numpy.shape(_value(y))
    if sx != sy:
        raise ShapeError(
            message(
                fn,
                f"expected {names[0]}.shape == {names[1]}.shape, got {sx} != {sy}",
                {names[0]: x, names[1]: y},
                "the two arguments are compared element by element; pass arrays of one shape",
            )
        )


def check_same_dtype(fn: str, names: tuple[str, str], x, y) -> None:
    """``x`` and ``y`` must have the same dtype (fnet never upcasts silently)."""
    dx, dy = _value(x).dtype, _value(y).dtype
    if dx != dy:
        raise DTypeError(
            message(
                fn,
                f"expected {names[0]}.dtype == {names[1]}.dtype, got {dx} != {dy}",
                {names[0]: x, names[1]: y},
                f"cast one of them, e.g. {names[1]}.astype({names[0]}.dtype)",
            )
        )


def check_labels(fn: str, name: str, t, n_classes: int | None, ignore_label: int | None = None) -> None:
    """``t`` must be an integer array of labels in ``[0, n_classes)`` (or ``ignore_label``);
    with ``n_classes`` None only the dtype is checked."""
    t = _value(t)
    dtype = getattr(t, "dtype", None)
    if dtype is None or dtype.kind not in "iu":
        raise DTypeError(
            message(
                fn,
                f"expected {name} to be an integer label array, got {_dtype_name(t)}",
                {name: t},
                f"pass class indices, e.g. {name}.astype(numpy.int32)",
            )
        )
    if n_classes is not None and t.size:
        _check_label_range(fn, name, t, n_classes, ignore_label)


@opaque  # a captured step checks its labels again on every replay
def _check_label_range(fn: str, name: str, t, n_classes: int, ignore_label: int | None) -> None:
    if 0 <= int(t.min()) and int(t.max()) < n_classes:
        return
    valid = t if ignore_label is None else t[t != ignore_label]
    if valid.size and (int(valid.min()) < 0 or int(valid.max()) >= n_classes):
        bad = int(valid.min()) if int(valid.min()) < 0 else int(valid.max())
        raise InvalidInputError(
            message(
                fn,
                f"label {bad} in {name} is out of range: expected 0 <= {name} < {n_classes}"
                + ("" if ignore_label is None else f" or {name} == {ignore_label} (ignore_label)"),
                {name: t},
                "check the number of classes of the scores, or mark unused entries with ignore_label",
            )
        )


def check_axis(fn: str, name: str, axis: int, ndim: int) -> int:
    """``axis`` must be an int (not a bool) indexing one of ``ndim`` axes; returns it as a
    non-negative int."""
    if isinstance(axis, bool) or not isinstance(axis, (int, numpy.integer)):
        raise ArgumentTypeError(
            f"{fn}: expected {name} to be an int, got {axis!r}\n"
            f"  hint: pass a single axis as an int in [{-ndim}, {ndim - 1}]"
        )
    if not -ndim <= axis < ndim:
        raise ShapeError(
            f"{fn}: {name}={axis} is out of bounds for an array of {ndim} dimensions\n"
            f"  hint: use a value in [{-ndim}, {ndim - 1}]"
        )
    return axis % ndim


def check_reduce(fn: str, reduce: str, allowed: tuple[str, ...]) -> None:
    """``reduce`` must be one of the reduction options ``allowed`` (Chainer raises ValueError too)."""
    if reduce not in allowed:
        options = ", ".join(repr(option) for option in allowed)
        raise InvalidInputError(
            f"{fn}: expected reduce to be one of {options}, got {reduce!r}\n"
            "  hint: reduce='no' keeps one value per example; the other options reduce them to a scalar"
        )
