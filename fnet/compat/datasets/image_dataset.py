"""``chainer.datasets.image_dataset``: objects of ``chainer.datasets`` under Chainer's module path."""

from . import (
    ImageDataset,
    LabeledImageDataset,
    LabeledZippedImageDataset,
    MultiZippedImageDataset,
    ZippedImageDataset,
)

__all__ = [
    "ImageDataset",
    "LabeledImageDataset",
    "LabeledZippedImageDataset",
    "MultiZippedImageDataset",
    "ZippedImageDataset",
]
