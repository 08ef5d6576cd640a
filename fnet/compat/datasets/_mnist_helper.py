"""``chainer.datasets._mnist_helper``: MNIST-format IDX files made into arrays, and the arrays
made into a dataset (what ``get_mnist`` and its siblings do, for loaders written on Chainer's)."""

from __future__ import annotations

import os

import numpy

from ...data import download
from ...data.datasets import mnist as _mnist
from ...io.atomic import atomic_write

__all__ = ["make_npz", "preprocess_mnist"]


def make_npz(path: str, urls) -> dict:
    """Download the gzipped IDX files ``urls = (images_url, labels_url)`` (cached), save their
    arrays ``x`` (N, 784) and ``y`` (N,) as the compressed npz ``path`` (``.npz`` is appended
    when missing, as NumPy does) and return them."""
    x_url, y_url = urls
    raw = _mnist.idx_arrays(
        "make_npz",
        (download.cached_download(x_url), x_url),
        (download.cached_download(y_url), y_url),
    )
    path = os.fspath(path)
    if not path.endswith(".npz"):
        path += ".npz"
    atomic_write("make_npz", path, lambda f: numpy.savez_compressed(f, **raw))
    return raw


def preprocess_mnist(raw, withlabel, ndim, scale, image_dtype, label_dtype, rgb_format):
    """The dataset of ``raw = {'x': (N, 784) bytes, 'y': (N,) labels}``: images of ``ndim``
    dimensions (1, 2 or 3; three channels with ``rgb_format``) scaled to [0, ``scale``] in
    ``image_dtype``, with their labels in ``label_dtype`` (a TupleDataset) when ``withlabel``."""
    return _mnist.preprocess(raw, withlabel, ndim, scale, image_dtype, label_dtype, rgb_format)
