"""``chainer.datasets.concatenated_dataset``: objects of ``chainer.datasets`` under Chainer's module path."""

from . import ConcatenatedDataset

__all__ = ["ConcatenatedDataset"]
