"""Array manipulation (``chainerx.manipulation``): shapes, axes, joining and splitting,
flipping, repeating; each a differentiable fnet op, installed as ndarray methods too."""

from __future__ import annotations

import numpy

from ... import ops
from ...autodiff import unbox_all
from ...errors import message
from ._array import in_numpy_layout, ndarray, raw, run, unwrap, wrap
from ._dtypes import result_type
from ._errors import DimensionError
from ._routine import axis_error, cast_to, method

__all__ = [
    "reshape",
    "ravel",
    "transpose",
    "swapaxes",
    "moveaxis",
    "rollaxis",
    "squeeze",
    "expand_dims",
    "broadcast_to",
    "atleast_2d",
    "atleast_3d",
    "concatenate",
    "stack",
    "hstack",
    "vstack",
    "dstack",
    "split",
    "hsplit",
    "vsplit",
    "dsplit",
    "flip",
    "fliplr",
    "flipud",
    "repeat",
]


def _shape_arg(args) -> tuple:
    if len(args) == 1 and not isinstance(args[0], (int, numpy.integer)):
        return tuple(args[0])
    return tuple(args)


def reshape(a, *newshape) -> ndarray:
    """``a`` with a new shape of the same size (one negative entry stands for the length that
    fits): a view where possible."""
    if not newshape:
        raise TypeError(
            message("chainerx.reshape", "expected a new shape, got none", hint="a.reshape((2, 3))")
        )
    shape = tuple(-1 if d < 0 else d for d in _shape_arg(newshape))
    size = raw(a).size
    known = int(numpy.prod([d for d in shape if d != -1]))
    if (
        shape.count(-1) > 1
        or (-1 not in shape and known != size)
        or (-1 in shape and (known == 0 or size % known))
    ):
        raise DimensionError(
            message(
                "chainerx.reshape",
                f"expected a shape of {size} elements, got {shape} for an array of shape {a.shape}",
                hint="the product of the new shape must equal the array's size",
            )
        )
    return run("reshape", ops.reshape, a, shape)


def ravel(a) -> ndarray:
    return reshape(a, -1)


def _axis(name: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise axis_error(name, axis, ndim)
    return axis % ndim


def transpose(a, axes=None) -> ndarray:
    """``a`` with its axes permuted (reversed by default)."""
    ndim = raw(a).ndim
    if axes is not None:
        axes = (axes,) if isinstance(axes, (int, numpy.integer)) else axes  # one axis of a vector
        axes = tuple(_axis("transpose", ax, ndim) for ax in axes)
        if sorted(axes) != list(range(ndim)):
            raise DimensionError(
                message(
                    "chainerx.transpose",
                    f"expected a permutation of {ndim} axes, got {axes}",
                    hint="name each axis once",
                )
            )
    return run("transpose", ops.transpose, a, axes)


def swapaxes(a, axis1, axis2) -> ndarray:
    ndim = raw(a).ndim
    return run("swapaxes", ops.swapaxes, a, _axis("swapaxes", axis1, ndim), _axis("swapaxes", axis2, ndim))


def moveaxis(a, source, destination) -> ndarray:
    ndim = raw(a).ndim
    single = isinstance(source, (int, numpy.integer))
    src = (source,) if single else tuple(source)
    dst = (destination,) if isinstance(destination, (int, numpy.integer)) else tuple(destination)
    src = tuple(_axis("moveaxis", s, ndim) for s in src)
    dst = tuple(_axis("moveaxis", d, ndim) for d in dst)
    if len(src) != len(dst) or len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise DimensionError(
            message(
                "chainerx.moveaxis",
                f"expected as many distinct sources as destinations, got {source} and {destination}",
            )
        )
    return run("moveaxis", ops.moveaxis, a, src, dst)


def rollaxis(a, axis, start=0) -> ndarray:
    ndim = raw(a).ndim
    axis = _axis("rollaxis", axis, ndim)
    if not -ndim <= start <= ndim:
        raise axis_error("rollaxis", start, ndim + 1)
    start %= ndim + 1
    order = [i for i in range(ndim) if i != axis]
    order.insert(start - (1 if start > axis else 0), axis)
    return transpose(a, order)


def squeeze(a, axis=None) -> ndarray:
    """``a`` without the axes of length 1 (those of ``axis``)."""
    shape = raw(a).shape
    if axis is not None:
        axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
        axes = tuple(_axis("squeeze", ax, len(shape)) for ax in axes)
        if any(shape[ax] != 1 for ax in axes):
            raise DimensionError(
                message("chainerx.squeeze", f"expected axes of length 1, got axes {axis} of shape {shape}")
            )
        axis = axes
    return in_numpy_layout(run("squeeze", ops.squeeze, a, axis), raw(a).squeeze(axis))  # a view


def expand_dims(a, axis) -> ndarray:
    ndim = raw(a).ndim
    if not -ndim - 1 <= axis <= ndim:
        raise axis_error("expand_dims", axis, ndim + 1)
    return run("expand_dims", ops.expand_dims, a, axis % (ndim + 1))


def broadcast_to(array, shape) -> ndarray:
    shape = tuple(shape)
    try:
        numpy.broadcast_shapes(raw(array).shape, shape)
    except ValueError:
        raise DimensionError(
            message(
                "chainerx.broadcast_to",
                f"cannot broadcast shape {array.shape} to {shape}",
                hint="axes must match or be 1",
            )
        ) from None
    if numpy.broadcast_shapes(raw(array).shape, shape) != shape:
        raise DimensionError(
            message("chainerx.broadcast_to", f"cannot broadcast shape {array.shape} to {shape}")
        )
    return run("broadcast_to", ops.broadcast_to, array, shape)


def atleast_2d(a) -> ndarray:
    """``a`` with at least two axes: a vector as one row (a view, as NumPy's), a 0-d array as 1x1."""
    ndim = raw(a).ndim
    if ndim >= 2:
        return a
    return reshape(a, (1, 1)) if ndim == 0 else a[None, :]


def atleast_3d(a) -> ndarray:
    """``a`` with at least three axes: a vector ``(N,)`` as ``(1, N, 1)``, a matrix ``(M, N)``
    as ``(M, N, 1)`` (views, as NumPy's), a 0-d array as 1x1x1."""
    ndim = raw(a).ndim
    if ndim >= 3:
        return a
    return {0: lambda: reshape(a, (1, 1, 1)), 1: lambda: a[None, :, None], 2: lambda: a[:, :, None]}[ndim]()


def _joined(name: str, arrays):
    """The unwrapped arrays promoted to one dtype, and their device."""
    arrays = list(arrays)
    if not arrays:
        raise DimensionError(message(f"chainerx.{name}", "expected at least one array, got none"))
    values, device = unwrap(name, arrays)
    dtype = result_type(*(unbox_all(v).dtype for v in values))
    return [cast_to(v, dtype) for v in values], device


def concatenate(arrays, axis=0) -> ndarray:
    """The arrays joined along ``axis`` (None: flattened, then joined)."""
    values, device = _joined("concatenate", arrays)
    if axis is None:
        flat = [ops.reshape(v, (unbox_all(v).size,)) for v in values]
        return wrap(ops.concatenate(flat, 0), device)
    ndim = unbox_all(values[0]).ndim
    if ndim == 0:
        raise DimensionError(
            message("chainerx.concatenate", "expected arrays of at least one dimension, got 0-d")
        )
    if any(unbox_all(v).ndim != ndim for v in values):
        raise DimensionError(message("chainerx.concatenate", "expected arrays of one number of dimensions"))
    axis = _axis("concatenate", axis, ndim)
    return wrap(ops.concatenate(values, axis), device)


def stack(arrays, axis=0) -> ndarray:
    values, device = _joined("stack", arrays)
    shape = unbox_all(values[0]).shape
    if any(unbox_all(v).shape != shape for v in values):
        raise DimensionError(message("chainerx.stack", "expected arrays of one shape"))
    if not -len(shape) - 1 <= axis <= len(shape):
        raise axis_error("stack", axis, len(shape) + 1)
    return wrap(ops.stack(values, axis % (len(shape) + 1)), device)


def hstack(arrays) -> ndarray:
    arrays = [atleast_1d(a) for a in arrays]
    return concatenate(arrays, 0 if arrays and arrays[0].ndim == 1 else 1)


def atleast_1d(a) -> ndarray:
    return a if raw(a).ndim >= 1 else reshape(a, (1,))


def vstack(arrays) -> ndarray:
    return concatenate([atleast_2d(a) for a in arrays], 0)


def dstack(arrays) -> ndarray:
    return concatenate([atleast_3d(a) for a in arrays], 2)


def split(ary, indices_or_sections, axis=0) -> list:
    """``ary`` split along ``axis`` into equal sections, or at the given indices."""
    ndim = raw(ary).ndim
    axis = _axis("split", axis, ndim)
    if not hasattr(indices_or_sections, "__len__") or numpy.ndim(indices_or_sections) == 0:
        indices_or_sections = int(indices_or_sections)  # a number of sections (NumPy takes 2.0 too)
    if isinstance(indices_or_sections, int):
        if indices_or_sections <= 0 or ary.shape[axis] % indices_or_sections:
            raise DimensionError(
                message(
                    "chainerx.split",
                    f"expected a number of sections dividing {ary.shape[axis]}, got {indices_or_sections}",
                    hint="pass a divisor of the axis length, or the split indices",
                )
            )
    else:
        indices_or_sections = list(indices_or_sections)
    return list(run("split", ops.split, ary, indices_or_sections, axis))


def hsplit(ary, indices_or_sections) -> list:
    if raw(ary).ndim == 0:
        raise DimensionError(
            message("chainerx.hsplit", "expected an array of at least one dimension, got 0-d")
        )
    return split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


def vsplit(ary, indices_or_sections) -> list:
    if raw(ary).ndim < 2:
        raise DimensionError(message("chainerx.vsplit", f"expected at least 2 dimensions, got {ary.ndim}"))
    return split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections) -> list:
    if raw(ary).ndim < 3:
        raise DimensionError(message("chainerx.dsplit", f"expected at least 3 dimensions, got {ary.ndim}"))
    return split(ary, indices_or_sections, 2)


def flip(m, axis=None) -> ndarray:
    ndim = raw(m).ndim
    if axis is not None:
        axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
        axis = tuple(_axis("flip", ax, ndim) for ax in axes)
    return run("flip", ops.flip, m, axis)


def fliplr(m) -> ndarray:
    if raw(m).ndim < 2:
        raise DimensionError(message("chainerx.fliplr", f"expected at least 2 dimensions, got {m.ndim}"))
    return flip(m, 1)


def flipud(m) -> ndarray:
    if raw(m).ndim < 1:
        raise DimensionError(message("chainerx.flipud", "expected at least 1 dimension, got 0"))
    return flip(m, 0)


def repeat(a, repeats, axis=None) -> ndarray:
    """Each element (along ``axis``; of the flattened array when None) repeated."""
    if axis is not None:
        axis = _axis("repeat", axis, raw(a).ndim)
    reps = repeats if isinstance(repeats, (int, numpy.integer)) else list(repeats)
    if (isinstance(reps, list) and any(r < 0 for r in reps)) or (not isinstance(reps, list) and reps < 0):
        raise ValueError(message("chainerx.repeat", f"expected nonnegative repeats, got {repeats}"))
    result = run("repeat", ops.repeat, a, reps, axis)
    return result if result.is_contiguous else result.copy()  # a new array is C-contiguous, as NumPy's


def _reshape_method(self, *shape) -> ndarray:
    return reshape(self, *shape)


def _transpose_method(self, *axes) -> ndarray:
    if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], (int, numpy.integer))):
        axes = axes[0]
    return transpose(self, axes or None)


ndarray.reshape = _reshape_method
ndarray.transpose = _transpose_method
for _routine in (ravel, squeeze, swapaxes, repeat):
    setattr(ndarray, _routine.__name__, method(_routine))
ndarray.flatten = lambda self: reshape(self, -1).copy()
del _routine
