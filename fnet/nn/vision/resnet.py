"""ResNet-50, -101 and -152 (He et al.), in the layout of Chainer's ``ResNetLayers``: the params
and npz keys are Chainer's (``conv1/W``, ``bn1/gamma``, ``res2/a/conv1/W``, ``res5/b2/bn3/avg_var``,
``fc6/b``...).

>>> ResNet(50).available_layers
['conv1', 'pool1', 'res2', 'res3', 'res4', 'res5', 'pool5', 'fc6', 'prob']
"""

from __future__ import annotations

import attrs

from ... import functions as F
from ... import initializers
from ..convolution import Convolution2D
from ..layer import Module, frozen_initializer
from ..linear import Linear
from ..normalization import BatchNormalization
from .extractor import FeatureExtractor, Stage

__all__ = ["BottleneckA", "BottleneckB", "BuildingBlock", "ResNet", "ResNet50", "ResNet101", "ResNet152"]

# the bottlenecks of res2 ... res5, by the depth of the model
_BLOCKS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}


def _conv_bn_pair(n_in, n_out, ksize, stride, pad, initialW, dtype):
    """A convolution without bias and the batch normalization after it."""
    return Convolution2D(n_in, n_out, ksize, stride, pad, nobias=True, initialW=initialW), BatchNormalization(
        n_out, dtype=dtype
    )


def _conv_bn_apply(block, i: int, params, state: dict, x, train: bool):
    """``bn<i>(conv<i>(x))`` of the bottleneck ``block``; bn's new state is written into ``state``."""
    conv, bn = getattr(block, f"conv{i}"), getattr(block, f"bn{i}")
    h = conv.apply(params[f"conv{i}"], x)
    h, state[f"bn{i}"] = bn.apply(params[f"bn{i}"], h, state[f"bn{i}"], train=train)
    return h


def _residual(block, params, state: dict, x, train: bool):
    """The three convolutions of a bottleneck, before the shortcut is added."""
    h = F.relu(_conv_bn_apply(block, 1, params, state, x, train))
    h = F.relu(_conv_bn_apply(block, 2, params, state, h, train))
    return _conv_bn_apply(block, 3, params, state, h, train)


@attrs.frozen(init=False)
class BottleneckA(Module):
    """The first bottleneck of a block, Chainer's ``BottleneckA(in_channels, mid_channels,
    out_channels, stride=2, initialW=None, downsample_fb=False)``: ``1 x 1``, ``3 x 3`` and
    ``1 x 1`` convolutions (``conv1``-``conv3``, each with batch normalization ``bn1``-``bn3``),
    added to a strided ``1 x 1`` projection of the input (``conv4``, ``bn4``), then ReLU. The
    stride is on the first convolution (MSRA's layout), or on the ``3 x 3`` one with
    ``downsample_fb`` (Facebook's)."""

    conv1: Convolution2D
    bn1: BatchNormalization
    conv2: Convolution2D
    bn2: BatchNormalization
    conv3: Convolution2D
    bn3: BatchNormalization
    conv4: Convolution2D
    bn4: BatchNormalization

    def __init__(
        self,
        in_channels,
        mid_channels,
        out_channels,
        stride=2,
        initialW=None,
        downsample_fb=False,
        dtype=None,
    ):
        stride_1x1, stride_3x3 = (1, stride) if downsample_fb else (stride, 1)
        self.__attrs_init__(
            *_conv_bn_pair(in_channels, mid_channels, 1, stride_1x1, 0, initialW, dtype),
            *_conv_bn_pair(mid_channels, mid_channels, 3, stride_3x3, 1, initialW, dtype),
            *_conv_bn_pair(mid_channels, out_channels, 1, 1, 0, initialW, dtype),
            *_conv_bn_pair(in_channels, out_channels, 1, stride, 0, initialW, dtype),
        )

    def apply(self, params, x, state, *, train: bool = True):
        """``(y, new_state)`` for the images ``x``."""
        state = dict(state)
        h = _residual(self, params, state, x, train)
        return F.relu(h + _conv_bn_apply(self, 4, params, state, x, train)), state


@attrs.frozen(init=False)
class BottleneckB(Module):
    """The other bottlenecks of a block, Chainer's ``BottleneckB(in_channels, mid_channels,
    initialW=None)``: ``1 x 1``, ``3 x 3`` and ``1 x 1`` convolutions with batch normalization,
    added to the input, then ReLU."""

    conv1: Convolution2D
    bn1: BatchNormalization
    conv2: Convolution2D
    bn2: BatchNormalization
    conv3: Convolution2D
    bn3: BatchNormalization

    def __init__(self, in_channels, mid_channels, initialW=None, dtype=None):
        self.__attrs_init__(
            *_conv_bn_pair(in_channels, mid_channels, 1, 1, 0, initialW, dtype),
            *_conv_bn_pair(mid_channels, mid_channels, 3, 1, 1, initialW, dtype),
            *_conv_bn_pair(mid_channels, in_channels, 1, 1, 0, initialW, dtype),
        )

    def apply(self, params, x, state, *, train: bool = True):
        """``(y, new_state)`` for the images ``x``."""
        state = dict(state)
        return F.relu(_residual(self, params, state, x, train) + x), state


@attrs.frozen(init=False)
class BuildingBlock(Module):
    """A stage of ResNet, Chainer's ``BuildingBlock(n_layers, in_channels, mid_channels,
    out_channels, stride, initialW=None, downsample_fb=False)``: a ``BottleneckA`` named ``a``
    and ``n_layers - 1`` ``BottleneckB`` named ``b1``, ``b2``..., applied in that order."""

    bottlenecks: tuple  # (name, bottleneck) pairs, in order

    def __init__(
        self,
        n_layers,
        in_channels,
        mid_channels,
        out_channels,
        stride,
        initialW=None,
        downsample_fb=False,
        dtype=None,
    ):
        first = BottleneckA(in_channels, mid_channels, out_channels, stride, initialW, downsample_fb, dtype)
        rest = [
            (f"b{i}", BottleneckB(out_channels, mid_channels, initialW, dtype)) for i in range(1, n_layers)
        ]
        self.__attrs_init__((("a", first), *rest))

    def sublayers(self) -> dict:
        """The bottlenecks by Chainer's names: ``a``, ``b1``, ``b2``..."""
        return dict(self.bottlenecks)

    def apply(self, params, x, state, *, train: bool = True):
        """``(y, new_state)``: ``x`` through the bottlenecks in turn."""
        state = dict(state)
        for name, bottleneck in self.bottlenecks:
            x, state[name] = bottleneck.apply(params[name], x, state[name], train=train)
        return x, state


def _caffe_block_names(stage: int, count: int, n_layers: int) -> list[str]:
    """MSRA's names of the bottlenecks of ``res<stage>``: ``2a``, ``2b``, ``2c`` (letters), or
    ``4a``, ``4b1``, ``4b2``... where the deeper models have many (their res3 and res4)."""
    if n_layers == 50 or stage in (2, 5):
        return [f"{stage}{chr(ord('a') + i)}" for i in range(count)]
    return [f"{stage}a"] + [f"{stage}b{i}" for i in range(1, count)]


def _global_average_pooling_2d(x):
    n, channels, rows, cols = x.shape
    return F.reshape(F.average_pooling_2d(x, (rows, cols), stride=1), (n, channels))


def _max_pooling_2d(x):
    return F.max_pooling_2d(x, 3, stride=2)


@attrs.frozen(init=False)
class ResNet(FeatureExtractor):
    """``ResNet(n_layers=50, downsample_fb=False, initialW=None, dtype=None)``: Chainer's
    ``ResNetLayers``. ``conv1`` (7 x 7, stride 2, with bias) and ``bn1``, max pooling, the
    blocks ``res2``-``res5`` (``BuildingBlock``; 3-4-6-3 bottlenecks for 50 layers, 3-4-23-3 for
    101, 3-8-36-3 for 152), global average pooling and ``fc6`` (2048 to 1000).

    The convolutions' weights are drawn from ``initialW`` (``HeNormal(1.0)``, the paper's), ``fc6``
    and the batch normalizations from their defaults; ``dtype`` is the batch normalizations'.
    Chainer's stages: ``conv1`` (convolution, batch normalization, ReLU), ``pool1``, ``res2`` ...
    ``res5``, ``pool5`` (global average pooling), ``fc6``, ``prob``.
    """

    n_layers: int
    downsample_fb: bool
    conv1: Convolution2D
    bn1: BatchNormalization
    res2: BuildingBlock
    res3: BuildingBlock
    res4: BuildingBlock
    res5: BuildingBlock
    fc6: Linear
    initialW: object = attrs.field(default=None, converter=frozen_initializer)

    default_layers = ("prob",)
    mean_bgr = (103.063, 115.903, 123.152)

    def __init__(self, n_layers: int = 50, downsample_fb: bool = False, initialW=None, dtype=None):
        if n_layers not in _BLOCKS:
            raise ValueError(
                f"The n_layers argument should be either 50, 101, or 152, but {n_layers} was given."
            )
        blocks = _BLOCKS[n_layers]
        conv_init = initializers.HeNormal(scale=1.0) if initialW is None else initialW

        def block(i, n_in, n_mid, n_out, stride):
            return BuildingBlock(blocks[i], n_in, n_mid, n_out, stride, conv_init, downsample_fb, dtype)

        self.__attrs_init__(
            n_layers,
            downsample_fb,
            Convolution2D(3, 64, 7, 2, 3, initialW=conv_init),
            BatchNormalization(64, dtype=dtype),
            block(0, 64, 64, 256, 1),
            block(1, 256, 128, 512, 2),
            block(2, 512, 256, 1024, 2),
            block(3, 1024, 512, 2048, 2),
            Linear(2048, 1000),
            initialW,
        )

    def caffe_sources(self) -> dict[str, tuple[str, str]]:
        """MSRA's layer names: ``conv1``, ``bn_conv1``/``scale_conv1``, ``res2a_branch2a``,
        ``bn2a_branch2a``, ``scale2a_branch2a``..., ``fc1000`` (``conv1``'s bias only in the
        50-layer model, whose ``conv1`` has one)."""
        sources = {"bn1/avg_mean": ("bn_conv1", "avg_mean"), "bn1/avg_var": ("bn_conv1", "avg_var")}
        sources |= {"bn1/gamma": ("scale_conv1", "W"), "bn1/beta": ("scale_conv1", "bias/b")}
        sources |= {"conv1/W": ("conv1", "W"), "fc6/W": ("fc1000", "W"), "fc6/b": ("fc1000", "b")}
        if self.n_layers == 50:
            sources["conv1/b"] = ("conv1", "b")
        for stage, count in enumerate(_BLOCKS[self.n_layers], 2):
            for i, caffe in enumerate(_caffe_block_names(stage, count, self.n_layers)):
                prefix = f"res{stage}/{'a' if i == 0 else f'b{i}'}/"
                branches = ("2a", "2b", "2c", "1") if i == 0 else ("2a", "2b", "2c")
                for j, branch in enumerate(branches, 1):
                    suffix = f"{caffe}_branch{branch}"
                    sources[f"{prefix}conv{j}/W"] = (f"res{suffix}", "W")
                    sources[f"{prefix}bn{j}/avg_mean"] = (f"bn{suffix}", "avg_mean")
                    sources[f"{prefix}bn{j}/avg_var"] = (f"bn{suffix}", "avg_var")
                    sources[f"{prefix}bn{j}/gamma"] = (f"scale{suffix}", "W")
                    sources[f"{prefix}bn{j}/beta"] = (f"scale{suffix}", "bias/b")
        return sources

    def stages(self) -> tuple[Stage, ...]:
        return (
            Stage("conv1", ("conv1", "bn1", F.relu)),
            Stage("pool1", (_max_pooling_2d,)),
            Stage("res2", ("res2",)),
            Stage("res3", ("res3",)),
            Stage("res4", ("res4",)),
            Stage("res5", ("res5",)),
            Stage("pool5", (_global_average_pooling_2d,)),
            Stage("fc6", ("fc6",)),
            Stage("prob", (F.softmax,)),
        )


class ResNet50(ResNet):
    """``ResNet(50, ...)``: the model of Chainer's ``ResNet50Layers``."""

    def __init__(self, downsample_fb: bool = False, initialW=None, dtype=None):
        ResNet.__init__(self, 50, downsample_fb, initialW, dtype)


class ResNet101(ResNet):
    """``ResNet(101, ...)``: the model of Chainer's ``ResNet101Layers``."""

    def __init__(self, downsample_fb: bool = False, initialW=None, dtype=None):
        ResNet.__init__(self, 101, downsample_fb, initialW, dtype)


class ResNet152(ResNet):
    """``ResNet(152, ...)``: the model of Chainer's ``ResNet152Layers``."""

    def __init__(self, downsample_fb: bool = False, initialW=None, dtype=None):
        ResNet.__init__(self, 152, downsample_fb, initialW, dtype)
