"""Student copies: solutions blanked, outputs cleared,
locked where nbgrader locks, and their checks fail.

`make student` writes `notebooks/student/NN_name.ipynb` from each notebook with
nbgrader's own release preprocessors (`tools/make_student.py`, in the teacher
environment). That a committed copy is exactly what `nbgrader
generate_assignment` releases now is checked by `test_nbgrader_round_trip.py`;
these tests need no nbgrader: each copy has the notebook's cells, each solution
replaced by nbgrader's stub, no outputs, the exercise cells locked, and, by
executing the student copy of notebook 00, a check cell fails with a plain
message when its exercise is left blank.
"""

import os

import nbformat
import pytest
from nbclient import NotebookClient

from tests import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
STUDENT = ROOT / "notebooks" / "student"
# The zh-TW edition's notebooks have their student copies beside them too (make zh-tw).
EDITIONS = [*NOTEBOOKS, *sorted((ROOT / "notebooks" / "zh-TW").glob("[0-9][0-9]_*.ipynb"))]
STUB = "# YOUR CODE HERE\nraise NotImplementedError()"


def _nbgrader(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def test_every_notebook_has_a_student_copy():
    assert sorted(p.name for p in STUDENT.glob("*.ipynb")) == [p.name for p in NOTEBOOKS], (
        "notebooks/student/ does not match notebooks/: run `make student`"
    )
    zh_tw = ROOT / "notebooks" / "zh-TW" / "student"
    assert sorted(p.name for p in zh_tw.glob("*.ipynb")) == [p.name for p in NOTEBOOKS], (
        "notebooks/zh-TW/student/ does not match notebooks/: run `make zh-tw`"
    )


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: str(p.relative_to(ROOT / "notebooks")))
def test_student_copy_is_the_notebook_blanked(path):
    source = nbformat.read(path, as_version=4)
    copy = nbformat.read(path.parent / "student" / path.name, as_version=4)
    command = "make zh-tw" if "zh-TW" in path.parts else "make student"
    assert [c.get("id") for c in copy.cells] == [c.get("id") for c in source.cells], (
        f"{path.name}: the student copy has other cells: run `{command}`"
    )
    assert "workbook" not in copy.metadata
    for original, student in zip(source.cells, copy.cells):
        assert "### BEGIN SOLUTION" not in student.source
        if _nbgrader(original).get("solution"):
            before = original.source.split("### BEGIN SOLUTION")[0]
            assert student.source.startswith(before) and STUB in student.source, (
                f"{path.name}: {student.source}"
            )
        else:
            assert student.source == original.source, (
                f"{path.name}: a cell differs: run `{command}`"
            )
        if student.cell_type == "code":
            assert student.outputs == [] and student.execution_count is None
        if _nbgrader(original).get("locked") or _nbgrader(original).get("grade"):
            assert (
                student.metadata.get("editable") is False
                and student.metadata.get("deletable") is False
            )
        if _nbgrader(original):
            assert _nbgrader(student).get("checksum"), (
                f"nbgrader's checksum missing: run `{command}`"
            )


@pytest.mark.slow(reason="executes a student copy in a kernel")
def test_check_cells_fail_on_blanked_solutions():
    """Run the student copy of notebook 00: every check after a blank solution fails plainly."""
    notebook = nbformat.read(STUDENT / NOTEBOOKS[0].name, as_version=4)
    os.environ["WORKBOOK_FAST"] = "1"
    NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(STUDENT)}},
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
