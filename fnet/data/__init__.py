"""Data for training: datasets, the tabular dataset API, iterators, batch converters, and the
dataset download cache.

Everything here works with the pure API and with ``fnet.compat`` (which shows it under
Chainer's paths: ``chainer.datasets``, ``chainer.dataset``, ``chainer.iterators``).
"""

from . import convert, datasets, download, iterator, iterators
from .convert import Converter, concat_examples, converter, to_device
from .datasets import *  # noqa: F403 - the datasets are fnet.data's own names
from .datasets import __all__ as _datasets_all
from .download import (
    DatasetCacheError,
    cache_or_load_file,
    cached_download,
    get_dataset_directory,
    get_dataset_root,
    set_dataset_root,
)
from .iterator import Iterator
from .iterators import (
    MultiprocessIterator,
    MultithreadIterator,
    OrderSampler,
    SerialIterator,
    ShuffleOrderSampler,
)

__all__ = [
    "convert",
    "datasets",
    "download",
    "iterator",
    "iterators",
    *_datasets_all,
    "DatasetCacheError",
    "get_dataset_root",
    "set_dataset_root",
    "get_dataset_directory",
    "cached_download",
    "cache_or_load_file",
    "Iterator",
    "SerialIterator",
    "MultiprocessIterator",
    "MultithreadIterator",
    "OrderSampler",
    "ShuffleOrderSampler",
    "Converter",
    "converter",
    "concat_examples",
    "to_device",
]
