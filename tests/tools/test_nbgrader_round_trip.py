"""nbgrader end to end, as a teacher runs it: release, autograde, feedback (fast mode).

Uses the teacher environment (`.venv-teacher`, built by `make teacher`, which
`make test` runs first) in a temporary course directory (`tests/support/round_trip.py`):

* `nbgrader generate_assignment` releases every notebook, and each release is
  the committed student copy (`make student`), apart from the course's run stamp
  and what `make student` adds for the student folder (links, generated note);
* for notebook 01, which trains (the fastest that does, with a "break it"
  exercise), four submissions are autograded in the course's kernel: the
  notebook with its solutions gets full points, the released copy as it is gets
  0 (the autograder does not crash on it), a copy with one wrong answer,
  its check cell tagged to be skipped, loses that exercise's point only (the
  course's config runs every graded cell), and its feedback HTML shows the
  check's plain-words message; and a solved copy whose first answer is
  `while True: pass` is graded in less than 150 s: the answer is interrupted
  after the course's answer timeout (a minute), loses its point only (exercise
  2 trains after it in the same kernel), and its feedback says it ran too long.

Every other notebook's graded path is run by `make test` itself: each zh-TW notebook as nbgrader
grades it (grading mode, every check; tests/nbval_plugin.py), each check's bank of wrong answers
(tests/helpers/checks/), and each student copy's check cells failing on a blank answer
(tests/notebooks/test_student_copies.py). Notebook 03 was graded here too, four times: that is
what those cover now.

The zh-TW edition's round trip is `test_nbgrader_round_trip_zh_tw.py`, a file of its own so that
`make test` runs the two side by side.
"""

from __future__ import annotations

import shutil

import nbformat
import pytest

from tests import ROOT
from tests.support.round_trip import (
    ENDLESS_ANSWERS,
    WRONG_ANSWERS,
    assert_feedback,
    assert_no_lesson_errors,
    assert_points,
    assert_stopped_in_time,
    round_trip,
    scores,
)
from tools.make_student import for_the_student_folder
from tools.nbgrader_course import assignment_id

pytestmark = pytest.mark.slow(
    reason="nbgrader releases every notebook and autogrades one four times in a kernel (minutes)"
)

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.fixture(scope="module")
def course():
    root = round_trip(NOTEBOOKS, sorted(WRONG_ANSWERS))  # the same notebooks as ENDLESS_ANSWERS
    try:
        yield root
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_release_is_the_committed_student_copy(course, path):
    released = nbformat.read(course / "release" / assignment_id(path) / path.name, as_version=4)
    released.metadata.pop("workbook", None)
    released = for_the_student_folder(released, path)  # links for student/, generated note
    committed = nbformat.read(ROOT / "notebooks" / "student" / path.name, as_version=4)
    assert committed == released, (
        f"notebooks/student/{path.name} is not what nbgrader releases: run `make student`"
    )


@pytest.mark.parametrize("name", sorted(WRONG_ANSWERS))
def test_points(course, name):
    assert_points(scores(course), name)


@pytest.mark.parametrize("name", sorted(WRONG_ANSWERS))
def test_feedback_shows_the_plain_message(course, name):
    assert_feedback(course, name)


@pytest.mark.parametrize("name", sorted(ENDLESS_ANSWERS))
def test_an_endless_answer_is_stopped_in_a_minute(course, name):
    assert_stopped_in_time(course, name)


@pytest.mark.parametrize("name", sorted(WRONG_ANSWERS))
def test_no_lesson_cell_raises_when_graded(course, name):
    assert_no_lesson_errors(course, name)
