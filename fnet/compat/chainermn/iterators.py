"""``chainermn.iterators``: iterators that agree across ranks.

``create_multi_node_iterator`` lets one rank (``rank_master``) iterate and broadcasts each batch
(plain data: arrays, numbers, tuples of them) with its position to the others;
``create_synchronized_iterator`` gives every rank's iterator the same shuffling, from a seed
that rank 0 draws and broadcasts.
"""

from __future__ import annotations

import numpy

from ..dataset.iterator import Iterator
from ..iterators import ShuffleOrderSampler

__all__ = ["create_multi_node_iterator", "create_synchronized_iterator"]


class _Wrapper(Iterator):
    """An iterator that forwards what it does not define to ``actual_iterator``."""

    def __getattr__(self, name):
        return getattr(self.__dict__["actual_iterator"], name)


class _MultiNodeIteratorMaster(_Wrapper):
    def __init__(self, actual_iterator, communicator, rank_master):
        self.__dict__.update(
            actual_iterator=actual_iterator, communicator=communicator, rank_master=rank_master
        )
        communicator.bcast_obj(len(actual_iterator.dataset), root=rank_master)

    def __next__(self):
        actual = self.actual_iterator
        try:
            batch = actual.__next__()
        except StopIteration:
            batch = None
        state = (actual.is_new_epoch, actual.epoch, actual.current_position)
        self.communicator.bcast_obj((batch, state), root=self.rank_master)
        if batch is None:
            raise StopIteration
        return batch

    next = __next__

    @property
    def epoch_detail(self):
        return self.actual_iterator.epoch_detail

    def serialize(self, serializer):
        self.actual_iterator.serialize(serializer)


class _MultiNodeIteratorSlave(Iterator):
    def __init__(self, communicator, rank_master):
        self.communicator = communicator
        self.rank_master = rank_master
        self.dataset_size = communicator.bcast_obj(None, root=rank_master)
        self.epoch = 0
        self.current_position = 0
        self.is_new_epoch = False

    def __next__(self):
        batch, (self.is_new_epoch, self.epoch, self.current_position) = self.communicator.bcast_obj(
            None, root=self.rank_master
        )
        if batch is None:
            raise StopIteration
        return batch

    next = __next__

    @property
    def epoch_detail(self):
        return self.epoch + self.current_position / max(self.dataset_size, 1)

    def serialize(self, serializer):
        self.current_position = serializer("current_position", self.current_position)
        self.epoch = serializer("epoch", self.epoch)
        self.is_new_epoch = serializer("is_new_epoch", self.is_new_epoch)


def create_multi_node_iterator(actual_iterator, communicator, rank_master=0):
    """On ``rank_master``, ``actual_iterator`` whose batches are also sent to the other ranks; on
    those, an iterator that yields them (its ``actual_iterator`` argument is ignored)."""
    if communicator.rank == rank_master:
        return _MultiNodeIteratorMaster(actual_iterator, communicator, rank_master)
    return _MultiNodeIteratorSlave(communicator, rank_master)


class _SynchronizedIterator(_Wrapper):
    def __init__(self, actual_iterator, communicator):
        if not hasattr(actual_iterator, "order_sampler"):
            raise ValueError("actual_iterator must have order_sampler")
        self.__dict__.update(actual_iterator=actual_iterator, communicator=communicator)
        seed = numpy.random.randint(0, 2**32 - 1) if communicator.rank == 0 else None
        seed = communicator.bcast_obj(seed, root=0)
        actual_iterator.order_sampler = ShuffleOrderSampler(numpy.random.RandomState(seed))
        actual_iterator.reset()

    def __setattr__(self, name, value):
        setattr(self.actual_iterator, name, value)

    def __next__(self):
        return self.actual_iterator.__next__()

    next = __next__

    def serialize(self, serializer):
        self.actual_iterator.serialize(serializer)


def create_synchronized_iterator(actual_iterator, communicator):
    """``actual_iterator`` (with an ``order_sampler``) shuffling in the same order on every rank."""
    return _SynchronizedIterator(actual_iterator, communicator)
