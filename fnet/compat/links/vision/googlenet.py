"""``chainer.links.model.vision.googlenet``: ``GoogLeNet`` and ``prepare``."""

from __future__ import annotations

import numpy

from ....nn import vision
from ....nn.vision.image import pillow_available as available
from ... import initializers
from ._layers import PretrainedLayers, prepare_for

__all__ = ["GoogLeNet", "prepare", "available"]


def prepare(image, size=(224, 224)) -> numpy.ndarray:
    """``image`` as GoogLeNet takes it: resized, BGR, the mean pixel subtracted, CHW."""
    return prepare_for(vision.GoogLeNet, image, size)


class GoogLeNet(PretrainedLayers):
    """Chainer's ``GoogLeNet(pretrained_model='auto')`` around ``fnet.nn.vision.GoogLeNet``."""

    spec_type = vision.GoogLeNet
    _pure_model = vision.GoogLeNet
    _retired_forward = ("train",)
    _retired_extract = ("train", "volatile")

    def __init__(self, pretrained_model="auto"):
        spec = self._pretrained_model() if pretrained_model else vision.GoogLeNet()
        super().__init__(
            spec,
            pretrained_model,
            npz_name="bvlc_googlenet.npz",
            url="http://dl.caffe.berkeleyvision.org/bvlc_googlenet.caffemodel",
        )

    @classmethod
    def _pretrained_model(cls) -> vision.GoogLeNet:
        return vision.GoogLeNet(initializers.Zero())
