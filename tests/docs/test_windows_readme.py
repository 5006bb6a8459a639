"""The README's Windows section names only commands, files and targets that exist.

Windows learners run its PowerShell lines by hand, without `make`, so nothing
else would notice when one of them goes stale: a renamed script, a lock file,
a module entry point, a kernel name that no longer matches the Makefile's, or a
limitation that has since been fixed. `tools/link_helpers.py`, which the
section and the Makefile both run, is tried in a fresh virtual environment.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import venv

import pytest

from tests import ROOT

README = (ROOT / "README.md").read_text()
MAKEFILE = (ROOT / "Makefile").read_text()


def section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", README, flags=re.M | re.S)
    assert match, f"README.md has no '## {title}' section"
    return match.group(1)


WINDOWS = section("Windows")


def powershell_lines() -> list[str]:
    blocks = re.findall(r"```powershell\n(.*?)```", WINDOWS, flags=re.S)
    assert blocks, "the Windows section has no PowerShell block"
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_every_module_run_with_dash_m_exists():
    commands = powershell_lines() + re.findall(r"`([^`]*-m [^`]*)`", WINDOWS)
    modules = {match for line in commands for match in re.findall(r"-m ([\w.]+)", line)} - {"uv"}
    assert {"venv", "pip", "ipykernel", "helpers.data"} <= modules
    for module in modules:
        assert importlib.util.find_spec(module) is not None, f"README's Windows section runs -m {module}, which does not exist"


def test_every_file_and_folder_named_exists():
    named = set()
    for line in powershell_lines():
        for token in re.findall(r"[\w.\\-]+", line):
            if token.startswith(("..\\.venv", ".venv")):
                continue  # made by the commands themselves
            if "\\" in token or re.search(r"\.(py|lock|txt)$", token) or line == f"cd {token}":
                named.add(token.replace("\\", "/"))
    assert {"requirements.lock", "tools/link_helpers.py", "notebooks"} <= named
    for path in named:
        assert (ROOT / path).exists(), f"README's Windows section names {path}, which is not in the course"


def test_the_kernel_is_the_one_make_registers():
    line = next(line for line in powershell_lines() if "ipykernel install" in line)
    name = re.search(r"--name (\S+)", line).group(1)
    display = re.search(r'--display-name "([^"]+)"', line).group(1)
    assert re.search(rf"^KERNEL := {re.escape(name)}$", MAKEFILE, flags=re.M)
    assert f'--display-name "{display}"' in MAKEFILE


def test_the_python_named_can_run_the_course_and_the_lock_covers_windows():
    from helpers.course_setup import SUPPORTED_PYTHON

    version = re.search(r"py -(\d+)\.(\d+) -m venv", "\n".join(powershell_lines()))
    assert SUPPORTED_PYTHON[0] <= (int(version.group(1)), int(version.group(2))) <= SUPPORTED_PYTHON[1]
    assert "x86_64-pc-windows-msvc" in (ROOT / "requirements.lock").read_text().split("\n", 3)[1]


def test_the_dataset_command_and_variable_exist():
    help_text = subprocess.run([sys.executable, "-m", "helpers.data", "--help"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout
    assert "fetch" in help_text
    assert "$env:WORKBOOK_DATASETS" in WINDOWS
    assert "WORKBOOK_DATASETS" in (ROOT / "helpers" / "settings.py").read_text() + (ROOT / "helpers" / "data.py").read_text()


def test_every_make_target_the_readme_names_exists():
    targets = set(re.findall(r"^([\w-]+):", MAKEFILE, flags=re.M))
    # `make X` in inline code, or a code block's line that starts with make X
    named = set(re.findall(r"(?:`|^)make ([a-z][\w-]*)", README, flags=re.M))
    assert {"lab", "test", "lock", "keras-latest"} <= named
    missing = named - targets
    assert not missing, f"README names make targets the Makefile lacks: {sorted(missing)}"


def test_what_does_not_work_on_windows_is_still_true():
    # The section sends notebook 09 to WSL2 because the launcher uses os.killpg:
    # when that changes, the README must change too.
    assert "os.killpg" in WINDOWS
    assert "os.killpg" in (ROOT / "helpers" / "cluster.py").read_text(), (
        "helpers/cluster.py no longer calls os.killpg: say in the README's Windows section "
        "whether notebook 09's cluster now runs on Windows")


@pytest.mark.skipif(sys.platform == "win32", reason="the venv layout below is POSIX's")
def test_link_helpers_lets_a_fresh_venv_import_the_course_helpers(tmp_path):
    venv.create(tmp_path / "venv", with_pip=False)
    python = tmp_path / "venv" / "bin" / "python"
    subprocess.run([str(python), str(ROOT / "tools" / "link_helpers.py")], check=True)
    found = subprocess.run([str(python), "-c", "import helpers; print(helpers.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert found == str(ROOT / "helpers" / "__init__.py")
