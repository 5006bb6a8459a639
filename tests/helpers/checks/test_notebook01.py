"""Unit tests for the exercise checks of notebook 01 (``helpers.checks.notebook01``).

Every message a check can give is produced here once: a blank answer (the
student copy), each kind of wrong answer, and the right one. No TensorFlow:
exercise 1 gets a hand-written log (and a bank of wrong sums), exercise 2 a stand-in for an
Estimator that answers ``latest_checkpoint()`` and ``get_variable_value("global_step")``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from helpers.checks import notebook01 as checks
from tests.support.checks import failure

# A training log as logs.captured_log() collects it (LOG_EVERY = 100, 300 steps).
LINES = [
    "Calling model_fn.",
    "Done calling model_fn.",
    "Create CheckpointSaverHook.",
    "Graph was finalized.",
    "Running local_init_op.",
    "Done running local_init_op.",
    "Saving checkpoints for 0 into ../models/01_dnn/model.ckpt.",
    "loss = 2.2781284, step = 0",
    "global_step/sec: 63.2565",
    "loss = 0.41173, step = 100 (1.585 sec)",
    "global_step/sec: 57.6665",
    "loss = 0.2990716, step = 200 (1.736 sec)",
    "Saving checkpoints for 300 into ../models/01_dnn/model.ckpt.",
    "Loss for final step: 0.18953124.",
]
TIMES = (1.585, 1.736)
TOTAL = 1.585 + 1.736


def _fails(check, *args, match):
    message = failure(check, *args)
    assert re.search(match, message), message
    assert "\n" not in message  # one plain sentence
    return message


# ---- exercise 1: logged_seconds --------------------------------------------------


def test_seconds_blank():
    _fails(checks.logged_seconds, None, LINES, match=r"`logged_seconds` is still None")


@pytest.mark.parametrize("text", ["3.321", b"3.321"])
def test_seconds_as_text(text):
    _fails(checks.logged_seconds, text, LINES, match=r"is the text .*float\(\.\.\.\)")


@pytest.mark.parametrize("wrong", [[TOTAL], True, {"seconds": TOTAL}])
def test_seconds_not_a_number(wrong):
    _fails(checks.logged_seconds, wrong, LINES, match=r"should be a number of seconds, not")


def test_seconds_without_timed_lines_in_the_log():
    _fails(
        checks.logged_seconds, TOTAL, LINES[:9], match=r"no 'loss = …, step = … \(x.xxx sec\)' line"
    )


# The bank of plausible wrong answers: each names its mistake, none hands over the code.
WRONG = [
    (1.736, r"the time on one loss line: each line times only the steps since the line before"),
    (1.585, r"the time on one loss line"),
    (TOTAL / 2, r"the mean time per line: the exercise asks for the total"),
    (63.2565 + 57.6665, r"global_step/sec lines, which are rates, not times"),
    ((63.2565 + 57.6665) / 2, r"global_step/sec lines, which are rates"),
    (2, r"a count of lines"),
    (3.32, r"close but rounded"),
    (300 / 60.0, r"is not it: find the loss lines that end with '\(… sec\)'"),
]


@pytest.mark.parametrize("answer, words", WRONG)
def test_seconds_wrong_answers_are_named(answer, words):
    message = _fails(checks.logged_seconds, answer, LINES, match=words)
    assert "sum(" not in message and "re." not in message  # the cause, not the code


@pytest.mark.parametrize("answer", [TOTAL, np.float32(TOTAL), np.float64(TOTAL), sum(TIMES)])
def test_seconds_correct(answer, capsys):
    checks.logged_seconds(answer, LINES)
    out = capsys.readouterr().out
    assert (
        out.startswith("Correct: the 2 timed loss lines add up to 3.321 s") and out.count("\n") == 1
    )


# ---- exercise 2: fixed_input_fn --------------------------------------------------


class FakeEstimator:
    """Answers the two questions the check asks a tf.estimator.Estimator."""

    def __init__(self, global_step=None):
        self.global_step = global_step

    def latest_checkpoint(self):
        return None if self.global_step is None else f"model.ckpt-{self.global_step}"

    def get_variable_value(self, name):
        assert name == "global_step"
        return np.int64(self.global_step)


def test_fixed_blank():
    _fails(checks.fixed_input_fn, None, 50, match=r"`fixed_estimator` is still None")


@pytest.mark.parametrize(
    "wrong, named", [(lambda: None, "function"), (FakeEstimator, "a class"), (50, "int")]
)
def test_fixed_not_an_estimator(wrong, named):
    message = _fails(checks.fixed_input_fn, wrong, 50, match=r"should be the Estimator you trained")
    assert named in message


def test_fixed_never_trained():
    message = _fails(
        checks.fixed_input_fn,
        FakeEstimator(None),
        50,
        match=r"has no checkpoint yet, so it has not "
        r"trained: train\(\) needs the input function that the factory returns, not the factory",
    )
    assert "section 'The input function'" in message
    assert "make_train_input_fn()" not in message  # the cause and the section, not the code


def test_fixed_trained_twice():
    _fails(
        checks.fixed_input_fn,
        FakeEstimator(100),
        50,
        match=r"global step 100, not 50: steps add up",
    )


def test_fixed_too_few_steps():
    _fails(
        checks.fixed_input_fn,
        FakeEstimator(10),
        50,
        match=r"global step 10, not 50: train it with steps",
    )


def test_fixed_correct(capsys):
    checks.fixed_input_fn(FakeEstimator(50), 50)
    out = capsys.readouterr().out
    assert out.startswith("Correct: trained to global step 50") and out.count("\n") == 1


def test_seconds_of_a_long_run_are_compared_relative_to_their_size(capsys):
    """The tolerance grows with the total (1e-6 of it): 300.123 s summed in another order is
    still right."""
    lines = [f"loss = 0.5, step = {100 * k} (100.041 sec)" for k in (1, 2, 3)]
    checks.logged_seconds(300.123 + 5e-5, lines)
    assert capsys.readouterr().out.startswith("Correct:")


def test_seconds_counting_the_lines_with_the_step_0_line():
    _fails(checks.logged_seconds, len(TIMES) + 1, LINES, match=r"^3\.0 is a count of lines")


def test_seconds_off_by_more_than_rounding_are_not_called_rounded():
    _fails(checks.logged_seconds, TOTAL + 0.07, LINES, match=r"is not it: find the loss lines")


def test_estimator_that_is_no_class_gets_no_class_note():
    message = _fails(checks.fixed_input_fn, 42, 300, match="should be the Estimator")
    assert message.endswith("not int")


def test_a_zh_tw_learner_reads_the_message_in_chinese(zh_tw):
    template = (
        "{answer} is not it: find the loss lines that end with '(… sec)' and add the numbers in "
        "the parentheses (section 'The training log, line by line')"
    )
    sentences = zh_tw()
    message = failure(checks.logged_seconds, 5.0, LINES)
    assert message == sentences[template].format(answer=5.0)
    assert "「訓練日誌逐行解讀」" in message  # notebook 01's zh-TW heading
