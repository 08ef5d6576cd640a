"""Snapshot writers: how (and in which thread or process) ``snapshot`` writes its files.

A writer is called as ``writer(filename, outdir, target)`` with ``target`` the serialized
object (a dict of arrays, as ``DictionarySerializer`` makes it). Every built-in writer writes
atomically: the save function writes into a temporary directory next to the final file, which
is then renamed over it (``os.replace``) once the data is on disk. A crash or an error in the
middle of a write therefore leaves the previous file whole; the folder a killed write leaves
(``.tmpFILENAME.<16 hex digits>``) is removed by the next write in that directory.

``SimpleWriter`` writes in the calling thread; ``ThreadWriter`` and ``ProcessWriter`` start one
thread or process per snapshot (waiting for the previous one first); ``ThreadQueueWriter`` and
``ProcessQueueWriter`` hand the snapshots to one long-lived consumer through a queue. The save
function is ``fnet.io.save_object`` (Chainer's ``serializers.save_npz``) unless ``savefun`` is
given.

>>> import os, tempfile, numpy
>>> out = tempfile.mkdtemp()
>>> SimpleWriter()("snapshot_1", out, {"W": numpy.ones(2, numpy.float32)})
>>> sorted(numpy.load(os.path.join(out, "snapshot_1")).items())
[('W', array([1., 1.], dtype=float32))]
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import threading
from collections.abc import Callable
from typing import Any, NoReturn

from ...io.atomic import DIRECTORY_LOCK, fsync_directory, temp_directory
from ...io.objects import save_object

_log = logging.getLogger(__name__)

__all__ = [
    "write_atomically",
    "Writer",
    "SimpleWriter",
    "StandardWriter",
    "ThreadWriter",
    "ProcessWriter",
    "QueueWriter",
    "ThreadQueueWriter",
    "ProcessQueueWriter",
]

_SaveFun = Callable[..., Any]


def write_atomically(filename: str, outdir: str, target: Any, savefun: _SaveFun | None, **kwds: Any) -> None:
    """Write ``target`` to ``outdir/filename`` with ``savefun(path, target, **kwds)``, atomically.

    The save function writes into a fresh temporary directory in the destination's directory
    (under the final file name, so that functions that look at the suffix behave as usual); the
    file is flushed to disk and renamed over the destination. On any error the destination is
    untouched and the temporary directory is removed. The temporary directories that killed
    writes left in that directory (``.tmpFILENAME.<16 hex digits>``, owned by no live process)
    are removed first.
    """
    savefun = save_object if savefun is None else savefun
    path = os.path.join(outdir, filename)
    directory, name = os.path.split(os.path.abspath(path))
    with temp_directory(path) as tmpdir:
        tmppath = os.path.join(tmpdir, name)
        savefun(tmppath, target, **kwds)
        if not os.path.isfile(tmppath):
            written = sorted(set(os.listdir(tmpdir)) - {DIRECTORY_LOCK})
            raise RuntimeError(
                f"snapshot writer: the save function {getattr(savefun, '__name__', savefun)!r} did not "
                f"write the file it was given ({name!r}); it wrote {written}\n"
                "  hint: a save function must write exactly the path it is given (numpy.savez, for "
                "one, appends '.npz' to a name without it)"
            )
        with open(tmppath, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmppath, os.path.join(directory, name))
    fsync_directory(directory)


def _not_defined(writer: Writer, method: str) -> NoReturn:
    """Raise NotImplementedError for a method a writer class must define."""
    name = type(writer).__name__
    raise NotImplementedError(
        f"{name}.{method.partition('(')[0]}: expected {name} to define {method}, got the base "
        f"class's\n  hint: use one of the writers (SimpleWriter, ThreadWriter, ProcessWriter, "
        f"ThreadQueueWriter, ProcessQueueWriter) or define {method} in {name}"
    )


class Writer:
    """Base class of snapshot writers: ``writer(filename, outdir, target)`` saves one snapshot.

    ``save`` does the atomic write and then runs the hooks added with ``_add_cleanup_hook``
    (``snapshot(n_retains=...)`` adds one that removes the oldest snapshots); ``finalize`` waits
    for the writes in progress (the trainer calls it through the snapshot extension at the end
    of training).
    """

    def __init__(self):
        self._post_save_hooks: list[Callable[[], None]] = []

    def __call__(self, filename: str, outdir: str, target: Any, *, savefun: _SaveFun | None = None) -> None:
        """Save ``target`` (a serialized object) as ``outdir/filename``; ``savefun``, when given,
        replaces the writer's save function for this call. Subclasses define it (the base class
        raises NotImplementedError, as Chainer's)."""
        _not_defined(self, "__call__(filename, outdir, target)")

    def __del__(self):
        try:
            self.finalize()
        except Exception:  # an interpreter shutting down may have torn down what finalize needs
            pass

    def finalize(self) -> None:  # noqa: B027 - a hook that subclasses may leave empty
        """Wait for the writes in progress (nothing to wait for here)."""

    def save(self, filename: str, outdir: str, target: Any, savefun: _SaveFun | None, **kwds: Any) -> None:
        """Write ``target`` atomically with ``savefun(path, target, **kwds)``, then run the hooks."""
        write_atomically(filename, outdir, target, savefun, **kwds)
        self._post_save()

    def _add_cleanup_hook(self, hook_fun: Callable[[], None]) -> None:
        """Run ``hook_fun()`` after each snapshot is written (used to remove stale snapshots)."""
        self._post_save_hooks.append(hook_fun)

    def _post_save(self) -> None:
        for hook in self._post_save_hooks:
            hook()


class SimpleWriter(Writer):
    """Writes each snapshot in the calling thread with ``savefun(path, target, **kwds)``."""

    def __init__(self, savefun: _SaveFun | None = None, **kwds: Any):
        super().__init__()
        self._savefun = savefun
        self._kwds = kwds

    def __call__(self, filename: str, outdir: str, target: Any, *, savefun: _SaveFun | None = None) -> None:
        """Write the snapshot now."""
        self.save(filename, outdir, target, savefun or self._savefun, **self._kwds)


class StandardWriter(Writer):
    """Base of the writers that start a new worker (thread or process) for each snapshot.

    A call first waits for the previous worker, then starts one from ``create_worker``. If a
    worker failed, the next call (or ``finalize``) raises a RuntimeError saying so.
    """

    def __init__(self, savefun: _SaveFun | None = None, **kwds: Any):
        super().__init__()
        self._savefun = savefun
        self._kwds = kwds
        self._worker = None
        self._started = False
        self._finalized = False
        self._filename: str | None = None
        self._current_savefun: _SaveFun | None = savefun
        self._error: BaseException | None = None

    def __call__(self, filename: str, outdir: str, target: Any, *, savefun: _SaveFun | None = None) -> None:
        """Start writing the snapshot in a new worker (after the previous one has finished)."""
        self._join()
        self._filename = filename
        self._current_savefun = savefun or self._savefun
        self._worker = self.create_worker(filename, outdir, target, **self._kwds)
        self._worker.start()
        self._started = True

    def create_worker(self, filename: str, outdir: str, target: Any, **kwds: Any):
        """A new, unstarted worker (with ``start()`` and ``join()``) that writes one snapshot:
        subclasses define it (``ThreadWriter``, ``ProcessWriter``)."""
        _not_defined(self, "create_worker(filename, outdir, target, **kwds)")

    def finalize(self) -> None:
        """Wait for the last worker."""
        if not self._finalized:
            self._join()
        self._finalized = True

    def _join(self) -> None:
        if not self._started:
            return
        self._worker.join()
        self._started = False
        self._after_join()
        error, self._error = self._error, None
        if error is not None:
            raise RuntimeError(
                f"{type(self).__name__}: writing the snapshot {self._filename!r} failed: {error}"
            ) from error

    def _after_join(self) -> None:
        """What to do once the worker has ended (nothing by default)."""


class ThreadWriter(StandardWriter):
    """Writes each snapshot in a new thread, so that training goes on during the write."""

    def create_worker(self, filename: str, outdir: str, target: Any, **kwds: Any) -> threading.Thread:
        """A thread that writes the snapshot and then runs the cleanup hooks."""
        return threading.Thread(
            target=self._save_capturing, args=(filename, outdir, target, self._current_savefun), kwargs=kwds
        )

    def _save_capturing(self, filename: str, outdir: str, target: Any, savefun, **kwds: Any) -> None:
        try:
            self.save(filename, outdir, target, savefun, **kwds)
        except BaseException as error:  # raised in the main thread at the next join
            self._error = error


class ProcessWriter(StandardWriter):
    """Writes each snapshot in a new process (``multiprocessing``), away from the training process.

    The cleanup hooks run in the training process once the worker has ended. The save function
    and the target must be picklable where processes are spawned rather than forked. Under MPI,
    prefer ``ThreadWriter``: forking an MPI process may be unsafe.
    """

    def create_worker(self, filename: str, outdir: str, target: Any, **kwds: Any):
        """A process that writes the snapshot."""
        return multiprocessing.Process(
            target=write_atomically, args=(filename, outdir, target, self._current_savefun), kwargs=kwds
        )

    def _after_join(self) -> None:
        if self._worker.exitcode != 0:
            self._error = RuntimeError(f"the writer process exited with code {self._worker.exitcode}")
            return
        self._post_save()


def _consume(tasks, after_each: Callable[[], None] | None) -> list:
    """Run the queued snapshot tasks until a None arrives; errors are printed, not fatal."""
    errors = []
    while True:
        item = tasks.get()
        try:
            if item is None:
                return errors
            task, filename, outdir, target, savefun = (item[i] for i in range(5))
            if savefun is None:
                task(filename, outdir, target)
            else:
                task(filename, outdir, target, savefun=savefun)
            if after_each is not None:
                after_each()
        except Exception as error:
            errors.append(error)
            _log.exception("snapshot writer: writing %r failed", item[1])  # with its traceback
        finally:
            tasks.task_done()


class QueueWriter(Writer):
    """Base of the writers whose one consumer (thread or process) takes snapshots from a queue.

    The consumer starts at construction and calls ``task(filename, outdir, target)`` for each
    snapshot, ``task`` being ``create_task(savefun)`` (a ``SimpleWriter``) unless given. A failed
    task is logged with its traceback (an ERROR record of this module's logger) and the consumer
    goes on; ``finalize`` waits for the queue to empty.
    """

    def __init__(self, savefun: _SaveFun | None = None, task: Callable | None = None):
        super().__init__()
        self._task = self.create_task(savefun) if task is None else task
        self._queue = self.create_queue()
        self._consumer = self.create_consumer(self._queue)
        self._consumer.start()
        self._started = True
        self._finalized = False

    def __call__(self, filename: str, outdir: str, target: Any, *, savefun: _SaveFun | None = None) -> None:
        """Queue the snapshot."""
        self._queue.put((self._task, filename, outdir, target, savefun))

    def create_task(self, savefun: _SaveFun | None) -> SimpleWriter:
        """The callable that writes one snapshot: a ``SimpleWriter`` with ``savefun``."""
        return SimpleWriter(savefun=savefun)

    def create_queue(self):
        """A new queue with ``put``, ``get``, ``task_done`` and ``join``: subclasses define it."""
        _not_defined(self, "create_queue()")

    def create_consumer(self, q):
        """A new, unstarted worker that runs ``consume(q)``: subclasses define it."""
        _not_defined(self, "create_consumer(q)")

    def consume(self, q) -> None:
        """Take tasks from ``q`` and run them until None arrives (the worker's loop)."""
        _consume(q, self._post_save)

    def finalize(self) -> None:
        """Wait for every queued snapshot, then stop the consumer."""
        if self._started and not self._finalized:
            self._queue.put(None)
            self._queue.join()
            self._consumer.join()
            self._started = False
        self._finalized = True


class ThreadQueueWriter(QueueWriter):
    """A ``QueueWriter`` whose consumer is a thread (queue: ``queue.Queue``)."""

    def create_queue(self) -> queue.Queue:
        """A thread-safe queue."""
        return queue.Queue()

    def create_consumer(self, q) -> threading.Thread:
        """A thread running ``consume(q)`` (the cleanup hooks run there after each snapshot)."""
        return threading.Thread(target=self.consume, args=(q,))


class ProcessQueueWriter(QueueWriter):
    """A ``QueueWriter`` whose consumer is a process (queue: ``multiprocessing.JoinableQueue``).

    The cleanup hooks run in the training process, at each call (for the snapshots finished by
    then) and after ``finalize``. The tasks, save functions and targets must be picklable.
    Under MPI, prefer ``ThreadQueueWriter``.
    """

    def __call__(self, filename: str, outdir: str, target: Any, *, savefun: _SaveFun | None = None) -> None:
        """Queue the snapshot (after cleaning up around the snapshots written so far)."""
        self._post_save()
        super().__call__(filename, outdir, target, savefun=savefun)

    def create_queue(self):
        """A queue shared with the consumer process."""
        return multiprocessing.JoinableQueue()

    def create_consumer(self, q):
        """A process taking the snapshots from ``q``."""
        return multiprocessing.Process(target=_consume, args=(q, None))

    def finalize(self) -> None:
        """Wait for every queued snapshot, stop the consumer, then run the cleanup hooks."""
        pending = self._started and not self._finalized
        super().finalize()
        if pending:
            self._post_save()
