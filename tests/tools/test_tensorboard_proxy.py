"""TensorBoard through the Jupyter server, as on a JupyterHub or Binder.

(tests/tools/test_hub.py does it all on a real JupyterHub, from the kernel's cell on; this
test is the quick chain, and checks the kernel config's settings one by one.)

Starts a Jupyter server (with jupyter-server-proxy, from requirements.txt) under
a hub-like base URL and a TensorBoard on another loopback port; builds the frame
that `%tensorboard` (notebook 06) would show, with the proxy URL that
tools/ipython_kernel_config.py sets on a hub; and fetches that frame's address
through the Jupyter server. Every process started here is stopped at the end.
"""

import atexit
import json
import os
import re
import runpy
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests import ROOT
from tests.support.processes import stop_group

TOKEN = "workbook-proxy-test-token"
BASE_URL = "/user/ada/"
CONFIG = ROOT / "tools" / "ipython_kernel_config.py"
BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str, token: str | None = TOKEN):
    headers = {"Authorization": f"token {token}"} if token else {}
    with urllib.request.urlopen(
        urllib.request.Request(url, headers=headers), timeout=10
    ) as response:
        return response.status, response.read().decode("utf-8", "replace")


def _wait_for(url: str, process: subprocess.Popen, what: str, token: str | None = None) -> None:
    deadline = time.monotonic() + 90
    while True:
        try:
            _get(url, token)
            return
        except (urllib.error.URLError, ConnectionError):
            if process.poll() is not None:
                pytest.fail(f"{what} exited:\n{process.stdout.read()}")
            if time.monotonic() > deadline:
                pytest.fail(f"{what} did not answer within 90 s")
            time.sleep(0.5)


def _environ_set_by_config(environ: dict, executable: str = "/course/.venv/bin/python") -> dict:
    """The environment tools/ipython_kernel_config.py leaves a kernel started with ``environ``."""
    saved, saved_executable, saved_register = dict(os.environ), sys.executable, atexit.register
    try:
        os.environ.clear()
        os.environ.update(environ)
        sys.executable = executable
        atexit.register = lambda function, *args: (
            function
        )  # nothing left behind in pytest's process
        runpy.run_path(str(CONFIG), init_globals={"c": None})
        return dict(os.environ)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        sys.executable, atexit.register = saved_executable, saved_register


def _proxy_url_set_by_config(environ: dict) -> str | None:
    """TENSORBOARD_PROXY_URL as the kernel config leaves it for a kernel with ``environ``."""
    return _environ_set_by_config(environ).get("TENSORBOARD_PROXY_URL")


def test_config_sets_the_proxy_url_only_on_a_hub():
    assert (
        _proxy_url_set_by_config({"JUPYTERHUB_SERVICE_PREFIX": "/user/ada/"})
        == "/user/ada/proxy/%PORT%/"
    )
    assert (
        _proxy_url_set_by_config({"JUPYTERHUB_SERVICE_PREFIX": "/user/ada"})
        == "/user/ada/proxy/%PORT%/"
    )
    assert _proxy_url_set_by_config({}) is None  # a laptop: %tensorboard frames port 6006 as before
    chosen = {"JUPYTERHUB_SERVICE_PREFIX": "/user/ada/", "TENSORBOARD_PROXY_URL": "/custom/%PORT%/"}
    assert _proxy_url_set_by_config(chosen) == "/custom/%PORT%/"


def test_config_puts_the_kernels_own_programs_first_on_its_path():
    """%tensorboard runs `tensorboard` from PATH: the kernel's environment's, as if activated."""
    hub_path = "/srv/hub/.venv-hub/bin:/usr/bin:/bin"
    assert _environ_set_by_config({"PATH": hub_path})["PATH"] == "/course/.venv/bin:" + hub_path
    assert (
        _environ_set_by_config({"PATH": "/course/.venv/bin:/usr/bin"})["PATH"]
        == "/course/.venv/bin:/usr/bin"
    )
    assert _environ_set_by_config({})["PATH"] == "/course/.venv/bin"


def test_make_setup_installed_the_kernel_config_and_notebook_06_relies_on_it():
    installed = ROOT / ".venv" / "etc" / "ipython" / "ipython_kernel_config.py"
    assert installed.exists(), f"run `make setup`: {installed.relative_to(ROOT)} is missing"
    assert installed.read_bytes() == CONFIG.read_bytes(), (
        "run `make setup`: the kernel config is out of date"
    )
    notebook = (ROOT / "notebooks" / "06_metrics_and_tensorboard.ipynb").read_text(encoding="utf-8")
    assert "%tensorboard --logdir" in notebook
    assert "TENSORBOARD_BINARY" not in notebook, (
        "the course kernel finds tensorboard itself (kernel config)"
    )


def _tensorboard_frame_url(port: int, proxy_url: str, monkeypatch) -> str:
    """The address `%tensorboard` puts in its frame (tensorboard.notebook's own HTML)."""
    from tensorboard import notebook

    class Capture:
        def update(self, html):
            self.html = html.data

    capture = Capture()
    monkeypatch.setenv("TENSORBOARD_PROXY_URL", proxy_url)
    notebook._display_ipython(port=port, height=800, display_handle=capture)
    url = json.loads(re.search(r"new URL\((\".*?\"), window\.location\)", capture.html).group(1))
    assert re.search(r"const port = 0;", capture.html), (
        "with a proxy URL the frame must keep the page's port"
    )
    return url


@pytest.mark.slow(reason="starts a Jupyter server and TensorBoard")
def test_tensorboard_answers_through_the_jupyter_server(tmp_path, monkeypatch):
    jupyter_port, tensorboard_port = _free_port(), _free_port()
    logdir = tmp_path / "logs"
    logdir.mkdir()
    tensorboard = subprocess.Popen(
        [
            str(BIN / "tensorboard"),
            f"--logdir={logdir}",
            "--host=127.0.0.1",
            f"--port={tensorboard_port}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    root_flag = ["--allow-root"] if os.getuid() == 0 else []
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter_server",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={jupyter_port}",
            f"--IdentityProvider.token={TOKEN}",
            f"--ServerApp.base_url={BASE_URL}",
            f"--ServerApp.root_dir={tmp_path}",
            *root_flag,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        _wait_for(f"http://127.0.0.1:{tensorboard_port}/", tensorboard, "TensorBoard")
        _wait_for(
            f"http://127.0.0.1:{jupyter_port}{BASE_URL}api/status", server, "Jupyter server", TOKEN
        )

        proxy_url = _proxy_url_set_by_config({"JUPYTERHUB_SERVICE_PREFIX": BASE_URL})
        frame = _tensorboard_frame_url(tensorboard_port, proxy_url, monkeypatch)
        assert frame == f"{BASE_URL}proxy/{tensorboard_port}/"
        # The browser resolves the frame's address against the notebook page's own URL.
        page = f"http://127.0.0.1:{jupyter_port}{BASE_URL}lab/tree/06_metrics_and_tensorboard.ipynb"
        frame_url = urllib.parse.urljoin(page, frame)

        status, body = _get(frame_url)
        assert status == 200
        assert "<title>TensorBoard</title>" in body, body[:300]
        status, body = _get(
            urllib.parse.urljoin(frame_url, "data/environment")
        )  # TensorBoard's own API
        assert status == 200 and json.loads(body)["data_location"] == str(logdir)
        # the proxy is behind the server's login: without the token, the login page (or a refusal)
        try:
            _, body = _get(frame_url, token=None)
        except urllib.error.HTTPError as refused:
            assert refused.code in (401, 403)
        else:
            assert "<title>TensorBoard</title>" not in body
    finally:
        stop_group(server)
        stop_group(tensorboard)
