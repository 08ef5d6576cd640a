"""Order samplers: the order in which an iterator visits a dataset's examples, epoch by epoch."""

from __future__ import annotations

import abc
import struct

import numpy

__all__ = ["OrderSampler", "ShuffleOrderSampler"]


class OrderSampler(abc.ABC):
    """Base class of order samplers: called at the start of every epoch for the next order.

    An iterator calls ``sampler(current_order, current_position)`` once when it is made or
    reset (with ``numpy.arange(len(dataset))`` and 0) and again whenever an epoch ends; the
    result is the 1-d array of dataset indices to visit in the next epoch. Its length is the
    epoch size and must stay the same from one epoch to the next.

    A sampler whose orders depend on a state of its own (a random generator) may expose it as
    a ``state`` attribute: a 1-d ``uint8`` array, read and set by the iterators. They save it in
    their snapshots (``order_sampler_state``) so that a resumed run visits the examples in the
    same orders as an uninterrupted one.
    """

    @abc.abstractmethod
    def __call__(self, current_order: numpy.ndarray, current_position: int) -> numpy.ndarray:
        """The order of the next epoch, given the order and position where the last one ended."""


class ShuffleOrderSampler(OrderSampler):
    """Visits the examples in a new random permutation every epoch.

    ``random_state`` is a ``numpy.random.RandomState`` (or a ``numpy.random.Generator``); by
    default NumPy's global one, so ``numpy.random.seed`` fixes the orders. ``state`` is the
    generator's state as bytes, which iterators save in snapshots and set back when they load
    one (with the global generator, loading a snapshot thus sets NumPy's global random state,
    as it was when the snapshot was taken).

    >>> sampler = ShuffleOrderSampler(numpy.random.RandomState(0))
    >>> sampler(numpy.arange(5), 0).tolist()
    [2, 0, 1, 3, 4]
    >>> saved = sampler.state
    >>> sampler(numpy.arange(5), 0).tolist()
    [0, 2, 1, 4, 3]
    >>> sampler.state = saved  # back to where it was: the same order again
    >>> sampler(numpy.arange(5), 0).tolist()
    [0, 2, 1, 4, 3]
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

    @property
    def state(self) -> numpy.ndarray | None:
        """The random generator's state, as a 1-d ``uint8`` array (None for a generator that is
        neither a ``RandomState`` nor a ``Generator``: its state is not saved)."""
        state = _generator_state(self._random)
        return None if state is None else numpy.frombuffer(b"".join(_state_bytes(state)), numpy.uint8).copy()

    @state.setter
    def state(self, value: numpy.ndarray) -> None:
        template = _generator_state(self._random)
        data = numpy.asarray(value, numpy.uint8).tobytes()
        if template is None:
            raise TypeError(
                f"ShuffleOrderSampler: the state of a {type(self._random).__name__} cannot be set\n"
                "  hint: use a numpy.random.RandomState or numpy.random.Generator"
            )
        expected = sum(map(len, _state_bytes(template)))
        if len(data) != expected:
            raise ValueError(
                f"ShuffleOrderSampler: a state of {len(data)} bytes was given to a "
                f"{template['bit_generator']} generator, whose state has {expected}\n"
                "  hint: the snapshot was taken with another kind of random generator"
            )
        state, _ = _state_from_bytes(template, data, 0)
        if isinstance(self._random, numpy.random.RandomState):
            self._random.set_state(state)
        else:
            self._random.bit_generator.state = state


def _generator_state(random) -> dict | None:
    """NumPy's description of a random generator's state (a dict), or None for other objects."""
    if isinstance(random, numpy.random.RandomState):
        return random.get_state(legacy=False)
    if isinstance(random, numpy.random.Generator):
        return random.bit_generator.state
    return None


# A state dict is saved as the bytes of its values in the order of its sorted keys (nested dicts
# in place): arrays little-endian, ints in 16 bytes (the 128-bit counters of PCG64), floats in 8.
# Names (the bit generator's) are left out; the dict of the generator being set gives the layout.


def _state_bytes(state: dict) -> list[bytes]:
    parts = []
    for key in sorted(state):
        value = state[key]
        if isinstance(value, dict):
            parts.extend(_state_bytes(value))
        elif isinstance(value, numpy.ndarray):
            parts.append(value.astype(value.dtype.newbyteorder("<"), copy=False).tobytes())
        elif isinstance(value, (int, numpy.integer)):
            parts.append(int(value).to_bytes(16, "little"))
        elif isinstance(value, (float, numpy.floating)):
            parts.append(struct.pack("<d", value))
    return parts


def _state_from_bytes(template: dict, data: bytes, offset: int) -> tuple[dict, int]:
    """A state dict of ``template``'s layout read from ``data`` at ``offset``, and the offset after it."""
    state = {}
    for key in sorted(template):
        value = template[key]
        if isinstance(value, dict):
            state[key], offset = _state_from_bytes(value, data, offset)
        elif isinstance(value, numpy.ndarray):
            dtype = value.dtype.newbyteorder("<")
            end = offset + value.size * dtype.itemsize
            state[key] = numpy.frombuffer(data[offset:end], dtype).astype(value.dtype).reshape(value.shape)
            offset = end
        elif isinstance(value, (int, numpy.integer)):
            state[key] = int.from_bytes(data[offset : offset + 16], "little")
            offset += 16
        elif isinstance(value, (float, numpy.floating)):
            (state[key],) = struct.unpack_from("<d", data, offset)
            offset += 8
        else:
            state[key] = value
    return state, offset
