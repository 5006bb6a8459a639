"""A JupyterHub for the class, set up as TEACHING.md ("A JupyterHub for the class") says.

`make hub` builds the hub's own environment, .venv-hub, from requirements-hub.lock
(JupyterHub, configurable-http-proxy, the user servers' JupyterLab and
jupyter-server-proxy), registers the course's kernel (from .venv) there and
copies the JupyterLab overrides; `make setup` installs the course kernel's
configuration (tools/ipython_kernel_config.py) in .venv. This test starts that hub
on localhost (DummyAuthenticator, SimpleLocalProcessSpawner, the proxy), with a
PATH that holds only .venv-hub's programs and the system's, and for each user:

- logs in over HTTP (the login form), which starts the user's server;
- checks that the user's JupyterLab has no "Jupyter news" prompt and that the
  course kernel is offered (the kernelspecs API);
- starts that kernel and runs, through its websocket, the cell
  `%load_ext tensorboard` / `%tensorboard --logdir ...` on a small model_dir
  holding a real event file with a few scalars;
- fetches TensorBoard's scalars through /user/<name>/proxy/<port>/ with the
  user's cookie, and gets the hub's login page without it;
- sends SIGTERM to the user's server and checks that the server, its kernel
  and the TensorBoard are gone.

At the end the hub is stopped with SIGTERM and no process of the test is left.
Two users break one step each, to show what the test catches: `bob` has the
course kernel without its configuration (a kernel of the same packages whose
prefix has no etc/ipython: `%tensorboard` finds no `tensorboard`), `cy` has
jupyter-server-proxy switched off in their server (the proxy URL is a 404).
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import psutil
import pytest
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from tests import ROOT

pytestmark = pytest.mark.slow(
    reason="starts a JupyterHub, three users' servers, kernels and TensorBoards (about 2 min)"
)


HUB_BIN = ROOT / ".venv-hub" / "bin"
COURSE_VENV = ROOT / ".venv"
KERNEL = "estimator-workbook"
SCALARS = {0: 2.31, 100: 0.52, 200: 0.31, 300: 0.24}  # a loss curve, as a model_dir holds it

# user: what is missing for them
VARIANTS = {
    "ada": "set up as TEACHING.md says",
    "bob": "without the kernel configuration",
    "cy": "without jupyter-server-proxy in the user's server",
}
# What a user who lacks it sees instead of TensorBoard. With WORKBOOK_HUB_STRICT=1 the test
# expects TensorBoard for every user, so that bob's and cy's runs fail as a teacher's would.
SYMPTOMS = {"bob": "no tensorboard", "cy": "no proxy"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait(
    condition, what: str, seconds: float = 90, process: subprocess.Popen | None = None, log=None
):
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if process is not None and process.poll() is not None:
            pytest.fail(f"{what}: the hub exited\n{log.read_text()[-3000:] if log else ''}")
        if time.monotonic() > deadline:
            pytest.fail(
                f"{what}: not within {seconds:g} s\n{log.read_text()[-3000:] if log else ''}"
            )
        time.sleep(0.3)


class Browser:
    """An HTTP client with a cookie jar, as a learner's browser is (redirects followed)."""

    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def cookie(self, name: str, path: str | None = None) -> str:
        for cookie in self.jar:
            if cookie.name == name and (
                path is None or cookie.path.rstrip("/") == path.rstrip("/")
            ):
                return cookie.value
        raise AssertionError(f"no cookie {name!r} (path {path}) in {[c.name for c in self.jar]}")

    def request(self, path: str, data=None, headers=None, method=None):
        """(status, final URL, body) of a request; an HTTP error is returned, not raised."""
        if isinstance(data, dict):
            data = urllib.parse.urlencode(data).encode()
        request = urllib.request.Request(
            self.base + path, data=data, headers=headers or {}, method=method
        )
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, response.url, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            return error.code, error.url, error.read().decode("utf-8", "replace")

    def json(self, path: str, data=None, method=None, xsrf_path: str | None = None):
        headers = {"Accept": "application/json"}
        if data is not None:
            data = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        if xsrf_path:
            headers["X-XSRFToken"] = self.cookie("_xsrf", xsrf_path)
        status, _, body = self.request(path, data=data, headers=headers, method=method)
        assert status in (200, 201, 202, 204), f"{method or 'GET'} {path}: {status} {body[:500]}"
        return json.loads(body) if body.strip() else None


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError):
        return False


def _write_model_dir(folder: Path) -> None:
    """A real event file with one scalar curve, as TensorFlow writes it (without importing it)."""
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.summary_pb2 import Summary
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    writer = EventFileWriter(str(folder))
    for step, loss in SCALARS.items():
        summary = Summary(value=[Summary.Value(tag="loss", simple_value=loss)])
        writer.add_event(Event(step=step, wall_time=time.time(), summary=summary))
    writer.close()


def _kernel_without_config(home: Path, prefix: Path) -> None:
    """bob: the course kernel from a prefix with .venv's packages and programs, no etc/ipython."""
    (prefix / "bin").mkdir(parents=True)
    shutil.copy(COURSE_VENV / "pyvenv.cfg", prefix / "pyvenv.cfg")
    (prefix / "lib").symlink_to(COURSE_VENV / "lib")
    for program in ("python", "tensorboard"):
        (prefix / "bin" / program).symlink_to(COURSE_VENV / "bin" / program)
    spec = json.loads(
        (COURSE_VENV / "share" / "jupyter" / "kernels" / KERNEL / "kernel.json").read_text()
    )
    spec["argv"][0] = str(prefix / "bin" / "python")
    folder = home / "jupyter-path" / "kernels" / KERNEL  # on JUPYTER_PATH (the hub's config)
    folder.mkdir(parents=True)
    (folder / "kernel.json").write_text(json.dumps(spec))


def _server_without_proxy(home: Path) -> None:
    """cy: jupyter-server-proxy switched off in the user's own Jupyter config."""
    (home / ".jupyter").mkdir(parents=True)
    config = {"ServerApp": {"jpserver_extensions": {"jupyter_server_proxy": False}}}
    (home / ".jupyter" / "jupyter_server_config.json").write_text(json.dumps(config))


HUB_CONFIG = """\
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.JupyterHub.db_url = "sqlite:///{folder}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{folder}/jupyterhub_cookie_secret"
c.JupyterHub.authenticator_class = "dummy"
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = "{folder}/home/{{username}}"
c.Spawner.default_url = "/lab"
c.Spawner.args = {spawner_args}
# The test's own kernels for one user (bob), before the environments' (jupyter_core prefers
# an environment's kernels to a user's own when it runs in a virtual environment).
c.Spawner.environment = {{"JUPYTER_PATH": lambda spawner: spawner.home_dir + "/jupyter-path"}}
c.Spawner.start_timeout = 120
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.pid_file = "{folder}/jupyterhub-proxy.pid"
"""


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A running hub; at the end it gets SIGTERM, and no process of the test may be left."""
    if not (HUB_BIN / "jupyterhub").exists():
        pytest.fail("the hub's environment is missing: run `make hub`")
    folder = tmp_path_factory.mktemp("hub")
    port = _free_port()
    root_flag = ["--allow-root"] if os.getuid() == 0 else []
    (folder / "jupyterhub_config.py").write_text(
        HUB_CONFIG.format(
            port=port,
            hub_port=_free_port(),
            api_port=_free_port(),
            folder=folder,
            spawner_args=root_flag,
        )
    )
    for user in VARIANTS:
        (folder / "home" / user).mkdir(parents=True)
    _kernel_without_config(folder / "home" / "bob", folder / "course-env-without-config")
    _server_without_proxy(folder / "home" / "cy")
    # Only the hub's programs and the system's: nothing of .venv on the PATH its servers inherit.
    env = {
        "PATH": f"{HUB_BIN}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "LANG": "C.UTF-8",
        "HOME": str(folder),
        "CONFIGPROXY_AUTH_TOKEN": uuid.uuid4().hex,
    }
    log = folder / "jupyterhub.log"
    started = time.monotonic()
    with log.open("w") as output:
        process = subprocess.Popen(
            [str(HUB_BIN / "jupyterhub"), "-f", str(folder / "jupyterhub_config.py")],
            cwd=folder,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait(lambda: _answers(base + "/hub/api"), "the hub answering", process=process, log=log)
        print(f"the hub answered after {time.monotonic() - started:.1f} s")
        yield {"base": base, "folder": folder, "process": process, "log": log}
        everything = [
            psutil.Process(process.pid),
            *psutil.Process(process.pid).children(recursive=True),
        ]
        assert any("configurable-http-proxy" in " ".join(_command_line(p)) for p in everything), (
            everything
        )
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
        _wait(lambda: not _alive(everything), "the hub's processes ending", seconds=30)
        assert _processes_of(folder) == [], "processes left after the hub stopped"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        for leftover in _processes_of(folder):
            leftover.kill()


def _command_line(process: psutil.Process) -> list[str]:
    """A process's command line; none for one that has ended or is a zombie not yet reaped (an
    earlier user's server, a proxy's child: psutil refuses to read theirs)."""
    try:
        return process.cmdline()
    except psutil.Error:
        return []


def _running(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _alive(processes: list[psutil.Process]) -> list[psutil.Process]:
    return [p for p in processes if _running(p)]


def _processes_of(folder: Path) -> list[psutil.Process]:
    """Processes whose command line (TensorBoard's --logdir, ...) or folder is in the test's."""
    found = []
    for process in psutil.process_iter(["cmdline", "cwd"]):
        text = " ".join(process.info["cmdline"] or []) + " " + (process.info["cwd"] or "")
        if str(folder) in text and process.pid != os.getpid() and _running(process):
            found.append(process)
    return found


def _log_in(hub, user: str) -> Browser:
    """The login form, as a browser submits it; the hub then spawns the user's server."""
    browser = Browser(hub["base"])
    status, _, page = browser.request("/hub/login")
    assert status == 200, page[:300]
    xsrf = re.search(r'name="_xsrf"\s+value="([^"]+)"', page).group(1)
    status, url, page = browser.request(
        "/hub/login?next=", data={"username": user, "password": "any", "_xsrf": xsrf}
    )
    assert status == 200 and "/hub/login" not in urllib.parse.urlparse(url).path, (
        status,
        url,
        page[:300],
    )

    def ready():
        return browser.json(f"/hub/api/users/{user}").get("servers", {}).get("", {}).get("ready")

    _wait(ready, f"{user}'s server starting", seconds=150, process=hub["process"], log=hub["log"])
    return browser


async def _run_cell(
    browser: Browser, kernel_path: str, code: str, seconds: float = 150
) -> list[dict]:
    """Execute `code` through the kernel's websocket; the iopub messages it produced."""
    cookies = "; ".join(f"{c.name}={c.value}" for c in browser.jar)
    url = browser.base.replace("http", "ws", 1) + kernel_path + "/channels"
    socket_ = await websocket_connect(HTTPRequest(url, headers={"Cookie": cookies}))
    msg_id = uuid.uuid4().hex
    await socket_.write_message(
        json.dumps(
            {
                "header": {
                    "msg_id": msg_id,
                    "msg_type": "execute_request",
                    "username": "test",
                    "session": msg_id,
                    "version": "5.3",
                },
                "parent_header": {},
                "metadata": {},
                "channel": "shell",
                "buffers": [],
                "content": {
                    "code": code,
                    "silent": False,
                    "store_history": True,
                    "user_expressions": {},
                    "allow_stdin": False,
                    "stop_on_error": True,
                },
            }
        )
    )
    messages, replied, idle = [], False, False
    deadline = time.monotonic() + seconds
    while not (replied and idle):
        raw = await asyncio.wait_for(
            socket_.read_message(), timeout=max(1, deadline - time.monotonic())
        )
        assert raw is not None, "the kernel's websocket closed"
        message = json.loads(raw)
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if message["channel"] == "shell":
            replied = True
        elif message["msg_type"] == "status":
            idle = message["content"]["execution_state"] == "idle"
        else:
            messages.append(message)
    socket_.close()
    return messages


def _output_text(messages: list[dict]) -> str:
    parts = []
    for message in messages:
        content = message["content"]
        parts.append(content.get("text", ""))
        parts.extend(content.get("data", {}).values())
        parts.extend(content.get("traceback", []))
    return "\n".join(str(part) for part in parts)


def _user_processes(hub, user: str) -> list[psutil.Process]:
    """The user's server and everything under it (kernel, TensorBoard)."""
    home = str(hub["folder"] / "home" / user)
    for child in psutil.Process(hub["process"].pid).children():
        try:  # an earlier user's server may be a zombie the hub has not reaped yet
            if "jupyterhub-singleuser" in " ".join(child.cmdline()) and child.cwd() == home:
                return [child, *child.children(recursive=True)]
        except psutil.Error:
            pass
    raise AssertionError(f"no server of {user} under the hub")


@pytest.mark.parametrize("user", list(VARIANTS), ids=[f"{u}: {m}" for u, m in VARIANTS.items()])
def test_a_learner_sees_tensorboard_through_the_hub(hub, user, tmp_path):
    """ada gets TensorBoard; bob and cy their symptom (WORKBOOK_HUB_STRICT=1: all must get it)."""
    symptom = None if os.environ.get("WORKBOOK_HUB_STRICT") else SYMPTOMS.get(user)
    started = time.monotonic()
    browser = _log_in(hub, user)
    status, _, page = browser.request(
        f"/user/{user}/lab"
    )  # the OAuth round trip gives the user's cookie
    assert status == 200 and "JupyterLab" in page, (status, page[:300])
    news = browser.json(
        f"/user/{user}/lab/api/settings/@jupyterlab/apputils-extension:notification"
    )
    news = news["settings"].get("fetchNews", news["schema"]["properties"]["fetchNews"]["default"])
    assert news == "false", (
        "the hub's JupyterLab asks about Jupyter news: copy the overrides (make hub)"
    )
    kernels = browser.json(f"/user/{user}/api/kernelspecs")["kernelspecs"]
    assert KERNEL in kernels, (
        f"the user's server does not offer the course kernel: {sorted(kernels)}"
    )

    kernel = browser.json(
        f"/user/{user}/api/kernels",
        data={"name": KERNEL},
        method="POST",
        xsrf_path=f"/user/{user}/",
    )
    model_dir = tmp_path / "model_dir"
    _write_model_dir(model_dir)
    port = _free_port()
    code = (
        f"%load_ext tensorboard\n%tensorboard --logdir {model_dir} --host 127.0.0.1 --port {port}"
    )
    output = _output_text(
        asyncio.run(_run_cell(browser, f"/user/{user}/api/kernels/{kernel['id']}", code))
    )

    if symptom == "no tensorboard":
        assert "Could not find `tensorboard`" in output, output
    else:
        frame = re.search(r'new URL\((".*?"), window\.location\)', output)
        assert frame, output
        assert json.loads(frame.group(1)) == f"/user/{user}/proxy/{port}/", output
        tags = f"/user/{user}/proxy/{port}/data/plugin/scalars/tags"
        status, _, body = browser.request(tags)
        if symptom == "no proxy":
            assert status == 404, (status, body[:300])
        else:
            assert status == 200 and list(json.loads(body)) == ["."], (status, body[:300])
            assert list(json.loads(body)["."]) == ["loss"], body[:300]
            status, _, body = browser.request(
                f"/user/{user}/proxy/{port}/data/plugin/scalars/scalars?run=.&tag=loss"
            )
            points = {step: round(value, 4) for _, step, value in json.loads(body)}
            assert points == SCALARS, body[:300]
            status, url, body = Browser(hub["base"]).request(
                tags
            )  # no cookie: the hub's login page
            assert "/hub/login" in url and '"loss"' not in body, (status, url, body[:300])

    processes = _user_processes(hub, user)
    tensorboards = [
        p for p in processes if any("tensorboard" in part for part in _command_line(p)[1:2])
    ]
    assert len(tensorboards) == (0 if symptom == "no tensorboard" else 1), processes
    if user == "cy":  # stopped by the hub, as its admin page or its own end stops servers (SIGINT)
        browser.json(f"/hub/api/users/{user}/server", method="DELETE", xsrf_path="/hub/")
    else:
        processes[0].send_signal(signal.SIGTERM)  # the user's server
    _wait(
        lambda: not _alive(processes), f"{user}'s server, kernel and TensorBoard ending", seconds=60
    )
    print(f"{user}: {time.monotonic() - started:.1f} s from login to everything stopped")
