"""``chainer.dataset``: the dataset protocol (``DatasetMixin``, ``TabularDataset``, the
``Iterator`` interface), batch conversion, and the dataset download cache, from fnet.data."""

from ...data.convert import Converter, concat_examples, converter, to_device
from ...data.datasets import DatasetMixin, TabularDataset
from ...data.download import (
    cache_or_load_file,
    cached_download,
    get_dataset_directory,
    get_dataset_root,
    set_dataset_root,
)
from ...data.iterator import Iterator
from . import convert, download, tabular
from .convert import ConcatWithAsyncTransfer

__all__ = [
    "convert",
    "download",
    "tabular",
    "DatasetMixin",
    "TabularDataset",
    "Iterator",
    "Converter",
    "converter",
    "concat_examples",
    "ConcatWithAsyncTransfer",
    "to_device",
    "get_dataset_root",
    "set_dataset_root",
    "get_dataset_directory",
    "cached_download",
    "cache_or_load_file",
]
