"""``chainer.links.model.vision.vgg``: ``VGG16Layers``, ``VGG19Layers`` and ``prepare``."""

from __future__ import annotations

import numpy

from ....nn import vision
from ....nn.vision.image import pillow_available as available
from ... import initializers
from ._layers import PretrainedLayers, prepare_for

__all__ = ["VGGLayers", "VGG16Layers", "VGG19Layers", "prepare", "available"]

_FILES = {
    16: (
        "VGG_ILSVRC_16_layers.npz",
        "https://www.robots.ox.ac.uk/%7Evgg/software/very_deep/caffe/VGG_ILSVRC_16_layers.caffemodel",
    ),
    19: (
        "VGG_ILSVRC_19_layers.npz",
        "http://www.robots.ox.ac.uk/%7Evgg/software/very_deep/caffe/VGG_ILSVRC_19_layers.caffemodel",
    ),
}


def prepare(image, size=(224, 224)) -> numpy.ndarray:
    """``image`` as the VGG models take it: resized, BGR, the mean pixel subtracted, CHW."""
    return prepare_for(vision.VGG, image, size)


class VGGLayers(PretrainedLayers):
    """Chainer's ``VGGLayers(pretrained_model='auto', n_layers=16)`` around ``fnet.nn.vision.VGG``
    (a pretrained model is drawn with zeros before it is loaded, as Chainer does)."""

    spec_type = vision.VGG
    _pure_model = vision.VGG
    extract_layers = ("fc7",)

    _depth = 16  # the n_layers of convert_caffemodel_to_npz

    def __init__(self, pretrained_model="auto", n_layers: int = 16):
        spec = self._pretrained_model(n_layers) if pretrained_model else vision.VGG(n_layers)
        npz_name, url = _FILES[n_layers]
        super().__init__(spec, pretrained_model, npz_name=npz_name, url=url)

    @classmethod
    def _pretrained_model(cls, n_layers: int | None = None) -> vision.VGG:
        zero = initializers.Zero()
        return vision.VGG(cls._depth if n_layers is None else n_layers, zero, zero)


class VGG16Layers(VGGLayers):
    """Chainer's ``VGG16Layers(pretrained_model='auto')``."""

    def __init__(self, pretrained_model="auto"):
        super().__init__(pretrained_model, 16)


class VGG19Layers(VGGLayers):
    """Chainer's ``VGG19Layers(pretrained_model='auto')``."""

    _depth = 19

    def __init__(self, pretrained_model="auto"):
        super().__init__(pretrained_model, 19)
