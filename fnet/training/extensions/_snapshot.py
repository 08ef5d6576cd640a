"""``snapshot`` and ``snapshot_object``: extensions that save the trainer (or any object) to files.

The object is serialized with the serializer protocol (``fnet.serialization``) into a dict of
arrays, which a snapshot writer (``snapshot_writers``) then saves, by default with
``fnet.io.save_object`` (npz in Chainer's layout) in the trainer's output directory. Files are
written atomically, so an interrupted write keeps the previous snapshot. ``autoload=True``
loads the newest matching snapshot that can be read before training starts (the way to
resume), and ``n_retains=N`` keeps only the ``N`` newest ones.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Callable
from typing import Any

import numpy

from ...errors import CheckpointError
from ...io.objects import load_object
from ...serialization import serialize
from .. import modes
from ..extension import Extension
from . import snapshot_writers

_log = logging.getLogger(__name__)

__all__ = ["snapshot", "snapshot_object"]

_Filename = str | Callable[[Any], str]


def _snapshot_files(fmt: str, path: str) -> list[tuple[int, str]]:
    """``(mtime, name)`` of the files directly in ``path`` whose names have ``fmt``'s fixed prefix
    (the text before the first ``{``) and suffix (after the last ``}``), oldest first."""
    prefix, suffix = fmt.split("{")[0], fmt.split("}")[-1]
    found = []
    for entry in os.scandir(path):
        name = entry.name
        if name.startswith(".tmp") or not entry.is_file():
            continue  # a write in progress (or left by a crash), or a folder
        if name.startswith(prefix) and name.endswith(suffix):
            found.append((entry.stat().st_mtime_ns, name))
    return sorted(found)


def _snapshots_newest_first(fmt: str, path: str) -> list[str]:
    """The names of the files in ``path`` that match ``fmt``, the newest first."""
    if not os.path.isdir(path):
        return []
    return [name for _, name in reversed(_snapshot_files(fmt, path))]


def _load_newest_intact(fmt: str, outdir: str, target: Any) -> str | None:
    """Load the newest snapshot in ``outdir`` matching ``fmt`` that can be read into ``target``;
    the path loaded, or None if there is no snapshot.

    A snapshot that cannot be read (``CheckpointError``: damaged, truncated, not an npz) is
    skipped with a warning that names it and says which one is tried next; if none can be
    read, the newest one's error is raised. Errors of another kind (a snapshot that does not fit
    the target) are raised at once.
    """
    names = _snapshots_newest_first(fmt, outdir)
    first_error = None
    for i, name in enumerate(names):
        path = os.path.join(outdir, name)
        try:
            load_object(path, target)
        except CheckpointError as error:
            first_error = first_error or error
            problem = str(error).splitlines()[0]  # names the file and what is wrong with it
            after = (
                f"loading '{names[i + 1]}' instead" if i + 1 < len(names) else "there is no older snapshot"
            )
            warnings.warn(
                f"snapshot: autoload skips a snapshot that cannot be read: {problem}; {after}", stacklevel=3
            )
            continue
        return path
    if first_error is not None:
        raise first_error
    return None


def _stale_snapshots(fmt: str, path: str, n_retains: int) -> list[str]:
    """The names of the files matching ``fmt`` in ``path`` beyond the ``n_retains`` newest."""
    files = _snapshot_files(fmt, path)
    return [name for _, name in files[: max(len(files) - n_retains, 0)]]


def _always_true() -> bool:
    return True


def _renamed_num_retain(kwargs: dict, n_retains: int) -> int:
    """``n_retains``, or the value of its deprecated name ``num_retain`` when that is given."""
    if "num_retain" not in kwargs:
        return n_retains
    warnings.warn(
        "Argument `num_retain` is deprecated. Please use `n_retains` instead",
        DeprecationWarning,
        stacklevel=3,
    )
    return kwargs.pop("num_retain")


class _Snapshot(Extension):
    """The extension made by ``snapshot`` and ``snapshot_object``: once per epoch by default,
    with priority -100 (after the extensions that report or edit values)."""

    trigger = 1, "epoch"
    priority = -100

    def __init__(
        self,
        target: Any = None,
        condition: Callable[[], bool] | None = None,
        writer: snapshot_writers.Writer | None = None,
        filename: _Filename = "snapshot_iter_{.updater.iteration}",
        snapshot_on_error: bool = False,
        n_retains: int = -1,
        autoload: bool = False,
    ):
        if not (isinstance(filename, str) or callable(filename)):
            raise TypeError(
                f"snapshot: filename must be a format string or a callable of the trainer, got "
                f"{type(filename).__name__} {filename!r}\n  hint: e.g. 'snapshot_iter_{{.updater.iteration}}'"
            )
        if autoload and not isinstance(filename, str):
            raise TypeError(
                "snapshot: autoload=True needs filename to be a format string (the latest file is "
                f"found by its prefix and suffix), got {filename!r}\n  hint: pass a string such as "
                "'snapshot_iter_{.updater.iteration}'"
            )
        self._target = target
        self.filename = filename
        self.condition = _always_true if condition is None else condition
        self.writer = snapshot_writers.SimpleWriter() if writer is None else writer
        self._snapshot_on_error = snapshot_on_error
        self.n_retains = n_retains
        self.autoload = autoload

    def initialize(self, trainer) -> None:
        """Load the latest snapshot when ``autoload`` is on, and set up the removal of stale
        snapshots when ``n_retains`` is positive."""
        outdir = trainer.out
        if self.autoload:
            path = _load_newest_intact(
                self.filename, outdir, trainer if self._target is None else self._target
            )
            if modes.is_debug():  # Chainer prints this in debug mode; here it is a log record
                if path is None:
                    _log.info("No snapshot file that matches %s was found", self.filename)
                else:
                    _log.info("Snapshot loaded from %s", path)
        if (
            hasattr(self.writer, "_add_cleanup_hook")
            and self.n_retains > 0
            and isinstance(self.filename, str)
        ):
            fmt, n_retains = self.filename, self.n_retains

            def _cleanup() -> None:
                for name in _stale_snapshots(fmt, outdir, n_retains):
                    os.remove(os.path.join(outdir, name))

            self.writer._add_cleanup_hook(_cleanup)

    def on_error(self, trainer, exc: BaseException, tb) -> None:
        """Take a snapshot when the training loop failed, if ``snapshot_on_error`` is set."""
        if self._snapshot_on_error:
            self._make_snapshot(trainer)

    def __call__(self, trainer) -> None:
        """Take a snapshot if ``condition()`` holds."""
        if self.condition():
            self._make_snapshot(trainer)

    def _make_snapshot(self, trainer) -> None:
        # copies, so that a writer working in the background saves the values of this moment
        # even though the training goes on updating the arrays in place
        saved = serialize(trainer if self._target is None else self._target)
        serialized = {key: numpy.array(value, copy=True) for key, value in saved.items()}
        filename = self.filename(trainer) if callable(self.filename) else self.filename.format(trainer)
        self.writer(filename, trainer.out, serialized)

    def finalize(self) -> None:
        """Wait for the writer's pending writes."""
        if hasattr(self.writer, "finalize"):
            self.writer.finalize()


def snapshot(
    savefun: Callable | None = None,
    filename: _Filename = "snapshot_iter_{.updater.iteration}",
    *,
    target: Any = None,
    condition: Callable[[], bool] | None = None,
    writer: snapshot_writers.Writer | None = None,
    snapshot_on_error: bool = False,
    n_retains: int = -1,
    autoload: bool = False,
    **kwargs: Any,
) -> _Snapshot:
    """An extension that saves the trainer (or ``target``) to ``trainer.out``, once per epoch by
    default (priority -100).

    Args:
        savefun: ``savefun(path, serialized)``, the function that writes a file;
            ``fnet.io.save_object`` (Chainer's ``serializers.save_npz``) when None. Not together
            with ``writer``.
        filename: the file name, formatted with the trainer (``'{.updater.iteration}'`` gives the
            iteration), or a callable ``filename(trainer) -> str``.
        target: the object to save (anything with ``serialize``); the trainer when None.
        condition: a callable with no argument; the snapshot is skipped when it returns False.
        writer: a ``snapshot_writers`` writer (e.g. ``ThreadWriter()`` to write in the
            background); ``SimpleWriter(savefun)`` when None.
        snapshot_on_error: also take a snapshot when the training loop raises.
        n_retains: keep only this many of the newest matching files (all when not positive).
        autoload: before training, load the newest file matching ``filename`` (found by the
            prefix and suffix around its ``{...}`` fields, newest by modification time) into
            the target; it must have been written by ``save_object`` (``save_npz``). A snapshot
            that cannot be read (damaged, cut short) is skipped with a warning, for the newest
            intact one.

    ``num_retain`` is accepted as the deprecated name of ``n_retains``.

    >>> ext = snapshot(filename="snapshot_epoch_{.updater.epoch}", n_retains=3)
    >>> ext.trigger, ext.priority, ext.default_name
    ((1, 'epoch'), -100, '_Snapshot')
    """
    n_retains = _renamed_num_retain(kwargs, n_retains)
    if kwargs:
        raise TypeError(
            f"snapshot() got unexpected keyword argument(s) {', '.join(map(repr, kwargs))}\n  hint: "
            "the keyword arguments are target, condition, writer, snapshot_on_error, n_retains, autoload"
        )
    if savefun is not None and writer is not None:
        raise TypeError(
            "savefun and writer arguments cannot be specified together.\n"
            "  hint: give the save function to the writer instead, e.g. ThreadWriter(savefun=save_hdf5)"
        )
    if writer is None:
        writer = snapshot_writers.SimpleWriter(savefun=savefun)
    return _Snapshot(
        target=target,
        condition=condition,
        writer=writer,
        filename=filename,
        snapshot_on_error=snapshot_on_error,
        n_retains=n_retains,
        autoload=autoload,
    )


def snapshot_object(
    target: Any, filename: _Filename, savefun: Callable | None = None, **kwargs: Any
) -> _Snapshot:
    """An extension that saves ``target`` (a model, an optimizer...) to ``trainer.out``.

    ``filename`` is formatted with the trainer (``'model_{.updater.epoch}.npz'``). The keyword
    arguments are those of ``snapshot``: ``condition``, ``writer``, ``snapshot_on_error``,
    ``n_retains`` (or the deprecated ``num_retain``) and ``autoload``.

    >>> snapshot_object(object(), "model_iter_{.updater.iteration}").filename
    'model_iter_{.updater.iteration}'
    """
    kwargs["n_retains"] = _renamed_num_retain(kwargs, kwargs.get("n_retains", -1))
    return snapshot(savefun, filename, target=target, **kwargs)
