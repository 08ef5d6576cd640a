"""Chainer's pretrained convnets (``chainer.links.model.vision``): ``VGG16Layers``,
``VGG19Layers``, ``ResNet50Layers``, ``ResNet101Layers``, ``ResNet152Layers``, ``ResNetLayers``
and ``GoogLeNet``, links around the pure models of ``fnet.nn.vision``."""

from .googlenet import GoogLeNet
from .resnet import ResNet50Layers, ResNet101Layers, ResNet152Layers, ResNetLayers
from .vgg import VGG16Layers, VGG19Layers

__all__ = [
    "VGG16Layers",
    "VGG19Layers",
    "ResNetLayers",
    "ResNet50Layers",
    "ResNet101Layers",
    "ResNet152Layers",
    "GoogLeNet",
]
