"""Objects that follow the serializer protocol (``fnet.serialization``), saved as npz and loaded back.

The file holds one entry per value, keyed by Chainer's paths (``predictor/l1/W``, an optimizer's
``predictor/l1/W/m``, ``t``), so files written here load in Chainer's ``serializers.load_npz``
and Chainer's files load here; the Chainer layer's ``save_npz`` / ``load_npz`` are these two
functions. Writes to a path are atomic; nothing is ever unpickled.

>>> import io, numpy
>>> class Counter:
...     def __init__(self):
...         self.steps, self.total = 3, numpy.arange(2.0)
...     def serialize(self, serializer):
...         self.steps = serializer("steps", self.steps)
...         serializer("total", self.total)
>>> f = io.BytesIO()
>>> save_object(f, Counter())
>>> fresh = Counter()
>>> fresh.steps, fresh.total[...] = 0, 0.0
>>> load_object(io.BytesIO(f.getvalue()), fresh)
>>> fresh.steps, fresh.total
(3, array([0., 1.]))
"""

from __future__ import annotations

import os
from typing import Any, BinaryIO

from ..serialization import IgnoreNames, NpzDeserializer, host_value, is_saved_none, serialize
from .npz import NpzEntries, save_npz

__all__ = ["save_object", "load_object"]

_File = str | os.PathLike | BinaryIO


def save_object(file: _File, obj: Any, compression: bool = True) -> None:
    """Save ``obj`` (anything with ``serialize(serializer)``, or the dict of arrays that
    ``fnet.serialization.serialize`` makes) to an npz file.

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
    save_npz(file, entries, compression=compression)


def load_object(
    file: _File, obj: Any, path: str = "", strict: bool = True, ignore_names: IgnoreNames = None
) -> None:
    """Load ``obj`` from an npz file written by ``save_object`` (or Chainer's ``save_npz``).

    ``path`` selects the entries under a prefix (e.g. ``'updater/model:main/'`` in a trainer
    snapshot); ``strict=False`` skips values the file lacks; ``ignore_names`` skips the named
    entries (see ``fnet.serialization.NpzDeserializer``). Only the entries ``obj`` asks for are
    read. Arrays are copied into ``obj``'s arrays in place; an uninitialized parameter is
    initialized with the saved shape; Chainer's None entries (recognised by their bytes, never
    unpickled) leave the value as it is. A missing entry raises KeyError, an array of another
    shape ValueError, an unsafe cast TypeError; a file or an entry that cannot be read (damaged,
    or holding pickled objects other than None) raises ``fnet.errors.CheckpointError`` (an
    OSError) naming both.
    """
    with NpzEntries(file, "load_npz") as entries:
        NpzDeserializer(entries, path, strict, ignore_names).load(obj)
