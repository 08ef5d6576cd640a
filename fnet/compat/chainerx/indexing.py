"""Indexing (``chainerx`` indexing routines): ``a[index]``, ``take``, ``where``, ``nonzero``,
``copyto``, and ``a[index] = value``. Reading is differentiable (fnet's ``getitem``/``take``/
``where``); assignment writes the array's data, as ChainerX does through NumPy/CuPy, and is
refused for an array that backprop runs through."""

from __future__ import annotations

import numpy

from ... import ops
from ...autodiff import unbox_all
from ...errors import message
from ._array import ndarray, raw, run, unwrap, wrap
from ._dtypes import result_type
from ._errors import DimensionError, DtypeError
from ._routine import cast_to, method

__all__ = ["take", "where", "nonzero", "copyto"]


def _index(name: str, key, shape: tuple):
    """``key`` with ndarrays replaced by their data; an IndexError for too many indices, as
    ChainerX's (NumPy's IndexError tells an index out of bounds)."""
    parts = key if isinstance(key, tuple) else (key,)
    parts = tuple(raw(p) if type(p) is ndarray else p for p in parts)
    taken = sum(
        1
        for p in parts
        if p is not None and p is not Ellipsis and not (hasattr(p, "dtype") and p.dtype.kind == "b")
    )
    if taken > len(shape):
        raise IndexError(
            message(
                f"ndarray.{name}",
                f"expected at most {len(shape)} indices, got {taken}",
                hint="index fewer axes",
            )
        )
    return parts if isinstance(key, tuple) else parts[0]


def _getitem(self, key) -> ndarray:
    shape = raw(self).shape
    try:
        return run("__getitem__", ops.getitem, self, _index("__getitem__", key, shape))
    except IndexError as error:  # NumPy's (an index out of bounds), named for the routine
        raise IndexError(message("ndarray.__getitem__", f"{error} (the array's shape is {shape})")) from error


def take(a, indices, axis=None, mode="wrap") -> ndarray:
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened array when None);
    indices wrap around (``mode='wrap'``), are clipped (``'clip'``) or must be in range
    (``'raise'``, negative ones counting from the end)."""
    data = raw(a)
    index = raw(indices) if type(indices) is ndarray else numpy.asarray(indices)
    if index.dtype.kind not in "iu":
        raise DtypeError(message("chainerx.take", f"expected integer indices, got dtype {index.dtype}"))
    if axis is not None and not -data.ndim <= axis < data.ndim:
        raise DimensionError(
            message("chainerx.take", f"expected an axis of {data.ndim} dimensions, got {axis}")
        )
    length = data.size if axis is None else data.shape[axis]
    if mode == "wrap":
        index = index % length if length else index
    elif mode == "clip":
        index = numpy.clip(index, 0, max(length - 1, 0))
    elif mode == "raise":
        if index.size and (index.min() < -length or index.max() >= length):
            raise IndexError(
                message(
                    "chainerx.take",
                    f"expected indices in [{-length}, {length}) with mode 'raise', "
                    f"got {index.min()} to {index.max()}",
                    hint="pass mode='wrap' or mode='clip' to bring them into range",
                )
            )
        index = numpy.where(index < 0, index + length, index)
    else:
        raise ValueError(message("chainerx.take", f"expected mode 'raise', 'wrap' or 'clip', got {mode!r}"))
    return run("take", ops.take, a, index.astype(numpy.int64), axis)


def where(condition, x, y) -> ndarray:
    """``x`` where ``condition`` holds, else ``y`` (arrays or scalars), promoted to one dtype."""
    values, device = unwrap("where", (condition, x, y))
    cond = unbox_all(values[0]).astype(bool) if type(condition) is ndarray else numpy.asarray(condition, bool)
    specs = [unbox_all(v).dtype if type(o) is ndarray else o for v, o in zip(values[1:], (x, y))]
    dtype = result_type(*specs)
    operands = [
        cast_to(v, dtype) if isinstance(s, numpy.dtype) else numpy.array(v).astype(dtype)
        for v, s in zip(values[1:], specs)
    ]
    return wrap(ops.where(cond, *operands), device)


def nonzero(a) -> tuple:
    """The indices of the nonzero elements, one int64 array per axis."""
    data = raw(a)
    return tuple(wrap(i.astype(numpy.int64), a.device) for i in numpy.nonzero(data))


def copyto(dst, src, casting="same_kind", where=True) -> None:  # noqa: A002 (NumPy's name)
    """Copy ``src`` into ``dst`` (in place), where ``where`` holds."""
    dst._check_in_place("copyto")
    numpy.copyto(raw(dst), raw(src), casting=casting, where=raw(where) if type(where) is ndarray else where)


def _setitem(self, key, value) -> None:
    if self.is_backprop_required():
        raise RuntimeError(
            message(
                "ndarray.__setitem__",
                "expected an array that no graph needs for backprop, got one that requires it",
                hint="assign into a.as_grad_stopped() (it shares the data), or build the array out of place",
            )
        )
    if type(value) is ndarray:
        value = raw(value)  # its data, as ChainerX's own assignment takes it
    shape = raw(self).shape
    try:
        raw(self)[_index("__setitem__", key, shape)] = value
    except IndexError as error:
        raise IndexError(message("ndarray.__setitem__", f"{error} (the array's shape is {shape})")) from error


ndarray.__getitem__ = _getitem
ndarray.__setitem__ = _setitem
ndarray.take = method(take)
