"""``chainer.datasets.transform_dataset``: objects of ``chainer.datasets`` under Chainer's module path."""

from . import TransformDataset

__all__ = ["TransformDataset"]
