"""``chainer.datasets.image_dataset``: objects of ``chainer.datasets`` under Chainer's module path."""

import importlib.util

from . import (
    ImageDataset,
    LabeledImageDataset,
    LabeledZippedImageDataset,
    MultiZippedImageDataset,
    ZippedImageDataset,
)

available = (
    importlib.util.find_spec("PIL") is not None
)  # whether Pillow, which reads the images, is installed

__all__ = [
    "available",
    "ImageDataset",
    "LabeledImageDataset",
    "LabeledZippedImageDataset",
    "MultiZippedImageDataset",
    "ZippedImageDataset",
]
