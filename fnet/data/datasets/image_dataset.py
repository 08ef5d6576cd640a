"""Datasets of image files, read with Pillow when an example is accessed: from paths
(``ImageDataset``, ``LabeledImageDataset``) or from zip archives (``ZippedImageDataset``,
``LabeledZippedImageDataset``, ``MultiZippedImageDataset``).

Each image is an array of shape ``(channels, height, width)``: 1 channel for a greyscale
image, 3 for RGB, 4 for RGBA. Images are not converted: a dataset mixing greyscale and colour
images gives arrays of different shapes. Pillow is an optional dependency; without it the
constructors raise ImportError.
"""

from __future__ import annotations

import bisect
import io
import os
import threading
import zipfile
from collections.abc import Sequence
from typing import Any

import numpy

from ...errors import message
from .dataset_mixin import DatasetMixin

__all__ = [
    "ImageDataset",
    "LabeledImageDataset",
    "ZippedImageDataset",
    "LabeledZippedImageDataset",
    "MultiZippedImageDataset",
]


def _pillow(op: str):
    """The ``PIL.Image`` module, or an ImportError saying how to install Pillow."""
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError(
            message(
                op,
                f"reading images needs Pillow, which cannot be imported ({e})",
                hint="install it: pip install Pillow",
            )
        ) from e
    return Image


def _float_dtype(dtype) -> numpy.dtype:
    """``dtype``, or float32 (Chainer's default ``config.dtype``) when it is None."""
    return numpy.dtype(numpy.float32 if dtype is None else dtype)


def _read_image(source, dtype: numpy.dtype) -> numpy.ndarray:
    """The image in ``source`` (a path or a binary file) as a ``(channels, height, width)`` array."""
    with _pillow("read_image").open(source) as image:
        array = numpy.asarray(image, dtype=dtype)
    if array.ndim == 2:  # greyscale: one channel
        array = array[:, :, None]
    return array.transpose(2, 0, 1)


def _read_pairs(op: str, path: str) -> list[tuple[str, int]]:
    """The ``(path, label)`` pairs of a text file of ``path label`` lines (Caffe's format)."""
    pairs = []
    with open(path) as pairs_file:
        for i, line in enumerate(pairs_file):
            fields = line.split()
            if len(fields) != 2:
                raise ValueError(
                    message(
                        op,
                        f"invalid format at line {i} in file {path}: expected 'path label', got {line!r}",
                    )
                )
            pairs.append((fields[0], int(fields[1])))
    return pairs


class ImageDataset(DatasetMixin):
    """The images at ``paths`` (a list, or the path of a text file with one path a line),
    each relative to ``root``, as ``(channels, height, width)`` arrays of ``dtype`` (float32
    when None).
    """

    def __init__(self, paths: str | Sequence[str], root: str = ".", dtype=None):
        _pillow("ImageDataset")
        if isinstance(paths, str):
            with open(paths) as paths_file:
                paths = [path.strip() for path in paths_file]
        self._paths = paths
        self._root = root
        self._dtype = _float_dtype(dtype)

    def __len__(self) -> int:
        return len(self._paths)

    def get_example(self, i: int) -> numpy.ndarray:
        return _read_image(os.path.join(self._root, self._paths[i]), self._dtype)


class LabeledImageDataset(DatasetMixin):
    """Pairs ``(image, label)``: ``pairs`` is a list of ``(path, int label)``, or the path of a
    text file of ``path label`` lines; images are read as in ``ImageDataset``, labels are 0-d
    arrays of ``label_dtype``."""

    def __init__(
        self, pairs: str | Sequence[tuple[str, int]], root: str = ".", dtype=None, label_dtype=numpy.int32
    ):
        _pillow("LabeledImageDataset")
        if isinstance(pairs, str):
            pairs = _read_pairs("LabeledImageDataset", pairs)
        self._pairs = pairs
        self._root = root
        self._dtype = _float_dtype(dtype)
        self._label_dtype = label_dtype

    def __len__(self) -> int:
        return len(self._pairs)

    def get_example(self, i: int) -> tuple[numpy.ndarray, numpy.ndarray]:
        path, label = self._pairs[i]
        image = _read_image(os.path.join(self._root, path), self._dtype)
        return image, numpy.array(label, dtype=self._label_dtype)


class ZippedImageDataset(DatasetMixin):
    """The images in the zip file ``zipfilename`` (every member but directories), in the
    archive's order, as in ``ImageDataset``.

    The archive is reopened in a process forked or unpickled from the one that opened it, so
    the dataset can be sent to iterator workers.
    """

    def __init__(self, zipfilename: str, dtype=None):
        _pillow("ZippedImageDataset")
        self._zipfilename = zipfilename
        self._zf: zipfile.ZipFile | None = zipfile.ZipFile(zipfilename)
        self._zf_pid = os.getpid()
        self._dtype = _float_dtype(dtype)
        self._paths = [name for name in self._zf.namelist() if not name.endswith("/")]
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._paths)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_zf"] = None
        state["_lock"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__ = state
        self._lock = threading.Lock()

    def get_example(self, i_or_filename: int | str) -> numpy.ndarray:
        """The image of index ``i`` in the archive, or of the member named ``i_or_filename``."""
        name = i_or_filename if isinstance(i_or_filename, str) else self._paths[i_or_filename]
        with self._lock:  # Pillow seeks in its input, which a member opened in a ZipFile cannot do
            if self._zf is None or self._zf_pid != os.getpid():
                self._zf_pid = os.getpid()
                self._zf = zipfile.ZipFile(self._zipfilename)
            data = self._zf.read(name)
        return _read_image(io.BytesIO(data), self._dtype)


class LabeledZippedImageDataset(DatasetMixin):
    """Pairs ``(image, label)`` whose images are members of the zip file ``zipfilename``, named
    with their labels in the text file ``labelfilename`` (``member label`` lines)."""

    def __init__(self, zipfilename: str, labelfilename: str, dtype=None, label_dtype=numpy.int32):
        _pillow("LabeledZippedImageDataset")
        self._pairs = _read_pairs("LabeledZippedImageDataset", labelfilename)
        self._label_dtype = label_dtype
        self._zipfile = ZippedImageDataset(zipfilename, dtype=dtype)

    def __len__(self) -> int:
        return len(self._pairs)

    def get_example(self, i: int) -> tuple[numpy.ndarray, numpy.ndarray]:
        name, label = self._pairs[i]
        return self._zipfile.get_example(name), numpy.array(label, dtype=self._label_dtype)


class MultiZippedImageDataset(DatasetMixin):
    """The images of several zip files (``zipfilenames``), one archive after the other."""

    def __init__(self, zipfilenames: Sequence[str], dtype=None):
        self._zfs = [ZippedImageDataset(name, dtype) for name in zipfilenames]
        self._offsets = [0]
        for zf in self._zfs:
            self._offsets.append(self._offsets[-1] + len(zf))

    def __len__(self) -> int:
        return self._offsets[-1]

    def get_example(self, i: int) -> Any:
        archive = bisect.bisect(self._offsets, i) - 1
        return self._zfs[archive].get_example(i - self._offsets[archive])
