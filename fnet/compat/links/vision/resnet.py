"""``chainer.links.model.vision.resnet``: ``ResNetLayers``, ``ResNet50Layers``,
``ResNet101Layers``, ``ResNet152Layers``, their blocks and ``prepare``."""

from __future__ import annotations

import os

import numpy

from ....nn import vision
from ....nn.vision.image import pillow_available as available
from ... import configuration, initializers
from ...link import Chain
from .._adapter import SpecLink, spec_constructor
from ._layers import PretrainedLayers, models_directory, prepare_for

__all__ = [
    "ResNetLayers",
    "ResNet50Layers",
    "ResNet101Layers",
    "ResNet152Layers",
    "BuildingBlock",
    "BottleneckA",
    "BottleneckB",
    "prepare",
    "available",
]

_SOURCE = "https://github.com/KaimingHe/deep-residual-networks"


def prepare(image, size=(224, 224)) -> numpy.ndarray:
    """``image`` as the ResNet models take it: resized, BGR, the mean pixel subtracted, CHW."""
    return prepare_for(vision.ResNet, image, size)


class BottleneckA(SpecLink, Chain):
    """Chainer's ``BottleneckA``: the first bottleneck of a block (``fnet.nn.vision.BottleneckA``)."""

    spec_type = vision.BottleneckA
    __init__ = spec_constructor(vision.BottleneckA, "initialW")


class BottleneckB(SpecLink, Chain):
    """Chainer's ``BottleneckB``: a bottleneck with an identity shortcut."""

    spec_type = vision.BottleneckB
    __init__ = spec_constructor(vision.BottleneckB, "initialW")


class BuildingBlock(SpecLink, Chain):
    """Chainer's ``BuildingBlock``: a ``BottleneckA`` ``a`` and ``BottleneckB`` links ``b1``..."""

    spec_type = vision.BuildingBlock
    __init__ = spec_constructor(vision.BuildingBlock, "initialW")

    @property
    def _forward(self) -> list[str]:
        """The names of the bottlenecks in the order they run (Chainer's attribute)."""
        return [name for name, _ in self._spec.bottlenecks]


class ResNetLayers(PretrainedLayers):
    """Chainer's ``ResNetLayers(pretrained_model, n_layers, downsample_fb=False)`` around
    ``fnet.nn.vision.ResNet``. A ``pretrained_model`` ending in ``.caffemodel`` names the
    original (in the model cache unless a path): its converted npz file
    ``ResNet-<n>-model.npz`` is loaded from the cache."""

    spec_type = vision.ResNet
    _pure_model = vision.ResNet

    def __init__(self, pretrained_model, n_layers: int, downsample_fb: bool = False):
        if pretrained_model:
            spec = self._pretrained_model(n_layers, downsample_fb)
        else:
            spec = vision.ResNet(n_layers, downsample_fb, None, _statistics_dtype())
        self._caffemodel = None
        if pretrained_model and str(pretrained_model).endswith(".caffemodel"):
            # Chainer's layout: the original and its conversion side by side in the model cache
            npz_name = f"ResNet-{n_layers}-model.npz"
            npz_path = os.path.join(models_directory(), npz_name)
            self._caffemodel = os.path.join(models_directory(), pretrained_model)
            if os.path.exists(self._caffemodel) and not os.path.exists(npz_path):
                type(self).convert_caffemodel_to_npz(self._caffemodel, npz_path, n_layers=n_layers)
            super().__init__(spec, "auto", npz_name=npz_name, url=_SOURCE)
        else:
            super().__init__(spec, pretrained_model)

    def _caffemodel_name(self, url: str) -> str:
        """The caffemodel ``pretrained_model`` names (Chainer converts it where it is placed)."""
        return self._caffemodel

    _depth = 50  # the n_layers of convert_caffemodel_to_npz

    @classmethod
    def _pretrained_model(cls, n_layers: int | None = None, downsample_fb: bool = False) -> vision.ResNet:
        depth = cls._depth if n_layers is None else n_layers
        return vision.ResNet(depth, downsample_fb, initializers.Zero(), _statistics_dtype())


def _statistics_dtype():
    """The batch normalizations' dtype, as Chainer's ``BatchNormalization`` chooses it."""
    return configuration.get_dtype(map_mixed16=numpy.float32)


class ResNet50Layers(ResNetLayers):
    """Chainer's ``ResNet50Layers(pretrained_model='auto', downsample_fb=False)``."""

    def __init__(self, pretrained_model="auto", downsample_fb: bool = False):
        super().__init__(
            "ResNet-50-model.caffemodel" if pretrained_model == "auto" else pretrained_model,
            50,
            downsample_fb,
        )


class ResNet101Layers(ResNetLayers):
    """Chainer's ``ResNet101Layers(pretrained_model='auto', downsample_fb=False)``."""

    _depth = 101

    def __init__(self, pretrained_model="auto", downsample_fb: bool = False):
        super().__init__(
            "ResNet-101-model.caffemodel" if pretrained_model == "auto" else pretrained_model,
            101,
            downsample_fb,
        )


class ResNet152Layers(ResNetLayers):
    """Chainer's ``ResNet152Layers(pretrained_model='auto', downsample_fb=False)``."""

    _depth = 152

    def __init__(self, pretrained_model="auto", downsample_fb: bool = False):
        super().__init__(
            "ResNet-152-model.caffemodel" if pretrained_model == "auto" else pretrained_model,
            152,
            downsample_fb,
        )
