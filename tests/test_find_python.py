"""`tools/find-python`, which `make` uses to create .venv, picks a Python 3.9–3.11.

With none on the PATH it stops with one line naming the versions that work and
how to get one.
"""

import os
import subprocess

from .hygiene import ROOT

SCRIPT = ROOT / "tools" / "find-python"


def _fake_python(folder, name, version):
    path = folder / name
    supported = version in ("3.9", "3.10", "3.11")
    # Answers the version probe the way a real Python of that version would.
    path.write_text(f"#!/bin/sh\nexit {0 if supported else 1}\n")
    path.chmod(0o755)
    return path


def _run(path_dirs, python=""):
    env = {"PATH": os.pathsep.join(str(d) for d in path_dirs), "PYTHON": python}
    return subprocess.run(["/bin/sh", str(SCRIPT)], env=env, capture_output=True, text=True)


def test_no_supported_python_gives_one_line_of_advice(tmp_path):
    _fake_python(tmp_path, "python3", "3.12")
    result = _run([tmp_path])
    assert result.returncode == 1 and result.stdout == ""
    message = result.stderr.strip()
    assert "\n" not in message
    assert "3.9, 3.10 or 3.11" in message and "install Python 3.11" in message


def test_prefers_3_11_and_skips_a_3_12(tmp_path):
    _fake_python(tmp_path, "python3", "3.12")
    _fake_python(tmp_path, "python3.10", "3.10")
    _fake_python(tmp_path, "python3.11", "3.11")
    result = _run([tmp_path])
    assert result.returncode == 0
    assert result.stdout.strip() == str(tmp_path / "python3.11")


def test_python_variable_wins(tmp_path):
    _fake_python(tmp_path, "python3.11", "3.11")
    chosen = _fake_python(tmp_path, "my-python", "3.9")
    result = _run([tmp_path], python=str(chosen))
    assert result.stdout.strip() == str(chosen)
