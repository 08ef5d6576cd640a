"""``create_multi_node_iterator``: one rank iterates, every rank gets the same batches.

At every step the master broadcasts a control message (``_build_ctrl_msg``: stop, whether the
batch is of a type that can be sent, whether it is a list of pairs, a new epoch, the position)
and the batch (plain data: arrays, numbers, pairs of them). A batch of other types raises a
TypeError on every rank. The other ranks' iterators follow the master's position and epoch.
"""

from __future__ import annotations

import numpy

from ...dataset.iterator import Iterator

__all__ = ["create_multi_node_iterator"]


def _is_valid_type(element) -> bool:
    """Whether a batch element can be sent: an array or number, or a pair of them."""
    if isinstance(element, tuple):
        return len(element) == 2 and all(hasattr(e, "dtype") for e in element)
    return hasattr(element, "dtype")


def _build_ctrl_msg(stop, is_valid_data_type, is_paired_dataset, is_new_epoch, current_position):
    """The control message of one step, a float32 vector of 5."""
    fields = [stop, is_valid_data_type, is_paired_dataset, is_new_epoch, current_position]
    return numpy.array([int(f) for f in fields], numpy.float32)


def _parse_ctrl_msg(msg):
    """``(stop, is_valid_data_type, is_paired_dataset, is_new_epoch, current_position)``."""
    return bool(msg[0]), bool(msg[1]), bool(msg[2]), bool(msg[3]), int(msg[4])


def _invalid_type():
    return TypeError(
        "Multi node iterator supports ndarray or tuple of scalars as the data type of the batch element only."
    )


class _MultiNodeIteratorMaster(Iterator):
    def __init__(self, actual_iterator, communicator, rank_master):
        self.__dict__.update(
            actual_iterator=actual_iterator, communicator=communicator, rank_master=rank_master
        )
        order = getattr(getattr(actual_iterator, "_state", None), "order", None)
        communicator.bcast_obj((len(actual_iterator.dataset), order), root=rank_master)

    def __next__(self):
        actual = self.actual_iterator
        try:
            batch = actual.__next__()
        except StopIteration:
            batch = None
        valid = batch is not None and _is_valid_type(batch[0])
        paired = valid and isinstance(batch[0], tuple)
        msg = _build_ctrl_msg(batch is None, valid, paired, actual.is_new_epoch, actual.current_position)
        self.communicator.bcast_obj((msg, batch if valid else None), root=self.rank_master)
        if batch is None:
            raise StopIteration
        if not valid:
            raise _invalid_type()
        return batch

    next = __next__

    def __getattr__(self, name):
        return getattr(self.__dict__["actual_iterator"], name)

    @property
    def current_position(self):
        return self.actual_iterator.current_position

    @property
    def epoch_detail(self):
        return self.actual_iterator.epoch_detail

    @property
    def is_new_epoch(self):
        return self.actual_iterator.is_new_epoch

    def serialize(self, serializer):
        self.actual_iterator.serialize(serializer)


class _MultiNodeIteratorSlave(Iterator):
    def __init__(self, communicator, rank_master):
        self.communicator = communicator
        self.rank_master = rank_master
        self.dataset_size, self._order = communicator.bcast_obj(None, root=rank_master)
        self.epoch = 0
        self.current_position = 0
        self.is_new_epoch = False

    def __next__(self):
        msg, batch = self.communicator.bcast_obj(None, root=self.rank_master)
        stop, valid, _, self.is_new_epoch, self.current_position = _parse_ctrl_msg(msg)
        if self.is_new_epoch:
            self.epoch += 1
        if stop:
            raise StopIteration
        if not valid:
            raise _invalid_type()
        return batch

    next = __next__

    @property
    def epoch_detail(self):
        return self.epoch + self.current_position / max(self.dataset_size, 1)

    def serialize(self, serializer):
        """The position is saved and restored; the order stays the master's (the batches come
        from the master whatever this rank's copy says)."""
        self.current_position = serializer("current_position", self.current_position)
        self.epoch = serializer("epoch", self.epoch)
        self.is_new_epoch = serializer("is_new_epoch", self.is_new_epoch)
        if self._order is not None:
            serializer("order", numpy.array(self._order))


def create_multi_node_iterator(actual_iterator, communicator, rank_master=0):
    """On ``rank_master``, ``actual_iterator`` whose batches are also sent to the other ranks; on
    those, an iterator that yields them (their ``actual_iterator`` is not used)."""
    if communicator.rank == rank_master:
        return _MultiNodeIteratorMaster(actual_iterator, communicator, rank_master)
    return _MultiNodeIteratorSlave(communicator, rank_master)
