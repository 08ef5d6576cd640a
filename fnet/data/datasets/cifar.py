"""CIFAR-10 and CIFAR-100: 32x32 colour images in 10 or 100 classes, 50000 for training and
10000 for test, downloaded and cached as Chainer does.

Each dataset is kept as ``<root>/pfnet/chainer/cifar/cifar-10.npz`` (``cifar-100.npz``) with
the uint8 arrays ``train_x`` (N, 3072), ``train_y`` (N,), ``test_x`` and ``test_y``, made from
the ``<name>-python.tar.gz`` archive downloaded into ``<root>/_dl_cache`` (and checked against
its published SHA-256). CIFAR-100's labels are its 100 fine classes.

.. warning:: The archive holds Python pickles (the dataset's own format), which are loaded
   when the cache file is made: reading a pickle can run code. A download is only kept if it is
   the official archive (its SHA-256 is checked), but a file put in the download cache by hand
   or by another program is trusted as it is.
"""

from __future__ import annotations

import pickle
import tarfile

import numpy

from ...errors import message
from ..download import DatasetCacheError
from ._cache import Remote, cached_npz, check_choice, scale_images
from .tuple_dataset import TupleDataset

__all__ = ["get_cifar10", "get_cifar100"]

# The archives' SHA-256 are those of Keras (tensorflow/tensorflow,
# tensorflow/python/keras/datasets/cifar10.py and cifar100.py); torchvision has the same
# (pytorch/vision, torchvision/prototype/datasets/_builtin/cifar.py).
_REMOTE = Remote(
    "https://www.cs.toronto.edu/~kriz/",
    {
        "cifar-10-python.tar.gz": "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce",
        "cifar-100-python.tar.gz": "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7",
    },
)

# for each dataset: the archive's members of the training set, of the test set, and the label key
_LAYOUT = {
    "cifar-10": (
        [f"cifar-10-batches-py/data_batch_{i}" for i in range(1, 6)],
        ["cifar-10-batches-py/test_batch"],
        "labels",
    ),
    "cifar-100": (["cifar-100-python/train"], ["cifar-100-python/test"], "fine_labels"),
}


def _make_npz(op: str, name: str) -> dict:
    """The arrays of the cache file, read from the downloaded archive."""
    url = f"{_REMOTE.base}{name}-python.tar.gz"
    path = _REMOTE.fetch(f"{name}-python.tar.gz")
    train_members, test_members, label_key = _LAYOUT[name]

    def read(archive, members):
        xs, ys = [], []
        for member in members:
            batch = pickle.load(archive.extractfile(member), encoding="latin-1")
            xs.append(numpy.asarray(batch["data"], dtype=numpy.uint8).reshape(-1, 3072))
            ys.append(numpy.asarray(batch[label_key], dtype=numpy.uint8))
        return numpy.concatenate(xs), numpy.concatenate(ys)

    try:
        with tarfile.open(path, "r:gz") as archive:
            train_x, train_y = read(archive, train_members)
            test_x, test_y = read(archive, test_members)
    except (OSError, EOFError, KeyError, tarfile.TarError, pickle.UnpicklingError) as e:
        raise DatasetCacheError(
            message(
                op,
                f"the download of {url} ({path}) is not a readable {name} archive: {e!r}",
                hint="delete it to download it again",
            )
        ) from e
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
