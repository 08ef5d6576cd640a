"""VGG-16 and VGG-19 (Simonyan and Zisserman), in the layout of Chainer's ``VGG16Layers`` and
``VGG19Layers``: the params and npz keys are Chainer's (``conv1_1/W``, ..., ``fc8/b``).

>>> import fnet
>>> VGG(16).available_layers[:3], len(VGG(19).available_layers)
(['conv1_1', 'conv1_2', 'pool1'], 25)
"""

from __future__ import annotations

import attrs

from ... import functions as F
from ... import initializers
from ..convolution import Convolution2D
from ..layer import frozen_initializer
from ..linear import Linear
from .extractor import Dropout, FeatureExtractor, Stage

__all__ = ["VGG", "VGG16", "VGG19"]

# the convolutions of each block (64, 128, 256, 512, 512 channels), by the depth of the model
_BLOCKS = {16: (2, 2, 3, 3, 3), 19: (2, 2, 4, 4, 4)}
_CHANNELS = (64, 128, 256, 512, 512)


def _max_pooling_2d(x):
    return F.max_pooling_2d(x, 2)


@attrs.frozen(init=False)
class VGG(FeatureExtractor):
    """``VGG(n_layers=16, initialW=None, initial_bias=None)``: thirteen (or sixteen, for 19)
    3 x 3 convolutions in five blocks, each block closed by 2 x 2 max pooling, then the fully
    connected ``fc6`` (``512 * 7 * 7`` to 4096), ``fc7`` and ``fc8`` (to 1000 classes).

    The weights are drawn from ``initialW`` (``Normal(0.01)``, the paper's) and the biases from
    ``initial_bias`` (zeros). Chainer's stages: ``conv<b>_<i>`` (convolution, ReLU), ``pool<b>``,
    ``fc6``/``fc7`` (linear, ReLU, dropout), ``fc8``, ``prob`` (softmax).
    """

    n_layers: int
    initialW: object = attrs.field(converter=frozen_initializer)
    initial_bias: object = attrs.field(converter=frozen_initializer)
    convs: dict = attrs.field(eq=False, repr=False)  # name -> Convolution2D, in order (from the above)
    fc6: Linear
    fc7: Linear
    fc8: Linear

    mean_bgr = (103.939, 116.779, 123.68)

    def __init__(self, n_layers: int = 16, initialW=None, initial_bias=None):
        if n_layers not in _BLOCKS:
            raise ValueError(f"The n_layers argument should be either 16 or 19, but {n_layers} was given.")
        initialW = initializers.Normal(0.01) if initialW is None else initialW
        initial_bias = initializers.Zero() if initial_bias is None else initial_bias
        init = {"initialW": initialW, "initial_bias": initial_bias}
        convs, n_in = {}, 3
        for block, (count, n_out) in enumerate(zip(_BLOCKS[n_layers], _CHANNELS, strict=True), 1):
            for i in range(1, count + 1):
                convs[f"conv{block}_{i}"] = Convolution2D(n_in, n_out, 3, 1, 1, **init)
                n_in = n_out
        fc6 = Linear(512 * 7 * 7, 4096, **init)
        self.__attrs_init__(
            n_layers,
            initialW,
            initial_bias,
            convs,
            fc6,
            Linear(4096, 4096, **init),
            Linear(4096, 1000, **init),
        )

    def sublayers(self) -> dict:
        """The convolutions and the fully connected layers, by Chainer's names."""
        return {**self.convs, **FeatureExtractor.sublayers(self)}

    def stages(self) -> tuple[Stage, ...]:
        stages = []
        for block, count in enumerate(_BLOCKS[self.n_layers], 1):
            stages += [Stage(f"conv{block}_{i}", (f"conv{block}_{i}", F.relu)) for i in range(1, count + 1)]
            stages.append(Stage(f"pool{block}", (_max_pooling_2d,)))
        return (
            *stages,
            Stage("fc6", ("fc6", F.relu, Dropout(0.5))),
            Stage("fc7", ("fc7", F.relu, Dropout(0.5))),
            Stage("fc8", ("fc8",)),
            Stage("prob", (F.softmax,)),
        )

    def caffe_sources(self) -> dict[str, tuple[str, str]]:
        """The Caffe layers have the same names (``conv1_1`` ... ``fc8``)."""
        return {f"{name}/{p}": (name, p) for name in self.sublayers() for p in ("W", "b")}


class VGG16(VGG):
    """``VGG(16, ...)``: the model of Chainer's ``VGG16Layers``."""

    def __init__(self, initialW=None, initial_bias=None):
        VGG.__init__(self, 16, initialW, initial_bias)


class VGG19(VGG):
    """``VGG(19, ...)``: the model of Chainer's ``VGG19Layers``."""

    def __init__(self, initialW=None, initial_bias=None):
        VGG.__init__(self, 19, initialW, initial_bias)
