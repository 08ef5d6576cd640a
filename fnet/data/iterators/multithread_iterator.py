"""``MultithreadIterator``: loads the examples of the next batch with a pool of threads."""

from __future__ import annotations

import functools
import operator
from multiprocessing.pool import ThreadPool

from ._base import OrderedIterator

__all__ = ["MultithreadIterator"]


class MultithreadIterator(OrderedIterator):
    """``SerialIterator`` that reads the examples with ``n_threads`` threads, one batch ahead.

    Arguments are those of ``SerialIterator`` and ``n_threads``. While the caller works on a
    batch, the threads read the next one (threads suit datasets that wait on files or release
    the GIL, e.g. image decoding). An exception raised by ``dataset[i]`` is raised by the
    ``next`` call that asks for its batch, and the position moves past that batch, as with
    ``SerialIterator``. ``finalize()`` (or leaving a ``with`` block) stops the threads.

    >>> with MultithreadIterator(list(range(5)), 2, shuffle=False, n_threads=2) as it:
    ...     next(it), next(it), next(it)
    ([0, 1], [2, 3], [4, 0])
    """

    _order_keys = ("_order",)  # Chainer's key for this iterator
    _pool = None  # class defaults, for finalize on an iterator whose __init__ failed
    _next = None

    def __init__(
        self,
        dataset,
        batch_size: int,
        repeat: bool = True,
        shuffle: bool | None = None,
        n_threads: int = 1,
        order_sampler=None,
    ):
        if isinstance(n_threads, bool) or not isinstance(n_threads, int) or n_threads < 1:
            raise ValueError(f"MultithreadIterator: n_threads must be a positive int, got {n_threads!r}")
        self.n_threads = n_threads
        self._pool = None
        self._next = None  # (state after the next batch, its pending read or None at the end)
        super().__init__(dataset, batch_size, repeat, shuffle, order_sampler)

    def __next__(self) -> list:
        if self._next is None:
            self._prefetch()
        state, reading = self._next
        self._next = None
        self._commit(state)
        if reading is None:
            raise StopIteration
        batch = reading.get()
        self._prefetch()
        return batch

    def finalize(self) -> None:
        """Stop the threads (they are made again if the iterator is used afterwards)."""
        pool, self._pool, self._next = self._pool, None, None
        if pool is not None:
            pool.terminate()

    def _prefetch(self) -> None:
        state, indices = self._step(self._state)
        if indices is None:
            self._next = (state, None)
            return
        if self._pool is None:
            self._pool = ThreadPool(self.n_threads)
        self._next = (state, self._pool.map_async(functools.partial(operator.getitem, self.dataset), indices))

    def _discard_prefetched(self) -> None:
        self._next = None
