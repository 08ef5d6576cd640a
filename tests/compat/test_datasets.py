"""``chainer.datasets`` and ``chainer.dataset``: fnet.data under Chainer's paths, with
``dtype=None`` read from ``chainer.config.dtype``."""

from __future__ import annotations

import pickle
import sys

import numpy
import pytest

import fnet.data
from fnet.compat import configuration, dataset, datasets
from fnet.compat._alias import install_alias
from tests.data import fake_cache


def test_names_are_fnet_data_objects():
    for name in datasets.__all__:
        ours = getattr(datasets, name)
        theirs = getattr(fnet.data, name)
        if isinstance(ours, type):
            assert issubclass(ours, theirs)
        else:
            assert ours is theirs or ours.__wrapped__ is theirs
    for name in [
        "DatasetMixin",
        "TabularDataset",
        "get_dataset_root",
        "cached_download",
        "cache_or_load_file",
    ]:
        assert getattr(dataset, name) is getattr(fnet.data, name)
    assert dataset.tabular.from_data is fnet.data.from_data
    assert dataset.download.get_dataset_directory is fnet.data.get_dataset_directory
    assert dataset.concat_examples is fnet.data.concat_examples and dataset.Iterator is fnet.data.Iterator
    assert dataset.convert.concat_examples is fnet.data.concat_examples


def test_loaders_take_the_dtype_from_the_configuration(tmp_path):
    fake_cache.put_mnist_npz(tmp_path, "mnist", "train", *fake_cache.mnist_arrays(3, 0))
    fake_cache.put_mnist_npz(tmp_path, "mnist", "test", *fake_cache.mnist_arrays(2, 1))
    dataset.set_dataset_root(str(tmp_path))
    try:
        assert datasets.get_mnist()[0][0][0].dtype == numpy.float32
        with configuration.using_config("dtype", numpy.float16):
            train, _ = datasets.get_mnist(ndim=2)
            assert train[0][0].dtype == numpy.float16 and train[0][0].shape == (28, 28)
            assert datasets.get_mnist(dtype=numpy.float64)[0][0][0].dtype == numpy.float64
    finally:
        dataset.set_dataset_root(None)


def test_image_datasets_take_the_dtype_from_the_configuration(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    Image.new("L", (3, 2), 7).save(tmp_path / "a.png")
    with configuration.using_config("dtype", numpy.float64):
        ds = datasets.ImageDataset(["a.png"], root=str(tmp_path))
        labeled = datasets.LabeledImageDataset([("a.png", 1)], str(tmp_path))
    assert isinstance(ds, fnet.data.ImageDataset)
    assert ds[0].dtype == numpy.float64 and ds[0].shape == (1, 2, 3)
    assert labeled[0][0].dtype == numpy.float64
    clone = pickle.loads(pickle.dumps(ds))  # for iterator workers
    assert type(clone) is datasets.ImageDataset and clone[0].dtype == numpy.float64


@pytest.fixture
def alias():
    finders = list(sys.meta_path)
    before = {name: sys.modules.pop(name) for name in list(sys.modules) if name.split(".")[0] == "chainer"}
    install_alias()
    yield
    sys.meta_path[:] = finders
    for name in [name for name in sys.modules if name.split(".")[0] == "chainer"]:
        del sys.modules[name]
    sys.modules.update(before)


def test_chainer_paths(alias):
    import chainer
    from chainer.dataset import download, tabular
    from chainer.datasets import TupleDataset, split_dataset_random

    assert chainer.dataset.DatasetMixin is fnet.data.DatasetMixin
    assert download.get_dataset_root is fnet.data.get_dataset_root
    assert tabular.DelegateDataset is fnet.data.DelegateDataset
    train, test = split_dataset_random(TupleDataset(numpy.arange(10), numpy.arange(10) * 2), 7, seed=0)
    assert len(train) == 7 and len(test) == 3
