"""Datasets: general-purpose wrappers and splits, file-backed datasets (images, text, pickles),
the tabular dataset API, and loaders of standard datasets through the dataset cache."""

from . import tabular
from .cifar import get_cifar10, get_cifar100
from .concatenated import ConcatenatedDataset
from .dataset_mixin import DatasetMixin
from .dict_dataset import DictDataset
from .image_dataset import (
    ImageDataset,
    LabeledImageDataset,
    LabeledZippedImageDataset,
    MultiZippedImageDataset,
    ZippedImageDataset,
)
from .mnist import (
    get_fashion_mnist,
    get_fashion_mnist_labels,
    get_kuzushiji_mnist,
    get_kuzushiji_mnist_labels,
    get_mnist,
)
from .pickle_dataset import (
    PickleDataset,
    PickleDatasetWriter,
    open_pickle_dataset,
    open_pickle_dataset_writer,
)
from .ptb import get_ptb_words, get_ptb_words_vocabulary
from .sub_dataset import (
    SubDataset,
    get_cross_validation_datasets,
    get_cross_validation_datasets_random,
    split_dataset,
    split_dataset_n,
    split_dataset_n_random,
    split_dataset_random,
)
from .svhn import get_svhn
from .tabular import DelegateDataset, TabularDataset, from_data
from .text_dataset import TextDataset
from .transform_dataset import TransformDataset
from .tuple_dataset import TupleDataset

__all__ = [
    "tabular",
    "DatasetMixin",
    "TabularDataset",
    "DelegateDataset",
    "from_data",
    "DictDataset",
    "TupleDataset",
    "ConcatenatedDataset",
    "SubDataset",
    "split_dataset",
    "split_dataset_random",
    "split_dataset_n",
    "split_dataset_n_random",
    "get_cross_validation_datasets",
    "get_cross_validation_datasets_random",
    "TransformDataset",
    "ImageDataset",
    "LabeledImageDataset",
    "ZippedImageDataset",
    "LabeledZippedImageDataset",
    "MultiZippedImageDataset",
    "TextDataset",
    "PickleDataset",
    "PickleDatasetWriter",
    "open_pickle_dataset",
    "open_pickle_dataset_writer",
    "get_mnist",
    "get_fashion_mnist",
    "get_fashion_mnist_labels",
    "get_kuzushiji_mnist",
    "get_kuzushiji_mnist_labels",
    "get_cifar10",
    "get_cifar100",
    "get_svhn",
    "get_ptb_words",
    "get_ptb_words_vocabulary",
]
