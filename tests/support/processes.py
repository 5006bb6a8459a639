"""Ending a server a test started in a session of its own (``start_new_session=True``)."""

from __future__ import annotations

import os
import signal
import subprocess


def stop_group(process: subprocess.Popen, seconds: float = 20) -> None:
    """End ``process`` and all it started: SIGTERM to its group, then SIGKILL after ``seconds``."""
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
