"""pytest settings for the tests: which tests are slow, and a time limit for the others.

`make unit` runs ``pytest -m "not slow" tests``, an author's quick loop (about a
minute on 2 cores in two processes; CONTRIBUTING.md); `make test` runs every
test and every notebook. A test is slow when it trains a real model (the course
CNN, ``train_and_evaluate``, several processes), starts a Jupyter kernel, a
Jupyter server, JupyterLab or nbgrader, or takes more than a few seconds for
another reason. ``SLOW`` names them in one place — whole modules or single
tests, each with its reason — so that no test file needs a decorator
(``@pytest.mark.slow`` on a test works too); ``tests/test_conftest.py`` fails
when an entry names no test.

Every other test of tests/ must finish its set-up and its run within
``UNIT_SECONDS`` each (``WORKBOOK_UNIT_SECONDS`` overrides it, e.g. on a
loaded machine): one that takes longer fails and says to add it to ``SLOW``,
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

SLOW = {
    "tests/tools/test_nbgrader_round_trip.py":
        "nbgrader releases every notebook and autogrades two in a kernel (minutes)",
    "tests/tools/test_make_lab.py": "starts JupyterLab with make lab",
    "tests/tools/test_hub.py":
        "starts a JupyterHub, three users' servers, kernels and TensorBoards (about 2 min)",
    "tests/tools/test_tensorboard_proxy.py::test_tensorboard_answers_through_the_jupyter_server":
        "starts a Jupyter server and TensorBoard",
    "tests/notebooks/test_student_copies.py::test_check_cells_fail_on_blanked_solutions":
        "executes a student copy in a kernel",
    "tests/helpers/test_cluster.py::test_cluster_trains_evaluates_and_leaves_nothing":
        "trains in four processes",
    "tests/helpers/test_cluster.py::test_a_failing_task_ends_them_all_and_names_itself":
        "starts TensorFlow in several processes",
    "tests/helpers/test_cluster.py::test_an_interrupt_ends_them_all_and_is_raised_again":
        "starts TensorFlow in several processes",
    "tests/helpers/test_cluster.py::test_sigint_to_the_launcher_ends_its_process":
        "starts TensorFlow in several processes",
    "tests/helpers/test_cluster.py::test_children_die_with_a_killed_launcher":
        "starts TensorFlow in several processes",
    "tests/helpers/test_logs.py::test_real_training_log_is_clean":
        "trains in a fresh Python process",
    "tests/helpers/metrics/test_streaming.py::test_agrees_with_sklearn_on_random_streamed_cases":
        "streams hundreds of random cases through the graph metrics (about 20 s)",
    "tests/helpers/metrics/test_streaming.py::test_metrics_plug_into_cnn_model_fn_and_evaluate":
        "trains and evaluates the course CNN",
    "tests/helpers/model_fn_checker/test_causes.py::test_keras_seeding_is_isolated_and_does_not_warn":  # noqa: E501 (a node id, whole)
        "checks the course CNN twice and restores Keras's seed generator (about 8 s)",
    "tests/helpers/early_stopping/test_decisions.py::test_train_and_evaluate_stops_before_max_steps":  # noqa: E501 (a node id, whole)
        "runs train_and_evaluate",
}


def slow_reason(nodeid: str) -> str | None:
    """Why ``SLOW`` calls this test slow; None when it does not list it."""
    for name, reason in SLOW.items():
        if nodeid == name or nodeid.startswith((f"{name}::", f"{name}[")):
            return reason
    return None


@pytest.hookimpl(tryfirst=True)  # before `-m "not slow"` deselects
def pytest_collection_modifyitems(items):
    for item in items:
        reason = slow_reason(item.nodeid)
        if reason:
            item.add_marker(pytest.mark.slow(reason=reason))


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
            f"{UNIT_SECONDS:g} s a test of make unit may take: make it faster, or add it to "
            "SLOW in tests/conftest.py with the reason"
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
MODE_VARIABLES = ("WORKBOOK_FAST", "WORKBOOK_GRADING", "WORKBOOK_DATASETS")
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
    changed = {name: (before[name], after[name]) for name in MODE_VARIABLES
               if before[name] != after[name]}
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
    (``settings.use_course_temp_dir``): a test that calls it gets a folder of its own instead,
    and the test process's ``TMPDIR`` and ``tempfile.tempdir`` back afterwards."""
    import tempfile

    from helpers import settings

    monkeypatch.setattr(settings, "TEMP_DIR", tmp_path_factory.mktemp("course-tmp"))
    monkeypatch.setattr(tempfile, "tempdir", tempfile.tempdir)
    monkeypatch.setenv("TMPDIR", os.environ.get("TMPDIR", tempfile.gettempdir()))



def pytest_terminal_summary(terminalreporter):
    """After the zh-TW edition's tests: how much of each catalogue is translated."""
    ran = [report for reports in terminalreporter.stats.values() for report in reports
           if "test_zh_tw_edition.py" in getattr(report, "nodeid", "")]
    if ran:
        from tools.catalogues import stats_table

        terminalreporter.write_sep("-", "zh-TW edition (translations/zh_TW)")
        terminalreporter.write_line(stats_table())
