"""``chainer.iterators``: the dataset iterators and order samplers of fnet.data."""

from ..data.iterators import (
    MultiprocessIterator,
    MultithreadIterator,
    OrderSampler,
    SerialIterator,
    ShuffleOrderSampler,
)

__all__ = [
    "SerialIterator",
    "MultiprocessIterator",
    "MultithreadIterator",
    "OrderSampler",
    "ShuffleOrderSampler",
]
