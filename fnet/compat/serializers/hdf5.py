"""Chainer's HDF5 serialization (with h5py): the object hierarchy becomes HDF5 groups.

A child serializer is a group named after the child (``/predictor/l1``), and each value a
dataset in it (``/predictor/l1/W``); a None value is an empty dataset. Without h5py installed,
every name here raises RuntimeError saying how to install it.
"""

from __future__ import annotations

import importlib.util
import io
import os
from collections.abc import Callable
from typing import Any, BinaryIO

import numpy

from ...errors import CheckpointError, ShapeError, message
from ...io.atomic import atomic_write
from ...serialization import Deserializer, Serializer, host_value, missing_entry, restore

__all__ = ["HDF5Serializer", "HDF5Deserializer", "save_hdf5", "load_hdf5"]


_available = importlib.util.find_spec("h5py") is not None  # Chainer's flag (h5py installed)


class HDF5ShapeError(ShapeError, TypeError):
    """A saved array of another shape than its target in ``load_hdf5``: a ShapeError that is
    also the TypeError Chainer's HDF5 loader (h5py's ``read_direct``) raises."""


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


def _unreadable(source: str, where: str, problem: str) -> CheckpointError:
    return CheckpointError(
        message(
            "HDF5Deserializer",
            f"'{source}' cannot be read at '{where}': {problem}",
            hint="the file is damaged (HDF5 files have no checksum: a damaged file may also load "
            "wrong values); use an earlier snapshot",
        )
    )


class HDF5Deserializer(Deserializer):
    """Deserializer that reads values from the datasets of ``group`` (an ``h5py.Group``).

    With ``strict=False``, values and children that the file lacks are skipped, keeping the
    object's values; with ``strict=True`` a missing dataset raises KeyError and a missing group
    ValueError, as in Chainer. A saved array of another shape than its target raises
    ``HDF5ShapeError`` (a TypeError, as in Chainer, and a ValueError); a dataset that cannot be
    read raises ``fnet.errors.CheckpointError`` naming the file and the dataset.
    """

    def __init__(self, group, strict: bool = True):
        self._h5py = _h5py("HDF5Deserializer")
        self.group = group
        self.strict = strict
        self._missing_group = ""

    def __getitem__(self, key: str) -> HDF5Deserializer:
        child = self._read(key, lambda: self.group.get(key)) if self.group is not None else None
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
        where = f"{self.group.name.rstrip('/')}/{key}"
        source = f"'{self.group.file.filename}'"
        if not self._read(key, lambda: key in self.group):
            if not self.strict:
                return value
            raise missing_entry(
                "HDF5Deserializer",
                where,
                source,
                "the object has a value the file lacks; pass strict=False to skip it",
            )
        dataset = self._read(key, lambda: self.group[key])
        if not isinstance(dataset, self._h5py.Dataset):
            raise _unreadable(
                self.group.file.filename, where, f"it is a {type(dataset).__name__}, not a dataset"
            )
        if dataset.shape is None:  # an empty dataset: the value was saved as None
            return None
        data = self._read(key, lambda: numpy.asarray(dataset))
        return restore("HDF5Deserializer", where, value, data, source, HDF5ShapeError)

    def _read(self, key: str, read: Callable[[], Any]) -> Any:
        """``read()``, an access to the file; h5py's errors (damage) become ``CheckpointError``."""
        try:
            return read()
        except (OSError, RuntimeError, KeyError, ValueError, TypeError) as error:
            where = f"{self.group.name.rstrip('/')}/{key}"
            raise _unreadable(self.group.file.filename, where, f"{type(error).__name__}: {error}") from error


def save_hdf5(filename: str | os.PathLike | BinaryIO, obj: Any, compression: int = 4) -> None:
    """Save ``obj`` (anything with ``serialize(serializer)``, or a dict of arrays keyed by path) to
    an HDF5 file, gzip-compressed at level ``compression``.

    The file is made in memory, then written atomically as ``fnet.io`` writes (a temporary file
    renamed over ``filename``): a failed save, a full disk or a file-size limit leaves the
    previous file whole and raises ``fnet.errors.CheckpointError``. A binary file object is
    written at its position.
    """
    h5py = _h5py("save_hdf5")
    image = io.BytesIO()
    with h5py.File(image, "w") as f:
        serializer = HDF5Serializer(f, compression=compression)
        if isinstance(obj, dict):
            for key, value in obj.items():
                serializer("/" + key.lstrip("/"), value)
        else:
            serializer.save(obj)
    data = image.getbuffer()
    if hasattr(filename, "write"):
        filename.write(data)
    else:
        atomic_write("save_hdf5", filename, lambda f: f.write(data))


def load_hdf5(filename: str | os.PathLike, obj: Any) -> None:
    """Load ``obj`` from an HDF5 file written by ``save_hdf5`` here or in Chainer.

    A file that cannot be opened or read raises ``fnet.errors.CheckpointError`` (an OSError)
    naming the file (and the dataset); see ``HDF5Deserializer`` for the other errors.
    """
    h5py = _h5py("load_hdf5")
    try:
        f = h5py.File(filename, "r")
    except (OSError, RuntimeError, ValueError) as error:
        raise CheckpointError(
            message(
                "load_hdf5",
                f"cannot open '{os.fspath(filename)}': {type(error).__name__}: {error}",
                hint="check the path; the file may be damaged or not be an HDF5 file",
            )
        ) from error
    with f:
        HDF5Deserializer(f).load(obj)
