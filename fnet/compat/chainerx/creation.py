"""Creation routines: arrays from data, filled arrays, ranges, matrices (``chainerx.creation``).

Each makes the data with the device's array module (NumPy for ``native``) and wraps it; the
ones made from other arrays (``copy``, ``diag``, ``tril``...) are fnet ops, so they are in their
operands' graphs. Defaults follow ChainerX: float32, and int32 for an integer fill or range.
"""

from __future__ import annotations

import numpy

from ... import backend, ops
from ...autodiff import unbox_all
from ...errors import message
from ._array import in_numpy_layout, ndarray, raw, run, wrap
from ._device import get_device
from ._dtypes import check_dtype, default_for, to_dtype
from ._errors import ChainerxError, DimensionError, DtypeError
from .manipulation import broadcast_to, reshape

# NumPy's "copy only where needed": None on NumPy 2, False before (where None is refused)
_IF_NEEDED = None if int(numpy.__version__.split(".")[0]) >= 2 else False

__all__ = [
    "array",
    "asarray",
    "asanyarray",
    "ascontiguousarray",
    "copy",
    "to_numpy",
    "empty",
    "zeros",
    "ones",
    "full",
    "empty_like",
    "zeros_like",
    "ones_like",
    "full_like",
    "arange",
    "linspace",
    "identity",
    "eye",
    "tri",
    "diag",
    "diagflat",
    "tril",
    "triu",
    "meshgrid",
    "frombuffer",
    "fromfile",
    "fromfunction",
    "fromiter",
    "fromstring",
    "loadtxt",
]

_FLOAT32 = numpy.dtype("float32")
_MESHGRID_TYPE = type(numpy.meshgrid(numpy.zeros(1)))


def _shape(shape) -> tuple:
    return (shape,) if isinstance(shape, (int, numpy.integer)) else tuple(shape)


def _dtype(dtype, default=_FLOAT32) -> numpy.dtype:
    return default if dtype is None else to_dtype(dtype)


def _from_host(data, device) -> ndarray:
    device = get_device(device)
    check_dtype("array", data.dtype)
    return wrap(data if device.xp is numpy else device.xp.asarray(data), device)


def _from_gpu(data, dtype, copy: bool, device) -> ndarray:
    """A CuPy array as an ndarray: on its own GPU (``cuda:N``) unless ``device`` names another
    device, sharing its memory unless ``copy``, a cast or a move makes new data."""
    target = get_device("cuda", data.device.id) if device is None else get_device(device)
    if dtype is not None and to_dtype(dtype) != data.dtype:
        data, copy = data.astype(to_dtype(dtype)), False
    check_dtype("array", data.dtype)
    if target.xp is numpy:
        return wrap(backend.to_cpu(data), target)
    if target.index != data.device.id:
        with target.xp.cuda.Device(target.index):
            return wrap(target.xp.array(data), target)
    return wrap(data.copy() if copy else data, target)


def array(obj, dtype=None, copy=True, device=None) -> ndarray:
    """An array holding ``obj`` (an ndarray, a NumPy array, nested lists, a scalar); a copy
    unless ``copy`` is False and ``obj`` is already an ndarray of that dtype and device."""
    if isinstance(obj, ndarray):
        target = obj.device if device is None else get_device(device)
        result = obj if target is obj.device else obj.to_device(target)
        if dtype is not None and to_dtype(dtype) != result.dtype:
            return result.astype(dtype)
        return result.copy() if copy and result is obj else result
    if backend.is_array(obj) and backend.xp(obj) is not numpy:
        return _from_gpu(obj, dtype, copy, device)
    device = get_device(device)
    # ChainerX's copy=False shares the data where it can and copies otherwise (NumPy 2's None)
    dtype = None if dtype is None else to_dtype(dtype)
    data = numpy.array(obj, dtype=dtype, copy=True if copy else _IF_NEEDED)
    if data.dtype == numpy.dtype("O") or data.dtype.kind in "USc":
        raise DtypeError(
            message(
                "chainerx.array",
                f"expected numeric data, got data of dtype {data.dtype}",
                hint="pass numbers or arrays of ChainerX's dtypes",
            )
        )
    return _from_host(data, device)


def asarray(obj, dtype=None, device=None) -> ndarray:
    """``obj`` as an array, sharing its data where it can (an ndarray, a NumPy array)."""
    return array(obj, dtype, copy=False, device=device)


asanyarray = asarray


def ascontiguousarray(a, dtype=None, device=None) -> ndarray:
    """``a`` as a C-contiguous array of at least one dimension (a copy only if it is not one)."""
    result = asarray(a, dtype, device)
    if result.ndim == 0:
        result = reshape(result, (1,))
    return result if result.is_contiguous else result.copy()


def copy(a) -> ndarray:
    """A C-contiguous copy of ``a``, in its graphs."""
    return a.copy()


def to_numpy(array, copy=True) -> numpy.ndarray:
    """The data of ``array`` as a NumPy array (sharing it, for a native array and ``copy=False``)."""
    data = raw(array)
    if backend.xp(data) is not numpy:  # a cuda array's data: a host copy
        return backend.to_cpu(data)
    return data.copy() if copy else data


def _filled(maker, shape, dtype, device, *fill) -> ndarray:
    device = get_device(device)
    return wrap(getattr(device.xp, maker)(_shape(shape), *fill, dtype=dtype), device)


def empty(shape, dtype=None, device=None) -> ndarray:
    return _filled("empty", shape, _dtype(dtype), device)


def zeros(shape, dtype=None, device=None) -> ndarray:
    return _filled("zeros", shape, _dtype(dtype), device)


def ones(shape, dtype=None, device=None) -> ndarray:
    return _filled("ones", shape, _dtype(dtype), device)


def full(shape, fill_value, dtype=None, device=None) -> ndarray:
    """An array of ``shape`` filled with ``fill_value`` (of its kind's default dtype unless given)."""
    if isinstance(fill_value, ndarray):
        fill_value = fill_value.item()
    return _filled("full", shape, _dtype(dtype, default_for(fill_value)), device, fill_value)


def empty_like(a, device=None) -> ndarray:
    return empty(a.shape, a.dtype, device)


def zeros_like(a, device=None) -> ndarray:
    return zeros(a.shape, a.dtype, device)


def ones_like(a, device=None) -> ndarray:
    return ones(a.shape, a.dtype, device)


def full_like(a, fill_value, device=None) -> ndarray:
    return full(a.shape, fill_value, a.dtype, device)


def arange(start, stop=None, step=1, dtype=None, device=None) -> ndarray:
    """Evenly spaced values in ``[start, stop)``; int32 for integer bounds, float32 otherwise."""
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ChainerxError(
            message(
                "chainerx.arange",
                "expected a nonzero step, got 0",
                hint="pass step=1 or another nonzero step",
            )
        )
    if dtype is None:
        dtype = default_for(step if isinstance(step, float) else stop if isinstance(stop, float) else start)
        if dtype.kind == "b":
            dtype = default_for(1)
    dtype = to_dtype(dtype)
    length = max(int(numpy.ceil((stop - start) / step)), 0)
    if dtype.kind == "b" and length > 2:
        raise DtypeError(
            message(
                "chainerx.arange",
                f"expected at most 2 values for dtype bool, got a range of {length}",
                hint="use an integer dtype for longer ranges",
            )
        )
    device = get_device(device)
    values = numpy.arange(length, dtype=numpy.float64) * step + start if length else numpy.empty(0)
    if dtype.kind == "b":
        values = numpy.array([bool(start), bool(start + step)][:length])
    elif dtype.kind != "f":
        values = numpy.arange(start, stop, step)[:length]
    return _from_host(values.astype(dtype), device)


def linspace(start, stop, num=50, endpoint=True, dtype=None, device=None) -> ndarray:
    """``num`` evenly spaced values from ``start`` to ``stop`` (float32 unless given)."""
    if num < 0:
        raise ChainerxError(
            message("chainerx.linspace", f"expected num >= 0, got {num}", hint="pass a nonnegative count")
        )
    return _from_host(numpy.linspace(start, stop, num, endpoint=endpoint, dtype=_dtype(dtype)), device)


def identity(n, dtype=None, device=None) -> ndarray:
    return eye(n, None, 0, dtype, device)


def eye(N, M=None, k=0, dtype="float64", device=None) -> ndarray:  # noqa: N803 (NumPy's names)
    """Ones on the ``k``-th diagonal of an ``N`` by ``M`` matrix; float64 unless ``dtype`` says
    otherwise (ChainerX's default here, unlike its other creation routines' float32)."""
    device = get_device(device)
    dtype = "float64" if dtype is None else dtype
    return wrap(device.xp.eye(N, M, 0 if k is None else k, dtype=_dtype(dtype)), device)


def tri(N, M=None, k=0, dtype=None, device=None) -> ndarray:  # noqa: N803 (NumPy's names)
    device = get_device(device)
    return wrap(device.xp.tri(N, M, 0 if k is None else k, dtype=_dtype(dtype)), device)


def _diag(v, k: int):
    """The ``k``-th diagonal of a matrix, or the matrix with vector ``v`` on its ``k``-th
    diagonal (a padded ``v`` broadcast against the identity, so it is differentiable)."""
    if len(numpy.shape(unbox_all(v))) == 2:
        return ops.diagonal(v, offset=k)
    n = numpy.shape(unbox_all(v))[0] + abs(k)
    padded = ops.pad(v, ((0, abs(k)),))
    mask = numpy.eye(n, k=k, dtype=unbox_all(v).dtype)
    # row i holds v[i] at column i + k (k >= 0); column j holds v[j] at row j - k (k < 0)
    return ops.multiply(mask, ops.reshape(padded, (n, 1) if k >= 0 else (1, n)))


def diag(v, k=0, device=None) -> ndarray:
    """The ``k``-th diagonal of a matrix, or the matrix with vector ``v`` on it."""
    if v.ndim not in (1, 2):
        raise DimensionError(
            message(
                "chainerx.diag",
                f"expected a 1-d or 2-d array, got {v.ndim} dimensions",
                hint="pass a vector or a matrix",
            )
        )
    result = run("diag", _diag, v, k)
    if v.ndim == 2:  # a view of the matrix's data, as NumPy's and ChainerX's diagonal is
        in_numpy_layout(result, raw(v).diagonal(k))
    return result


def diagflat(v, k=0, device=None) -> ndarray:
    """The matrix with the flattened ``v`` on its ``k``-th diagonal."""
    return diag(v.reshape(-1) if v.ndim != 1 else v, k)


def _square(m):
    """A vector ``m`` as NumPy's ``tril``/``triu`` take it: repeated as the rows of a square
    matrix; arrays of more axes as they are."""
    return broadcast_to(m, (m.shape[0], m.shape[0])) if m.ndim == 1 else m


def tril(m, k=0) -> ndarray:
    """``m`` with the elements above the ``k``-th diagonal zeroed (a vector: as its square)."""
    return run("tril", ops.tril, _square(m), k)


def triu(m, k=0) -> ndarray:
    """``m`` with the elements below the ``k``-th diagonal zeroed (a vector: as its square)."""
    return run("triu", ops.triu, _square(m), k)


def meshgrid(*xi, indexing="xy"):
    """Coordinate matrices from coordinate vectors (differentiable: broadcasts of the vectors);
    a list, or a tuple where the installed NumPy's ``meshgrid`` gives one (NumPy 2)."""
    n = len(xi)
    shapes = [x.size for x in xi]
    if indexing == "xy" and n > 1:
        shapes[0], shapes[1] = shapes[1], shapes[0]
    out = []
    for i, x in enumerate(xi):
        axis = i
        if indexing == "xy" and n > 1 and i < 2:
            axis = 1 - i
        view = [1] * n
        view[axis] = x.size
        out.append(broadcast_to(reshape(x, tuple(view)), tuple(shapes)))
    return _MESHGRID_TYPE(out)


def frombuffer(buffer, dtype=float, count=-1, offset=0, device=None) -> ndarray:
    return _from_host(numpy.frombuffer(buffer, dtype=to_dtype(dtype), count=count, offset=offset), device)


def fromfile(file, dtype=float, count=-1, sep="", offset=0, device=None) -> ndarray:
    return _from_host(
        numpy.fromfile(file, dtype=to_dtype(dtype), count=count, sep=sep, offset=offset), device
    )


def fromfunction(function, shape, device=None, **kwargs) -> ndarray:
    return array(numpy.fromfunction(function, shape, **kwargs), device=device)


def fromiter(iterable, dtype, count=-1, device=None) -> ndarray:
    return _from_host(numpy.fromiter(iterable, to_dtype(dtype), count), device)


def fromstring(string, dtype=float, count=-1, sep=" ", device=None) -> ndarray:
    return _from_host(numpy.fromstring(string, dtype=to_dtype(dtype), count=count, sep=sep), device)


def loadtxt(fname, dtype=float, device=None, **kwargs) -> ndarray:
    """``numpy.loadtxt(fname, dtype, **kwargs)`` as an array on ``device``."""
    return _from_host(numpy.loadtxt(fname, to_dtype(dtype), **kwargs), device)
