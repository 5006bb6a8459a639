"""pytest settings for the tests: which tests are slow, and a time limit for the others.

`make unit` runs ``pytest -m "not slow" tests``, an author's quick loop (about a
minute on 2 cores in two processes; CONTRIBUTING.md); `make test` runs every
test and every notebook. A test is slow when it trains a real model (the course
CNN, ``train_and_evaluate``, several processes), starts a Jupyter kernel, a
Jupyter server, JupyterLab or nbgrader, or takes more than a few seconds for
another reason. Such a test carries the marker where it is defined,
``@pytest.mark.slow(reason="...")`` (a whole module: ``pytestmark = ...``), and
the reason says why; ``tests/test_conftest.py`` fails on a slow marker without one.

Every other test of tests/ must finish its set-up and its run within
``UNIT_SECONDS`` each (``WORKBOOK_UNIT_SECONDS`` overrides it, e.g. on a
loaded machine): one that takes longer fails and says to mark it slow,
so the quick loop stays quick without anyone timing it.

The fixture every folder shares is here too: ``load_script``, which loads a
script of tools/ or benchmarks/ as a module.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from tests import ROOT

UNIT_SECONDS = float(os.environ.get("WORKBOOK_UNIT_SECONDS", "30"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if (
        call.when in ("setup", "call")
        and report.passed
        and call.duration > UNIT_SECONDS
        and item.path.suffix == ".py"
        and item.get_closest_marker("slow") is None
    ):
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid}: its {call.when} took {call.duration:.1f} s, more than the "
            f"{UNIT_SECONDS:g} s a test of make unit may take: make it faster, or mark it "
            '@pytest.mark.slow(reason="...")'
        )
    return report


@pytest.fixture(scope="session")
def load_script():
    """A function that loads a script of the project as a module, once a session:
    ``load_script("tools/get_uv.py").wheel_name(...)``. The scripts are not a package
    (they run as ``python tools/x.py``), so they are loaded from their file."""
    loaded = {}

    def load(path: str):
        if path not in loaded:
            spec = importlib.util.spec_from_file_location(Path(path).stem, ROOT / path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            loaded[path] = module
        return loaded[path]

    return load


# The environment variables that switch the course's modes: a test that leaves one changed
# switches it for every test and notebook the session runs after it (the notebooks' kernels
# inherit the environment): grading mode leaked so once, and fast-mode lessons went untested.
MODE_VARIABLES = ("WORKBOOK_FAST", "WORKBOOK_GRADING", "WORKBOOK_DATASETS", "WORKBOOK_LANGUAGE")
MODES_BEFORE = pytest.StashKey[dict]()


def _modes() -> dict:
    return {name: os.environ.get(name) for name in MODE_VARIABLES}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    item.stash[MODES_BEFORE] = _modes()  # before any fixture of the test is set up
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield  # every fixture torn down, monkeypatch's undo included
    before, after = item.stash.get(MODES_BEFORE, None), _modes()
    if before is None:
        return
    changed = {
        name: (before[name], after[name]) for name in MODE_VARIABLES if before[name] != after[name]
    }
    if changed:
        # put them back, so that this test fails and not every one after it
        for name, (value, _) in changed.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        raise AssertionError(
            "the test left the course's mode variables changed (before, after): "
            f"{changed}; set them with monkeypatch.setenv / delenv so they are restored"
        )


@pytest.fixture(autouse=True)
def course_temp_dir_of_the_test(monkeypatch, tmp_path_factory):
    """``course_setup.start()`` makes ``models/tmp`` the temporary folder of its process
    (``course_setup.use_course_temp_dir``): a test that calls it gets a folder of its own instead,
    and the test process's ``TMPDIR`` and ``tempfile.tempdir`` back afterwards."""
    import tempfile

    from helpers import course_setup

    monkeypatch.setattr(course_setup, "TEMP_DIR", tmp_path_factory.mktemp("course-tmp"))
    monkeypatch.setattr(tempfile, "tempdir", tempfile.tempdir)
    monkeypatch.setenv("TMPDIR", os.environ.get("TMPDIR", tempfile.gettempdir()))


def pytest_terminal_summary(terminalreporter):
    """After the zh-TW edition's tests: how much of each catalogue is translated."""
    ran = [
        report
        for reports in terminalreporter.stats.values()
        for report in reports
        if "test_zh_tw_edition.py" in getattr(report, "nodeid", "")
    ]
    if ran:
        from tools.catalogues import stats_table

        terminalreporter.write_sep("-", "zh-TW edition (translations/zh_TW)")
        terminalreporter.write_line(stats_table())
