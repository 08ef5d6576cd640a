"""``chainer.datasets.dict_dataset``: objects of ``chainer.datasets`` under Chainer's module path."""

from . import DictDataset

__all__ = ["DictDataset"]
