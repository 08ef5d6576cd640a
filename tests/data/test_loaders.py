"""The dataset loaders on small files in Chainer's cache layout (made here; nothing downloaded)."""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import re

import numpy
import pytest

from fnet.data import (
    DatasetCacheError,
    TupleDataset,
    get_cifar10,
    get_cifar100,
    get_fashion_mnist,
    get_fashion_mnist_labels,
    get_kuzushiji_mnist,
    get_kuzushiji_mnist_labels,
    get_mnist,
    get_ptb_words,
    get_ptb_words_vocabulary,
    get_svhn,
)
from fnet.data import download as download_module
from fnet.data.datasets import _cache as cache_module
from fnet.data.datasets import cifar as cifar_module
from fnet.data.datasets import mnist as mnist_module

from . import fake_cache


def _scaled(raw, scale=1.0, dtype=numpy.float32):
    """What Chainer computes: the bytes cast to ``dtype``, then multiplied by ``scale / 255.``."""
    images = raw.astype(dtype)
    images *= scale / 255.0
    return images


@pytest.fixture
def mnist(root):
    train = fake_cache.mnist_arrays(20, 0)
    test = fake_cache.mnist_arrays(10, 1)
    fake_cache.put_mnist_npz(root, "mnist", "train", *train)
    fake_cache.put_mnist_npz(root, "mnist", "test", *test)
    return train, test


def test_get_mnist_defaults(mnist):
    (x_train, y_train), (x_test, y_test) = mnist
    train, test = get_mnist()
    assert isinstance(train, TupleDataset) and len(train) == 20 and len(test) == 10
    image, label = train[3]
    assert image.shape == (784,) and image.dtype == numpy.float32
    assert label.dtype == numpy.int32 and label == y_train[3]
    numpy.testing.assert_array_equal(image, _scaled(x_train[3]))
    assert 0.0 <= image.min() and image.max() <= 1.0
    numpy.testing.assert_array_equal(test[9][0], _scaled(x_test[9]))


@pytest.mark.parametrize(
    "ndim, rgb_format, shape",
    [(1, True, (784,)), (2, False, (28, 28)), (3, False, (1, 28, 28)), (3, True, (3, 28, 28))],
)
def test_get_mnist_shapes(mnist, ndim, rgb_format, shape):
    (x_train, _), _ = mnist
    train, _ = get_mnist(withlabel=False, ndim=ndim, rgb_format=rgb_format, scale=3.0, dtype=numpy.float64)
    assert isinstance(train, numpy.ndarray) and train.shape == (20, *shape) and train.dtype == numpy.float64
    expected = (
        _scaled(x_train, 3.0, numpy.float64).reshape(20, -1, 28, 28)[:, [0] * shape[0]] if ndim == 3 else None
    )
    if expected is not None:
        numpy.testing.assert_array_equal(train, expected)
    train.flags.writeable = True  # a copy the caller owns, even with rgb_format's broadcast


def test_get_mnist_label_dtype_and_errors(mnist):
    train, _ = get_mnist(label_dtype=numpy.int64, dtype=numpy.float16)
    assert train[0][1].dtype == numpy.int64 and train[0][0].dtype == numpy.float16
    with pytest.raises(ValueError, match=r"get_mnist: invalid ndim 4: expected one of \[1, 2, 3\]"):
        get_mnist(ndim=4)


def test_get_mnist_makes_the_cache_from_the_downloads(root):
    train = fake_cache.mnist_arrays(5, 2)
    test = fake_cache.mnist_arrays(3, 3)
    fake_cache.put_mnist_downloads(root, "mnist", {"train": train, "test": test})
    got_train, got_test = get_mnist(withlabel=True)
    numpy.testing.assert_array_equal(got_train[4][0], _scaled(train[0][4]))
    assert got_test[2][1] == test[1][2]
    with numpy.load(os.path.join(root, "pfnet", "chainer", "mnist", "train.npz")) as npz:
        assert sorted(npz.files) == ["x", "y"]
        assert npz["x"].dtype == numpy.uint8 and npz["x"].shape == (5, 784)
        assert npz["y"].dtype == numpy.uint8 and npz["y"].shape == (5,)
        numpy.testing.assert_array_equal(npz["x"], train[0])


@pytest.mark.parametrize(
    "loader, name", [(get_fashion_mnist, "fashion-mnist"), (get_kuzushiji_mnist, "kuzushiji_mnist")]
)
def test_mnist_variants_use_their_own_directories_and_urls(root, loader, name):
    splits = {"train": fake_cache.mnist_arrays(4, 4), "test": fake_cache.mnist_arrays(2, 5)}
    fake_cache.put_mnist_downloads(root, name, splits)
    train, test = loader(ndim=2)
    assert train[0][0].shape == (28, 28) and len(test) == 2
    assert os.path.exists(os.path.join(root, "pfnet", "chainer", name, "test.npz"))


def test_label_names():
    assert get_fashion_mnist_labels() == (
        "T-shirt/top Trouser Pullover Dress Coat Sandal Shirt Sneaker Bag".split() + ["Ankle boot"]
    )
    labels = get_kuzushiji_mnist_labels()
    assert len(labels) == 10 and labels[0] == ("o", "\u304a") and labels[-1] == ("wo", "\u3092")


def test_a_missing_cache_offline_names_the_url_and_the_paths(root):
    with pytest.raises(DatasetCacheError) as info:
        get_mnist()
    url = "http://yann.lecun.com/exdb/mnist/train-images-idx3-ubyte.gz"
    assert f"cannot download {url}" in str(info.value)
    assert fake_cache.download_path(root, url) in str(info.value)
    notes = "\n".join(info.value.__notes__)
    assert os.path.join(str(root), "pfnet/chainer/mnist", "train.npz") in notes
    assert os.listdir(os.path.join(root, "pfnet", "chainer", "mnist")) == []


def test_corrupt_cache_files_are_reported(root):
    directory = os.path.join(root, "pfnet", "chainer", "mnist")
    os.makedirs(directory)
    with open(os.path.join(directory, "train.npz"), "wb") as f:
        f.write(b"PK\x03\x04 truncated")
    with pytest.raises(DatasetCacheError, match=r"(?s)train.npz cannot be read.*hint: delete it"):
        get_mnist()
    numpy.savez_compressed(os.path.join(directory, "train.npz"), images=numpy.zeros(3))
    with pytest.raises(DatasetCacheError, match=r"lacks the arrays \['x', 'y'\] \(it has \['images'\]\)"):
        get_mnist()


def test_corrupt_or_mismatched_downloads_are_reported(root):
    x, y = fake_cache.mnist_arrays(4, 0)
    base = fake_cache.MNIST_URLS["mnist"]
    fake_cache.put_download(root, base + "train-images-idx3-ubyte.gz", b"not gzip")
    fake_cache.put_download(root, base + "train-labels-idx1-ubyte.gz", fake_cache.idx_bytes(y, 2049))
    with pytest.raises(DatasetCacheError, match="train-images-idx3-ubyte.gz .* is corrupt"):
        get_mnist()
    fake_cache.put_download(root, base + "train-images-idx3-ubyte.gz", fake_cache.idx_bytes(y, 2049))
    with pytest.raises(DatasetCacheError, match="is not an IDX file of magic number 2051"):
        get_mnist()
    fake_cache.put_download(root, base + "train-images-idx3-ubyte.gz", fake_cache.idx_bytes(x[:3], 2051))
    with pytest.raises(RuntimeError, match="wrong pair of MNIST images and labels: 3 images but 4 labels"):
        get_mnist()


def test_get_cifar10_from_the_cache_file(root):
    train = fake_cache.cifar_arrays(6, 0, 10)
    test = fake_cache.cifar_arrays(4, 1, 10)
    fake_cache.put_cifar_npz(root, "cifar-10", train, test)
    got_train, got_test = get_cifar10()
    image, label = got_train[5]
    assert image.shape == (3, 32, 32) and image.dtype == numpy.float32 and label.dtype == numpy.int32
    numpy.testing.assert_array_equal(image, _scaled(train[0][5]).reshape(3, 32, 32))
    assert label == train[1][5]
    flat, _ = get_cifar10(withlabel=False, ndim=1, scale=2.0, dtype=numpy.float64)
    numpy.testing.assert_array_equal(flat, _scaled(train[0], 2.0, numpy.float64))
    assert len(got_test) == 4
    with pytest.raises(ValueError, match=r"get_cifar10: invalid ndim 2: expected one of \[1, 3\]"):
        get_cifar10(ndim=2)


_CIFAR_LOADERS = [("cifar-10", get_cifar10), ("cifar-100", get_cifar100)]


@pytest.mark.parametrize("name, loader", _CIFAR_LOADERS)
def test_get_cifar_makes_the_cache_from_the_binary_archive(root, name, loader):
    batches = fake_cache.cifar_batches(name, 3, 0)
    fake_cache.put_cifar_archive(root, name, batches)
    expected = fake_cache.cifar_cache_arrays(name, batches)
    train, test = loader(ndim=1)
    assert len(train) == 15 if name == "cifar-10" else len(train) == 3
    numpy.testing.assert_array_equal(numpy.stack([ex[0] for ex in train]), _scaled(expected["train_x"]))
    assert [int(ex[1]) for ex in train] == [int(v) for v in expected["train_y"]]
    assert [int(ex[1]) for ex in test] == [int(v) for v in expected["test_y"]]
    if name == "cifar-100":  # the fine labels (20 and up here), not the coarse ones (below 20)
        assert min(int(ex[1]) for ex in train) >= 20
    with numpy.load(os.path.join(root, "pfnet", "chainer", "cifar", f"{name}.npz")) as npz:
        assert sorted(npz.files) == ["test_x", "test_y", "train_x", "train_y"]
        for key in npz.files:
            assert npz[key].dtype == numpy.uint8
            numpy.testing.assert_array_equal(npz[key], expected[key])


@pytest.mark.parametrize("name, loader", _CIFAR_LOADERS)
def test_get_cifar_reads_a_record_as_label_bytes_then_red_green_blue_planes(root, name, loader):
    red = numpy.arange(1024).reshape(32, 32) % 251  # each pixel of a row and column its own value
    green, blue = 255 - red, numpy.full((32, 32), 7)
    pixels = bytes(red.ravel().tolist()) + bytes(green.ravel().tolist()) + bytes(blue.ravel().tolist())
    label_bytes = b"\x03" if name == "cifar-10" else b"\x03\x41"  # CIFAR-100: coarse 3, fine 65
    members = dict.fromkeys(sum(fake_cache.CIFAR_MEMBERS[name], []), label_bytes + pixels)
    fake_cache.put_download(root, fake_cache.CIFAR_URL.format(name), fake_cache.tar_gz(members))
    train, _ = loader(scale=255.0, dtype=numpy.float64)
    image, label = train[0]
    numpy.testing.assert_array_equal(image, numpy.stack([red, green, blue]).astype(numpy.float64))
    assert label == (3 if name == "cifar-10" else 65)


@pytest.mark.parametrize("name, loader", _CIFAR_LOADERS)
@pytest.mark.parametrize("cut", [1, 3070, "all"])
def test_get_cifar_reports_a_member_that_is_not_whole_records(root, name, loader, cut):
    batches = fake_cache.cifar_batches(name, 2, 0)
    members = {member: fake_cache.cifar_records(x, labels) for member, (x, labels) in batches.items()}
    member = fake_cache.CIFAR_MEMBERS[name][1][0]  # the test set's
    members[member] = b"" if cut == "all" else members[member][:-cut]
    path = fake_cache.put_download(root, fake_cache.CIFAR_URL.format(name), fake_cache.tar_gz(members))
    record = 3073 if name == "cifar-10" else 3074
    with pytest.raises(DatasetCacheError) as info:
        loader()
    text = str(info.value)
    assert f"{loader.__name__}: the download of {fake_cache.CIFAR_URL.format(name)} ({path})" in text
    assert f"has a member {member} of {len(members[member])} bytes" in text
    assert f"expected a positive multiple of {record}" in text and "hint: delete it" in text
    assert os.listdir(os.path.join(root, "pfnet", "chainer", "cifar")) == []


def test_get_cifar_reports_an_archive_it_cannot_read(root):
    url = fake_cache.CIFAR_URL.format("cifar-10")
    fake_cache.put_download(root, url, b"not gzip")
    with pytest.raises(
        DatasetCacheError, match=r"(?s)is not a readable cifar-10 binary archive.*hint: delete it"
    ):
        get_cifar10()
    batches = fake_cache.cifar_batches("cifar-10", 1, 0)
    del batches["cifar-10-batches-bin/data_batch_4.bin"]
    fake_cache.put_cifar_archive(root, "cifar-10", batches)
    with pytest.raises(DatasetCacheError, match=r"binary archive: KeyError.*data_batch_4.bin"):
        get_cifar10()


@pytest.mark.parametrize("name, loader", _CIFAR_LOADERS)
def test_get_cifar_never_unpickles(root, monkeypatch, name, loader):
    def refuse(*args, **kwargs):
        raise AssertionError("something was unpickled")

    for attribute in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, attribute, refuse)
    batches = fake_cache.cifar_batches(name, 2, 5)
    fake_cache.put_cifar_python_archive(root, name, batches)  # there, as Chainer leaves it: not read
    fake_cache.put_cifar_archive(root, name, batches)
    train, _ = loader(withlabel=False, ndim=1, scale=255.0)
    numpy.testing.assert_array_equal(train, fake_cache.cifar_cache_arrays(name, batches)["train_x"])
    loader()  # from the cache file


def test_get_cifar_downloads_the_published_binary_archive(root, http_server, monkeypatch):
    base, files = http_server
    batches = fake_cache.cifar_batches("cifar-10", 2, 3)
    made_path = fake_cache.put_cifar_archive(root, "cifar-10", batches)
    with open(made_path, "rb") as f:
        files["/mirror/cifar-10-binary.tar.gz"] = archive = f.read()
    os.remove(made_path)
    remote = cifar_module._REMOTE._replace(sources=(f"{base}/mirror/",))
    monkeypatch.setattr(cifar_module, "_REMOTE", remote)
    with pytest.raises(DatasetCacheError) as info:
        get_cifar10()
    expected = "c4a38c50a1bc5f3a1c5537f2155ab9d68f9f25eb1ed8d9ddda3db29a59bca1dd"  # TensorFlow Datasets'
    assert f"wrong SHA-256: expected {expected}, got {hashlib.sha256(archive).hexdigest()}" in str(info.value)
    assert not os.path.exists(made_path)
    sha256 = {**remote.sha256, "cifar-10-binary.tar.gz": hashlib.sha256(archive).hexdigest()}
    monkeypatch.setattr(cifar_module, "_REMOTE", remote._replace(sha256=sha256))
    train, test = get_cifar10(ndim=1, withlabel=False, scale=255.0)
    numpy.testing.assert_array_equal(test, fake_cache.cifar_cache_arrays("cifar-10", batches)["test_x"])
    with open(made_path, "rb") as f:  # cached under the MD5 of the binary archive's URL
        assert f.read() == archive


def test_get_svhn(root):
    for split, seed in (("train", 0), ("test", 1), ("extra", 2)):
        fake_cache.put_svhn_download(root, split, *fake_cache.svhn_arrays(5, seed))
    train, test, extra = get_svhn(add_extra=True)
    x, y = fake_cache.svhn_arrays(5, 0)
    image, label = train[2]
    assert image.shape == (3, 32, 32) and image.dtype == numpy.float32
    numpy.testing.assert_array_equal(image, _scaled(x[:, :, :, 2].transpose(2, 0, 1)))
    labels = [int(ex[1]) for ex in train]
    assert labels == [0 if v == 10 else int(v) for v in y[:, 0]]
    assert len(test) == 5 and len(extra) == 5
    images = get_svhn(withlabel=False, scale=255.0, dtype=numpy.float64)
    assert len(images) == 2 and images[0].dtype == numpy.float64
    numpy.testing.assert_array_equal(images[0], x.transpose(3, 2, 0, 1).astype(numpy.float64))
    with numpy.load(os.path.join(root, "pfnet", "chainer", "svhn", "train.npz")) as npz:
        assert npz["x"].shape == (32, 32, 3, 5) and npz["y"].shape == (5, 1)


def test_get_ptb_words(root):
    fake_cache.put_ptb_downloads(root)
    vocab = get_ptb_words_vocabulary()
    train_words = "the cat sat on the mat <eos> a dog ran <eos> <eos> the end <eos>".split()
    expected_vocab = {}
    for word in train_words:
        expected_vocab.setdefault(word, len(expected_vocab))
    assert vocab == expected_vocab
    train, valid, test = get_ptb_words()
    assert train.dtype == numpy.int32
    assert [int(i) for i in train] == [vocab[w] for w in train_words]
    assert [int(i) for i in valid] == [vocab[w] for w in "the dog sat <eos>".split()]
    assert [int(i) for i in test] == [vocab[w] for w in "a cat ran on the end <eos> the mat <eos>".split()]
    with open(os.path.join(root, "pfnet", "chainer", "ptb", "vocab.txt")) as f:
        assert f.read().split("\n")[:3] == ["the", "cat", "sat"]
    assert get_ptb_words_vocabulary() == vocab  # now from vocab.txt


def test_get_ptb_words_reports_unknown_words(root):
    fake_cache.put_ptb_downloads(root)
    fake_cache.put_download(root, fake_cache.PTB_URL.format("valid"), b"the zebra\n")
    with pytest.raises(KeyError, match=r"valid text has words missing from the vocabulary: \['zebra'\]"):
        get_ptb_words()


# -- where the downloads come from, and their SHA-256 ---------------------------------------------

_MNIST_FILES = [
    f"{p}-{k}" for p in ("train", "t10k") for k in ("images-idx3-ubyte.gz", "labels-idx1-ubyte.gz")
]


def _serve_mnist(files: dict, folder: str) -> dict[str, bytes]:
    """Serve four small MNIST-format files under ``/<folder>/``; return them by file name."""
    (x, y), (x_test, y_test) = fake_cache.mnist_arrays(6, 7), fake_cache.mnist_arrays(4, 8)
    made = dict(
        zip(
            _MNIST_FILES,
            [
                fake_cache.idx_bytes(x, 2051),
                fake_cache.idx_bytes(y, 2049),
                fake_cache.idx_bytes(x_test, 2051),
                fake_cache.idx_bytes(y_test, 2049),
            ],
        )
    )
    files.update({f"/{folder}/{name}": data for name, data in made.items()})
    return made


def test_get_mnist_downloads_from_a_mirror_into_chainers_cache_layout(root, http_server, monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="fnet.data.download")
    base, files = http_server
    made = _serve_mnist(files, "mirror")
    digests = {name: hashlib.sha256(data).hexdigest() for name, data in made.items()}
    remote = mnist_module._REMOTES["get_mnist"]._replace(
        sha256=digests, sources=(f"{base}/gone/", f"{base}/mirror/")
    )
    monkeypatch.setitem(mnist_module._REMOTES, "get_mnist", remote)
    train, test = get_mnist()
    assert len(train) == 6 and len(test) == 4
    for name, data in made.items():  # cached under the MD5 of Chainer's URL, where Chainer looks
        with open(fake_cache.download_path(root, fake_cache.MNIST_URLS["mnist"] + name), "rb") as f:
            assert f.read() == data
    assert f"Downloading from {base}/gone/train-images-idx3-ubyte.gz..." in caplog.messages
    assert f"Downloading from {base}/mirror/train-images-idx3-ubyte.gz..." in caplog.messages


def test_get_mnist_rejects_a_download_that_is_not_the_published_file(root, http_server, monkeypatch):
    base, files = http_server
    made = _serve_mnist(files, "mirror")
    remote = mnist_module._REMOTES["get_mnist"]._replace(sources=(f"{base}/mirror/",))
    monkeypatch.setitem(mnist_module._REMOTES, "get_mnist", remote)
    with pytest.raises(DatasetCacheError) as info:
        get_mnist()
    expected = "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"  # TensorFlow Datasets'
    got = hashlib.sha256(made["train-images-idx3-ubyte.gz"]).hexdigest()
    assert f"wrong SHA-256: expected {expected}, got {got}" in str(info.value)
    assert os.listdir(os.path.join(root, "_dl_cache")) == ["_dl_lock"]
    assert os.listdir(os.path.join(root, "pfnet", "chainer", "mnist")) == []


def test_offline_mnist_names_the_mirrors_before_the_dead_host(root):
    with pytest.raises(DatasetCacheError) as info:
        get_mnist()
    sources = re.findall(r"^    from (\S+): ", str(info.value), re.M)
    assert sources == [
        "https://ossci-datasets.s3.amazonaws.com/mnist/train-images-idx3-ubyte.gz",
        "https://storage.googleapis.com/cvdf-datasets/mnist/train-images-idx3-ubyte.gz",
        "http://yann.lecun.com/exdb/mnist/train-images-idx3-ubyte.gz",
    ]
    assert (
        "check that its SHA-256 is 440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"
        in str(info.value)
    )


_CHAINER_URLS = {  # every file each loader downloads, by Chainer 7.8.1's URL (CIFAR: fnet's own)
    get_mnist: [fake_cache.MNIST_URLS["mnist"] + name for name in _MNIST_FILES],
    get_fashion_mnist: [fake_cache.MNIST_URLS["fashion-mnist"] + name for name in _MNIST_FILES],
    get_kuzushiji_mnist: [fake_cache.MNIST_URLS["kuzushiji_mnist"] + name for name in _MNIST_FILES],
    get_cifar10: [fake_cache.CIFAR_URL.format("cifar-10")],
    get_cifar100: [fake_cache.CIFAR_URL.format("cifar-100")],
    get_svhn: [fake_cache.SVHN_URL.format(split) for split in ("train", "test", "extra")],
    get_ptb_words: [fake_cache.PTB_URL.format(split) for split in ("train", "valid", "test")],
}


@pytest.mark.parametrize("loader", list(_CHAINER_URLS), ids=lambda f: f.__name__)
def test_every_download_of_every_loader_is_checked(root, monkeypatch, loader):
    """Each loader asks for each of its files by Chainer's URL with a SHA-256 (the requests are
    recorded; each is answered with the fake file already in the cache so the loader goes on)."""
    requests = []
    real = download_module.cached_download

    def record(url, *, sha256=None, sources=None):
        requests.append((url, sha256))
        return real(url)

    monkeypatch.setattr(cache_module, "cached_download", record)
    _fill_downloads(root)
    loader(add_extra=True) if loader is get_svhn else loader()
    digests = dict(requests)  # PTB's training text is read twice (the vocabulary, the words)
    assert len(digests) == len(set(requests)) and sorted(digests) == sorted(_CHAINER_URLS[loader])
    assert all(re.fullmatch(r"[0-9a-f]{64}", sha256) for sha256 in digests.values())
    assert len(set(digests.values())) == len(digests)


def _fill_downloads(root) -> None:
    """A small fake of every file the loaders download, in the download cache."""
    for name in ("mnist", "fashion-mnist", "kuzushiji_mnist"):
        splits = {"train": fake_cache.mnist_arrays(3, 0), "test": fake_cache.mnist_arrays(2, 1)}
        fake_cache.put_mnist_downloads(root, name, splits)
    for name in ("cifar-10", "cifar-100"):
        fake_cache.put_cifar_archive(root, name, fake_cache.cifar_batches(name, 2, 0))
    for split in ("train", "test", "extra"):
        fake_cache.put_svhn_download(root, split, *fake_cache.svhn_arrays(2, 0))
    fake_cache.put_ptb_downloads(root)


def test_chainers_mnist_helper_makes_and_preprocesses_the_arrays(root, tmp_path):
    from fnet.compat.datasets import _mnist_helper

    x, y = fake_cache.mnist_arrays(4, 5)
    fake_cache.put_mnist_downloads(root, "mnist", {"train": (x, y)})
    base = fake_cache.MNIST_URLS["mnist"]
    urls = (f"{base}train-images-idx3-ubyte.gz", f"{base}train-labels-idx1-ubyte.gz")
    raw = _mnist_helper.make_npz(str(tmp_path / "train"), urls)  # ".npz" appended, as NumPy does
    numpy.testing.assert_array_equal(raw["x"], x)
    with numpy.load(tmp_path / "train.npz") as npz:
        numpy.testing.assert_array_equal(npz["y"], y)
    data = _mnist_helper.preprocess_mnist(raw, True, 3, 1.0, numpy.float32, numpy.int32, True)
    image, label = data[3]
    assert image.shape == (3, 28, 28) and image.dtype == numpy.float32 and label == y[3]
    numpy.testing.assert_array_equal(image[2], _scaled(x[3]).reshape(28, 28))
    with pytest.raises(ValueError, match="invalid ndim 4"):
        _mnist_helper.preprocess_mnist(raw, False, 4, 1.0, numpy.float32, numpy.int32, False)
