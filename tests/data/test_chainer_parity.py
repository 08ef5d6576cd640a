"""fnet.data against Chainer 7.8.1 itself, run in its own venv on the same files: the loaders
on a pre-filled cache and on cached downloads (the files they make must match too), the random
splits, and the general and tabular datasets. Skipped when the Chainer venv is absent."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess

import numpy
import pytest

import fnet.data as fdata

from . import fake_cache

CHAINER_PYTHON = pathlib.Path(__file__).parents[2] / "benchmarks" / ".venvs" / "chainer" / "bin" / "python"
MUSHROOMS = pathlib.Path(__file__).parents[3] / "shared" / "data" / "mushrooms.csv"

pytestmark = pytest.mark.skipif(
    not CHAINER_PYTHON.exists(), reason=f"needs Chainer 7.8.1's venv at {CHAINER_PYTHON}"
)

MNIST_ARGS = [  # (withlabel, ndim, scale, dtype, label_dtype, rgb_format)
    (True, 1, 1.0, None, "int32", False),
    (True, 2, 2.5, "float64", "int64", False),
    (True, 3, 1.0, "float16", "int32", True),
    (False, 3, 0.5, None, "int32", False),
    (False, 3, 1.0, "float64", "int32", True),
    (False, 1, 255.0, "float32", "int32", True),
]
CIFAR_ARGS = [(True, 3, 1.0, None), (False, 1, 2.0, "float64"), (True, 1, 1.0, "float16")]

# Run by both libraries: ``run(datasets, from_data)`` returns JSON-able results of the
# general and tabular datasets (tuples, lists, dicts and arrays tagged, so types are compared).
SHARED = r"""
import os
import tempfile

import numpy

def plain(x):
    if isinstance(x, type):
        return {"type": x.__name__}
    if isinstance(x, tuple):
        return {"tuple": [plain(v) for v in x]}
    if isinstance(x, list):
        return {"list": [plain(v) for v in x]}
    if isinstance(x, dict):
        return {"dict": {k: plain(v) for k, v in sorted(x.items())}}
    if isinstance(x, numpy.ndarray):
        return {"array": [str(x.dtype), x.tolist()]}
    if isinstance(x, numpy.generic):
        return {"scalar": [str(x.dtype), x.item()]}
    return x

def run(datasets, from_data):
    out = {}
    x = numpy.arange(12).reshape(4, 3)
    t = datasets.TupleDataset(x, [8, 0, 5, 1])
    fancy = datasets.TupleDataset(x, numpy.array([8, 0, 5, 1]))[[3, 0]]
    out["tuple"] = [t[1], t[1:3], fancy, len(t)]
    d = datasets.DictDataset(a=numpy.arange(4), b=[5, 6, 7, 8])
    d_fancy = datasets.DictDataset(a=numpy.arange(4), b=numpy.arange(4) * 2)[numpy.array([1, 3])]
    out["dict"] = [d[2], d[::2], d_fancy]
    c = datasets.ConcatenatedDataset([0, 1], [], numpy.array([2, 3, 4]))
    out["concat"] = [c[3], c[1:], c[[4, 0]], len(c)]
    s = datasets.SubDataset(list("abcdefg"), 2, 6, order=[6, 5, 4, 3, 2, 1, 0])
    out["sub"] = [s[0], s[-1], s[1:3], s[[3, 0]]]
    out["transform"] = datasets.TransformDataset(t, lambda ex: (ex[1] * 2, ex[0].sum()))[:]
    folds = datasets.get_cross_validation_datasets(list(range(10)), 3, order=list(range(9, -1, -1)))
    out["cv"] = [(a[:], b[:]) for a, b in folds]
    out["split_n"] = [p[:] for p in datasets.split_dataset_n(list(range(11)), 3)]
    out["random_split"] = [p[:] for p in datasets.split_dataset_random(list(range(50)), 20, seed=3)]
    out["random_n"] = [p[:] for p in datasets.split_dataset_n_random(list(range(50)), 4, seed=5)]
    folds = datasets.get_cross_validation_datasets_random(list(range(23)), 4, seed=2)
    out["random_cv"] = [(a[:], b[:]) for a, b in folds]

    table = from_data(
        (("a", numpy.arange(6)), ("b", [10 * i for i in range(6)]), (("c", "d"), lambda i: (i * i, -i)))
    )
    other = from_data(
        (("a", numpy.arange(3) + 100), ("b", [7, 8, 9]), ("c", [1, 2, 3]), ("d", numpy.zeros(3)))
    )
    out["tab_keys"] = [table.keys, table.mode, len(table)]
    out["tab_rows"] = [table[i] for i in range(6)]
    out["tab_fetch"] = table.fetch()
    out["tab_dict"] = table.asdict()[1:3]
    out["tab_slices"] = [
        table.slice[[4, 1], ("d", "a")][:],
        table.slice[::-1, "b"][:],
        table.slice[1:5].slice[::-2, (0, -1)][:],
        table.slice[[True, False] * 3].fetch(),
        table.slice[::-1].slice[10:][:],
        table.slice[[]].fetch(),
    ]
    both = table.concat(other)
    out["tab_concat"] = [
        both[:], both.slice[::-3][:], both.slice[[8, 0, 7]][:], both.fetch(), both.slice[6:].fetch(),
        both.mode,
    ]
    joined = from_data(("x", [1, 2, 3])).join(other.slice[:, ("b", "c")]).asdict()
    out["tab_join"] = [joined[:], joined.slice[:, ("c", "x", "c")].fetch(), joined.keys]
    tr = table.transform(("s", "t"), lambda a, b, c, d: (a + b, c - d))
    trd = table.asdict().transform("u", lambda a, b, c, d: {"u": a * b})
    tb = table.transform_batch(("p",), lambda a, b, c, d: {"p": [x + y for x, y in zip(b, c)]})
    out["tab_transform"] = [tr[:], tr.mode, trd[:], trd.mode, tb.slice[1:4][:], tb.mode, tb.fetch()]
    conv = table.with_converter(lambda a, b, c, d: [len(a), sum(b)])
    as_dict = table.asdict()
    out["tab_convert"] = [
        table.convert(table.fetch()), as_dict.convert(as_dict.fetch()), conv.convert(conv.fetch())
    ]
    directory = tempfile.mkdtemp()
    first, second = os.path.join(directory, "a.txt"), os.path.join(directory, "b.txt")
    with open(first, "w") as f:
        f.write("x\ny\n\nz")
    with open(second, "w") as f:
        f.write("1\n2\n3\n4")
    text = datasets.TextDataset([first, second], filter_func=lambda a, b: b != "2\n")
    out["text"] = [len(text), text[:], datasets.TextDataset(first)[1:]]
    text.close()
    out["tab_from_dict"] = from_data({"k": [1, 2], "v": numpy.array([3.5, 4.5])})[:]
    return {key: plain(value) for key, value in out.items()}
"""

CHAINER_SCRIPT = (
    SHARED
    + r"""
import json, sys
import chainer
from chainer import datasets
from chainer.dataset import tabular

cached, made, out_dir, mnist_args, cifar_args, mushrooms = sys.argv[1:7]
arrays = {}

def store(prefix, splits, withlabel):
    for n, split in enumerate(splits):
        if withlabel:
            arrays[f"{prefix}/{n}/x"] = numpy.stack([ex[0] for ex in split])
            arrays[f"{prefix}/{n}/y"] = numpy.stack([ex[1] for ex in split])
        else:
            arrays[f"{prefix}/{n}/x"] = split

chainer.dataset.set_dataset_root(cached)
for i, (withlabel, ndim, scale, dtype, label_dtype, rgb) in enumerate(json.loads(mnist_args)):
    store(f"mnist{i}", datasets.get_mnist(withlabel, ndim, scale, dtype, label_dtype, rgb), withlabel)
for i, (withlabel, ndim, scale, dtype) in enumerate(json.loads(cifar_args)):
    store(f"cifar{i}", datasets.get_cifar10(withlabel, ndim, scale, dtype), withlabel)

chainer.dataset.set_dataset_root(made)
store("fashion", datasets.get_fashion_mnist(), True)
store("kuzushiji", datasets.get_kuzushiji_mnist(ndim=3), True)
store("made_mnist", datasets.get_mnist(), True)
store("cifar100", datasets.get_cifar100(), True)
for n, words in enumerate(datasets.get_ptb_words()):
    arrays[f"ptb/{n}"] = words
vocab = datasets.get_ptb_words_vocabulary()

if mushrooms:
    data = numpy.genfromtxt(mushrooms, delimiter=",", dtype=str, skip_header=1)
    for col in range(data.shape[1]):
        data[:, col] = numpy.unique(data[:, col], return_inverse=True)[1]
    X = data[:, 1:].astype(numpy.float32)
    Y = data[:, 0].astype(numpy.int32)[:, None]
    first_size = int(data.shape[0] * .7)
    store("mushrooms", datasets.split_dataset_random(datasets.TupleDataset(X, Y), first_size, seed=0), True)

with datasets.open_pickle_dataset_writer(out_dir + "/chainer.pkl") as writer:
    writer.write((1, "a", [0.5, None]))  # no array: NumPy 1's pickles warn under NumPy 2
    writer.write({"k": 2.5})
numpy.savez(out_dir + "/arrays.npz", **arrays)
with open(out_dir + "/results.json", "w") as f:
    json.dump({"vocab": vocab, "shared": run(datasets, tabular.from_data)}, f)
"""
)


def _fill_made(root):
    """The downloads that the loaders make their cache files from."""
    for i, name in enumerate(["mnist", "fashion-mnist", "kuzushiji_mnist"]):
        splits = {"train": fake_cache.mnist_arrays(7, 10 + i), "test": fake_cache.mnist_arrays(3, 20 + i)}
        fake_cache.put_mnist_downloads(root, name, splits)
    # the same CIFAR-100 images in both archives: Chainer reads the python one, fnet the binary one
    batches = fake_cache.cifar_batches("cifar-100", 5, 30)
    fake_cache.put_cifar_python_archive(root, "cifar-100", batches)
    fake_cache.put_cifar_archive(root, "cifar-100", batches)
    fake_cache.put_ptb_downloads(root)


@pytest.fixture(scope="module")
def chainer_side(tmp_path_factory):
    """Chainer's results, and the directories: the pre-filled cache, and Chainer's and fnet's
    copies of the downloads (each library makes its cache files in its own)."""
    base = tmp_path_factory.mktemp("parity")
    cached, made_chainer, made_fnet, out = (
        base / name for name in ("cached", "made_chainer", "made_fnet", "out")
    )
    out.mkdir()
    fake_cache.put_mnist_npz(cached, "mnist", "train", *fake_cache.mnist_arrays(20, 0))
    fake_cache.put_mnist_npz(cached, "mnist", "test", *fake_cache.mnist_arrays(10, 1))
    fake_cache.put_cifar_npz(
        cached, "cifar-10", fake_cache.cifar_arrays(6, 2, 10), fake_cache.cifar_arrays(4, 3, 10)
    )
    _fill_made(made_chainer)
    _fill_made(made_fnet)
    env = {k: v for k, v in os.environ.items() if not k.endswith("DATASET_ROOT")}
    env["CHAINER_DATASET_ROOT"] = str(cached)
    mushrooms = str(MUSHROOMS) if MUSHROOMS.exists() else ""
    args = [
        str(cached),
        str(made_chainer),
        str(out),
        json.dumps(MNIST_ARGS),
        json.dumps(CIFAR_ARGS),
        mushrooms,
    ]
    done = subprocess.run(
        [str(CHAINER_PYTHON), "-c", CHAINER_SCRIPT, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    with numpy.load(out / "arrays.npz") as npz:
        arrays = dict(npz)
    results = json.loads((out / "results.json").read_text())
    return {
        "pickles": str(out / "chainer.pkl"),
        "arrays": arrays,
        "results": results,
        "cached": cached,
        "made_chainer": made_chainer,
        "made_fnet": made_fnet,
    }


@pytest.fixture
def dataset_root():
    def use(path):
        fdata.set_dataset_root(str(path))

    yield use
    fdata.set_dataset_root(None)


def _assert_splits(chainer_side, prefix, splits, withlabel):
    for n, split in enumerate(splits):
        expected_x = chainer_side["arrays"][f"{prefix}/{n}/x"]
        got_x = numpy.stack([ex[0] for ex in split]) if withlabel else split
        assert got_x.dtype == expected_x.dtype and got_x.shape == expected_x.shape
        numpy.testing.assert_array_equal(got_x, expected_x)
        if withlabel:
            got_y = numpy.stack([ex[1] for ex in split])
            expected_y = chainer_side["arrays"][f"{prefix}/{n}/y"]
            assert got_y.dtype == expected_y.dtype
            numpy.testing.assert_array_equal(got_y, expected_y)


@pytest.mark.parametrize("i", range(len(MNIST_ARGS)))
def test_get_mnist_matches_chainer(chainer_side, dataset_root, i):
    dataset_root(chainer_side["cached"])
    withlabel, ndim, scale, dtype, label_dtype, rgb_format = MNIST_ARGS[i]
    splits = fdata.get_mnist(withlabel, ndim, scale, dtype, label_dtype, rgb_format)
    _assert_splits(chainer_side, f"mnist{i}", splits, withlabel)


@pytest.mark.parametrize("i", range(len(CIFAR_ARGS)))
def test_get_cifar10_matches_chainer(chainer_side, dataset_root, i):
    dataset_root(chainer_side["cached"])
    withlabel, ndim, scale, dtype = CIFAR_ARGS[i]
    _assert_splits(chainer_side, f"cifar{i}", fdata.get_cifar10(withlabel, ndim, scale, dtype), withlabel)


def test_get_cifar100_reads_the_cache_file_chainer_made(chainer_side, dataset_root, tmp_path):
    """Chainer's cifar-100.npz (made from the python archive) is read as it is: no download."""
    directory = tmp_path / "pfnet" / "chainer" / "cifar"
    directory.mkdir(parents=True)
    shutil.copy(chainer_side["made_chainer"] / "pfnet" / "chainer" / "cifar" / "cifar-100.npz", directory)
    dataset_root(tmp_path)
    _assert_splits(chainer_side, "cifar100", fdata.get_cifar100(), True)
    assert sorted(os.listdir(tmp_path)) == ["pfnet"] and os.listdir(directory) == ["cifar-100.npz"]


def test_loaders_make_the_same_cache_files_as_chainer(chainer_side, dataset_root):
    dataset_root(chainer_side["made_fnet"])
    _assert_splits(chainer_side, "fashion", fdata.get_fashion_mnist(), True)
    _assert_splits(chainer_side, "kuzushiji", fdata.get_kuzushiji_mnist(ndim=3), True)
    _assert_splits(chainer_side, "made_mnist", fdata.get_mnist(), True)
    _assert_splits(chainer_side, "cifar100", fdata.get_cifar100(), True)
    for n, words in enumerate(fdata.get_ptb_words()):
        assert words.dtype == numpy.int32
        numpy.testing.assert_array_equal(words, chainer_side["arrays"][f"ptb/{n}"])
    assert fdata.get_ptb_words_vocabulary() == chainer_side["results"]["vocab"]
    made_chainer, made_fnet = chainer_side["made_chainer"], chainer_side["made_fnet"]
    npz_files = sorted(p.relative_to(made_chainer) for p in made_chainer.glob("pfnet/**/*.npz"))
    assert len(npz_files) == 10 and npz_files == sorted(
        p.relative_to(made_fnet) for p in made_fnet.glob("pfnet/**/*.npz")
    )
    for relative in npz_files:
        with numpy.load(made_chainer / relative) as theirs, numpy.load(made_fnet / relative) as ours:
            assert sorted(theirs.files) == sorted(ours.files)
            for key in theirs.files:
                assert theirs[key].dtype == ours[key].dtype
                numpy.testing.assert_array_equal(theirs[key], ours[key])
    vocab = "pfnet/chainer/ptb/vocab.txt"
    assert (made_chainer / vocab).read_text() == (made_fnet / vocab).read_text()


def test_general_and_tabular_datasets_match_chainer(chainer_side):
    namespace: dict = {}
    exec(SHARED, namespace)
    ours = json.loads(json.dumps(namespace["run"](fdata, fdata.from_data)))
    theirs = chainer_side["results"]["shared"]
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        assert ours[key] == theirs[key], key


@pytest.mark.skipif(not MUSHROOMS.exists(), reason="needs ../shared/data/mushrooms.csv")
def test_chainer_at_a_glance_split_matches_chainer(chainer_side):
    data = numpy.genfromtxt(MUSHROOMS, delimiter=",", dtype=str, skip_header=1)
    for col in range(data.shape[1]):
        data[:, col] = numpy.unique(data[:, col], return_inverse=True)[1]
    X = data[:, 1:].astype(numpy.float32)
    Y = data[:, 0].astype(numpy.int32)[:, None]
    splits = fdata.split_dataset_random(fdata.TupleDataset(X, Y), int(data.shape[0] * 0.7), seed=0)
    _assert_splits(chainer_side, "mushrooms", splits, True)


def test_pickle_dataset_reads_chainers_files(chainer_side):
    with fdata.open_pickle_dataset(chainer_side["pickles"]) as ds:
        assert len(ds) == 2 and ds[1] == {"k": 2.5}
        assert ds[0] == (1, "a", [0.5, None])
