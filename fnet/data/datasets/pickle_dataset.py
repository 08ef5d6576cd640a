"""``PickleDataset``: any Python objects stored one after the other in a file with ``pickle``,
read back by position; written with ``PickleDatasetWriter``. The file format is Chainer's (a
plain sequence of pickles), so files made by either library open in the other.

.. warning:: Reading a pickle can run arbitrary code. Open only files you made or trust.
"""

from __future__ import annotations

import io
import os
import pickle
import tempfile
import threading
import weakref
from typing import Any, BinaryIO

from ...errors import message
from .dataset_mixin import DatasetMixin

__all__ = ["PickleDataset", "PickleDatasetWriter", "open_pickle_dataset", "open_pickle_dataset_writer"]


class PickleDatasetWriter:
    """Writes objects to ``writer`` (a binary file with ``write`` and ``tell``), one pickle
    each, in the layout ``PickleDataset`` reads. ``protocol`` is pickle's."""

    def __init__(self, writer: BinaryIO, protocol: int = pickle.HIGHEST_PROTOCOL):
        self._positions: list[int] = []
        self._writer = writer
        self._protocol = protocol

    def close(self) -> None:
        """Close the underlying file."""
        self._writer.close()

    def __enter__(self) -> PickleDatasetWriter:
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        self.close()

    def write(self, x: Any) -> None:
        """Append the object ``x``."""
        position = self._writer.tell()
        pickle.dump(x, self._writer, protocol=self._protocol)
        self._positions.append(position)

    def flush(self) -> None:
        """Flush the underlying file, if it can be flushed."""
        if hasattr(self._writer, "flush"):
            self._writer.flush()


_forked_readers: weakref.WeakSet = weakref.WeakSet()  # readers to reopen in a forked child


def _reopen_after_fork() -> None:
    for reader in list(_forked_readers):
        reader.after_fork()


if hasattr(os, "register_at_fork"):  # POSIX: a child gets its own file offsets
    os.register_at_fork(after_in_child=_reopen_after_fork)


class PickleDataset(DatasetMixin):
    """The objects pickled one after the other in ``reader`` (a seekable binary file); the
    positions of the pickles are found once, in the constructor.

    .. warning:: Reading a pickle can run arbitrary code. Open only files you made or trust.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), 'data.pkl')
    >>> with open_pickle_dataset_writer(path) as writer:
    ...     writer.write((1, 2.0, 'hello'))
    ...     writer.write((2, 3.0, 'good-bye'))
    >>> with open_pickle_dataset(path) as dataset:
    ...     len(dataset), dataset[1]
    (2, (2, 3.0, 'good-bye'))
    """

    def __init__(self, reader: BinaryIO):
        if not reader.seekable():
            raise ValueError(
                message(
                    "PickleDataset",
                    "reader must support random access (seekable() is False)",
                    hint="open the file from disk, e.g. with open_pickle_dataset(path)",
                )
            )
        self._reader = reader
        self._positions: list[int] = []
        reader.seek(0)
        while True:
            position = reader.tell()
            try:
                pickle.load(reader)
            except EOFError:
                break
            self._positions.append(position)
        self._lock = threading.RLock()
        self._register_fork_hook()

    def _register_fork_hook(self) -> None:
        if callable(getattr(self._reader, "after_fork", None)):
            _forked_readers.add(self._reader)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()
        self._register_fork_hook()

    def close(self) -> None:
        """Close the reader; the dataset cannot be read afterwards."""
        with self._lock:
            self._reader.close()

    def __enter__(self) -> PickleDataset:
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        self.close()

    def __len__(self) -> int:
        return len(self._positions)

    def get_example(self, index: int) -> Any:
        with self._lock:
            self._reader.seek(self._positions[index])
            return pickle.load(self._reader)


class _FileReader(io.RawIOBase):
    """A binary file, reopened in a forked child (which would otherwise share the parent's file
    offset) and when unpickled."""

    def __init__(self, path: str):
        super().__init__()
        self._path = path
        self._open()

    def _open(self) -> None:
        self._fp = open(self._path, "rb")  # noqa: SIM115 - kept open for the dataset's lifetime

    def after_fork(self) -> None:
        """Reopen the file in a forked child."""
        self._fp.close()
        self._open()

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["_fp"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._open()

    def close(self) -> None:
        self._fp.close()
        super().close()

    def fileno(self) -> int:
        return self._fp.fileno()

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._fp.seek(offset, whence)

    def tell(self) -> int:
        return self._fp.tell()

    def readinto(self, b) -> int:
        return self._fp.readinto(b)


class _AtomicWriter:
    """A binary file written under a temporary name beside ``path`` and renamed to ``path`` when
    closed: a crash while writing leaves any earlier file at ``path`` as it was."""

    def __init__(self, path: str):
        self._path = os.fspath(path)
        directory, name = os.path.split(os.path.abspath(self._path))
        fd, self._temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
        self._fp = os.fdopen(fd, "wb")

    @property
    def closed(self) -> bool:
        return self._fp.closed

    def write(self, b) -> int:
        return self._fp.write(b)

    def tell(self) -> int:
        return self._fp.tell()

    def flush(self) -> None:
        self._fp.flush()

    def close(self) -> None:
        """Finish the file and give it its name (once; later calls do nothing)."""
        if self._fp.closed:
            return
        try:
            self._fp.flush()
            os.fsync(self._fp.fileno())
            self._fp.close()
            os.replace(self._temp, self._path)
        except BaseException:
            self._fp.close()
            if os.path.exists(self._temp):
                os.unlink(self._temp)
            raise


def open_pickle_dataset(path: str) -> PickleDataset:
    """Open the PickleDataset stored at ``path`` (close it, or use ``with``).

    .. warning:: Reading a pickle can run arbitrary code. Open only files you made or trust.
    """
    return PickleDataset(_FileReader(path))


def open_pickle_dataset_writer(path: str, protocol: int = pickle.HIGHEST_PROTOCOL) -> PickleDatasetWriter:
    """A PickleDatasetWriter to the file ``path`` (close it, or use ``with``).

    The file is written under a temporary name and takes the name ``path`` when the writer is
    closed, so a crash while writing leaves an earlier file at ``path`` intact.
    """
    return PickleDatasetWriter(_AtomicWriter(path), protocol=protocol)
