"""Convolution layers (Chainer's ``L.Convolution2D``, ``L.DeconvolutionND``, ...) as pure specs.

Each spec holds the hyperparameters of its Chainer link, with the same constructor; its params are
``{"W": ..., "b": ...}`` in Chainer's layouts (``W`` is ``(out_channels, in_channels / groups,
*ksize)`` for convolutions and ``(in_channels, out_channels / groups, *ksize)`` for
deconvolutions). ``in_channels=None`` leaves the input size to ``init(key, x)``, which reads it
from an example input. As in Chainer, ``Convolution2D(out_channels, ksize)`` (no ``ksize`` in
third place) means ``in_channels=None``; so do ``ConvolutionND``, ``Deconvolution2D``,
``DeconvolutionND`` and ``DilatedConvolution2D``.

>>> import numpy, fnet
>>> conv = fnet.nn.Convolution2D(8, 3, pad=1)  # 8 filters of 3 x 3; in_channels from x
>>> x = numpy.ones((2, 4, 5, 5), numpy.float32)
>>> params = conv.init(fnet.random.key(0), x)
>>> params["W"].shape, conv(params, x).shape
((8, 4, 3, 3), (2, 8, 5, 5))
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence

import attrs
import numpy

from .. import functions as F
from .. import initializers, random
from ..autodiff.tracer import unbox_all
from ..errors import InvalidInputError, ShapeError, message
from .layer import Layer, Module, frozen_initializer, lazy_field

__all__ = [
    "Convolution1D",
    "Convolution2D",
    "Convolution3D",
    "ConvolutionND",
    "Deconvolution1D",
    "Deconvolution2D",
    "Deconvolution3D",
    "DeconvolutionND",
    "DeformableConvolution2D",
    "DeformableConvolution2DSampler",
    "DepthwiseConvolution2D",
    "DilatedConvolution2D",
    "LocalConvolution2D",
]

IntOrTuple = int | Sequence[int]


# -- shared helpers --------------------------------------------------------------------------
def _is_int(value) -> bool:
    return isinstance(value, (int, numpy.integer)) and not isinstance(value, bool)


def _positive(fn: str, name: str, value, *, optional: bool = False) -> None:
    """``value`` must be a positive int (or None when ``optional``)."""
    if (optional and value is None) or (_is_int(value) and value > 0):
        return
    raise InvalidInputError(
        message(
            fn,
            f"expected {name} to be a positive int{' or None' if optional else ''}, got {value!r}",
            hint=f"{name}=None infers it from the example input given to init(key, x)"
            if optional
            else f"{name} counts channels or units",
        )
    )


def _sizes(fn: str, name: str, value, ndim: int) -> tuple[int, ...]:
    """An int or a sequence of ``ndim`` positive ints as a tuple (``ksize=k`` means ``(k,) * ndim``)."""
    values = (value,) * ndim if _is_int(value) else value
    if (
        not isinstance(values, Sequence)
        or len(values) != ndim
        or not all(_is_int(v) and v > 0 for v in values)
    ):
        raise InvalidInputError(
            message(
                fn,
                f"expected {name} to be a positive int or a sequence of {ndim} positive ints, got {value!r}",
                hint=f"{name}=k means k on every spatial axis",
            )
        )
    return tuple(int(v) for v in values)


def _check_groups(fn: str, groups, out_channels: int, in_channels: int | None) -> None:
    """``groups`` must be a positive int dividing both channel counts (as Chainer checks)."""
    _positive(fn, "groups", groups)
    for name, channels in (("out_channels", out_channels), ("in_channels", in_channels)):
        if channels is not None and channels % groups:
            raise InvalidInputError(
                message(
                    fn,
                    f"expected groups={groups} to divide {name}, got {name}={channels}",
                    hint="every group convolves in_channels / groups channels into out_channels / groups",
                )
            )


def _checked_sizes(
    fn: str, ndim: int, in_channels, out_channels, ksize, groups=1, *, shift: bool = True
) -> tuple:
    """``(in_channels, out_channels, ksize)`` after Chainer's argument shifting (with ``shift``: when
    ``ksize`` is None, the two sizes given were ``out_channels`` and ``ksize``), checked."""
    if shift and ksize is None:
        in_channels, out_channels, ksize = None, in_channels, out_channels
    _positive(fn, "in_channels", in_channels, optional=True)
    _positive(fn, "out_channels", out_channels)
    _sizes(fn, "ksize", ksize, ndim)
    _check_groups(fn, groups, out_channels, in_channels)
    return in_channels, out_channels, ksize


def _input_shape(fn: str, x, what: str) -> tuple[int, ...]:
    """The shape of the example input ``x`` that a lazily sized layer reads ``what`` from."""
    if x is None:
        raise InvalidInputError(
            message(
                fn,
                f"{what} is None, so init needs an example input: call init(key, x)",
                hint=f"or give {what} to the constructor",
            )
        )
    shape = numpy.shape(unbox_all(x))
    if len(shape) < 2:
        raise ShapeError(
            message(
                fn,
                f"expected an example input x with a batch axis and a channel axis, got {shape}",
                {"x": x},
                "x has the layout (batch, channels, *spatial)",
            )
        )
    return shape


def _in_channels(layer, x, groups: int = 1) -> int:
    """The layer's ``in_channels``, or ``x.shape[1]`` of the example input when it is None."""
    fn = type(layer).__name__
    if layer.in_channels is not None:
        return layer.in_channels
    channels = _input_shape(fn, x, "in_channels")[1]
    _check_groups(fn, groups, layer.out_channels, channels)
    return channels


def _conv_params(layer, key, x, ndim: int, groups: int = 1, *, transposed: bool = False, default_W=None):
    """The params of a (de)convolution: ``W`` ``(out_channels, in_channels / groups, *ksize)``, or
    ``(in_channels, out_channels / groups, *ksize)`` when ``transposed``, and ``b`` ``(out_channels,)``."""
    in_channels = _in_channels(layer, x, groups)
    ksize = _sizes(type(layer).__name__, "ksize", layer.ksize, ndim)
    if transposed:
        w_shape = (in_channels, layer.out_channels // groups, *ksize)
    else:
        w_shape = (layer.out_channels, in_channels // groups, *ksize)
    return _draw(layer, key, w_shape, (layer.out_channels,), default_W)


def _draw(layer, key, w_shape: tuple, b_shape: tuple, default_W=None) -> dict:
    """``W`` from ``layer.initialW`` (``default_W``, LeCun normal unless given) and, unless
    ``layer.nobias``, ``b`` from ``layer.initial_bias`` (zeros by default)."""
    w_key, b_key = random.split(key)
    default_W = initializers.LeCunNormal() if default_W is None else default_W
    params = {"W": initializers.as_initializer(layer.initialW, default_W)(w_key, w_shape)}
    if not layer.nobias:
        params["b"] = initializers.as_initializer(layer.initial_bias, initializers.Zero())(b_key, b_shape)
    return params


def _fixed_ndim(ndim: int):
    """Give a subclass of ``ConvolutionND`` / ``DeconvolutionND`` (Chainer's 1-D and 3-D links)
    the base's constructor with ``ndim`` fixed and ``ksize`` required, signature included."""

    def decorate(cls):
        base = cls.__mro__[1]
        params = [p for p in inspect.signature(base.__init__).parameters.values() if p.name != "ndim"]
        params = [p.replace(default=inspect.Parameter.empty) if p.name == "ksize" else p for p in params]
        signature = inspect.Signature(params)

        def __init__(self, *args, **kwargs):
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            del arguments["self"]
            base.__init__(self, ndim, **arguments)

        __init__.__signature__ = signature
        __init__.__doc__ = f"{cls.__name__}: the arguments of {base.__name__} without ndim."
        cls.__init__ = __init__
        return cls

    return decorate


# -- N-dimensional convolutions --------------------------------------------------------------
@attrs.frozen(init=False)
class ConvolutionND(Layer):
    """N-dimensional convolution layer, Chainer's ``L.ConvolutionND``: ``F.convolution_nd`` with
    params ``W`` ``(out_channels, in_channels / groups, *ksize)`` (LeCun normal by default) and
    ``b`` ``(out_channels,)`` (zeros; none with ``nobias``).

    ``ConvolutionND(ndim, out_channels, ksize)`` leaves ``in_channels`` to ``init(key, x)``.
    ``apply(params, x)`` takes ``x`` of shape ``(batch, in_channels, *spatial)``.

    >>> import numpy, fnet
    >>> conv = fnet.nn.ConvolutionND(3, 2, 4, 3)
    >>> params = conv.init(fnet.random.key(0))
    >>> conv(params, numpy.ones((1, 2, 5, 5, 5), numpy.float32)).shape
    (1, 4, 3, 3, 3)
    """

    ndim: int
    in_channels: int | None = lazy_field(sizes=("W",))
    out_channels: int
    ksize: IntOrTuple
    stride: IntOrTuple = 1
    pad: IntOrTuple = 0
    nobias: bool = False
    initialW: object = attrs.field(default=None, converter=frozen_initializer)
    initial_bias: object = attrs.field(default=None, converter=frozen_initializer)
    cover_all: bool = False
    dilate: IntOrTuple = 1
    groups: int = 1

    def __init__(
        self,
        ndim: int,
        in_channels: int | None,
        out_channels: int,
        ksize: IntOrTuple | None = None,
        stride: IntOrTuple = 1,
        pad: IntOrTuple = 0,
        nobias: bool = False,
        initialW=None,
        initial_bias=None,
        cover_all: bool = False,
        dilate: IntOrTuple = 1,
        groups: int = 1,
    ):
        _positive(type(self).__name__, "ndim", ndim)
        in_channels, out_channels, ksize = _checked_sizes(
            type(self).__name__, ndim, in_channels, out_channels, ksize, groups
        )
        self.__attrs_init__(
            ndim,
            in_channels,
            out_channels,
            ksize,
            stride,
            pad,
            nobias,
            initialW,
            initial_bias,
            cover_all,
            dilate,
            groups,
        )

    def init(self, key, x=None) -> dict:
        """``W`` and ``b``; ``x`` (an example input) is needed when ``in_channels`` is None."""
        return _conv_params(self, key, x, self.ndim, self.groups)

    def apply(self, params, x):
        """The convolution of ``x`` ``(batch, in_channels, *spatial)``."""
        return F.convolution_nd(
            x, params["W"], params.get("b"), self.stride, self.pad, self.cover_all, self.dilate, self.groups
        )


@_fixed_ndim(1)
@attrs.frozen(init=False)
class Convolution1D(ConvolutionND):
    """One-dimensional convolution layer, Chainer's ``L.Convolution1D``: ``ConvolutionND`` with
    ``ndim=1``, for sequences ``(batch, in_channels, length)``; ``in_channels=None`` is inferred."""


@_fixed_ndim(3)
@attrs.frozen(init=False)
class Convolution3D(ConvolutionND):
    """Three-dimensional convolution layer, Chainer's ``L.Convolution3D``: ``ConvolutionND`` with
    ``ndim=3``, for volumes ``(batch, in_channels, d, h, w)``; ``in_channels=None`` is inferred."""


@attrs.frozen(init=False)
class Convolution2D(Layer):
    """Two-dimensional convolution layer, Chainer's ``L.Convolution2D``: ``F.convolution_2d`` with
    params ``W`` ``(out_channels, in_channels / groups, kh, kw)`` (LeCun normal by default) and
    ``b`` ``(out_channels,)`` (zeros; none with ``nobias``).

    ``Convolution2D(out_channels, ksize)`` leaves ``in_channels`` to ``init(key, x)``, as in
    Chainer; ``dilate`` and ``groups`` are keyword-only. ``apply(params, x)`` takes images
    ``(batch, in_channels, h, w)``.

    >>> import numpy, fnet
    >>> conv = fnet.nn.Convolution2D(3, 8, 3, stride=2)
    >>> params = conv.init(fnet.random.key(0))
    >>> params["W"].shape, conv(params, numpy.ones((1, 3, 7, 7), numpy.float32)).shape
    ((8, 3, 3, 3), (1, 8, 3, 3))
    """

    in_channels: int | None = lazy_field(sizes=("W",))
    out_channels: int
    ksize: IntOrTuple
    stride: IntOrTuple = 1
    pad: IntOrTuple = 0
    nobias: bool = False
    initialW: object = attrs.field(default=None, converter=frozen_initializer)
    initial_bias: object = attrs.field(default=None, converter=frozen_initializer)
    dilate: IntOrTuple = 1
    groups: int = 1

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: IntOrTuple | None = None,
        stride: IntOrTuple = 1,
        pad: IntOrTuple = 0,
        nobias: bool = False,
        initialW=None,
        initial_bias=None,
        *,
        dilate: IntOrTuple = 1,
        groups: int = 1,
    ):
        in_channels, out_channels, ksize = _checked_sizes(
            type(self).__name__, 2, in_channels, out_channels, ksize, groups
        )
        self.__attrs_init__(
            in_channels, out_channels, ksize, stride, pad, nobias, initialW, initial_bias, dilate, groups
        )

    def init(self, key, x=None) -> dict:
        """``W`` and ``b``; ``x`` (an example input) is needed when ``in_channels`` is None."""
        return _conv_params(self, key, x, 2, self.groups)

    def apply(self, params, x):
        """The convolution of images ``x`` ``(batch, in_channels, h, w)``."""
        return F.convolution_2d(
            x, params["W"], params.get("b"), self.stride, self.pad, dilate=self.dilate, groups=self.groups
        )


# -- deconvolutions --------------------------------------------------------------------------
@attrs.frozen(init=False)
class DeconvolutionND(Layer):
    """N-dimensional deconvolution (transposed convolution) layer, Chainer's ``L.DeconvolutionND``:
    ``F.deconvolution_nd`` with ``W`` ``(in_channels, out_channels / groups, *ksize)`` (LeCun
    normal by default) and ``b`` ``(out_channels,)`` (zeros; none with ``nobias``).

    ``DeconvolutionND(ndim, out_channels, ksize)`` leaves ``in_channels`` to ``init(key, x)``;
    ``outsize`` fixes the output size where the stride makes it ambiguous.

    >>> import numpy, fnet
    >>> deconv = fnet.nn.DeconvolutionND(1, 2, 3, 4, stride=2)
    >>> params = deconv.init(fnet.random.key(0))
    >>> deconv(params, numpy.ones((1, 2, 5), numpy.float32)).shape
    (1, 3, 12)
    """

    ndim: int
    in_channels: int | None = lazy_field(sizes=("W",))
    out_channels: int
    ksize: IntOrTuple
    stride: IntOrTuple = 1
    pad: IntOrTuple = 0
    nobias: bool = False
    outsize: Sequence[int] | None = None
    initialW: object = attrs.field(default=None, converter=frozen_initializer)
    initial_bias: object = attrs.field(default=None, converter=frozen_initializer)
    dilate: IntOrTuple = 1
    groups: int = 1

    def __init__(
        self,
        ndim: int,
        in_channels: int | None,
        out_channels: int,
        ksize: IntOrTuple | None = None,
        stride: IntOrTuple = 1,
        pad: IntOrTuple = 0,
        nobias: bool = False,
        outsize: Sequence[int] | None = None,
        initialW=None,
        initial_bias=None,
        dilate: IntOrTuple = 1,
        groups: int = 1,
    ):
        _positive(type(self).__name__, "ndim", ndim)
        in_channels, out_channels, ksize = _checked_sizes(
            type(self).__name__, ndim, in_channels, out_channels, ksize, groups
        )
        self.__attrs_init__(
            ndim,
            in_channels,
            out_channels,
            ksize,
            stride,
            pad,
            nobias,
            outsize,
            initialW,
            initial_bias,
            dilate,
            groups,
        )

    def init(self, key, x=None) -> dict:
        """``W`` and ``b``; ``x`` (an example input) is needed when ``in_channels`` is None."""
        return _conv_params(self, key, x, self.ndim, self.groups, transposed=True)

    def apply(self, params, x):
        """The deconvolution of ``x`` ``(batch, in_channels, *spatial)``."""
        return F.deconvolution_nd(
            x, params["W"], params.get("b"), self.stride, self.pad, self.outsize, self.dilate, self.groups
        )


@_fixed_ndim(1)
@attrs.frozen(init=False)
class Deconvolution1D(DeconvolutionND):
    """One-dimensional deconvolution layer, Chainer's ``L.Deconvolution1D``: ``DeconvolutionND``
    with ``ndim=1``; ``in_channels=None`` is inferred from the example input."""


@_fixed_ndim(3)
@attrs.frozen(init=False)
class Deconvolution3D(DeconvolutionND):
    """Three-dimensional deconvolution layer, Chainer's ``L.Deconvolution3D``: ``DeconvolutionND``
    with ``ndim=3``; ``in_channels=None`` is inferred from the example input."""


@attrs.frozen(init=False)
class Deconvolution2D(Layer):
    """Two-dimensional deconvolution layer, Chainer's ``L.Deconvolution2D``: ``F.deconvolution_2d``
    with ``W`` ``(in_channels, out_channels / groups, kh, kw)`` (LeCun normal by default) and ``b``
    ``(out_channels,)`` (zeros; none with ``nobias``): the upsampling layer of decoders.

    ``Deconvolution2D(out_channels, ksize)`` leaves ``in_channels`` to ``init(key, x)``;
    ``dilate`` and ``groups`` are keyword-only, as in Chainer.

    >>> import numpy, fnet
    >>> deconv = fnet.nn.Deconvolution2D(4, 2, 4, stride=2, pad=1)
    >>> params = deconv.init(fnet.random.key(0))
    >>> deconv(params, numpy.ones((1, 4, 3, 3), numpy.float32)).shape
    (1, 2, 6, 6)
    """

    in_channels: int | None = lazy_field(sizes=("W",))
    out_channels: int
    ksize: IntOrTuple
    stride: IntOrTuple = 1
    pad: IntOrTuple = 0
    nobias: bool = False
    outsize: Sequence[int] | None = None
    initialW: object = attrs.field(default=None, converter=frozen_initializer)
    initial_bias: object = attrs.field(default=None, converter=frozen_initializer)
    dilate: IntOrTuple = 1
    groups: int = 1

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: IntOrTuple | None = None,
        stride: IntOrTuple = 1,
        pad: IntOrTuple = 0,
        nobias: bool = False,
        outsize: Sequence[int] | None = None,
        initialW=None,
        initial_bias=None,
        *,
        dilate: IntOrTuple = 1,
        groups: int = 1,
    ):
        in_channels, out_channels, ksize = _checked_sizes(
            type(self).__name__, 2, in_channels, out_channels, ksize, groups
        )
        self.__attrs_init__(
            in_channels,
            out_channels,
            ksize,
            stride,
            pad,
            nobias,
            outsize,
            initialW,
            initial_bias,
            dilate,
            groups,
        )

    def init(self, key, x=None) -> dict:
        """``W`` and ``b``; ``x`` (an example input) is needed when ``in_channels`` is None."""
        return _conv_params(self, key, x, 2, self.groups, transposed=True)

    def apply(self, params, x):
        """The deconvolution of images ``x`` ``(batch, in_channels, h, w)``."""
        return F.deconvolution_2d(
            x,
            params["W"],
            params.get("b"),
            self.stride,
            self.pad,
            self.outsize,
            dilate=self.dilate,
            groups=self.groups,
        )


# -- other convolutions ----------------------------------------------------------------------
@attrs.frozen(init=False)
class DepthwiseConvolution2D(Layer):
    """Depthwise convolution layer, Chainer's ``L.DepthwiseConvolution2D``: each input channel is
    convolved on its own with ``channel_multiplier`` filters (``F.depthwise_convolution_2d``).

    ``W`` is ``(channel_multiplier, in_channels, kh, kw)``, drawn by default from He normal
    scaled by ``1 / sqrt(2)`` (Chainer's default for this link); ``b`` is
    ``(in_channels * channel_multiplier,)``, zeros. ``in_channels=None`` is inferred.

    >>> import numpy, fnet
    >>> conv = fnet.nn.DepthwiseConvolution2D(3, 2, 3, pad=1)
    >>> params = conv.init(fnet.random.key(0))
    >>> conv(params, numpy.ones((1, 3, 4, 4), numpy.float32)).shape
    (1, 6, 4, 4)
    """

    in_channels: int | None = lazy_field(sizes=("W", "b"))
    channel_multiplier: int
    ksize: IntOrTuple
    stride: IntOrTuple = 1
    pad: IntOrTuple = 0
    nobias: bool = False
    initialW: object = attrs.field(default=None, converter=frozen_initializer)
    initial_bias: object = attrs.field(default=None, converter=frozen_initializer)

    def __init__(
        self,
        in_channels: int | None,
        channel_multiplier: int,
        ksize: IntOrTuple,
        stride: IntOrTuple = 1,
        pad: IntOrTuple = 0,
        nobias: bool = False,
        initialW=None,
        initial_bias=None,
    ):
        fn = type(self).__name__
        _positive(fn, "in_channels", in_channels, optional=True)
        _positive(fn, "channel_multiplier", channel_multiplier)
        _sizes(fn, "ksize", ksize, 2)
        self.__attrs_init__(
            in_channels, channel_multiplier, ksize, stride, pad, nobias, initialW, initial_bias
        )

    def init(self, key, x=None) -> dict:
        """``W`` and ``b``; ``x`` (an example input) is needed when ``in_channels`` is None."""
        fn = type(self).__name__
        in_channels = self.in_channels or _input_shape(fn, x, "in_channels")[1]
        w_shape = (self.channel_multiplier, in_channels, *_sizes(fn, "ksize", self.ksize, 2))
        default = initializers.HeNormal(1.0 / numpy.sqrt(2))
        return _draw(self, key, w_shape, (self.channel_multiplier * in_channels,), default)

    def apply(self, params, x):
        """The depthwise convolution of images ``x`` ``(batch, in_channels, h, w)``."""
        return F.depthwise_convolution_2d(x, params["W"], params.get("b"), self.stride, self.pad)


@attrs.frozen(init=False)
class DilatedConvolution2D(Layer):
    """Dilated (atrous) convolution layer, Chainer's ``L.DilatedConvolution2D``:
    ``F.dilated_convolution_2d`` with ``W`` ``(out_channels, in_channels, kh, kw)`` (LeCun normal
    by default) and ``b`` ``(out_channels,)`` (zeros; none with ``nobias``).

    The taps of the kernel are ``dilate`` pixels apart. ``DilatedConvolution2D(out_channels,
    ksize)`` leaves ``in_channels`` to ``init(key, x)``, as in Chainer.

    >>> import numpy, fnet
    >>> conv = fnet.nn.DilatedConvolution2D(2, 4, 3, dilate=2)
    >>> params = conv.init(fnet.random.key(0))
    >>> conv(params, numpy.ones((1, 2, 7, 7), numpy.float32)).shape
    (1, 4, 3, 3)
    """

    in_channels: int | None = lazy_field(sizes=("W",))
    out_channels: int
    ksize: IntOrTuple
    stride: IntOrTuple = 1
    pad: IntOrTuple = 0
    dilate: IntOrTuple = 1
    nobias: bool = False
    initialW: object = attrs.field(default=None, converter=frozen_initializer)
    initial_bias: object = attrs.field(default=None, converter=frozen_initializer)

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: IntOrTuple | None = None,
        stride: IntOrTuple = 1,
        pad: IntOrTuple = 0,
        dilate: IntOrTuple = 1,
        nobias: bool = False,
        initialW=None,
        initial_bias=None,
    ):
        in_channels, out_channels, ksize = _checked_sizes(
            type(self).__name__, 2, in_channels, out_channels, ksize
        )
        self.__attrs_init__(
            in_channels, out_channels, ksize, stride, pad, dilate, nobias, initialW, initial_bias
        )

    def init(self, key, x=None) -> dict:
        """``W`` and ``b``; ``x`` (an example input) is needed when ``in_channels`` is None."""
        return _conv_params(self, key, x, 2)

    def apply(self, params, x):
        """The dilated convolution of images ``x`` ``(batch, in_channels, h, w)``."""
        return F.dilated_convolution_2d(x, params["W"], params.get("b"), self.stride, self.pad, self.dilate)


@attrs.frozen(init=False)
class LocalConvolution2D(Layer):
    """Locally connected layer, Chainer's ``L.LocalConvolution2D``: a convolution without weight
    sharing, one filter bank per output position (``F.local_convolution_2d``).

    ``W`` is ``(out_channels, out_h, out_w, in_channels, kh, kw)`` (LeCun normal by default) and
    ``b`` ``(out_channels, out_h, out_w)`` (zeros; none with ``nobias``), where ``out_h = (h -
    kh) // stride + 1`` for images of size ``in_size = (h, w)``. With ``in_channels`` or
    ``in_size`` None both are read from the example input given to ``init(key, x)``.

    >>> import numpy, fnet
    >>> local = fnet.nn.LocalConvolution2D(3, 2, in_size=5, ksize=3)
    >>> params = local.init(fnet.random.key(0))
    >>> params["W"].shape, local(params, numpy.ones((4, 3, 5, 5), numpy.float32)).shape
    ((2, 3, 3, 3, 3, 3), (4, 2, 3, 3))
    """

    in_channels: int | None = lazy_field(sizes=("W", "b"))
    out_channels: int
    in_size: IntOrTuple | None = lazy_field(default=None, sizes=("W", "b"), stand_in=lambda spec: spec.ksize)
    ksize: IntOrTuple = 1
    stride: IntOrTuple = 1
    nobias: bool = False
    initialW: object = attrs.field(default=None, converter=frozen_initializer)
    initial_bias: object = attrs.field(default=None, converter=frozen_initializer)

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        in_size: IntOrTuple | None = None,
        ksize: IntOrTuple | None = None,
        stride: IntOrTuple = 1,
        nobias: bool = False,
        initialW=None,
        initial_bias=None,
    ):
        _checked_sizes(type(self).__name__, 2, in_channels, out_channels, ksize, shift=False)
        if in_size is not None:
            _sizes(type(self).__name__, "in_size", in_size, 2)
        self.__attrs_init__(in_channels, out_channels, in_size, ksize, stride, nobias, initialW, initial_bias)

    def init(self, key, x=None) -> dict:
        """``W`` and ``b``; ``x`` (an example input) is needed when ``in_channels`` or ``in_size``
        is None."""
        fn = type(self).__name__
        if self.in_channels is None or self.in_size is None:
            _, in_channels, *in_size = _input_shape(fn, x, "in_channels or in_size")
        else:
            in_channels, in_size = self.in_channels, self.in_size
        (h, w), (kh, kw) = _sizes(fn, "in_size", in_size, 2), _sizes(fn, "ksize", self.ksize, 2)
        sy, sx = _sizes(fn, "stride", self.stride, 2)
        if kh > h or kw > w:
            raise ShapeError(
                message(
                    fn,
                    f"expected the kernel {(kh, kw)} to fit the input images {(h, w)}",
                    hint="use a smaller ksize (there is no padding in a local convolution)",
                )
            )
        out = (self.out_channels, (h - kh) // sy + 1, (w - kw) // sx + 1)
        return _draw(self, key, (*out, in_channels, kh, kw), out)

    def apply(self, params, x):
        """The local convolution of images ``x`` ``(batch, in_channels, h, w)``."""
        return F.local_convolution_2d(x, params["W"], params.get("b"), self.stride)


@attrs.frozen(init=False)
class DeformableConvolution2DSampler(Layer):
    """The sampling half of ``DeformableConvolution2D`` (Chainer's link of the same name):
    ``apply(params, x, offset)`` is ``F.deformable_convolution_2d_sampler`` with ``W``
    ``(out_channels, in_channels, kh, kw)`` (zeros by default, as in Chainer) and ``b``
    ``(out_channels,)`` (zeros; none with ``nobias``). ``in_channels=None`` is inferred."""

    in_channels: int | None = lazy_field(sizes=("W",))
    out_channels: int
    ksize: IntOrTuple
    stride: IntOrTuple = 1
    pad: IntOrTuple = 0
    nobias: bool = False
    initialW: object = attrs.field(default=None, converter=frozen_initializer)
    initial_bias: object = attrs.field(default=None, converter=frozen_initializer)

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: IntOrTuple,
        stride: IntOrTuple = 1,
        pad: IntOrTuple = 0,
        nobias: bool = False,
        initialW=None,
        initial_bias=None,
    ):
        _checked_sizes(type(self).__name__, 2, in_channels, out_channels, ksize, shift=False)
        self.__attrs_init__(in_channels, out_channels, ksize, stride, pad, nobias, initialW, initial_bias)

    def init(self, key, x=None) -> dict:
        """``W`` and ``b``; ``x`` (an example input) is needed when ``in_channels`` is None."""
        return _conv_params(self, key, x, 2, default_W=initializers.Zero())

    def apply(self, params, x, offset):
        """Sample ``x`` at the kernel taps moved by ``offset`` and apply the filters."""
        return F.deformable_convolution_2d_sampler(
            x, offset, params["W"], params.get("b"), self.stride, self.pad
        )


@attrs.frozen(init=False)
class DeformableConvolution2D(Module):
    """Deformable convolution layer, Chainer's ``L.DeformableConvolution2D``: a convolution whose
    kernel taps move by offsets that a second convolution computes from the input.

    Two children, as in Chainer: ``offset_conv``, a ``Convolution2D`` to ``2 * kh * kw``
    channels (the x and then y offsets of each tap; LeCun normal ``W``, zero ``b``), and
    ``deform_conv``, a ``DeformableConvolution2DSampler`` (zero ``W`` and ``b`` by default, so an
    untrained layer outputs zeros). The ``offset_*`` and ``deform_*`` arguments go to each.
    ``in_channels=None`` is inferred from the example input of ``init(key, x)``.

    >>> import numpy, fnet
    >>> layer = fnet.nn.DeformableConvolution2D(3, 4, 3, pad=1)
    >>> params = layer.init(fnet.random.key(0))
    >>> sorted(params), layer(params, numpy.ones((1, 3, 5, 5), numpy.float32)).shape
    (['deform_conv', 'offset_conv'], (1, 4, 5, 5))
    """

    offset_conv: Convolution2D
    deform_conv: DeformableConvolution2DSampler

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: IntOrTuple,
        stride: IntOrTuple = 1,
        pad: IntOrTuple = 0,
        offset_nobias: bool = False,
        offset_initialW=None,
        offset_initial_bias=None,
        deform_nobias: bool = False,
        deform_initialW=None,
        deform_initial_bias=None,
    ):
        kh, kw = _sizes(type(self).__name__, "ksize", ksize, 2)
        self.__attrs_init__(
            Convolution2D(
                in_channels,
                2 * kh * kw,
                ksize,
                stride,
                pad,
                offset_nobias,
                offset_initialW,
                offset_initial_bias,
            ),
            DeformableConvolution2DSampler(
                in_channels,
                out_channels,
                ksize,
                stride,
                pad,
                deform_nobias,
                deform_initialW,
                deform_initial_bias,
            ),
        )

    def init(self, key, x=None) -> dict:
        """The params of both children; ``x`` is needed when ``in_channels`` is None."""
        return Module.init(self, key, x)

    def apply(self, params, x):
        """The deformable convolution of images ``x`` ``(batch, in_channels, h, w)``."""
        offset = self.offset_conv(params["offset_conv"], x)
        return self.deform_conv(params["deform_conv"], x, offset)
