"""The run times stated in each notebook's first cell and in the README are the measured ones.

``make benchmark`` writes each notebook's measured seconds, in fast and in full
mode, to ``benchmarks/results.json``; the notebooks' first cells and the README's
contents table state them, rounded (``tools/run_times.py`` says how, and rewrites them). Here
every stated time is compared with the measured one, so that a re-measured
notebook whose texts were not updated fails, naming what to write.
"""

from __future__ import annotations

import json

import nbformat
import pytest

from tests import ROOT
from tools.run_times import (
    disagreement,
    notebook_statement,
    parse,
    readme_statements,
    rounded,
    written,
)

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
RESULTS = json.loads((ROOT / "benchmarks" / "results.json").read_text())["parts"]
MODES = ("full", "fast")
REMEASURE = "make benchmark BENCHMARK_ARGS='--parts notebooks --only notebooks/{name}'"


def measured(name: str, mode: str) -> float:
    seconds = RESULTS.get(f"notebooks_{mode}", {}).get("seconds", {})
    assert name in seconds, (
        f"benchmarks/results.json has no {mode}-mode time for {name}: "
        f"measure it with {REMEASURE.format(name=name)}"
    )
    return seconds[name]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_notebook_states_its_measured_run_times(path):
    first = nbformat.read(path, as_version=4).cells[0].source
    stated = notebook_statement(first)
    assert stated, (
        f"{path.name}: the first cell has no line '**Run time:** about … in full mode, … in fast "
        "mode' (see CONTRIBUTING.md)"
    )
    problems = [
        f"{mode} mode {why}"
        for mode in MODES
        if (why := disagreement(stated[mode], measured(path.name, mode)))
    ]
    assert not problems, f"{path.name}, first cell: " + "; ".join(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_readme_states_each_notebooks_measured_run_times(path):
    rows = readme_statements((ROOT / "README.md").read_text())
    assert path.name in rows, f"README.md: no row for {path.name} in the Contents table"
    assert rows[path.name], (
        f"README.md, row {path.name[:2]}: the run time column must read '<full> / <fast>'"
    )
    problems = [
        f"{mode} mode {why}"
        for mode in MODES
        if (why := disagreement(rows[path.name][mode], measured(path.name, mode)))
    ]
    assert not problems, f"README.md, Contents row {path.name[:2]}: " + "; ".join(problems)


@pytest.mark.parametrize(
    "seconds, text",
    [
        (10.2, "10 s"),
        (11.0, "10 s"),
        (34.1, "35 s"),
        (41.9, "40 s"),
        (51.5, "1 min"),
        (75.7, "1½ min"),
        (104.9, "1½ min"),
        (164.4, "2½ min"),
        (165.5, "3 min"),
        (205.4, "3½ min"),
    ],
)
def test_times_are_written_as_the_texts_round_them(seconds, text):
    assert written(seconds) == text
    low, high = parse(text)
    assert low == high == rounded(seconds)


def test_a_stated_time_other_than_the_measured_one_is_named():
    assert disagreement("2–2½ min", 120.2) is None and disagreement("2–2½ min", 150) is None
    assert (
        disagreement("45 s", 41.9)
        == "states 45 s, but 41.9 s were measured, which the texts write as 40 s"
    )
    assert disagreement("3 min", 164.4) is not None and disagreement("2 min", 140.0) is not None


def test_the_statements_are_read_in_every_form_the_texts_use():
    assert notebook_statement(
        "**Run time:** about 10 s in full mode and in fast mode alike (nothing trains here)."
    ) == {"full": "10 s", "fast": "10 s"}
    assert notebook_statement(
        "**Run time:** about 2–2½ min in full mode (most of it training the CNN), 35 s "
        "in fast mode (measured)"
    ) == {"full": "2–2½ min", "fast": "35 s"}
    assert notebook_statement("Run time: a while") is None
    readme = (
        "| 03 | [`model_fn`](notebooks/03_model_fn.ipynb) | write a `model_fn` "
        "| 3½ min / 1½ min | 99 % |\n"
        "| 04 | [Training](notebooks/04_training.ipynb) | train | soon | x |\n"
    )
    assert readme_statements(readme) == {
        "03_model_fn.ipynb": {"full": "3½ min", "fast": "1½ min"},
        "04_training.ipynb": None,
    }
