"""The README is the front door: short, the contents table in its first screen, links to the pages
that hold the rest, and nothing another page says in full; no doc keeps a history of earlier runs.

Each reader has one page: INSTALL.md (the set-up), TEACHING.md (teachers: the only page with
nbgrader's commands and the ways in without installing), CONTRIBUTING.md (tests, layout),
benchmarks/results.md (performance). The README's few figures that come from a benchmark are
compared with its results file here, so that they cannot drift apart.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
MAX_LINES = 150
SKIPPED_FOLDERS = {"node_modules", "grading", "models"}  # and hidden ones: .git, .venv, caches
FIRST_SCREEN = 50  # lines
PAGES = ("INSTALL.md", "TEACHING.md", "CONTRIBUTING.md", "benchmarks/results.md")
HISTORY = re.compile(r"\b(?:an? |the )?(?:earlier|previous|older) (?:run|measurement)s?\b", re.I)
TEACHERS_ONLY = re.compile(
    r"nbgrader (?:generate_assignment|release_assignment|collect|zip_collect|"
    r"autograde|generate_feedback|release_feedback|export)|mybinder\.org|"
    r"lab/tree/notebooks|Codespaces → Create",
    re.I,
)


def test_the_readme_is_short_and_shows_the_contents_in_its_first_screen():
    lines = README.splitlines()
    assert len(lines) <= MAX_LINES, (
        f"README.md has {len(lines)} lines: move what is not the front door out"
    )
    table = next((i for i, line in enumerate(lines) if line.startswith("| # | notebook |")), None)
    assert table is not None and table < FIRST_SCREEN, (
        f"the contents table starts at line {table}, after the first screen ({FIRST_SCREEN} lines)"
    )


def test_the_article_map_is_linked_from_the_top():
    top = "\n".join(README.splitlines()[:15])
    assert "Tensorflow：estimator訓練" in top and "柚子皮" in top
    assert "](#the-article-and-where-the-course-teaches-it)" in top


@pytest.mark.parametrize("page", PAGES)
def test_the_readme_links_every_page_and_the_page_exists(page):
    assert f"]({page})" in README, f"README.md does not link {page}"
    assert (ROOT / page).is_file()


def relative_links(text: str) -> set:
    return {
        target.split("#")[0]
        for target in re.findall(r"\]\(([^)\s]+)\)", text)
        if not re.match(r"[a-z]+:|#", target)
    }


@pytest.mark.parametrize(
    "page", ["README.md", "INSTALL.md", "TEACHING.md", "benchmarks/results.md"]
)
def test_every_file_a_page_links_exists(page):
    path = ROOT / page
    missing = sorted(
        link
        for link in relative_links(path.read_text(encoding="utf-8"))
        if not (path.parent / link).exists()
    )
    assert not missing, f"{page} links files that do not exist: {missing}"


def test_notebook_02s_rates_are_the_benchmarks():
    parts = json.loads((ROOT / "benchmarks" / "results.json").read_text())["parts"]
    pipeline = parts["pipeline"]["examples_per_second"]
    model = max(parts["training"]["estimator_median"], parts["training"]["keras_median"]) * 100
    row = next(line for line in README.splitlines() if line.startswith("| 02 |"))
    stated = re.search(
        r"the input pipeline ([\d.]+)× as fast as the model in the benchmark "
        r"\(([\d,]+) vs ([\d,]+) examples/s\)",
        row,
    )
    assert stated, (
        "README.md, row 02: no 'the input pipeline N× as fast as the model in the benchmark'"
    )
    assert stated.groups() == (f"{pipeline / model:.1f}", f"{pipeline:,.0f}", f"{model:,.0f}"), (
        "README.md, row 02: quote benchmarks/results.md's input pipeline and model rates"
    )


def history_lines(text: str) -> list:
    return [line for line in text.splitlines() if HISTORY.search(line)]


def docs() -> list:
    """The project's Markdown files (not those of the environments, caches or training output)."""
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [
            name for name in subfolders if not name.startswith(".") and name not in SKIPPED_FOLDERS
        ]
        found += [Path(folder, name) for name in files if name.endswith(".md")]
    return sorted(found)


def test_no_doc_keeps_a_history_of_earlier_runs():
    found = {
        str(path.relative_to(ROOT)): history_lines(path.read_text(encoding="utf-8"))
        for path in docs()
    }
    found = {name: lines for name, lines in found.items() if lines}
    assert not found, f"docs hold the latest run only (git keeps the rest): {found}"


def test_a_history_line_is_found():
    assert history_lines("An earlier run (2026-12-03 09:30): uv 57 s\nthe earlier notebooks\n") == [
        "An earlier run (2026-12-03 09:30): uv 57 s"
    ]
    assert history_lines("as in the previous measurement") and not history_lines("a previous step")


@pytest.mark.parametrize("page", ["README.md", "INSTALL.md", "CONTRIBUTING.md"])
def test_only_the_teachers_guide_gives_nbgrader_commands_and_the_no_install_ways_in(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    found = sorted({match.group(0) for match in TEACHERS_ONLY.finditer(text)})
    assert not found, f"{page} repeats what TEACHING.md says: {found}; link TEACHING.md instead"
    assert TEACHERS_ONLY.search((ROOT / "TEACHING.md").read_text(encoding="utf-8"))


def test_a_page_in_its_own_folder_links_relative_to_it(tmp_path: Path):
    assert relative_links("[a](performance.py) [b](#x) [c](https://x.org) [d](../README.md#y)") == {
        "performance.py",
        "../README.md",
    }
