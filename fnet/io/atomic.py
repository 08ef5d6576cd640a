"""Atomic writes: a file on disk is either the previous one or the whole new one, never half written.

``atomic_write(op, path, write)`` writes through ``write(f)`` into a temporary file beside
``path`` (``.NAME.<16 hex digits>.tmp``), flushes it to disk and renames it over ``path``, so a
crash or an error never leaves a half-written file, and the previous file stays intact until the
new one is complete. ``temp_directory(path)`` is a temporary directory beside ``path``
(``.tmpNAME.<16 hex digits>``) for a writer that renames a file out of it (the snapshot writers).
The writing process holds a lock on its temporary file or directory; the next write to the same
path (to the same directory, for directories) removes those that no live process holds (those of
writes killed by kill -9 or a power cut), and nothing else. A file that cannot be written raises
``fnet.errors.CheckpointError`` (an ``OSError``) naming it.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterator
from typing import BinaryIO

try:
    import fcntl
except ImportError:  # not on Windows: temporary files of killed saves stay there
    fcntl = None

from ..errors import CheckpointError, message

__all__ = ["File", "atomic_write", "temp_directory", "fsync_directory", "DIRECTORY_LOCK"]

File = str | os.PathLike  # a path, as the functions of fnet.io take it


def fsync_directory(directory: str) -> None:
    """Make a rename in ``directory`` durable (POSIX; elsewhere the rename is all there is)."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        with contextlib.suppress(OSError):  # some file systems refuse to fsync a directory
            os.fsync(fd)
    finally:
        os.close(fd)


# A temporary file or directory is owned by the process that holds an exclusive ``flock`` on it
# (on its ``.lock`` file for a directory) from its creation to its rename; the kernel (or the NFS
# server) drops the lock when that process dies, however it dies. So an unlocked temporary file
# of the exact pattern written for a target is the leftover of a killed save, which the next save
# to that target removes; and so is an unlocked temporary directory (``.tmpNAME.<16 hex digits>``
# holding a ``.lock`` file), which the next writer of any file in that directory removes, since a
# snapshot's next file has another name. Where ``fcntl`` is missing (Windows) nothing is removed.
DIRECTORY_LOCK = ".lock"
_TEMP_DIRECTORY = r"\.tmp.+\.[0-9a-f]{16}"


def _temp_file_pattern(name: str) -> str:
    """The names ``atomic_write`` gives its temporary files for the file ``name``."""
    return rf"\.{re.escape(name)}\.[0-9a-f]{{16}}\.tmp"


def _hold(fd: int) -> None:
    """Mark the file open as ``fd`` as owned by this process for as long as ``fd`` is open."""
    if fcntl is not None:
        with contextlib.suppress(OSError):  # no locks on this file system: the file is never removed
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _abandoned(lock_path: str) -> bool:
    """Whether no live process holds the lock of ``_hold`` on ``lock_path`` (False when unsure)."""
    if fcntl is None:
        return False
    try:
        fd = os.open(lock_path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))  # NFS locks need write access
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # held by its writer (or locks are not supported here)
    else:
        return True
    finally:
        os.close(fd)


def _entries(directory: str) -> list[os.DirEntry]:
    try:
        return list(os.scandir(directory))
    except OSError:
        return []


def _remove_abandoned_temp_files(directory: str, name: str) -> None:
    """Remove the temporary files that killed saves of ``directory/name`` left: only files whose
    names fully match the pattern written for ``name``, not empty, and that no process holds."""
    pattern = _temp_file_pattern(name)
    for entry in _entries(directory):
        if re.fullmatch(pattern, entry.name) and entry.is_file(follow_symlinks=False):
            # a file is locked before its first byte is written: an empty one may be about to be
            if entry.stat(follow_symlinks=False).st_size and _abandoned(entry.path):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _remove_abandoned_temp_directories(directory: str) -> None:
    """Remove the temporary directories that killed writes left in ``directory``: only those
    named as ``temp_directory`` names them, with a lock file that no process holds, or empty
    (a write killed as it made or removed its directory; ``rmdir`` leaves a non-empty one)."""
    for entry in _entries(directory):
        if re.fullmatch(_TEMP_DIRECTORY, entry.name) and entry.is_dir(follow_symlinks=False):
            try:
                os.rmdir(entry.path)
            except OSError:  # not empty
                if _abandoned(os.path.join(entry.path, DIRECTORY_LOCK)):
                    shutil.rmtree(entry.path, ignore_errors=True)


def _cannot_write(op: str, path: File, error: OSError, hint: str) -> CheckpointError:
    return CheckpointError(
        message(op, f"cannot write '{os.fspath(path)}': {error.strerror or error}", hint=hint)
    )


def atomic_write(op: str, path: File, write: Callable[[BinaryIO], object]) -> None:
    """Write a file through ``write(f)`` so that ``path`` is either the old file or the whole new one.

    The data goes to a temporary file beside ``path`` (``.NAME.<16 hex digits>.tmp``), which is
    flushed to disk and renamed over ``path``. Temporary files of earlier saves to ``path`` that
    were killed are removed first.
    """
    target = os.path.realpath(os.fspath(path))
    directory, name = os.path.split(target)
    _remove_abandoned_temp_files(directory, name)
    temp = os.path.join(directory, f".{name}.{secrets.token_hex(8)}.tmp")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    except OSError as e:
        raise _cannot_write(op, path, e, "the directory must exist and be writable") from e
    try:
        _hold(fd)
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
            os.replace(temp, target)  # while the lock is held, so that no one takes it for a leftover
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(e, OSError):
            raise _cannot_write(
                op, path, e, "the previous file, if any, is unchanged; check the free space and the path"
            ) from e
        raise
    fsync_directory(directory)


@contextlib.contextmanager
def temp_directory(path: File) -> Iterator[str]:
    """A new directory beside ``path`` (``.tmpNAME.<16 hex digits>``), owned by this process
    while the block runs and removed after it, for a writer that renames a file out of it.

    The temporary directories that killed writes left in that directory are removed first.
    """
    directory, name = os.path.split(os.path.abspath(os.fspath(path)))
    os.makedirs(directory, exist_ok=True)
    _remove_abandoned_temp_directories(directory)
    temp = os.path.join(directory, f".tmp{name}.{secrets.token_hex(8)}")
    os.mkdir(temp, 0o700)
    try:
        fd = os.open(os.path.join(temp, DIRECTORY_LOCK), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            _hold(fd)
            yield temp
        finally:
            os.close(fd)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
