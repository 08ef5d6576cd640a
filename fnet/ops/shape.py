"""Shape operations: reshape, transpose, joining, splitting, tiling, padding, and the gathers
built on ``getitem`` (take, repeat, diagonal).

The closed pair here is ``concatenate`` / slicing; ``reshape`` and ``transpose`` are their own
kind; tiling sums back through ``sum_to`` (in :mod:`fnet.ops.broadcast`).
"""

from __future__ import annotations

import operator

import numpy

from .. import backend
from ..autodiff import primitive
from ..autodiff.tracer import shape_of as _shape
from ..autodiff.tracer import unbox_all
from ..errors import ArgumentTypeError, InvalidInputError, ShapeError, message
from .broadcast import sum_to
from .indexing import getitem

__all__ = [
    "reshape",
    "ravel",
    "transpose",
    "moveaxis",
    "swapaxes",
    "expand_dims",
    "squeeze",
    "concatenate",
    "stack",
    "split",
    "tile",
    "repeat",
    "flip",
    "pad",
    "diagonal",
    "atleast_1d",
    "take",
]


def _normalize_axes(axis, ndim: int, op: str) -> tuple[int, ...]:
    axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
    out = []
    for a in axes:
        try:
            a = operator.index(a)  # ints, NumPy ints and bools, as NumPy takes
        except TypeError:
            raise ArgumentTypeError(
                f"{op}: expected each axis to be an int, got {a!r}\n  hint: pass axes as ints, e.g. (0, 2)"
            ) from None
        if not -ndim <= a < ndim:
            raise ShapeError(
                f"{op}: axis {a} is out of bounds for an array of {ndim} dimensions\n"
                f"  hint: use an axis in [{-ndim}, {ndim - 1}]"
            )
        out.append(a % ndim)
    return tuple(out)


@primitive
def _reshape(x, *, shape):
    return x.reshape(shape)


_reshape.defvjp(lambda g, ans, x, *, shape: _reshape(g, shape=_shape(x)))


@_reshape.defexplain
def _explain_reshape(error, x, *, shape):
    return ShapeError(
        message(
            "reshape",
            f"cannot reshape {numpy.size(x)} elements into shape {tuple(shape)}",
            {"x": x},
            "the product of the new shape must equal x.size; use -1 for one inferred axis",
        )
    )


def reshape(x, shape):
    """``x`` with a new shape of the same size (one entry may be -1)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if _shape(x) == shape:
        return x
    return _reshape(x, shape=shape)


def ravel(x):
    """``x`` flattened to one dimension."""
    return reshape(x, (-1,))


def atleast_1d(x):
    """``x`` with at least one dimension."""
    return reshape(x, (1,)) if len(_shape(x)) == 0 else x


@primitive
def _transpose(x, *, axes):
    return x.transpose(axes)


_transpose.defvjp(lambda g, ans, x, *, axes: _transpose(g, axes=tuple(numpy.argsort(axes))))


def transpose(x, axes=None):
    """``x`` with its axes permuted (reversed by default)."""
    ndim = len(_shape(x))
    axes = tuple(range(ndim))[::-1] if axes is None else _normalize_axes(axes, ndim, "transpose")
    if len(axes) != ndim or sorted(axes) != list(range(ndim)):
        raise ShapeError(
            message(
                "transpose",
                f"axes {axes} is not a permutation of the {ndim} axes",
                {"x": x},
                "pass each axis index exactly once",
            )
        )
    if axes == tuple(range(ndim)):
        return x
    return _transpose(x, axes=axes)


def moveaxis(x, source, destination):
    """``x`` with axes moved from ``source`` to ``destination`` (NumPy's semantics)."""
    ndim = len(_shape(x))
    source = _normalize_axes(source, ndim, "moveaxis")
    destination = _normalize_axes(destination, ndim, "moveaxis")
    if len(source) != len(destination):
        raise ShapeError("moveaxis: source and destination must have the same number of axes")
    for name, axes in (("source", source), ("destination", destination)):
        if len(set(axes)) != len(axes):
            raise InvalidInputError(
                f"moveaxis: expected distinct axes in {name}, got {axes}\n  hint: name each axis once"
            )
    order = [a for a in range(ndim) if a not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return transpose(x, order)


def swapaxes(x, axis1: int, axis2: int):
    """``x`` with two axes exchanged."""
    ndim = len(_shape(x))
    a, b = _normalize_axes((axis1, axis2), ndim, "swapaxes")
    order = list(range(ndim))
    order[a], order[b] = order[b], order[a]
    return transpose(x, order)


def expand_dims(x, axis):
    """``x`` with new axes of length 1 inserted at ``axis`` (an int or a tuple)."""
    shape = _shape(x)
    axes = _normalize_axes(axis, len(shape) + (1 if isinstance(axis, int) else len(axis)), "expand_dims")
    new = list(shape)
    for a in sorted(axes):
        new.insert(a, 1)
    return reshape(x, new)


def squeeze(x, axis=None):
    """``x`` without its length-1 axes (all of them, or those in ``axis``)."""
    shape = _shape(x)
    if axis is None:
        axes = tuple(i for i, d in enumerate(shape) if d == 1)
    else:
        axes = _normalize_axes(axis, len(shape), "squeeze")
        for a in axes:
            if shape[a] != 1:
                raise ShapeError(
                    message(
                        "squeeze",
                        f"cannot squeeze axis {a} of length {shape[a]}",
                        {"x": x},
                        "only axes of length 1 can be squeezed",
                    )
                )
    return reshape(x, [d for i, d in enumerate(shape) if i not in axes])


@primitive
def _concatenate(*xs, axis):
    return backend.xp(*xs).concatenate(xs, axis=axis)


def _concatenate_vjp(index):
    def vjp(g, ans, *xs, axis):
        start = sum(_shape(x)[axis] for x in xs[:index])
        stop = start + _shape(xs[index])[axis]
        return getitem(g, (slice(None),) * axis + (slice(start, stop),))

    return vjp


_concatenate.defvjp_variadic(_concatenate_vjp)


def concatenate(arrays, axis: int = 0):
    """Join a sequence of arrays along an existing axis."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("concatenate: need at least one array to concatenate")
    shapes = [_shape(a) for a in arrays]
    ndim = len(shapes[0])
    if ndim == 0:
        raise ShapeError("concatenate: zero-dimensional arrays cannot be concatenated; use stack")
    (axis,) = _normalize_axes(axis, ndim, "concatenate")
    for i, s in enumerate(shapes):
        if len(s) != ndim or s[:axis] + s[axis + 1 :] != shapes[0][:axis] + shapes[0][axis + 1 :]:
            raise ShapeError(
                message(
                    "concatenate",
                    f"all shapes must match except on axis {axis}, got {shapes[0]} and {s} (array {i})",
                    {"arrays[0]": arrays[0], f"arrays[{i}]": arrays[i]},
                    "check the shapes, or pick the axis on which they differ",
                )
            )
    if len(arrays) == 1:
        return arrays[0]
    return _concatenate(*arrays, axis=axis)


def stack(arrays, axis: int = 0):
    """Join arrays of one shape along a new axis."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("stack: need at least one array to stack")
    shapes = {_shape(a) for a in arrays}
    if len(shapes) > 1:
        raise ShapeError(
            f"stack: all arrays must have the same shape, got {sorted(shapes)}\n"
            "  hint: use concatenate to join along an existing axis"
        )
    (axis,) = _normalize_axes(axis, len(_shape(arrays[0])) + 1, "stack")
    return concatenate([expand_dims(a, axis) for a in arrays], axis)


def split(x, indices_or_sections, axis: int = 0):
    """Split ``x`` into a list of pieces along ``axis`` (NumPy's semantics)."""
    shape = _shape(x)
    (axis,) = _normalize_axes(axis, len(shape), "split")
    n = shape[axis]
    if isinstance(indices_or_sections, int):
        if indices_or_sections <= 0 or n % indices_or_sections:
            raise ShapeError(
                f"split: axis {axis} of length {n} does not divide into {indices_or_sections} equal pieces\n"
                "  hint: pass split indices instead, or use numpy.array_split semantics by hand"
            )
        step = n // indices_or_sections
        bounds = list(range(0, n + 1, step))
    else:
        bounds = [0, *indices_or_sections, n]
    prefix = (slice(None),) * axis
    return [getitem(x, prefix + (slice(a, b),)) for a, b in zip(bounds[:-1], bounds[1:])]


@primitive
def _tile(x, *, reps):
    return backend.xp(x).tile(x, reps)


@_tile.defvjp
def _tile_vjp(g, ans, x, *, reps):
    shape = _shape(x)
    reps = (1,) * (len(shape) - len(reps)) + tuple(reps)
    shape = (1,) * (len(reps) - len(shape)) + shape
    interleaved = [d for pair in zip(reps, shape) for d in pair]
    summed = sum_to(reshape(g, interleaved), [d for s in shape for d in (1, s)])
    return reshape(summed, _shape(x))


def tile(x, reps):
    """``x`` repeated ``reps`` times along each axis (NumPy's semantics)."""
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    return _tile(x, reps=reps)


def repeat(x, repeats, axis=None):
    """Each element of ``x`` repeated along ``axis`` (flattened first when ``axis`` is None)."""
    if axis is None:
        x, axis = ravel(x), 0
    shape = _shape(x)
    (axis,) = _normalize_axes(axis, len(shape), "repeat")
    index = backend.xp(x).asarray(numpy.repeat(numpy.arange(shape[axis]), repeats))
    return getitem(x, (slice(None),) * axis + (index,))


def take(a, indices, axis=None):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened array if None)."""
    indices = backend.xp(a).asarray(unbox_all(indices)) if isinstance(indices, list) else unbox_all(indices)
    if axis is None:
        return getitem(ravel(a), indices)
    ndim = len(_shape(a))
    axis = axis % ndim if -ndim <= axis < ndim else axis
    return getitem(a, (slice(None),) * axis + (indices,))


@primitive
def _flip(x, *, axis):
    return backend.xp(x).flip(x, axis)


_flip.defvjp(lambda g, ans, x, *, axis: _flip(g, axis=axis))


def flip(x, axis=None):
    """``x`` with the order of elements reversed along ``axis`` (all axes by default)."""
    ndim = len(_shape(x))
    axis = tuple(range(ndim)) if axis is None else _normalize_axes(axis, ndim, "flip")
    return _flip(x, axis=axis)


def _pad_width(pad_width, ndim: int) -> tuple[tuple[int, int], ...]:
    widths = numpy.broadcast_to(numpy.asarray(pad_width, dtype=numpy.int64), (ndim, 2))
    if (widths < 0).any():
        raise ValueError(f"pad: pad widths must be non-negative, got {pad_width!r}")
    return tuple((int(a), int(b)) for a, b in widths)


@primitive
def _pad_constant(x, *, pad_width, constant_values):
    return backend.xp(x).pad(x, pad_width, mode="constant", constant_values=constant_values)


@_pad_constant.defvjp
def _pad_constant_vjp(g, ans, x, *, pad_width, constant_values):
    shape = _shape(x)
    return getitem(g, tuple(slice(a, a + n) for (a, _), n in zip(pad_width, shape)))


def pad(x, pad_width, mode: str = "constant", constant_values=0):
    """``x`` padded as ``numpy.pad`` does, for the modes constant, edge, reflect, symmetric, wrap.

    The non-constant modes gather elements of ``x``, so their gradient scatters back.
    """
    shape = _shape(x)
    widths = _pad_width(pad_width, len(shape))
    if not shape:  # a 0-d array has no axis to pad: numpy.pad returns its value
        return x
    if mode == "constant":
        return _pad_constant(x, pad_width=widths, constant_values=constant_values)
    if mode not in ("edge", "reflect", "symmetric", "wrap"):
        raise ValueError(
            f"pad: mode {mode!r} is not supported; use constant, edge, reflect, symmetric or wrap"
        )
    index = numpy.pad(numpy.arange(int(numpy.prod(shape))).reshape(shape), widths, mode=mode)
    return take(x, backend.xp(x).asarray(index))


def diagonal(x, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The diagonal of ``x`` over two axes, moved to the last axis (NumPy's semantics)."""
    shape = _shape(x)
    a1, a2 = _normalize_axes((axis1, axis2), len(shape), "diagonal")
    if a1 == a2:
        raise ShapeError("diagonal: axis1 and axis2 must differ")
    n1, n2 = shape[a1], shape[a2]
    start1, start2 = max(-offset, 0), max(offset, 0)
    length = max(0, min(n1 - start1, n2 - start2))
    xp = backend.xp(x)
    rows = xp.arange(start1, start1 + length)
    cols = xp.arange(start2, start2 + length)
    return getitem(moveaxis(x, (a1, a2), (-2, -1)), (Ellipsis, rows, cols))
