"""Every relative link in the four sets of notebooks resolves.

The English notebooks (``notebooks/``), their student copies (``notebooks/student/``),
the zh-TW edition (``notebooks/zh-TW/``) and its student copies
(``notebooks/zh-TW/student/``): each link of their Markdown (not in code) to a
file opens a file that exists, and one with a ``#fragment`` to a notebook or a
Markdown page opens at a heading it has (JupyterLab's anchors in a notebook,
GitHub's in a page). A student copy's links are rewritten for its deeper folder
by tools/make_student.py, a zh-TW file's by tools/edition.py.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote

import nbformat
import pytest

from tests import ROOT
from tools.anchors import FENCE, github_anchor, headings, notebook_anchor
from tools.markdown_blocks import CODE_SPAN, EXTERNAL, LINK

SETS = ("notebooks", "notebooks/student", "notebooks/zh-TW", "notebooks/zh-TW/student")
NOTEBOOKS = [path for folder in SETS for path in sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb"))]


@lru_cache(maxsize=None)
def anchors(path: Path) -> frozenset:
    if path.suffix == ".ipynb":
        notebook = nbformat.read(path, as_version=4)
        text = "\n\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
        return frozenset(notebook_anchor(h) for h in headings(text))
    return frozenset(github_anchor(h) for h in headings(path.read_text(encoding="utf-8")))


def links(markdown: str) -> list[str]:
    """The relative link targets of ``markdown``, outside code."""
    text = CODE_SPAN.sub("", FENCE.sub("", markdown))
    return [match[2] for match in LINK.finditer(text) if not EXTERNAL.match(match[2])]


def broken(markdown: str, base: Path, own: Path) -> list[str]:
    """One line per link of ``markdown`` (in the file ``own``, in the folder ``base``) that
    opens nothing, or no heading."""
    found = []
    for link in links(markdown):
        target, _, fragment = link.partition("#")
        path = (base / target).resolve() if target else own
        if not path.exists():
            found.append(f"{link}: no such file")
        elif (
            fragment and path.suffix in (".ipynb", ".md") and unquote(fragment) not in anchors(path)
        ):
            found.append(f"{link}: {path.name} has no such heading")
    return found


def test_the_four_sets_have_every_notebook():
    english = [path.name for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))]
    for folder in SETS:
        names = [path.name for path in sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb"))]
        assert names == english, f"{folder} does not have every notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT / "notebooks")))
def test_every_link_of_a_notebook_resolves(path):
    notebook = nbformat.read(path, as_version=4)
    text = "\n\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    problems = broken(text, path.parent, path)
    command = "make zh-tw" if "zh-TW" in path.parts else "make student"
    assert not problems, f"{path.relative_to(ROOT)} (rerun `{command}`): " + "; ".join(problems)


def test_a_zh_tw_student_copy_s_english_original_is_the_english_student_copy():
    copy = nbformat.read(ROOT / "notebooks/zh-TW/student/05_hooks.ipynb", as_version=4)
    first = links(copy.cells[0].source)
    assert first and (ROOT / "notebooks/zh-TW/student" / first[0]).resolve() == (
        ROOT / "notebooks/student/05_hooks.ipynb"
    )


def test_the_checker_finds_a_broken_link_and_a_missing_heading(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n## Real part\n", encoding="utf-8")
    text = (
        "[ok](page.md#real-part) [gone](missing.md) [nowhere](page.md#unreal) "
        "`[code](missing.md)` [web](https://example.org/x)"
    )
    assert broken(text, tmp_path, page) == [
        "missing.md: no such file",
        "page.md#unreal: page.md has no such heading",
    ]
