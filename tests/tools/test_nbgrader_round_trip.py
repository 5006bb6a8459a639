"""nbgrader end to end, as a teacher runs it: release, autograde, feedback (fast mode).

Uses the teacher environment (`.venv-teacher`, built by `make teacher`, which
`make test` runs first) in a temporary course directory laid out by
`tools/nbgrader_course.py`:

* `nbgrader generate_assignment` releases every notebook, and each release is
  the committed student copy (`make student`), apart from the course's run stamp
  and what `make student` adds for the student folder (links, generated note);
* for notebooks 01 and 03, which train (the two fastest that do, with a "break
  it" exercise each), three submissions are autograded in the course's kernel:
  the notebook with its solutions gets full points, the released copy as it is
  gets 0 (the autograder does not crash on it), a copy with one wrong answer
  loses that exercise's point only, and so does the same copy with that check
  cell tagged to be skipped (the course's config runs every graded cell), and
  its feedback HTML shows the check's plain-words message;
* the zh-TW edition goes the same way for notebook 01 (notebooks/zh-TW/): its
  release is its committed student copy, and it grades the same.

The kernels import a copy of `helpers/` in the temporary folder, so what the
notebooks write (`models/`) goes there and is removed with it.
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

from tests import ROOT
from tools.make_student import for_the_student_folder
from tools.nbgrader_course import TEACHER, assignment_id, run_nbgrader, write_course
from tools.run_notebooks import kernel_checkout

pytestmark = pytest.mark.slow(
    reason="nbgrader releases every notebook and autogrades two in a kernel (minutes)"
)


NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
ZH_TW = ROOT / "notebooks" / "zh-TW" / "01_estimator_idea.ipynb"
KERNEL_SPEC = TEACHER / "share" / "jupyter" / "kernels" / "estimator-workbook" / "kernel.json"
# Per notebook: the solution cell to get wrong,
# what a learner might write there, and its check cell.
WRONG_ANSWERS = {
    # the "break it" estimator handed in untrained
    "01_estimator_idea": ("nb01-ex2-solution", "fixed_estimator = broken", "nb01-ex2-check"),
    # the "break it" model_fn handed in unfixed
    "03_model_fn_and_estimatorspec": (
        "nb03-ex1-solution",
        "fixed_model_fn = forgetful_model_fn",
        "nb03-ex1-check",
    ),
}
STUDENTS = ("solved", "released", "one_wrong", "skipped_check")
SKIP_TAG = "nbval-skip"  # the tag the course's config tells nbgrader to skip


def _grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _submission(released, source, wrong=None, skip_check=False):
    """The released notebook with every solution cell answered as in ``source``
    (and one answered ``wrong``, its check cell tagged to be skipped if ``skip_check``)."""
    answers = {
        _grade_id(cell): cell.source
        for cell in source.cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }
    if wrong is not None:
        answers[wrong[0]] = wrong[1]
    for cell in released.cells:
        if _grade_id(cell) in answers:
            cell.source = answers[_grade_id(cell)]
        if skip_check and _grade_id(cell) == wrong[2]:
            cell.metadata["tags"] = [*cell.metadata.get("tags", []), SKIP_TAG]
    return released


def _round_trip(notebooks: list, names) -> Path:
    """A course in a temporary folder: ``notebooks`` released, ``names`` graded."""
    if not (TEACHER / "bin" / "nbgrader").exists() or not KERNEL_SPEC.exists():
        pytest.fail(
            "the teacher environment .venv-teacher (nbgrader, "
            "the course's kernel) is missing: run `make teacher`"
        )
    temporary = Path(tempfile.mkdtemp(prefix="nbgrader-round-trip-"))
    try:
        return _graded_course(temporary, notebooks, names)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def _graded_course(temporary: Path, notebooks: list, names) -> Path:
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
        submissions = {
            "solved": _submission(nbformat.read(released, as_version=4), source),
            "released": nbformat.read(released, as_version=4),
            "one_wrong": _submission(nbformat.read(released, as_version=4), source, wrong),
            "skipped_check": _submission(
                nbformat.read(released, as_version=4), source, wrong, skip_check=True
            ),
        }
        for student, notebook in submissions.items():
            target = root / "submitted" / student / name / f"{name}.ipynb"
            target.parent.mkdir(parents=True)
            nbformat.write(notebook, target)
        run_nbgrader(root, env, "autograde", name)
        run_nbgrader(root, env, "generate_feedback", name)
    run_nbgrader(root, env, "export", "--to", "grades.csv")
    return root


@pytest.fixture(scope="module")
def course():
    root = _round_trip(NOTEBOOKS, sorted(WRONG_ANSWERS))
    try:
        yield root
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


@pytest.fixture(scope="module")
def zh_tw_course():
    root = _round_trip([ZH_TW], [ZH_TW.stem])
    try:
        yield root
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


def _scores(course: Path) -> dict:
    with open(course / "grades.csv", newline="") as file:
        return {
            (row["assignment"], row["student_id"]): (float(row["score"]), float(row["max_score"]))
            for row in csv.DictReader(file)
        }


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_release_is_the_committed_student_copy(course, path):
    released = nbformat.read(course / "release" / assignment_id(path) / path.name, as_version=4)
    released.metadata.pop("workbook", None)
    released = for_the_student_folder(released, path)  # links for student/, generated note
    committed = nbformat.read(ROOT / "notebooks" / "student" / path.name, as_version=4)
    assert committed == released, (
        f"notebooks/student/{path.name} is not what nbgrader releases: run `make student`"
    )


def test_zh_tw_release_is_the_committed_student_copy(zh_tw_course):
    released = nbformat.read(zh_tw_course / "release" / ZH_TW.stem / ZH_TW.name, as_version=4)
    released.metadata.pop("workbook", None)
    released = for_the_student_folder(released, ZH_TW)
    committed = nbformat.read(ZH_TW.parent / "student" / ZH_TW.name, as_version=4)
    assert committed == released, (
        f"notebooks/zh-TW/student/{ZH_TW.name} is not what nbgrader releases: run `make zh-tw`"
    )
    assert released.cells[0].id == "zh-tw-edition"


@pytest.mark.parametrize("name", sorted(WRONG_ANSWERS))
def test_points(course, name):
    _assert_points(_scores(course), name)


def test_zh_tw_points(zh_tw_course):
    _assert_points(_scores(zh_tw_course), ZH_TW.stem)


def _assert_points(scores: dict, name: str) -> None:
    solved, maximum = scores[(name, "solved")]
    assert maximum >= 2, "a round-trip notebook needs at least two graded checks"
    assert solved == maximum, f"the notebook with its solutions got {solved} of {maximum}"
    assert scores[(name, "released")] == (0.0, maximum)
    assert scores[(name, "one_wrong")] == (maximum - 1, maximum)
    # a learner who tags the failing check cell to be skipped gains nothing: it runs anyway
    assert scores[(name, "skipped_check")] == (maximum - 1, maximum)


def _check_failure(course: Path, name: str, check_id: str) -> str:
    notebook = nbformat.read(
        course / "autograded" / "one_wrong" / name / f"{name}.ipynb", as_version=4
    )
    cell = next(cell for cell in notebook.cells if _grade_id(cell) == check_id)
    errors = [output for output in cell.outputs if output.output_type == "error"]
    assert errors and errors[0].ename == "CheckFailed", (
        f"{check_id} did not fail with CheckFailed: {cell.outputs}"
    )
    return errors[0].evalue


@pytest.mark.parametrize("name", sorted(WRONG_ANSWERS))
def test_feedback_shows_the_plain_message(course, name):
    _assert_feedback(course, name)


def test_zh_tw_feedback_shows_the_plain_message(zh_tw_course):
    _assert_feedback(zh_tw_course, ZH_TW.stem)
    message = _check_failure(zh_tw_course, ZH_TW.stem, WRONG_ANSWERS[ZH_TW.stem][2])
    assert re.search(r"[\u4e00-\u9fff]", message), f"the zh-TW check spoke English: {message}"


def _assert_feedback(course: Path, name: str) -> None:
    message = " ".join(_check_failure(course, name, WRONG_ANSWERS[name][2]).split())
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
