"""Fixtures of the data tests: a fresh dataset root in a temporary directory, no network, and a
web server on this machine."""

from __future__ import annotations

import http.server
import threading
import urllib.error
import urllib.request

import pytest

from fnet.data import download

LOCAL = "http://127.0.0.1:"


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """Every URL but ``file://`` and this machine's fails at once, as without network access."""
    real_urlopen = urllib.request.urlopen

    def urlopen(url, *args, **kwargs):
        if str(url).startswith(("file://", LOCAL)):
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


class _Handler(http.server.BaseHTTPRequestHandler):
    """Answers GET with the server's ``files``: path -> bytes, or (bytes, declared length) to
    send fewer bytes than the header announces and hang up; 404 for other paths."""

    def do_GET(self):
        entry = self.server.files.get(self.path)
        if entry is None:
            self.send_error(404, "File not found")
            return
        body, length = entry if isinstance(entry, tuple) else (entry, len(entry))
        self.send_response(200)
        self.send_header("Content-Length", str(length))
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def log_message(self, *args):
        pass


@pytest.fixture
def http_server(monkeypatch):
    """A web server on 127.0.0.1: ``(base_url, files)``, ``files`` the dict of paths (such as
    ``"/mnist/a.gz"``) to the bytes it serves."""
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.files = {}
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{LOCAL}{server.server_address[1]}", server.files
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
