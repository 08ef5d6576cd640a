"""MNIST, Fashion-MNIST and Kuzushiji-MNIST: 28x28 greyscale images of 10 classes, 60000 for
training and 10000 for test, downloaded and cached as Chainer does.

Each dataset is kept as ``<root>/pfnet/chainer/<name>/train.npz`` and ``test.npz`` (arrays
``x``, uint8 of shape (N, 784), and ``y``, uint8 of shape (N,)), made from the IDX files
downloaded into ``<root>/_dl_cache``; a cache made by Chainer is used as it is.
"""

from __future__ import annotations

import gzip
import zlib

import numpy

from ...errors import message
from ..download import DatasetCacheError, cached_download
from ._cache import cached_npz, check_choice, scale_images
from .tuple_dataset import TupleDataset

__all__ = [
    "get_mnist",
    "get_fashion_mnist",
    "get_fashion_mnist_labels",
    "get_kuzushiji_mnist",
    "get_kuzushiji_mnist_labels",
]

_MNIST_URL = "http://yann.lecun.com/exdb/mnist/"
_FASHION_URL = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"
_KUZUSHIJI_URL = "http://codh.rois.ac.jp/kmnist/dataset/kmnist/"

_IMAGES_MAGIC = 2051  # the IDX headers: 0x00000803 (ubyte, 3 dims) and 0x00000801 (ubyte, 1 dim)
_LABELS_MAGIC = 2049

_FASHION_LABELS = (
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
)  # fmt: skip
_KUZUSHIJI_LABELS = (
    ("o", "\u304a"), ("ki", "\u304d"), ("su", "\u3059"), ("tsu", "\u3064"), ("na", "\u306a"),
    ("ha", "\u306f"), ("ma", "\u307e"), ("ya", "\u3084"), ("re", "\u308c"), ("wo", "\u3092"),
)  # fmt: skip


def _read_idx(op: str, url: str, magic: int, header_size: int) -> tuple[list[int], numpy.ndarray]:
    """The numbers of the header after the magic, and the bytes after the header, of the gzipped
    IDX file at ``url`` (downloaded if needed)."""
    path = cached_download(url)
    try:
        with gzip.open(path, "rb") as f:
            data = f.read()
    except (OSError, EOFError, zlib.error) as e:
        raise DatasetCacheError(
            message(
                op, f"the download of {url} ({path}) is corrupt: {e}", hint="delete it to download it again"
            )
        ) from e
    header = numpy.frombuffer(data, dtype=">i4", count=header_size) if len(data) >= 4 * header_size else None
    if header is None or header[0] != magic:
        raise DatasetCacheError(
            message(
                op,
                f"{url} ({path}) is not an IDX file of magic number {magic}",
                hint="delete it to download it again",
            )
        )
    return [int(v) for v in header[1:]], numpy.frombuffer(data, dtype=numpy.uint8, offset=4 * header_size)


def _make_npz(op: str, images_url: str, labels_url: str) -> dict:
    """The arrays ``x`` (N, 784) and ``y`` (N,) of a pair of MNIST-format IDX files."""
    (n, rows, cols), pixels = _read_idx(op, images_url, _IMAGES_MAGIC, 4)
    (n_labels,), labels = _read_idx(op, labels_url, _LABELS_MAGIC, 2)
    if n != n_labels:
        raise RuntimeError(
            message(op, f"wrong pair of MNIST images and labels: {n} images but {n_labels} labels")
        )
    if rows * cols != 784 or pixels.size != n * 784 or labels.size != n:
        raise DatasetCacheError(
            message(
                op,
                f"{images_url} and {labels_url} do not hold {n} 28x28 images and labels",
                hint="delete the downloaded files to download them again",
            )
        )
    return {"x": pixels.reshape(n, 784).copy(), "y": labels.copy()}


def _preprocess(raw, withlabel, ndim, scale, dtype, label_dtype, rgb_format):
    images = raw["x"]
    if ndim == 2:
        images = images.reshape(-1, 28, 28)
    elif ndim == 3:
        images = images.reshape(-1, 1, 28, 28)
        if rgb_format:
            images = numpy.broadcast_to(images, (len(images), 3, 28, 28))
    images = scale_images(images, scale, dtype)
    if withlabel:
        return TupleDataset(images, raw["y"].astype(label_dtype))
    return images


def _get(op, directory, base_url, withlabel, ndim, scale, dtype, label_dtype, rgb_format):
    check_choice(op, "ndim", ndim, (1, 2, 3))
    splits = []
    for split, prefix in (("train", "train"), ("test", "t10k")):
        images_url = f"{base_url}{prefix}-images-idx3-ubyte.gz"
        labels_url = f"{base_url}{prefix}-labels-idx1-ubyte.gz"
        raw = cached_npz(
            op, directory, f"{split}.npz", ("x", "y"), lambda: _make_npz(op, images_url, labels_url)
        )
        splits.append(_preprocess(raw, withlabel, ndim, scale, dtype, label_dtype, rgb_format))
    return tuple(splits)


def _loader(name: str, directory: str, base_url: str, doc: str):
    """The public loader ``name`` of the MNIST-format dataset cached under ``directory`` and
    downloaded from ``base_url``: ``get_mnist``'s signature, ``doc`` as its docstring."""

    def load(
        withlabel: bool = True,
        ndim: int = 1,
        scale: float = 1.0,
        dtype=None,
        label_dtype=numpy.int32,
        rgb_format: bool = False,
    ):
        return _get(name, directory, base_url, withlabel, ndim, scale, dtype, label_dtype, rgb_format)

    load.__name__ = load.__qualname__ = name
    load.__doc__ = doc
    return load


get_mnist = _loader(
    "get_mnist",
    "pfnet/chainer/mnist",
    _MNIST_URL,
    """The MNIST handwritten digits: ``(train, test)``, 60000 and 10000 examples.

    Args:
        withlabel: if True, each dataset is a TupleDataset of ``(image, label)``; otherwise an
            array of images.
        ndim: the shape of an image: 1 gives ``(784,)``, 2 ``(28, 28)``, 3 ``(1, 28, 28)``.
        scale: pixels are scaled from [0, 255] to [0, scale].
        dtype: the images' dtype (float32 when None; ``chainer.datasets.get_mnist`` takes
            ``chainer.config.dtype``).
        label_dtype: the labels' dtype.
        rgb_format: with ``ndim == 3``, repeat the channel to make ``(3, 28, 28)`` images.
    """,
)

get_fashion_mnist = _loader(
    "get_fashion_mnist",
    "pfnet/chainer/fashion-mnist",
    _FASHION_URL,
    """Fashion-MNIST (Zalando's greyscale images of clothes): ``(train, test)``, with the
    arguments of ``get_mnist``; ``get_fashion_mnist_labels()`` names the classes.""",
)


def get_fashion_mnist_labels() -> list[str]:
    """The names of Fashion-MNIST's ten classes, by label.

    >>> get_fashion_mnist_labels()[:3]
    ['T-shirt/top', 'Trouser', 'Pullover']
    """
    return list(_FASHION_LABELS)


get_kuzushiji_mnist = _loader(
    "get_kuzushiji_mnist",
    "pfnet/chainer/kuzushiji_mnist",
    _KUZUSHIJI_URL,
    """Kuzushiji-MNIST (handwritten cursive Japanese characters): ``(train, test)``, with the
    arguments of ``get_mnist``; ``get_kuzushiji_mnist_labels()`` names the classes.""",
)


def get_kuzushiji_mnist_labels() -> list[tuple[str, str]]:
    """Kuzushiji-MNIST's ten classes, by label: ``(romaji name, character)`` pairs.

    >>> get_kuzushiji_mnist_labels()[1]
    ('ki', 'き')
    """
    return list(_KUZUSHIJI_LABELS)
