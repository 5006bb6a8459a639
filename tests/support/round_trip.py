"""The nbgrader round trip's course (tests/tools/test_nbgrader_round_trip*.py): a course in a
temporary folder, laid out by `tools/nbgrader_course.py`, its notebooks released, submissions
autograded in the course's kernel (fast mode, grading mode as the course's config sets it), their
feedback generated and the grades exported; and what the tests assert of the result.

The submissions (``STUDENTS``): the notebook with its solutions (``solved``), the released copy
as it is (``released``), a copy with one wrong answer whose check cell is tagged to be skipped
(``one_wrong``: the course's config runs every graded cell, so the point is lost all the same),
and a solved copy with one answer that never ends (``endless``: the course's config stops an
answer cell after ``ANSWER_TIMEOUT_SECONDS``; it is autograded on its own, timed, and
``autograde_seconds.json`` in the course folder keeps the time).
The kernels import a copy of `helpers/` in the temporary folder, so what the notebooks write
(`models/`) goes there and is removed with it.
"""

from __future__ import annotations

import csv
import html
import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import nbformat
import pytest

from tools.nbgrader_course import (
    ANSWER_TIMEOUT_SECONDS,
    TEACHER,
    TIMEOUT_MESSAGE,
    lesson_errors,
    run_nbgrader,
    write_course,
)
from tools.run_notebooks import kernel_checkout

KERNEL_SPEC = TEACHER / "share" / "jupyter" / "kernels" / "estimator-workbook" / "kernel.json"
# Per notebook: the solution cell to get wrong,
# what a learner might write there, and its check cell.
WRONG_ANSWERS = {
    # the "break it" estimator handed in untrained
    "01_estimator_idea": ("nb01-ex2-solution", "fixed_estimator = broken", "nb01-ex2-check"),
}
# Per notebook: the solution cell that never ends, its source, and its check cell. An answer
# before the notebook's others (exercise 2 trains after it: the kernel must live on)
ENDLESS_ANSWERS = {
    "01_estimator_idea": (
        "nb01-ex1-solution",
        "logged_seconds = None\nwhile True:  # never ends\n    pass\n",
        "nb01-ex1-check",
    ),
}
# solved: full points; released as it is: 0, and the autograder does not crash; one_wrong: one
# answer wrong, its check cell tagged to be skipped: that point lost all the same (the course's
# config runs every graded cell), and only that one; endless: one answer loops forever, is
# stopped, loses its point and only that one
ENDLESS = "endless"
STUDENTS = ("solved", "released", "one_wrong", ENDLESS)
# the endless submission's autograde, nbgrader's start and the notebook's other cells included:
# "graded in at most 2 minutes", with room for a loaded machine
ENDLESS_GRADING_SECONDS = 150
SECONDS_FILE = "autograde_seconds.json"  # {assignment: seconds} of the endless submission
SKIP_TAG = "nbval-skip"  # the tag the course's config tells nbgrader to skip


def grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _submission(released, source, wrong=None, skip_check=True):
    """The released notebook with every solution cell answered as in ``source``
    (and one answered ``wrong``, its check cell tagged to be skipped if ``skip_check``)."""
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
        if wrong is not None and skip_check and grade_id(cell) == wrong[2]:
            cell.metadata["tags"] = [*cell.metadata.get("tags", []), SKIP_TAG]
    return released


def round_trip(notebooks: list, names, students=STUDENTS, wrong_answers=None) -> Path:
    """A course in a temporary folder: ``notebooks`` released, ``names`` graded, each as
    ``students`` hand it in (the wrong answers: ``wrong_answers``, by default
    ``WRONG_ANSWERS``)."""
    if not (TEACHER / "bin" / "nbgrader").exists() or not KERNEL_SPEC.exists():
        pytest.fail(
            "the teacher environment .venv-teacher (nbgrader, "
            "the course's kernel) is missing: run `make teacher`"
        )
    temporary = Path(tempfile.mkdtemp(prefix="nbgrader-round-trip-"))
    try:
        return _graded_course(temporary, notebooks, names, students, wrong_answers or WRONG_ANSWERS)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def _graded_course(temporary: Path, notebooks: list, names, students, wrong_answers) -> Path:
    # the kernels' helpers package, and so their models/ and data/
    env = dict(
        kernel_checkout(temporary / "root"),
        WORKBOOK_FAST="1",
        PATH=f"{TEACHER / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    root = temporary / "course"
    write_course(root, notebooks)
    run_nbgrader(root, env, "generate_assignment", "*")
    seconds = {}
    for name in names:
        source = nbformat.read(root / "source" / name / f"{name}.ipynb", as_version=4)
        released = root / "release" / name / f"{name}.ipynb"
        others = [student for student in students if student != ENDLESS]
        for student in others:
            notebook = nbformat.read(released, as_version=4)
            if student != "released":
                wrong = None if student == "solved" else wrong_answers[name]
                notebook = _submission(notebook, source, wrong)
            _hand_in(root, student, name, notebook)
        if others:
            run_nbgrader(root, env, "autograde", name)
        if ENDLESS in students:  # handed in after the others' autograde, and graded on its own
            notebook = nbformat.read(released, as_version=4)
            notebook = _submission(notebook, source, ENDLESS_ANSWERS[name], skip_check=False)
            _hand_in(root, ENDLESS, name, notebook)
            started = time.monotonic()
            run_nbgrader(root, env, "autograde", name, "--student", ENDLESS)
            seconds[name] = round(time.monotonic() - started, 1)
        run_nbgrader(root, env, "generate_feedback", name)
    (root / SECONDS_FILE).write_text(json.dumps(seconds), encoding="utf-8")
    run_nbgrader(root, env, "export", "--to", "grades.csv")
    return root


def _hand_in(root: Path, student: str, name: str, notebook) -> None:
    target = root / "submitted" / student / name / f"{name}.ipynb"
    target.parent.mkdir(parents=True)
    nbformat.write(notebook, target)


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
    expected = {"solved": maximum, "released": 0.0, "one_wrong": maximum - 1, ENDLESS: maximum - 1}
    for student in students:
        assert grades[(name, student)] == (expected[student], maximum), student


def assert_no_lesson_errors(course: Path, name: str, students=STUDENTS) -> None:
    """No cell of any autograded submission raised outside an answer or a check cell (or a cell
    tagged raises-exception): grading broke no lesson, whatever the learner answered."""
    for student in students:
        path = course / "autograded" / student / name / f"{name}.ipynb"
        errors = lesson_errors(nbformat.read(path, as_version=4))
        assert not errors, f"{student}'s submission: lesson cells raised when graded: {errors}"


def check_failure(course: Path, name: str, check_id: str, student: str = "one_wrong") -> str:
    notebook = nbformat.read(course / "autograded" / student / name / f"{name}.ipynb", as_version=4)
    cell = next(cell for cell in notebook.cells if grade_id(cell) == check_id)
    errors = [output for output in cell.outputs if output.output_type == "error"]
    assert errors and errors[0].ename == "CheckFailed", (
        f"{check_id} did not fail with CheckFailed: {cell.outputs}"
    )
    return errors[0].evalue


def feedback_text(course: Path, name: str, student: str) -> str:
    """The feedback page of a submission as its words: tags and extra spaces removed."""
    page = (course / "feedback" / student / name / f"{name}.html").read_text(encoding="utf-8")
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())


def _grade_cell(text: str, check_id: str, score: str) -> str:
    """The feedback text under a check cell, from its "Grade cell" line with ``score`` on."""
    start = text.index(f"Grade cell: {check_id} Score: {score}")
    end = text.find("Grade cell:", start + 1)
    return text[start:] if end == -1 else text[start:end]


def assert_feedback(course: Path, name: str) -> None:
    message = " ".join(check_failure(course, name, WRONG_ANSWERS[name][2]).split())
    assert "\n" not in message and "still None" not in message and len(message) > 40, message
    text = feedback_text(course, name, "one_wrong")
    check_id = WRONG_ANSWERS[name][2]
    # the failed check, with its score
    graded = _grade_cell(text, check_id, "0.0 / 1.0")
    assert message in graded, (
        f"the feedback does not show the check's message under {check_id}: {message}"
    )


def assert_stopped_in_time(course: Path, name: str) -> None:
    """The endless answer was interrupted after the answers' timeout, in a graded run of at most
    ``ENDLESS_GRADING_SECONDS``; the notebook ran on (the other checks passed, the points are
    :func:`assert_points`'), and the feedback says the answer ran too long."""
    seconds = json.loads((course / SECONDS_FILE).read_text(encoding="utf-8"))[name]
    assert ANSWER_TIMEOUT_SECONDS < seconds < ENDLESS_GRADING_SECONDS, (
        f"the submission with an endless answer took {seconds:.0f} s to autograde"
    )
    answer_id, _, check_id = ENDLESS_ANSWERS[name]
    notebook = nbformat.read(course / "autograded" / ENDLESS / name / f"{name}.ipynb", as_version=4)
    graded = [
        cell
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade_id")
    ]
    errors = {
        grade_id(cell): [output.ename for output in cell.outputs if output.output_type == "error"]
        for cell in graded
    }
    assert "CellTimeoutError" in errors[answer_id], errors[answer_id]
    assert errors[check_id] == ["CheckFailed"], errors[check_id]  # the answer stayed unset
    failed = {cell for cell, names in errors.items() if names and cell not in (answer_id, check_id)}
    assert not failed, f"cells failed after the endless answer: {sorted(failed)}"
    text = feedback_text(course, name, ENDLESS)
    assert f"CellTimeoutError: {TIMEOUT_MESSAGE}" in text, (
        "the feedback does not say that the endless answer ran too long"
    )
    # its check lost its point, and only it
    for cell in graded:
        marks = cell.metadata["nbgrader"]
        if marks.get("grade") and not marks.get("solution"):
            points = float(marks["points"])
            score = 0.0 if grade_id(cell) == check_id else points
            _grade_cell(text, grade_id(cell), f"{score} / {points}")
