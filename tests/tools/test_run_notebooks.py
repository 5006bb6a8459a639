"""tools/run_notebooks.py: a notebook runs in the language its folder speaks, and says so.

The zh-TW edition's notebooks run from notebooks/zh-TW/, where the helpers speak zh_TW
(helpers/language.py): their run stamp names the language and covers the helpers' catalogue, and
a WORKBOOK_LANGUAGE of the caller's never decides what is committed. The last test runs two
made-up notebooks in a real kernel.
"""

from __future__ import annotations

import nbformat
import pytest

from tests import ROOT
from tools import run_notebooks
from tools.run_notebooks import (
    HELPERS_CATALOGUE,
    notebook_language,
    run_stamp,
    stamp_is_current,
)


@pytest.mark.parametrize(
    "path, language",
    [
        ("notebooks/05_hooks.ipynb", "en"),
        ("notebooks/student/05_hooks.ipynb", "en"),
        ("notebooks/zh-TW/05_hooks.ipynb", "zh_TW"),
        ("notebooks/zh-TW/student/05_hooks.ipynb", "zh_TW"),
    ],
)
def test_the_folder_decides_the_language(path, language):
    assert notebook_language(ROOT / path) == language


@pytest.mark.parametrize("folder", ["zh-TW", "zh-TW/student", "student", "."])
def test_the_rule_is_the_helpers_own(folder, tmp_path, monkeypatch):
    """What helpers/language.py says in a kernel whose working directory is the notebook's."""
    from helpers import language

    where = tmp_path / folder
    where.mkdir(parents=True, exist_ok=True)
    monkeypatch.delenv(language.LANGUAGE_ENV, raising=False)
    monkeypatch.chdir(where)
    assert language.current() == notebook_language(where / "00_x.ipynb")
    assert run_notebooks.LANGUAGE_ENV == language.LANGUAGE_ENV


def test_the_stamp_covers_the_catalogue_the_helpers_read():
    from helpers import language

    for name in language.LANGUAGES:
        expected = language.CATALOGUES / name / f"{language.DOMAIN}.po"
        assert ROOT / HELPERS_CATALOGUE.format(language=name) == expected


def test_a_zh_tw_stamp_names_its_language_and_an_english_one_is_as_before():
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("from helpers import course_setup")]
    )
    english, chinese = run_stamp(notebook), run_stamp(notebook, "zh_TW")
    assert set(english) == {"code_sha256", "helpers_sha256", "helpers_files", "mode"}
    assert chinese["language"] == "zh_TW" and chinese["mode"] == "full"
    assert stamp_is_current(run_stamp(notebook, "zh_TW", fast=True), notebook, "zh_TW")
    assert not stamp_is_current(english, notebook, "zh_TW")
    assert not stamp_is_current(chinese, notebook, "en")
    assert not stamp_is_current(None, notebook, "zh_TW")
    notebook.cells[0].source += "\ncourse_setup.start()"
    assert not stamp_is_current(chinese, notebook, "zh_TW")


@pytest.mark.slow(reason="starts a Jupyter kernel twice")
def test_a_notebook_in_a_zh_tw_folder_runs_in_zh_tw_and_the_caller_s_language_does_not_leak(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("WORKBOOK_FAST", "1")
    monkeypatch.setenv("WORKBOOK_LANGUAGE", "en")  # the caller's: not what is committed
    code = (
        "import os\nfrom helpers import language\n"
        "print(language.current(), language._('{items} or {last}'), "
        "os.path.basename(os.getcwd()))"
    )
    printed = {}
    for folder in ("zh-TW", "en"):
        path = tmp_path / folder / "00_x.ipynb"
        path.parent.mkdir()
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), path)
        assert run_notebooks.execute(path, fast=True, force=False)
        ran = nbformat.read(path, as_version=4)
        printed[folder] = ran.cells[0].outputs[0].text.split()
        assert ran.metadata["workbook"] == run_stamp(ran, notebook_language(path), fast=True)
        assert not run_notebooks.execute(path, fast=True, force=False)  # current: skipped
        monkeypatch.setenv("WORKBOOK_LANGUAGE", "zh_TW")
    assert printed["zh-TW"][0] == "zh_TW" and printed["zh-TW"][-1] == "zh-TW"
    assert printed["en"] == ["en", "{items}", "or", "{last}", "en"]
    assert "up to date, skipped" in capsys.readouterr().out
