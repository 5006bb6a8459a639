"""Unit tests for ``helpers.paths``: the course's folders are the ones the Makefile fills and
cleans, and ``display_path`` / ``usable_path`` name a path short (relative inside the working folder
or the project, ``~/…`` under home in a message, absolute elsewhere).
"""

from __future__ import annotations

import os

from helpers import paths
from tests import ROOT


def test_the_folders_are_the_ones_the_makefile_fills_and_cleans():
    assert paths.PROJECT_ROOT == ROOT
    assert (paths.DATA_DIR / "README.md").is_file()  # data/, where make data fetches to
    makefile = (ROOT / "Makefile").read_text()
    assert f"rm -rf {paths.MODELS_DIR.relative_to(ROOT)}\n" in makefile  # make clean-models
    assert f"export {paths.DATASETS_ENV} := " in makefile  # make lab DATASETS=...


def test_display_path_inside_cwd_is_relative(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert paths.display_path(tmp_path / "models" / "x") == os.path.join("models", "x")
    assert paths.display_path(str(tmp_path / "data" / "mnist")) == os.path.join("data", "mnist")
    assert paths.display_path(tmp_path) == "."


def test_display_path_from_a_notebook_folder(tmp_path, monkeypatch):
    """Notebooks run in notebooks/, so project files show as ../something."""
    (tmp_path / "notebooks").mkdir()
    monkeypatch.setattr(paths, "PROJECT_ROOT", tmp_path)
    monkeypatch.chdir(tmp_path / "notebooks")
    assert paths.display_path(tmp_path / "data" / "mnist") == os.path.join("..", "data", "mnist")


def test_usable_path_on_another_drive_is_absolute(tmp_path, monkeypatch):
    """Windows: relpath raises ValueError between drives."""
    monkeypatch.chdir(tmp_path)

    def other_drive(path, start=None):
        raise ValueError("path is on mount 'D:', start on mount 'C:'")

    monkeypatch.setattr(os.path, "relpath", other_drive)
    assert paths.usable_path(tmp_path / "models") == str(tmp_path / "models")


def test_display_path_outside_home_and_the_working_folder_is_absolute(tmp_path, monkeypatch):
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    monkeypatch.setattr(paths.Path, "home", classmethod(lambda cls: tmp_path / "home"))
    monkeypatch.chdir(tmp_path / "work")
    assert paths.display_path(tmp_path / "elsewhere" / "x") == str(tmp_path / "elsewhere" / "x")
    assert paths.display_path(tmp_path / "home" / "x") == os.path.join("~", "x")
