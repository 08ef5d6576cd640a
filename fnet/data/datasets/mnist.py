"""MNIST, Fashion-MNIST and Kuzushiji-MNIST: 28x28 greyscale images of 10 classes, 60000 for
training and 10000 for test, downloaded and cached as Chainer does.

Each dataset is kept as ``<root>/pfnet/chainer/<name>/train.npz`` and ``test.npz`` (arrays
``x``, uint8 of shape (N, 784), and ``y``, uint8 of shape (N,)), made from the IDX files
downloaded into ``<root>/_dl_cache``; a cache made by Chainer is used as it is. Every download
is checked against its published SHA-256.

MNIST's own host, yann.lecun.com, has answered 404 since 2025: its files are downloaded from
the mirrors that torchvision and TensorFlow Datasets use, but still cached under the MD5 of
Chainer's URL, where Chainer looks for them.
"""

from __future__ import annotations

import gzip
import zlib

import numpy

from ...errors import message
from ..download import DatasetCacheError
from ._cache import Remote, cached_npz, check_choice, scale_images
from .tuple_dataset import TupleDataset

__all__ = [
    "get_mnist",
    "get_fashion_mnist",
    "get_fashion_mnist_labels",
    "get_kuzushiji_mnist",
    "get_kuzushiji_mnist_labels",
]

# The files of each dataset: Chainer's URLs (which name them in the cache), where to download
# them, and their SHA-256. MNIST's and Fashion-MNIST's digests are those of TensorFlow Datasets
# (tensorflow/datasets, tensorflow_datasets/url_checksums/mnist.txt and fashion_mnist.txt);
# all three datasets' are also in torchvision (pytorch/vision,
# torchvision/prototype/datasets/_builtin/mnist.py), the only source for Kuzushiji-MNIST's.
_REMOTES = {
    "get_mnist": Remote(
        "http://yann.lecun.com/exdb/mnist/",
        {
            "train-images-idx3-ubyte.gz": "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
            "train-labels-idx1-ubyte.gz": "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
            "t10k-images-idx3-ubyte.gz": "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
            "t10k-labels-idx1-ubyte.gz": "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
        },
        (
            "https://ossci-datasets.s3.amazonaws.com/mnist/",  # torchvision's mirror
            "https://storage.googleapis.com/cvdf-datasets/mnist/",  # TensorFlow Datasets' mirror
            "http://yann.lecun.com/exdb/mnist/",
        ),
    ),
    "get_fashion_mnist": Remote(
        "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
        {
            "train-images-idx3-ubyte.gz": "3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84",
            "train-labels-idx1-ubyte.gz": "a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845",
            "t10k-images-idx3-ubyte.gz": "346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073",
            "t10k-labels-idx1-ubyte.gz": "67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5",
        },
        (
            "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
            "https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion/",
        ),
    ),
    "get_kuzushiji_mnist": Remote(
        "http://codh.rois.ac.jp/kmnist/dataset/kmnist/",
        {
            "train-images-idx3-ubyte.gz": "51467d22d8cc72929e2a028a0428f2086b092bb31cfb79c69cc0a90ce135fde4",
            "train-labels-idx1-ubyte.gz": "e38f9ebcd0f3ebcdec7fc8eabdcdaef93bb0df8ea12bee65224341c8183d8e17",
            "t10k-images-idx3-ubyte.gz": "edd7a857845ad6bb1d0ba43fe7e794d164fe2dce499a1694695a792adfac43c5",
            "t10k-labels-idx1-ubyte.gz": "20bb9a0ef54c7db3efc55a92eef5582c109615df22683c380526788f98e42a1c",
        },
        ("https://codh.rois.ac.jp/kmnist/dataset/kmnist/", "http://codh.rois.ac.jp/kmnist/dataset/kmnist/"),
    ),
}

_IMAGES_MAGIC = 2051  # the IDX headers: 0x00000803 (ubyte, 3 dims) and 0x00000801 (ubyte, 1 dim)
_LABELS_MAGIC = 2049

_FASHION_LABELS = (
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
)  # fmt: skip
_KUZUSHIJI_LABELS = (
    ("o", "\u304a"), ("ki", "\u304d"), ("su", "\u3059"), ("tsu", "\u3064"), ("na", "\u306a"),
    ("ha", "\u306f"), ("ma", "\u307e"), ("ya", "\u3084"), ("re", "\u308c"), ("wo", "\u3092"),
)  # fmt: skip


def _read_idx(op: str, path: str, url: str, magic: int, header_size: int) -> tuple[list[int], numpy.ndarray]:
    """The numbers of the header after the magic, and the bytes after the header, of the gzipped
    IDX file ``path`` (downloaded from ``url``)."""
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


def idx_arrays(op: str, images: tuple[str, str], labels: tuple[str, str]) -> dict:
    """The arrays ``x`` (N, 784) and ``y`` (N,) of a pair of gzipped MNIST-format IDX files,
    each given as ``(path, url it came from)``."""
    (n, rows, cols), pixels = _read_idx(op, *images, _IMAGES_MAGIC, 4)
    (n_labels,), labels_ = _read_idx(op, *labels, _LABELS_MAGIC, 2)
    if n != n_labels:
        raise RuntimeError(
            message(op, f"wrong pair of MNIST images and labels: {n} images but {n_labels} labels")
        )
    if rows * cols != 784 or pixels.size != n * 784 or labels_.size != n:
        raise DatasetCacheError(
            message(
                op,
                f"{images[0]} and {labels[0]} do not hold {n} 28x28 images and labels",
                hint="delete the downloaded files to download them again",
            )
        )
    return {"x": pixels.reshape(n, 784).copy(), "y": labels_.copy()}


def _make_npz(op: str, images_file: str, labels_file: str) -> dict:
    """The arrays ``x`` and ``y`` of the IDX files of the dataset that ``op`` loads (downloaded
    if needed)."""
    remote = _REMOTES[op]
    return idx_arrays(
        op,
        (remote.fetch(images_file), remote.base + images_file),
        (remote.fetch(labels_file), remote.base + labels_file),
    )


def preprocess(raw, withlabel, ndim, scale, dtype, label_dtype, rgb_format):
    """The dataset of the arrays ``raw['x']`` (N, 784) and ``raw['y']``: images of ``ndim``
    dimensions (1: flat, 2: HW, 3: CHW, three channels with ``rgb_format``) scaled to [0,
    ``scale``] in ``dtype``, paired with the labels in ``label_dtype`` when ``withlabel``."""
    check_choice("preprocess_mnist", "ndim", ndim, (1, 2, 3))
    return _preprocess(raw, withlabel, ndim, scale, dtype, label_dtype, rgb_format)


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


def _get(op, directory, withlabel, ndim, scale, dtype, label_dtype, rgb_format):
    check_choice(op, "ndim", ndim, (1, 2, 3))
    splits = []
    for split, prefix in (("train", "train"), ("test", "t10k")):
        images, labels = f"{prefix}-images-idx3-ubyte.gz", f"{prefix}-labels-idx1-ubyte.gz"
        raw = cached_npz(op, directory, f"{split}.npz", ("x", "y"), lambda: _make_npz(op, images, labels))
        splits.append(_preprocess(raw, withlabel, ndim, scale, dtype, label_dtype, rgb_format))
    return tuple(splits)


def _loader(name: str, directory: str, doc: str):
    """The public loader ``name`` of the MNIST-format dataset cached under ``directory`` and
    downloaded as ``_REMOTES[name]`` says: ``get_mnist``'s signature, ``doc`` as its docstring."""

    def load(
        withlabel: bool = True,
        ndim: int = 1,
        scale: float = 1.0,
        dtype=None,
        label_dtype=numpy.int32,
        rgb_format: bool = False,
    ):
        return _get(name, directory, withlabel, ndim, scale, dtype, label_dtype, rgb_format)

    load.__name__ = load.__qualname__ = name
    load.__doc__ = doc
    return load


get_mnist = _loader(
    "get_mnist",
    "pfnet/chainer/mnist",
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
    """Kuzushiji-MNIST (handwritten cursive Japanese characters): ``(train, test)``, with the
    arguments of ``get_mnist``; ``get_kuzushiji_mnist_labels()`` names the classes.""",
)


def get_kuzushiji_mnist_labels() -> list[tuple[str, str]]:
    """Kuzushiji-MNIST's ten classes, by label: ``(romaji name, character)`` pairs.

    >>> get_kuzushiji_mnist_labels()[1]
    ('ki', 'き')
    """
    return list(_KUZUSHIJI_LABELS)
