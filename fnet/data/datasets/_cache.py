"""Helpers of the dataset loaders: the files they download, npz files in the dataset cache,
and argument checks."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy

from ...errors import message
from ..download import DatasetCacheError, cache_or_load_file, cached_download, get_dataset_directory


class Remote(NamedTuple):
    """A dataset's files on the web: ``base + name`` is the URL that names the file ``name`` in
    the download cache (Chainer's URL, so that a cache shared with Chainer is found), ``sha256``
    maps each name to its published SHA-256, and ``sources`` are the base URLs to download from,
    in order (``(base,)`` when empty)."""

    base: str
    sha256: Mapping[str, str]
    sources: tuple[str, ...] = ()

    def fetch(self, name: str) -> str:
        """The path of the cached file ``name``, downloaded and checked first if needed."""
        sources = [source + name for source in self.sources] or None
        return cached_download(self.base + name, sha256=self.sha256[name], sources=sources)


def load_npz(op: str, path: str, keys: Sequence[str]) -> dict[str, numpy.ndarray]:
    """The arrays ``keys`` of the npz file ``path``, read whole (a corrupt file is reported)."""
    try:
        with numpy.load(path) as npz:
            missing = [key for key in keys if key not in npz.files]
            arrays = {} if missing else {key: npz[key] for key in keys}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise DatasetCacheError(
            message(
                op,
                f"the cached file {path} cannot be read: {e}",
                hint="delete it: it is made again from the downloaded files",
            )
        ) from e
    if missing:
        raise DatasetCacheError(
            message(
                op,
                f"the cached file {path} lacks the arrays {missing} (it has {sorted(npz.files)})",
                hint="delete it: it is made again from the downloaded files",
            )
        )
    return arrays


def cached_npz(
    op: str, dataset_name: str, file_name: str, keys: Sequence[str], make: Callable[[], dict]
) -> dict[str, numpy.ndarray]:
    """The arrays ``keys`` of ``<root>/<dataset_name>/<file_name>``; when that file is absent,
    ``make()`` computes them and they are saved there (compressed, as Chainer saves them)."""

    def create(path: str) -> dict:
        arrays = make()
        numpy.savez_compressed(path, **arrays)
        return arrays

    path = os.path.join(get_dataset_directory(dataset_name), file_name)
    return cache_or_load_file(path, create, lambda p: load_npz(op, p, keys))


def check_choice(op: str, name: str, value, choices: Sequence) -> None:
    """``value`` must be one of ``choices``."""
    if isinstance(value, bool) or value not in choices:
        raise ValueError(message(op, f"invalid {name} {value!r}: expected one of {list(choices)}"))


def scale_images(images: numpy.ndarray, scale: float, dtype) -> numpy.ndarray:
    """``images`` (bytes) as ``dtype`` (float32 when None), scaled from [0, 255] to [0, scale]."""
    images = images.astype(numpy.float32 if dtype is None else dtype)
    images *= scale / 255.0
    return images
