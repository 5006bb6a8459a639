"""Student copies: solutions blanked, outputs cleared, in sync, and their checks fail.

`make student` writes `notebooks/student/NN_name.ipynb` from each notebook.
These tests check the blanking itself, that the committed copies match what
`make student` would write now, and, by executing the student copy of
notebook 00, that a check cell fails with a plain message when its exercise
is left blank.
"""

import os
import sys

import nbformat
import pytest
from nbclient import NotebookClient

from .hygiene import ROOT

sys.path.insert(0, str(ROOT / "tools"))
from make_student import blank_solutions, student_copy, student_path  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
STUB = "# YOUR CODE HERE\nraise NotImplementedError()"


def test_blanks_a_solution_region():
    source = "answer = None\n### BEGIN SOLUTION\nanswer = 42\n### END SOLUTION\nprint(answer)"
    assert blank_solutions(source) == f"answer = None\n{STUB}\nprint(answer)"


def test_keeps_the_indentation_and_blanks_every_region():
    source = (
        "def f(x):\n    ### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION\n\n"
        "### BEGIN SOLUTION\ny = f(1)\n### END SOLUTION"
    )
    assert blank_solutions(source) == (
        "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n\n" + STUB
    )


def test_leaves_cells_without_markers_alone():
    assert blank_solutions("print('hello')") == "print('hello')"


def test_refuses_unbalanced_markers():
    with pytest.raises(ValueError, match="unbalanced"):
        blank_solutions("### BEGIN SOLUTION\nx = 1\n")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_student_copy_is_in_sync(path):
    target = student_path(path)
    assert target.exists(), f"{target.name} missing: run `make student`"
    expected = student_copy(nbformat.read(path, as_version=4))
    committed = nbformat.read(target, as_version=4)
    assert committed == expected, f"{target.name} is out of date: run `make student`"
    for cell in committed.cells:
        assert "### BEGIN SOLUTION" not in cell.source
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


def test_check_cells_fail_on_blanked_solutions():
    """Run the student copy of notebook 00: every check after a blank solution fails plainly."""
    notebook = nbformat.read(student_path(NOTEBOOKS[0]), as_version=4)
    os.environ["WORKBOOK_FAST"] = "1"
    NotebookClient(
        notebook, timeout=600, kernel_name="python3", allow_errors=True,
        resources={"metadata": {"path": str(ROOT / "notebooks" / "student")}},
    ).execute()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    blanked = [i for i, cell in enumerate(code) if "raise NotImplementedError()" in cell.source]
    assert blanked, "the student copy has no blanked exercise"
    for index in blanked:
        errors = [o for o in code[index].outputs if o.output_type == "error"]
        assert errors and errors[0].ename == "NotImplementedError"
        check = code[index + 1]
        failures = [o for o in check.outputs if o.output_type == "error"]
        assert failures, f"the check after blanked cell {index + 1} did not fail"
        assert failures[0].ename == "CheckFailed", failures[0].ename
        assert "still None" in failures[0].evalue
        assert failures[0].traceback == [f"CheckFailed: {failures[0].evalue}"]  # one line, no stack
