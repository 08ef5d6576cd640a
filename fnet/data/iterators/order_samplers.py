"""Order samplers: the order in which an iterator visits a dataset's examples, epoch by epoch."""

from __future__ import annotations

import abc

import numpy

__all__ = ["OrderSampler", "ShuffleOrderSampler"]


class OrderSampler(abc.ABC):
    """Base class of order samplers: called at the start of every epoch for the next order.

    An iterator calls ``sampler(current_order, current_position)`` once when it is made or
    reset (with ``numpy.arange(len(dataset))`` and 0) and again whenever an epoch ends; the
    result is the 1-d array of dataset indices to visit in the next epoch. Its length is the
    epoch size and must stay the same from one epoch to the next.
    """

    @abc.abstractmethod
    def __call__(self, current_order: numpy.ndarray, current_position: int) -> numpy.ndarray:
        """The order of the next epoch, given the order and position where the last one ended."""


class ShuffleOrderSampler(OrderSampler):
    """Visits the examples in a new random permutation every epoch.

    ``random_state`` is a ``numpy.random.RandomState`` (or a ``numpy.random.Generator``); by
    default NumPy's global one, so ``numpy.random.seed`` fixes the orders.

    >>> sampler = ShuffleOrderSampler(numpy.random.RandomState(0))
    >>> sampler(numpy.arange(5), 0).tolist()
    [2, 0, 1, 3, 4]
    """

    def __init__(self, random_state=None):
        if random_state is None:
            random_state = numpy.random.random.__self__  # NumPy's global RandomState
        elif not callable(getattr(random_state, "permutation", None)):
            raise TypeError(
                f"ShuffleOrderSampler: random_state must be a numpy.random.RandomState, got "
                f"{type(random_state).__name__}\n  hint: e.g. numpy.random.RandomState(0), or None for "
                "NumPy's global random state"
            )
        self._random = random_state

    def __call__(self, current_order: numpy.ndarray, current_position: int) -> numpy.ndarray:
        return self._random.permutation(len(current_order))
