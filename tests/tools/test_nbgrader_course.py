"""tools/nbgrader_course.py: the nbgrader course it lays out, and the grading mode its config sets.

The config is executed as nbgrader executes it (Python with ``get_config``): it
must switch on grading mode (``WORKBOOK_GRADING=1``, inherited by the kernels
nbgrader starts), keep a teacher's ``WORKBOOK_GRADING=0``, and keep the cell
timeout and the skipped tag. The round trip through nbgrader itself is
tests/tools/test_nbgrader_round_trip.py.
"""

from __future__ import annotations

import os

import pytest
from traitlets.config import Config

from helpers import settings
from tests import ROOT


@pytest.fixture(scope="module")
def course(load_script):
    return load_script("tools/nbgrader_course.py")


def _run_config(course, tmp_path) -> Config:
    course.write_course(tmp_path, [])
    config = Config()
    exec((tmp_path / "nbgrader_config.py").read_text(), {"get_config": lambda: config})
    return config


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
