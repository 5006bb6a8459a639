# IPython kernel configuration for the course's environment: `make setup` copies
# it to .venv/etc/ipython/ipython_kernel_config.py (binder/postBuild to the
# image's Python), where every IPython kernel of that environment reads it when
# it starts, wherever the kernel is started from: `make lab`, VS Code, nbgrader,
# or a JupyterHub's user server running from another environment (TEACHING.md).
# It does three things for notebook 06's `%tensorboard`:
#
# 1. The environment's own programs come first on the kernel's PATH, as if the
#    environment were activated: `%tensorboard` runs the program `tensorboard`
#    from PATH, and a kernel started by a Jupyter server from elsewhere (a hub's,
#    or `make lab`, which does not activate .venv) otherwise has a PATH without
#    it ("ERROR: Could not find `tensorboard`").
# 2. On a JupyterHub (and Binder, which is one), TENSORBOARD_PROXY_URL: the
#    frame `%tensorboard` shows points at http://<page host>:6006/, which a
#    remote browser cannot reach; TensorBoard's notebook module frames
#    $TENSORBOARD_PROXY_URL instead, with %PORT% replaced by TensorBoard's port.
#    jupyter-server-proxy, installed where the Jupyter *server* runs, serves any
#    local port at <server base URL>proxy/<port>/, behind the server's login; the
#    hub gives each user's server its base URL in $JUPYTERHUB_SERVICE_PREFIX,
#    e.g. /user/ada/. Elsewhere nothing is set, so %tensorboard keeps framing
#    port 6006 on a laptop. A variable already set (e.g.
#    TENSORBOARD_PROXY_URL=/proxy/%PORT%/ exported before `make lab` on a server
#    used through an SSH tunnel) is left as it is.
# 3. The TensorBoards a kernel started end when the kernel ends or its Jupyter
#    server does. A kernel shut down or restarted, or whose server shuts it down
#    (Ctrl-C at `make lab`, SIGTERM), ends them as it exits (atexit). A server
#    that exits without shutting its kernels down (a hub stopping a user's
#    server sends SIGINT, which a server without a terminal takes as
#    KeyboardInterrupt) leaves each kernel to notice its parent is gone and end
#    itself with os._exit, which skips atexit: so this file takes over that
#    watch from ipykernel (parent_handle = 1: "no parent to poll", and no
#    connection message either) and does the same, ending TensorBoards first.
#    A kernel that Jupyter kills takes them along: TensorBoard runs in the
#    kernel's process group, which Jupyter kills as a whole. (Only a kernel
#    killed alone, e.g. by the out-of-memory killer, leaves them running.)
import atexit
import os
import sys
import threading
import time

_bin = os.path.dirname(sys.executable)
if _bin not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = os.pathsep.join(filter(None, [_bin, os.environ.get("PATH")]))

if os.environ.get("JUPYTERHUB_SERVICE_PREFIX"):
    _prefix = os.environ["JUPYTERHUB_SERVICE_PREFIX"].rstrip("/") + "/"
    os.environ.setdefault("TENSORBOARD_PROXY_URL", _prefix + "proxy/%PORT%/")


def _end_tensorboards(wait=10):
    """Stop the TensorBoards this kernel started (SIGTERM: they remove their info files)."""
    import psutil  # ipykernel's own dependency

    def started_tensorboard(child):
        try:
            return any(os.path.basename(part).startswith("tensorboard") for part in child.cmdline())
        except psutil.Error:
            return False

    boards = [child for child in psutil.Process().children() if started_tensorboard(child)]
    for board in boards:
        try:
            board.terminate()
        except psutil.NoSuchProcess:
            pass
    for board in psutil.wait_procs(boards, timeout=wait)[1] if wait else []:
        board.kill()


def _end_with_the_server(server):
    """ipykernel's parent poller, ending this kernel's TensorBoards before the kernel."""
    while os.getppid() == server:
        time.sleep(1)
    _end_tensorboards(wait=0)
    os._exit(1)


atexit.register(_end_tensorboards)
# Where ipykernel polls its parent (a POSIX kernel started by a Jupyter server).
_server = int(os.environ.get("JPY_PARENT_PID") or 0)
if sys.platform != "win32" and _server not in (0, 1) and os.getppid() == _server:
    c.IPKernelApp.parent_handle = 1  # noqa: F821 (c: the config object IPython gives this file)
    threading.Thread(
        target=_end_with_the_server, args=(_server,), name="end-with-the-server", daemon=True
    ).start()
