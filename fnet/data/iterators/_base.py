"""What Chainer's built-in iterators share: their position in the dataset, the rule that moves it
by one batch, and its serialization.

The position is an ``IteratorState``: ``current_position`` in the epoch's ``order`` (None: the
dataset's own order), ``epoch``, ``is_new_epoch``, and the order sampler's ``state`` right after
it made ``order``. ``next_batch`` computes the state after a batch and the dataset indices of
that batch, so an iterator that loads ahead (threads, worker processes) runs the same rule as
``SerialIterator`` and gives the same batches; and what it saves in a snapshot is the position
it handed out, with the sampler's state at that position, even when it has already asked the
sampler for the next epoch's order. A resumed iterator thus gives the batches an uninterrupted
one would.
"""

from __future__ import annotations

import operator
from typing import NamedTuple

import numpy

from ..iterator import Iterator
from .order_samplers import ShuffleOrderSampler

__all__ = ["IteratorState", "next_batch", "OrderedIterator"]


class IteratorState(NamedTuple):
    """Where an iterator is: the position in the epoch's order, the epoch, whether the last batch
    ended an epoch, and the order sampler's ``state`` once it made ``order`` (None for a sampler
    without state)."""

    current_position: int
    epoch: int
    is_new_epoch: bool
    order: numpy.ndarray | None
    sampler_state: numpy.ndarray | None = None


def _sampler_state(order_sampler) -> numpy.ndarray | None:
    """The ``state`` of an order sampler that has one (see ``OrderSampler``), else None."""
    return getattr(order_sampler, "state", None)


def _span(order, start: int, stop: int) -> numpy.ndarray:
    if order is None:
        return numpy.arange(start, stop, dtype=numpy.intp)
    return order[start:stop]


def next_batch(
    state: IteratorState,
    batch_size: int,
    repeat: bool,
    order_sampler,
    dataset_len: int,
    name: str = "iterator",
):
    """The state after the next batch, and the dataset indices of that batch (None when an
    iterator that does not repeat has finished its epoch).

    A batch that reaches the end of the epoch ends it (the order sampler is called for the next
    order at once); with ``repeat`` it goes on into the next epoch's order to fill the batch.
    ``name`` names the iterator in errors.
    """
    position, epoch, _, order, sampler_state = state
    if epoch > 0 and not repeat:
        return state, None
    size = dataset_len if order is None else len(order)
    if repeat and size == 0:
        raise ValueError(
            f"{name}: the epoch size is 0 (an empty dataset or order), so an iterator that repeats "
            "can never fill a batch\n  hint: check the dataset, or pass repeat=False"
        )
    end = position + batch_size
    is_new_epoch = False
    pieces = []
    while end >= size:
        pieces.append(_span(order, position, size))
        if order is not None:
            new_order = order_sampler(order, position)
            if len(new_order) != len(order):
                raise ValueError(
                    f"{name}: the order sampler returned an order of length {len(new_order)} for an "
                    f"epoch of length {len(order)}\n  hint: an order sampler must keep the epoch size"
                )
            order = new_order
            sampler_state = _sampler_state(order_sampler)
        epoch += 1
        is_new_epoch = True
        position = 0
        if not repeat:
            end = 0
            break
        end -= size
    pieces.append(_span(order, position, end))
    return IteratorState(end, epoch, is_new_epoch, order, sampler_state), numpy.concatenate(pieces)


def _same_arrays(a, b) -> bool:
    """Whether ``a`` and ``b`` are both None or equal arrays."""
    if a is None or b is None:
        return a is b
    return a.shape == b.shape and bool(numpy.array_equal(a, b))


class OrderedIterator(Iterator):
    """Base of the built-in iterators: the dataset, the batch size, the order sampler, and the
    position, with Chainer's ``epoch``, ``epoch_detail``, ``previous_epoch_detail``,
    ``is_new_epoch``, ``current_position``, ``reset`` and ``serialize``.

    Subclasses set their own attributes before calling ``__init__`` (which resets the
    position), move with ``_step`` and ``_commit``, and drop what they loaded ahead in
    ``_discard_prefetched`` (called whenever the position is set from outside).
    """

    _order_keys: tuple[str, ...] = ("order", "_order")  # Chainer's key, then that of older snapshots

    def __init__(self, dataset, batch_size: int, repeat: bool, shuffle: bool | None, order_sampler):
        name = type(self).__name__
        if not (hasattr(type(dataset), "__len__") and hasattr(type(dataset), "__getitem__")):
            raise TypeError(
                f"{name}: dataset must support len() and indexing by int, got {type(dataset).__name__}\n"
                "  hint: make a list of the examples, or use a dataset from fnet.data.datasets"
            )
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, numpy.integer)):
            raise TypeError(
                f"{name}: batch_size must be an int, got {type(batch_size).__name__} {batch_size!r}"
            )
        if batch_size <= 0:
            raise ValueError(f"{name}: batch_size must be positive, got {batch_size}")
        if shuffle is not None and order_sampler is not None:
            raise ValueError(
                f"{name}: shuffle={shuffle!r} and an order_sampler were both given\n"
                "  hint: leave shuffle=None to use the order sampler"
            )
        if shuffle or (shuffle is None and order_sampler is None):
            order_sampler = ShuffleOrderSampler()
        elif order_sampler is not None and not callable(order_sampler):
            raise TypeError(
                f"{name}: order_sampler must be callable as order_sampler(current_order, current_position), "
                f"got {type(order_sampler).__name__}\n"
                "  hint: e.g. ShuffleOrderSampler(numpy.random.RandomState(0))"
            )
        self.dataset = dataset
        self.batch_size = operator.index(batch_size)
        self._repeat = repeat
        self._shuffle = shuffle
        self.order_sampler = order_sampler
        self.reset()

    @property
    def repeat(self) -> bool:
        """Whether the iterator loops over the dataset forever (else it stops after one epoch)."""
        return self._repeat

    @property
    def current_position(self) -> int:
        """The position of the next example in the current epoch's order."""
        return self._state.current_position

    @property
    def epoch(self) -> int:
        """The number of completed epochs."""
        return self._state.epoch

    @property
    def is_new_epoch(self) -> bool:
        """Whether the last batch ended an epoch."""
        return self._state.is_new_epoch

    @property
    def epoch_detail(self) -> float:
        """The epoch as a float: ``epoch + current_position / epoch size``."""
        size = self._epoch_size
        return self.epoch + self.current_position / size if size else float(self.epoch)

    @property
    def previous_epoch_detail(self) -> float | None:
        """``epoch_detail`` before the last batch; None before the first batch."""
        return None if self._previous_epoch_detail < 0 else self._previous_epoch_detail

    @property
    def _epoch_size(self) -> int:
        return self._epoch_size_at(self._state)

    def _epoch_size_at(self, state: IteratorState) -> int:
        return len(self.dataset) if state.order is None else len(state.order)

    def reset(self) -> None:
        """Go back to the start of the first epoch, with a new order from the order sampler."""
        order = None
        if self.order_sampler is not None:
            order = self.order_sampler(numpy.arange(len(self.dataset)), 0)
        self._set_position(IteratorState(0, 0, False, order, _sampler_state(self.order_sampler)), -1.0)

    def serialize(self, serializer) -> None:
        """Save or load the position under Chainer's keys: ``current_position``, ``epoch``,
        ``is_new_epoch``, the order, and ``previous_epoch_detail`` (-1 for None); and the order
        sampler's state at that position (``order_sampler_state``, fnet's own key: Chainer's
        loader ignores it, and a snapshot without it leaves the sampler as it is).

        Loading the position the iterator is at changes nothing (so saving, which gives the
        values back, keeps the batches loaded ahead); loading another one drops them.
        """
        position = serializer("current_position", self.current_position)
        epoch = serializer("epoch", self.epoch)
        is_new_epoch = serializer("is_new_epoch", self.is_new_epoch)
        order = self._serialize_order(serializer, self._state.order)
        saved_sampler_state = self._sampler_state_at_position()
        sampler_state = saved_sampler_state
        if saved_sampler_state is not None:
            try:
                sampler_state = serializer("order_sampler_state", saved_sampler_state.copy())
            except KeyError:  # a snapshot of Chainer or of an older fnet: the sampler goes on as it is
                pass
        state = IteratorState(position, epoch, is_new_epoch, order, sampler_state)
        try:
            previous = serializer("previous_epoch_detail", self._previous_epoch_detail)
        except KeyError:  # a snapshot of Chainer before v3 has no previous_epoch_detail: infer it
            previous = epoch + (position - self.batch_size) / self._epoch_size_at(state)
            previous = max(previous, 0.0) if epoch + position / self._epoch_size_at(state) > 0 else -1.0
        previous = -1.0 if previous is None else float(previous)
        if _same_arrays(sampler_state, saved_sampler_state) and self._is_at(state, previous):
            return
        if not _same_arrays(sampler_state, saved_sampler_state):
            self.order_sampler.state = sampler_state
        self._set_position(state, previous)

    def _sampler_state_at_position(self) -> numpy.ndarray | None:
        """The order sampler's state that goes with the position handed out: its state now,
        unless the iterator has since asked it for an order ahead (to load batches ahead)."""
        if self._ahead.sampler_state is not self._state.sampler_state:
            return self._state.sampler_state
        return _sampler_state(self.order_sampler)

    def _is_at(self, state: IteratorState, previous_epoch_detail: float) -> bool:
        """Whether the iterator is at position ``state`` (its sampler state aside)."""
        here = self._state
        return (state.current_position, state.epoch, state.is_new_epoch, previous_epoch_detail) == (
            here.current_position,
            here.epoch,
            here.is_new_epoch,
            self._previous_epoch_detail,
        ) and _same_arrays(state.order, here.order)

    def _serialize_order(self, serializer, order):
        """Save or load the order under the first of ``_order_keys`` that the serializer has;
        skipped when the examples are visited in index order."""
        if order is None:
            return None
        *keys, last = self._order_keys
        for key in keys:
            try:
                return serializer(key, order.copy())
            except KeyError:
                pass
        return serializer(last, order.copy())

    def _set_position(self, state: IteratorState, previous_epoch_detail: float) -> None:
        self._state = self._ahead = state
        self._previous_epoch_detail = previous_epoch_detail
        self._discard_prefetched()

    def _discard_prefetched(self) -> None:
        """Drop batches loaded ahead of the position (none here)."""

    def _step(self, state: IteratorState):
        """The state after the batch that follows ``state``, and the batch's indices (or None).

        Iterators that load ahead step from the last state computed, so ``_ahead`` (the last
        state computed) tells whether the sampler was asked for an order beyond the position."""
        after, indices = next_batch(
            state, self.batch_size, self._repeat, self.order_sampler, len(self.dataset), type(self).__name__
        )
        self._ahead = after
        return after, indices

    def _commit(self, state: IteratorState) -> None:
        """Move to ``state``, the state after the batch being handed out."""
        self._previous_epoch_detail = self.epoch_detail
        self._state = state
