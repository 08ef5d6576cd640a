"""Chainer's connection links (``L.Linear``, ``L.Convolution2D``, ``L.EmbedID``, ``L.Highway``,
``L.Inception``, ...), each a ``SpecLink`` around the ``fnet.nn`` spec of the same name.

Constructors take Chainer's arguments (those of the spec); ``in_size=None`` /
``in_channels=None`` (also the short forms ``Linear(out_size)``, ``Convolution2D(out_channels,
ksize)``) leave the input-dependent parameters uninitialized until the first call.

>>> import numpy
>>> layer = Linear(3)
>>> layer.W.array is None, layer.b.array
(True, array([0., 0., 0.], dtype=float32))
>>> layer(numpy.ones((2, 5), numpy.float32)).shape
(2, 3)
>>> layer.W.shape
(3, 5)
"""

from __future__ import annotations

from typing import Any

import numpy

from ... import nn
from ...errors import InvalidInputError
from ..functions import relu
from ..link import Chain, ChainList
from ..variable import Variable, as_array
from ._adapter import (
    SpecLink,
    parse_kwargs,
    pure_function,
    replaced,
    spec_attribute,
    spec_constructor,
    spec_view,
)

# the names ``chainer.links`` exports from here (DeformableConvolution2DSampler, a child link,
# lives in its deep module only, as in Chainer)
__all__ = [
    "Linear",
    "Bilinear",
    "Bias",
    "Scale",
    "EmbedID",
    "Highway",
    "Inception",
    "InceptionBN",
    "MLPConvolution2D",
    "Parameter",
    "Convolution1D",
    "Convolution2D",
    "Convolution3D",
    "ConvolutionND",
    "Deconvolution1D",
    "Deconvolution2D",
    "Deconvolution3D",
    "DeconvolutionND",
    "DeformableConvolution2D",
    "DepthwiseConvolution2D",
    "DilatedConvolution2D",
    "LocalConvolution2D",
]


def _pair(value):
    """Chainer's ``_pair``: a sequence as it is, a number twice."""
    return value if hasattr(value, "__getitem__") else (value, value)


def _tuple(value, ndim: int) -> tuple:
    """Chainer's ``as_tuple``: a sequence as a tuple, a number ``ndim`` times."""
    return tuple(value) if hasattr(value, "__getitem__") else (value,) * ndim


def _pair_attribute(field: str) -> property:
    """An attribute showing the spec's ``field`` as a pair, as Chainer's 2-D links keep it."""
    return spec_view(lambda spec: _pair(getattr(spec, field)), f"The {field}, a pair.")


_DETERMINISTIC = {
    "deterministic": "deterministic argument is not supported anymore. Use "
    "chainer.using_config('cudnn_deterministic', value) context where value is either `True` or `False`."
}
_OUT_CHANNELS = spec_attribute("out_channels", "The number of output channels.")
_IN_CHANNELS = spec_attribute("in_channels", "The number of input channels (None while inferred).")
_KSIZE = spec_attribute("ksize", "The filter size, as given.")
_GROUPS = spec_attribute("groups", "The number of groups of channels.")
_NOBIAS = spec_attribute("nobias", "Whether the link has no bias.")


# -- fully connected ---------------------------------------------------------------------------
class _SizedByAxis1(SpecLink):
    """A link whose lazy parameters are sized by axis 1 of its input (features or channels)."""

    def _initialize_params(self, in_size: int) -> None:
        """Chainer's ``_initialize_params(in_size)``: size the parameters left uninitialized for
        inputs of ``in_size`` features (channels), as the first call would; a link already sized
        keeps its parameters."""
        self._initialize((numpy.empty((0, in_size)),), {})


class Linear(_SizedByAxis1):
    """Fully connected layer, Chainer's ``L.Linear(in_size, out_size=None, nobias=False,
    initialW=None, initial_bias=None)``: ``y = x W^T + b`` with ``W`` ``(out_size, in_size)``
    (LeCun normal) and ``b`` ``(out_size,)`` (zeros; None with ``nobias``).

    ``Linear(out_size)`` infers ``in_size`` on the first call. ``forward(x, n_batch_axes=1)``
    flattens the axes of ``x`` after the first ``n_batch_axes``.
    """

    spec_type = nn.Linear
    __init__ = spec_constructor(nn.Linear, "initialW", "initial_bias")
    _computes_in_input_dtype = True
    _optional_params = ("b",)
    in_size = spec_attribute("in_size", "The input size (None when left to infer).")
    out_size = spec_attribute("out_size", "The output size.")

    def forward(self, x, n_batch_axes: int = 1) -> Variable:
        """``x W^T + b``, the axes of ``x`` after the first ``n_batch_axes`` flattened."""
        return super().forward(x, n_batch_axes=n_batch_axes)

    def _example(self, args: tuple, kwargs: dict) -> tuple:
        return (*super()._example(args, kwargs), kwargs.get("n_batch_axes", 1))

    @property
    def printable_specs(self):
        """``in_size``, ``out_size`` and ``nobias``, as ``str(link)`` shows them."""
        yield from (("in_size", self.in_size), ("out_size", self.out_size), ("nobias", self.b is None))

    @classmethod
    def from_params(cls, W, b=None, nobias: bool = False) -> Linear:
        """A Linear link whose parameters are (copies of) ``W`` ``(out_size, in_size)`` and ``b``."""
        out_size, in_size = W.shape
        if b is not None and out_size != b.size:
            raise ValueError(
                f"Linear.from_params: `out_size` does not match the size of `b`: W is {W.shape}, "
                f"b has {b.size} elements\n  hint: b holds one bias per row of W"
            )
        return cls(in_size, out_size, nobias, initialW=as_array(W), initial_bias=as_array(b))


def _check_bilinear_arrays(arguments: dict) -> None:
    """Chainer asserts the exact shape of each array given to ``L.Bilinear``."""
    left, right, out = (arguments[k] for k in ("left_size", "right_size", "out_size"))
    shapes = {"initialW": (left, right, out)}
    given = {"initialW": arguments.get("initialW")}
    initial_bias = arguments.get("initial_bias")
    if isinstance(initial_bias, tuple) and not arguments.get("nobias", False):
        shapes.update(initialV1=(left, out), initialV2=(right, out), initialb=(out,))
        given.update(zip(("initialV1", "initialV2", "initialb"), initial_bias))
    for name, value in given.items():
        if hasattr(value, "shape") and tuple(value.shape) != shapes[name]:
            raise AssertionError(
                f"Bilinear: expected {name}.shape == {shapes[name]}, got {tuple(value.shape)}\n"
                "  hint: W is (left_size, right_size, out_size), V1 (left_size, out_size), "
                "V2 (right_size, out_size), b (out_size,)"
            )


class Bilinear(SpecLink):
    """Bilinear layer, Chainer's ``L.Bilinear(left_size, right_size, out_size, nobias=False,
    initialW=None, initial_bias=None)``: ``W`` ``(left_size, right_size, out_size)`` and, unless
    ``nobias``, ``V1``, ``V2``, ``b``; ``initial_bias`` is a tuple ``(initialV1, initialV2,
    initialb)``. ``forward(e1, e2)``."""

    spec_type = nn.Bilinear
    in_sizes = spec_view(lambda s: (s.left_size, s.right_size), "``(left_size, right_size)``.")
    nobias = _NOBIAS

    __init__ = spec_constructor(nn.Bilinear, "initialW", "initial_bias", check=_check_bilinear_arrays)


class Bias(SpecLink):
    """Learned bias with broadcasting, Chainer's ``L.Bias(axis=1, shape=None)``: with ``shape``,
    ``forward(x)`` adds the parameter ``b`` along ``axis``; without, ``forward(x, y)`` adds ``y``."""

    spec_type = nn.Bias
    __init__ = spec_constructor(nn.Bias)
    axis = spec_attribute("axis", "The first axis of ``x`` the bias is added along.", settable=True)

    def forward(self, *xs: Any) -> Variable:
        """``x + b`` (one input) or ``x + y`` (two inputs, when the link has no ``b``)."""
        _check_input_count(self, "b", xs)
        return super().forward(*xs)


class Scale(SpecLink, Chain):
    """Learned scale with broadcasting, Chainer's ``L.Scale(axis=1, W_shape=None, bias_term=False,
    bias_shape=None)``: with ``W_shape``, ``forward(x)`` multiplies by the parameter ``W`` along
    ``axis``; without, ``forward(x, y)`` by ``y``; ``bias_term`` adds a child ``bias`` (a Bias)."""

    spec_type = nn.Scale
    __init__ = spec_constructor(nn.Scale)
    axis = spec_attribute("axis", "The first axis of ``x`` the scale applies along.")

    def forward(self, *xs: Any) -> Variable:
        """``x * W`` (one input) or ``x * y`` (two inputs, when the link has no ``W``), plus the
        bias."""
        _check_input_count(self, "W", xs)
        return super().forward(*xs)


class _InputCountError(InvalidInputError, AssertionError):
    """Bias or Scale called with the wrong number of inputs: Chainer asserts the count in debug
    mode and otherwise fails to unpack them (a ValueError); this error is both."""


def _check_input_count(link: SpecLink, name: str, xs: tuple) -> None:
    """One input when ``link`` learns the parameter ``name``, else two (x and its operand y)."""
    expected = 1 if getattr(link, name, None) is not None else 2
    if len(xs) != expected:
        raise _InputCountError(
            f"{type(link).__name__}.forward: expected {expected} input{'s' if expected > 1 else ''}, "
            f"got {len(xs)}\n  hint: the link {'learns' if expected == 1 else 'does not learn'} {name}: "
            f"call it as {'link(x)' if expected == 1 else 'link(x, y)'}"
        )


class EmbedID(SpecLink):
    """Word embedding, Chainer's ``L.EmbedID(in_size, out_size, initialW=None,
    ignore_label=None)``: ``forward(x)`` picks the rows of ``W`` ``(in_size, out_size)`` (normal
    with scale 1 by default) for the ids ``x``; ids equal to ``ignore_label`` give zeros."""

    spec_type = nn.EmbedID
    __init__ = spec_constructor(nn.EmbedID, "initialW")
    ignore_label = spec_attribute("ignore_label", "The id mapped to a zero vector (or None).", settable=True)

    @ignore_label.deleter
    def ignore_label(self) -> None:
        # Chainer's class default: a link without the attribute (an old pickle) ignores no id
        self._spec = replaced(self._spec, ignore_label=None)

    @classmethod
    def from_params(cls, W, ignore_label: int | None = None) -> EmbedID:
        """An EmbedID link whose ``W`` is (a copy of) ``W`` ``(in_size, out_size)``."""
        in_size, out_size = W.shape
        return cls(in_size, out_size, initialW=as_array(W), ignore_label=ignore_label)


class Highway(SpecLink, Chain):
    """Highway layer, Chainer's ``L.Highway(in_out_size, nobias=False, activate=relu,
    init_Wh=None, init_Wt=None, init_bh=None, init_bt=-1)``: children ``plain`` and ``transform``
    (Linear links); ``y = activate(plain(x)) * t + x * (1 - t)``, ``t = sigmoid(transform(x))``."""

    spec_type = nn.Highway
    __init__ = spec_constructor(
        nn.Highway, "init_Wh", "init_Wt", "init_bh", "init_bt", functions=("activate",)
    )


class Inception(SpecLink, Chain):
    """GoogLeNet's Inception module, Chainer's ``L.Inception(in_channels, out1, proj3, out3,
    proj5, out5, proj_pool, conv_init=None, bias_init=None)``: Convolution2D children ``conv1``,
    ``proj3``, ``conv3``, ``proj5``, ``conv5``, ``projp``; ``in_channels=None`` is inferred."""

    spec_type = nn.Inception
    __init__ = spec_constructor(nn.Inception, "conv_init", "bias_init")


class InceptionBN(SpecLink, Chain):
    """Inception module with batch normalization, Chainer's ``L.InceptionBN(in_channels, out1,
    proj3, out3, proj33, out33, pooltype, proj_pool=None, stride=1, conv_init=None,
    dtype=None)``: Convolution2D children (no bias) each followed by a BatchNormalization child
    (``proj3n``, ``conv3n``, ...) whose running statistics are updated in training."""

    spec_type = nn.InceptionBN
    _build = spec_constructor(nn.InceptionBN, "conv_init", dtypes=("dtype",))

    def __init__(self, *args: Any, **kwargs: Any):
        try:
            self._build(*args, **kwargs)
        except InvalidInputError as error:
            if not str(error).startswith("InceptionBN:"):
                raise
            # Chainer's types for InceptionBN's own checks: an unknown pooltype, or an assertion
            pooltype = kwargs.get("pooltype", args[6] if len(args) > 6 else None)
            raise (NotImplementedError if pooltype not in ("max", "avg") else AssertionError)(
                str(error)
            ) from error

    __init__.__signature__ = _build.__signature__
    __init__.__doc__ = _build.__doc__

    pooltype = spec_attribute("pooltype", "``'max'`` or ``'avg'``: the pooling branch.")
    stride = spec_attribute("stride", "The stride of the 3 x 3 convolutions and of the pooling.")
    out1 = spec_view(
        lambda s: s.conv1.out_channels if s.conv1 else 0, "The channels of the 1 x 1 branch (0: none)."
    )
    proj_pool = spec_view(
        lambda s: s.poolp and s.poolp.out_channels, "The channels of the pooling projection (None: none)."
    )


_MLP_WSCALE = (
    "wscale is not supported anymore. Use conv_init and bias_init argument to change the scale of "
    "initial parameters."
)


class MLPConvolution2D(SpecLink, ChainList):
    """Network-in-network convolution, Chainer's ``L.MLPConvolution2D(in_channels, out_channels,
    ksize=None, stride=1, pad=0, activation=relu, *, conv_init=None, bias_init=None)``: a
    ChainList of Convolution2D links (``ksize`` then ``1 x 1``), ``activation`` between them;
    ``MLPConvolution2D(out_channels, ksize)`` infers ``in_channels``."""

    spec_type = nn.MLPConvolution2D

    __init__ = spec_constructor(
        nn.MLPConvolution2D,
        "conv_init",
        "bias_init",
        functions=("activation",),
        retired={"wscale": _MLP_WSCALE},
        retired_positional=_MLP_WSCALE,  # Chainer v1's seventh positional argument, wscale
        keep=("activation",),
    )
    _activation = staticmethod(relu)  # Chainer's default; one given to the constructor replaces it

    @property
    def activation(self):
        """The activation between the convolutions, as given; setting it changes the next call."""
        return self._activation

    @activation.setter
    def activation(self, function) -> None:
        self._spec = replaced(self._spec, activation=pure_function(function))
        self._activation = function


class Parameter(SpecLink):
    """A link holding one parameter, Chainer's ``L.Parameter(array)``: ``W`` is ``array`` (the
    same array object, as in Chainer), and ``forward()`` returns it as a Variable."""

    spec_type = nn.Parameter

    def __init__(self, array):
        super().__init__(nn.Parameter(array))
        self.W.cleargrad()  # a parameter made from an array has no grad, as in Chainer
        self.W.array = array


# -- convolutions ------------------------------------------------------------------------------
class _Convolution(_SizedByAxis1):
    """The convolution links: ``W``, and ``b`` (None with ``nobias``)."""

    _computes_in_input_dtype = True
    _optional_params = ("b",)


class _Convolution2D(_Convolution):
    """The 2-D convolutions with output channels and dilation (Convolution2D, Deconvolution2D,
    DilatedConvolution2D): their sizes shown as Chainer's 2-D links keep them."""

    out_channels = _OUT_CHANNELS
    stride = _pair_attribute("stride")
    pad = _pair_attribute("pad")
    dilate = _pair_attribute("dilate")
    ksize = _KSIZE


class ConvolutionND(_Convolution):
    """N-dimensional convolution, Chainer's ``L.ConvolutionND(ndim, in_channels, out_channels,
    ksize=None, stride=1, pad=0, nobias=False, initialW=None, initial_bias=None,
    cover_all=False, dilate=1, groups=1)``: ``W`` ``(out_channels, in_channels / groups,
    *ksize)``; ``ConvolutionND(ndim, out_channels, ksize)`` infers ``in_channels``."""

    spec_type = nn.ConvolutionND
    __init__ = spec_constructor(nn.ConvolutionND, "initialW", "initial_bias")
    out_channels = _OUT_CHANNELS
    ksize = spec_view(lambda s: _tuple(s.ksize, s.ndim), "The filter size, a tuple.")
    dilate = spec_view(lambda s: _tuple(s.dilate, s.ndim), "The dilation, a tuple.")
    stride = spec_attribute("stride", "The stride, as given.")
    pad = spec_attribute("pad", "The padding, as given.")
    cover_all = spec_attribute("cover_all", "Whether the output covers all of the input.")
    groups = _GROUPS

    @classmethod
    def from_params(cls, W, b=None, stride=1, pad=0, nobias: bool = False, **kwargs: Any) -> ConvolutionND:
        """A ConvolutionND link whose parameters are (copies of) ``W`` and ``b``; keywords
        ``cover_all``, ``dilate``, ``groups``."""
        cover_all, dilate, groups = parse_kwargs(
            f"{cls.__name__}.from_params", kwargs, {"cover_all": False, "dilate": 1, "groups": 1}
        )
        out_channels, in_per_group, *ksize = W.shape
        _check_bias(cls, out_channels, b)
        return ConvolutionND(
            len(ksize),
            in_per_group * groups,
            out_channels,
            tuple(ksize),
            stride,
            pad,
            nobias,
            initialW=as_array(W),
            initial_bias=as_array(b),
            cover_all=cover_all,
            dilate=dilate,
            groups=groups,
        )


def _check_bias(cls: type, out_channels: int, b) -> None:
    if b is not None and out_channels != b.size:
        raise ValueError(
            f"{cls.__name__}.from_params: `out_channels` does not match the size of `b`: "
            f"{out_channels} != {b.size}\n  hint: b holds one bias per output channel (W.shape[0])"
        )


class Convolution1D(ConvolutionND):
    """1-D convolution, Chainer's ``L.Convolution1D(in_channels, out_channels, ksize, ...)``:
    ``ConvolutionND`` with ``ndim=1``."""

    spec_type = nn.Convolution1D
    __init__ = spec_constructor(nn.Convolution1D, "initialW", "initial_bias")


class Convolution3D(ConvolutionND):
    """3-D convolution, Chainer's ``L.Convolution3D(in_channels, out_channels, ksize, ...)``:
    ``ConvolutionND`` with ``ndim=3``."""

    spec_type = nn.Convolution3D
    __init__ = spec_constructor(nn.Convolution3D, "initialW", "initial_bias")


class Convolution2D(_Convolution2D):
    """2-D convolution, Chainer's ``L.Convolution2D(in_channels, out_channels, ksize=None,
    stride=1, pad=0, nobias=False, initialW=None, initial_bias=None, *, dilate=1, groups=1)``:
    ``W`` ``(out_channels, in_channels / groups, kh, kw)`` (LeCun normal), ``b`` zeros;
    ``Convolution2D(out_channels, ksize)`` infers ``in_channels``."""

    spec_type = nn.Convolution2D
    __init__ = spec_constructor(nn.Convolution2D, "initialW", "initial_bias", retired=_DETERMINISTIC)
    in_channels = _IN_CHANNELS
    groups = _GROUPS

    @property
    def printable_specs(self):
        """The constructor arguments, as ``str(link)`` shows them."""
        yield from (
            ("in_channels", self.in_channels),
            ("out_channels", self.out_channels),
            ("ksize", self.ksize),
            ("stride", self.stride),
            ("pad", self.pad),
            ("nobias", self.b is None),
            ("dilate", self.dilate),
            ("groups", self.groups),
        )

    @classmethod
    def from_params(cls, W, b=None, stride=1, pad=0, nobias: bool = False, **kwargs: Any) -> Convolution2D:
        """A Convolution2D link whose parameters are (copies of) ``W`` and ``b``; keywords
        ``dilate``, ``groups``."""
        dilate, groups = parse_kwargs(f"{cls.__name__}.from_params", kwargs, {"dilate": 1, "groups": 1})
        out_channels, in_per_group, kh, kw = W.shape
        _check_bias(cls, out_channels, b)
        return cls(
            in_per_group * groups,
            out_channels,
            (kh, kw),
            stride,
            pad,
            nobias,
            initialW=as_array(W),
            initial_bias=as_array(b),
            dilate=dilate,
            groups=groups,
        )


class DeconvolutionND(_Convolution):
    """N-dimensional deconvolution, Chainer's ``L.DeconvolutionND(ndim, in_channels,
    out_channels, ksize=None, stride=1, pad=0, nobias=False, outsize=None, initialW=None,
    initial_bias=None, dilate=1, groups=1)``: ``W`` ``(in_channels, out_channels / groups,
    *ksize)``; ``DeconvolutionND(ndim, out_channels, ksize)`` infers ``in_channels``."""

    spec_type = nn.DeconvolutionND
    __init__ = spec_constructor(nn.DeconvolutionND, "initialW", "initial_bias")
    out_channels = _OUT_CHANNELS
    ksize = ConvolutionND.ksize
    dilate = ConvolutionND.dilate
    stride = ConvolutionND.stride
    pad = ConvolutionND.pad
    outsize = spec_attribute("outsize", "The output size (None: computed from the input).")
    groups = _GROUPS


class Deconvolution1D(DeconvolutionND):
    """1-D deconvolution, Chainer's ``L.Deconvolution1D(in_channels, out_channels, ksize, ...)``."""

    spec_type = nn.Deconvolution1D
    __init__ = spec_constructor(nn.Deconvolution1D, "initialW", "initial_bias")


class Deconvolution3D(DeconvolutionND):
    """3-D deconvolution, Chainer's ``L.Deconvolution3D(in_channels, out_channels, ksize, ...)``."""

    spec_type = nn.Deconvolution3D
    __init__ = spec_constructor(nn.Deconvolution3D, "initialW", "initial_bias")


class Deconvolution2D(_Convolution2D):
    """2-D deconvolution, Chainer's ``L.Deconvolution2D(in_channels, out_channels, ksize=None,
    stride=1, pad=0, nobias=False, outsize=None, initialW=None, initial_bias=None, *, dilate=1,
    groups=1)``: ``W`` ``(in_channels, out_channels / groups, kh, kw)``;
    ``Deconvolution2D(out_channels, ksize)`` infers ``in_channels``."""

    spec_type = nn.Deconvolution2D
    __init__ = spec_constructor(nn.Deconvolution2D, "initialW", "initial_bias", retired=_DETERMINISTIC)
    groups = _GROUPS
    outsize = spec_view(
        lambda s: s.outsize or (None, None), "The output size, ``(None, None)`` when computed."
    )


class DepthwiseConvolution2D(_Convolution):
    """Depthwise convolution, Chainer's ``L.DepthwiseConvolution2D(in_channels,
    channel_multiplier, ksize, stride=1, pad=0, nobias=False, initialW=None,
    initial_bias=None)``: ``W`` ``(channel_multiplier, in_channels, kh, kw)``; with
    ``in_channels=None`` both ``W`` and ``b`` wait for the first call."""

    spec_type = nn.DepthwiseConvolution2D
    __init__ = spec_constructor(nn.DepthwiseConvolution2D, "initialW", "initial_bias")
    stride = _pair_attribute("stride")
    pad = _pair_attribute("pad")
    ksize = _KSIZE
    channel_multiplier = spec_attribute("channel_multiplier", "The filters per input channel.")
    nobias = _NOBIAS


class DilatedConvolution2D(_Convolution2D):
    """Dilated convolution, Chainer's ``L.DilatedConvolution2D(in_channels, out_channels,
    ksize=None, stride=1, pad=0, dilate=1, nobias=False, initialW=None, initial_bias=None)``."""

    spec_type = nn.DilatedConvolution2D
    __init__ = spec_constructor(nn.DilatedConvolution2D, "initialW", "initial_bias")


class LocalConvolution2D(_Convolution):
    """Locally connected layer, Chainer's ``L.LocalConvolution2D(in_channels, out_channels,
    in_size=None, ksize=None, stride=1, nobias=False, initialW=None, initial_bias=None)``:
    ``W`` ``(out_channels, out_h, out_w, in_channels, kh, kw)``, ``b`` ``(out_channels, out_h,
    out_w)``; with ``in_channels`` or ``in_size`` None both wait for the first call."""

    spec_type = nn.LocalConvolution2D
    __init__ = spec_constructor(nn.LocalConvolution2D, "initialW", "initial_bias")
    out_channels = _OUT_CHANNELS
    stride = _pair_attribute("stride")
    ksize = _KSIZE
    nobias = _NOBIAS


class DeformableConvolution2DSampler(_Convolution):
    """The sampling half of ``DeformableConvolution2D`` (its child ``deform_conv``):
    ``forward(x, offset)`` with ``W`` ``(out_channels, in_channels, kh, kw)`` (zeros)."""

    spec_type = nn.DeformableConvolution2DSampler
    __init__ = spec_constructor(nn.DeformableConvolution2DSampler, "initialW", "initial_bias")
    out_channels = _OUT_CHANNELS
    stride = _pair_attribute("stride")
    pad = _pair_attribute("pad")
    ksize = _KSIZE


class DeformableConvolution2D(SpecLink, Chain):
    """Deformable convolution, Chainer's ``L.DeformableConvolution2D(in_channels, out_channels,
    ksize, stride=1, pad=0, offset_nobias=False, offset_initialW=None, offset_initial_bias=None,
    deform_nobias=False, deform_initialW=None, deform_initial_bias=None)``: children
    ``offset_conv`` (a Convolution2D computing the offsets) and ``deform_conv``."""

    spec_type = nn.DeformableConvolution2D
    __init__ = spec_constructor(
        nn.DeformableConvolution2D,
        "offset_initialW",
        "offset_initial_bias",
        "deform_initialW",
        "deform_initial_bias",
    )
