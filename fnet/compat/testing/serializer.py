"""Round trips through a serializer: save an object to a temporary file and load it into another."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable

from .. import serializers

__all__ = ["save_and_load", "save_and_load_npz", "save_and_load_hdf5"]


def save_and_load(src, dst, filename: str, saver: Callable, loader: Callable) -> None:
    """``saver(path, src)`` then ``loader(path, dst)``, with ``path`` a file called ``filename``
    in a temporary directory (removed afterwards): a check of ``serialize`` methods."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, filename)
        saver(path, src)
        loader(path, dst)


def save_and_load_npz(src, dst) -> None:
    """``save_and_load`` through an NPZ file (``serializers.save_npz``/``load_npz``)."""
    save_and_load(src, dst, "tmp.npz", serializers.save_npz, serializers.load_npz)


def save_and_load_hdf5(src, dst) -> None:
    """``save_and_load`` through an HDF5 file (``serializers.save_hdf5``/``load_hdf5``; needs h5py)."""
    save_and_load(src, dst, "tmp.h5", serializers.save_hdf5, serializers.load_hdf5)
