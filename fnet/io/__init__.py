"""Checkpoints: a pytree saved to one file and loaded back, safely (msgpack, never pickle), or as npz.

``save(path, tree)`` writes fnet's own format and ``load(path, like=None)`` reads it back
(``fnet.io.checkpoint`` describes the format); ``save_npz``, ``load_npz`` and ``open_npz`` read
and write NumPy's npz with Chainer's keys (``fnet.io.npz``); ``save_object`` and ``load_object``
save an object that follows the serializer protocol (``fnet.serialization``) in that npz layout and
load it back in place (``fnet.io.objects``). Every write to a path is atomic
(``fnet.io.atomic``): a crash or an error never leaves a half-written file. Every problem with a
file raises ``fnet.errors.CheckpointError`` naming the file and what is wrong.

>>> import os, tempfile, numpy
>>> path = os.path.join(tempfile.mkdtemp(), "model.ckpt")
>>> save(path, {"l1": {"W": numpy.ones((2, 3), numpy.float32)}, "step": 10})
>>> load(path)["step"]
10
"""

from __future__ import annotations

from .checkpoint import load, save
from .npz import NpzEntries, load_npz, open_npz, save_npz
from .objects import load_object, save_object

__all__ = ["save", "load", "save_npz", "load_npz", "open_npz", "NpzEntries", "save_object", "load_object"]
