"""nbgrader end to end for the zh-TW edition (notebooks/zh-TW/), as a teacher of a zh-TW class
runs it (`tests/support/round_trip.py`): notebook 01's release is its committed student copy, a
copy with one wrong answer loses that point only, and its feedback shows the check's message in
Chinese (a course laid out from zh-TW notebooks grades in zh-TW).

One submission, not the English round trip's four: the released copy grades the same in both
editions (the points do not depend on the language) and `test_nbgrader_round_trip.py` grades it
for the same notebook; the solved one is what `make test` runs as nbgrader grades it, in zh-TW and
in grading mode, for every notebook (tests/nbval_plugin.py).
"""

from __future__ import annotations

import re
import shutil

import nbformat
import pytest

from tests import ROOT
from tests.support.round_trip import (
    WRONG_ANSWERS,
    assert_feedback,
    assert_no_lesson_errors,
    assert_points,
    check_failure,
    round_trip,
    scores,
)
from tools.make_student import for_the_student_folder

pytestmark = pytest.mark.slow(
    reason="nbgrader releases a notebook and autogrades it once in a kernel (a minute)"
)

ZH_TW = ROOT / "notebooks" / "zh-TW" / "01_estimator_idea.ipynb"
STUDENTS = ("one_wrong",)


@pytest.fixture(scope="module")
def zh_tw_course():
    root = round_trip([ZH_TW], [ZH_TW.stem], students=STUDENTS)
    try:
        yield root
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


def test_zh_tw_release_is_the_committed_student_copy(zh_tw_course):
    released = nbformat.read(zh_tw_course / "release" / ZH_TW.stem / ZH_TW.name, as_version=4)
    released.metadata.pop("workbook", None)
    released = for_the_student_folder(released, ZH_TW)
    committed = nbformat.read(ZH_TW.parent / "student" / ZH_TW.name, as_version=4)
    assert committed == released, (
        f"notebooks/zh-TW/student/{ZH_TW.name} is not what nbgrader releases: run `make zh-tw`"
    )
    assert released.cells[0].id == "zh-tw-edition"


def test_zh_tw_points(zh_tw_course):
    assert_points(scores(zh_tw_course), ZH_TW.stem, STUDENTS)


def test_zh_tw_feedback_shows_the_plain_message(zh_tw_course):
    assert_feedback(zh_tw_course, ZH_TW.stem)
    message = check_failure(zh_tw_course, ZH_TW.stem, WRONG_ANSWERS[ZH_TW.stem][2])
    assert re.search(r"[\u4e00-\u9fff]", message), f"the zh-TW check spoke English: {message}"


def test_zh_tw_no_lesson_cell_raises_when_graded(zh_tw_course):
    assert_no_lesson_errors(zh_tw_course, ZH_TW.stem, STUDENTS)
