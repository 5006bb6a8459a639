"""Fixtures of the tests of ``helpers.data``: no ``WORKBOOK_DATASETS`` from the runner, the tiny
dataset (``tests/support/datasets.py``) in a local folder, good or with files replaced, an empty
cache, a local HTTP mirror, a closed port and another process."""

from __future__ import annotations

import signal
import socket
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from helpers import data
from tests.support.datasets import ENV, Tiny, build_tiny, write_folder

# --- fixtures ----------------------------------------------------------------


@pytest.fixture(autouse=True)
def no_datasets_env(monkeypatch):
    """Each test starts without WORKBOOK_DATASETS, whatever the runner's environment."""
    monkeypatch.delenv(ENV, raising=False)


@pytest.fixture
def tiny() -> Tiny:
    return build_tiny()


@pytest.fixture
def cache(tmp_path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def good_source(tmp_path, tiny, monkeypatch) -> Path:
    """A good local folder, named by WORKBOOK_DATASETS."""
    root = write_folder(tmp_path / "source", tiny)
    monkeypatch.setenv(ENV, str(root))
    return root


@pytest.fixture
def bad_source(tmp_path, tiny, monkeypatch):
    """Call with {key: .gz bytes}: a local folder with those files replaced, set as the source."""

    def make(replace: dict) -> Path:
        root = write_folder(tmp_path / "source", tiny, replace)
        monkeypatch.setenv(ENV, str(root))
        return root

    return make


class MirrorServer:
    """An HTTP server on 127.0.0.1 that serves ``routes``: path -> (body, Content-Length or
    None); ``requests`` lists the paths asked for."""

    def __init__(self):
        self.routes: dict = {}
        self.requests: list = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                server.requests.append(self.path)
                if self.path not in server.routes:
                    self.send_error(404)
                    return
                body, length = server.routes[self.path]
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                if length is not None:  # None: no header, the body ends when the socket closes
                    self.send_header("Content-Length", str(length))
                self.end_headers()
                self.wfile.write(body)  # may be shorter than Content-Length
                self.close_connection = True  # then the socket is closed

            def log_message(self, *args):  # keep the test output clean
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def mirror(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/{name}/"

    def serve(
        self,
        mirror: str,
        filename: str,
        body: bytes,
        length: int | None = None,
        send_length: bool = True,
    ) -> None:
        """``length``: the Content-Length sent (the body's own by default); ``send_length=False``
        sends none, as a server streaming the file does."""
        length = len(body) if length is None else length
        self.routes[f"/{mirror}/{filename}"] = (body, length if send_length else None)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def server(request, monkeypatch) -> MirrorServer:
    # A short timeout, so that a server-side mistake fails the test instead of hanging it.
    monkeypatch.setattr(data, "DOWNLOAD_TIMEOUT_SECONDS", 5)
    mirror_server = MirrorServer()
    request.addfinalizer(mirror_server.close)
    return mirror_server


@pytest.fixture
def other_process():
    """A process of this user that stands for another kernel's fetch: ``sleep``, with SIGHUP at
    its default (ended by it) even under ``nohup``; killed after the test if still running."""
    process = subprocess.Popen(
        ["sleep", "60"], preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL)
    )
    yield process
    if process.poll() is None:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture
def closed_port() -> int:
    """A local port with nothing listening on it: connecting is refused at once."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
