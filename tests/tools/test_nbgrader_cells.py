"""tools/nbgrader_cells.py marks an Exercises section as nbgrader expects,
and keeps given grade_ids."""

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from tests.notebooks.hygiene import nbgrader_problems
from tools.nbgrader_cells import mark


def _notebook():
    return new_notebook(
        cells=[
            new_markdown_cell("# 42 — title"),
            new_code_cell("x = 1"),
            new_markdown_cell("## Recap\n\n- things\n\n## Exercises\n\n**Exercise 1.**"),
            new_code_cell("answer = None\n### BEGIN SOLUTION\nanswer = 42\n### END SOLUTION"),
            new_code_cell("checks.the_answer(answer)"),
            new_markdown_cell("**Exercise 2.**"),
            new_code_cell("other = None\n### BEGIN SOLUTION\nother = 1\n### END SOLUTION"),
            new_code_cell("from helpers import checks\n\nchecks.other(other)"),
        ]
    )


def _meta(notebook, index):
    return notebook.cells[index].metadata.get("nbgrader")


def test_marks_solutions_checks_and_locks_the_rest():
    notebook = _notebook()
    assert mark(notebook, "nb42") is True
    # before the Exercises: left alone
    assert _meta(notebook, 0) is None and _meta(notebook, 1) is None
    assert _meta(notebook, 2)["locked"] and not _meta(notebook, 2)["grade"]
    assert _meta(notebook, 3) == {
        "grade": False,
        "grade_id": "nb42-ex1-solution",
        "locked": False,
        "schema_version": 3,
        "solution": True,
        "task": False,
    }
    assert _meta(notebook, 4) == {
        "grade": True,
        "grade_id": "nb42-ex1-check",
        "locked": True,
        "points": 1,
        "schema_version": 3,
        "solution": False,
        "task": False,
    }
    assert _meta(notebook, 7)["grade_id"] == "nb42-ex2-check"
    assert nbgrader_problems(notebook, "nb42") == []
    assert mark(notebook, "nb42") is False  # a second run changes nothing


def test_keeps_a_given_grade_id():
    notebook = _notebook()
    mark(notebook, "nb42")
    notebook.cells[4].metadata["nbgrader"]["grade_id"] = "renamed-check"
    notebook.cells[4].metadata["nbgrader"]["points"] = 5
    assert mark(notebook, "nb42") is True  # the points are reset, the id stays
    assert _meta(notebook, 4)["grade_id"] == "renamed-check" and _meta(notebook, 4)["points"] == 1


def test_refuses_a_solution_without_a_check_after_it():
    notebook = _notebook()
    del notebook.cells[4]
    with pytest.raises(
        ValueError, match="exercise 1 \\(nb42\\): the cell after its solution must call checks"
    ):
        mark(notebook, "nb42")
