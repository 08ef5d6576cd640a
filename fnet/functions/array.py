"""Array manipulations (Chainer's ``F.concat``, ``F.reshape``, ``F.im2col``...), pure and differentiable.

Almost all are compositions of ``fnet.ops`` (reshape, transpose, concatenate, getitem and its
adjoint scatter_add, pad...), so their gradients of every order come from those ops. Three
primitives are faster than any composition: ``im2col`` and its adjoint ``col2im``, a closed pair
copying one window per kernel offset, each the other's VJP; and the permutation behind
``permutate`` and ``transpose_sequence``, whose VJP is itself with the inverse permutation (a
gather, where a general gather's VJP is a slow scatter-add). ``resize_images`` multiplies by the
interpolation matrix of each axis. ``spatial_transformer_sampler`` gathers the four neighbours of
each sampling point and blends them with weights built from fnet ops, so gradients reach both
the image and the sampling grid.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy

from .. import backend, ops
from ..autodiff import primitive
from ..autodiff.tracer import shape_of as _shape
from ..autodiff.tracer import unbox_all
from ..errors import ArgumentTypeError, DTypeError, InvalidInputError, ShapeError, message
from ._checks import check_array, check_axis, check_float, check_labels, check_ndim, check_same_dtype

__all__ = [
    "as_strided",
    "broadcast",
    "broadcast_to",
    "cast",
    "concat",
    "copy",
    "depth2space",
    "diagonal",
    "dstack",
    "expand_dims",
    "flatten",
    "flip",
    "fliplr",
    "flipud",
    "get_item",
    "hstack",
    "im2col",
    "moveaxis",
    "pad",
    "pad_sequence",
    "permutate",
    "repeat",
    "reshape",
    "resize_images",
    "rollaxis",
    "scatter_add",
    "select_item",
    "separate",
    "space2depth",
    "spatial_transformer_grid",
    "spatial_transformer_sampler",
    "split_axis",
    "squeeze",
    "stack",
    "swapaxes",
    "tile",
    "transpose",
    "transpose_sequence",
    "vstack",
    "where",
]


# -- helpers ---------------------------------------------------------------------------------


def _pair(fn: str, name: str, value) -> tuple[int, int]:
    """An int or a pair of ints as a pair (Chainer's ``ksize=k`` means ``(k, k)``)."""
    pair = (value, value) if isinstance(value, (int, numpy.integer)) else tuple(value)
    if len(pair) != 2:
        raise InvalidInputError(f"{fn}: expected {name} to be an int or a pair of ints, got {value!r}")
    return int(pair[0]), int(pair[1])


def _int_tuple(fn: str, name: str, value, hint: str) -> tuple[int, ...]:
    """An int or a sequence of non-negative ints as a tuple (a bool counts as 0 or 1, as in
    NumPy and Chainer)."""
    items = (value,) if isinstance(value, (int, numpy.integer)) else value
    if (
        isinstance(items, str)
        or not isinstance(items, Sequence)
        or not all(isinstance(v, (int, numpy.integer)) for v in items)
    ):
        raise ArgumentTypeError(
            f"{fn}: expected {name} to be an int or a tuple of ints, got {value!r}\n  hint: e.g. 2 or (2, 3)"
        )
    if any(v < 0 for v in items):
        raise InvalidInputError(f"{fn}: expected {name} >= 0, got {value!r}\n  hint: {hint}")
    return tuple(int(v) for v in items)


def _check_joinable(fn: str, xs, axis: int | None) -> list:
    """The arrays of ``xs`` as a list, checked to share ndim, dtype, and every length but ``axis``."""
    xs = list(xs)
    if not xs:
        raise InvalidInputError(f"{fn}: expected at least one array in xs, got none")
    first = _shape(xs[0])
    keep = [d for d in range(len(first)) if d != axis]
    for i, x in enumerate(xs[1:], 1):
        check_same_dtype(fn, ("xs[0]", f"xs[{i}]"), xs[0], x)
        shape = _shape(x)
        if len(shape) != len(first) or [shape[d] for d in keep] != [first[d] for d in keep]:
            expected = "the same shape" if axis is None else f"the same shape except on axis {axis}"
            raise ShapeError(
                message(
                    fn,
                    f"expected every array of xs to have {expected}, got {first} and {shape}",
                    {"xs[0]": xs[0], f"xs[{i}]": x},
                    "check the shapes of the arrays you join",
                )
            )
    return xs


def _is_weak(x) -> bool:
    """Whether ``x`` is a scalar that takes its partner's dtype (fnet's weak typing)."""
    x = unbox_all(x)
    return not hasattr(x, "dtype") or isinstance(x, numpy.generic)


def _index_along(axis: int, index) -> tuple:
    """An index tuple selecting ``index`` on ``axis`` and everything on the axes before it."""
    return (slice(None),) * axis + (index,)


@primitive
def _permute(x, *, axis, order, inverse):
    """``x`` reordered along ``axis`` by the permutation ``order``; its VJP gathers back with
    ``inverse``, much faster than the scatter-add that the VJP of a general gather needs."""
    return backend.xp(x).take(x, order, axis=axis)


_permute.defvjp(
    lambda g, ans, x, *, axis, order, inverse: _permute(g, axis=axis, order=inverse, inverse=order)
)


# -- shapes and axes -------------------------------------------------------------------------
def reshape(x, shape):
    """``x`` with a new shape holding the same elements (one entry may be -1, inferred); a view-like
    relabelling whose gradient is the cotangent reshaped back."""
    return ops.reshape(x, shape)


def flatten(x):
    """``x`` as a one-dimensional array of all its elements (a 0-d array gives shape ``(1,)``)."""
    return ops.reshape(x, (int(numpy.prod(_shape(x))),))


def expand_dims(x, axis: int):
    """``x`` with a new axis of length 1 inserted at ``axis`` (``-ndim - 1 <= axis <= ndim``)."""
    return ops.expand_dims(x, axis)


def squeeze(x, axis=None):
    """``x`` without its axes of length 1: all of them, or only those named by ``axis``."""
    return ops.squeeze(x, axis)


def transpose(x, axes=None):
    """``x`` with its axes permuted by ``axes`` (reversed when None); the gradient permutes back."""
    return ops.transpose(x, axes)


def swapaxes(x, axis1: int, axis2: int):
    """``x`` with the two axes ``axis1`` and ``axis2`` exchanged."""
    return ops.swapaxes(x, axis1, axis2)


def moveaxis(x, source, destination):
    """``x`` with the axes ``source`` moved to the positions ``destination``, the other axes
    keeping their order (NumPy's semantics; Chainer accepts float arrays only)."""
    check_float("moveaxis", "x", x)
    return ops.moveaxis(x, source, destination)


def rollaxis(x, axis: int, start: int = 0):
    """``x`` with ``axis`` rolled back to just before position ``start`` (``numpy.rollaxis``); kept
    for Chainer's older code, where ``moveaxis`` is the clearer choice."""
    ndim = len(_shape(x))
    axis = check_axis("rollaxis", "axis", axis, ndim)
    if not -ndim <= start <= ndim:
        raise ShapeError(
            f"rollaxis: start={start} is out of bounds for an array of {ndim} dimensions\n"
            f"  hint: use a value in [{-ndim}, {ndim}]"
        )
    if start < 0:
        start += ndim
    if axis < start:
        start -= 1
    order = [a for a in range(ndim) if a != axis]
    order.insert(start, axis)
    return ops.transpose(x, order)


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` (NumPy's rules); the gradient sums over the broadcast axes."""
    return ops.broadcast_to(x, tuple(shape))


def broadcast(*args):
    """The arguments broadcast to their common shape, as a tuple (one argument comes back as
    itself, as in Chainer); the gradient of each sums back to its own shape."""
    if not args:
        raise InvalidInputError("broadcast: expected at least one array, got none")
    if len(args) == 1:
        return args[0]
    shapes = [_shape(a) for a in args]
    try:
        shape = numpy.broadcast_shapes(*shapes)
    except ValueError:
        raise ShapeError(
            message(
                "broadcast",
                f"shapes {', '.join(str(s) for s in shapes)} cannot be broadcast together",
                {f"args[{i}]": a for i, a in enumerate(args)},
                "aligned from the right, each axis must match or be 1",
            )
        ) from None
    return tuple(ops.broadcast_to(a, shape) for a in args)


def tile(x, reps):
    """``x`` repeated ``reps`` times along each axis (``numpy.tile``: missing axes count as 1)."""
    check_array("tile", "x", x)
    reps = _int_tuple("tile", "reps", reps, "a repetition count of 0 gives an empty axis")
    return ops.tile(x, reps)


def repeat(x, repeats, axis: int | None = None):
    """Each element of ``x`` repeated ``repeats`` times along ``axis`` (of the flattened array when
    None); ``repeats`` is one count for all, or one count per element of that axis."""
    repeats = _int_tuple("repeat", "repeats", repeats, "a count of 0 drops the element")
    shape = _shape(x)
    if axis is not None:
        axis = check_axis("repeat", "axis", axis, len(shape))
    length = int(numpy.prod(shape)) if axis is None else shape[axis]
    if len(repeats) not in (1, length):
        raise ShapeError(
            message(
                "repeat",
                f"expected 1 or {length} repeat counts, got {len(repeats)}",
                {"x": x},
                "give one count for every element along the axis, or a single count",
            )
        )
    return ops.repeat(x, repeats[0] if len(repeats) == 1 else repeats, axis)


@primitive
def pass_through(x):
    """``x``'s array itself, as the output of a node of its own (whose gradient is the
    output's): what Chainer's identity and same-dtype cast make."""
    return x


pass_through.defvjp(lambda g, ans, x: g)


def cast(x, typ):
    """``x`` converted to the dtype ``typ``; the gradient is cast back to ``x``'s float dtype (an
    integer ``x`` gets none). A cast to ``x``'s own dtype gives ``x``'s array, but as the output
    of a node of its own (as in Chainer): two such casts of one ``x`` get their own gradients."""
    if unbox_all(x).dtype == numpy.dtype(typ):
        return pass_through(x)
    return ops.astype(x, typ)


def copy(x, dst):
    """``x`` copied onto the device ``dst`` (``-1`` or ``'@numpy'`` for the host, a GPU id or
    ``'@cupy:N'``); the gradient travels back to ``x``'s device. Nothing is copied when ``x`` is
    already there."""
    return _copy(x, device=backend.get_device(dst))


@primitive
def _copy(x, *, device):
    return device.send(x)


@_copy.defvjp
def _copy_vjp(g, ans, x, *, device):
    return _copy(g, device=backend.get_device_from_array(unbox_all(x)))


# -- joining and splitting -------------------------------------------------------------------
def concat(xs, axis: int = 1):
    """The arrays of ``xs`` joined along ``axis``, the second axis by default (Chainer's default,
    unlike NumPy's); they must share dtype and every other length."""
    xs = list(xs)
    if not xs:
        raise InvalidInputError("concat: expected at least one array in xs, got none")
    ndim = len(_shape(xs[0]))
    if ndim == 0:
        raise ShapeError("concat: zero-dimensional arrays cannot be concatenated\n  hint: use stack")
    axis = check_axis("concat", "axis", axis, ndim)
    return ops.concatenate(_check_joinable("concat", xs, axis), axis)


def stack(xs, axis: int = 0):
    """The arrays of ``xs``, all of one shape and dtype, joined along a new axis ``axis``."""
    xs = _check_joinable("stack", xs, None)
    return ops.stack(xs, axis)


def _join(fn: str, xs, axis: int, min_ndim: int, expand):
    """``xs`` joined along ``axis``; arrays of fewer than ``min_ndim`` axes must share their shape
    and are first reshaped by ``expand`` (NumPy's ``atleast_nd`` rules of h/v/dstack)."""
    xs = list(xs)
    if not xs:
        raise InvalidInputError(f"{fn}: expected at least one array in xs, got none")
    has_axis = len(_shape(xs[0])) >= min_ndim
    _check_joinable(fn, xs, axis if has_axis else None)
    if not has_axis:
        xs = [ops.reshape(x, expand(_shape(x))) for x in xs]
    return ops.concatenate(xs, axis)


def hstack(xs):
    """The arrays of ``xs`` joined column-wise (``numpy.hstack``): along the second axis, or along
    the only axis of 1-d arrays (0-d arrays become length-1 vectors)."""
    xs = list(xs)
    if xs and len(_shape(xs[0])) < 2:
        return _join("hstack", xs, 0, 1, lambda shape: (1,))
    return _join("hstack", xs, 1, 2, None)


def vstack(xs):
    """The arrays of ``xs`` joined row-wise (``numpy.vstack``): along the first axis, with 1-d
    arrays ``(N,)`` taken as rows ``(1, N)``."""
    return _join("vstack", xs, 0, 2, lambda shape: (1, int(numpy.prod(shape))))


def dstack(xs):
    """The arrays of ``xs`` joined depth-wise (``numpy.dstack``): along the third axis, with
    ``(M, N)`` taken as ``(M, N, 1)``, ``(N,)`` as ``(1, N, 1)`` and ``()`` as ``(1, 1, 1)``."""
    return _join("dstack", xs, 2, 3, lambda shape: ((1, 1) + shape)[-2:] + (1,))


def split_axis(x, indices_or_sections, axis: int, force_tuple: bool = True):
    """``x`` split along ``axis`` into ``indices_or_sections`` equal pieces (an int) or at the
    sorted positions it lists (``numpy.split``); a tuple, or the single piece itself when
    ``force_tuple`` is False and there is one."""
    shape = _shape(x)
    axis = check_axis("split_axis", "axis", axis, len(shape))
    ios = unbox_all(indices_or_sections)
    if backend.is_array(ios) and ios.ndim == 0:
        ios = ios.item()
    if isinstance(ios, (int, numpy.integer)) and not isinstance(ios, bool):
        if ios <= 0 or shape[axis] % ios:
            raise ShapeError(
                message(
                    "split_axis",
                    f"expected x.shape[{axis}] to be divisible by sections={ios}, got {shape[axis]}",
                    {"x": x},
                    "pass split positions instead of a number of sections",
                )
            )
        ios = int(ios)
    else:
        positions = numpy.asarray(backend.to_cpu(ios) if backend.is_array(ios) else ios)
        if positions.ndim != 1 or (positions.size and positions.dtype.kind not in "iu"):
            raise DTypeError(
                f"split_axis: expected indices_or_sections to be an int or a 1-d sequence of ints, "
                f"got {indices_or_sections!r}\n  hint: pass e.g. [2, 5] or numpy.array([2, 5])"
            )
        ios = [int(p) for p in positions]
        if any(p > n for p, n in zip(ios, ios[1:])):
            raise InvalidInputError(
                message(
                    "split_axis",
                    f"expected sorted split positions, got {ios}",
                    {"x": x},
                    "the positions are where the pieces start: sort them (pieces would overlap)",
                )
            )
        if ios and ios[-1] > shape[axis]:
            raise ShapeError(
                message(
                    "split_axis",
                    f"split position {ios[-1]} is beyond x.shape[{axis}] = {shape[axis]}",
                    {"x": x},
                    "split positions must lie in [0, x.shape[axis]]",
                )
            )
    pieces = tuple(ops.split(x, ios, axis))
    return pieces if force_tuple or len(pieces) != 1 else pieces[0]


def separate(x, axis: int = 0):
    """``x`` cut into its slices along ``axis``, as a tuple of arrays without that axis: the
    inverse of ``stack``."""
    shape = _shape(x)
    axis = check_axis("separate", "axis", axis, len(shape))
    return tuple(ops.getitem(x, _index_along(axis, i)) for i in range(shape[axis]))


def pad_sequence(xs, length: int | None = None, padding=0):
    """The sequences of ``xs`` (arrays sharing every axis but the first) padded with ``padding``
    to ``length`` (their longest length when None) and stacked into ``(len(xs), length, ...)``."""
    xs = list(xs)
    if not xs:
        raise InvalidInputError("pad_sequence: expected at least one array in xs, got none")
    for i, x in enumerate(xs):
        check_ndim("pad_sequence", f"xs[{i}]", x, range(1, 33), "each sequence needs a time axis first")
    _check_joinable("pad_sequence", xs, 0)
    lengths = [_shape(x)[0] for x in xs]
    length = max(lengths) if length is None else length
    if max(lengths) > length:
        raise ShapeError(
            f"pad_sequence: expected every sequence to have at most length={length} steps, "
            f"got one of {max(lengths)}\n  hint: raise length, or leave it None to use the longest"
        )
    trailing = ((0, 0),) * (len(_shape(xs[0])) - 1)
    return ops.stack(
        [ops.pad(x, ((0, length - n),) + trailing, constant_values=padding) for x, n in zip(xs, lengths)]
    )


def transpose_sequence(xs):
    """A batch of sequences, sorted from longest to shortest, turned into the sequence of its
    time steps: output ``t`` stacks step ``t`` of every sequence long enough to have it. Used to
    feed variable-length batches to step-wise recurrent layers; it is its own inverse."""
    xs = list(xs)
    if not xs:
        return ()
    check_ndim("transpose_sequence", "xs[0]", xs[0], range(1, 33), "each sequence needs a time axis first")
    if not _shape(xs[0])[0]:
        return ()
    _check_joinable("transpose_sequence", xs, 0)
    lengths = numpy.array([_shape(x)[0] for x in xs])
    if (lengths[1:] > lengths[:-1]).any():
        raise InvalidInputError(
            f"transpose_sequence: expected xs sorted by decreasing length, got lengths {lengths.tolist()}\n"
            "  hint: sort the batch, e.g. xs.sort(key=len, reverse=True)"
        )
    steps = numpy.arange(lengths[0])
    starts = numpy.concatenate([[0], numpy.cumsum(lengths)[:-1]])
    present = steps[:, None] < lengths[None, :]  # (time, sequence)
    order = (starts[None, :] + steps[:, None])[present]  # rows of the concatenation, time-major
    order = backend.xp(xs[0]).asarray(order)
    joined = _permute(ops.concatenate(xs, 0), axis=0, order=order, inverse=backend.xp(order).argsort(order))
    return tuple(ops.split(joined, numpy.cumsum(present.sum(axis=1))[:-1].tolist(), 0))


# -- flips -----------------------------------------------------------------------------------
def flip(x, axis: int):
    """``x`` with the order of its elements reversed along ``axis``."""
    check_ndim("flip", "x", x, range(1, 33), "a 0-d array has no axis to flip")
    axis = int(axis) if isinstance(axis, bool) else axis  # Chainer's flip takes True as axis 1
    return ops.flip(x, check_axis("flip", "axis", axis, len(_shape(x))))


def fliplr(a):
    """``a`` reversed left to right, along its second axis (float arrays of 2 or more dims)."""
    check_float("fliplr", "a", a)
    check_ndim("fliplr", "a", a, range(2, 33), "fliplr flips axis 1; use flipud or flip for 1-d arrays")
    return ops.flip(a, 1)


def flipud(a):
    """``a`` reversed upside down, along its first axis (float arrays of 1 or more dims)."""
    check_float("flipud", "a", a)
    check_ndim("flipud", "a", a, range(1, 33), "a 0-d array has no axis to flip")
    return ops.flip(a, 0)


# -- indexing --------------------------------------------------------------------------------
def _slices(fn: str, slices):
    """Chainer's reading of an index: a list of ints is one index array, any other list a tuple;
    at most one Ellipsis (a ValueError, as in Chainer)."""
    if isinstance(slices, list) and not all(isinstance(s, (int, numpy.integer)) for s in slices):
        slices = tuple(slices)
    if isinstance(slices, tuple) and sum(s is Ellipsis for s in slices) > 1:
        raise InvalidInputError(
            f"{fn}: expected at most one Ellipsis in slices, got {slices!r}\n"
            "  hint: one '...' stands for all the axes not indexed"
        )
    return slices


def get_item(x, slices):
    """``x[slices]`` for NumPy's basic and advanced indexing (ints, slices, None, Ellipsis, integer
    and boolean arrays); the gradient is scattered back into the selected places."""
    return ops.getitem(x, _slices("get_item", slices))


def scatter_add(a, slices, b):
    """A copy of ``a`` with ``b`` added at ``a[slices]``, where repeated indices accumulate;
    ``b`` must have exactly the shape of ``a[slices]`` (no broadcasting, as in Chainer)."""
    check_same_dtype("scatter_add", ("a", "b"), a, b)
    slices = _slices("scatter_add", slices)
    xp = backend.xp(a)
    try:
        target = ops.getitem(xp.broadcast_to(xp.zeros((), dtype=bool), _shape(a)), slices)
    except IndexError as error:  # Chainer's type check refuses these (too many indices...)
        raise ShapeError(
            message(
                "scatter_add",
                f"slices {slices!r} do not index a: {str(error).splitlines()[0]}",
                {"a": a},
                "check each index against a.shape",
            )
        ) from None
    if target.shape != _shape(b):
        raise ShapeError(
            message(
                "scatter_add",
                f"expected b.shape == a[slices].shape, got {_shape(b)} != {target.shape}",
                {"a": a, "b": b},
                "b is not broadcast; reshape or broadcast_to it first",
            )
        )
    return ops.scatter_add(a, slices, b)


def select_item(x, t):
    """``y[i] = x[i, t[i]]``: one entry of each row of the 2-d ``x``, picked by the integer
    labels ``t``; typically the score of the true class of each example."""
    check_ndim("select_item", "x", x, 2, "x holds one row of scores per example")
    check_ndim("select_item", "t", t, 1, "t holds one label per row of x")
    n, classes = _shape(x)
    if _shape(t)[0] != n:
        raise ShapeError(
            message(
                "select_item",
                f"expected t.shape[0] == x.shape[0], got {_shape(t)[0]} != {n}",
                {"x": x, "t": t},
                "pass one label per row of x",
            )
        )
    check_labels("select_item", "t", t, classes)
    xp = backend.xp(x)
    return ops.getitem(x, (xp.arange(n), xp.asarray(unbox_all(t))))


def permutate(x, indices, axis: int = 0, inv: bool = False):
    """``x`` permuted along ``axis``: ``y[i] = x[indices[i]]``, or ``y[indices[i]] = x[i]`` with
    ``inv``; ``indices`` must be a permutation of ``range(x.shape[axis])``."""
    indices = unbox_all(indices)
    shape = _shape(x)
    axis = check_axis("permutate", "axis", axis, len(shape))
    if getattr(indices, "dtype", numpy.dtype(object)).kind not in "iu" or indices.ndim != 1:
        raise DTypeError(
            message(
                "permutate",
                "expected indices to be a one-dimensional integer array",
                {"indices": indices},
                "pass e.g. numpy.random.permutation(n).astype(numpy.int32)",
            )
        )
    host = backend.to_cpu(indices)
    if not numpy.array_equal(numpy.sort(host), numpy.arange(shape[axis])):
        raise InvalidInputError(
            message(
                "permutate",
                f"expected indices to be a permutation of range({shape[axis]}) (x.shape[{axis}]), "
                f"got {host.tolist() if host.size <= 10 else host}",
                {"x": x, "indices": indices},
                "each position along the axis must appear exactly once",
            )
        )
    indices = backend.xp(x).asarray(indices)
    inverse = backend.xp(indices).argsort(indices)
    return _permute(x, axis=axis, order=inverse if inv else indices, inverse=indices if inv else inverse)


def diagonal(x, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The diagonal of ``x`` over ``axis1`` and ``axis2`` (shifted up by ``offset``), moved to the
    last axis; the other axes are batch axes."""
    return ops.diagonal(x, offset, axis1, axis2)


def where(condition, x, y):
    """Elements of ``x`` where the boolean ``condition`` holds and of ``y`` elsewhere (the three
    broadcast together); the gradient flows to the branch that was chosen."""
    value = unbox_all(condition)  # ops.where keeps a traced condition (recorded for ONNX export)
    kind = getattr(value, "dtype", type(value).__name__)
    if kind != numpy.bool_:
        raise DTypeError(
            message(
                "where",
                f"expected condition to be a boolean array, got {kind}",
                {"condition": value},
                "compare first, e.g. where(a > 0, x, y)",
            )
        )
    shapes = [_shape(value), _shape(x), _shape(y)]
    if not any(_is_weak(v) for v in (x, y)):  # Python and NumPy scalars take the other's dtype
        check_same_dtype("where", ("x", "y"), x, y)
    try:
        numpy.broadcast_shapes(*shapes)
    except ValueError:
        raise ShapeError(
            message(
                "where",
                f"condition, x and y cannot be broadcast together, got shapes {shapes}",
                {"condition": condition, "x": x, "y": y},
                "aligned from the right, each axis must match or be 1",
            )
        ) from None
    return ops.where(condition, x, y)


def as_strided(x, shape, strides, storage_offset: int | None = None):
    """A strided window over the elements of ``x``: ``y[i_0, ..., i_k]`` is element
    ``storage_offset + sum(i_j * strides[j])`` of ``x`` laid out flat in C order. Strides and offset
    count elements, not bytes, and may overlap (then the gradient adds up the overlaps). Unlike
    Chainer, which reads the raw memory of ``x``'s base array, ``x`` is taken as its own
    contiguous buffer, so the offset defaults to 0."""
    shape, strides = tuple(int(s) for s in shape), tuple(int(s) for s in strides)
    if len(shape) != len(strides):
        raise ShapeError(
            f"as_strided: expected one stride per axis, got shape {shape} and strides {strides}\n"
            "  hint: pass strides with len(shape) entries"
        )
    offset = 0 if storage_offset is None else int(storage_offset)
    flat_index = numpy.full(shape, offset, dtype=numpy.int64)
    for axis, (n, stride) in enumerate(zip(shape, strides)):
        flat_index += (numpy.arange(n) * stride).reshape((n,) + (1,) * (len(shape) - axis - 1))
    size = int(numpy.prod(_shape(x)))
    if flat_index.size and (flat_index.min() < 0 or flat_index.max() >= size):
        raise InvalidInputError(
            message(
                "as_strided",
                f"the view reads elements {flat_index.min()}..{flat_index.max()}, "
                f"outside the {size} elements of x",
                {"x": x},
                "reduce the shape, the strides or the storage_offset (all counted in elements)",
            )
        )
    return ops.getitem(ops.reshape(x, (size,)), backend.xp(x).asarray(flat_index))


# -- padding ---------------------------------------------------------------------------------
_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def pad(x, pad_width, mode: str, **keywords):
    """``x`` padded as ``numpy.pad`` does, in the modes constant (keyword ``constant_values``),
    edge, reflect, symmetric and wrap. The gradient of the copied border elements flows back to
    their sources (Chainer ignores it outside the constant mode)."""
    check_float("pad", "x", x)
    if (numpy.asarray(pad_width) < 0).any():
        raise InvalidInputError(
            f"pad: expected pad widths >= 0, got {pad_width!r}\n  hint: crop with get_item instead"
        )
    if mode not in _PAD_MODES:
        raise InvalidInputError(
            f"pad: mode {mode!r} is not supported\n  hint: use one of {', '.join(_PAD_MODES)}"
        )
    unknown = set(keywords) - ({"constant_values"} if mode == "constant" else set())
    if unknown:
        raise InvalidInputError(
            f"pad: unexpected keyword(s) {sorted(unknown)} for mode {mode!r}\n"
            "  hint: only mode='constant' takes a keyword, constant_values"
        )
    return ops.pad(x, pad_width, mode, **keywords)


# -- images ----------------------------------------------------------------------------------
def _check_image(fn: str, name: str, x) -> tuple[int, int, int, int]:
    check_float(fn, name, x)
    check_ndim(fn, name, x, 4, f"{name} has the layout (batch, channels, height, width)")
    return _shape(x)


def depth2space(X, r: int):
    """Rearrange ``(n, c * r * r, h, w)`` into ``(n, c, h * r, w * r)``, each group of ``r * r``
    channels becoming an ``r x r`` block of pixels: the sub-pixel upscaling of super-resolution
    networks, and the inverse of ``space2depth``."""
    n, c, h, w = _check_image("depth2space", "X", X)
    if c % (r * r):
        raise ShapeError(
            message(
                "depth2space",
                f"expected X.shape[1] to be divisible by r * r = {r * r}, got {c}",
                {"X": X},
                "the channels hold r * r sub-pixel planes per output channel",
            )
        )
    c //= r * r
    blocks = ops.transpose(ops.reshape(X, (n, r, r, c, h, w)), (0, 3, 4, 1, 5, 2))
    return ops.reshape(blocks, (n, c, h * r, w * r))


def space2depth(X, r: int):
    """Rearrange ``(n, c, h * r, w * r)`` into ``(n, c * r * r, h, w)``, each ``r x r`` block of
    pixels becoming ``r * r`` channels: the inverse of ``depth2space``."""
    n, c, hr, wr = _check_image("space2depth", "X", X)
    if hr % r or wr % r:
        raise ShapeError(
            message(
                "space2depth",
                f"expected the height and width of X to be divisible by r = {r}, got {hr} and {wr}",
                {"X": X},
                "crop or pad X to a multiple of r",
            )
        )
    h, w = hr // r, wr // r
    blocks = ops.transpose(ops.reshape(X, (n, c, h, r, w, r)), (0, 3, 5, 1, 2, 4))
    return ops.reshape(blocks, (n, r * r * c, h, w))


def _conv_outsize(size: int, k: int, s: int, p: int, cover_all: bool, d: int) -> int:
    span = (k - 1) * d + 1
    return (size + 2 * p - span + (s - 1 if cover_all else 0)) // s + 1


def _padded(size: int, k: int, s: int, p: int, d: int, out: int) -> int:
    """The padded length that every patch of the output reads from."""
    return max(size + 2 * p, (k - 1) * d + (out - 1) * s + 1)


def _patches(img, k, s, d, out):
    """For each kernel offset ``(j, i)``: the window of the padded ``img`` read at that offset."""
    for j in range(k[0]):
        for i in range(k[1]):
            rows = slice(j * d[0], j * d[0] + (out[0] - 1) * s[0] + 1, s[0])
            cols = slice(i * d[1], i * d[1] + (out[1] - 1) * s[1] + 1, s[1])
            yield j, i, (Ellipsis, rows, cols)


@primitive
def _im2col(x, *, k, s, p, d, out):
    n, c, h, w = x.shape
    xp = backend.xp(x)
    hp, wp = (_padded(size, k[a], s[a], p[a], d[a], out[a]) for a, size in enumerate((h, w)))
    img = xp.pad(x, ((0, 0), (0, 0), (p[0], hp - h - p[0]), (p[1], wp - w - p[1])))
    col = xp.empty((n, c, k[0], k[1], out[0], out[1]), dtype=x.dtype)
    for j, i, window in _patches(img, k, s, d, out):
        col[:, :, j, i] = img[window]
    return col.reshape(n, c * k[0] * k[1], out[0], out[1])


@primitive
def _col2im(col, *, k, s, p, d, size):
    n, ckk, oh, ow = col.shape
    c = ckk // (k[0] * k[1])
    col = col.reshape(n, c, k[0], k[1], oh, ow)
    hp, wp = (_padded(size[a], k[a], s[a], p[a], d[a], (oh, ow)[a]) for a in (0, 1))
    img = backend.xp(col).zeros((n, c, hp, wp), dtype=col.dtype)
    for j, i, window in _patches(img, k, s, d, (oh, ow)):
        img[window] += col[:, :, j, i]
    return img[:, :, p[0] : p[0] + size[0], p[1] : p[1] + size[1]]


_im2col.defvjp(lambda g, ans, x, *, k, s, p, d, out: _col2im(g, k=k, s=s, p=p, d=d, size=_shape(x)[2:]))
_col2im.defvjp(lambda g, ans, col, *, k, s, p, d, size: _im2col(g, k=k, s=s, p=p, d=d, out=_shape(col)[2:]))


def im2col(x, ksize, stride=1, pad=0, cover_all: bool = False, dilate=1):
    """The ``ksize`` patches of the image batch ``x`` ``(n, c, h, w)``, read at every ``stride``
    from ``-pad`` with ``dilate`` spacing, laid out as ``(n, c * kh * kw, out_h, out_w)`` (channel
    major, then kernel row and column): a convolution becomes a matrix product. ``cover_all``
    adds output positions until every input pixel is covered."""
    n, c, h, w = _check_image("im2col", "x", x)
    k, s, p, d = (
        _pair("im2col", name, v)
        for name, v in zip(("ksize", "stride", "pad", "dilate"), (ksize, stride, pad, dilate))
    )
    if min(k + s + d) < 1 or min(p) < 0:
        raise InvalidInputError(
            f"im2col: expected ksize, stride, dilate >= 1 and pad >= 0, got ksize={k}, stride={s}, "
            f"dilate={d}, pad={p}"
        )
    out = (
        _conv_outsize(h, k[0], s[0], p[0], cover_all, d[0]),
        _conv_outsize(w, k[1], s[1], p[1], cover_all, d[1]),
    )
    if min(out) < 1:
        raise ShapeError(
            message(
                "im2col",
                f"the kernel {k} with dilation {d} does not fit the padded image "
                f"{(h + 2 * p[0], w + 2 * p[1])}",
                {"x": x},
                "use a smaller ksize or dilate, or more pad",
            )
        )
    return _im2col(x, k=k, s=s, p=p, d=d, out=out)


def _interpolation_matrix(size: int, out: int, mode: str, align_corners: bool) -> numpy.ndarray:
    """The ``(out, size)`` matrix resizing one image axis: each row holds the weights with which
    one output position mixes the input pixels (two neighbours, or one for ``nearest``)."""
    rows = numpy.arange(out)
    matrix = numpy.zeros((out, size))
    if mode == "nearest":
        matrix[rows, numpy.minimum(numpy.floor(rows * (size / out)), size - 1).astype(numpy.intp)] = 1
        return matrix
    if align_corners:
        position = numpy.linspace(0, size - 1, num=out)
    else:
        position = numpy.maximum((rows + 0.5) * (size / out) - 0.5, 0)
    weight, low = numpy.modf(position)
    low = low.astype(numpy.intp)
    numpy.add.at(matrix, (rows, low), 1 - weight)
    numpy.add.at(matrix, (rows, numpy.minimum(low + 1, size - 1)), weight)
    return matrix


def resize_images(x, output_shape, *, mode: str = "bilinear", align_corners: bool = True):
    """Images ``(n, c, h, w)`` resized to ``output_shape = (h_out, w_out)``, by bilinear
    interpolation (corners mapped onto corners with ``align_corners``, OpenCV's pixel centres
    without) or by taking the nearest pixel. Resizing is separable, so it is computed as two
    matrix products with the interpolation matrix of each axis: exact, and several times faster
    than gathering the neighbours, whose gradient would scatter them back one by one."""
    n, c, h, w = _check_image("resize_images", "x", x)
    out_h, out_w = _pair("resize_images", "output_shape", output_shape)
    if mode not in ("bilinear", "nearest"):
        raise InvalidInputError(
            f"resize_images: mode {mode!r} is not supported\n  hint: use 'bilinear' or 'nearest'"
        )
    xp, dtype = backend.xp(x), unbox_all(x).dtype
    rows = xp.asarray(_interpolation_matrix(h, out_h, mode, align_corners).astype(dtype))
    cols = xp.asarray(_interpolation_matrix(w, out_w, mode, align_corners).T.astype(dtype))
    return ops.matmul(ops.matmul(rows, x), cols)


def _no_cudnn_keywords(fn: str, kwargs: dict) -> None:
    if "use_cudnn" in kwargs:
        raise InvalidInputError(
            f"{fn}: the argument use_cudnn is not supported anymore\n"
            "  hint: fnet chooses its kernels itself; drop the argument"
        )
    if kwargs:
        raise TypeError(f"{fn}() got unexpected keyword arguments {sorted(kwargs)}")


def spatial_transformer_grid(theta, output_shape, **kwargs):
    """The sampling grid of a spatial transformer: for each output pixel ``(x_t, y_t)`` on a
    regular ``[-1, 1]`` grid of ``output_shape = (h_out, w_out)``, the source point
    ``theta @ (x_t, y_t, 1)``, as ``(n, 2, h_out, w_out)`` with the x coordinate first."""
    _no_cudnn_keywords("spatial_transformer_grid", kwargs)
    check_float("spatial_transformer_grid", "theta", theta)
    check_ndim("spatial_transformer_grid", "theta", theta, 3, "theta is a batch of 2x3 affine matrices")
    if _shape(theta)[1:] != (2, 3):
        raise ShapeError(
            message(
                "spatial_transformer_grid",
                f"expected theta.shape[1:] == (2, 3), got {_shape(theta)[1:]}",
                {"theta": theta},
                "theta holds one 2x3 affine matrix per example",
            )
        )
    h, w = _pair("spatial_transformer_grid", "output_shape", output_shape)
    dtype = unbox_all(theta).dtype
    ys, xs = numpy.meshgrid(numpy.linspace(-1, 1, h), numpy.linspace(-1, 1, w), indexing="ij")
    coords = numpy.stack([xs.ravel(), ys.ravel(), numpy.ones(h * w)]).astype(dtype)
    grid = ops.matmul(theta, backend.xp(theta).asarray(coords))
    return ops.reshape(grid, (_shape(theta)[0], 2, h, w))


def _sampling_position(coord, size: int, xp):
    """A coordinate in ``[-1, 1]`` on an axis of ``size`` pixels as a position in the image padded
    by one ring of zeros (clipped onto that ring): its lower pixel, and its distance from that
    pixel in ``[0, 1]``, the weight of the upper pixel (differentiable in ``coord``)."""
    position = ops.clip(ops.add(ops.multiply(ops.add(coord, 1), (size - 1) / 2), 1), 0, size + 1)
    low = xp.minimum(xp.floor(unbox_all(position)), size).astype(numpy.intp)
    return low, ops.subtract(position, low)


def spatial_transformer_sampler(x, grid, **kwargs):
    """The images ``x`` ``(n, c, h, w)`` sampled bilinearly at the points of ``grid``
    ``(n, 2, h_out, w_out)`` (x then y, ``[-1, 1]`` spanning the image, zeros outside it), giving
    ``(n, c, h_out, w_out)``; differentiable in both ``x`` and ``grid``."""
    _no_cudnn_keywords("spatial_transformer_sampler", kwargs)
    n, c, h, w = _check_image("spatial_transformer_sampler", "x", x)
    check_ndim("spatial_transformer_sampler", "grid", grid, 4, "grid has the layout (batch, 2, h_out, w_out)")
    check_same_dtype("spatial_transformer_sampler", ("x", "grid"), x, grid)
    if _shape(grid)[:2] != (n, 2):
        raise ShapeError(
            message(
                "spatial_transformer_sampler",
                f"expected grid.shape[:2] == (x.shape[0], 2) = {(n, 2)}, got {_shape(grid)[:2]}",
                {"x": x, "grid": grid},
                "grid holds an (x, y) point per output pixel for each image of x",
            )
        )
    xp = backend.xp(x)
    u0, du = _sampling_position(ops.getitem(grid, (slice(None), 0)), w, xp)
    v0, dv = _sampling_position(ops.getitem(grid, (slice(None), 1)), h, xp)
    eu, ev = ops.subtract(1, du), ops.subtract(1, dv)
    weights = ops.stack(
        [ops.multiply(eu, ev), ops.multiply(du, ev), ops.multiply(eu, dv), ops.multiply(du, dv)]
    )
    rows = xp.stack([v0, v0, v0 + 1, v0 + 1])
    cols = xp.stack([u0, u0 + 1, u0, u0 + 1])
    batch = xp.arange(n).reshape(1, n, 1, 1)
    padded = ops.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    corners = ops.getitem(padded, (batch, slice(None), rows, cols))  # (4, n, h_out, w_out, c)
    sampled = ops.sum(ops.multiply(corners, ops.expand_dims(weights, -1)), axis=0)
    return ops.transpose(sampled, (0, 3, 1, 2))
