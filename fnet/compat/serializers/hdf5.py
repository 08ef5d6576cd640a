"""Chainer's HDF5 serialization (with h5py): the object hierarchy becomes HDF5 groups.

A child serializer is a group named after the child (``/predictor/l1``), and each value a
dataset in it (``/predictor/l1/W``); a None value is an empty dataset. Without h5py installed,
every name here raises RuntimeError saying how to install it.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import numpy

from ...errors import message
from ..serializer import Deserializer, Serializer
from ._common import host_value, missing_entry, restore

__all__ = ["HDF5Serializer", "HDF5Deserializer", "save_hdf5", "load_hdf5"]


_available = importlib.util.find_spec("h5py") is not None  # Chainer's flag (h5py installed)


def _h5py(op: str):
    """The h5py module (imported on first use: it is optional, as in Chainer)."""
    try:
        import h5py
    except ImportError as error:
        raise RuntimeError(
            message(op, "h5py is not installed, and HDF5 serialization needs it", hint="pip install h5py")
        ) from error
    return h5py


class HDF5Serializer(Serializer):
    """Serializer that writes values as datasets of ``group`` (an ``h5py.Group``), gzip-compressed
    at level ``compression`` (values of one element are never compressed)."""

    def __init__(self, group, compression: int = 4):
        self._h5py = _h5py("HDF5Serializer")
        self.group = group
        self.compression = compression

    def __getitem__(self, key: str) -> HDF5Serializer:
        return HDF5Serializer(self.group.require_group(key), self.compression)

    def __call__(self, key: str, value: Any) -> Any:
        if value is None:
            data, compression = self._h5py.Empty("f"), None
        else:
            data = host_value(value)
            compression = None if data.size <= 1 else self.compression
        self.group.create_dataset(key, data=data, compression=compression)
        return value


class HDF5Deserializer(Deserializer):
    """Deserializer that reads values from the datasets of ``group`` (an ``h5py.Group``).

    With ``strict=False``, values and children that the file lacks are skipped, keeping the
    object's values; with ``strict=True`` a missing dataset raises KeyError and a missing group
    ValueError, as in Chainer.
    """

    def __init__(self, group, strict: bool = True):
        self._h5py = _h5py("HDF5Deserializer")
        self.group = group
        self.strict = strict
        self._missing_group = ""

    def __getitem__(self, key: str) -> HDF5Deserializer:
        child = self.group.get(key) if self.group is not None else None
        result = HDF5Deserializer(child if isinstance(child, self._h5py.Group) else None, strict=self.strict)
        if result.group is None:
            result._missing_group = self._missing_group or f"{self.group.name.rstrip('/')}/{key}"
        return result

    def __call__(self, key: str, value: Any) -> Any:
        if self.group is None:
            if not self.strict:
                return value
            raise ValueError(
                message(
                    "HDF5Deserializer",
                    f"cannot load '{key}': the file has no group '{self._missing_group}'",
                    hint="the object has a child the file lacks; pass strict=False to skip it",
                )
            )
        source = f"'{self.group.file.filename}'"
        if key not in self.group:
            if not self.strict:
                return value
            raise missing_entry(
                "HDF5Deserializer",
                f"{self.group.name.rstrip('/')}/{key}",
                source,
                "the object has a value the file lacks; pass strict=False to skip it",
            )
        dataset = self.group[key]
        if dataset.shape is None:  # an empty dataset: the value was saved as None
            return None
        return restore("HDF5Deserializer", key, value, numpy.asarray(dataset), source)


def save_hdf5(filename: str | os.PathLike, obj: Any, compression: int = 4) -> None:
    """Save ``obj`` (anything with ``serialize(serializer)``, or a dict of arrays keyed by path) to
    an HDF5 file, gzip-compressed at level ``compression``."""
    with _h5py("save_hdf5").File(filename, "w") as f:
        serializer = HDF5Serializer(f, compression=compression)
        if isinstance(obj, dict):
            for key, value in obj.items():
                serializer("/" + key.lstrip("/"), value)
        else:
            serializer.save(obj)


def load_hdf5(filename: str | os.PathLike, obj: Any) -> None:
    """Load ``obj`` from an HDF5 file written by ``save_hdf5`` here or in Chainer."""
    with _h5py("load_hdf5").File(filename, "r") as f:
        HDF5Deserializer(f).load(obj)
