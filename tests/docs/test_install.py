"""The install page (INSTALL.md) names only commands, files, targets and sections that exist.

Windows learners run its PowerShell lines by hand, without `make`, so nothing
else would notice when one of them goes stale: a renamed script, a lock file,
a module entry point, a kernel name that no longer matches the Makefile's, or a
limitation that has since been fixed. `tools/link_helpers.py`, which the
section and the Makefile both run, is tried in a fresh virtual environment.
The make targets that INSTALL.md and the README name exist, and their links to
a section of a page (`#windows`, `#the-article-and-where-the-course-teaches-it`)
point at a heading of that page.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import venv

import nbformat
import pytest

from tests import ROOT

INSTALL = (ROOT / "INSTALL.md").read_text(encoding="utf-8")
MAKEFILE = (ROOT / "Makefile").read_text()
PAGES = ("README.md", "INSTALL.md", "TEACHING.md", "CONTRIBUTING.md")


def section(title: str, text: str = INSTALL) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert match, f"INSTALL.md has no '## {title}' section"
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
        assert importlib.util.find_spec(module) is not None, (
            f"INSTALL.md's Windows section runs -m {module}, which does not exist"
        )


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
        assert (ROOT / path).exists(), (
            f"INSTALL.md's Windows section names {path}, which is not in the course"
        )


def test_the_kernel_is_the_one_make_registers():
    line = next(line for line in powershell_lines() if "ipykernel install" in line)
    name = re.search(r"--name (\S+)", line).group(1)
    display = re.search(r'--display-name "([^"]+)"', line).group(1)
    assert re.search(rf"^KERNEL := {re.escape(name)}$", MAKEFILE, flags=re.M)
    assert f'--display-name "{display}"' in MAKEFILE


def test_the_python_named_can_run_the_course_and_the_lock_covers_windows():
    from helpers.course_setup import SUPPORTED_PYTHON

    version = re.search(r"py -(\d+)\.(\d+) -m venv", "\n".join(powershell_lines()))
    assert (
        SUPPORTED_PYTHON[0] <= (int(version.group(1)), int(version.group(2))) <= SUPPORTED_PYTHON[1]
    )
    assert "x86_64-pc-windows-msvc" in (ROOT / "requirements.lock").read_text().split("\n", 3)[1]


def files_make_setup_copies(makefile: str) -> set:
    """The tools/ files that the prerequisites of `make setup` copy into the venv (``cp $< $@``)."""
    setup = re.search(r"^setup: (.*)$", makefile, flags=re.M).group(1).split()
    rule = r"^\$\((\w+)\): (tools/\S+).*\n(?:\t.*\n)*?\t@?cp \$< \$@"
    rules = re.findall(rule, makefile, flags=re.M)
    return {source for variable, source in rules if f"$({variable})" in setup}


def test_the_windows_steps_copy_what_make_setup_copies():
    copied = files_make_setup_copies(MAKEFILE)
    assert "tools/jupyterlab_overrides.json" in copied
    named = {
        line.split()[1].replace("\\", "/")
        for line in powershell_lines()
        if line.startswith("Copy-Item ")
    }
    assert copied <= named, f"INSTALL.md's Windows steps do not copy {sorted(copied - named)}"


def test_a_copy_step_of_make_setup_is_found():
    makefile = (
        "setup: $(A) $(B)\n\n$(A): tools/a.json $(X)\n\t@mkdir -p x\n\t@cp $< $@\n\n"
        "$(B): tools/b.py\n\tpython $<\n\n$(C): tools/c.json\n\tcp $< $@\n"
    )
    assert files_make_setup_copies(makefile) == {"tools/a.json"}


def test_the_dataset_command_and_variable_exist():
    help_text = subprocess.run(
        [sys.executable, "-m", "helpers.data", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "fetch" in help_text
    assert "$env:WORKBOOK_DATASETS" in WINDOWS
    assert (
        "WORKBOOK_DATASETS"
        in (ROOT / "helpers" / "paths.py").read_text() + (ROOT / "helpers" / "data.py").read_text()
    )


def make_targets_named(text: str) -> set:
    """`make X` in inline code, or a code block's line that starts with make X."""
    return set(re.findall(r"(?:`|^)make ([a-z][\w-]*)", text, flags=re.M))


@pytest.mark.parametrize("page", ["README.md", "INSTALL.md"])
def test_every_make_target_the_page_names_exists(page):
    targets = set(re.findall(r"^([\w-]+):", MAKEFILE, flags=re.M))
    named = make_targets_named((ROOT / page).read_text(encoding="utf-8"))
    assert {"lab", "test"} <= named
    missing = named - targets
    assert not missing, f"{page} names make targets the Makefile lacks: {sorted(missing)}"


def test_a_target_the_makefile_lacks_is_found():
    assert make_targets_named("run `make lab`, then\nmake benchmark-gone\n") == {
        "lab",
        "benchmark-gone",
    }


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(
        r"[`*]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower()
    )
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def broken_anchors(text: str, pages: dict) -> list:
    """Links ``(#x)`` and ``(PAGE.md#x)`` (or ``../PAGE.md#x``, from notebooks/) whose page has no
    heading with the anchor ``x``."""
    anchors = {
        name: {slug(h) for h in re.findall(r"^#{1,6} (.+)$", body, flags=re.M)}
        for name, body in pages.items()
    }
    broken = []
    for page, anchor in re.findall(r"\]\((?:\.\./)?((?:[A-Z]+\.md)?)#([\w-]+)\)", text):
        if anchor not in anchors.get(page or "self", set()):
            broken.append(f"{page}#{anchor}")
    return broken


@pytest.mark.parametrize("page", PAGES)
def test_links_to_a_section_point_at_a_heading(page):
    pages = {name: (ROOT / name).read_text(encoding="utf-8") for name in PAGES}
    pages["self"] = pages[page]
    assert not broken_anchors(pages[page], pages), f"{page} links to sections that do not exist"


@pytest.mark.parametrize(
    "path", sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")), ids=lambda path: path.name
)
def test_notebooks_link_to_sections_of_the_pages_that_exist(path):
    pages = {name: (ROOT / name).read_text(encoding="utf-8") for name in PAGES}
    markdown = "\n".join(
        cell.source
        for cell in nbformat.read(path, as_version=4).cells
        if cell.cell_type == "markdown"
    )
    pages["self"] = ""  # a notebook's own headings: tests/docs/test_article_map.py
    broken = [link for link in broken_anchors(markdown, pages) if not link.startswith("#")]
    assert not broken, f"{path.name} links to sections of the docs that do not exist: {broken}"


def test_a_link_to_a_renamed_heading_is_found():
    pages = {
        "self": "## Which Python\n\n## Offline\n",
        "TEACHING.md": "## A room without internet\n",
    }
    text = "[a](#which-python) [b](#offline) [c](TEACHING.md#a-room-without-internet) [d](#windows)"
    assert broken_anchors(text, pages) == ["#windows"]
    assert broken_anchors("[e](../TEACHING.md#a-room-with-internet)", pages) == [
        "TEACHING.md#a-room-with-internet"
    ]
    assert (
        slug("The article and where the course teaches it")
        == "the-article-and-where-the-course-teaches-it"
    )
    assert slug("`make lab`: **the** [course](x.md)") == "make-lab-the-course"
    assert slug("`model_fn` and `EstimatorSpec`") == "model_fn-and-estimatorspec"


def test_what_does_not_work_on_windows_is_still_true():
    # The section sends notebook 09 to WSL2 because the launcher uses os.killpg:
    # when that changes, INSTALL.md must change too.
    assert "os.killpg" in WINDOWS
    assert "os.killpg" in (ROOT / "helpers" / "cluster.py").read_text(), (
        "helpers/cluster.py no longer calls os.killpg: say in INSTALL.md's Windows section "
        "whether notebook 09's cluster now runs on Windows"
    )


@pytest.mark.skipif(sys.platform == "win32", reason="the venv layout below is POSIX's")
def test_link_helpers_lets_a_fresh_venv_import_the_course_helpers(tmp_path):
    venv.create(tmp_path / "venv", with_pip=False)
    python = tmp_path / "venv" / "bin" / "python"
    subprocess.run([str(python), str(ROOT / "tools" / "link_helpers.py")], check=True)
    found = subprocess.run(
        [str(python), "-c", "import helpers; print(helpers.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert found == str(ROOT / "helpers" / "__init__.py")
