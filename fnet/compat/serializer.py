"""``chainer.serializer``: the base classes of serializers and deserializers.

They are the classes of the core's serializer protocol (``fnet.serialization``), so an object
saved or loaded through either path sees the same types: ``isinstance`` works both ways.

>>> import fnet.serialization
>>> Serializer is fnet.serialization.Serializer
True
"""

from ..serialization import AbstractSerializer, Deserializer, Serializer

__all__ = ["AbstractSerializer", "Serializer", "Deserializer"]
