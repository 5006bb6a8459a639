"""Unit tests for the exercise checks of notebook 01 (``helpers.checks.notebook01``).

Every message a check can give is produced here once: a blank answer (the
student copy), each kind of wrong answer, and the right one. No TensorFlow:
exercise 1 gets a hand-written log, exercise 2 a stand-in for an Estimator
that answers ``latest_checkpoint()`` and ``get_variable_value("global_step")``.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers import checks
from helpers.problems import CheckFailed

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
FINAL = 0.18953124


def _fails(check, *args, match):
    with pytest.raises(CheckFailed, match=match) as raised:
        check(*args)
    assert "\n" not in str(raised.value)  # one plain sentence
    return str(raised.value)


# ---- exercise 1: final_step_loss -------------------------------------------------

def test_final_loss_blank():
    _fails(checks.final_step_loss, None, LINES, match=r"`final_step_loss` is still None")


@pytest.mark.parametrize("text", ["0.18953124", b"0.18953124"])
def test_final_loss_as_text(text):
    _fails(checks.final_step_loss, text, LINES, match=r"is the text .*float\(\.\.\.\)")


@pytest.mark.parametrize("wrong", [[FINAL], True, {"loss": FINAL}])
def test_final_loss_not_a_number(wrong):
    _fails(checks.final_step_loss, wrong, LINES, match=r"should be a float, not")


def test_final_loss_without_a_final_line_in_the_log():
    _fails(checks.final_step_loss, FINAL, LINES[:-1], match=r"no 'Loss for final step' line")


@pytest.mark.parametrize("loss, step", [(0.2990716, "200"), (2.2781284, "0")])
def test_final_loss_from_a_loss_line(loss, step):
    message = _fails(checks.final_step_loss, loss, LINES, match=r"is the loss of the line")
    assert f"step = {step}" in message


def test_final_loss_rounded():
    _fails(checks.final_step_loss, 0.19, LINES, match=r"close but rounded")


def test_final_loss_wrong():
    _fails(checks.final_step_loss, 1.5, LINES, match=r"is not the final loss")


@pytest.mark.parametrize("answer", [FINAL, np.float32(FINAL), np.float64(FINAL)])
def test_final_loss_correct(answer, capsys):
    checks.final_step_loss(answer, LINES)
    out = capsys.readouterr().out
    assert out.startswith("Correct: ") and out.count("\n") == 1
    assert "0.18953124" in out and "step 0" in out


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


@pytest.mark.parametrize("wrong, named", [(lambda: None, "function"), (FakeEstimator, "a class"), (50, "int")])
def test_fixed_not_an_estimator(wrong, named):
    message = _fails(checks.fixed_input_fn, wrong, 50, match=r"should be the Estimator you trained")
    assert named in message


def test_fixed_never_trained():
    message = _fails(checks.fixed_input_fn, FakeEstimator(None), 50, match=r"has no checkpoint yet, so it has not "
                     r"trained: train\(\) needs the input function that the factory returns, not the factory")
    assert "section 'The input function'" in message
    assert "make_train_input_fn()" not in message  # the cause and the section, not the code


def test_fixed_trained_twice():
    _fails(checks.fixed_input_fn, FakeEstimator(100), 50, match=r"global step 100, not 50: steps add up")


def test_fixed_too_few_steps():
    _fails(checks.fixed_input_fn, FakeEstimator(10), 50, match=r"global step 10, not 50: train it with steps")


def test_fixed_correct(capsys):
    checks.fixed_input_fn(FakeEstimator(50), 50)
    out = capsys.readouterr().out
    assert out.startswith("Correct: trained to global step 50") and out.count("\n") == 1
