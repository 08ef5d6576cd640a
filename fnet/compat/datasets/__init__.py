"""``chainer.datasets``: fnet.data's datasets and loaders under Chainer's path.

The loaders and the image datasets take ``dtype=None`` as ``chainer.config.dtype`` (read when
they are called), as in Chainer; everything else is fnet.data's own object.
"""

from __future__ import annotations

import functools
import inspect

from ...data import datasets as _data
from ...data.datasets import (
    ConcatenatedDataset,
    DictDataset,
    PickleDataset,
    PickleDatasetWriter,
    SubDataset,
    TextDataset,
    TransformDataset,
    TupleDataset,
    get_cross_validation_datasets,
    get_cross_validation_datasets_random,
    get_fashion_mnist_labels,
    get_kuzushiji_mnist_labels,
    get_ptb_words,
    get_ptb_words_vocabulary,
    open_pickle_dataset,
    open_pickle_dataset_writer,
    split_dataset,
    split_dataset_n,
    split_dataset_n_random,
    split_dataset_random,
)
from .. import configuration

__all__ = [
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


def _config_dtype(target):
    """``target`` (a loader or a dataset class) with ``dtype=None`` read as ``config.dtype``."""
    signature = inspect.signature(target)

    def resolved(args, kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.arguments["dtype"] = configuration.get_dtype(bound.arguments.get("dtype"))
        return bound.args, bound.kwargs

    if isinstance(target, type):

        def __init__(self, *args, **kwargs):
            args, kwargs = resolved(args, kwargs)
            target.__init__(self, *args, **kwargs)

        __init__.__signature__ = inspect.signature(target.__init__)
        namespace = {"__init__": __init__, "__doc__": target.__doc__, "__module__": __name__}
        return type(target.__name__, (target,), namespace)

    @functools.wraps(target)
    def loader(*args, **kwargs):
        args, kwargs = resolved(args, kwargs)
        return target(*args, **kwargs)

    loader.__module__ = __name__
    return loader


ImageDataset = _config_dtype(_data.ImageDataset)
LabeledImageDataset = _config_dtype(_data.LabeledImageDataset)
ZippedImageDataset = _config_dtype(_data.ZippedImageDataset)
LabeledZippedImageDataset = _config_dtype(_data.LabeledZippedImageDataset)
MultiZippedImageDataset = _config_dtype(_data.MultiZippedImageDataset)
get_mnist = _config_dtype(_data.get_mnist)
get_fashion_mnist = _config_dtype(_data.get_fashion_mnist)
get_kuzushiji_mnist = _config_dtype(_data.get_kuzushiji_mnist)
get_cifar10 = _config_dtype(_data.get_cifar10)
get_cifar100 = _config_dtype(_data.get_cifar100)
get_svhn = _config_dtype(_data.get_svhn)
