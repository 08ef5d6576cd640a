"""``chainer.datasets.tuple_dataset``: objects of ``chainer.datasets`` under Chainer's module path."""

from . import TupleDataset

__all__ = ["TupleDataset"]
