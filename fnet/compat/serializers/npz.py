"""Chainer's NPZ serialization: ``save_npz`` / ``load_npz`` and the (de)serializers behind them.

Keys are Chainer's: each child adds its name and ``/`` (``predictor/l1/W``, an optimizer's
``predictor/l1/W/m``, ``t``), so files written here load in Chainer and Chainer's files load
here. The file itself is read and written by ``fnet.io`` (atomic writes to a path; nothing is
ever unpickled).

>>> import io, numpy
>>> class Counter:
...     def __init__(self):
...         self.steps, self.total = 3, numpy.arange(2.0)
...     def serialize(self, serializer):
...         self.steps = serializer("steps", self.steps)
...         serializer("total", self.total)
>>> f = io.BytesIO()
>>> save_npz(f, Counter())
>>> fresh = Counter()
>>> fresh.steps, fresh.total[...] = 0, 0.0
>>> load_npz(io.BytesIO(f.getvalue()), fresh)
>>> fresh.steps, fresh.total
(3, array([0., 1.]))
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, BinaryIO

from ... import io as _io
from ...errors import message
from ..serializer import Deserializer, Serializer
from ._common import host_value, is_saved_none, missing_entry, restore

__all__ = ["DictionarySerializer", "NpzDeserializer", "serialize", "save_npz", "load_npz"]

_File = str | os.PathLike | BinaryIO
IgnoreNames = str | Callable[[str], bool] | list | tuple | None


class DictionarySerializer(Serializer):
    """Serializer that flattens an object into ``target``, a dict of host arrays keyed by path.

    ``target`` (a new dict when None) maps ``path + key`` to a NumPy array: GPU arrays are copied
    to the host, scalars and strings become 0-d arrays, and None becomes Chainer's
    ``numpy.asarray(None)``. The dict can be handed to ``save_npz`` (or ``numpy.savez``).

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

    ``npz`` is what ``numpy.load`` gives for an npz file, or any dict of arrays (``load_npz``
    passes the entries of the file). ``path`` is prepended as it is to every key (so it ends with
    ``/``, e.g. ``'updater/model:main/'``). With ``strict=False``, keys that ``npz`` lacks are
    skipped, keeping the object's values. ``ignore_names`` (a full key, a callable taking the
    full key and returning True to skip it, or a list of them) names entries that are never read.
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
        source = f"'{self.npz.source}'" if isinstance(self.npz, _io.NpzEntries) else "the npz"
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


def save_npz(file: _File, obj: Any, compression: bool = True) -> None:
    """Save ``obj`` (anything with ``serialize(serializer)``, or a dict of arrays) to an npz file.

    ``file`` is a path, written atomically (a crash never leaves half a file), or a binary file
    object, written at its position. ``compression`` deflates the members. Values that are None
    (an uninitialized parameter) are left out of the file: Chainer writes them as pickled
    objects, and fnet never pickles.
    """
    target = obj if isinstance(obj, dict) else serialize(obj)
    entries = {}
    for key, value in target.items():
        array = host_value(value)
        if not is_saved_none(array):
            entries[key] = array
    _io.save_npz(file, entries, compression=compression)


def serialize(obj: Any) -> dict:
    """The dict of host arrays that ``obj.serialize`` gives a ``DictionarySerializer`` (what
    ``save_npz`` writes), keyed by Chainer's paths.

    >>> import numpy
    >>> class Counter:
    ...     def serialize(self, serializer):
    ...         serializer("count", 3)
    >>> serialize(Counter())
    {'count': array(3)}
    """
    serializer = DictionarySerializer()
    serializer.save(obj)
    return serializer.target


def load_npz(
    file: _File, obj: Any, path: str = "", strict: bool = True, ignore_names: IgnoreNames = None
) -> None:
    """Load ``obj`` from an npz file written by ``save_npz`` here or in Chainer.

    ``path`` selects the entries under a prefix (e.g. ``'updater/model:main/'`` in a trainer
    snapshot); ``strict=False`` skips values the file lacks; ``ignore_names`` skips the named
    entries (see ``NpzDeserializer``). Only the entries ``obj`` asks for are read. Arrays are
    copied into ``obj``'s arrays in place; an uninitialized parameter is initialized with the
    saved shape; Chainer's None entries (recognised by their bytes, never unpickled) leave the
    value as it is. A missing entry raises KeyError, an array of another shape ValueError, an
    unsafe cast TypeError; a file or an entry that cannot be read (damaged, or holding pickled
    objects other than None) raises ``fnet.errors.CheckpointError`` (an OSError) naming both.
    """
    with _io.NpzEntries(file, "load_npz") as entries:
        NpzDeserializer(entries, path, strict, ignore_names).load(obj)
