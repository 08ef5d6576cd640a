"""Chainer's serializer protocol: the base classes every serializer and deserializer derives from.

An object that can be saved defines ``serialize(serializer)`` and, inside it, passes each of its
values through ``serializer(key, value)`` and each of its children through
``child.serialize(serializer[name])``. The same method then works both ways: a ``Serializer``
records the values it is given, a ``Deserializer`` returns (or copies into arrays in place) the
values it reads. Concrete formats live in ``fnet.compat.serializers`` (npz, HDF5).

>>> class Recorder(Serializer):
...     def __init__(self, path=""):
...         self.path = path
...     def __getitem__(self, key):
...         return Recorder(self.path + key + "/")
...     def __call__(self, key, value):
...         print(self.path + key, value)
...         return value
>>> class Counter:
...     def __init__(self):
...         self.count = 3
...     def serialize(self, serializer):
...         self.count = serializer("count", self.count)
>>> Recorder()["counter"].save(Counter())
counter/count 3
"""

from __future__ import annotations

import abc
from typing import Any

__all__ = ["AbstractSerializer", "Serializer", "Deserializer"]


class AbstractSerializer(abc.ABC):
    """What serializers and deserializers have in common: children by name, values by key."""

    @abc.abstractmethod
    def __getitem__(self, key: str) -> AbstractSerializer:
        """The child serializer for the sub-object named ``key`` (its keys are prefixed by it)."""

    @abc.abstractmethod
    def __call__(self, key: str, value: Any) -> Any:
        """Save or load the value named ``key``.

        A serializer saves ``value`` and returns it. A deserializer copies the loaded data into
        ``value`` in place when ``value`` is an array, converts it to ``type(value)`` when it is
        a scalar or a string, and returns the result; with ``value=None`` it returns the loaded
        array as it is, and a value saved as None loads as None.
        """


class Serializer(AbstractSerializer):
    """Base class of serializers: they record what objects hand them."""

    def save(self, obj: Any) -> None:
        """Save ``obj`` through this serializer (it calls ``obj.serialize(self)``)."""
        obj.serialize(self)


class Deserializer(AbstractSerializer):
    """Base class of deserializers: they give objects their saved values back."""

    def load(self, obj: Any) -> None:
        """Load ``obj`` from this deserializer (it calls ``obj.serialize(self)``)."""
        obj.serialize(self)
