"""Unit tests for ``helpers.logs``: the filter that keeps TensorFlow's training log readable.

What is tested:

* ``NoiseFilter`` on a plain ``logging.Logger`` whose handler collects the
  formatted lines: it drops TensorFlow's deprecation records (both forms, as
  literal text and as ``%``-style arguments) and the ``Using config: {...}``
  dump; it keeps the lines a learner reads (``loss = …, step = …``,
  ``global_step/sec``, checkpoint saving, the final loss, hook output); it
  rewrites absolute paths inside the project to relative ones (or to
  ``<course>`` when the working directory is outside the project); and it
  formats ``%``-style arguments correctly.
* ``install_noise_filter`` is idempotent and sets the logger to INFO.
* ``logger_level`` restores the level it found, also after an exception;
  ``captured_log`` collects every line of its block and, with ``show``, lets
  only the lines with one of those prefixes through (the others are collected).
* End to end, in a fresh Python process (marked ``slow``, about 10 s): after
  ``course_setup.start()``, training a real ``tf.estimator.LinearClassifier`` prints
  the training log and none of the deprecation warnings, config dump or C++
  start-up messages that TensorFlow 2.15 prints without the filter.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import textwrap
import warnings

import pytest

from helpers import logs, paths, settings


class ListHandler(logging.Handler):
    """Collects every formatted line that reaches it."""

    def __init__(self):
        super().__init__()
        self.setFormatter(logging.Formatter("%(message)s"))
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(self.format(record))


@pytest.fixture
def course(tmp_path):
    """A project root with a notebooks/ folder, standing in for the course."""
    root = tmp_path / "course"
    (root / "notebooks").mkdir(parents=True)
    return root


@pytest.fixture
def logged(course):
    """A logger with ``NoiseFilter(root=course)`` and a collecting handler."""
    logger = logging.Logger("tensorflow-under-test", logging.DEBUG)  # not in the hierarchy
    handler = ListHandler()
    logger.addHandler(handler)
    logger.addFilter(logs.NoiseFilter(root=course))
    return logger, handler.lines


DEPRECATION_RECORDS = {
    "hook-init": (
        "From /x/y.py:12: StopAtStepHook.__init__ (from tensorflow.python.training."
        "basic_session_run_hooks) is deprecated and will be removed in a future version.\n"
        "Instructions for updating:\nUse tf.keras instead.",
        (),
    ),
    "renamed": (
        "From x: The name tf.losses.foo is deprecated. Please use tf.compat.v1.losses.foo instead.",
        (),
    ),
    # How tensorflow.python.util.deprecation actually logs it: with % arguments.
    "hook-init-args": (
        "From %s: %s (from %s) is deprecated and will be removed %s."
        "\nInstructions for updating:\n%s",
        (
            "/x/y.py:12",
            "StopAtStepHook.__init__",
            "tensorflow.python.training.basic_session_run_hooks",
            "in a future version",
            "Use tf.keras instead.",
        ),
    ),
    "config": ("Using config: {'_model_dir': '/x/models/a', '_tf_random_seed': 42}", ()),
    "config-args": (
        "Using config: %s",
        ("{'_model_dir': '/x/models/a', '_save_summary_steps': 100}",),
    ),
}

KEPT_LINES = [
    "loss = 2.3025851, step = 0",
    "loss = 0.52, step = 100 (0.158 sec)",
    "global_step/sec: 631.65",
    "Saving checkpoints for 120 into ../models/x/model.ckpt.",
    "Loss for final step: 2.17.",
    "probabilities = [[0.1 0.9]]",
    "Using default config.",
    "Calling model_fn.",
]


@pytest.mark.parametrize("msg, args", DEPRECATION_RECORDS.values(), ids=DEPRECATION_RECORDS.keys())
def test_noise_is_dropped(logged, msg, args):
    logger, lines = logged
    logger.warning(msg, *args)
    logger.info(msg, *args)
    assert lines == []


@pytest.mark.parametrize("line", KEPT_LINES)
def test_training_log_is_kept_unchanged(logged, line):
    logger, lines = logged
    logger.info(line)
    assert lines == [line]


def test_percent_style_arguments_are_formatted(logged):
    logger, lines = logged
    logger.info("loss = %s, step = %s", 2.3025851, 0)
    logger.info("loss = %s, step = %s (%.3f sec)", 0.52, 100, 0.1584)
    logger.info("global_step/sec: %g", 631.65)
    assert lines == [
        "loss = 2.3025851, step = 0",
        "loss = 0.52, step = 100 (0.158 sec)",
        "global_step/sec: 631.65",
    ]


@pytest.mark.parametrize(
    "folder, message, shown",
    [
        (
            "notebooks",
            "Saving checkpoints for 120 into {course}/models/x/model.ckpt.",
            "Saving checkpoints for 120 into ../models/x/model.ckpt.",
        ),
        (
            ".",
            "Restoring parameters from {course}/models/x/model.ckpt-120",
            "Restoring parameters from ./models/x/model.ckpt-120",
        ),
        (
            "notebooks",
            "Copying {course}/models/a to {course}/models/b",
            "Copying ../models/a to ../models/b",
        ),
        (
            "notebooks",
            "Saving checkpoints for 120 into /tmp/elsewhere/model.ckpt.",
            "Saving checkpoints for 120 into /tmp/elsewhere/model.ckpt.",
        ),
    ],
    ids=["from a notebook", "from the root", "every occurrence", "outside the project: left alone"],
)
def test_a_path_in_the_project_is_shown_relative_to_the_working_folder(
    logged, course, monkeypatch, folder, message, shown
):
    logger, lines = logged
    monkeypatch.chdir(course / folder)
    logger.info(message.format(course=course))
    assert lines == [shown]


def test_path_is_course_placeholder_when_cwd_is_outside(logged, course, tmp_path, monkeypatch):
    logger, lines = logged
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    logger.info(f"Saving checkpoints for 120 into {course}/models/x/model.ckpt.")
    assert lines == ["Saving checkpoints for 120 into <course>/models/x/model.ckpt."]


def test_path_in_arguments_is_rewritten(logged, course, monkeypatch):
    logger, lines = logged
    monkeypatch.chdir(course / "notebooks")
    logger.info("Saving checkpoints for %d into %s.", 120, f"{course}/models/x/model.ckpt")
    logger.info("Evaluation %s: 100%% of %s", "done", f"{course}/data/mnist")  # no re-formatting
    assert lines == [
        "Saving checkpoints for 120 into ../models/x/model.ckpt.",
        "Evaluation done: 100% of ../data/mnist",
    ]


def test_sibling_folder_with_the_same_prefix_is_left_alone(logged, course, monkeypatch):
    logger, lines = logged
    monkeypatch.chdir(course)
    sibling = f"{course}-data/mnist/train-images-idx3-ubyte.gz"
    logger.info(f"Reading {sibling}")
    assert lines == [f"Reading {sibling}"]


def test_malformed_record_is_passed_on():
    """A record whose arguments do not match is left for logging to report."""
    record = logging.LogRecord("tensorflow", logging.INFO, __file__, 1, "step = %d", ("x",), None)
    assert logs.NoiseFilter().filter(record) is True


def test_default_root_is_the_project():
    assert logs.NoiseFilter().root == str(paths.PROJECT_ROOT)


# --------------------------------------------------------------------------
# install_noise_filter
# --------------------------------------------------------------------------


def test_install_noise_filter_is_idempotent_and_sets_info():
    logger = logging.Logger("install-under-test")
    assert logger.level == logging.NOTSET

    first = logs.install_noise_filter(logger)
    second = logs.install_noise_filter(logger)

    assert first is second
    assert isinstance(first, logs.NoiseFilter)
    assert [f for f in logger.filters if isinstance(f, logs.NoiseFilter)] == [first]
    assert logger.level == logging.INFO
    assert first.root == str(paths.PROJECT_ROOT)


def test_install_noise_filter_keeps_info_records():
    logger = logging.Logger("install-under-test")
    handler = ListHandler()
    logger.addHandler(handler)
    logs.install_noise_filter(logger)
    logger.info("loss = %s, step = %s", 1.5, 0)
    logger.warning("From x: The name tf.foo is deprecated. Please use tf.compat.v1.foo instead.")
    logger.debug("not shown at INFO")
    assert handler.lines == ["loss = 1.5, step = 0"]


def test_install_noise_filter_silences_deprecation_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        logs.install_noise_filter(logging.Logger("install-under-test"))
        warnings.warn("old API", DeprecationWarning)
        warnings.warn("`layer.apply` is deprecated and will be removed", UserWarning)
        warnings.warn("a warning that matters", UserWarning)
    assert [str(w.message) for w in caught] == ["a warning that matters"]


def test_logger_level_restores_the_level_after_an_exception():
    logger = logging.getLogger("workbook-test-level")
    logger.setLevel(logging.DEBUG)
    with pytest.raises(ZeroDivisionError):
        with logs.logger_level(logging.ERROR, logger.name):
            assert logger.level == logging.ERROR
            1 / 0
    assert logger.level == logging.DEBUG


def test_captured_log_shows_some_lines_and_collects_all():
    logger = logging.getLogger("tensorflow")
    handler = ListHandler()
    logger.addHandler(handler)
    try:
        with logs.logger_level(logging.INFO):
            with logs.captured_log() as everything:
                with logs.captured_log(show=("keep",)) as some:
                    logger.info("keep this")
                    logger.info("drop %s", "that")
    finally:
        logger.removeHandler(handler)
    assert some == everything == ["keep this", "drop that"]
    assert handler.lines == ["keep this"]


def test_quiet_native_logs_respects_an_explicit_setting(monkeypatch):
    monkeypatch.delenv("TF_CPP_MIN_LOG_LEVEL", raising=False)
    logs.quiet_native_logs()
    assert os.environ["TF_CPP_MIN_LOG_LEVEL"] == "3"
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "0")
    logs.quiet_native_logs()
    assert os.environ["TF_CPP_MIN_LOG_LEVEL"] == "0"


# --------------------------------------------------------------------------
# End to end: a real Estimator in a fresh process
# --------------------------------------------------------------------------

TRAIN_SCRIPT = textwrap.dedent(
    """
    import logging, sys

    import numpy as np

    from helpers import course_setup

    course_setup.start(show=False)
    import tensorflow as tf

    # Count the noise that reaches the logger, ahead of the NoiseFilter, so the
    # test can tell "filtered" from "TensorFlow printed nothing to filter".
    seen = {"deprecated": 0, "config": 0}
    def count(record):
        message = record.getMessage()
        seen["deprecated"] += "is deprecated" in message
        seen["config"] += message.startswith("Using config:")
        return True
    tf.get_logger().filters.insert(0, count)

    rng = np.random.default_rng(0)
    features = rng.normal(size=(64, 4)).astype("float32")
    labels = rng.integers(0, 3, size=64).astype("int32")

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": features}, labels)).repeat().batch(8)

    estimator = tf.estimator.LinearClassifier(
        feature_columns=[tf.feature_column.numeric_column("x", shape=(4,))],
        n_classes=3,
        model_dir=sys.argv[1],
    )
    estimator.train(input_fn, steps=120)
    print(f"NOISE SEEN: deprecated={seen['deprecated']} config={seen['config']}", flush=True)
    """
)

CPP_LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: [IWEF] ")


@pytest.mark.slow(reason="trains in a fresh Python process")
def test_real_training_log_is_clean(tmp_path):
    env = {
        k: v for k, v in os.environ.items() if k not in ("TF_CPP_MIN_LOG_LEVEL", settings.FAST_ENV)
    }
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(paths.PROJECT_ROOT), env.get("PYTHONPATH")])
    )
    result = subprocess.run(
        [sys.executable, "-c", TRAIN_SCRIPT, str(tmp_path / "model")],
        cwd=paths.PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=180,
    )
    output = result.stdout
    assert result.returncode == 0, output

    # The training log a learner reads is there.
    assert "loss = " in output and "step = 0" in output, output
    assert "global_step/sec" in output, output
    assert "Saving checkpoints for 120 into" in output, output
    assert "Loss for final step" in output, output

    # TensorFlow did produce the noise, and none of it got through.
    seen = re.search(r"NOISE SEEN: deprecated=(\d+) config=(\d+)", output)
    assert seen, output
    assert int(seen.group(1)) >= 5 and int(seen.group(2)) >= 1, output
    for noise in (
        "is deprecated",
        "Instructions for updating",
        "Using config:",
        "oneDNN",
        "cpu_feature_guard",
        "This TensorFlow binary is optimized",
    ):
        assert noise not in output, f"{noise!r} in the training log:\n{output}"
    assert not [line for line in output.splitlines() if CPP_LOG_LINE.match(line)], output


def test_the_root_inside_a_longer_path_is_left_alone(logged, course, monkeypatch):
    logger, lines = logged
    monkeypatch.chdir(course)
    for longer in (f"/backup{course}/data", f"old{course}/data", f"./{course}/data"):
        logger.info(f"Reading {longer}")
    assert lines == [
        f"Reading /backup{course}/data",
        f"Reading old{course}/data",
        f"Reading ./{course}/data",
    ]


def test_logger_level_sets_tensorflows_logger_by_default():
    logger = logging.getLogger("tensorflow")
    before = logger.level
    with logs.logger_level(logging.CRITICAL):
        assert logger.level == logging.CRITICAL
    assert logger.level == before
