"""``chainer.utils``: small helpers on arrays and shapes, experimental-feature warnings, Walker's
alias sampler, and the :mod:`type_check` module."""

from __future__ import annotations

import contextlib
import math
import shutil
import tempfile
import warnings
from collections import abc as collections_abc  # Chainer's chainer.utils.collections_abc

import numpy

from ... import backend
from ...nn import loss as _loss
from ...ops import broadcast as _broadcast
from ..variable import Variable
from . import argument, cache, conv, conv_nd, precision, sparse, type_check
from .conv import get_conv_outsize, get_deconv_outsize
from .error import _format_array_props  # noqa: F401  (Chainer's chainer.utils._format_array_props)
from .meta import enable_final, final
from .nondeterministic import nondeterministic  # the function, as in Chainer (the module is in sys.modules)
from .sparse import CooMatrix, get_order, to_coo

__all__ = [
    "collections_abc",
    "CooMatrix",
    "to_coo",
    "get_order",
    "sparse",
    "type_check",
    "force_array",
    "force_type",
    "size_of_shape",
    "sum_to",
    "get_conv_outsize",
    "get_deconv_outsize",
    "experimental",
    "final",
    "enable_final",
    "nondeterministic",
    "WalkerAlias",
    "tempdir",
    "argument",
    "cache",
    "conv",
    "conv_nd",
    "precision",
]


def force_array(x, dtype=None):
    """``x`` as an array: a scalar (which NumPy returns for 0-d results) becomes a 0-d array,
    and ``dtype``, when given, is applied (without a copy when it already matches).

    >>> force_array(numpy.float32(2.0))
    array(2., dtype=float32)
    """
    if numpy.isscalar(x):
        return numpy.array(x) if dtype is None else numpy.array(x, dtype)
    return x if dtype is None else x.astype(dtype, copy=False)


def force_type(dtype: numpy.dtype, value):
    """``value`` with the dtype ``dtype``: a scalar of that type, or the array cast when needed.

    >>> y = force_type(numpy.dtype(numpy.float32), 1.5)
    >>> type(y).__name__, float(y)
    ('float32', 1.5)
    """
    if numpy.isscalar(value):
        return dtype.type(value)
    return value if value.dtype == dtype else value.astype(dtype, copy=False)


def size_of_shape(shape) -> int:
    """The number of elements of an array of ``shape`` (a Python int).

    >>> size_of_shape((2, 3, 4))
    24
    """
    return int(math.prod(shape))


def sum_to(x, shape):
    """Sum the array ``x`` over the axes it was broadcast along, so that it has ``shape``.

    Works on arrays; for Variables use ``chainer.functions.sum_to``.

    >>> sum_to(numpy.ones((2, 3)), (1, 3))
    array([[2., 2., 2.]])
    """
    if isinstance(x, Variable):
        raise TypeError(
            "chainer.utils.sum_to: expected an array, got a Variable\n"
            "  hint: use chainer.functions.sum_to for Variables"
        )
    return _broadcast.sum_to(x, shape)


# The module that holds the switch ``chainer.disable_experimental_feature_warning``: the
# fnet.compat package, which stands above this one and registers itself here when it loads.
_switches = None


def experimental(api_name: str) -> None:
    """Warn (``FutureWarning``) that ``api_name`` is experimental, unless
    ``chainer.disable_experimental_feature_warning`` is True."""
    if not getattr(_switches, "disable_experimental_feature_warning", False):
        message = f"{api_name} is experimental. The interface can change in the future."
        warnings.warn(message, FutureWarning, stacklevel=2)


class WalkerAlias:
    """Walker's alias method: ``sample(shape)`` draws indices ``i`` with probability
    ``probs[i] / sum(probs)``, in constant time each.

    The uniform numbers come from the global random state of NumPy (CuPy once the sampler is
    moved to a GPU), so ``numpy.random.seed`` repeats the samples, and they are Chainer's.

    >>> numpy.random.seed(0)
    >>> WalkerAlias([0.0, 1.0, 0.0]).sample((2, 3)).tolist()
    [[1, 1, 1], [1, 1, 1]]
    """

    def __init__(self, probs):
        self._sampler = _loss.WalkerAlias(probs)
        self._device = backend.CPU

    @property
    def threshold(self):
        """The probability of staying in each bucket (float32)."""
        return self._sampler.threshold

    @property
    def values(self):
        """The two indices of each bucket, interleaved (int32)."""
        return self._sampler.values

    @property
    def device(self) -> backend.Device:
        """The device holding the tables."""
        return self._device

    @property
    def use_gpu(self) -> bool:
        """Whether the tables are on a GPU."""
        return self._device.xp is not numpy

    def to_device(self, device) -> WalkerAlias:
        """Move the tables to ``device`` (``'@numpy'``, ``'@cupy:0'``, a Device); returns self."""
        device = backend.get_device(device)
        threshold, values = backend.to_device((self.threshold, self.values), device)
        sampler = object.__new__(_loss.WalkerAlias)
        sampler.__attrs_init__(threshold, values)
        self._sampler, self._device = sampler, device
        return self

    def to_cpu(self) -> WalkerAlias:
        """Move the tables to the host; returns self."""
        return self.to_device(backend.CPU)

    def to_gpu(self, device=None) -> WalkerAlias:
        """Move the tables to GPU ``device`` (the first one by default); returns self."""
        return self.to_device(backend.GpuDevice(0 if device is None else int(device)))

    def sample(self, shape) -> numpy.ndarray:
        """An int32 array of ``shape`` indices drawn on the sampler's device."""
        return self.sample_xp(self._device.xp, shape)

    def sample_xp(self, xp, shape):
        """An int32 array of ``shape`` indices drawn with the random state of ``xp``."""
        return self._sampler._choose(xp.random.uniform(0, len(self.threshold), shape))


@contextlib.contextmanager
def tempdir(ignore_errors: bool = False, **kwargs):
    """A new temporary directory (``tempfile.mkdtemp(**kwargs)``) for the ``with`` block, removed
    with its contents afterwards (errors while removing it ignored if ``ignore_errors``).

    >>> import os
    >>> with tempdir(prefix="fnet") as path:
    ...     os.path.isdir(path)
    True
    >>> os.path.exists(path)
    False
    """
    path = tempfile.mkdtemp(**kwargs)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=ignore_errors)
