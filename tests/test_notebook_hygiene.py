"""Every committed notebook is what GitHub readers and the tests expect.

Size, execution order, no widgets, clean logs, no machine paths, no stray
errors, the template's headings, and outputs that come from the committed code.
The second half proves the checker fails on deliberately bad notebooks.
"""

import copy

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_output

from .hygiene import ROOT, nbgrader_problems, notebook_problems

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks found in notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebook_is_clean(path):
    notebook = nbformat.read(path, as_version=4)
    assert notebook_problems(notebook, path.stat().st_size) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_exercises_are_nbgrader_cells(path):
    notebook = nbformat.read(path, as_version=4)
    assert nbgrader_problems(notebook, "nb" + path.name[:2]) == []


@pytest.fixture(scope="module")
def good():
    """The first notebook, known clean by the test above."""
    path = NOTEBOOKS[0]
    notebook = nbformat.read(path, as_version=4)
    assert notebook_problems(notebook, path.stat().st_size) == []
    return notebook


def _code_cells(notebook):
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def _problems_after(good, change):
    notebook = copy.deepcopy(good)
    change(notebook)
    return notebook_problems(notebook, 10_000)


def _add_output(notebook, **fields):
    cell = [c for c in _code_cells(notebook) if "tags" not in c.metadata][1]
    cell.outputs.append(new_output(**fields))


BAD = {
    "too large": lambda nb: None,
    "widgets": lambda nb: nb.metadata.__setitem__("widgets", {"state": {}}),
    "unexecuted": lambda nb: _code_cells(nb)[2].__setitem__("execution_count", None),
    "out of order": lambda nb: _code_cells(nb)[2].__setitem__("execution_count", 99),
    "deprecation": lambda nb: _add_output(
        nb, output_type="stream", name="stderr",
        text="WARNING:tensorflow:From x.py:1: Foo (from bar) is deprecated and will be removed in a future version.\n"),
    "machine path": lambda nb: _add_output(
        nb, output_type="stream", name="stdout", text="Saving checkpoints for 0 into /home/ana/course/models/x/model.ckpt.\n"),
    "error": lambda nb: _add_output(nb, output_type="error", ename="ValueError", evalue="boom", traceback=["ValueError: boom"]),
    "no recap": lambda nb: [c.__setitem__("source", c.source.replace("## Recap", "## Summary")) for c in nb.cells],
    "edited, not re-run": lambda nb: _code_cells(nb)[-1].__setitem__("source", "print('changed')"),
    "no setup": lambda nb: nb.cells.insert(1, new_code_cell("import os", execution_count=0)),
    "no title": lambda nb: nb.cells.__setitem__(0, new_markdown_cell("Some notes")),
}


@pytest.mark.parametrize("defect", sorted(BAD))
def test_checker_fails_on_a_bad_notebook(good, defect):
    if defect == "too large":
        problems = notebook_problems(good, 1_500_000)
    else:
        problems = _problems_after(good, BAD[defect])
    assert problems, f"the hygiene check missed: {defect}"


def _solution_and_check(notebook):
    cells = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution")]
    return cells[0], notebook.cells[notebook.cells.index(cells[0]) + 1]


def _set(cell, **fields):
    cell.metadata["nbgrader"].update(fields)


NBGRADER_BAD = {
    "markers outside a solution cell": lambda nb: _solution_and_check(nb)[0].metadata.pop("nbgrader"),
    "solution cell without markers": lambda nb: _solution_and_check(nb)[0].__setitem__("source", "answer = 1"),
    "check not graded": lambda nb: _set(_solution_and_check(nb)[1], grade=False),
    "check without points": lambda nb: _set(_solution_and_check(nb)[1], points=0),
    "check not locked": lambda nb: _set(_solution_and_check(nb)[1], locked=False),
    "grade_id twice": lambda nb: _set(_solution_and_check(nb)[1], grade_id=_solution_and_check(nb)[0].metadata[
        "nbgrader"]["grade_id"]),
    "grade_id with a space": lambda nb: _set(_solution_and_check(nb)[1], grade_id="check one"),
    "old schema": lambda nb: _set(_solution_and_check(nb)[1], schema_version=1),
    "check cell removed": lambda nb: nb.cells.remove(_solution_and_check(nb)[1]),
}


@pytest.mark.parametrize("defect", sorted(NBGRADER_BAD))
def test_nbgrader_check_fails_on_bad_metadata(good, defect):
    assert nbgrader_problems(good, "nb00") == []
    notebook = copy.deepcopy(good)
    NBGRADER_BAD[defect](notebook)
    assert nbgrader_problems(notebook, "nb00"), f"the nbgrader check missed: {defect}"
