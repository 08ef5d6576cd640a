"""The dataset cache: where datasets are downloaded and kept, laid out as Chainer lays it out.

The root is ``set_dataset_root(path)`` if called, else ``$FNET_DATASET_ROOT``, else
``$CHAINER_DATASET_ROOT``, else Chainer's default ``~/.chainer/dataset``; so an existing Chainer
cache is found and reused offline. Under the root:

- ``_dl_cache/<md5 of the URL>``: each downloaded file, as ``cached_download`` keeps it;
- ``<dataset name>/<file>``: the files the loaders make from the downloads
  (``pfnet/chainer/mnist/train.npz``...), through ``cache_or_load_file``.

A download can be checked against its SHA-256 (``cached_download(url, sha256=...)``, as every
loader of ``fnet.data.datasets`` does): bytes with another digest are deleted and reported, never
cached. A file already in the cache is trusted, as Chainer trusts it. A download can also be
fetched from other URLs than the one that names it (``sources``: mirrors of a dead host), and is
still cached under the MD5 of ``url``, where Chainer looks for it.

Every file appears whole or not at all: it is written under a temporary name in the same
directory and renamed. Concurrent writers (threads or processes, fnet's or Chainer's) are
serialised by ``fcntl.flock`` (``msvcrt.locking`` on Windows) on the lock files Chainer uses,
``_dl_cache/_dl_lock`` and ``_create_lock``.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import logging
import os
import re
import tempfile
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from ..errors import FnetError, message

_log = logging.getLogger(__name__)

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


_SHA256 = re.compile(r"[0-9a-f]{64}")
_CHUNK = 1 << 20


def _download(url: str, path: str) -> str:
    """Write the contents of ``url`` to the new file ``path``, flushed to disk; return their
    SHA-256. A body shorter than its announced length is an ``OSError``."""
    digest, size = hashlib.sha256(), 0
    with urllib.request.urlopen(url, timeout=_DOWNLOAD_TIMEOUT) as response, open(path, "wb") as out:
        announced = response.headers.get("Content-Length")
        while chunk := response.read(_CHUNK):
            digest.update(chunk)
            out.write(chunk)
            size += len(chunk)
        out.flush()
        os.fsync(out.fileno())
    if announced is not None and announced.isdigit() and size != int(announced):
        # http.client ends a body cut short as if it were whole: the length is the only sign
        raise OSError(f"the connection closed after {size} of the {announced} bytes announced")
    return digest.hexdigest()


def _check_arguments(url, sha256, sources) -> tuple[str, ...]:
    """The URLs to download ``url`` from; a TypeError or ValueError for a malformed argument."""
    if not isinstance(url, str):
        raise TypeError(
            message("cached_download", f"expected url to be a str, got {type(url).__name__} {url!r}")
        )
    if sha256 is not None and not (isinstance(sha256, str) and _SHA256.fullmatch(sha256)):
        raise ValueError(
            message(
                "cached_download",
                f"expected sha256 to be 64 lowercase hexadecimal digits, got {sha256!r}",
                hint="pass hashlib.sha256(data).hexdigest() of the file, or None not to check it",
            )
        )
    if sources is None:
        return (url,)
    if isinstance(sources, str) or not all(isinstance(s, str) for s in sources) or not sources:
        raise TypeError(
            message(
                "cached_download",
                f"expected sources to be a non-empty sequence of URLs, got {sources!r}",
                hint=f"e.g. sources=['https://mirror.example/file.gz', {url!r}]",
            )
        )
    return tuple(sources)


def cached_download(url: str, *, sha256: str | None = None, sources: Sequence[str] | None = None) -> str:
    """The path of the cached copy of ``url`` (``<root>/_dl_cache/<md5 of url>``), downloaded
    first if it is not in the cache yet.

    Args:
        url: the URL that names the file, and its cache path.
        sha256: the file's SHA-256 (hex digits), or None. A download with another digest is
            deleted and not cached; a file already in the cache is not checked again.
        sources: the URLs to download it from, tried in order (default: ``[url]``), e.g.
            mirrors of a host that is gone. Whichever answers, the file is cached under ``url``.

    If no source gives the file, ``DatasetCacheError`` (an ``OSError``) names ``url``, each
    source with what went wrong (a wrong digest shows the expected one and the one received),
    and the path where a copy fetched by hand can be saved; nothing is left in the cache.

    >>> import hashlib, os, pathlib, tempfile
    >>> set_dataset_root(tempfile.mkdtemp())
    >>> remote = pathlib.Path(tempfile.mkdtemp(), 'data.txt')
    >>> _ = remote.write_bytes(b'42')
    >>> url = remote.as_uri()
    >>> path = cached_download(url, sha256=hashlib.sha256(b'42').hexdigest())
    >>> pathlib.Path(path).read_bytes(), os.path.basename(path) == hashlib.md5(url.encode()).hexdigest()
    (b'42', True)
    >>> set_dataset_root(None)
    """
    sources = _check_arguments(url, sha256, sources)
    cache_root = os.path.join(get_dataset_root(), "_dl_cache")
    os.makedirs(cache_root, exist_ok=True)
    lock_path = os.path.join(cache_root, "_dl_lock")
    cache_path = os.path.join(cache_root, hashlib.md5(url.encode("utf-8")).hexdigest())
    with _file_lock(lock_path):
        if os.path.exists(cache_path):
            return cache_path
    failures = []
    with tempfile.TemporaryDirectory(dir=cache_root) as temp_root:
        temp_path = os.path.join(temp_root, "dl")
        for source in sources:
            _log.info("Downloading from %s...", source)
            try:
                got = _download(source, temp_path)
            except (OSError, ValueError, http.client.HTTPException) as e:
                failures.append(f"{source}: {e}")
                continue
            if sha256 is not None and got != sha256:
                os.remove(temp_path)
                failures.append(
                    f"{source}: wrong SHA-256: expected {sha256}, got {got} (the download was deleted)"
                )
                continue
            with _file_lock(lock_path):
                if not os.path.exists(cache_path):
                    os.replace(temp_path, cache_path)
            return cache_path
    check = f", check that its SHA-256 is {sha256}," if sha256 is not None else ""
    raise DatasetCacheError(
        message(
            "cached_download",
            f"cannot download {url}:\n" + "\n".join(f"    from {failure}" for failure in failures),
            hint=f"without network access, download {url} elsewhere{check} and save it as {cache_path}",
        )
    )


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
