"""The dataset cache: where datasets are downloaded and kept, laid out as Chainer lays it out.

The root is ``set_dataset_root(path)`` if called, else ``$FNET_DATASET_ROOT``, else
``$CHAINER_DATASET_ROOT``, else Chainer's default ``~/.chainer/dataset``; so an existing Chainer
cache is found and reused offline. Under the root:

- ``_dl_cache/<md5 of the URL>``: each downloaded file, as ``cached_download`` keeps it;
- ``<dataset name>/<file>``: the files the loaders make from the downloads
  (``pfnet/chainer/mnist/train.npz``...), through ``cache_or_load_file``.

Every file appears whole or not at all: it is written under a temporary name in the same
directory and renamed. Concurrent writers (threads or processes, fnet's or Chainer's) are
serialised by ``fcntl.flock`` (``msvcrt.locking`` on Windows) on the lock files Chainer uses,
``_dl_cache/_dl_lock`` and ``_create_lock``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sys
import tempfile
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from ..errors import FnetError, message

__all__ = [
    "DatasetCacheError",
    "get_dataset_root",
    "set_dataset_root",
    "get_dataset_directory",
    "cached_download",
    "cache_or_load_file",
]

T = TypeVar("T")

_DOWNLOAD_TIMEOUT = 60.0  # seconds without an answer before a download is given up

_dataset_root: str | None = None  # set by set_dataset_root; None: from the environment


class DatasetCacheError(FnetError, OSError):
    """A dataset file could not be downloaded, or a file in the dataset cache is corrupt."""


def get_dataset_root() -> str:
    """The root directory of the dataset cache (see the module's docstring for how it is chosen).

    >>> set_dataset_root('/data/cache')
    >>> get_dataset_root()
    '/data/cache'
    >>> set_dataset_root(None)  # back to the environment's choice
    """
    if _dataset_root is not None:
        return _dataset_root
    for variable in ("FNET_DATASET_ROOT", "CHAINER_DATASET_ROOT"):
        value = os.environ.get(variable)
        if value:
            return value
    return os.path.join(os.path.expanduser("~"), ".chainer", "dataset")


def set_dataset_root(path: str | os.PathLike | None) -> None:
    """Use ``path`` as the root of the dataset cache from now on, over the environment variables.

    ``None`` goes back to the environment's choice (``FNET_DATASET_ROOT``,
    ``CHAINER_DATASET_ROOT``, then ``~/.chainer/dataset``).
    """
    global _dataset_root
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            message(
                "set_dataset_root",
                f"expected path to be a str or an os.PathLike, got {type(path).__name__} {path!r}",
                hint="pass the directory as a string, e.g. set_dataset_root('/data/chainer')",
            )
        )
    _dataset_root = None if path is None else os.fspath(path)


def get_dataset_directory(dataset_name: str, create_directory: bool = True) -> str:
    """The directory of the dataset ``dataset_name`` under the root (slashes in the name are
    subdirectories), made on first use when ``create_directory``.

    >>> set_dataset_root('/data/cache')
    >>> get_dataset_directory('pfnet/chainer/mnist', create_directory=False)
    '/data/cache/pfnet/chainer/mnist'
    >>> set_dataset_root(None)
    """
    path = os.path.join(get_dataset_root(), dataset_name)
    if create_directory:
        os.makedirs(path, exist_ok=True)
    return path


@contextlib.contextmanager
def _file_lock(path: str) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (made if absent) for the ``with`` block."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        if os.name == "nt":  # pragma: no cover - Windows only
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
            try:
                yield
            finally:
                os.lseek(fd, 0, os.SEEK_SET)
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _download(url: str, path: str) -> None:
    """Write the contents of ``url`` to the file ``path``."""
    with urllib.request.urlopen(url, timeout=_DOWNLOAD_TIMEOUT) as response, open(path, "wb") as out:
        shutil.copyfileobj(response, out)


def cached_download(url: str) -> str:
    """The path of the cached copy of ``url`` (``<root>/_dl_cache/<md5 of url>``), downloaded
    first if it is not in the cache yet.

    A failed download raises ``DatasetCacheError`` (an ``OSError``) naming the URL and the file
    to fill by hand; nothing is left at that path.
    """
    if not isinstance(url, str):
        raise TypeError(
            message("cached_download", f"expected url to be a str, got {type(url).__name__} {url!r}")
        )
    cache_root = os.path.join(get_dataset_root(), "_dl_cache")
    os.makedirs(cache_root, exist_ok=True)
    lock_path = os.path.join(cache_root, "_dl_lock")
    cache_path = os.path.join(cache_root, hashlib.md5(url.encode("utf-8")).hexdigest())
    with _file_lock(lock_path):
        if os.path.exists(cache_path):
            return cache_path
    with tempfile.TemporaryDirectory(dir=cache_root) as temp_root:
        temp_path = os.path.join(temp_root, "dl")
        sys.stderr.write(f"Downloading from {url}...\n")
        sys.stderr.flush()
        try:
            _download(url, temp_path)
        except (OSError, ValueError) as e:
            raise DatasetCacheError(
                message(
                    "cached_download",
                    f"cannot download {url}: {e}",
                    hint=f"without network access, download {url} elsewhere and save it as {cache_path}",
                )
            ) from e
        with _file_lock(lock_path):
            if not os.path.exists(cache_path):
                os.replace(temp_path, cache_path)
    return cache_path


def cache_or_load_file(path: str, creator: Callable[[str], T], loader: Callable[[str], T]) -> T:
    """``loader(path)`` if the file ``path`` exists; otherwise ``creator(temp_path)``, which
    writes the file at a temporary path (of the same base name) and returns its content; the
    file is then moved to ``path``, and that content returned.

    Safe when threads or processes race to make the same file: one of the files made is kept.
    A failed download inside ``creator`` gets a note naming ``path``, which can be filled by hand.

    >>> import os, tempfile
    >>> set_dataset_root(tempfile.mkdtemp())
    >>> path = os.path.join(get_dataset_directory('toy'), 'answer.txt')
    >>> def make(temp):
    ...     with open(temp, 'w') as f:
    ...         f.write('42')
    ...     return 42
    >>> cache_or_load_file(path, make, lambda p: int(open(p).read()) + 1000)
    42
    >>> cache_or_load_file(path, make, lambda p: int(open(p).read()) + 1000)
    1042
    >>> set_dataset_root(None)
    """
    if os.path.exists(path):
        return loader(path)
    root = get_dataset_root()
    directory = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(root, exist_ok=True)
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise RuntimeError(
            message(
                "cache_or_load_file",
                f"cannot create the dataset directory for {path}: {e}",
                hint="set a writable root with set_dataset_root() or $FNET_DATASET_ROOT",
            )
        ) from e
    with tempfile.TemporaryDirectory(dir=directory, prefix=".tmp-") as temp_dir:
        temp_path = os.path.join(temp_dir, os.path.basename(path))
        try:
            content: Any = creator(temp_path)
        except DatasetCacheError as e:
            e.add_note(f"  or put the finished file, as made by fnet or Chainer, at {path}")
            raise
        with _file_lock(os.path.join(root, "_create_lock")):
            if not os.path.exists(path):
                os.replace(temp_path, path)
    return content
