"""`tools/get_uv.py` gets uv from PyPI for a Python without pip.

The wheel choice is tried on uv 0.13.9's real file names; the download, the
SHA-256 check and the unpacking against a local stand-in of PyPI's JSON simple
API (a local HTTP server), so no network is needed.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import os
import subprocess
import sys
import threading
import zipfile

import pytest

from tests import ROOT

SCRIPT = ROOT / "tools" / "get_uv.py"
VERSION = "0.13.9"
NAMES = [
    f"uv-{VERSION}-py3-none-{tags}.whl"
    for tags in (
        "linux_armv6l",
        "macosx_10_12_x86_64",
        "macosx_11_0_arm64",
        "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64",
        "manylinux_2_17_armv7l.manylinux2014_armv7l",
        "manylinux_2_17_i686.manylinux2014_i686",
        "manylinux_2_17_x86_64.manylinux2014_x86_64",
        "manylinux_2_28_aarch64",
        "musllinux_1_1_x86_64",
        "win_amd64",
    )
]


@pytest.fixture(scope="module")
def get_uv(load_script):
    return load_script("tools/get_uv.py")


@pytest.mark.parametrize(
    "system, machine, libc, expected",
    [
        ("linux", "x86_64", ("glibc", (2, 36)), "manylinux_2_17_x86_64.manylinux2014_x86_64"),
        (
            "linux",
            "aarch64",
            ("glibc", (2, 17)),
            "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64",
        ),
        ("linux", "x86_64", ("musl", (0, 0)), "musllinux_1_1_x86_64"),
        ("darwin", "arm64", ("", (0, 0)), "macosx_11_0_arm64"),
        ("darwin", "x86_64", ("", (0, 0)), "macosx_10_12_x86_64"),
        ("linux", "x86_64", ("glibc", (2, 12)), None),  # too old a glibc for any of them
        ("linux", "riscv64", ("glibc", (2, 36)), None),
    ],
)
def test_picks_the_wheel_for_the_machine(get_uv, system, machine, libc, expected):
    entry = get_uv.pick([{"filename": name} for name in NAMES], VERSION, system, machine, libc)
    if expected is None:
        assert entry is None
    else:
        assert entry["filename"] == f"uv-{VERSION}-py3-none-{expected}.whl"


def _wheel() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        wheel.writestr(f"uv-{VERSION}.data/scripts/uv", "#!/bin/sh\necho uv-stand-in\n")
        wheel.writestr(f"uv-{VERSION}.dist-info/METADATA", "Name: uv\n")
    return buffer.getvalue()


@pytest.fixture
def index(get_uv):
    """A local PyPI stand-in listing a uv wheel for this machine; ``files`` maps paths to bytes."""
    files = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = files.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    system, machine, libc = get_uv.this_machine()
    name = get_uv.pick([{"filename": n} for n in NAMES], VERSION, system, machine, libc)
    if name is None:
        server.shutdown()
        pytest.skip("uv has no wheel for this machine")

    def publish(wheel: bytes, sha256: str):
        files["/wheel.whl"] = wheel
        files["/simple/uv/"] = json.dumps(
            {
                "files": [
                    {
                        "filename": name["filename"],
                        "url": f"{base}/wheel.whl",
                        "hashes": {"sha256": sha256},
                    }
                ]
            }
        ).encode()

    yield base + "/simple", publish
    server.shutdown()


def _run(index_url, folder):
    env = {**os.environ, "WORKBOOK_UV_INDEX": index_url}
    return subprocess.run(
        [sys.executable, str(SCRIPT), VERSION, str(folder)], env=env, capture_output=True, text=True
    )


def test_downloads_checks_and_unpacks_uv(index, tmp_path):
    url, publish = index
    wheel = _wheel()
    publish(wheel, hashlib.sha256(wheel).hexdigest())
    result = _run(url, tmp_path / "uv")
    assert result.returncode == 0, result.stderr
    program = tmp_path / "uv" / "bin" / "uv"
    assert result.stdout.strip() == str(program)
    assert subprocess.run([str(program)], capture_output=True, text=True).stdout == "uv-stand-in\n"


def test_a_wheel_that_does_not_match_its_hash_is_refused_in_one_line(index, tmp_path):
    url, publish = index
    publish(_wheel(), "0" * 64)
    result = _run(url, tmp_path / "uv")
    assert result.returncode == 1 and not (tmp_path / "uv").exists()
    assert (
        result.stderr.strip()
        == "The uv wheel downloaded from PyPI does not match its SHA-256: run make again"
    )


def test_no_network_is_one_line(tmp_path):
    result = _run("http://127.0.0.1:9/simple", tmp_path / "uv")  # the discard port: nothing answers
    message = result.stderr.strip()
    assert result.returncode == 1 and "\n" not in message
    assert message.startswith("Could not get uv from PyPI (") and "install uv" in message
