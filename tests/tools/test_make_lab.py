"""`make lab` serves JupyterLab with the course's notebooks and kernel.

Starts the README's first command on a free loopback port and asks the Jupyter
server's REST API what it serves, and JupyterLab's settings API whether the
course's overrides (tools/jupyterlab_overrides.json: no "Jupyter news" prompt)
are in force, and its translations API whether 中文 (台灣) is installed (the
JupyterLab zh-TW language pack); then stops it (and everything it started).
"""

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
import pytest

from tests import ROOT
from tests.support.processes import stop_group

pytestmark = pytest.mark.slow(reason="starts JupyterLab with make lab")


TOKEN = "workbook-test-token"
NOTIFICATION = "@jupyterlab/apputils-extension:notification"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str):
    request = urllib.request.Request(url, headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)


def test_make_lab_serves_the_notebooks_and_the_kernel(tmp_path):
    port = _free_port()
    args = f"--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={TOKEN}"
    server = subprocess.Popen(
        ["make", "--no-print-directory", "lab", f"LAB_ARGS={args}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        env={
            **{k: v for k, v in os.environ.items() if k != "WORKBOOK_FAST"},
            "JUPYTERLAB_SETTINGS_DIR": str(tmp_path),
        },  # no user's settings: the defaults decide
    )
    base = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                contents = _get(f"{base}/contents")
                break
            except (urllib.error.URLError, ConnectionError):
                assert server.poll() is None, f"make lab exited:\n{server.stdout.read()}"
                assert time.monotonic() < deadline, "JupyterLab did not answer within 120 s"
                time.sleep(1)
        names = {item["name"] for item in contents["content"]}
        assert "00_setup_and_data.ipynb" in names, names
        assert "student" in names
        kernels = _get(f"{base}/kernelspecs")["kernelspecs"]
        assert "estimator-workbook" in kernels
        assert (
            kernels["estimator-workbook"]["spec"]["display_name"] == "Estimator workbook (TF 2.15)"
        )
        lab_page = urllib.request.urlopen(f"http://127.0.0.1:{port}/lab?token={TOKEN}", timeout=5)
        assert lab_page.status == 200
        # JupyterLab asks about the news when the setting's composite (the user's value, else the
        # schema's default, which the overrides set) is "none"; no user's value here.
        notification = _get(f"http://127.0.0.1:{port}/lab/api/settings/{NOTIFICATION}")
        assert notification["settings"] == {}, notification["settings"]
        assert notification["schema"]["properties"]["fetchNews"]["default"] == "false"
        assert notification["schema"]["properties"]["checkForUpdates"]["default"] is False
        # Settings -> Language offers 中文 (台灣): the language pack is installed
        languages = _get(f"http://127.0.0.1:{port}/lab/api/translations/")["data"]
        assert "zh_TW" in languages, sorted(languages)
        zh_tw = _get(f"http://127.0.0.1:{port}/lab/api/translations/zh_TW")["data"]
        assert zh_tw["jupyterlab"][""]["language"] == "zh-TW", list(zh_tw)
        assert zh_tw["jupyterlab"]["Settings"] == ["設定"]
        assert "zh-TW" in names
    finally:
        stop_group(server, seconds=30)
