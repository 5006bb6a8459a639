"""Unit tests for ``helpers.course_setup`` (``helpers.settings`` is tested in ``test_settings.py``).

What is tested:

* ``course_setup.check_versions``: a Python outside 3.9–3.11, a TensorFlow that is
  missing, too new (2.16+, no ``tf.estimator``) or too old, and a missing
  ``tensorflow-estimator`` each raise an ``EnvironmentProblem`` whose message is
  one line naming the fix; IPython shows it through ``_render_traceback_`` as
  that single line (for a zh-TW learner in Chinese, with what to do). Supported combinations pass.
* ``course_setup.start`` in this (good) environment: what it returns and prints, and
  that calling it twice leaves one ``NoiseFilter`` on TensorFlow's logger; with
  a wrong TensorFlow it stops before importing anything.
* ``course_setup.use_course_temp_dir``: ``models/tmp`` becomes the temporary folder of the
  process and of the processes it starts.

Every test that reads ``WORKBOOK_FAST`` sets or removes it first, because
``make test`` runs the suite with ``WORKBOOK_FAST=1``.
"""

from __future__ import annotations

import logging
import os
import re
import platform
import sys

import pytest

from helpers import course_setup, logs, paths, settings
from helpers.problems import EnvironmentProblem, WorkbookProblem

FAST = settings.FAST_ENV  # "WORKBOOK_FAST"


def _assert_one_line_problem(problem: EnvironmentProblem) -> str:
    """The message is one line, and IPython would show exactly that line."""
    message = str(problem)
    assert message
    assert "\n" not in message and "\r" not in message, message
    rendered = problem._render_traceback_()
    assert rendered == [f"EnvironmentProblem: {message}"]
    return message


# --------------------------------------------------------------------------
# course_setup.check_versions
# --------------------------------------------------------------------------


@pytest.mark.parametrize("python", [(3, 12, 1), (3, 8, 10)], ids=["3.12", "3.8"])
def test_unsupported_python_is_rejected(python):
    with pytest.raises(EnvironmentProblem) as caught:
        course_setup.check_versions(python, "2.15.1", "2.15.0")
    message = _assert_one_line_problem(caught.value)
    assert ".".join(map(str, python)) in message
    assert "3.11" in message
    assert "make lab" in message


def test_python_problem_comes_first():
    """Notebook 00's example: on Python 3.12 the TensorFlow version is not the point."""
    with pytest.raises(EnvironmentProblem) as caught:
        course_setup.check_versions(python=(3, 12, 1), tensorflow="2.16.1", estimator=None)
    message = _assert_one_line_problem(caught.value)
    assert message.startswith("Python 3.12.1")


@pytest.mark.parametrize("tensorflow", ["2.16.1", "2.18.0"])
def test_tensorflow_without_estimator_is_rejected(tensorflow):
    with pytest.raises(EnvironmentProblem) as caught:
        course_setup.check_versions((3, 11, 7), tensorflow, "2.15.0")
    message = _assert_one_line_problem(caught.value)
    assert tensorflow in message
    assert "tf.estimator" in message
    assert "removed in 2.16" in message
    assert "tensorflow==2.15.1" in message
    assert "make lab" in message


def test_missing_tensorflow_is_rejected():
    with pytest.raises(EnvironmentProblem) as caught:
        course_setup.check_versions((3, 11, 7), None, None)
    message = _assert_one_line_problem(caught.value)
    assert "not installed" in message
    assert "make lab" in message


def test_old_tensorflow_is_rejected():
    with pytest.raises(EnvironmentProblem) as caught:
        course_setup.check_versions((3, 11, 7), "2.14.0", "2.14.0")
    message = _assert_one_line_problem(caught.value)
    assert "2.14.0" in message
    assert "2.15.1" in message
    assert "make lab" in message


def test_missing_estimator_is_rejected():
    with pytest.raises(EnvironmentProblem) as caught:
        course_setup.check_versions((3, 11, 7), "2.15.1", None)
    message = _assert_one_line_problem(caught.value)
    assert "tensorflow-estimator" in message
    assert "make lab" in message


@pytest.mark.parametrize(
    "python, tensorflow, estimator",
    [
        ((3, 11, 7), "2.15.1", "2.15.0"),
        ((3, 9, 0), "2.15.0", "2.15.0"),
        ((3, 10, 12), "2.15.1", "2.15.0"),
    ],
    ids=["3.11", "3.9", "3.10"],
)
def test_supported_versions_pass(python, tensorflow, estimator):
    assert course_setup.check_versions(python, tensorflow, estimator) is None


def test_sys_version_info_is_accepted():
    """``start`` passes ``sys.version_info`` itself, not a plain tuple."""
    course_setup.check_versions(sys.version_info, "2.15.1", "2.15.0")


def test_a_zh_tw_learner_reads_the_version_problem_and_what_to_do_in_chinese(zh_tw):
    zh_tw(
        {
            "Python {found} cannot run TensorFlow 2.15 (the last release with tf.estimator "
            "supports Python 3.9–3.11): {fix}": (
                "Python {found} 無法執行 TensorFlow 2.15（最後一個有 tf.estimator 的版本支援 "
                "Python 3.9–3.11）：{fix}"
            ),
            "run `make lab` from the course folder (it gets a Python 3.11 when there is none), "
            "or `pip install --require-hashes -r requirements.lock` in a Python 3.9–3.11 "
            "virtual environment": (
                "請在課程資料夾執行 `make lab`（沒有 Python 3.11 時它會自動取得），或在 Python "
                "3.9–3.11 的虛擬環境裡執行 `pip install --require-hashes -r requirements.lock`"
            ),
        }
    )
    with pytest.raises(EnvironmentProblem) as caught:
        course_setup.check_versions((3, 12, 1), "2.15.1", "2.15.0")
    assert _assert_one_line_problem(caught.value) == (
        "Python 3.12.1 無法執行 TensorFlow 2.15（最後一個有 tf.estimator 的版本支援 "
        "Python 3.9–3.11）：請在課程資料夾執行 `make lab`（沒有 Python 3.11 時它會自動取得），"
        "或在 Python 3.9–3.11 的虛擬環境裡執行 `pip install --require-hashes -r requirements.lock`"
    )


def test_environment_problem_is_a_workbook_problem():
    problem = EnvironmentProblem("something is wrong: do this")
    assert isinstance(problem, WorkbookProblem)
    assert problem._render_traceback_() == ["EnvironmentProblem: something is wrong: do this"]


# --------------------------------------------------------------------------
# course_setup.start and course_setup.versions
# --------------------------------------------------------------------------


@pytest.fixture
def clean_env(monkeypatch):
    """Full mode, and PYTHONHASHSEED restored after the test (seeding sets it)."""
    monkeypatch.delenv(FAST, raising=False)
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    return monkeypatch


def test_start_in_this_environment(clean_env, capsys):
    namespace = course_setup.start(show=True)

    assert namespace.fast is False
    assert namespace.seed == settings.SEED
    assert namespace.versions["python"] == platform.python_version()
    assert namespace.versions["tensorflow"].startswith("2.15.")
    assert namespace.versions["tensorflow-estimator"].startswith("2.15.")

    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("python")
    tensorflow_line = [line for line in lines if line.split()[0] == "tensorflow"]
    assert len(tensorflow_line) == 1 and tensorflow_line[0].split()[1].startswith("2.15.")
    assert any(line.split()[0] == "tensorflow-estimator" for line in lines)
    mode = [line for line in lines if line.startswith("mode")]
    assert len(mode) == 1 and mode[0].split()[1] == "full"
    assert lines[-1].split() == ["seed", str(settings.SEED)]


def test_start_twice_installs_one_noise_filter(clean_env, capsys):
    import tensorflow as tf

    course_setup.start(show=False)
    course_setup.start(show=False)
    logger = tf.get_logger()
    assert sum(isinstance(f, logs.NoiseFilter) for f in logger.filters) == 1
    assert logger.level == logging.INFO
    assert capsys.readouterr().out == ""


def test_start_reports_fast_mode(clean_env, capsys):
    clean_env.setenv(FAST, "1")
    namespace = course_setup.start(seed=7, show=True)
    assert namespace.fast is True
    assert namespace.seed == 7
    out = capsys.readouterr().out
    mode = [line for line in out.splitlines() if line.startswith("mode")]
    assert len(mode) == 1 and "fast" in mode[0] and f"{FAST}=1" in mode[0]


def test_start_stops_on_a_wrong_tensorflow(monkeypatch, capsys):
    found = {"tensorflow": "2.16.1", "tensorflow-estimator": None}
    monkeypatch.setattr(course_setup, "_installed", found.get)
    with pytest.raises(EnvironmentProblem) as caught:
        course_setup.start(show=True)
    assert "removed in 2.16" in _assert_one_line_problem(caught.value)
    assert capsys.readouterr().out == ""  # no versions table before the problem


def test_versions_marks_missing_packages(monkeypatch):
    monkeypatch.setattr(course_setup, "_installed", lambda name: None)
    table = course_setup.versions()
    assert table["python"] == platform.python_version()
    assert set(table) == {
        "python",
        "tensorflow",
        "tensorflow-estimator",
        "numpy",
        "pandas",
        "matplotlib",
        "scikit-learn",
    }
    assert all(version == "-" for name, version in table.items() if name != "python")


def test_the_python_named_is_its_version_without_the_release_level():
    with pytest.raises(EnvironmentProblem, match=r"^Python 3\.12\.1 cannot run"):
        course_setup.check_versions((3, 12, 1, "final", 0), "2.15.1", "2.15.0")


def test_start_shows_the_versions_by_default(clean_env, capsys):
    course_setup.start()
    assert capsys.readouterr().out.startswith("python")


# course_setup.use_course_temp_dir


def test_course_temp_dir_is_the_temporary_folder_here_and_in_children(tmp_path, monkeypatch):
    import subprocess
    import tempfile

    folder = tmp_path / "models" / "tmp"
    # the conftest restores TMPDIR and tempdir
    monkeypatch.setattr(course_setup, "TEMP_DIR", folder)
    assert course_setup.use_course_temp_dir() == folder and folder.is_dir()
    assert tempfile.gettempdir() == str(folder)
    child = subprocess.run(
        [sys.executable, "-c", "import tempfile; print(tempfile.gettempdir())"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert child.stdout.strip() == str(folder)


def test_a_second_start_finds_the_course_temp_dir_already_there(tmp_path, monkeypatch):
    monkeypatch.setattr(course_setup, "TEMP_DIR", tmp_path / "models" / "tmp")
    course_setup.use_course_temp_dir()
    assert course_setup.use_course_temp_dir() == tmp_path / "models" / "tmp"


@pytest.fixture(scope="module")
def course_temp_dir():
    """TEMP_DIR as imported (module-wide: before the conftest gives each test its own)."""
    return course_setup.TEMP_DIR


def test_the_course_temp_dir_is_inside_models_which_make_clean_models_empties(course_temp_dir):
    assert course_temp_dir.parent == paths.MODELS_DIR


# --------------------------------------------------------------------------
# A stray TF_CONFIG
# --------------------------------------------------------------------------

STRAY = (
    '{"cluster": {"worker": ["10.0.0.7:2222", "10.0.0.8:2222"]}, '
    '"task": {"type": "worker", "index": 1}}'
)


def test_start_takes_a_stray_tf_config_out_and_says_so_in_one_line(clean_env, capsys):
    import tensorflow as tf

    clean_env.setenv("TF_CONFIG", STRAY)
    course_setup.start(show=False)
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "TF_CONFIG" in out and "worker:1" in out, out
    assert "removed" in out and "shell profile" in out
    assert "TF_CONFIG" not in os.environ
    # what train() reads: a one-process RunConfig, so nothing waits for a cluster
    config = tf.estimator.RunConfig()
    assert config.cluster_spec.as_dict() == {} and config.num_worker_replicas == 1


def test_start_says_nothing_without_tf_config(clean_env, capsys):
    clean_env.delenv("TF_CONFIG", raising=False)
    course_setup.start(show=False)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("value", ["not json", "[]", '{"cluster": {}}'])
def test_a_tf_config_without_a_task_is_removed_too(clean_env, value):
    clean_env.setenv("TF_CONFIG", value)
    line = course_setup.drop_stray_tf_config()
    assert "task ?" in line and "\n" not in line


def test_a_zh_tw_learner_reads_the_tf_config_line_in_chinese(zh_tw, clean_env):
    clean_env.setenv("TF_CONFIG", STRAY)
    zh_tw()  # the committed catalogue
    line = course_setup.drop_stray_tf_config()
    assert "TF_CONFIG" in line and re.search(r"[\u4e00-\u9fff]", line), line
