"""The pretrained convnets of Chainer's ``chainer.links.model.vision`` as pure models: VGG,
ResNet and GoogLeNet, each a ``FeatureExtractor`` (``extract``, ``apply``, ``predict``) whose
params have Chainer's names, so the npz files of Chainer's links load into them."""

from .extractor import Dropout, FeatureExtractor, Stage
from .googlenet import GoogLeNet
from .image import oversample, prepare
from .resnet import BottleneckA, BottleneckB, BuildingBlock, ResNet, ResNet50, ResNet101, ResNet152
from .vgg import VGG, VGG16, VGG19

__all__ = [
    "FeatureExtractor",
    "Stage",
    "Dropout",
    "VGG",
    "VGG16",
    "VGG19",
    "ResNet",
    "ResNet50",
    "ResNet101",
    "ResNet152",
    "BuildingBlock",
    "BottleneckA",
    "BottleneckB",
    "GoogLeNet",
    "prepare",
    "oversample",
]
