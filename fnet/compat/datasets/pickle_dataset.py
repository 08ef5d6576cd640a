"""``chainer.datasets.pickle_dataset``: objects of ``chainer.datasets`` under Chainer's module path."""

from . import PickleDataset, PickleDatasetWriter, open_pickle_dataset, open_pickle_dataset_writer

__all__ = ["PickleDataset", "PickleDatasetWriter", "open_pickle_dataset", "open_pickle_dataset_writer"]
