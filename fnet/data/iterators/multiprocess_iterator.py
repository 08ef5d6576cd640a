"""``MultiprocessIterator``: loads batches ahead with worker processes.

The iterator computes every batch's indices in this process, with the same rule and order
sampler as ``SerialIterator`` (so it gives the same batches), and hands out chunks of indices
to worker processes through a ``multiprocessing`` queue. The workers send the examples back
through another queue; arrays inside the examples travel through a block of shared memory
(``multiprocessing.RawArray``) when it is large enough, so that they are not pickled.

Workers are started by the first batch with the platform's start method (under ``spawn`` and
``forkserver`` the dataset is pickled to them), ignore Ctrl-C, and exit with their parent.
``finalize()`` stops them; so do garbage collection and the interpreter's exit. A finalized
iterator still gives batches (``next`` starts new workers) but cannot be ``reset()``, as in Chainer.
"""

from __future__ import annotations

import collections
import math
import multiprocessing
import os
import pickle
import queue
import signal
import threading
import time
import traceback
import warnings
import weakref
from collections.abc import Iterable
from typing import NamedTuple

import numpy

from ...errors import message
from ._base import OrderedIterator

__all__ = ["MultiprocessIterator"]

_POLL = 0.1  # seconds between checks on the workers while waiting for a batch
_OK, _FAILED, _RETIRED = "ok", "failed", "retired"  # kinds of the workers' messages


class MultiprocessIterator(OrderedIterator):
    """``SerialIterator`` whose examples are loaded by ``n_processes`` worker processes.

    Args:
        dataset, batch_size, repeat, shuffle, order_sampler: as for ``SerialIterator``; the
            batches are the same as ``SerialIterator``'s with the same order sampler.
        n_processes: the number of workers (default: the number of CPUs).
        n_prefetch: how many batches are loaded ahead of the one handed out (at least 1).
        shared_mem: bytes of shared memory per example for its NumPy arrays (those of an
            array example, or directly in a tuple, list or dict example); arrays that do not
            fit are pickled, with a warning. None (the default): the largest size in the first
            batch, which is then loaded in this process; 0: no shared memory.
        dataset_timeout: seconds after which waiting for a batch issues a
            ``MultiprocessIterator.TimeoutWarning``; None for no warning.
        maxtasksperchild: a worker is replaced by a fresh one after this many chunks of a
            batch (None: workers live as long as the iterator).

    An exception raised by ``dataset[i]`` in a worker is raised by the ``next`` call that asks
    for its batch (with the worker's traceback as a note), as soon as it arrives, and the
    position moves past that batch, as with ``SerialIterator``. A worker that dies (a crash,
    the system out of memory) raises ``RuntimeError``; the next call restarts the workers.
    ``reset()`` or loading a snapshot while batches are loading restarts the workers too.

    >>> with MultiprocessIterator(list(range(5)), 2, shuffle=False, n_processes=2) as it:
    ...     next(it), next(it), next(it)
    ([0, 1], [2, 3], [4, 0])
    """

    class TimeoutWarning(RuntimeWarning):
        """Loading a batch takes longer than ``dataset_timeout`` seconds."""

    _workers = None  # class defaults, for finalize on an iterator whose __init__ failed
    _finalized = False

    def __init__(
        self,
        dataset,
        batch_size: int,
        repeat: bool = True,
        shuffle: bool | None = None,
        n_processes: int | None = None,
        n_prefetch: int = 1,
        shared_mem: int | None = None,
        order_sampler=None,
        dataset_timeout: float | None = 30.0,
        maxtasksperchild: int | None = None,
    ):
        _check_count("n_processes", n_processes, minimum=0, optional=True)
        _check_count("n_prefetch", n_prefetch, minimum=0)
        _check_count("shared_mem", shared_mem, minimum=0, optional=True)
        _check_count("maxtasksperchild", maxtasksperchild, minimum=1, optional=True)
        if dataset_timeout is not None and (
            isinstance(dataset_timeout, bool)
            or not isinstance(dataset_timeout, (int, float))
            or dataset_timeout <= 0
        ):
            raise ValueError(
                "MultiprocessIterator: dataset_timeout must be a positive number of seconds or None, got "
                f"{dataset_timeout!r}"
            )
        self.n_processes = n_processes or multiprocessing.cpu_count()
        self.n_prefetch = max(n_prefetch, 1)
        self.shared_mem = shared_mem
        self.dataset_timeout = dataset_timeout
        self._maxtasksperchild = maxtasksperchild
        self._mem_size = shared_mem  # bytes per example; None until the first batch is measured
        self._init_runtime()
        super().__init__(dataset, batch_size, repeat, shuffle, order_sampler)

    def _init_runtime(self) -> None:
        """The parts that live only in this process: workers, shared memory, loading batches."""
        self._workers = None
        self._memory = None
        self._pending: collections.deque[_Batch] = collections.deque()  # in the order handed out
        self._in_flight: dict[int, _Batch] = {}  # by id: the batches with chunks being loaded
        self._free_slots = list(range(self.n_prefetch))  # shared-memory slots, one per batch
        self._next_id = 0

    @property
    def shuffle(self) -> bool | None:
        """The ``shuffle`` argument."""
        return self._shuffle

    def __next__(self) -> list:
        if self._workers is None:
            if self._mem_size is None:
                return self._measured_first_batch()
            self._launch()
        self._fill()
        started, warned = time.monotonic(), False
        while not (self._pending and self._pending[0].ready):
            if not self._pump():
                warned = self._warn_if_stalled(started, warned)
            self._fill()
        batch = self._pending.popleft()
        if batch.missing:
            batch.abandoned = True  # it failed; its other chunks are dropped when they arrive
        else:
            self._release(batch)
        self._commit(batch.state)
        self._fill()
        if batch.error is not None:
            _raise_worker_error(*batch.error)
        if batch.examples is None:
            raise StopIteration
        return batch.examples

    def finalize(self) -> None:
        """Stop the worker processes and free the shared memory (a later ``next`` starts new ones)."""
        if self._workers is not None:
            self._teardown()
        self._memory = None
        self._finalized = True

    def reset(self) -> None:
        """Go back to the start of the first epoch; refused after ``finalize()``, as in Chainer."""
        if self._finalized:
            raise NotImplementedError(
                message(
                    "MultiprocessIterator.reset",
                    "expected an iterator that is not finalized, got one after finalize()",
                    hint="make a new MultiprocessIterator over the dataset instead of resetting this one",
                )
            )
        super().reset()

    def __getstate__(self) -> dict:
        runtime = ("_workers", "_memory", "_pending", "_in_flight", "_free_slots", "_next_id")
        return {key: value for key, value in self.__dict__.items() if key not in runtime}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._init_runtime()

    def _measured_first_batch(self) -> list:
        """Load the first batch here, and size the shared memory after its largest example."""
        state, indices = self._step(self._state)
        self._commit(state)
        if indices is None:
            raise StopIteration
        loaded: dict = {}

        def load():
            try:
                loaded["examples"] = [self.dataset[index] for index in indices]
            except BaseException as error:  # handed to the caller below
                loaded["error"] = error

        if self.dataset_timeout is None:
            load()
        else:
            thread = threading.Thread(target=load, name="MultiprocessIterator-first-batch", daemon=True)
            thread.start()
            thread.join(self.dataset_timeout)
            if thread.is_alive():
                self._warn_stalled()
                thread.join()
        if "error" in loaded:
            raise loaded["error"]
        examples = loaded["examples"]
        self._mem_size = max(map(_nbytes, examples), default=0)
        self._launch()
        self._fill()
        return examples

    def _launch(self) -> None:
        if self._memory is None and self._mem_size:
            self._memory = multiprocessing.RawArray("b", self.n_prefetch * self.batch_size * self._mem_size)
        self._workers = _Workers(
            self.dataset, self.n_processes, self._maxtasksperchild, self._memory, self._mem_size or 0
        )

    def _fill(self) -> None:
        """Send the chunks of the next batches to the workers, up to ``n_prefetch`` ahead."""
        pending = self._pending
        while len(pending) < self.n_prefetch and not (pending and pending[-1].examples is None):
            if self._memory is not None and not self._free_slots:
                return  # each slot is held by a failed batch whose last chunks are loading
            state, indices = self._step(pending[-1].state if pending else self._state)
            batch = _Batch(self._next_id, state)
            self._next_id += 1
            pending.append(batch)
            if indices is None:
                return
            batch.examples = [None] * len(indices)
            self._in_flight[batch.id] = batch
            offset = 0
            if self._memory is not None:
                batch.slot = self._free_slots.pop()
                offset = batch.slot * self.batch_size * self._mem_size
            chunk = max(1, -(-len(indices) // (4 * self.n_processes)))
            for start in range(0, len(indices), chunk):
                self._workers.tasks.put((batch.id, start, indices[start : start + chunk], offset))
                offset += chunk * (self._mem_size or 0)
                batch.missing += 1

    def _pump(self) -> bool:
        """Handle one message from the workers; False if none came within ``_POLL`` seconds."""
        try:
            message = self._workers.results.get(timeout=_POLL)
        except queue.Empty:
            message = None
        if message is None:
            self._check_workers()
            return False
        self._receive(pickle.loads(message))
        return True

    def _receive(self, message: tuple) -> None:
        kind, batch_id, start, payload = message
        if kind == _RETIRED:
            self._workers.replace(payload)
            return
        batch = self._in_flight[batch_id]
        batch.missing -= 1
        if batch.abandoned:
            if not batch.missing:
                self._release(batch)
        elif kind == _FAILED:
            batch.error = batch.error or payload
        else:
            examples, needed = payload
            if self._memory is not None:
                examples = [_unpack(example, self._memory) for example in examples]
            batch.examples[start : start + len(examples)] = examples
            if needed:
                warnings.warn(
                    f"MultiprocessIterator: an example needs {needed} bytes of shared memory but "
                    f"shared_mem is {self._mem_size}; its arrays that did not fit were pickled\n"
                    f"  hint: pass shared_mem={needed} (or more) to MultiprocessIterator",
                    UserWarning,
                    stacklevel=4,
                )

    def _release(self, batch: _Batch) -> None:
        self._in_flight.pop(batch.id, None)
        if batch.slot is not None:
            self._free_slots.append(batch.slot)

    def _check_workers(self) -> None:
        """Raise if a worker died (replacing those that retired after ``maxtasksperchild``)."""
        workers = self._workers
        if all(process.exitcode is None for process in workers.processes):
            return
        while True:  # what a worker sent before it exited is in the pipe by now
            try:
                message = workers.results.get_nowait()
            except queue.Empty:
                break
            self._receive(pickle.loads(message))
        dead = [process for process in workers.processes if process.exitcode is not None]
        if not dead:
            return
        pid, code = dead[0].pid, dead[0].exitcode
        self._teardown()
        how = f"was killed by {signal.Signals(-code).name}" if code < 0 else f"exited with code {code}"
        raise RuntimeError(
            f"MultiprocessIterator: worker process {pid} {how} while loading batches\n"
            "  hint: a crash in the dataset's code or the system running out of memory can cause "
            "it; the next call starts new workers, from the batch after the last one handed out"
        )

    def _warn_if_stalled(self, started: float, warned: bool) -> bool:
        """Warn once if waiting since ``started`` exceeds ``dataset_timeout``; whether warned."""
        if warned or self.dataset_timeout is None or time.monotonic() - started < self.dataset_timeout:
            return warned
        self._warn_stalled()
        return True

    def _warn_stalled(self) -> None:
        warnings.warn(
            f"MultiprocessIterator: no batch after {self.dataset_timeout} s: loading the dataset seems "
            "stalled\n  hint: common causes are libraries that start threads before the workers fork "
            "(OpenCV: call cv2.setNumThreads(0); or set OMP_NUM_THREADS=1), or a slow storage; "
            "MultithreadIterator avoids the first; dataset_timeout=None silences this warning",
            MultiprocessIterator.TimeoutWarning,
            stacklevel=4,
        )

    def _discard_prefetched(self) -> None:
        if any(batch.missing for batch in self._in_flight.values()):
            self._teardown()  # chunks are loading for the old position: stop their workers
        else:
            self._forget_batches()

    def _teardown(self) -> None:
        workers, self._workers = self._workers, None
        self._forget_batches()
        if workers is not None:
            workers.close()

    def _forget_batches(self) -> None:
        self._pending.clear()
        self._in_flight.clear()
        self._free_slots = list(range(self.n_prefetch))


def _check_count(name: str, value, *, minimum: int, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, numpy.integer)) or value < minimum:
        expected = f"an int >= {minimum}" + (" or None" if optional else "")
        raise ValueError(f"MultiprocessIterator: {name} must be {expected}, got {value!r}")


class _Batch:
    """A batch being loaded: the state after it, its examples, the chunks still loading."""

    __slots__ = ("id", "state", "examples", "missing", "slot", "error", "abandoned")

    def __init__(self, batch_id: int, state):
        self.id = batch_id
        self.state = state
        self.examples = None  # stays None for the end of a non-repeating iteration
        self.missing = 0
        self.slot = None
        self.error = None
        self.abandoned = False

    @property
    def ready(self) -> bool:
        return self.missing == 0 or self.error is not None


class _Workers:
    """The worker processes of one iterator with their task and result queues. They are stopped
    by ``close()``, when this object is garbage-collected, or at the interpreter's exit."""

    def __init__(self, dataset, n_processes: int, maxtasksperchild, memory, mem_size: int):
        self.tasks = multiprocessing.Queue()
        self.results = multiprocessing.Queue()
        self._args = (dataset, self.tasks, self.results, memory, mem_size, maxtasksperchild)
        self.processes: list = []
        self.close = weakref.finalize(self, _stop, self.processes, self.tasks, self.results)
        for _ in range(n_processes):
            self.processes.append(self._start())

    def _start(self):
        process = multiprocessing.Process(
            target=_work, args=self._args, name="MultiprocessIterator-worker", daemon=True
        )
        try:
            process.start()
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            self.close()
            raise TypeError(
                f"MultiprocessIterator: the dataset cannot be sent to the worker processes: {error}\n"
                f"  hint: the start method '{multiprocessing.get_start_method()}' pickles the dataset; "
                "define its class at module level (no lambdas or local classes), or use MultithreadIterator"
            ) from error
        return process

    def replace(self, pid: int) -> None:
        """Join the worker ``pid`` (it retired after ``maxtasksperchild`` chunks) and start another."""
        for i, process in enumerate(self.processes):
            if process.pid == pid:
                process.join()
                process.close()
                self.processes[i] = self._start()
                return


def _stop(processes: list, tasks, results) -> None:
    for process in processes:
        if process.exitcode is None:
            process.terminate()
    for process in processes:
        process.join(timeout=1.0)
        if process.exitcode is None:
            process.kill()
            process.join()
        process.close()
    processes.clear()
    tasks.cancel_join_thread()  # never wait to flush tasks that no worker will read
    tasks.close()
    results.close()


class _Packed(NamedTuple):
    """Where an array of an example lies in the shared memory."""

    offset: int
    shape: tuple
    dtype: str


def _packable(value) -> bool:
    return isinstance(value, numpy.ndarray) and not value.dtype.hasobject and value.nbytes > 0


def _items(example) -> Iterable:
    """The values that may go through shared memory: the example, or its items if it is a tuple,
    list or dict."""
    kind = type(example)
    if kind is tuple or kind is list:
        return example
    if kind is dict:
        return example.values()
    return (example,)


def _rebuilt(example, items: list):
    """``example`` with its ``_items`` replaced by ``items``."""
    kind = type(example)
    if kind is tuple or kind is list:
        return kind(items)
    if kind is dict:
        return dict(zip(example, items))
    return items[0]


def _nbytes(example) -> int:
    """Bytes of shared memory that the arrays of ``example`` need."""
    return sum(value.nbytes for value in _items(example) if _packable(value))


def _pack(example, memory, offset: int, size: int):
    """``example`` with its arrays written to ``memory[offset:offset + size]`` (those that fit),
    and the bytes all its arrays need."""
    end = offset + size
    needed = 0
    items = []
    for value in _items(example):
        if _packable(value):
            needed += value.nbytes
            if offset + value.nbytes <= end:
                numpy.frombuffer(memory, value.dtype, value.size, offset).reshape(value.shape)[...] = value
                value, offset = _Packed(offset, value.shape, value.dtype.str), offset + value.nbytes
        items.append(value)
    return _rebuilt(example, items), needed


def _unpack(example, memory):
    """``example`` with its arrays copied out of ``memory``."""
    items = [
        numpy.frombuffer(memory, value.dtype, math.prod(value.shape), value.offset)
        .reshape(value.shape)
        .copy()
        if type(value) is _Packed
        else value
        for value in _items(example)
    ]
    return _rebuilt(example, items)


def _load(dataset, indices, memory, mem_size: int, offset: int) -> tuple:
    """Load one chunk in a worker: ``(kind, payload)`` for the message to the iterator."""
    examples = []
    needed = 0
    for index in indices:
        try:
            example = dataset[index]
        except Exception as error:
            return _FAILED, (_portable(error), traceback.format_exc(), f"loading dataset[{index}]")
        if memory is not None:
            example, size = _pack(example, memory, offset + len(examples) * mem_size, mem_size)
            if size > mem_size:
                needed = max(needed, size)
        examples.append(example)
    return _OK, (examples, needed)


def _portable(error: Exception) -> Exception | None:
    """``error`` if it survives pickling (to be raised again by the iterator), else None."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        return None
    return error


def _work(dataset, tasks, results, memory, mem_size: int, maxtasksperchild) -> None:
    """A worker process: load the chunks from ``tasks`` and send them to ``results``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the main process
    parent = multiprocessing.parent_process()
    if parent is not None:  # exit with the parent, even while the dataset's code is busy
        threading.Thread(target=_exit_after, args=(parent,), name="parent-watch", daemon=True).start()
    done = 0
    while maxtasksperchild is None or done < maxtasksperchild:
        batch_id, start, indices, offset = tasks.get()
        kind, payload = _load(dataset, indices, memory, mem_size, offset)
        results.put(_message(kind, batch_id, start, payload))
        done += 1
    results.put(_message(_RETIRED, None, None, os.getpid()))


def _message(kind: str, batch_id, start, payload) -> bytes:
    """The message pickled here, so that examples that cannot be pickled fail their batch (the
    queue would drop them, and the iterator would wait for them forever)."""
    try:
        return pickle.dumps((kind, batch_id, start, payload), pickle.HIGHEST_PROTOCOL)
    except Exception as error:
        what = "sending its examples to the main process (examples must be picklable)"
        payload = (_portable(error), traceback.format_exc(), what)
        return pickle.dumps((_FAILED, batch_id, start, payload), pickle.HIGHEST_PROTOCOL)


def _exit_after(parent) -> None:
    parent.join()
    os._exit(0)


def _raise_worker_error(error: Exception | None, worker_traceback: str, what: str):
    where = f"in a MultiprocessIterator worker while {what}"
    if error is None:
        raise RuntimeError(
            f"MultiprocessIterator: an exception was raised {where}; it could not be pickled, so here is "
            f"its traceback:\n{worker_traceback}"
        )
    error.add_note(f"(raised {where}; the worker's traceback follows)\n{worker_traceback}")
    raise error
