"""Chainer's initializers: fnet's, also callable Chainer's way, ``initializer(array)`` in place.

Chainer draws an initializer's random numbers from NumPy's global random state, so that
``numpy.random.seed`` repeats them; called Chainer's way, these do the same. Links hand them
to their pure specs, which call them fnet's way, ``initializer(key, shape, dtype)``.
"""

from __future__ import annotations

import numpy

from ... import backend
from ... import initializers as _pure
from .. import chainerx, configuration
from .._random import next_key
from ..backend import get_device
from ..chainerx._array import raw as chainerx_data

__all__ = [
    "constant",
    "normal",
    "orthogonal",
    "sampling",
    "uniform",
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
    "as_pure",
]

get_fans = _pure.get_fans


class Initializer:
    """Base of Chainer-style initializers written by users: define ``__call__(self, array)``,
    which fills ``array`` in place. ``dtype`` is the dtype made (None: ``config.dtype``)."""

    def __init__(self, dtype=None):
        self.dtype = None if dtype is None else numpy.dtype(dtype)

    def __call__(self, array):
        raise NotImplementedError(f"{type(self).__name__} must define __call__(self, array)")


def _fill_in_place(pure_call, self, array) -> None:
    rng = getattr(self, "rng", 0)
    if rng is None:  # draw from NumPy's global state, as Chainer does
        import attrs

        self = attrs.evolve(self, rng=numpy.random.mtrand._rand)
    array[...] = backend.to_device(
        pure_call(self, next_key(), array.shape, array.dtype), backend.get_device_from_array(array)
    )


def _chainer_callable(pure_cls: type) -> type:
    """``pure_cls`` whose instances can also be called Chainer's way, ``init(array)``."""

    def __call__(self, *args, **kwargs):
        target = chainerx_data(args[0]) if len(args) == 1 and not kwargs else None  # a ChainerX
        if backend.is_array(target):  # array's: the memory under it
            _fill_in_place(pure_cls.__call__, self, target)
            return None
        return pure_cls.__call__(self, *args, **kwargs)

    cls = type(
        pure_cls.__name__, (pure_cls,), {"__call__": __call__, "__module__": __name__, "__slots__": ()}
    )
    cls.__qualname__ = pure_cls.__name__
    cls.__doc__ = pure_cls.__doc__
    return cls


Constant = _chainer_callable(_pure.Constant)
Zero = _chainer_callable(_pure.Zero)
One = _chainer_callable(_pure.One)
NaN = _chainer_callable(_pure.NaN)
Identity = _chainer_callable(_pure.Identity)
Normal = _chainer_callable(_pure.Normal)
LeCunNormal = _chainer_callable(_pure.LeCunNormal)
GlorotNormal = _chainer_callable(_pure.GlorotNormal)
HeNormal = _chainer_callable(_pure.HeNormal)
Uniform = _chainer_callable(_pure.Uniform)
LeCunUniform = _chainer_callable(_pure.LeCunUniform)
GlorotUniform = _chainer_callable(_pure.GlorotUniform)
HeUniform = _chainer_callable(_pure.HeUniform)
Orthogonal = _chainer_callable(_pure.Orthogonal)
UpsamplingDeconvFilter = _chainer_callable(_pure.UpsamplingDeconvFilter)
DownsamplingConvFilter = _chainer_callable(_pure.DownsamplingConvFilter)


class _FromFiller(_pure.Initializer):
    """A Chainer-style ``init(array)`` seen as fnet's ``init(key, shape, dtype)``."""

    def __init__(self, filler):
        object.__setattr__(self, "filler", filler)
        object.__setattr__(self, "dtype", getattr(filler, "dtype", None))

    def _generate(self, key, shape, dtype):
        array = numpy.zeros(shape, dtype)
        self.filler(array)
        return array


def as_pure(initializer, default=None):
    """An initial value of a Chainer program (None, a number, an array, an fnet or a
    Chainer-style initializer) as an fnet initializer, or None for ``default``."""
    if initializer is None:
        return default
    if isinstance(initializer, _pure.Initializer):
        return initializer
    if isinstance(initializer, Initializer) or (callable(initializer) and not backend.is_array(initializer)):
        return _FromFiller(initializer)
    return _pure.as_initializer(initializer)


def generate_array(initializer, shape, xp, dtype=None, device=None):
    """A new array of ``shape`` filled by ``initializer``, on ``device`` (Chainer's signature)."""
    dtype = configuration.get_dtype(dtype if dtype is not None else getattr(initializer, "dtype", None))
    pure = as_pure(initializer)
    if xp is chainerx:  # made on the device under the ChainerX one, then that memory wrapped
        target = chainerx.get_default_device() if device is None else get_device(device).device
        under = "@numpy" if target.backend.name == "native" else f"@cupy:{target.index}"
        data = _pure.generate_array(
            pure, shape, backend.get_device(under).xp, dtype=dtype, device=under, key=next_key()
        )
        return chainerx.array(data, device=target, copy=False)
    return _pure.generate_array(pure, shape, xp, dtype=dtype, device=device, key=next_key())


def _get_initializer(initializer):
    """The Chainer-style initializer (``init(array)``) that an initial value of a link stands for:
    LeCunNormal for None, Constant for a number or an array, a callable itself.

    >>> type(_get_initializer(0.5)).__name__, type(_get_initializer(None)).__name__
    ('Constant', 'LeCunNormal')
    """
    if initializer is None:
        return LeCunNormal()
    if backend.is_array(initializer) or numpy.isscalar(initializer):
        return Constant(initializer)
    if not callable(initializer):
        raise TypeError(
            f"_get_initializer: expected an initializer (a callable, an array or a scalar), "
            f"got {type(initializer).__name__}\n"
            "  hint: pass chainer.initializers.Normal(0.05), a number, or an array of the parameter's shape"
        )
    return initializer


def _nan_filler():
    """The initializer of a Parameter made without one: NaN, so a forgotten init shows."""
    return NaN()
