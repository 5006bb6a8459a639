"""Exercise checks of notebook 01 (the training log's final loss, a real input_fn); no TensorFlow needed."""

from __future__ import annotations

import numbers
import re

from ..problems import CheckFailed
from .common import correct, require_answer

__all__ = ["final_step_loss", "fixed_input_fn"]

FINAL_LINE = re.compile(r"^Loss for final step: (?P<loss>\S+?)\.?$")
LOSS_LINE = re.compile(r"^loss = (?P<loss>[^,]+), step = (?P<step>\d+)")


def final_step_loss(answer, lines: list[str]) -> None:
    """Notebook 01, exercise 1: the loss on the "Loss for final step" line, as a float."""
    require_answer(answer, "final_step_loss")
    if isinstance(answer, (str, bytes)):
        raise CheckFailed(f"`final_step_loss` is the text {answer!r}: turn the number into a float with float(...)")
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        raise CheckFailed(f"`final_step_loss` should be a float, not {type(answer).__name__}")
    finals = [float(match["loss"]) for match in map(FINAL_LINE.match, map(str, lines)) if match]
    if not finals:
        raise CheckFailed("the log passed to the check has no 'Loss for final step' line: "
                          "run the training cell, whose `lines` hold the training log")
    expected = finals[-1]
    answer = float(answer)
    logged = [match for match in map(LOSS_LINE.match, map(str, lines)) if match]
    if abs(answer - expected) <= 1e-6 * max(1.0, abs(expected)):
        first = logged[0] if logged else None
        start = f"; the first loss line, at step {first['step']}, said {float(first['loss']):.4f}" if first else ""
        correct(f"the last batch's loss was {expected}{start}")
        return
    for match in logged:
        if abs(answer - float(match["loss"])) <= 1e-6 * max(1.0, abs(answer)):
            raise CheckFailed(f"{answer} is the loss of the line 'loss = …, step = {match['step']}': take the value "
                              "on the line that starts with 'Loss for final step'")
    if abs(answer - expected) < 0.01:
        raise CheckFailed(f"{answer} is close but rounded: keep every digit the log shows")
    raise CheckFailed(f"{answer} is not the final loss: find the line that starts with 'Loss for final step: ' "
                      "and convert the number after it")


def fixed_input_fn(answer, steps: int) -> None:
    """Notebook 01, exercise 2: an Estimator trained ``steps`` steps with a real input_fn."""
    require_answer(answer, "fixed_estimator")
    if isinstance(answer, type) or not callable(getattr(answer, "latest_checkpoint", None)):
        note = " (a class)" if isinstance(answer, type) else ""
        raise CheckFailed(f"`fixed_estimator` should be the Estimator you trained, not {type(answer).__name__}{note}")
    if answer.latest_checkpoint() is None:
        raise CheckFailed("`fixed_estimator` has no checkpoint yet, so it has not trained: train() needs the input "
                          "function that the factory returns, not the factory (section 'The input function')")
    reached = int(answer.get_variable_value("global_step"))
    if reached > steps:
        raise CheckFailed(f"`fixed_estimator` is at global step {reached}, not {steps}: steps add up when train() "
                          "runs more than once on one model_dir; run the exercise's first cell again (it starts a "
                          "fresh model_dir), then train once")
    if reached < steps:
        raise CheckFailed(f"`fixed_estimator` is at global step {reached}, not {steps}: train it with "
                          "steps=EXERCISE_STEPS")
    correct(f"trained to global step {reached}: train() got the input function that make_train_input_fn() returns, "
            "not the factory itself")
