"""Chainer's activation links with parameters: ``L.Maxout``, ``L.PReLU``,
``L.SimplifiedDropconnect`` and ``L.Swish``, each a ``SpecLink`` around its ``fnet.nn`` spec.

>>> import numpy
>>> prelu = PReLU()
>>> prelu(numpy.array([[-2.0, 2.0]], numpy.float32)).array
array([[-0.5,  2. ]], dtype=float32)
"""

from __future__ import annotations

from ... import initializers as pure_initializers
from ... import nn
from .. import functions as _functions
from ..initializers import Initializer
from ..link import Chain
from ..variable import Variable
from ._adapter import SpecLink, spec_attribute, spec_constructor, spec_view

__all__ = ["Maxout", "PReLU", "SimplifiedDropconnect", "Swish"]


class Maxout(SpecLink, Chain):
    """Fully connected maxout layer, Chainer's ``L.Maxout(in_size, out_size, pool_size,
    initialW=None, initial_bias=0)``: a child ``linear`` to ``out_size * pool_size`` units, then
    the maximum of each group of ``pool_size``; arrays given as ``initialW`` ``(out_size,
    pool_size, in_size)`` / ``initial_bias`` ``(out_size, pool_size)`` are reshaped for it (plain
    callables see those layouts too), and ``initial_bias=None`` means no bias. ``in_size=None``
    is inferred on the first call."""

    spec_type = nn.Maxout
    _construct = spec_constructor(nn.Maxout, "initialW", "initial_bias")
    pool_size = spec_attribute("pool_size", "The number of units each output is the maximum of.")
    out_size = spec_view(lambda s: s.linear.out_size // s.pool_size, "The number of outputs.")

    def __init__(self, in_size, out_size, pool_size, initialW=None, initial_bias=0):
        # As Chainer's: a plain callable (not an Initializer) fills the weight seen as
        # (out_size, pool_size, in_size) and the bias as (out_size, pool_size); an Initializer
        # fills the child's (out_size * pool_size, in_size) and (out_size * pool_size,).
        initialW = _seen_as(initialW, (out_size, pool_size, -1))
        initial_bias = _seen_as(initial_bias, (out_size, pool_size))
        self._construct(in_size, out_size, pool_size, initialW, initial_bias)


def _seen_as(initial, shape: tuple):
    """A Chainer callable initializer given the array it fills reshaped to ``shape`` (a view, so
    that what it writes lands in the array); anything else unchanged."""
    if not callable(initial) or isinstance(initial, (Initializer, pure_initializers.Initializer)):
        return initial

    def fill(array):
        initial(array.reshape(shape))

    return fill


class PReLU(SpecLink):
    """Parametric ReLU, Chainer's ``L.PReLU(shape=(), init=0.25)``: ``forward(x)`` is ``x`` where
    non-negative and ``W * x`` elsewhere, with the learned slopes ``W`` of ``shape``."""

    spec_type = nn.PReLU
    __init__ = spec_constructor(nn.PReLU, "init")


class SimplifiedDropconnect(SpecLink):
    """Linear layer with simplified DropConnect, Chainer's ``L.SimplifiedDropconnect(in_size,
    out_size, ratio=0.5, nobias=False, initialW=None, initial_bias=None)``: ``W`` ``(out_size,
    in_size)`` (He normal scaled by ``1 / sqrt(2)``), ``b`` (zeros); ``in_size=None`` is
    inferred. As in Chainer, ``forward`` takes ``train`` as an argument (not from the
    configuration), and a ``mask`` given on a call is kept as the persistent value ``mask``."""

    spec_type = nn.SimplifiedDropconnect
    __init__ = spec_constructor(nn.SimplifiedDropconnect, "initialW", "initial_bias")
    _computes_in_input_dtype = True
    _optional_params = ("b",)
    out_size = spec_attribute("out_size", "The output size.")
    ratio = spec_attribute("ratio", "The probability of dropping each weight.", settable=True)

    def forward(self, x, train: bool = True, mask=None, use_batchwise_mask: bool = True) -> Variable:
        """``x W^T + b`` with the weights dropped (``train``) by a drawn or the given ``mask``."""
        if mask is not None and "mask" not in self.__dict__:
            self.add_persistent("mask", mask)
        if self._pending:
            self._initialize((x, train, mask, use_batchwise_mask), {})
        # Chainer's function itself, so that y.creator is its SimplifiedDropconnect node
        f = _functions.simplified_dropconnect
        return f(x, self.W, self.b, self.ratio, train, mask, use_batchwise_mask)


class Swish(SpecLink):
    """Swish activation, Chainer's ``L.Swish(beta_shape, beta_init=1.0)``: ``x * sigmoid(beta *
    x)`` with the learned ``beta``; ``beta_shape=None`` takes ``x.shape[1:]`` on the first call."""

    spec_type = nn.Swish
    __init__ = spec_constructor(nn.Swish, "beta_init")
