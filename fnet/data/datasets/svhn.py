"""SVHN, the Street View House Numbers: 32x32 colour images of digits, downloaded and cached as
Chainer does.

Each split is kept as ``<root>/pfnet/chainer/svhn/train.npz`` (``test.npz``, ``extra.npz``)
with the uint8 arrays ``x`` (32, 32, 3, N) and ``y`` (N, 1), made from the ``.mat`` files
downloaded into ``<root>/_dl_cache`` (checked against their published SHA-256, read with
SciPy). Labels run 0-9 (the files' 10 is 0).
"""

from __future__ import annotations

import numpy

from ...errors import message
from ..download import DatasetCacheError
from ._cache import Remote, cached_npz, scale_images
from .tuple_dataset import TupleDataset

__all__ = ["get_svhn"]

# The SHA-256 of the files are those of TensorFlow Datasets (tensorflow/datasets,
# tensorflow_datasets/url_checksums/svhn_cropped.txt).
_REMOTE = Remote(
    "http://ufldl.stanford.edu/housenumbers/",
    {
        "train_32x32.mat": "435e94d69a87fde4fd4d7f3dd208dfc32cb6ae8af2240d066de1df7508d083b8",
        "test_32x32.mat": "cdce80dfb2a2c4c6160906d0bd7c68ec5a99d7ca4831afa54f09182025b6a75b",
        "extra_32x32.mat": "a133a4beb38a00fcdda90c9489e0c04f900b660ce8a316a5e854838379a71eb3",
    },
)


def _make_npz(split: str) -> dict:
    """The arrays of a split's cache file, read from its downloaded ``.mat`` file."""
    from scipy import io

    url = f"{_REMOTE.base}{split}_32x32.mat"
    path = _REMOTE.fetch(f"{split}_32x32.mat")
    try:
        mat = io.loadmat(path)
        return {"x": mat["X"].astype(numpy.uint8), "y": mat["y"].astype(numpy.uint8)}
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise DatasetCacheError(
            message(
                "get_svhn",
                f"the download of {url} ({path}) is not a readable SVHN file: {e!r}",
                hint="delete it to download it again",
            )
        ) from e


def _preprocess(raw, withlabel, scale, dtype, label_dtype):
    images = scale_images(raw["x"].transpose(3, 2, 0, 1), scale, dtype)
    labels = raw["y"].astype(label_dtype).flatten()
    labels[labels == 10] = 0  # the files label the digit 0 as 10
    return TupleDataset(images, labels) if withlabel else images


def get_svhn(
    withlabel: bool = True, scale: float = 1.0, dtype=None, label_dtype=numpy.int32, add_extra: bool = False
):
    """SVHN: ``(train, test)``, or ``(train, test, extra)`` with ``add_extra``; images of shape
    ``(3, 32, 32)``.

    Args:
        withlabel: if True, each dataset is a TupleDataset of ``(image, label)``; otherwise an
            array of images.
        scale: pixel values are scaled from [0, 255] to [0, scale].
        dtype: the images' dtype (float32 when None; ``chainer.datasets.get_svhn`` takes
            ``chainer.config.dtype``).
        label_dtype: the labels' dtype.
        add_extra: also return the 531131 extra training examples.
    """
    splits = ("train", "test", "extra") if add_extra else ("train", "test")
    return tuple(
        _preprocess(
            cached_npz(
                "get_svhn", "pfnet/chainer/svhn", f"{split}.npz", ("x", "y"), lambda: _make_npz(split)
            ),
            withlabel,
            scale,
            dtype,
            label_dtype,
        )
        for split in splits
    )
