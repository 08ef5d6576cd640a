"""The dataset cache: the root, dataset directories, cached downloads, cache_or_load_file."""

from __future__ import annotations

import hashlib
import logging
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


def test_failed_download_names_the_url_and_the_cache_path(root, caplog):
    caplog.set_level(logging.INFO, logger="fnet.data.download")
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
    assert f"Downloading from {url}..." in caplog.messages


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


# -- SHA-256 checks and mirrors ---------------------------------------------------------------


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _cache_path(root, url: str) -> str:
    return os.path.join(str(root), "_dl_cache", hashlib.md5(url.encode()).hexdigest())


def test_a_download_with_the_right_sha256_is_cached(root, http_server, caplog):
    caplog.set_level(logging.INFO, logger="fnet.data.download")
    base, files = http_server
    files["/data/f.bin"] = b"payload"
    url = base + "/data/f.bin"
    path = cached_download(url, sha256=_sha256(b"payload"))
    assert path == _cache_path(root, url)
    assert pathlib.Path(path).read_bytes() == b"payload"
    assert sorted(os.listdir(os.path.join(root, "_dl_cache"))) == sorted(["_dl_lock", os.path.basename(path)])
    assert caplog.messages == [f"Downloading from {url}..."]
    files.clear()  # cached: not downloaded again
    assert cached_download(url, sha256=_sha256(b"payload")) == path


def test_a_download_with_another_sha256_is_deleted_and_reported(root, http_server):
    base, files = http_server
    files["/data/f.bin"] = b"tampered"
    url = base + "/data/f.bin"
    expected = _sha256(b"original")
    with pytest.raises(DatasetCacheError) as info:
        cached_download(url, sha256=expected)
    text = str(info.value)
    assert f"cached_download: cannot download {url}:" in text
    got = _sha256(b"tampered")
    assert f"from {url}: wrong SHA-256: expected {expected}, got {got} (the download was deleted)" in text
    assert f"check that its SHA-256 is {expected}, and save it as {_cache_path(root, url)}" in text
    assert os.listdir(os.path.join(root, "_dl_cache")) == ["_dl_lock"]  # neither the file nor a temporary


def test_a_truncated_download_is_reported_and_removed(root, http_server):
    base, files = http_server
    files["/data/f.bin"] = (b"0123456789", 100)  # the server hangs up after 10 of 100 bytes
    url = base + "/data/f.bin"
    with pytest.raises(
        DatasetCacheError, match=r"/data/f.bin: the connection closed after 10 of the 100 bytes"
    ):
        cached_download(url)
    assert os.listdir(os.path.join(root, "_dl_cache")) == ["_dl_lock"]


def test_sources_are_tried_in_order_and_the_file_is_cached_under_url(root, http_server, caplog):
    caplog.set_level(logging.INFO, logger="fnet.data.download")
    base, files = http_server
    files["/bad/f.bin"] = b"wrong bytes"
    files["/good/f.bin"] = b"right bytes"
    url = "http://gone.invalid/data/f.bin"  # Chainer's URL: it names the file in the cache
    sources = [base + "/missing/f.bin", base + "/bad/f.bin", base + "/good/f.bin", url]
    path = cached_download(url, sha256=_sha256(b"right bytes"), sources=sources)
    assert path == _cache_path(root, url)
    assert pathlib.Path(path).read_bytes() == b"right bytes"
    assert caplog.messages == [f"Downloading from {s}..." for s in sources[:3]]


def test_when_every_source_fails_each_is_named(root, http_server):
    base, files = http_server
    files["/bad/f.bin"] = b"wrong bytes"
    url = "http://gone.invalid/data/f.bin"
    expected = _sha256(b"right bytes")
    with pytest.raises(DatasetCacheError) as info:
        cached_download(url, sha256=expected, sources=[base + "/missing/f.bin", base + "/bad/f.bin", url])
    lines = str(info.value).splitlines()
    assert lines[:4] == [
        f"cached_download: cannot download {url}:",
        f"    from {base}/missing/f.bin: HTTP Error 404: File not found",
        f"    from {base}/bad/f.bin: wrong SHA-256: expected {expected}, got {_sha256(b'wrong bytes')} "
        "(the download was deleted)",
        f"    from {url}: <urlopen error network access is disabled in the tests>",
    ]
    assert lines[4].startswith(f"  hint: without network access, download {url} elsewhere")
    assert os.listdir(os.path.join(root, "_dl_cache")) == ["_dl_lock"]


def test_a_file_already_in_the_cache_is_trusted(root):
    url = "http://gone.invalid/data/f.bin"
    os.makedirs(os.path.join(root, "_dl_cache"))
    pathlib.Path(_cache_path(root, url)).write_bytes(b"put here by Chainer")
    assert cached_download(url, sha256=_sha256(b"other bytes")) == _cache_path(root, url)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"sha256": "ABC"}, ValueError, r"expected sha256 to be 64 lowercase hexadecimal digits, got 'ABC'"),
        ({"sha256": "F" * 64}, ValueError, "expected sha256 to be 64 lowercase hexadecimal digits"),
        ({"sources": "http://a/f"}, TypeError, "expected sources to be a non-empty sequence of URLs"),
        ({"sources": []}, TypeError, r"expected sources to be a non-empty sequence of URLs, got \[\]"),
        ({"sources": [b"http://a/f"]}, TypeError, "expected sources to be a non-empty sequence of URLs"),
    ],
)
def test_malformed_checks_and_sources_are_rejected(root, kwargs, error, match):
    with pytest.raises(error, match=f"cached_download: {match}"):
        cached_download("http://a/f", **kwargs)
