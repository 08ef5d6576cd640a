"""Connection and activation layers with parameters (Chainer's ``L.Bilinear``, ``L.EmbedID``,
``L.Highway``, ``L.Inception``, ``L.Maxout``, ``L.PReLU``, ``L.Scale``, ...) as pure specs.

Params are dicts keyed by Chainer's parameter names; composites (``Highway``, ``Inception``,
``InceptionBN``, ``MLPConvolution2D``, ``Maxout``, ``Scale``) nest their children's params under
Chainer's child names (``plain/W``, ``conv1/b``, ``0/W``, ``linear/W``, ``bias/b``), so that
``fnet.tree.path_str`` of every leaf is the link's ``namedparams`` name.

>>> import numpy, fnet
>>> highway = fnet.nn.Highway(4)
>>> params = highway.init(fnet.random.key(0))
>>> sorted(fnet.tree.path_str(p) for p, _ in fnet.tree.flatten_with_paths(params))
['plain/W', 'plain/b', 'transform/W', 'transform/b']
>>> highway(params, numpy.ones((2, 4), numpy.float32)).shape
(2, 4)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import attrs
import numpy

from .. import backend, initializers, random
from .. import functions as F
from ..autodiff.tracer import unbox_all
from ..errors import InvalidInputError, ShapeError, message
from .convolution import Convolution2D, IntOrTuple, _input_shape, _positive
from .layer import Layer, Module, frozen_initializer, lazy_field
from .linear import Linear
from .normalization import BatchNormalization

__all__ = [
    "Bias",
    "Bilinear",
    "EmbedID",
    "Highway",
    "Inception",
    "InceptionBN",
    "MLPConvolution2D",
    "Maxout",
    "PReLU",
    "Parameter",
    "Scale",
    "SimplifiedDropconnect",
    "Swish",
]

Shape = int | Sequence[int]


def _filled(value, key, shape):
    """A parameter made as Chainer's ``Parameter(value, shape)``: a number or an array fills it, an
    initializer draws it, None leaves it NaN."""
    return initializers.as_initializer(value, initializers.NaN())(key, shape)


def _frozen_triple(value):
    """Bilinear's ``initial_bias``: a tuple of three initial values, each kept as an initializer
    (anything else, unused with ``nobias``, is kept as it is)."""
    return tuple(frozen_initializer(v) for v in value) if isinstance(value, tuple) else value


def _is_array(value) -> bool:
    return backend.is_array(value) and numpy.ndim(value) > 0


# -- fully connected variants ----------------------------------------------------------------
@attrs.frozen(init=False)
class Bilinear(Layer):
    """Bilinear layer, Chainer's ``L.Bilinear``: ``F.bilinear(e1, e2, W, V1, V2, b)``, each output
    unit a quadratic form of the two inputs plus a linear term of each and a bias.

    Params: ``W`` ``(left_size, right_size, out_size)``, and unless ``nobias``, ``V1``
    ``(left_size, out_size)``, ``V2`` ``(right_size, out_size)`` and ``b`` ``(out_size,)``. ``W``,
    ``V1`` and ``V2`` are LeCun normal and ``b`` zeros by default; ``initial_bias`` is None or a
    tuple ``(initialV1, initialV2, initialb)`` (in which None means LeCun normal for each, as in
    Chainer). ``apply(params, e1, e2)`` takes ``e1`` ``(batch, left_size)`` and ``e2``
    ``(batch, right_size)``.

    >>> import numpy, fnet
    >>> layer = fnet.nn.Bilinear(2, 3, 4)
    >>> params = layer.init(fnet.random.key(0))
    >>> layer(params, numpy.ones((5, 2), numpy.float32), numpy.ones((5, 3), numpy.float32)).shape
    (5, 4)
    """

    left_size: int
    right_size: int
    out_size: int
    nobias: bool = False
    initialW: object = attrs.field(default=None, converter=frozen_initializer)
    initial_bias: tuple | None = attrs.field(default=None, converter=_frozen_triple)

    def __init__(
        self,
        left_size: int,
        right_size: int,
        out_size: int,
        nobias: bool = False,
        initialW=None,
        initial_bias: tuple | None = None,
    ):
        fn = type(self).__name__
        for name, size in (("left_size", left_size), ("right_size", right_size), ("out_size", out_size)):
            _positive(fn, name, size)
        if (
            not nobias
            and initial_bias is not None
            and not (isinstance(initial_bias, tuple) and len(initial_bias) == 3)
        ):
            raise InvalidInputError(
                message(
                    fn,
                    f"expected initial_bias to be None or a tuple (initialV1, initialV2, initialb), "
                    f"got {type(initial_bias).__name__}",
                    hint="e.g. initial_bias=(None, None, 0) draws V1 and V2 from LeCun normal and b = 0",
                )
            )
        self.__attrs_init__(left_size, right_size, out_size, nobias, initialW, initial_bias)

    def init(self, key) -> dict:
        """``W`` (and ``V1``, ``V2``, ``b`` unless ``nobias``)."""
        left, right, out = self.left_size, self.right_size, self.out_size
        w_key, v1_key, v2_key, b_key = random.split(key, 4)
        params = {"W": initializers.as_initializer(self.initialW)(w_key, (left, right, out))}
        if self.nobias:
            return params
        v1, v2, b = (None, None, initializers.Zero()) if self.initial_bias is None else self.initial_bias
        params["V1"] = initializers.as_initializer(v1)(v1_key, (left, out))
        params["V2"] = initializers.as_initializer(v2)(v2_key, (right, out))
        params["b"] = initializers.as_initializer(b)(b_key, (out,))
        return params

    def apply(self, params, e1, e2):
        """The bilinear map of ``e1`` ``(batch, left_size)`` and ``e2`` ``(batch, right_size)``."""
        if self.nobias:
            return F.bilinear(e1, e2, params["W"])
        return F.bilinear(e1, e2, params["W"], params["V1"], params["V2"], params["b"])


@attrs.frozen(init=False)
class EmbedID(Layer):
    """Word embedding layer, Chainer's ``L.EmbedID``: the rows of ``W`` ``(in_size, out_size)``
    picked by integer ids (``F.embed_id``); ``W`` is standard normal by default (Chainer's
    ``Normal(1.0)``). Ids equal to ``ignore_label`` give zero vectors.

    >>> import numpy, fnet
    >>> embed = fnet.nn.EmbedID(10, 3, ignore_label=-1)
    >>> params = embed.init(fnet.random.key(0))
    >>> y = embed(params, numpy.array([1, -1], numpy.int32))
    >>> y.shape, float(abs(y[1]).sum())
    ((2, 3), 0.0)
    """

    in_size: int
    out_size: int
    initialW: object = attrs.field(default=None, converter=frozen_initializer)
    ignore_label: int | None = None

    def __init__(self, in_size: int, out_size: int, initialW=None, ignore_label: int | None = None):
        _positive(type(self).__name__, "in_size", in_size)
        _positive(type(self).__name__, "out_size", out_size)
        self.__attrs_init__(in_size, out_size, initialW, ignore_label)

    def init(self, key) -> dict:
        """The embedding matrix ``W``."""
        initialW = initializers.as_initializer(self.initialW, initializers.Normal(1.0))
        return {"W": initialW(key, (self.in_size, self.out_size))}

    def apply(self, params, x):
        """The embeddings of the ids ``x`` (an int array of any shape): ``x.shape + (out_size,)``."""
        return F.embed_id(x, params["W"], self.ignore_label)


@attrs.frozen(init=False)
class SimplifiedDropconnect(Layer):
    """Linear layer with simplified DropConnect, Chainer's ``L.SimplifiedDropconnect``: in training
    each weight is dropped with probability ``ratio`` (``F.simplified_dropconnect``).

    ``W`` ``(out_size, in_size)`` is He normal scaled by ``1 / sqrt(2)`` by default and ``b``
    ``(out_size,)`` zeros (none with ``nobias``); ``in_size=None`` is inferred from the example
    input of ``init(key, x)``. ``apply(params, x, train=True, mask=None, use_batchwise_mask=True,
    *, key=None)``: randomness is explicit, so training needs ``key`` (an ``fnet.random`` key, a
    fresh one per step) unless a ``mask`` is given; ``train=False`` is the plain linear layer.
    Chainer's link keeps a given mask as a persistent value; here the caller keeps it.

    >>> import numpy, fnet
    >>> layer = fnet.nn.SimplifiedDropconnect(4, 3, ratio=0.5)
    >>> params = layer.init(fnet.random.key(0))
    >>> x = numpy.ones((2, 4), numpy.float32)
    >>> layer(params, x, key=fnet.random.key(1)).shape, layer(params, x, train=False).shape
    ((2, 3), (2, 3))
    """

    in_size: int | None = lazy_field(sizes=("W",))
    out_size: int
    ratio: float = 0.5
    nobias: bool = False
    initialW: object = attrs.field(default=None, converter=frozen_initializer)
    initial_bias: object = attrs.field(default=None, converter=frozen_initializer)

    def __init__(
        self,
        in_size: int | None,
        out_size: int,
        ratio: float = 0.5,
        nobias: bool = False,
        initialW=None,
        initial_bias=None,
    ):
        fn = type(self).__name__
        _positive(fn, "in_size", in_size, optional=True)
        _positive(fn, "out_size", out_size)
        if not 0.0 <= ratio < 1.0:
            raise InvalidInputError(
                message(fn, f"expected 0 <= ratio < 1, got {ratio!r}", hint="ratio is the drop probability")
            )
        self.__attrs_init__(in_size, out_size, ratio, nobias, initialW, initial_bias)

    def init(self, key, x=None) -> dict:
        """``W`` and ``b``; ``x`` (an example input) is needed when ``in_size`` is None."""
        in_size = self.in_size
        if in_size is None:
            in_size = math.prod(_input_shape(type(self).__name__, x, "in_size")[1:])
        w_key, b_key = random.split(key)
        default = initializers.HeNormal(1.0 / numpy.sqrt(2))
        params = {"W": initializers.as_initializer(self.initialW, default)(w_key, (self.out_size, in_size))}
        if not self.nobias:
            params["b"] = initializers.as_initializer(self.initial_bias, initializers.Zero())(
                b_key, (self.out_size,)
            )
        return params

    def apply(self, params, x, train: bool = True, mask=None, use_batchwise_mask: bool = True, *, key=None):
        """``x W^T + b`` with dropped weights (``train``), from ``key`` or the given ``mask``."""
        return F.simplified_dropconnect(
            x, params["W"], params.get("b"), self.ratio, train, mask, use_batchwise_mask, key=key
        )


@attrs.frozen(init=False)
class Maxout(Module):
    """Fully connected maxout layer, Chainer's ``L.Maxout``: a ``Linear`` to ``out_size *
    pool_size`` units (the child ``linear``), then the maximum over each group of ``pool_size``.

    ``initialW`` may be an array ``(out_size, pool_size, in_size)`` and ``initial_bias`` one
    ``(out_size, pool_size)`` (Chainer's layouts, reshaped for the child); initializers are used
    on the child's ``(out_size * pool_size, in_size)`` weight. ``W`` is LeCun normal by default,
    ``b`` zeros; ``initial_bias=None`` means no bias. ``in_size=None`` is inferred by
    ``init(key, x)``.

    >>> import numpy, fnet
    >>> layer = fnet.nn.Maxout(3, 2, 4)
    >>> params = layer.init(fnet.random.key(0))
    >>> params["linear"]["W"].shape, layer(params, numpy.ones((5, 3), numpy.float32)).shape
    ((8, 3), (5, 2))
    """

    linear: Linear
    pool_size: int

    def __init__(self, in_size: int | None, out_size: int, pool_size: int, initialW=None, initial_bias=0):
        fn = type(self).__name__
        _positive(fn, "in_size", in_size, optional=True)
        _positive(fn, "out_size", out_size)
        _positive(fn, "pool_size", pool_size)
        units = out_size * pool_size
        initialW = self._reshaped(fn, "initialW", initialW, 3, "(out_size, pool_size, in_size)", (units, -1))
        initial_bias = self._reshaped(fn, "initial_bias", initial_bias, 2, "(out_size, pool_size)", (units,))
        linear = Linear(
            in_size, units, nobias=initial_bias is None, initialW=initialW, initial_bias=initial_bias
        )
        self.__attrs_init__(linear, pool_size)

    @staticmethod
    def _reshaped(fn: str, name: str, value, ndim: int, layout: str, shape: tuple):
        """An initial array in Maxout's layout, reshaped for the child ``Linear``."""
        if not _is_array(value):
            return value
        if numpy.ndim(value) != ndim:
            raise ShapeError(
                message(
                    fn,
                    f"expected {name}.ndim == {ndim}, got {numpy.ndim(value)}",
                    {name: value},
                    f"an initial array for Maxout has the layout {layout}",
                )
            )
        return value.reshape(shape)

    def init(self, key, x=None) -> dict:
        """The child's params; ``x`` (an example input) is needed when ``in_size`` is None."""
        return Module.init(self, key, x)

    def apply(self, params, x):
        """``maxout(linear(x), pool_size)``: ``(batch, out_size)``."""
        return F.maxout(self.linear(params["linear"], x), self.pool_size)


@attrs.frozen(init=False)
class Highway(Module):
    """Highway layer, Chainer's ``L.Highway``: ``y = a(plain(x)) * t + x * (1 - t)`` with the
    transform gate ``t = sigmoid(transform(x))``; ``plain`` and ``transform`` are square
    ``Linear`` children (``in_out_size`` units) and ``a`` is ``activate`` (ReLU).

    ``init_Wh`` / ``init_bh`` initialize ``plain`` (LeCun normal, zeros) and ``init_Wt`` /
    ``init_bt`` ``transform`` (LeCun normal, -1: the gate starts mostly closed, carrying ``x``).
    """

    plain: Linear
    transform: Linear
    activate: Callable = F.relu

    def __init__(
        self,
        in_out_size: int,
        nobias: bool = False,
        activate: Callable = F.relu,
        init_Wh=None,
        init_Wt=None,
        init_bh=None,
        init_bt=-1,
    ):
        _positive(type(self).__name__, "in_out_size", in_out_size)
        self.__attrs_init__(
            Linear(in_out_size, in_out_size, nobias=nobias, initialW=init_Wh, initial_bias=init_bh),
            Linear(in_out_size, in_out_size, nobias=nobias, initialW=init_Wt, initial_bias=init_bt),
            activate,
        )

    def apply(self, params, x):
        """The highway of ``x`` ``(batch, in_out_size)``."""
        gate = F.sigmoid(self.transform(params["transform"], x))
        out = self.activate(self.plain(params["plain"], x))
        return out * gate + x * (1 - gate)


# -- convolutional composites ----------------------------------------------------------------
@attrs.frozen(init=False)
class MLPConvolution2D(Layer):
    """Network-in-network convolution, Chainer's ``L.MLPConvolution2D``: a ``Convolution2D`` with
    ``ksize``, ``stride`` and ``pad`` to ``out_channels[0]``, then ``1 x 1`` convolutions to the
    other entries of ``out_channels``, with ``activation`` (ReLU) between them (not after the last).

    The convolutions are the children ``"0"``, ``"1"``, ... (a ``ChainList`` in Chainer), drawn
    from ``conv_init`` and ``bias_init`` (LeCun normal and zeros by default).
    ``MLPConvolution2D(out_channels, ksize)`` leaves ``in_channels`` to ``init(key, x)``.

    >>> import numpy, fnet
    >>> mlp = fnet.nn.MLPConvolution2D(3, (8, 4), 3)
    >>> params = mlp.init(fnet.random.key(0))
    >>> sorted(params), mlp(params, numpy.ones((1, 3, 5, 5), numpy.float32)).shape
    (['0', '1'], (1, 4, 3, 3))
    """

    convs: tuple[Convolution2D, ...]
    activation: Callable = F.relu

    def __init__(
        self,
        in_channels: int | None,
        out_channels: Sequence[int],
        ksize: IntOrTuple | None = None,
        stride: IntOrTuple = 1,
        pad: IntOrTuple = 0,
        activation: Callable = F.relu,
        *,
        conv_init=None,
        bias_init=None,
    ):
        if ksize is None:
            in_channels, out_channels, ksize = None, in_channels, out_channels
        if not isinstance(out_channels, Sequence) or not out_channels:
            raise InvalidInputError(
                message(
                    type(self).__name__,
                    f"expected out_channels to be a non-empty sequence of ints, got {out_channels!r}",
                    hint="one entry per convolution, e.g. (96, 96, 96)",
                )
            )
        sizes = list(out_channels)
        convs = [
            Convolution2D(
                in_channels, sizes[0], ksize, stride, pad, initialW=conv_init, initial_bias=bias_init
            )
        ]
        convs += [
            Convolution2D(n_in, n_out, 1, initialW=conv_init, initial_bias=bias_init)
            for n_in, n_out in zip(sizes, sizes[1:])
        ]
        self.__attrs_init__(tuple(convs), activation)

    def sublayers(self) -> dict[str, Layer]:
        """The convolutions, by their index (``"0"``, ``"1"``, ...)."""
        return {str(i): conv for i, conv in enumerate(self.convs)}

    def init(self, key, x=None) -> dict:
        """The params of each convolution; ``x`` is needed when ``in_channels`` is None."""
        keys = random.split(key, len(self.convs))
        # Only the first convolution may be lazy; the others ignore ``x``.
        return {str(i): conv.init(k, x) for i, (conv, k) in enumerate(zip(self.convs, keys))}

    def apply(self, params, x):
        """The convolutions of images ``x`` with the activation between them."""
        *hidden, last = range(len(self.convs))
        for i in hidden:
            x = self.activation(self.convs[i](params[str(i)], x))
        return self.convs[last](params[str(last)], x)


@attrs.frozen(init=False)
class Inception(Module):
    """GoogLeNet's Inception module, Chainer's ``L.Inception``: four branches concatenated on the
    channel axis, then ReLU.

    Children (``Convolution2D``): ``conv1`` (``1 x 1`` to ``out1``); ``proj3`` (``1 x 1`` to
    ``proj3``) then ReLU and ``conv3`` (``3 x 3`` to ``out3``); ``proj5`` then ReLU and ``conv5``
    (``5 x 5`` to ``out5``); and ``projp`` (``1 x 1`` to ``proj_pool``) after ``3 x 3`` max
    pooling. ``conv_init`` / ``bias_init`` initialize every convolution (LeCun normal / zeros).
    The output has ``out1 + out3 + out5 + proj_pool`` channels and the input's size.

    >>> import numpy, fnet
    >>> inception = fnet.nn.Inception(3, 4, 2, 4, 2, 4, 4)
    >>> params = inception.init(fnet.random.key(0))
    >>> inception(params, numpy.ones((1, 3, 5, 5), numpy.float32)).shape
    (1, 16, 5, 5)
    """

    conv1: Convolution2D
    proj3: Convolution2D
    conv3: Convolution2D
    proj5: Convolution2D
    conv5: Convolution2D
    projp: Convolution2D

    def __init__(
        self,
        in_channels: int | None,
        out1: int,
        proj3: int,
        out3: int,
        proj5: int,
        out5: int,
        proj_pool: int,
        conv_init=None,
        bias_init=None,
    ):
        def conv(n_in, n_out, ksize, pad=0):
            return Convolution2D(n_in, n_out, ksize, pad=pad, initialW=conv_init, initial_bias=bias_init)

        self.__attrs_init__(
            conv(in_channels, out1, 1),
            conv(in_channels, proj3, 1),
            conv(proj3, out3, 3, 1),
            conv(in_channels, proj5, 1),
            conv(proj5, out5, 5, 2),
            conv(in_channels, proj_pool, 1),
        )

    def init(self, key, x=None) -> dict:
        """The params of the convolutions; ``x`` is needed when ``in_channels`` is None."""
        return Module.init(self, key, x)

    def apply(self, params, x):
        """The four branches on images ``x``, concatenated on the channel axis."""
        out1 = self.conv1(params["conv1"], x)
        out3 = self.conv3(params["conv3"], F.relu(self.proj3(params["proj3"], x)))
        out5 = self.conv5(params["conv5"], F.relu(self.proj5(params["proj5"], x)))
        pool = self.projp(params["projp"], F.max_pooling_2d(x, 3, stride=1, pad=1))
        return F.relu(F.concat((out1, out3, out5, pool), axis=1))


@attrs.frozen(init=False)
class InceptionBN(Module):
    """Inception module with batch normalization (Inception v2), Chainer's ``L.InceptionBN``.

    Branches, each convolution (no bias, ``conv_init``) followed by its ``BatchNormalization``
    child (``<conv>n``, of ``dtype``) and ReLU: ``conv1`` (``1 x 1`` to ``out1``; only when
    ``out1 > 0``, which needs ``stride == 1`` and ``proj_pool``); ``proj3`` then ``conv3``
    (``3 x 3`` to ``out3``, ``stride``); ``proj33`` then ``conv33a`` and ``conv33b`` (``3 x 3`` to
    ``out33``, the second with ``stride``); and ``3 x 3`` pooling (``pooltype`` ``"max"`` or
    ``"avg"``, ``stride``), followed by ``poolp`` (``1 x 1`` to ``proj_pool``) when ``proj_pool``
    is given. The outputs are concatenated on the channel axis.

    The running statistics of the normalizations are state: ``init_state()`` makes it and
    ``apply(params, x, state, *, train=True)`` returns ``(y, new_state)`` (``train=False`` uses
    the running statistics and returns the state unchanged).

    >>> import numpy, fnet
    >>> block = fnet.nn.InceptionBN(3, 0, 2, 4, 2, 4, "max", stride=2)
    >>> params, state = block.init(fnet.random.key(0)), block.init_state()
    >>> y, state = block(params, numpy.ones((2, 3, 6, 6), numpy.float32), state)
    >>> y.shape, sorted(state["conv3n"])  # 4 + 4 + 3 channels (the pooled input) at half the size
    ((2, 11, 3, 3), ['N', 'avg_mean', 'avg_var'])
    """

    proj3: Convolution2D
    conv3: Convolution2D
    proj33: Convolution2D
    conv33a: Convolution2D
    conv33b: Convolution2D
    proj3n: BatchNormalization
    conv3n: BatchNormalization
    proj33n: BatchNormalization
    conv33an: BatchNormalization
    conv33bn: BatchNormalization
    conv1: Convolution2D | None
    conv1n: BatchNormalization | None
    poolp: Convolution2D | None
    poolpn: BatchNormalization | None
    pooltype: str
    stride: int

    def __init__(
        self,
        in_channels: int | None,
        out1: int,
        proj3: int,
        out3: int,
        proj33: int,
        out33: int,
        pooltype: str,
        proj_pool: int | None = None,
        stride: int = 1,
        conv_init=None,
        dtype=None,
    ):
        fn = type(self).__name__
        if pooltype not in ("max", "avg"):
            raise InvalidInputError(
                message(fn, f"expected pooltype 'max' or 'avg', got {pooltype!r}", hint="the pooling branch")
            )
        if out1 > 0 and (stride != 1 or proj_pool is None):
            raise InvalidInputError(
                message(
                    fn,
                    f"the 1 x 1 branch (out1={out1} > 0) needs stride == 1 and a proj_pool, got "
                    f"stride={stride!r} and proj_pool={proj_pool!r}",
                    hint="use out1=0 for a strided (grid-reducing) module",
                )
            )

        def conv(n_in, n_out, ksize, stride=1, pad=0):
            return Convolution2D(n_in, n_out, ksize, stride, pad, nobias=True, initialW=conv_init)

        def bn(size):
            return BatchNormalization(size, dtype=dtype)

        branch1 = (conv(in_channels, out1, 1), bn(out1)) if out1 > 0 else (None, None)
        pool = (conv(in_channels, proj_pool, 1), bn(proj_pool)) if proj_pool is not None else (None, None)
        self.__attrs_init__(
            conv(in_channels, proj3, 1),
            conv(proj3, out3, 3, stride, 1),
            conv(in_channels, proj33, 1),
            conv(proj33, out33, 3, 1, 1),
            conv(out33, out33, 3, stride, 1),
            bn(proj3),
            bn(out3),
            bn(proj33),
            bn(out33),
            bn(out33),
            *branch1,
            *pool,
            pooltype,
            stride,
        )

    def init(self, key, x=None) -> dict:
        """The params of the convolutions and normalizations; ``x`` is needed when
        ``in_channels`` is None."""
        return Module.init(self, key, x)

    def apply(self, params, x, state, *, train: bool = True):
        """``(y, new_state)`` for images ``x``: the branches concatenated on the channel axis."""
        new_state = dict(state)

        def conv_bn_relu(name: str, h):
            h = getattr(self, name)(params[name], h)
            h, new_state[name + "n"] = getattr(self, name + "n")(
                params[name + "n"], h, state[name + "n"], train=train
            )
            return F.relu(h)

        outs = [conv_bn_relu("conv1", x)] if self.conv1 is not None else []
        outs.append(conv_bn_relu("conv3", conv_bn_relu("proj3", x)))
        outs.append(conv_bn_relu("conv33b", conv_bn_relu("conv33a", conv_bn_relu("proj33", x))))
        if self.pooltype == "max":
            pool = F.max_pooling_2d(x, 3, stride=self.stride, pad=1, cover_all=False)
        else:
            pool = F.average_pooling_2d(x, 3, stride=self.stride, pad=1)
        outs.append(conv_bn_relu("poolp", pool) if self.poolp is not None else pool)
        return F.concat(outs, axis=1), new_state


# -- elementwise layers ----------------------------------------------------------------------
@attrs.frozen(init=False)
class Bias(Layer):
    """Learned bias with Caffe-style broadcasting, Chainer's ``L.Bias``: ``F.bias(x, b, axis)``.

    With ``shape`` the param ``b`` has that shape (zeros) and ``apply(params, x)`` adds it to the
    axes of ``x`` from ``axis`` on; without, there are no params and ``apply(params, x, y)`` adds
    the given ``y``.

    >>> import numpy, fnet
    >>> layer = fnet.nn.Bias(axis=1, shape=(3,))
    >>> params = layer.init(fnet.random.key(0))
    >>> layer(params, numpy.ones((2, 3, 4), numpy.float32)).shape
    (2, 3, 4)
    """

    axis: int = 1
    shape: Shape | None = None

    def __init__(self, axis: int = 1, shape: Shape | None = None):
        self.__attrs_init__(axis, shape)

    def init(self, key) -> dict:
        """``{"b": zeros(shape)}``, or no params without ``shape``."""
        return {} if self.shape is None else {"b": _filled(0, key, self.shape)}

    def apply(self, params, x, y=None):
        """``x`` plus the learned ``b`` (or the given ``y``), broadcast from ``axis``."""
        return F.bias(x, _operand(self, params, "b", y), self.axis)


@attrs.frozen(init=False)
class Scale(Layer):
    """Learned scale with Caffe-style broadcasting, Chainer's ``L.Scale``: ``F.scale(x, W, axis)``,
    optionally followed by a learned bias (the child ``bias``, a ``Bias`` link).

    With ``W_shape`` the param ``W`` has that shape (ones) and ``apply(params, x)`` scales by it;
    without, ``apply(params, x, y)`` scales by the given ``y``. ``bias_term`` adds the child
    ``bias`` with a ``b`` of ``W_shape`` (or of ``bias_shape``, which is then required).

    >>> import numpy, fnet
    >>> layer = fnet.nn.Scale(W_shape=(3,), bias_term=True)
    >>> params = layer.init(fnet.random.key(0))
    >>> sorted(fnet.tree.path_str(p) for p, _ in fnet.tree.flatten_with_paths(params))
    ['W', 'bias/b']
    """

    axis: int = 1
    W_shape: Shape | None = None
    bias_term: bool = False
    bias_shape: Shape | None = None

    def __init__(
        self,
        axis: int = 1,
        W_shape: Shape | None = None,
        bias_term: bool = False,
        bias_shape: Shape | None = None,
    ):
        if bias_term and W_shape is None and bias_shape is None:
            raise InvalidInputError(
                message(
                    type(self).__name__,
                    "expected bias_shape with bias_term=True and no W_shape, got bias_shape=None",
                    hint="give bias_shape (the shape of the learned bias), or W_shape",
                )
            )
        self.__attrs_init__(axis, W_shape, bias_term, bias_shape)

    @property
    def bias(self) -> Bias | None:
        """The child ``Bias`` layer (None without ``bias_term``)."""
        if not self.bias_term:
            return None
        return Bias(self.axis, self.W_shape if self.W_shape is not None else self.bias_shape)

    def sublayers(self) -> dict[str, Layer]:
        """The child ``bias`` (with ``bias_term``)."""
        return {} if self.bias is None else {"bias": self.bias}

    def init(self, key) -> dict:
        """``W`` (with ``W_shape``) and the child's ``bias`` params (with ``bias_term``)."""
        w_key, bias_key = random.split(key)
        params = {} if self.W_shape is None else {"W": _filled(1, w_key, self.W_shape)}
        if self.bias_term:
            params["bias"] = self.bias.init(bias_key)
        return params

    def apply(self, params, x, y=None):
        """``x`` times the learned ``W`` (or the given ``y``) from ``axis``, plus the bias."""
        z = F.scale(x, _operand(self, params, "W", y), self.axis)
        return z if not self.bias_term else self.bias(params["bias"], z)


def _operand(layer, params, name: str, y):
    """The learned ``params[name]`` when the layer has it, else the given ``y`` (exactly one)."""
    fn = f"{type(layer).__name__}.apply"
    learned = name in params
    if learned == (y is not None):
        raise InvalidInputError(
            message(
                fn,
                f"expected {'no' if learned else 'a'} second input y, since the layer "
                f"{'learns' if learned else 'does not learn'} {name}",
                hint=f"apply(params, x) when the layer was built with a shape for {name}; "
                "apply(params, x, y) otherwise",
            )
        )
    return params[name] if learned else y


@attrs.frozen(init=False)
class PReLU(Layer):
    """Parametric ReLU, Chainer's ``L.PReLU``: ``F.prelu(x, W)`` with learned slopes ``W`` of
    ``shape`` (``()`` for one shared slope, ``(C,)`` for one per channel) starting at ``init``.

    Chainer's argument ``init`` is kept in the field ``initialW`` (``init`` is the method).

    >>> import numpy, fnet
    >>> layer = fnet.nn.PReLU()
    >>> layer(layer.init(fnet.random.key(0)), numpy.array([[-2.0, 2.0]], numpy.float32))
    array([[-0.5,  2. ]], dtype=float32)
    """

    shape: Shape = ()
    initialW: object = attrs.field(default=0.25, converter=frozen_initializer)

    def __init__(self, shape: Shape = (), init=0.25):
        self.__attrs_init__(shape, init)

    def init(self, key) -> dict:
        """The slopes ``W``."""
        return {"W": _filled(self.initialW, key, self.shape)}

    def apply(self, params, x):
        """``x`` where non-negative, ``W * x`` elsewhere."""
        return F.prelu(x, params["W"])


@attrs.frozen(init=False)
class Swish(Layer):
    """Swish activation, Chainer's ``L.Swish``: ``F.swish(x, beta) = x * sigmoid(beta * x)`` with
    a learned ``beta`` of ``beta_shape``, starting at ``beta_init`` (1). ``beta_shape=None``
    takes ``x.shape[1:]`` of the example input of ``init(key, x)``.

    >>> import numpy, fnet
    >>> layer = fnet.nn.Swish((2,))
    >>> layer(layer.init(fnet.random.key(0)), numpy.array([[0.0, 100.0]], numpy.float32))
    array([[  0., 100.]], dtype=float32)
    """

    beta_shape: Shape | None = lazy_field(sizes=("beta",))
    beta_init: object = attrs.field(default=1.0, converter=frozen_initializer)

    def __init__(self, beta_shape: Shape | None, beta_init=1.0):
        self.__attrs_init__(beta_shape, beta_init)

    def init(self, key, x=None) -> dict:
        """``beta``; ``x`` (an example input) is needed when ``beta_shape`` is None."""
        shape = self.beta_shape
        if shape is None:
            shape = _input_shape(type(self).__name__, x, "beta_shape")[1:]
        return {"beta": _filled(self.beta_init, key, shape)}

    def apply(self, params, x):
        """``x * sigmoid(beta * x)``."""
        return F.swish(x, params["beta"])


def _same_array(a, b) -> bool:
    a, b = backend.to_cpu(a), backend.to_cpu(b)
    return a is b or (a.shape == b.shape and a.dtype == b.dtype and numpy.array_equal(a, b, equal_nan=True))


@attrs.frozen(init=False)
class Parameter(Layer):
    """A layer holding one array, Chainer's ``L.Parameter``: ``init`` returns ``{"W": a copy of
    array}`` and ``apply(params)`` returns ``params["W"]``, so that the array is trained as a
    parameter of the model. The spec keeps its own (read-only) copy of ``array``.

    >>> import numpy, fnet
    >>> layer = fnet.nn.Parameter(numpy.zeros((2, 3), numpy.float32))
    >>> layer(layer.init(fnet.random.key(0))).shape
    (2, 3)
    """

    array: object = attrs.field(eq=attrs.cmp_using(eq=_same_array), hash=False)

    def __init__(self, array):
        if not backend.is_array(unbox_all(array)):
            raise InvalidInputError(
                message(
                    type(self).__name__,
                    f"expected an array, got {type(array).__name__}",
                    hint="e.g. Parameter(numpy.zeros((3, 4), numpy.float32))",
                )
            )
        array = unbox_all(array).copy()
        if isinstance(array, numpy.ndarray):
            array.setflags(write=False)
        self.__attrs_init__(array)

    def init(self, key) -> dict:
        """``{"W": a copy of the array}`` (``key`` is unused)."""
        return {"W": self.array.copy()}

    def apply(self, params):
        """The parameter ``W``."""
        return params["W"]
