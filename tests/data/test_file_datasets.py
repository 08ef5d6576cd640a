"""Datasets read from files: images (with Pillow), text lines, pickles."""

from __future__ import annotations

import builtins
import multiprocessing
import os
import pickle
import zipfile

import numpy
import pytest

from fnet.data import (
    ImageDataset,
    LabeledImageDataset,
    LabeledZippedImageDataset,
    MultiZippedImageDataset,
    PickleDataset,
    PickleDatasetWriter,
    TextDataset,
    ZippedImageDataset,
    open_pickle_dataset,
    open_pickle_dataset_writer,
)


@pytest.fixture
def images(tmp_path):
    """Three PNG files: RGB 4x3, greyscale 4x3, RGB 2x2; with their expected (C, H, W) arrays."""
    Image = pytest.importorskip("PIL.Image")
    rng = numpy.random.RandomState(0)
    arrays = {
        "rgb.png": rng.randint(0, 256, (3, 4, 3)).astype(numpy.uint8),
        "grey.png": rng.randint(0, 256, (3, 4)).astype(numpy.uint8),
        "sub/small.png": rng.randint(0, 256, (2, 2, 3)).astype(numpy.uint8),
    }
    (tmp_path / "sub").mkdir()
    for name, array in arrays.items():
        Image.fromarray(array).save(tmp_path / name)
    expected = {
        name: (array[None] if array.ndim == 2 else array.transpose(2, 0, 1)) for name, array in arrays.items()
    }
    return tmp_path, expected


def test_image_dataset(images):
    root, expected = images
    ds = ImageDataset(list(expected), root=str(root))
    assert len(ds) == 3
    for i, name in enumerate(expected):
        assert ds[i].dtype == numpy.float32
        numpy.testing.assert_array_equal(ds[i], expected[name])
    (root / "list.txt").write_text("".join(f"{name}\n" for name in expected))
    from_file = ImageDataset(str(root / "list.txt"), root=str(root), dtype=numpy.uint8)
    assert from_file[1].dtype == numpy.uint8 and from_file[1].shape == (1, 3, 4)


def test_labeled_image_dataset(images):
    root, expected = images
    names = list(expected)
    ds = LabeledImageDataset([(names[0], 3), (names[2], 7)], root=str(root), label_dtype=numpy.int64)
    image, label = ds[1]
    numpy.testing.assert_array_equal(image, expected[names[2]])
    assert label.shape == () and label.dtype == numpy.int64 and label == 7
    (root / "pairs.txt").write_text(f"{names[1]} 5\n{names[0]}  2\n")
    image, label = LabeledImageDataset(str(root / "pairs.txt"), root=str(root))[0]
    assert image.shape == (1, 3, 4) and label.dtype == numpy.int32 and label == 5
    (root / "bad.txt").write_text(f"{names[1]} 5\n{names[0]}\n")
    with pytest.raises(ValueError, match=r"invalid format at line 1 in file .*bad.txt"):
        LabeledImageDataset(str(root / "bad.txt"))


def _zip(path, root, names):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("folder/", b"")
        for name in names:
            archive.write(root / name, name)
    return str(path)


def test_zipped_image_datasets(images, tmp_path):
    root, expected = images
    names = list(expected)
    first = _zip(tmp_path / "a.zip", root, names[:2])
    second = _zip(tmp_path / "b.zip", root, names[2:])
    zipped = ZippedImageDataset(first)
    assert len(zipped) == 2  # the directory entry is skipped
    numpy.testing.assert_array_equal(zipped[1], expected[names[1]])
    numpy.testing.assert_array_equal(zipped.get_example(names[0]), expected[names[0]])
    clone = pickle.loads(pickle.dumps(zipped))  # reopens the archive
    numpy.testing.assert_array_equal(clone[0], expected[names[0]])
    multi = MultiZippedImageDataset([first, second])
    assert len(multi) == 3
    for i, name in enumerate(names):
        numpy.testing.assert_array_equal(multi[i], expected[name])
    labels = tmp_path / "labels.txt"
    labels.write_text(f"{names[1]} 4\n{names[0]} 9\n")
    labeled = LabeledZippedImageDataset(first, str(labels))
    image, label = labeled[0]
    numpy.testing.assert_array_equal(image, expected[names[1]])
    assert label == 4 and label.dtype == numpy.int32


def test_image_datasets_without_pillow(monkeypatch, tmp_path):
    real_import = builtins.__import__

    def no_pil(name, *args, **kwargs):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError("No module named 'PIL'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pil)
    with pytest.raises(
        ImportError, match=r"(?s)ImageDataset: reading images needs Pillow.*pip install Pillow"
    ):
        ImageDataset([])
    with pytest.raises(ImportError, match="LabeledImageDataset: reading images needs Pillow"):
        LabeledImageDataset([])
    with pytest.raises(ImportError, match="ZippedImageDataset: reading images needs Pillow"):
        ZippedImageDataset(str(tmp_path / "none.zip"))


def test_text_dataset(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("alpha\nbeta\n\ngamma")
    ds = TextDataset(str(path))
    assert len(ds) == 4
    assert ds[0] == "alpha\n" and ds[2] == "\n" and ds[3] == "gamma"
    assert ds[1:3] == ["beta\n", "\n"]
    with pytest.raises(IndexError, match="index 4 is out of range for length 4"):
        ds[4]
    with pytest.raises(IndexError):
        ds[-1]  # Chainer's TextDataset takes no negative index
    clone = pickle.loads(pickle.dumps(ds))  # reopens the file, keeps the line positions
    assert clone[3] == "gamma"
    ds.close()
    clone.close()


def test_text_dataset_of_several_files(tmp_path):
    (tmp_path / "en.txt").write_text("one\ntwo\nthree\n")
    (tmp_path / "fr.txt").write_bytes("un\ndeux\ntrois\n".encode("latin-1"))
    ds = TextDataset(
        [str(tmp_path / "en.txt"), str(tmp_path / "fr.txt")],
        encoding=["utf-8", "latin-1"],
        filter_func=lambda en, fr: en != "two\n",
    )
    assert len(ds) == 2
    assert ds[1] == ("three\n", "trois\n")
    single = TextDataset([str(tmp_path / "en.txt")])
    assert single[0] == "one\n"  # one file in a list still gives str
    (tmp_path / "short.txt").write_text("x\n")
    with pytest.raises(ValueError, match="do not have the same number of lines"):
        TextDataset([str(tmp_path / "en.txt"), str(tmp_path / "short.txt")])
    with pytest.raises(ValueError, match="at least one text file must be specified"):
        TextDataset([])
    with pytest.raises(ValueError, match="encoding has 1 entries for 2 text files"):
        TextDataset([str(tmp_path / "en.txt")] * 2, encoding=["utf-8"])


def test_pickle_dataset_round_trip(tmp_path):
    path = str(tmp_path / "data.pkl")
    examples = [(1, 2.0, "hello"), {"x": numpy.arange(3)}, None]
    with open_pickle_dataset_writer(path) as writer:
        for example in examples:
            writer.write(example)
        writer.flush()
    with open_pickle_dataset(path) as ds:
        assert len(ds) == 3
        assert ds[0] == examples[0] and ds[2] is None
        numpy.testing.assert_array_equal(ds[1]["x"], numpy.arange(3))
        clone = pickle.loads(pickle.dumps(ds))
        assert clone[0] == examples[0]
        clone.close()


def test_pickle_dataset_writer_on_any_file(tmp_path):
    path = tmp_path / "data.pkl"
    with PickleDatasetWriter(open(path, "wb"), protocol=2) as writer:
        writer.write("a")
        writer.write("b")
    with open(path, "rb") as f:
        assert PickleDataset(f)[1] == "b"


def test_pickle_dataset_writer_is_atomic(tmp_path):
    path = str(tmp_path / "data.pkl")
    with open_pickle_dataset_writer(path) as writer:
        writer.write("old")
    writer = open_pickle_dataset_writer(path)
    writer.write("new")
    with open_pickle_dataset(path) as ds:  # not closed yet: the old file is still there
        assert ds[:] == ["old"]
    writer.close()
    with open_pickle_dataset(path) as ds:
        assert ds[:] == ["new"]
    assert os.listdir(tmp_path) == ["data.pkl"]


def test_pickle_dataset_needs_random_access():
    class Stream:
        def seekable(self):
            return False

    with pytest.raises(ValueError, match="reader must support random access"):
        PickleDataset(Stream())


def _read_in_child(ds, queue):
    queue.put(ds[1])


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_pickle_dataset_in_a_forked_child(tmp_path):
    path = str(tmp_path / "data.pkl")
    with open_pickle_dataset_writer(path) as writer:
        for i in range(3):
            writer.write(i)
    with open_pickle_dataset(path) as ds:
        context = multiprocessing.get_context("fork")
        queue = context.Queue()
        child = context.Process(target=_read_in_child, args=(ds, queue))
        child.start()
        assert queue.get(timeout=10) == 1
        child.join(10)
        assert ds[2] == 2  # the parent's file is untouched by the child's reads
