"""``chainer.datasets.sub_dataset``: objects of ``chainer.datasets`` under Chainer's module path."""

from . import (
    SubDataset,
    get_cross_validation_datasets,
    get_cross_validation_datasets_random,
    split_dataset,
    split_dataset_n,
    split_dataset_n_random,
    split_dataset_random,
)

__all__ = [
    "SubDataset",
    "get_cross_validation_datasets",
    "get_cross_validation_datasets_random",
    "split_dataset",
    "split_dataset_n",
    "split_dataset_n_random",
    "split_dataset_random",
]
