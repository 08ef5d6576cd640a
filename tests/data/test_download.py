"""The dataset cache: the root, dataset directories, cached downloads, cache_or_load_file."""

from __future__ import annotations

import hashlib
import os
import pathlib
import threading

import pytest

from fnet.data import DatasetCacheError, download
from fnet.data.download import (
    cache_or_load_file,
    cached_download,
    get_dataset_directory,
    get_dataset_root,
    set_dataset_root,
)


def test_root_from_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("FNET_DATASET_ROOT", raising=False)
    monkeypatch.delenv("CHAINER_DATASET_ROOT", raising=False)
    assert get_dataset_root() == os.path.join(os.path.expanduser("~"), ".chainer", "dataset")
    monkeypatch.setenv("CHAINER_DATASET_ROOT", "/chainer/root")
    assert get_dataset_root() == "/chainer/root"
    monkeypatch.setenv("FNET_DATASET_ROOT", "/fnet/root")
    assert get_dataset_root() == "/fnet/root"
    set_dataset_root(tmp_path)  # a PathLike is accepted and kept as a str
    try:
        assert get_dataset_root() == str(tmp_path)
    finally:
        set_dataset_root(None)
    assert get_dataset_root() == "/fnet/root"


def test_set_dataset_root_rejects_non_paths():
    with pytest.raises(TypeError, match=r"set_dataset_root: expected path to be a str.*got int 3"):
        set_dataset_root(3)


def test_get_dataset_directory(root):
    path = get_dataset_directory("pfnet/chainer/mnist", create_directory=False)
    assert path == os.path.join(str(root), "pfnet/chainer/mnist")
    assert not os.path.exists(path)
    assert get_dataset_directory("pfnet/chainer/mnist") == path
    assert os.path.isdir(path)
    assert get_dataset_directory("pfnet/chainer/mnist") == path  # already there: no error


def test_cached_download_caches_under_the_md5_of_the_url(root, tmp_path_factory):
    source = tmp_path_factory.mktemp("remote") / "file.bin"
    source.write_bytes(b"payload")
    url = source.as_uri()
    path = cached_download(url)
    assert path == os.path.join(str(root), "_dl_cache", hashlib.md5(url.encode()).hexdigest())
    assert pathlib.Path(path).read_bytes() == b"payload"
    source.unlink()  # the second call does not download again
    assert cached_download(url) == path
    assert sorted(os.listdir(os.path.join(root, "_dl_cache"))) == sorted(["_dl_lock", os.path.basename(path)])


def test_failed_download_names_the_url_and_the_cache_path(root, capsys):
    url = "http://example.invalid/data/train.gz"
    expected = os.path.join(str(root), "_dl_cache", hashlib.md5(url.encode()).hexdigest())
    with pytest.raises(DatasetCacheError) as info:
        cached_download(url)
    text = str(info.value)
    assert f"cannot download {url}" in text
    assert f"save it as {expected}" in text
    assert isinstance(info.value, OSError)
    assert not os.path.exists(expected)
    assert os.listdir(os.path.join(root, "_dl_cache")) == ["_dl_lock"]  # no temporary left
    assert f"Downloading from {url}..." in capsys.readouterr().err


def test_cached_download_rejects_a_non_str_url(root):
    with pytest.raises(TypeError, match="cached_download: expected url to be a str"):
        cached_download(b"http://x")


def test_cache_or_load_file_creates_then_loads(root):
    path = os.path.join(get_dataset_directory("toy"), "value.txt")
    made = []

    def creator(temp):
        assert os.path.basename(temp) == "value.txt"  # same base name (numpy.savez adds .npz otherwise)
        assert not os.path.exists(temp)
        pathlib.Path(temp).write_text("7")
        made.append(temp)
        return "created"

    def loader(p):
        return "loaded " + pathlib.Path(p).read_text()

    assert cache_or_load_file(path, creator, loader) == "created"
    assert cache_or_load_file(path, creator, loader) == "loaded 7"
    assert len(made) == 1
    assert sorted(os.listdir(os.path.dirname(path))) == ["value.txt"]
    assert os.path.exists(os.path.join(root, "_create_lock"))


def test_cache_or_load_file_leaves_nothing_when_the_creator_fails(root):
    path = os.path.join(get_dataset_directory("toy"), "value.txt")

    def creator(temp):
        pathlib.Path(temp).write_text("half")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        cache_or_load_file(path, creator, pathlib.Path.read_text)
    assert os.listdir(os.path.dirname(path)) == []


def test_a_failed_download_inside_a_creator_names_the_file_to_fill(root):
    path = os.path.join(get_dataset_directory("toy"), "train.npz")

    def creator(temp):
        cached_download("http://example.invalid/raw.gz")

    with pytest.raises(DatasetCacheError) as info:
        cache_or_load_file(path, creator, pathlib.Path.read_text)
    assert any(path in note for note in info.value.__notes__)


def test_cache_or_load_file_under_concurrent_creators(root):
    path = os.path.join(get_dataset_directory("toy"), "value.txt")
    barrier = threading.Barrier(4)
    results = []

    def creator(temp):
        pathlib.Path(temp).write_text(threading.current_thread().name)
        return "created"

    def run():
        barrier.wait()
        results.append(cache_or_load_file(path, creator, lambda p: "loaded"))

    threads = [threading.Thread(target=run, name=f"t{i}") for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4
    assert pathlib.Path(path).read_text() in {"t0", "t1", "t2", "t3"}
    assert os.listdir(os.path.dirname(path)) == ["value.txt"]


def test_cache_or_load_file_reports_an_unwritable_root(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    set_dataset_root(blocker / "root")  # a directory cannot be made under a file
    try:
        with pytest.raises(RuntimeError, match="cannot create the dataset directory"):
            cache_or_load_file(str(blocker / "root" / "x.npz"), lambda p: None, lambda p: None)
    finally:
        set_dataset_root(None)


def test_the_lock_excludes_other_holders(tmp_path):
    lock = str(tmp_path / "lock")
    order = []

    def other():
        with download._file_lock(lock):
            order.append("other")

    with download._file_lock(lock):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join(0.2)
        order.append("first")
    thread.join()
    assert order == ["first", "other"]
