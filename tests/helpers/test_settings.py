"""Unit tests for ``helpers.settings``.

What is tested:

* ``settings.steps`` and ``settings.fast_mode``: full mode, fast mode (read from
  ``WORKBOOK_FAST`` at call time), the default tenth, and bad step counts.
* ``settings.fresh_model_dir``: returns a relative path, empties the folder,
  and refuses names that would leave ``models/`` without deleting anything.
* ``settings.seed_everything``.
* grading mode (``WORKBOOK_GRADING``, set by the course's nbgrader config): ``steps``
  gives a demonstration its ``grading`` count and every other count its fast one, and
  ``expect`` asserts a lesson outside grading mode and says it is skipped in it.

Every test that reads ``WORKBOOK_FAST`` sets or removes it first, because
``make test`` runs the suite with ``WORKBOOK_FAST=1``.
"""

from __future__ import annotations

import os
import random
import sys
import types

import numpy as np
import pytest

from helpers import paths, settings
from helpers.problems import UsageProblem

FAST = settings.FAST_ENV  # "WORKBOOK_FAST"
GRADING = settings.GRADING_ENV  # "WORKBOOK_GRADING"


@pytest.fixture(autouse=True)
def no_grading_mode(monkeypatch):
    """Grading mode off unless a test sets it (nbgrader's kernels inherit it)."""
    monkeypatch.delenv(GRADING, raising=False)


# --------------------------------------------------------------------------
# settings.fast_mode and settings.steps
# --------------------------------------------------------------------------


def test_steps_in_full_mode(monkeypatch):
    monkeypatch.delenv(FAST, raising=False)
    assert settings.fast_mode() is False
    assert settings.steps(1000) == 1000
    assert settings.steps(1000, 50) == 1000
    assert settings.steps(1) == 1


def test_steps_in_fast_mode(monkeypatch):
    monkeypatch.setenv(FAST, "1")
    assert settings.steps(1000, 50) == 50
    assert settings.steps(1000) == 100
    assert settings.steps(25) == 2
    assert settings.steps(9) == 1  # never 0
    assert settings.steps(1) == 1


def test_fast_mode_is_read_at_call_time(monkeypatch):
    monkeypatch.delenv(FAST, raising=False)
    assert settings.steps(500) == 500
    monkeypatch.setenv(FAST, "1")
    assert settings.steps(500) == 50
    monkeypatch.setenv(FAST, "0")
    assert settings.steps(500) == 500


@pytest.mark.parametrize("value", ["1", "true", "TRUE", "yes", "on", " 1 ", "True\n"])
def test_fast_mode_on(monkeypatch, value):
    monkeypatch.setenv(FAST, value)
    assert settings.fast_mode() is True


@pytest.mark.parametrize("value", ["0", "", "false", "no", "off", "2", "fast"])
def test_fast_mode_off(monkeypatch, value):
    monkeypatch.setenv(FAST, value)
    assert settings.fast_mode() is False


@pytest.mark.parametrize("fast_env", ["", "1"], ids=["full", "fast"])
@pytest.mark.parametrize("full", [0, -5])
def test_steps_below_one_raise(monkeypatch, fast_env, full):
    monkeypatch.setenv(FAST, fast_env)
    with pytest.raises(ValueError, match="at least 1"):
        settings.steps(full)


# --------------------------------------------------------------------------
# settings.fresh_model_dir
# --------------------------------------------------------------------------


@pytest.fixture
def models(tmp_path, monkeypatch):
    """``MODELS_DIR`` is ``<tmp>/models`` and the working directory is ``<tmp>``."""
    models_dir = tmp_path / "models"
    monkeypatch.setattr(paths, "MODELS_DIR", models_dir)
    monkeypatch.chdir(tmp_path)
    return models_dir


def test_fresh_model_dir_returns_a_relative_path(models):
    path = settings.fresh_model_dir("03_cnn")
    assert isinstance(path, str)
    assert not os.path.isabs(path)
    assert path == os.path.join("models", "03_cnn")
    assert models.is_dir()  # the parent exists, so the Estimator can create the folder
    assert not (models / "03_cnn").exists()


def test_fresh_model_dir_outside_the_working_directory_is_absolute_never_under_tilde(
    tmp_path, monkeypatch
):
    """A notebook run from a folder outside the course (a copy in a learner's home, nbgrader's
    autograded/ folder elsewhere): the model_dir goes to TensorFlow, which does not expand ``~``
    and would write into a folder named ``~`` under the working directory."""
    course, elsewhere = tmp_path / "home" / "course", tmp_path / "home" / "ada" / "student"
    elsewhere.mkdir(parents=True)
    monkeypatch.setattr(paths, "PROJECT_ROOT", course)
    monkeypatch.setattr(paths, "MODELS_DIR", course / "models")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(elsewhere)
    path = settings.fresh_model_dir("03_cnn")
    assert path == str((course / "models" / "03_cnn").resolve())
    assert paths.display_path(path) == os.path.join("~", "course", "models", "03_cnn")


def test_fresh_model_dir_removes_earlier_contents(models):
    first = settings.fresh_model_dir("run")
    os.makedirs(os.path.join(first, "eval"))
    with open(os.path.join(first, "checkpoint"), "w") as stream:
        stream.write("old")
    (models / "other").mkdir()
    (models / "other" / "keep.txt").write_text("another run")

    second = settings.fresh_model_dir("run")

    assert second == first
    assert not os.path.exists(os.path.join(first, "checkpoint"))
    assert not os.path.exists(first)
    assert (models / "other" / "keep.txt").read_text() == "another run"


def test_fresh_model_dir_accepts_a_nested_name(models):
    (models / "group" / "run").mkdir(parents=True)
    (models / "group" / "run" / "old").write_text("x")
    path = settings.fresh_model_dir("group/run")
    assert path == os.path.join("models", "group", "run")
    assert not (models / "group" / "run").exists()
    assert (models / "group").is_dir()


@pytest.mark.parametrize("name", ["", "/abs", "../escape", "a/../../b", "."])
def test_fresh_model_dir_rejects_names_outside_models(models, tmp_path, name):
    # Things a wrong name could hit: the target of each bad name, and models/ itself.
    victims = [
        tmp_path / "escape" / "keep.txt",
        tmp_path / "b" / "keep.txt",
        tmp_path / "abs" / "keep.txt",
        models / "keep.txt",
    ]
    for victim in victims:
        victim.parent.mkdir(parents=True, exist_ok=True)
        victim.write_text("keep me")
    if name == "/abs":
        name = str(tmp_path / "abs")  # a real absolute folder, full of things to keep

    with pytest.raises(ValueError, match="fresh_model_dir"):
        settings.fresh_model_dir(name)

    for victim in victims:
        assert victim.read_text() == "keep me"


def test_fresh_model_dir_does_not_follow_a_symlink_out(models, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep me")
    models.mkdir()
    (models / "link").symlink_to(outside, target_is_directory=True)

    with pytest.raises(ValueError, match="would leave"):
        settings.fresh_model_dir("link")
    assert (outside / "keep.txt").read_text() == "keep me"


# --------------------------------------------------------------------------
# settings.seed_everything
# --------------------------------------------------------------------------


def _draws():
    return [random.random() for _ in range(3)], np.random.rand(3).tolist()


def test_seed_everything_repeats_draws(monkeypatch):
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)

    assert settings.seed_everything(7) == 7
    first = _draws()
    settings.seed_everything(7)
    second = _draws()
    settings.seed_everything(8)
    other = _draws()

    assert first == second
    assert other != first
    assert os.environ["PYTHONHASHSEED"] == "8"


def test_seed_everything_seeds_tensorflow_once_imported(monkeypatch):
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    seeds = []
    fake = types.SimpleNamespace(random=types.SimpleNamespace(set_seed=seeds.append))
    monkeypatch.setitem(sys.modules, "tensorflow", fake)
    settings.seed_everything(11)
    assert seeds == [11]


def test_seed_everything_default_is_the_course_seed(monkeypatch):
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    assert settings.seed_everything() == settings.SEED == 42


def test_steps_rejects_a_fast_count_below_one(monkeypatch):
    monkeypatch.setenv(settings.FAST_ENV, "1")
    with pytest.raises(ValueError, match="at least 1"):
        settings.steps(100, 0)


def test_fresh_model_dir_replaces_a_file_of_that_name(models):
    (paths.MODELS_DIR / "run").parent.mkdir(parents=True, exist_ok=True)
    (paths.MODELS_DIR / "run").write_text("not a folder")
    settings.fresh_model_dir("run")
    assert not (paths.MODELS_DIR / "run").exists()


def test_fresh_model_dir_closes_cached_event_writers(models):
    """A writer cached for the old folder would write into the deleted one (notebook 07)."""
    import tensorflow as tf

    with tf.Graph().as_default():
        first = settings.fresh_model_dir("run")
        old_writer = tf.compat.v1.summary.FileWriterCache.get(first)
        # Let the writer's thread finish its first write: TensorFlow re-creates an event file
        # deleted under an open writer when it flushes, which can race with the removal.
        old_writer.flush()
        second = settings.fresh_model_dir("run")
        assert tf.compat.v1.summary.FileWriterCache.get(second) is not old_writer
        tf.compat.v1.summary.FileWriterCache.clear()  # before the test's folder goes


def test_a_wrong_step_count_is_one_line_and_still_a_value_error():
    with pytest.raises(UsageProblem) as caught:
        settings.steps(0)
    assert isinstance(caught.value, ValueError)
    assert caught.value._render_traceback_() == [
        "UsageProblem: steps(full=0): a step count must be at least 1"
    ]


# --------------------------------------------------------------------------
# grading mode: settings.grading_mode, steps(..., grading=), settings.expect
# --------------------------------------------------------------------------


def test_grading_mode_gives_demonstrations_their_grading_count(monkeypatch):
    monkeypatch.delenv(FAST, raising=False)
    monkeypatch.setenv(GRADING, "1")
    assert settings.grading_mode() is True
    assert settings.fast_mode() is True  # grading mode is fast mode, and less
    assert settings.steps(1500, 300, grading=40) == 40
    assert settings.steps(200, 50) == 50  # no grading count: the fast count, checks get it
    assert settings.steps(1000) == 100


def test_grading_count_is_ignored_outside_grading_mode(monkeypatch):
    monkeypatch.delenv(FAST, raising=False)
    assert settings.steps(1500, 300, grading=40) == 1500
    monkeypatch.setenv(FAST, "1")
    assert settings.steps(1500, 300, grading=40) == 300
    monkeypatch.setenv(GRADING, "0")  # how a teacher grades with the notebook's own counts
    assert settings.steps(1500, 300, grading=40) == 300


@pytest.mark.parametrize("grading", [0, -1])
def test_a_grading_count_below_one_raises_in_every_mode(monkeypatch, grading):
    monkeypatch.delenv(FAST, raising=False)
    with pytest.raises(UsageProblem, match=rf"steps\(grading={grading}\): a step count must be"):
        settings.steps(100, 10, grading=grading)


def test_expect_asserts_a_lesson_outside_grading_mode(monkeypatch, capsys):
    monkeypatch.setenv(FAST, "1")
    settings.expect(True, "test accuracy at least 0.90")
    with pytest.raises(AssertionError, match="^test accuracy at least 0.90$"):
        settings.expect(False, "test accuracy at least 0.90")
    assert capsys.readouterr().out == ""


def test_expect_says_it_skips_the_lesson_in_grading_mode(monkeypatch, capsys):
    monkeypatch.setenv(GRADING, "1")
    settings.expect(False, "test accuracy at least 0.90")  # does not raise
    settings.expect(True, "the cluster is less than twice as fast")  # said even when it holds
    assert capsys.readouterr().out.splitlines() == [
        "grading mode: not asserted (the demonstration trained minimally): "
        "test accuracy at least 0.90",
        "grading mode: not asserted (the demonstration trained minimally): "
        "the cluster is less than twice as fast",
    ]


def test_a_step_count_below_one_names_the_argument(monkeypatch):
    monkeypatch.setenv(settings.FAST_ENV, "1")
    with pytest.raises(ValueError, match=r"^steps\(fast=0\): a step count must be at least 1$"):
        settings.steps(100, 0)


@pytest.mark.parametrize("name", ["", "/abs", "../escape", "a/../../b"])
def test_fresh_model_dir_asks_for_a_plain_name(models, name):
    with pytest.raises(ValueError, match=r"give a plain name such as '03_cnn'$"):
        settings.fresh_model_dir(name)
    # "." is plain but names models/ itself
    with pytest.raises(ValueError, match=r"would leave the models/ folder$"):
        settings.fresh_model_dir(".")
