"""benchmarks/grading.py: the seconds to autograde one submission, and TEACHING.md's table of them.

The report is tried on made-up measurements, the readers of the autograded
notebook (slowest cells, cells that raised) on a made-up executed notebook, and
TEACHING.md's grading table against the committed benchmarks/grading.json.
Running nbgrader is the benchmark's own job (`make grading-benchmark`).
"""

from __future__ import annotations

import json

import nbformat
import pytest

from tests import ROOT

RESULTS = ROOT / "benchmarks" / "grading.json"


@pytest.fixture(scope="module")
def grading(load_script):
    return load_script("benchmarks/grading.py")


def _row(seconds, load="1.00 / 1.00 / 1.00"):
    return {
        "seconds": seconds,
        "score": 2.0,
        "max_score": 2.0,
        "load_before": load,
        "load_after": "3.50 / 2.00 / 1.00",
        "slowest_cells": [],
        "errors": [],
        "autograph_files_left": 0,
    }


MADE_UP = {
    "machine": {"cpu": "Some CPU", "cores": 2, "memory": "8 GiB", "python": "3.11.7"},
    "modes": {
        "grading": {
            "measured": "2026-12-03 23:30",
            "notebooks": {"06_x.ipynb": _row(30.4), "09_y.ipynb": _row(95.0)},
        },
        "grading-zh-TW": {
            "measured": "2026-12-04 08:00",
            "notebooks": {"06_x.ipynb": _row(31.0)},
        },
        "no-grading-fast": {
            "measured": "2026-12-03 22:40",
            "notebooks": {"06_x.ipynb": _row(49.0), "09_y.ipynb": _row(168.2)},
        },
    },
}


def test_table_gives_both_modes_and_the_load_per_notebook(grading):
    text = grading.table(MADE_UP)
    lines = text.splitlines()
    assert lines[2] == "| 06_x.ipynb | 30 s | 1.00 → 3.50 | 31 s | 49 s | 1.00 → 3.50 |"
    assert lines[3] == "| 09_y.ipynb | 1 min 35 s | 1.00 → 3.50 | — | 2 min 48 s | 1.00 → 3.50 |"
    assert "**2 min 05 s** in grading mode" in text  # 30.4 + 95.0 s
    assert "saves 1 min 32 s of 3 min 37 s (42%) over the 2 notebooks" in text
    assert "Some CPU, 2 cores, 8 GiB, Python 3.11.7" in text
    assert "grading mode 2026-12-03 23:30, zh-TW 2026-12-04 08:00, without it 2026-12-03" in text
    assert "- Lesson cells that raised while grading, in all the runs above: 0." in text


def test_a_notebook_measured_in_one_mode_only_gets_a_dash(grading):
    results = json.loads(json.dumps(MADE_UP))
    del results["modes"]["grading"]["notebooks"]["09_y.ipynb"]
    assert "| 09_y.ipynb | — | — | — | 2 min 48 s | 1.00 → 3.50 |" in grading.table(results)


def test_the_table_names_the_notebooks_over_the_target(grading):
    # 06_x takes 30.4 s and 09_y 95.0 s in grading mode: both over 30 s
    assert "- Over 30 s per submission in grading mode: 06_x.ipynb, 09_y.ipynb." in (
        grading.table(MADE_UP)
    )
    results = json.loads(json.dumps(MADE_UP))
    results["modes"]["grading"]["notebooks"]["06_x.ipynb"]["seconds"] = 12.0
    results["modes"]["grading"]["notebooks"]["09_y.ipynb"]["seconds"] = 29.6
    text = grading.table(results)
    assert "Over 30 s" not in text
    assert "- Every notebook within 30 s per submission in grading mode; the slowest, " in text
    assert "09_y.ipynb, 30 s." in text  # 29.6 s, rounded as the table rounds


def _executed(tmp_path):
    notebook = nbformat.v4.new_notebook()
    timing = {
        "iopub.execute_input": "2026-12-03T22:00:00.000000Z",
        "shell.execute_reply": "2026-12-03T22:00:12.500000Z",
    }
    error = nbformat.v4.new_output("error", ename="AssertionError", evalue="accuracy", traceback=[])
    notebook.cells = [
        nbformat.v4.new_code_cell("train()", metadata={"execution": timing}),
        nbformat.v4.new_code_cell("assert accuracy >= 0.9", outputs=[error]),
        nbformat.v4.new_code_cell(
            "broken()", outputs=[error], metadata={"tags": ["raises-exception"]}
        ),
    ]
    path = tmp_path / "executed.ipynb"
    nbformat.write(notebook, path)
    return path


def test_the_lesson_cells_that_raised_unasked_are_reported(grading, tmp_path):
    notebook = nbformat.read(_executed(tmp_path), as_version=4)
    notebook.cells[0].outputs = [notebook.cells[1].outputs[0]]
    notebook.cells[0].metadata["nbgrader"] = {"solution": True, "grade_id": "ex1"}  # an answer
    assert grading.lesson_errors(notebook) == [[1, "AssertionError", "accuracy"]]


def test_the_slowest_cells_are_read_from_the_execution_times(grading, tmp_path):
    assert grading.slowest_cells(_executed(tmp_path)) == [[0, 12.5, "train()"]]


def test_the_solved_submission_answers_every_solution_cell(grading, tmp_path):
    name = "03_model_fn_and_estimatorspec.ipynb"
    source = ROOT / "notebooks" / name
    released = ROOT / "notebooks" / "student" / name
    solved = grading.solved_submission(released, source)
    answers = {
        cell.metadata["nbgrader"]["grade_id"]: cell.source
        for cell in nbformat.read(source, as_version=4).cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }
    got = {
        cell.metadata["nbgrader"]["grade_id"]: cell.source
        for cell in solved.cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }
    assert answers and got == answers


def test_teaching_md_holds_the_committed_measurements(grading, load_script):
    reporting = load_script("benchmarks/reporting.py")
    results = json.loads(RESULTS.read_text())
    assert reporting.section(ROOT / "TEACHING.md", "grading") == grading.table(results), (
        "TEACHING.md's grading table is not benchmarks/grading.json's: run "
        "`.venv-teacher/bin/python benchmarks/grading.py --report-only --update-guide`"
    )
