"""The fully connected layer, Chainer's ``L.Linear``."""

from __future__ import annotations

import attrs
import numpy

from .. import functions as F
from .. import initializers, random
from ..autodiff.tracer import unbox_all
from ..errors import InvalidInputError
from .layer import Layer, frozen_initializer, lazy_field

__all__ = ["Linear"]


@attrs.frozen(init=False)
class Linear(Layer):
    """``y = x @ W.T + b`` with ``W`` of shape ``(out_size, in_size)``, as Chainer's ``L.Linear``.

    ``Linear(in_size, out_size)``; as in Chainer, ``Linear(out_size)`` leaves ``in_size`` to be
    inferred, here from an example input given to ``init(key, x)``. ``W`` is drawn from
    ``initialW`` (LeCun normal by default) and ``b`` from ``initial_bias`` (zeros); ``nobias``
    drops ``b``. ``apply(params, x, n_batch_axes=1)`` flattens the other axes of ``x``.
    """

    in_size: int | None = lazy_field(sizes=("W",))
    out_size: int | tuple  # a shape: b's shape, as Chainer takes it (see init)
    nobias: bool = False
    initialW: object = attrs.field(default=None, converter=frozen_initializer)
    initial_bias: object = attrs.field(default=None, converter=frozen_initializer)

    def __init__(self, in_size, out_size=None, nobias=False, initialW=None, initial_bias=None):
        if out_size is None:
            in_size, out_size = None, in_size
        self.__attrs_init__(in_size, out_size, nobias, initialW, initial_bias)

    def init(self, key, x=None, n_batch_axes: int = 1) -> dict:
        """The params ``{"W": (out_size, in_size), "b": (out_size,)}``; when ``in_size`` is None,
        it is the size of ``x.shape[n_batch_axes:]`` of the example input ``x``, as Chainer infers
        it on the first call."""
        in_size = self.in_size
        if in_size is None:
            if x is None:
                raise InvalidInputError(
                    "Linear.init: expected an example input x, since in_size is None, got none\n"
                    "  hint: call init(key, x) with a batch like the ones to come, or give in_size"
                )
            in_size = int(numpy.prod(numpy.shape(unbox_all(x))[n_batch_axes:]))
        w_key, b_key = random.split(key)
        # as Chainer's, an out_size given as a shape is b's shape (W then has more than two axes,
        # which linear refuses: such a layer is built, and fails when applied)
        out_shape = tuple(self.out_size) if isinstance(self.out_size, (tuple, list)) else (self.out_size,)
        params = {
            "W": initializers.as_initializer(self.initialW, initializers.LeCunNormal())(
                w_key, (*out_shape, in_size)
            )
        }
        if not self.nobias:
            params["b"] = initializers.as_initializer(self.initial_bias, initializers.Zero())(
                b_key, out_shape
            )
        return params

    def apply(self, params, x, n_batch_axes: int = 1):
        return F.linear(x, params["W"], params.get("b"), n_batch_axes=n_batch_axes)
