"""``create_synchronized_iterator``: iterators on every rank that shuffle in the same order."""

from __future__ import annotations

import numpy

from ...dataset.iterator import Iterator
from ...iterators import ShuffleOrderSampler

__all__ = ["create_synchronized_iterator"]


class _SynchronizedIterator(Iterator):
    def __init__(self, actual_iterator, communicator):
        if not hasattr(actual_iterator, "order_sampler"):
            raise ValueError("actual_iterator must have order_sampler")
        self.__dict__.update(actual_iterator=actual_iterator, communicator=communicator)
        seed = numpy.random.randint(0, 2**32 - 1) if communicator.rank == 0 else None
        seed = communicator.bcast_obj(seed, root=0)
        actual_iterator.order_sampler = ShuffleOrderSampler(numpy.random.RandomState(seed))
        actual_iterator.reset()

    def __getattr__(self, name):
        return getattr(self.__dict__["actual_iterator"], name)

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
