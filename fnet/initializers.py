"""Initializers: Chainer's weight initializers as frozen specs whose call is a pure function of a key.

An initializer holds only its hyperparameters (Chainer's constructor arguments and defaults).
Calling it, ``init(key, shape, dtype=None)``, returns a new NumPy array; the same key always
gives the same array, and a deterministic initializer (``Constant``, ``Identity``...) ignores
the key. The dtype is the one passed to the call, else the initializer's own ``dtype``, else
float32. The scales follow Chainer's fan rules (``get_fans``): for a weight of shape
``(out, in, *kernel)``, ``fan_in = in * prod(kernel)`` and ``fan_out = out * prod(kernel)``.

The hyperparameters are static fields of the pytree (an initializer has no leaves, except the
array of a ``Constant``), and initializers compare and hash by value, so a layer spec can hold
them in its static structure.

>>> from fnet import initializers, random
>>> w = initializers.GlorotUniform()(random.key(0), (3, 4))
>>> w.shape, w.dtype
((3, 4), dtype('float32'))
>>> bool(abs(w).max() <= (6 / (3 + 4)) ** 0.5)
True
"""

from __future__ import annotations

import abc
import contextlib
import contextvars
import math
import numbers
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, ClassVar

import attrs
import numpy

from . import backend, random
from .errors import ArgumentTypeError, DTypeError, InvalidInputError, ShapeError, aval, message
from .tree import static_field

__all__ = [
    "Initializer",
    "Constant",
    "Zero",
    "One",
    "NaN",
    "Identity",
    "Normal",
    "LeCunNormal",
    "GlorotNormal",
    "HeNormal",
    "Uniform",
    "LeCunUniform",
    "GlorotUniform",
    "HeUniform",
    "Orthogonal",
    "UpsamplingDeconvFilter",
    "DownsamplingConvFilter",
    "get_fans",
    "generate_array",
    "as_initializer",
    "default_dtype",
]

_Shape = int | Sequence[int]


# -- argument checks ----------------------------------------------------------------------------


def _as_shape(op: str, shape) -> tuple[int, ...]:
    """``shape`` as a tuple of non-negative ints (an int ``n`` means ``(n,)``)."""
    dims = (shape,) if isinstance(shape, (int, numpy.integer)) else shape
    try:
        dims = tuple(dims)
    except TypeError:
        dims = None
    if dims is None or not all(
        isinstance(d, (int, numpy.integer)) and not isinstance(d, bool) and d >= 0 for d in dims
    ):
        raise ShapeError(
            message(
                op,
                f"expected shape to be a tuple of non-negative ints, got {shape!r}",
                hint="pass the array's shape, e.g. (out_size, in_size)",
            )
        )
    return tuple(int(d) for d in dims)


def _as_dtype(op: str, dtype) -> numpy.dtype | None:
    """``dtype`` as a numpy dtype (None stays None)."""
    if dtype is None:
        return None
    try:
        return numpy.dtype(dtype)
    except TypeError as e:
        raise DTypeError(
            message(
                op, f"expected dtype to be a NumPy dtype or None, got {dtype!r}", hint="e.g. numpy.float32"
            )
        ) from e


_default_dtype: contextvars.ContextVar[numpy.dtype | None] = contextvars.ContextVar(
    "fnet_initializer_dtype", default=None
)  # None: float32


@contextlib.contextmanager
def default_dtype(dtype):
    """Within the block, initializers asked for no dtype make ``dtype`` (float32 elsewhere).

    The Chainer layer draws a link's parameters in ``config.dtype`` this way, at that
    precision, as Chainer does, through specs that ask for no dtype.

    >>> with default_dtype(numpy.float64):
    ...     Zero()(None, 2).dtype
    dtype('float64')
    """
    token = _default_dtype.set(_as_dtype("default_dtype", dtype))
    try:
        yield
    finally:
        _default_dtype.reset(token)


def _resolve_dtype(op: str, own: numpy.dtype | None, asked) -> numpy.dtype:
    """The dtype of the array to make: the one asked for, the initializer's own, or the
    default (float32, or the one of ``default_dtype``)."""
    asked = _as_dtype(op, asked)
    if asked is not None and own is not None and asked != own:
        raise DTypeError(
            message(
                op,
                f"expected dtype to match the initializer's dtype {own}, got {asked}",
                hint="leave dtype out to use the initializer's, or build the initializer with dtype=None",
            )
        )
    if asked is not None:
        return asked
    if own is not None:
        return own
    default = _default_dtype.get()
    return numpy.dtype(numpy.float32) if default is None else default


def _require_float(op: str, dtype: numpy.dtype) -> None:
    if dtype.kind != "f":
        raise DTypeError(
            message(
                op,
                f"expected a floating-point dtype, got {dtype}",
                hint="random initializers make float arrays; pass dtype=numpy.float32 (or float16/float64)",
            )
        )


def _require_key(op: str, key):
    """``key`` if it is an fnet.random key (uint32[4]); an error saying how to make one otherwise."""
    value = numpy.asarray(backend.to_cpu(key)) if backend.is_array(key) else None
    if value is None or value.shape != (4,) or value.dtype != numpy.uint32:
        raise InvalidInputError(
            message(
                op,
                f"expected key to be a random key (uint32[4]), got {aval(key)}",
                hint="pass fnet.random.key(seed), and a fresh one per parameter (fnet.random.split)",
            )
        )
    return value


def _one_of(choices: tuple[str, ...]) -> Callable:
    """An attrs validator: the value must be one of ``choices``."""

    def check(instance, attribute, value):
        if value not in choices:
            raise InvalidInputError(
                message(
                    type(instance).__name__,
                    f"expected {attribute.name} to be one of {', '.join(map(repr, choices))}, got {value!r}",
                    hint=f"use {attribute.name}={choices[0]!r} (Chainer's default)",
                )
            )

    return check


def _dtype_field():
    """The ``dtype`` field every initializer has: None, or a dtype (normalized to numpy.dtype)."""
    return static_field(default=None, converter=lambda d: _as_dtype("initializer", d))


def _fans(op: str, shape: tuple[int, ...]) -> tuple[int, int]:
    if len(shape) < 2:
        raise ShapeError(
            message(
                op,
                f"expected a shape of length >= 2 (out, in, *kernel) to compute fans, got {shape}",
                hint="fan-scaled initializers are for weights; use Normal or Uniform for vectors",
            )
        )
    receptive_field = math.prod(shape[2:])
    return shape[1] * receptive_field, shape[0] * receptive_field


def get_fans(shape: _Shape) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight shape ``(out, in, *kernel)``, as Chainer computes them.

    >>> get_fans((64, 3, 5, 5))
    (75, 1600)
    """
    op = "initializers.get_fans"
    return _fans(op, _as_shape(op, shape))


def _sqrt_ratio(numerator: float, fan: int) -> float:
    """``sqrt(numerator / fan)``; a zero fan only occurs for empty arrays, whose scale is moot."""
    return math.sqrt(numerator / fan) if fan else 0.0


# -- the base class -----------------------------------------------------------------------------


@attrs.frozen
class Initializer(abc.ABC):
    """Base of the initializers: ``init(key, shape, dtype=None)`` returns a new array.

    ``dtype`` is None or the dtype the initializer makes. A subclass defines ``_generate``, and
    declares ``dtype`` again after its own arguments to keep Chainer's argument order.
    """

    dtype: numpy.dtype | None = _dtype_field()

    def __call__(self, key, shape: _Shape, dtype=None) -> numpy.ndarray:
        """A new array of ``shape``, drawn with ``key`` (ignored by deterministic initializers)."""
        op = type(self).__name__
        return self._generate(key, _as_shape(op, shape), _resolve_dtype(op, self.dtype, dtype))

    @abc.abstractmethod
    def _generate(self, key, shape: tuple[int, ...], dtype: numpy.dtype) -> numpy.ndarray:
        """The array, for a checked shape and a resolved dtype."""


# -- constants ----------------------------------------------------------------------------------


@attrs.frozen
class _Fill(Initializer):
    """Fills the array with ``fill_value`` (broadcast to the shape, cast to the dtype)."""

    def _generate(self, key, shape, dtype):
        op = type(self).__name__
        fill = numpy.asarray(backend.to_cpu(self.fill_value))
        if dtype.kind not in "fc" and fill.dtype.kind in "fc" and not numpy.isfinite(fill).all():
            raise DTypeError(
                message(
                    op,
                    f"expected a float or complex dtype for a non-finite fill value, got {dtype}",
                    hint="pass dtype=numpy.float32 (NaN and inf have no integer value)",
                )
            )
        try:
            filled = numpy.broadcast_to(fill.astype(dtype), shape)
        except ValueError as e:
            raise ShapeError(
                message(
                    op,
                    f"expected fill_value to broadcast to shape {shape}, got shape {fill.shape}",
                    {"fill_value": fill},
                    hint="give a scalar, or an array whose shape broadcasts to the parameter's",
                )
            ) from e
        return numpy.array(filled)


def _frozen_fill(value):
    """A Constant's fill value: a number, or a read-only private copy of an array."""
    if isinstance(value, numpy.ndarray):
        value = value.copy()
        value.setflags(write=False)
        return value
    if backend.is_array(value):  # a NumPy scalar or a CuPy array
        return value.copy()
    if isinstance(value, numbers.Number):
        return value
    raise InvalidInputError(
        message(
            "Constant",
            f"expected fill_value to be a number or an array, got {type(value).__name__}",
            {"fill_value": value},
            hint="e.g. Constant(0.5) or Constant(numpy.ones((3, 4)))",
        )
    )


def _same_fill(a, b) -> bool:
    if a is b:
        return True
    a, b = backend.to_cpu(a), backend.to_cpu(b)
    same_shape = numpy.shape(a) == numpy.shape(b)
    return same_shape and numpy.asarray(a).dtype == numpy.asarray(b).dtype and numpy.array_equal(a, b, True)


@attrs.frozen
class Constant(_Fill):
    """Fills the array with ``fill_value``: a scalar, or an array broadcast to the shape.

    The array is copied (and made read-only) when the initializer is built. It is the
    initializer's only pytree leaf, so ``fnet.backend.to_device`` moves it.

    >>> Constant(0.5)(None, (2,))
    array([0.5, 0.5], dtype=float32)
    """

    fill_value: Any = attrs.field(converter=_frozen_fill, eq=attrs.cmp_using(eq=_same_fill), hash=False)
    dtype: numpy.dtype | None = _dtype_field()


@attrs.frozen
class Zero(_Fill):
    """Fills the array with zeros."""

    fill_value: ClassVar[float] = 0.0


@attrs.frozen
class One(_Fill):
    """Fills the array with ones."""

    fill_value: ClassVar[float] = 1.0


@attrs.frozen
class NaN(_Fill):
    """Fills the array with NaN (a float or complex dtype is required)."""

    fill_value: ClassVar[float] = math.nan


@attrs.frozen
class Identity(Initializer):
    """``scale`` times the identity matrix; for square 2-D shapes only.

    >>> Identity(2.0)(None, (2, 2))
    array([[2., 0.],
           [0., 2.]], dtype=float32)
    """

    scale: float = static_field(default=1.0)
    dtype: numpy.dtype | None = _dtype_field()

    def _generate(self, key, shape, dtype):
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ShapeError(
                message(
                    "Identity",
                    f"expected a square 2-D shape (n, n), got {shape}",
                    hint="the identity initializer is for square matrices; use Orthogonal otherwise",
                )
            )
        return (numpy.identity(shape[0]) * self.scale).astype(dtype)


# -- random initializers ------------------------------------------------------------------------


@attrs.frozen
class _Random(Initializer):
    """An initializer that draws random numbers: from ``key``, or from Chainer's ``rng`` if given.

    ``rng`` (keyword-only, as in Chainer) is a ``numpy.random.RandomState``; when it is set, the
    numbers are drawn from it exactly as Chainer draws them (so a seeded RandomState reproduces
    Chainer's arrays) and the key is ignored. Drawing advances the RandomState: the call is then
    not pure, which is why the key is the default.
    """

    rng: numpy.random.RandomState | None = static_field(default=None, kw_only=True)

    def _check(self, key, dtype: numpy.dtype):
        op = type(self).__name__
        _require_float(op, dtype)
        return None if self.rng is not None else _require_key(op, key)

    def _normal(self, key, shape: tuple[int, ...], stddev: float) -> numpy.ndarray:
        """Float64 samples of N(0, stddev^2)."""
        if self.rng is not None:
            return numpy.asarray(self.rng.normal(loc=0.0, scale=stddev, size=shape))
        return random.normal(key, shape, numpy.float64, stddev=stddev)

    def _uniform(self, key, shape: tuple[int, ...], bound: float) -> numpy.ndarray:
        """Float64 samples of U[-bound, bound)."""
        if self.rng is not None:
            return numpy.asarray(self.rng.uniform(low=-bound, high=bound, size=shape))
        return random.uniform(key, shape, numpy.float64, low=-bound, high=bound)


@attrs.frozen
class _ScaledNormal(_Random):
    """Normal samples whose standard deviation ``_spread(shape)`` depends on the shape."""

    def _generate(self, key, shape, dtype):
        key = self._check(key, dtype)
        return self._normal(key, shape, self._spread(shape)).astype(dtype)

    @abc.abstractmethod
    def _spread(self, shape: tuple[int, ...]) -> float:
        """The standard deviation for an array of ``shape``."""


@attrs.frozen
class _ScaledUniform(_Random):
    """Uniform samples on ``[-s, s)`` whose bound ``s = _spread(shape)`` depends on the shape."""

    def _generate(self, key, shape, dtype):
        key = self._check(key, dtype)
        return self._uniform(key, shape, self._spread(shape)).astype(dtype)

    @abc.abstractmethod
    def _spread(self, shape: tuple[int, ...]) -> float:
        """The bound for an array of ``shape``."""


@attrs.frozen
class Normal(_ScaledNormal):
    """Samples of a normal distribution with mean 0 and standard deviation ``scale``.

    >>> from fnet import random
    >>> Normal(0.1)(random.key(0), (2, 3), numpy.float64).dtype
    dtype('float64')
    """

    scale: float = static_field(default=0.05)
    dtype: numpy.dtype | None = _dtype_field()

    def _spread(self, shape):
        return self.scale


@attrs.frozen
class LeCunNormal(_ScaledNormal):
    """Normal samples with standard deviation ``scale * sqrt(1 / fan_in)`` (LeCun 98)."""

    scale: float = static_field(default=1.0)
    dtype: numpy.dtype | None = _dtype_field()

    def _spread(self, shape):
        fan_in, _ = _fans(type(self).__name__, shape)
        return self.scale * _sqrt_ratio(1.0, fan_in)


@attrs.frozen
class GlorotNormal(_ScaledNormal):
    """Normal samples with standard deviation ``scale * sqrt(2 / (fan_in + fan_out))`` (Glorot 2010)."""

    scale: float = static_field(default=1.0)
    dtype: numpy.dtype | None = _dtype_field()

    def _spread(self, shape):
        fan_in, fan_out = _fans(type(self).__name__, shape)
        return self.scale * _sqrt_ratio(2.0, fan_in + fan_out)


_FAN_OPTIONS = ("fan_in", "fan_out")


@attrs.frozen
class HeNormal(_ScaledNormal):
    """Normal samples with standard deviation ``scale * sqrt(2 / fan)`` (He et al. 2015).

    ``fan`` is ``fan_in`` or ``fan_out``, as ``fan_option`` says.
    """

    scale: float = static_field(default=1.0)
    dtype: numpy.dtype | None = _dtype_field()
    fan_option: str = static_field(default="fan_in", validator=_one_of(_FAN_OPTIONS))

    def _spread(self, shape):
        fan_in, fan_out = _fans("HeNormal", shape)
        return self.scale * _sqrt_ratio(2.0, fan_in if self.fan_option == "fan_in" else fan_out)


@attrs.frozen
class Uniform(_ScaledUniform):
    """Samples uniform on ``[-scale, scale)``."""

    scale: float = static_field(default=0.05)
    dtype: numpy.dtype | None = _dtype_field()

    def _spread(self, shape):
        return self.scale


@attrs.frozen
class LeCunUniform(_ScaledUniform):
    """Samples uniform on ``[-s, s)`` with ``s = scale * sqrt(3 / fan_in)``."""

    scale: float = static_field(default=1.0)
    dtype: numpy.dtype | None = _dtype_field()

    def _spread(self, shape):
        fan_in, _ = _fans(type(self).__name__, shape)
        return self.scale * _sqrt_ratio(3.0, fan_in)


@attrs.frozen
class GlorotUniform(_ScaledUniform):
    """Samples uniform on ``[-s, s)`` with ``s = scale * sqrt(6 / (fan_in + fan_out))``."""

    scale: float = static_field(default=1.0)
    dtype: numpy.dtype | None = _dtype_field()

    def _spread(self, shape):
        fan_in, fan_out = _fans(type(self).__name__, shape)
        return self.scale * _sqrt_ratio(6.0, fan_in + fan_out)


@attrs.frozen
class HeUniform(_ScaledUniform):
    """Samples uniform on ``[-s, s)`` with ``s = scale * sqrt(6 / fan_in)``."""

    scale: float = static_field(default=1.0)
    dtype: numpy.dtype | None = _dtype_field()

    def _spread(self, shape):
        fan_in, _ = _fans(type(self).__name__, shape)
        return self.scale * _sqrt_ratio(6.0, fan_in)


# mode -> (fail when there are more inputs than outputs, fail when there are fewer)
_ORTHOGONAL_MODES = {
    "auto": (False, False),
    "projection": (False, True),
    "embedding": (True, False),
    "basis": (True, True),
}


@attrs.frozen
class Orthogonal(_Random):
    """``scale`` times a random (semi-)orthogonal matrix (Saxe et al. 2013).

    The array is seen as a matrix of ``shape[0]`` rows and ``prod(shape[1:])`` columns. A
    standard normal matrix of that shape (transposed when it is wide) is QR-decomposed, the
    signs are fixed so that ``R`` has a non-negative diagonal, and ``Q`` (transposed back) is
    scaled: its rows are orthogonal when there are at most as many rows as columns, its columns
    otherwise. ``mode`` restricts the shape: ``'projection'`` refuses more rows than columns,
    ``'embedding'`` fewer, ``'basis'`` both; ``'auto'`` takes any. A 0-d array gets
    ``scale`` with a random sign.

    >>> from fnet import random
    >>> q = Orthogonal(scale=1.0)(random.key(0), (3, 5), numpy.float64)
    >>> bool(numpy.allclose(q @ q.T, numpy.eye(3)))
    True
    """

    scale: float = static_field(default=1.1)
    dtype: numpy.dtype | None = _dtype_field()
    mode: str = static_field(default="auto", validator=_one_of(tuple(_ORTHOGONAL_MODES)))

    def _generate(self, key, shape, dtype):
        key = self._check(key, dtype)
        if not shape:
            bit = self.rng.randint(2) if self.rng is not None else random.randint(key, (), 0, 2)
            return numpy.asarray(self.scale * (2 * int(bit) - 1), dtype)
        rows, cols = shape[0], math.prod(shape[1:])
        fail_wide, fail_tall = _ORTHOGONAL_MODES[self.mode]
        if rows * cols == 0 or (cols > rows and fail_wide) or (cols < rows and fail_tall):
            raise ShapeError(
                message(
                    "Orthogonal",
                    f"cannot make an orthogonal {'array' if self.mode == 'auto' else self.mode} of shape "
                    f"{shape} ({rows} rows of {cols} columns)",
                    hint="the array must be non-empty; mode='embedding' needs rows >= columns, "
                    "'projection' rows <= columns, 'basis' both; mode='auto' accepts any non-empty shape",
                )
            )
        wide = cols > rows
        gaussian = self._normal(key, (rows, cols), 1.0)
        q, r = numpy.linalg.qr(gaussian.T if wide else gaussian)
        q = q * numpy.copysign(self.scale, numpy.diag(r))
        return (q.T if wide else q).reshape(shape).astype(dtype)


# -- up/downsampling filters --------------------------------------------------------------------


@attrs.frozen
class _SamplingFilter(Initializer):
    """Bilinear (n-linear) interpolation kernels on the channel diagonal of a convolution weight."""

    interpolation: str = static_field(default="linear", validator=_one_of(("linear",)))
    dtype: numpy.dtype | None = _dtype_field()
    _normalized: ClassVar[bool]

    def _generate(self, key, shape, dtype):
        op = type(self).__name__
        problem = None
        if len(shape) < 3:
            problem = f"expected a weight shape (in_channels, out_channels, k, ...), got {shape}"
        elif shape[1] not in (shape[0], 1):
            problem = f"expected out_channels == in_channels or 1, got shape {shape}"
        elif len(set(shape[2:])) != 1:
            problem = f"expected the same kernel size on every spatial axis, got {shape[2:]}"
        if problem is not None:
            raise ShapeError(message(op, problem, hint="e.g. shape (c, c, 4, 4) for stride 2"))
        size = shape[2]
        factor = (size + 1) // 2
        center = factor - 1.0 if size % 2 == 1 else factor - 0.5
        tent = 1.0 - numpy.abs(numpy.arange(size) - center) / factor
        kernel = tent
        for _ in shape[3:]:
            kernel = numpy.multiply.outer(kernel, tent)
        if self._normalized:
            kernel = kernel / kernel.sum()
        out = numpy.zeros(shape, dtype)
        channels = numpy.arange(shape[0])
        out[channels, 0 if shape[1] == 1 else channels] = kernel
        return out


@attrs.frozen
class UpsamplingDeconvFilter(_SamplingFilter):
    """Bilinear upsampling kernels, for a deconvolution whose stride is ``(ksize + 1) // 2``.

    The weight has shape ``(c, c, k, ..., k)`` (or ``(c, 1, k, ...)``); each channel maps to
    itself through the interpolation kernel, and channels do not mix.
    """

    _normalized: ClassVar[bool] = False


@attrs.frozen
class DownsamplingConvFilter(_SamplingFilter):
    """Like ``UpsamplingDeconvFilter``, with each kernel normalized to sum 1 (for a convolution)."""

    _normalized: ClassVar[bool] = True


# -- helpers for layers -------------------------------------------------------------------------


def _is_numpy_or_cupy(xp) -> bool:
    return xp is numpy or getattr(xp, "__name__", None) == "cupy"


def generate_array(
    initializer: Callable, shape: _Shape, xp: ModuleType, dtype=None, device=None, *, key=None
):
    """A new array made by ``initializer`` on the device of ``xp`` (or ``device``).

    Chainer's signature, made pure: Chainer's initializers fill an array in place from a global
    random state, fnet's are called as ``initializer(key, shape, dtype)``, so the randomness is
    the keyword-only ``key`` (deterministic initializers need none). The dtype is ``dtype``,
    else ``initializer.dtype``, else float32; giving both, different, is an error. The array is
    made on the host and sent to ``device`` (a device spec, which must agree with ``xp``), or
    for CuPy to the current device.

    >>> import numpy
    >>> from fnet import random
    >>> generate_array(HeNormal(), (4, 3), numpy, key=random.key(0)).shape
    (4, 3)
    """
    op = "initializers.generate_array"
    if not _is_numpy_or_cupy(xp):
        raise InvalidInputError(
            message(op, f"expected xp to be numpy or cupy, got {xp!r}", hint="pass the array module itself")
        )
    if device is None:
        target = backend.CpuDevice() if xp is numpy else backend.current_device()
        if not isinstance(target, backend.GpuDevice) and xp is not numpy:
            target = backend.GpuDevice(xp.cuda.runtime.getDevice())
    else:
        target = backend.get_device(device)
        if isinstance(target, backend.CpuDevice) != (xp is numpy):
            raise InvalidInputError(
                message(
                    op,
                    f"expected device to hold {xp.__name__} arrays, got {target}",
                    hint="pass xp=numpy with a CPU device, xp=cupy with a GPU device (or leave device out)",
                )
            )
    shape = _as_shape(op, shape)
    array = initializer(
        key, shape, _resolve_dtype(op, _as_dtype(op, getattr(initializer, "dtype", None)), dtype)
    )
    if numpy.shape(array) != shape:
        raise ShapeError(
            message(
                op,
                f"expected the initializer to return an array of shape {shape}, got {numpy.shape(array)}",
                {"initializer result": array},
                hint="an initializer is called as initializer(key, shape, dtype) and returns a new array",
            )
        )
    return target.send(array)


def as_initializer(initializer, default: Callable | None = None) -> Callable:
    """Turn a Chainer-style initial value into an initializer (Chainer's ``_get_initializer``).

    ``None`` gives ``default`` (``LeCunNormal()`` when no default is given), a number or an
    array gives ``Constant`` of it, and an initializer (any callable ``(key, shape, dtype)``)
    is returned as it is.

    >>> as_initializer(None)
    LeCunNormal(rng=None, scale=1.0, dtype=None)
    >>> as_initializer(0, default=Zero())
    Constant(fill_value=0, dtype=None)
    """
    if initializer is None:
        return LeCunNormal() if default is None else default
    if backend.is_array(initializer) or isinstance(initializer, numbers.Number):
        return Constant(initializer)
    if callable(initializer):
        return initializer
    raise ArgumentTypeError(  # a TypeError, as Chainer's
        message(
            "initializers.as_initializer",
            f"expected an initializer, an array, a number or None, got {type(initializer).__name__}",
            {"initializer": initializer},
            hint="e.g. initialW=fnet.initializers.HeNormal(), initialW=0.0 or initialW=an array",
        )
    )
