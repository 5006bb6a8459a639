"""How `make` gets a Python 3.9–3.11 and installs the lock (tools/make-venv).

`tools/find-python` picks a supported Python from the PATH; `tools/find-uv`
finds uv or installs it from PyPI with any Python 3's pip; `tools/make-venv`
creates the venv with them — with uv when it can, downloading a Python 3.11
when none is found — and installs the lock. These tests run the scripts with a
PATH of stand-ins: fake Pythons that answer the version probe as the named
version would, and a fake uv that records what it is asked and can fail as uv
does without a network. Every failure must be one line that says what to do.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from tests import ROOT

TOOLS = ROOT / "tools"
UTILITIES = (
    "sh",
    "mktemp",
    "grep",
    "sed",
    "tail",
    "dirname",
    "rm",
    "mkdir",
    "cp",
    "cat",
    "chmod",
    "cut",
)

PYTHON = """#!/bin/sh
# Stand-in for Python {version}.
echo "python{version} $*" >> "$STANDIN_LOG"
case "$1 $2" in
  "-c "*version_info*) echo {version} ;;
  "-c "*"import venv, ensurepip"*) exit {no_venv} ;;
  "-c "*"import pip"*) exit {no_pip} ;;
  "-m venv") mkdir -p "$3/bin" && cp "$0" "$3/bin/python" ;;
  "-m pip")
    case "$*" in
      *--target*uv==*) [ -n "$STANDIN_PYPI" ] || exit 1
                       target=$(echo "$*" | sed 's/.*--target \\([^ ]*\\).*/\\1/')
                       mkdir -p "$target/bin" && cp "$STANDIN_UV" "$target/bin/uv" ;;
      *) [ -n "$STANDIN_PYPI" ] || {{ echo "ERROR: Could not find a version that satisfies the requirement absl-py" >&2; exit 1; }} ;;
    esac ;;
esac
"""

UV = """#!/bin/sh
# Stand-in for uv.
echo "uv $*" >> "$STANDIN_LOG"
case "$1" in
  venv)
    for last; do :; done
    case "$*" in
      *"--python /"*) ;;
      *) [ -n "$STANDIN_PYPI" ] || {
           echo "error: No interpreter found for Python 3.11 in managed installations or search path" >&2
           echo "  Caused by: Failed to download https://example.invalid/cpython-3.11.tar.gz" >&2
           exit 2; } ;;
    esac
    mkdir -p "$last/bin" && printf '#!/bin/sh\\necho "venv-python $*" >> "$STANDIN_LOG"\\n' > "$last/bin/python"
    chmod +x "$last/bin/python" ;;
  pip) [ -n "$STANDIN_PYPI" ] || { echo "error: Failed to fetch: https://pypi.org/simple/absl-py/" >&2; exit 2; } ;;
esac
"""


def _standins(tmp_path, pythons=(), uv_on_path=False, no_venv=False, no_pip=False):
    """A bin folder with the stand-ins, and one with the few utilities the scripts use."""
    bin_dir, system = tmp_path / "bin", tmp_path / "system"
    bin_dir.mkdir()
    system.mkdir()
    for tool in UTILITIES:
        (system / tool).symlink_to(shutil.which(tool))
    uv = tmp_path / "uv-standin"
    uv.write_text(UV)
    uv.chmod(0o755)
    if uv_on_path:
        shutil.copy(uv, bin_dir / "uv")
    for name, version in pythons:
        path = bin_dir / name
        path.write_text(PYTHON.format(version=version, no_venv=int(no_venv), no_pip=int(no_pip)))
        path.chmod(0o755)
    return [bin_dir, system]


def _run(tmp_path, script, args, path_dirs, network=False, python=""):
    env = {
        "PATH": os.pathsep.join(str(d) for d in path_dirs),
        "PYTHON": python,
        "HOME": str(tmp_path / "home"),
        "WORKBOOK_UV_HOME": str(tmp_path / "uv-home"),
        "STANDIN_LOG": str(tmp_path / "log"),
        "STANDIN_UV": str(tmp_path / "uv-standin"),
        "STANDIN_PYPI": "yes" if network else "",
    }
    result = subprocess.run(
        ["sh", str(TOOLS / script), *args], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    log = (tmp_path / "log").read_text() if (tmp_path / "log").exists() else ""
    return result, log


def _make_venv(tmp_path, path_dirs, network=False):
    return _run(
        tmp_path,
        "make-venv",
        ["venv", "requirements.lock", "3.11", "3.10", "3.9"],
        path_dirs,
        network,
    )


def _one_line(result):
    """The error: one line, after at most the progress line of tools/find-uv."""
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1, result
    assert lines and all(line.startswith("Installing uv ") for line in lines[:-1]), lines
    assert "Traceback" not in result.stderr
    return lines[-1]


# ----------------------------------------------------------------------------- find-python


def test_find_python_prefers_3_11_and_skips_a_3_12(tmp_path):
    dirs = _standins(
        tmp_path, [("python3", "3.12"), ("python3.10", "3.10"), ("python3.11", "3.11")]
    )
    result, _ = _run(tmp_path, "find-python", [], dirs)
    assert result.returncode == 0 and result.stdout.strip() == str(dirs[0] / "python3.11")


def test_find_python_takes_a_python3_of_a_listed_version_and_the_python_variable_first(tmp_path):
    dirs = _standins(tmp_path, [("python3", "3.10"), ("my-python", "3.9")])
    assert _run(tmp_path, "find-python", [], dirs)[0].stdout.strip() == str(dirs[0] / "python3")
    chosen = str(dirs[0] / "my-python")
    assert _run(tmp_path, "find-python", [], dirs, python=chosen)[0].stdout.strip() == chosen


def test_find_python_finds_nothing_in_a_3_12_only_path_and_takes_other_versions_when_asked(
    tmp_path,
):
    dirs = _standins(tmp_path, [("python3", "3.12")])
    result, _ = _run(tmp_path, "find-python", [], dirs)
    assert result.returncode == 1 and result.stdout == ""
    result, _ = _run(tmp_path, "find-python", ["3.13", "3.12"], dirs)
    assert result.stdout.strip() == str(dirs[0] / "python3")


# ----------------------------------------------------------------------------- make-venv


def test_only_a_python_3_12_uv_from_pypi_provides_python_3_11(tmp_path):
    dirs = _standins(tmp_path, [("python3", "3.12")])
    result, log = _make_venv(tmp_path, dirs, network=True)
    assert result.returncode == 0, result.stderr
    # uv from PyPI
    assert "python3.12 -m pip install --disable-pip-version-check -q --target" in log
    assert "uv venv -q --seed --python 3.11 venv" in log
    assert (
        "uv pip install -q --compile-bytecode --require-hashes --python venv/bin/python -r requirements.lock"
        in log
    )
    assert "uv provides Python 3.11" in result.stdout


def test_only_a_python_3_12_and_no_network_gives_one_line(tmp_path):
    dirs = _standins(tmp_path, [("python3", "3.12")], uv_on_path=True)
    result, log = _make_venv(tmp_path, dirs)
    message = _one_line(result)
    assert "uv venv -q --seed --python 3.11 venv" in log
    assert message.startswith(
        "No Python 3.11, 3.10 or 3.9 found, and uv could not provide Python 3.11 ("
    )
    # uv's own reason: its error line and its deepest cause
    assert (
        "(No interpreter found for Python 3.11 in managed installations or search path: "
        "Failed to download https://example.invalid/cpython-3.11.tar.gz)" in message
    )
    assert "install Python 3.11" in message and "make PYTHON=/path/to/python3.11" in message


def test_no_python_and_no_uv_gives_one_line(tmp_path):
    result, log = _make_venv(tmp_path, _standins(tmp_path), network=True)
    message = _one_line(result)
    assert message.startswith(
        "No Python 3.11, 3.10 or 3.9 found, and no uv to provide one (none on PATH, none fetched"
    )
    assert "install Python 3.11" in message
    assert log == ""


def test_a_supported_python_with_uv_on_path_is_used_by_uv(tmp_path):
    dirs = _standins(tmp_path, [("python3", "3.12"), ("python3.10", "3.10")], uv_on_path=True)
    result, log = _make_venv(tmp_path, dirs, network=True)
    assert result.returncode == 0, result.stderr
    assert f"uv venv -q --seed --python {dirs[0] / 'python3.10'} venv" in log
    assert "uv pip install -q --compile-bytecode --require-hashes" in log


def test_debian_python_without_venv_or_pip_but_uv_on_path_works(tmp_path):
    # uv venv does not need the venv module or ensurepip.
    dirs = _standins(tmp_path, [("python3.11", "3.11")], uv_on_path=True, no_venv=True, no_pip=True)
    result, log = _make_venv(tmp_path, dirs, network=True)
    assert result.returncode == 0, result.stderr
    assert "python3.11 -m venv" not in log and "uv venv -q --seed --python" in log


def test_debian_python_without_venv_or_pip_and_no_uv_gives_one_line(tmp_path):
    dirs = _standins(tmp_path, [("python3.11", "3.11")], no_venv=True, no_pip=True)
    result, log = _make_venv(tmp_path, dirs, network=True)
    assert "get_uv.py 0.13.9" in log  # uv tried from PyPI without pip (the stand-in gets nothing)
    message = _one_line(result)
    assert (
        "cannot create a virtual environment" in message
        and "sudo apt install python3.11-venv" in message
    )


def test_without_uv_the_venv_module_and_pip_install_the_lock(tmp_path):
    # No uv on PATH and none to be had from PyPI (this Python's pip can't reach it).
    dirs = _standins(tmp_path, [("python3.11", "3.11")])
    result, log = _make_venv(tmp_path, dirs)
    assert "python3.11 -m venv venv" in log
    assert (
        "python3.11 -m pip install --disable-pip-version-check -q --require-hashes "
        "-r requirements.lock" in log
    )
    message = _one_line(result)  # and pip, offline, fails: one line with pip's reason
    assert message.startswith(
        "Installing requirements.lock into venv failed (Could not find a version"
    )
    assert "check the internet connection" in message


def test_an_existing_venv_is_kept_and_the_install_failure_is_one_line(tmp_path):
    dirs = _standins(tmp_path, [("python3.11", "3.11")], uv_on_path=True)
    assert _make_venv(tmp_path, dirs, network=True)[0].returncode == 0
    (tmp_path / "log").unlink()
    result, log = _make_venv(tmp_path, dirs)
    assert "uv venv" not in log
    message = _one_line(result)
    assert "Installing requirements.lock into venv failed (Failed to fetch" in message
