"""tools/nbgrader_course.py: the nbgrader course it lays out, and the grading mode its config sets.

The config is executed as nbgrader executes it (Python with ``get_config``): it
must switch on grading mode (``WORKBOOK_GRADING=1``, inherited by the kernels
nbgrader starts), keep a teacher's ``WORKBOOK_GRADING=0``, keep the skipped tag, skip the
demonstrations tagged grading-skip in grading mode and never a cell nbgrader marks, and give an
answer or a check cell a minute and any other cell the long timeout, a minute that stays ten times
what the slowest of those cells took when last measured (benchmarks/grading.json). The round trip
through nbgrader itself is tests/tools/test_nbgrader_round_trip.py (an endless answer stopped).
"""

from __future__ import annotations

import json
import os
import re
import sys
import types

import nbformat
import pytest
from traitlets.config import Config

from helpers import language, settings
from tests import ROOT


@pytest.fixture(scope="module")
def course(load_script):
    return load_script("tools/nbgrader_course.py")


class _Preprocessor:  # nbgrader's NbGraderPreprocessor, as far as the config uses it
    pass


class _Autograde:
    @staticmethod
    def class_traits():
        return {"sanitize_preprocessors": types.SimpleNamespace(default=lambda: ["Sanitize"])}


@pytest.fixture(autouse=True)
def _nbgrader_stub(monkeypatch):
    """The config imports nbgrader, which only the teacher environment has: a stand-in here (the
    round trip, tests/tools/test_nbgrader_round_trip.py, runs the real one)."""
    modules = {
        "nbgrader": types.ModuleType("nbgrader"),
        "nbgrader.converters": types.ModuleType("nbgrader.converters"),
        "nbgrader.converters.autograde": types.SimpleNamespace(Autograde=_Autograde),
        "nbgrader.preprocessors": types.SimpleNamespace(NbGraderPreprocessor=_Preprocessor),
    }
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)


def _run_config(course, tmp_path) -> Config:
    course.write_course(tmp_path, [])
    config = Config()
    exec((tmp_path / "nbgrader_config.py").read_text(), {"get_config": lambda: config})
    return config


def _tags_after(config, tags, nbgrader=None):
    cell = nbformat.v4.new_code_cell("x = 1", metadata={"tags": list(tags)})
    if nbgrader:
        cell.metadata["nbgrader"] = nbgrader
    grading_skips = config.Autograde.sanitize_preprocessors[-1]()
    cell, _ = grading_skips.preprocess_cell(cell, {}, 0)
    return cell.metadata.get("tags", [])


def test_grading_mode_skips_the_tagged_demonstrations_but_never_a_check(
    course, tmp_path, monkeypatch
):
    monkeypatch.setenv(course.GRADING_ENV, "1")
    config = _run_config(course, tmp_path)
    assert config.Autograde.sanitize_preprocessors[0] == "Sanitize"  # nbgrader's own, first
    skip, demo = course.SKIP_TAG, course.GRADING_SKIP_TAG
    assert _tags_after(config, [demo]) == [demo, skip]
    assert _tags_after(config, ["nbval-check-output"]) == ["nbval-check-output"]
    assert _tags_after(config, [skip]) == [skip]  # %tensorboard
    # a learner who tags a check or an answer cell gains nothing: it runs
    assert _tags_after(config, [skip, demo], nbgrader={"grade": True}) == []
    assert _tags_after(config, [skip], nbgrader={"solution": True}) == []
    monkeypatch.setenv(course.GRADING_ENV, "0")  # the teacher's choice: every cell runs
    assert _tags_after(config, [demo]) == [demo]


def test_the_config_switches_grading_mode_on(course, tmp_path, monkeypatch):
    # set, then removed: monkeypatch then restores the variable's absence after the test (a bare
    # delenv of an unset variable records nothing, and the config's setdefault would leak
    # grading mode into every notebook the session runs later)
    monkeypatch.setenv(course.GRADING_ENV, "")
    monkeypatch.delenv(course.GRADING_ENV)
    config = _run_config(course, tmp_path)
    assert os.environ[course.GRADING_ENV] == "1"
    assert settings.grading_mode()  # what the kernels nbgrader starts will read
    assert config.Execute.timeout == course.CELL_TIMEOUT_SECONDS
    assert config.Execute.skip_cells_with_tag == "nbval-skip"


def test_a_teachers_choice_of_no_grading_mode_is_kept(course, tmp_path, monkeypatch):
    monkeypatch.setenv(course.GRADING_ENV, "0")
    _run_config(course, tmp_path)
    assert os.environ[course.GRADING_ENV] == "0" and not settings.grading_mode()


def test_the_tool_and_the_helpers_name_the_same_variable(course):
    assert course.GRADING_ENV == settings.GRADING_ENV


def test_one_assignment_per_notebook(course, tmp_path):
    notebook = ROOT / "notebooks" / "03_model_fn_and_estimatorspec.ipynb"
    assert course.write_course(tmp_path, [notebook]) == ["03_model_fn_and_estimatorspec"]
    copy = tmp_path / "source" / "03_model_fn_and_estimatorspec" / notebook.name
    assert copy.read_bytes() == notebook.read_bytes()


def test_a_course_of_the_zh_tw_edition_grades_in_zh_tw(course, tmp_path, monkeypatch):
    monkeypatch.delenv(course.LANGUAGE_ENV, raising=False)
    monkeypatch.setenv(course.GRADING_ENV, "1")  # the config below sets it otherwise
    course.write_course(tmp_path / "en", [ROOT / "notebooks" / "01_estimator_idea.ipynb"])
    course.write_course(tmp_path / "zh", [ROOT / "notebooks" / "zh-TW" / "01_estimator_idea.ipynb"])
    english = (tmp_path / "en" / "nbgrader_config.py").read_text()
    chinese = (tmp_path / "zh" / "nbgrader_config.py").read_text()
    assert course.LANGUAGE_ENV not in english
    # executed as nbgrader does, with the variable empty as `make test` leaves it (the round trip
    # once graded in English so) and unset: the kernels then speak zh-TW
    for before in ("", None):
        if before is None:
            monkeypatch.delenv(course.LANGUAGE_ENV)
        else:
            monkeypatch.setenv(course.LANGUAGE_ENV, before)
        exec(chinese, {"get_config": Config})
        assert os.environ[course.LANGUAGE_ENV] == "zh_TW" and language.current() == "zh_TW"
    monkeypatch.setenv(course.LANGUAGE_ENV, "en")  # a teacher's explicit choice is kept
    exec(chinese, {"get_config": Config})
    assert language.current() == "en"


def test_an_empty_grading_variable_switches_grading_mode_on(course, tmp_path, monkeypatch):
    monkeypatch.setenv(course.GRADING_ENV, "")
    _run_config(course, tmp_path)
    assert settings.grading_mode()


def _cell(nbgrader=None, cell_id="lesson-1"):
    cell = nbformat.v4.new_code_cell("x = 1", id=cell_id)
    if nbgrader is not None:
        cell.metadata["nbgrader"] = {"grade_id": "x", "locked": False, "points": 1, **nbgrader}
    return cell


def test_an_answer_a_check_or_a_cell_added_gets_a_minute_the_lessons_the_long_timeout(
    course, tmp_path, monkeypatch
):
    monkeypatch.setenv(course.GRADING_ENV, "1")
    notebook = nbformat.v4.new_notebook()
    locked = {"solution": False, "grade": False, "locked": True}
    notebook.cells = [_cell(), _cell(locked, "lesson-2"), _cell({"solution": True}, "answer")]
    nbformat.write(notebook, tmp_path / "01_x.ipynb")
    course.write_course(tmp_path / "course", [tmp_path / "01_x.ipynb"])
    config = Config()
    exec((tmp_path / "course" / "nbgrader_config.py").read_text(), {"get_config": lambda: config})
    timeout = config.Execute.timeout_func
    short, long = course.ANSWER_TIMEOUT_SECONDS, course.CELL_TIMEOUT_SECONDS
    assert short < long
    assert timeout(_cell({"solution": True, "grade": False}, "answer")) == short  # an answer
    assert timeout(_cell({"solution": False, "grade": True}, "check")) == short  # a check
    assert timeout(_cell({"solution": True, "grade": True}, "by-hand")) == short  # graded by hand
    # the lesson's cells: a demonstration, a locked cell of the instructions
    assert timeout(_cell()) == long
    assert timeout(_cell(locked, "lesson-2")) == long
    # a cell the learner added (JupyterLab gives it a new id), and one without an id
    assert timeout(_cell(cell_id="a1b2c3d4")) == short
    no_id = _cell()
    del no_id["id"]
    assert timeout(no_id) == long


def test_a_cell_over_its_time_is_interrupted_and_its_error_says_so(course, tmp_path, monkeypatch):
    monkeypatch.setenv(course.GRADING_ENV, "1")
    execute = _run_config(course, tmp_path).Execute
    assert execute.interrupt_on_timeout  # not killed: the notebook's next cells run on
    assert execute.timeout == course.CELL_TIMEOUT_SECONDS  # what is not a cell
    error = execute.error_on_timeout
    assert error["ename"] == "CellTimeoutError" and error["evalue"] == course.TIMEOUT_MESSAGE
    assert error["traceback"] == ["\x1b[0;31mCellTimeoutError\x1b[0m: " + course.TIMEOUT_MESSAGE]
    assert "\n" not in course.TIMEOUT_MESSAGE  # one line
    minutes = course.CELL_TIMEOUT_SECONDS // 60
    for figure in (f"{course.ANSWER_TIMEOUT_SECONDS} s", f"{minutes} min", "answer", "stopped"):
        assert figure in course.TIMEOUT_MESSAGE, figure


def test_a_zh_tw_course_says_why_a_cell_stopped_in_zh_tw(course, tmp_path, monkeypatch):
    monkeypatch.setenv(course.GRADING_ENV, "1")  # the config sets both when they are not set
    monkeypatch.setenv(course.LANGUAGE_ENV, "zh_TW")
    notebook = tmp_path / "zh-TW" / "01_x.ipynb"
    notebook.parent.mkdir()
    nbformat.write(nbformat.v4.new_notebook(), notebook)
    course.write_course(tmp_path / "course", [notebook])
    config = Config()
    text = (tmp_path / "course" / "nbgrader_config.py").read_text(encoding="utf-8")
    exec(text, {"get_config": lambda: config})
    message = config.Execute.error_on_timeout["evalue"]
    assert message == course.timeout_message("zh_TW") != course.TIMEOUT_MESSAGE
    assert re.search(r"[\u4e00-\u9fff]", message) and "60" in message, message


def _graded_first_lines(notebook) -> set:
    """The first lines of a notebook's answer and check cells, as benchmarks/grading.py's
    ``slowest_cells`` shows a cell (an answer's is the same before and after it is answered)."""
    cells = nbformat.read(notebook, as_version=4).cells
    marks = [
        (cell, cell.metadata.get("nbgrader", {})) for cell in cells if cell.cell_type == "code"
    ]
    return {
        cell.source.strip().splitlines()[0][:60]
        for cell, marked in marks
        if marked.get("solution") or marked.get("grade")
    }


def test_a_minute_is_ten_times_the_slowest_answer_or_check_measured(course):
    """benchmarks/grading.json keeps the five slowest cells of each graded notebook: an answer or
    a check cell among them took its time, one not among them at most the fifth's."""
    results = json.loads((ROOT / "benchmarks" / "grading.json").read_text(encoding="utf-8"))
    bounds = {}
    for mode, record in results["modes"].items():
        for name, row in record["notebooks"].items():
            if not (ROOT / "notebooks" / name).exists() or not row["slowest_cells"]:
                continue
            graded = _graded_first_lines(ROOT / "notebooks" / name)
            listed = [seconds for _, seconds, first in row["slowest_cells"] if first in graded]
            fifth = min(seconds for _, seconds, _ in row["slowest_cells"])
            bounds[(mode, name)] = max([*listed, fifth])
    assert any(mode == "grading" for mode, _ in bounds), "no grading-mode measurement"
    slowest = max(bounds, key=bounds.get)
    assert bounds[slowest] * course.ANSWER_TIMEOUT_MARGIN <= course.ANSWER_TIMEOUT_SECONDS, (
        f"an answer or a check cell of {slowest[1]} took up to {bounds[slowest]} s ({slowest[0]}): "
        f"ANSWER_TIMEOUT_SECONDS ({course.ANSWER_TIMEOUT_SECONDS} s) leaves less than "
        f"{course.ANSWER_TIMEOUT_MARGIN} times that"
    )


def test_teaching_states_the_timeouts_the_config_sets(course):
    text = " ".join((ROOT / "TEACHING.md").read_text(encoding="utf-8").split())
    stated = (
        f"an answer, a check or a cell the learner added may run {course.ANSWER_TIMEOUT_SECONDS} "
        f"s, the lesson's own cells {course.CELL_TIMEOUT_SECONDS // 60} min"
    )
    assert stated in text, f"TEACHING.md does not say: {stated}"
