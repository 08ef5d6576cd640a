"""Dataset iterators (Chainer's ``chainer.iterators``) and the order samplers they use."""

from .multiprocess_iterator import MultiprocessIterator
from .multithread_iterator import MultithreadIterator
from .order_samplers import OrderSampler, ShuffleOrderSampler
from .serial_iterator import SerialIterator

__all__ = [
    "SerialIterator",
    "MultiprocessIterator",
    "MultithreadIterator",
    "OrderSampler",
    "ShuffleOrderSampler",
]
