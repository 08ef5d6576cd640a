"""The serializer protocol: objects saved to (and loaded from) flat dicts of arrays keyed by path.

An object that can be saved defines ``serialize(serializer)`` and, inside it, passes each of its
values through ``serializer(key, value)`` and each of its children through
``child.serialize(serializer[name])``. The same method then works both ways: a ``Serializer``
records the values it is given, a ``Deserializer`` returns (or copies into arrays in place) the
values it reads. ``DictionarySerializer`` flattens an object into a dict keyed by Chainer's
paths (``updater/model:main/l1/W``) and ``NpzDeserializer`` reads such a dict back; files in that
layout are written and read by ``fnet.io`` (``save_object`` / ``load_object``). The Chainer
layer's ``chainer.serializer`` and ``chainer.serializers`` are these same classes.

>>> import numpy
>>> class Counter:
...     def __init__(self, count):
...         self.count, self.total = count, numpy.zeros(2)
...     def serialize(self, serializer):
...         self.count = serializer("count", self.count)
...         serializer("total", self.total)
>>> saved = serialize(Counter(3))
>>> saved
{'count': array(3), 'total': array([0., 0.])}
>>> fresh = Counter(0)
>>> NpzDeserializer(saved).load(fresh)
>>> fresh.count
3
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from typing import Any

import numpy

from . import backend
from .errors import DTypeError, ShapeError, message

__all__ = [
    "AbstractSerializer",
    "Serializer",
    "Deserializer",
    "DictionarySerializer",
    "NpzDeserializer",
    "serialize",
    "host_value",
    "is_saved_none",
    "restore",
    "MissingEntryError",
    "missing_entry",
]

IgnoreNames = str | Callable[[str], bool] | list | tuple | None


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


# -- values on their way to a file and back ----------------------------------------------------
class MissingEntryError(KeyError):
    """A KeyError whose text reads as a message (KeyError alone would show it as a quoted repr)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def missing_entry(op: str, key: str, source: str, hint: str) -> MissingEntryError:
    """The error for an entry that a strict deserializer needs and ``source`` does not hold."""
    return MissingEntryError(message(op, f"'{key}' is not in {source}", hint=hint))


def host_value(value: Any) -> numpy.ndarray:
    """``value`` as a NumPy array, as it is written to a file (a GPU array is copied to the host)."""
    if backend.is_array(value):
        return numpy.asarray(backend.to_cpu(value))
    return numpy.asarray(value)


def is_saved_none(array: numpy.ndarray) -> bool:
    """Whether ``array`` is how Chainer's DictionarySerializer keeps None (``numpy.asarray(None)``)."""
    return array.dtype.hasobject and array.ndim == 0 and array[()] is None


def _is_array_target(value: Any) -> bool:
    """Whether loading into ``value`` copies in place (an array) rather than converting (a scalar)."""
    return backend.is_array(value) and not isinstance(value, numpy.generic)


def restore(op: str, key: str, value: Any, loaded: Any, source: str, shape_error: type = ShapeError) -> Any:
    """Put the ``loaded`` data of entry ``key`` where ``value`` was, as Chainer's deserializers do.

    An array ``value`` gets the data copied into it in place and is returned: the data must have
    its shape (an error of type ``shape_error`` otherwise, a ValueError as in Chainer's npz
    loader; no broadcasting, unlike NumPy's ``copyto``) and cast to its dtype by the
    ``same_kind`` rule. A scalar or string ``value`` gives the loaded data converted to its type
    (numbers only where the cast is safe); ``value=None`` gives the loaded array as it is; data
    saved as None (None, or Chainer's ``numpy.asarray(None)``) gives None.
    """
    if loaded is None:
        return None
    data = numpy.asarray(loaded) if not backend.is_array(loaded) else loaded
    if is_saved_none(data):
        return None
    if value is None:
        return loaded
    where = f"cannot load '{key}' from {source}"
    if _is_array_target(value):
        if data.shape != value.shape:
            raise shape_error(
                message(
                    op,
                    f"{where}: the saved array has shape {data.shape} where the target has shape "
                    f"{value.shape}",
                    {"saved": data, "target": value},
                    hint="the object was built with other sizes than the saved one: build it with the "
                    "saved sizes",
                )
            )
        if not numpy.can_cast(data.dtype, value.dtype, "same_kind"):
            raise DTypeError(
                message(
                    op,
                    f"{where}: {data.dtype} data cannot be cast to the target's dtype {value.dtype}",
                    {"saved": data, "target": value},
                    hint="NumPy's same_kind rule applies (e.g. float data never goes into an int array)",
                )
            )
        device = backend.get_device_from_array(value)
        device.xp.copyto(value, device.send(data))
        return value
    if not numpy.isscalar(value):
        return type(value)(data)
    host = host_value(data)
    kind = type(value)
    if (
        issubclass(host.dtype.type, numpy.number)
        and not (issubclass(host.dtype.type, numpy.integer) and kind is int)
        and not numpy.can_cast(host.dtype, kind, "safe")
    ):
        raise DTypeError(
            message(
                op,
                f"{where}: {host.dtype} data cannot be safely converted to {kind.__name__}",
                {"saved": host},
                hint=f"the saved value is not a {kind.__name__}; set the attribute to a value of the "
                "saved type before loading",
            )
        )
    if host.size != 1:
        raise DTypeError(
            message(
                op,
                f"{where}: the saved array has {host.size} elements where a {kind.__name__} is loaded",
                {"saved": host, "target": value},
                hint="the entry holds an array: make the attribute an array of the saved shape",
            )
        )
    return kind(host.item())


# -- the flat dict of arrays ----------------------------------------------------------------------
class DictionarySerializer(Serializer):
    """Serializer that flattens an object into ``target``, a dict of host arrays keyed by path.

    ``target`` (a new dict when None) maps ``path + key`` to a NumPy array: GPU arrays are copied
    to the host, scalars and strings become 0-d arrays, and None becomes Chainer's
    ``numpy.asarray(None)``. ``fnet.io.save_object`` writes the dict to an npz file.

    >>> import numpy
    >>> s = DictionarySerializer()
    >>> s["l1"]("W", numpy.zeros((1, 2), numpy.float32)) is not None
    True
    >>> s("t", 5)
    5
    >>> s.target
    {'l1/W': array([[0., 0.]], dtype=float32), 't': array(5)}
    """

    def __init__(self, target: dict | None = None, path: str = ""):
        self.target = {} if target is None else target
        self.path = path

    def __getitem__(self, key: str) -> DictionarySerializer:
        return DictionarySerializer(self.target, self.path + key.strip("/") + "/")

    def __call__(self, key: str, value: Any) -> Any:
        self.target[self.path + key.lstrip("/")] = host_value(value)
        return value


def serialize(obj: Any) -> dict:
    """The dict of host arrays that ``obj.serialize`` gives a ``DictionarySerializer``, keyed by
    Chainer's paths (what ``fnet.io.save_object`` writes).

    >>> class Counter:
    ...     def serialize(self, serializer):
    ...         serializer("count", 3)
    >>> serialize(Counter())
    {'count': array(3)}
    """
    serializer = DictionarySerializer()
    serializer.save(obj)
    return serializer.target


def _ignore_rules(ignore_names: IgnoreNames) -> tuple:
    """``ignore_names`` as a tuple of names and callables, checked."""
    if ignore_names is None:
        return ()
    rules = tuple(ignore_names) if isinstance(ignore_names, (list, tuple)) else (ignore_names,)
    for rule in rules:
        if not (isinstance(rule, str) or callable(rule)):
            raise ValueError(
                message(
                    "NpzDeserializer",
                    f"ignore_names must be a name, a callable or a list of them, got {type(rule).__name__} "
                    f"{rule!r}",
                    hint="e.g. ignore_names=['predictor/l1/W', lambda key: key.endswith('/b')]",
                )
            )
    return rules


class NpzDeserializer(Deserializer):
    """Deserializer that reads values from ``npz``, a mapping from Chainer's keys to arrays.

    ``npz`` is the dict a ``DictionarySerializer`` made, what ``numpy.load`` gives for an npz
    file, or ``fnet.io.NpzEntries`` (whose ``source``, the file, is named in messages).
    ``path`` is prepended as it is to every key (so it ends with ``/``, e.g.
    ``'updater/model:main/'``). With ``strict=False``, keys that ``npz`` lacks are skipped,
    keeping the object's values. ``ignore_names`` (a full key, a callable taking the full key and
    returning True to skip it, or a list of them) names entries that are never read.
    """

    def __init__(self, npz: Mapping, path: str = "", strict: bool = True, ignore_names: IgnoreNames = None):
        self.npz = npz
        self.path = path
        self.strict = strict
        self.ignore_names = [] if ignore_names is None else ignore_names
        self._rules = _ignore_rules(ignore_names)
        self._prefix = path  # the path the user gave (children extend ``path``), for messages

    def __getitem__(self, key: str) -> NpzDeserializer:
        child = NpzDeserializer(
            self.npz, self.path + key.strip("/") + "/", strict=self.strict, ignore_names=self.ignore_names
        )
        child._prefix = self._prefix
        return child

    def __call__(self, key: str, value: Any) -> Any:
        key = self.path + key.lstrip("/")
        if not self.strict and key not in self.npz:
            return value
        if any(rule == key if isinstance(rule, str) else rule(key) for rule in self._rules):
            return value
        source = getattr(self.npz, "source", None)
        source = "the npz" if source is None else f"'{source}'"
        if key not in self.npz:
            prefix = self._prefix
            prefix_hint = (
                f"path={prefix!r} is prepended as it is: did you mean {prefix + '/'!r}? "
                if prefix and not prefix.endswith("/")
                else "check path= (the prefix of the object's entries in the file); "
            )
            raise missing_entry(
                "NpzDeserializer",
                key,
                source,
                prefix_hint + "pass strict=False to skip entries the file lacks, or ignore_names= to skip "
                "this one",
            )
        return restore("NpzDeserializer", key, value, self.npz[key], source)
