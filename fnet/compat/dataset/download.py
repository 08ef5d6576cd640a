"""``chainer.dataset.download``: the dataset cache (fnet.data.download)."""

from ...data.download import (
    cache_or_load_file,
    cached_download,
    get_dataset_directory,
    get_dataset_root,
    set_dataset_root,
)

__all__ = [
    "get_dataset_root",
    "set_dataset_root",
    "get_dataset_directory",
    "cached_download",
    "cache_or_load_file",
]
