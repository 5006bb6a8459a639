"""What TEACHING.md and the README say about the notebooks agrees with the notebooks.

* Fast mode: every step count is written ``settings.steps(full, fast)`` (without ``fast``, a
  tenth of ``full``). TEACHING.md states how many of those counts are the same in both modes and
  the largest full:fast ratio; both are computed here from the notebooks' code, so a notebook that
  changes a count and leaves the sentence behind fails.
* Early stopping: TEACHING.md states how many traps notebook 07 shows and how many of them raise;
  the number of traps is the number of ``### Trap N`` headings there.
"""

from __future__ import annotations

import ast
import re

import nbformat

from tests import ROOT
from tools.notebook_code import code_sources, python_source

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
FAST_SENTENCE = re.compile(
    r"(?P<equal>\d+) of the (?P<total>\d+) step counts are the same in both modes, "
    r"and the largest ratio is (?P<largest>\d+):1"
)
TRAPS_SENTENCE = re.compile(
    r"the (?P<traps>\w+) traps of early stopping that notebook 07 shows \((?P<silent>\w+) "
    r"that fail silently, (?P<raise>\w+) that raise"
)


def step_counts(paths=NOTEBOOKS) -> list:
    """(notebook, full, fast) for every ``settings.steps`` call with literal counts in the code,
    positional or named (``steps(full=1000, fast=100)``, as the template writes it); grading
    mode's count is not fast mode's."""
    found = []
    for path in paths:
        for source in code_sources(path):
            for node in ast.walk(ast.parse(python_source(source))):
                is_steps = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                if not (is_steps and node.func.attr == "steps" and _named(node.func.value)):
                    continue
                given = dict(zip(("full", "fast"), node.args))
                given.update((k.arg, k.value) for k in node.keywords if k.arg in ("full", "fast"))
                counts = {k: v.value for k, v in given.items() if isinstance(v, ast.Constant)}
                if "full" in counts and len(counts) == len(given):
                    fast = counts.get("fast", max(1, counts["full"] // 10))
                    found.append((path.name[:2], counts["full"], fast))
    return found


def _named(value) -> bool:
    return isinstance(value, ast.Name) and value.id == "settings"


def fast_mode_figures(counts) -> dict:
    ratios = [full / fast for _, full, fast in counts]
    return {
        "equal": sum(ratio == 1 for ratio in ratios),
        "total": len(ratios),
        "largest": round(max(ratios)),
    }


def teaching() -> str:
    return (ROOT / "TEACHING.md").read_text(encoding="utf-8")


def test_teaching_states_the_fast_mode_ratios_the_notebooks_use():
    text = teaching()
    assert "a tenth of the steps" not in text, (
        "TEACHING.md: fast mode does not train a tenth of every count"
    )
    stated = FAST_SENTENCE.search(text)
    assert stated, (
        "TEACHING.md: no sentence '<n> of the <m> step counts are the same in both modes, and the "
        "largest ratio is <k>:1'"
    )
    measured = fast_mode_figures(step_counts())
    assert {key: int(value) for key, value in stated.groupdict().items()} == measured, (
        f"TEACHING.md states {stated.group(0)!r}; "
        f"the notebooks' settings.steps calls give {measured}"
    )


def test_the_figures_are_read_from_calls_with_and_without_a_fast_count(tmp_path):
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "A = settings.steps(3000, 300)\nB = settings.steps(20, 20)\n"
                "C = settings.steps(1_000)\n"
                "D = settings.steps(1500, 300, grading=40)\n"
                "E = settings.steps(full=1000, fast=100)\nF = settings.steps(400, fast=400)"
            )
        ]
    )
    nbformat.write(notebook, tmp_path / "99_x.ipynb")
    counts = step_counts([tmp_path / "99_x.ipynb"])
    assert counts == [
        ("99", 3000, 300),
        ("99", 20, 20),
        ("99", 1000, 100),
        ("99", 1500, 300),
        ("99", 1000, 100),
        ("99", 400, 400),
    ]
    assert fast_mode_figures(counts) == {"equal": 2, "total": 6, "largest": 10}


def test_teaching_counts_the_traps_notebook_07_shows():
    stated = TRAPS_SENTENCE.search(teaching())
    assert stated, (
        "TEACHING.md: no phrase 'the <n> traps of early stopping that notebook 07 shows (<a> that "
        "fail silently, <b> that raise'"
    )
    path = ROOT / "notebooks" / "07_early_stopping.ipynb"
    markdown = "\n".join(
        c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown"
    )
    traps = len(re.findall(r"^### Trap \d+", markdown, flags=re.MULTILINE))
    numbers = {key: NUMBERS.get(value, -1) for key, value in stated.groupdict().items()}
    assert numbers["traps"] == traps, (
        f"TEACHING.md says {stated['traps']} traps; notebook 07 shows {traps}"
    )
    assert numbers["silent"] + numbers["raise"] == traps, (
        "the silent and the raising traps should add up"
    )
