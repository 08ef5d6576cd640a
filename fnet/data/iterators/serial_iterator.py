"""``SerialIterator``: reads the examples of each batch one after the other, in this process."""

from __future__ import annotations

from ._base import OrderedIterator

__all__ = ["SerialIterator"]


class SerialIterator(OrderedIterator):
    """Iterates over ``dataset`` in batches of ``batch_size`` examples (lists), in this process.

    Args:
        dataset: anything with ``len()`` and indexing by int.
        batch_size: the number of examples in a batch.
        repeat: loop over the dataset forever (True), or stop after one epoch (False; the last
            batch may then be smaller).
        shuffle: visit the examples in a new random order every epoch (True) or in index order
            (False). None (the default) means True unless ``order_sampler`` is given.
        order_sampler: a callable ``(current_order, current_position) -> next order`` called at
            every epoch's start, such as ``ShuffleOrderSampler(random_state)``; only with
            ``shuffle=None``.

    With ``repeat``, a batch that reaches the end of an epoch is filled from the next epoch's
    order. The position is saved by ``serialize`` (``previous_epoch_detail`` None as -1).

    >>> it = SerialIterator(list(range(5)), 2, shuffle=False)
    >>> [next(it) for _ in range(3)], it.epoch, it.is_new_epoch, it.epoch_detail
    ([[0, 1], [2, 3], [4, 0]], 1, True, 1.2)
    """

    def __init__(
        self, dataset, batch_size: int, repeat: bool = True, shuffle: bool | None = None, order_sampler=None
    ):
        super().__init__(dataset, batch_size, repeat, shuffle, order_sampler)

    def __next__(self) -> list:
        state, indices = self._step(self._state)
        self._commit(state)
        if indices is None:
            raise StopIteration
        return [self.dataset[index] for index in indices]
