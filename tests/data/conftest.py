"""Fixtures of the data tests: a fresh dataset root in a temporary directory, and no network."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from fnet.data import download


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """Every URL but ``file://`` fails at once, as on a machine without network access."""
    real_urlopen = urllib.request.urlopen

    def urlopen(url, *args, **kwargs):
        if str(url).startswith("file://"):
            return real_urlopen(url, *args, **kwargs)
        raise urllib.error.URLError("network access is disabled in the tests")

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)


@pytest.fixture
def root(tmp_path):
    """A new, empty dataset root, set with ``set_dataset_root`` for the test."""
    download.set_dataset_root(str(tmp_path))
    try:
        yield tmp_path
    finally:
        download.set_dataset_root(None)
