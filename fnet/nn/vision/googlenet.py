"""GoogLeNet (Szegedy et al.), in the layout of Chainer's ``GoogLeNet`` link: the params and npz
keys are Chainer's (``conv1/W``, ``inc3a/proj3/W``, ``loss3_fc/b``...), side classifiers included.

>>> GoogLeNet().available_layers[-3:]
['prob', 'loss1_fc2', 'loss2_fc2']
"""

from __future__ import annotations

import attrs

from ... import functions as F
from ... import initializers
from ..connection import Inception
from ..convolution import Convolution2D
from ..layer import frozen_initializer
from ..linear import Linear
from .extractor import Dropout, FeatureExtractor, Stage

__all__ = ["GoogLeNet"]


def _max_pooling_2d(x):
    return F.max_pooling_2d(x, 3, stride=2)


def _local_response_normalization(x):
    return F.local_response_normalization(x, n=5, k=1, alpha=1e-4 / 5)


def _average_pooling_2d_k5(x):
    return F.average_pooling_2d(x, 5, stride=3)


def _average_pooling_2d_k7(x):
    return F.average_pooling_2d(x, 7, stride=1)


# the Inception modules: name -> (in_channels, out1, proj3, out3, proj5, out5, proj_pool)
_INCEPTIONS = {
    "inc3a": (192, 64, 96, 128, 16, 32, 32),
    "inc3b": (256, 128, 128, 192, 32, 96, 64),
    "inc4a": (480, 192, 96, 208, 16, 48, 64),
    "inc4b": (512, 160, 112, 224, 24, 64, 64),
    "inc4c": (512, 128, 128, 256, 24, 64, 64),
    "inc4d": (512, 112, 144, 288, 32, 64, 64),
    "inc4e": (528, 256, 160, 320, 32, 128, 128),
    "inc5a": (832, 256, 160, 320, 32, 128, 128),
    "inc5b": (832, 384, 192, 384, 48, 128, 128),
}

# the Caffe layer of each layer outside the Inception modules, and of each convolution in them
_CAFFE_LAYERS = {
    "conv1": "conv1/7x7_s2",
    "conv2_reduce": "conv2/3x3_reduce",
    "conv2": "conv2/3x3",
    "loss1_conv": "loss1/conv",
    "loss1_fc1": "loss1/fc",
    "loss1_fc2": "loss1/classifier",
    "loss2_conv": "loss2/conv",
    "loss2_fc1": "loss2/fc",
    "loss2_fc2": "loss2/classifier",
    "loss3_fc": "loss3/classifier",
}
_CAFFE_INCEPTION = {
    "conv1": "1x1",
    "proj3": "3x3_reduce",
    "conv3": "3x3",
    "proj5": "5x5_reduce",
    "conv5": "5x5",
    "projp": "pool_proj",
}


@attrs.frozen(init=False)
class GoogLeNet(FeatureExtractor):
    """``GoogLeNet(initialW=None)``: Chainer's ``GoogLeNet``. ``conv1`` (7 x 7, stride 2),
    ``conv2_reduce`` and ``conv2``, the Inception modules ``inc3a`` ... ``inc5b``, and the
    classifier ``loss3_fc``; the side classifiers ``loss1_*`` (from ``inception_4a``) and
    ``loss2_*`` (from ``inception_4d``) are stages after ``prob``, run only when asked for.

    The weights of the convolutions and linear layers outside the Inception modules are drawn
    from ``initialW`` (``LeCunUniform(1.0)``, BVLC's); the Inception modules use their defaults.
    """

    initialW: object = attrs.field(converter=frozen_initializer)
    conv1: Convolution2D
    conv2_reduce: Convolution2D
    conv2: Convolution2D
    inceptions: dict = attrs.field(eq=False, repr=False)  # name -> Inception (fixed by the table)
    loss3_fc: Linear
    loss1_conv: Convolution2D
    loss1_fc1: Linear
    loss1_fc2: Linear
    loss2_conv: Convolution2D
    loss2_fc1: Linear
    loss2_fc2: Linear

    mean_bgr = (104.0, 117.0, 123.0)

    def __init__(self, initialW=None):
        init = initializers.LeCunUniform(scale=1.0) if initialW is None else initialW
        self.__attrs_init__(
            initialW,
            Convolution2D(3, 64, 7, stride=2, pad=3, initialW=init),
            Convolution2D(64, 64, 1, initialW=init),
            Convolution2D(64, 192, 3, stride=1, pad=1, initialW=init),
            {name: Inception(*sizes) for name, sizes in _INCEPTIONS.items()},
            Linear(1024, 1000, initialW=init),
            Convolution2D(512, 128, 1, initialW=init),
            Linear(2048, 1024, initialW=init),
            Linear(1024, 1000, initialW=init),
            Convolution2D(528, 128, 1, initialW=init),
            Linear(2048, 1024, initialW=init),
            Linear(1024, 1000, initialW=init),
        )

    def sublayers(self) -> dict:
        """The layers by Chainer's names: the fields, and the Inception modules as ``inc3a`` ..."""
        return {**FeatureExtractor.sublayers(self), **self.inceptions}

    def caffe_sources(self) -> dict[str, tuple[str, str]]:
        """BVLC's layer names: ``conv1/7x7_s2``, ``inception_3a/1x1``, ``loss3/classifier``..."""
        layers = dict(_CAFFE_LAYERS)
        for name in self.inceptions:
            prefix = f"inception_{name[3:]}/"
            layers.update({f"{name}/{ours}": prefix + theirs for ours, theirs in _CAFFE_INCEPTION.items()})
        return {f"{ours}/{p}": (theirs, p) for ours, theirs in layers.items() for p in ("W", "b")}

    def stages(self) -> tuple[Stage, ...]:
        def inception(name):
            return Stage(f"inception_{name}", (f"inc{name}",))

        return (
            Stage("conv1", ("conv1", F.relu)),
            Stage("pool1", (_max_pooling_2d, _local_response_normalization)),
            Stage("conv2_reduce", ("conv2_reduce", F.relu)),
            Stage("conv2", ("conv2", F.relu, _local_response_normalization)),
            Stage("pool2", (_max_pooling_2d,)),
            inception("3a"),
            inception("3b"),
            Stage("pool3", (_max_pooling_2d,)),
            *(inception(name) for name in ("4a", "4b", "4c", "4d", "4e")),
            Stage("pool4", (_max_pooling_2d,)),
            inception("5a"),
            inception("5b"),
            Stage("pool5", (_average_pooling_2d_k7,)),
            Stage("loss3_fc", (Dropout(0.4), "loss3_fc")),
            Stage("prob", (F.softmax,)),
            Stage(
                "loss1_fc2",
                (_average_pooling_2d_k5, "loss1_conv", F.relu, "loss1_fc1", F.relu, "loss1_fc2"),
                source="inception_4a",
            ),
            Stage(
                "loss2_fc2",
                (_average_pooling_2d_k5, "loss2_conv", F.relu, "loss2_fc1", F.relu, "loss2_fc2"),
                source="inception_4d",
            ),
        )
