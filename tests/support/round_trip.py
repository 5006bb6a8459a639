"""The nbgrader round trip's course (tests/tools/test_nbgrader_round_trip*.py): a course in a
temporary folder, laid out by `tools/nbgrader_course.py`, its notebooks released, submissions
autograded in the course's kernel (fast mode, grading mode as the course's config sets it), their
feedback generated and the grades exported; and what the tests assert of the result.

The submissions (``STUDENTS``): the notebook with its solutions (``solved``), the released copy
as it is (``released``), and a copy with one wrong answer whose check cell is tagged to be skipped
(``one_wrong``: the course's config runs every graded cell, so the point is lost all the same).
The kernels import a copy of `helpers/` in the temporary folder, so what the notebooks write
(`models/`) goes there and is removed with it.
"""

from __future__ import annotations

import csv
import html
import os
import re
import shutil
import tempfile
from pathlib import Path

import nbformat
import pytest

from tools.nbgrader_course import TEACHER, run_nbgrader, write_course
from tools.run_notebooks import kernel_checkout

KERNEL_SPEC = TEACHER / "share" / "jupyter" / "kernels" / "estimator-workbook" / "kernel.json"
# Per notebook: the solution cell to get wrong,
# what a learner might write there, and its check cell.
# Per notebook: the solution cell to get wrong,
# what a learner might write there, and its check cell.
WRONG_ANSWERS = {
    # the "break it" estimator handed in untrained
    "01_estimator_idea": ("nb01-ex2-solution", "fixed_estimator = broken", "nb01-ex2-check"),
}
# solved: full points; released as it is: 0, and the autograder does not crash; one_wrong: one
# answer wrong, its check cell tagged to be skipped: that point lost all the same (the course's
# config runs every graded cell), and only that one
STUDENTS = ("solved", "released", "one_wrong")
SKIP_TAG = "nbval-skip"  # the tag the course's config tells nbgrader to skip


def grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _submission(released, source, wrong=None):
    """The released notebook with every solution cell answered as in ``source``
    (and one answered ``wrong``, its check cell tagged to be skipped)."""
    answers = {
        grade_id(cell): cell.source
        for cell in source.cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }
    if wrong is not None:
        answers[wrong[0]] = wrong[1]
    for cell in released.cells:
        if grade_id(cell) in answers:
            cell.source = answers[grade_id(cell)]
        if wrong is not None and grade_id(cell) == wrong[2]:
            cell.metadata["tags"] = [*cell.metadata.get("tags", []), SKIP_TAG]
    return released


def round_trip(notebooks: list, names, students=STUDENTS) -> Path:
    """A course in a temporary folder: ``notebooks`` released, ``names`` graded, each as
    ``students`` hand it in."""
    if not (TEACHER / "bin" / "nbgrader").exists() or not KERNEL_SPEC.exists():
        pytest.fail(
            "the teacher environment .venv-teacher (nbgrader, "
            "the course's kernel) is missing: run `make teacher`"
        )
    temporary = Path(tempfile.mkdtemp(prefix="nbgrader-round-trip-"))
    try:
        return _graded_course(temporary, notebooks, names, students)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def _graded_course(temporary: Path, notebooks: list, names, students) -> Path:
    # the kernels' helpers package, and so their models/ and data/
    env = dict(
        kernel_checkout(temporary / "root"),
        WORKBOOK_FAST="1",
        PATH=f"{TEACHER / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    root = temporary / "course"
    write_course(root, notebooks)
    run_nbgrader(root, env, "generate_assignment", "*")
    for name in names:
        wrong = WRONG_ANSWERS[name]
        source = nbformat.read(root / "source" / name / f"{name}.ipynb", as_version=4)
        released = root / "release" / name / f"{name}.ipynb"
        for student in students:
            notebook = nbformat.read(released, as_version=4)
            if student != "released":
                notebook = _submission(notebook, source, None if student == "solved" else wrong)
            target = root / "submitted" / student / name / f"{name}.ipynb"
            target.parent.mkdir(parents=True)
            nbformat.write(notebook, target)
        run_nbgrader(root, env, "autograde", name)
        run_nbgrader(root, env, "generate_feedback", name)
    run_nbgrader(root, env, "export", "--to", "grades.csv")
    return root


def scores(course: Path) -> dict:
    with open(course / "grades.csv", newline="") as file:
        return {
            (row["assignment"], row["student_id"]): (float(row["score"]), float(row["max_score"]))
            for row in csv.DictReader(file)
        }


def assert_points(grades: dict, name: str, students=STUDENTS) -> None:
    """Each submission of ``students`` got the points it should."""
    maximum = grades[(name, students[0])][1]
    assert maximum >= 2, "a round-trip notebook needs at least two graded checks"
    # a learner who tags the failing check cell to be skipped gains nothing: it runs anyway
    expected = {"solved": maximum, "released": 0.0, "one_wrong": maximum - 1}
    for student in students:
        assert grades[(name, student)] == (expected[student], maximum), student


def check_failure(course: Path, name: str, check_id: str) -> str:
    notebook = nbformat.read(
        course / "autograded" / "one_wrong" / name / f"{name}.ipynb", as_version=4
    )
    cell = next(cell for cell in notebook.cells if grade_id(cell) == check_id)
    errors = [output for output in cell.outputs if output.output_type == "error"]
    assert errors and errors[0].ename == "CheckFailed", (
        f"{check_id} did not fail with CheckFailed: {cell.outputs}"
    )
    return errors[0].evalue


def assert_feedback(course: Path, name: str) -> None:
    message = " ".join(check_failure(course, name, WRONG_ANSWERS[name][2]).split())
    assert "\n" not in message and "still None" not in message and len(message) > 40, message
    page = (course / "feedback" / "one_wrong" / name / f"{name}.html").read_text(encoding="utf-8")
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
    check_id = WRONG_ANSWERS[name][2]
    # the failed check, with its score
    start = text.index(f"Grade cell: {check_id} Score: 0.0 / 1.0")
    end = text.find("Grade cell:", start + 1)
    graded = text[start:] if end == -1 else text[start:end]
    assert message in graded, (
        f"the feedback does not show the check's message under {check_id}: {message}"
    )
