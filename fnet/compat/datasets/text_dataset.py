"""``chainer.datasets.text_dataset``: objects of ``chainer.datasets`` under Chainer's module path."""

from . import TextDataset

__all__ = ["TextDataset"]
