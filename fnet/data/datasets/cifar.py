"""CIFAR-10 and CIFAR-100: 32x32 colour images in 10 or 100 classes, 50000 for training and
10000 for test, cached where Chainer caches them.

Each dataset is kept as ``<root>/pfnet/chainer/cifar/cifar-10.npz`` (``cifar-100.npz``) with
the uint8 arrays ``train_x`` (N, 3072), ``train_y`` (N,), ``test_x`` and ``test_y``; a file
made by Chainer is read as it is. fnet makes it from the dataset's *binary* archive,
``<name>-binary.tar.gz``, downloaded into ``<root>/_dl_cache`` and checked against its
published SHA-256 (Chainer reads the ``python`` archive, whose batches are pickles; fnet never
unpickles). Each member of that archive is a run of fixed-size records: the label byte(s),
then the 3072 pixel bytes (1024 red, 1024 green, 1024 blue, each plane row-major), which are
a row of ``train_x`` as they stand. CIFAR-100's records hold its coarse label, then its fine
label; the cache keeps the fine labels (100 classes), as Chainer does.
"""

from __future__ import annotations

import tarfile
from typing import NamedTuple

import numpy

from ...errors import message
from ..download import DatasetCacheError
from ._cache import Remote, cached_npz, check_choice, scale_images
from .tuple_dataset import TupleDataset

__all__ = ["get_cifar10", "get_cifar100"]

# The binary archives' SHA-256 are those TensorFlow Datasets checks when it downloads them
# (tensorflow/datasets, tensorflow_datasets/url_checksums/cifar10.txt and cifar100.txt, which
# give 170052171 and 168513733 bytes).
_REMOTE = Remote(
    "https://www.cs.toronto.edu/~kriz/",
    {
        "cifar-10-binary.tar.gz": "c4a38c50a1bc5f3a1c5537f2155ab9d68f9f25eb1ed8d9ddda3db29a59bca1dd",
        "cifar-100-binary.tar.gz": "58a81ae192c23a4be8b1804d68e518ed807d710a4eb253b1f2a199162a40d8ec",
    },
)

_PIXELS = 3072  # bytes of an image: 3 planes of 32x32


class _Layout(NamedTuple):
    """A binary archive's members of the training set and of the test set, in the order of
    their images, and the number of label bytes of a record (the last one is kept)."""

    train: tuple[str, ...]
    test: tuple[str, ...]
    label_bytes: int


# The CIFAR page describes the binary and the python archives as versions of the same data,
# in files of the same names and image counts, but does not say that their images come in the
# same order: that is assumed here (so that fnet's cache file is the one Chainer makes).
_LAYOUT = {
    "cifar-10": _Layout(
        tuple(f"cifar-10-batches-bin/data_batch_{i}.bin" for i in range(1, 6)),
        ("cifar-10-batches-bin/test_batch.bin",),
        1,
    ),
    "cifar-100": _Layout(("cifar-100-binary/train.bin",), ("cifar-100-binary/test.bin",), 2),
}


def _make_npz(op: str, name: str) -> dict:
    """The arrays of the cache file, read from the downloaded binary archive."""
    file_name = f"{name}-binary.tar.gz"
    path = _REMOTE.fetch(file_name)
    layout = _LAYOUT[name]
    record = layout.label_bytes + _PIXELS

    def corrupt(problem: str) -> DatasetCacheError:
        where = f"the download of {_REMOTE.base}{file_name} ({path})"
        return DatasetCacheError(message(op, f"{where} {problem}", hint="delete it to download it again"))

    def read(archive: tarfile.TarFile, members: tuple[str, ...]):
        xs, ys = [], []
        for member in members:
            stream = archive.extractfile(member)
            if stream is None:
                raise corrupt(f"has a member {member} that is not a file")
            data = stream.read()
            if not data or len(data) % record:
                raise corrupt(
                    f"has a member {member} of {len(data)} bytes: expected a positive multiple of "
                    f"{record} (records of {layout.label_bytes} label byte(s) and {_PIXELS} pixel bytes)"
                )
            records = numpy.frombuffer(data, dtype=numpy.uint8).reshape(-1, record)
            xs.append(records[:, layout.label_bytes :])
            ys.append(records[:, layout.label_bytes - 1])
        return numpy.concatenate(xs), numpy.concatenate(ys)

    try:
        with tarfile.open(path, "r:gz") as archive:
            train_x, train_y = read(archive, layout.train)
            test_x, test_y = read(archive, layout.test)
    except DatasetCacheError:
        raise
    except (OSError, EOFError, KeyError, tarfile.TarError) as e:
        raise corrupt(f"is not a readable {name} binary archive: {e!r}") from e
    return {"train_x": train_x, "train_y": train_y, "test_x": test_x, "test_y": test_y}


def _get_cifar(op: str, name: str, withlabel: bool, ndim: int, scale: float, dtype):
    check_choice(op, "ndim", ndim, (1, 3))
    raw = cached_npz(
        op,
        "pfnet/chainer/cifar",
        f"{name}.npz",
        ("train_x", "train_y", "test_x", "test_y"),
        lambda: _make_npz(op, name),
    )
    shape = (-1, 3072) if ndim == 1 else (-1, 3, 32, 32)
    splits = []
    for split in ("train", "test"):
        images = scale_images(raw[f"{split}_x"].reshape(shape), scale, dtype)
        splits.append(TupleDataset(images, raw[f"{split}_y"].astype(numpy.int32)) if withlabel else images)
    return tuple(splits)


def get_cifar10(withlabel: bool = True, ndim: int = 3, scale: float = 1.0, dtype=None):
    """CIFAR-10: ``(train, test)``, 50000 and 10000 colour images of 10 classes.

    Args:
        withlabel: if True, each dataset is a TupleDataset of ``(image, int32 label)``;
            otherwise an array of images.
        ndim: the shape of an image: 1 gives ``(3072,)``, 3 gives ``(3, 32, 32)``.
        scale: pixel values are scaled from [0, 255] to [0, scale].
        dtype: the images' dtype (float32 when None; ``chainer.datasets.get_cifar10`` takes
            ``chainer.config.dtype``).
    """
    return _get_cifar("get_cifar10", "cifar-10", withlabel, ndim, scale, dtype)


def get_cifar100(withlabel: bool = True, ndim: int = 3, scale: float = 1.0, dtype=None):
    """CIFAR-100: ``(train, test)``, 50000 and 10000 colour images of 100 (fine) classes, with
    the arguments of ``get_cifar10``."""
    return _get_cifar("get_cifar100", "cifar-100", withlabel, ndim, scale, dtype)
