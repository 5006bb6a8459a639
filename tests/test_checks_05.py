"""Notebook 05's exercise checks: names a hook can find, a recorder of the real global step, the steps a
hook logs; messages that name the cause, not the answer.

Exercise 1's graph is the notebook's: the course CNN plus a `monitor` name scope with `confidence` and
`first_classes` (the check's default expected tensors).
"""

import pytest
import tensorflow as tf

from helpers import checks
from helpers.problems import CheckFailed
from tests.hook_fixtures import SMALL, NaiveRecorder, monitored_model_fn

RIGHT = {"confidence": "monitor/confidence", "predicted": "monitor/first_classes"}


def test_the_notebooks_names_pass(capsys):
    checks.fixed_tensor_names(RIGHT, monitored_model_fn, SMALL)
    assert capsys.readouterr().out.startswith(
        "Correct: every name is in the graph: confidence -> monitor/confidence:0, "
        "predicted -> monitor/first_classes:0")


def test_names_with_the_output_index_pass(capsys):
    checks.fixed_tensor_names({tag: name + ":0" for tag, name in RIGHT.items()}, monitored_model_fn, SMALL)
    assert "Correct" in capsys.readouterr().out


@pytest.mark.parametrize("answer, message", [
    (None, "`fixed_tensors` is still None"),
    (["monitor/confidence", "monitor/first_classes"], "should be a dict {tag: tensor name}"),
    ({"confidence": "monitor/confidence"}, "should keep the tags ['confidence', 'predicted']"),
    ({"confidence": "monitor/confidence", "predicted": 3}, "fixed_tensors['predicted'] should be a tensor *name*"),
])
def test_wrong_shapes_of_answer(answer, message):
    with pytest.raises(CheckFailed) as caught:
        checks.fixed_tensor_names(answer, monitored_model_fn, SMALL)
    assert message in str(caught.value)


def test_the_break_it_names_get_the_cause_and_the_section_not_the_names():
    """The notebook's "break it" cell: a name without its scope, and a misspelt one."""
    with pytest.raises(CheckFailed) as caught:
        checks.fixed_tensor_names({"confidence": "confidence", "predicted": "first_class"}, monitored_model_fn, SMALL)
    message = str(caught.value)
    assert message == (
        "fixed_tensors['confidence'] = 'confidence' names no tensor in the model_fn's graph, so a hook would fail "
        "when training starts: a tensor made inside a name scope carries the scope in its name, and "
        "tensor_table lists the names there (section 'Naming tensors so a hook can find them')")
    assert "monitor/" not in message


def test_a_name_of_another_tensor():
    with pytest.raises(CheckFailed) as caught:
        checks.fixed_tensor_names({"confidence": "monitor/confidence", "predicted": "softmax_tensor"},
                                  monitored_model_fn, SMALL)
    message = str(caught.value)
    assert message.startswith("fixed_tensors['predicted'] finds the tensor softmax_tensor:0, which the model_fn "
                              "did not name for 'predicted'")
    assert "first_classes" not in message


# --- exercises 1 (other expected tensors), 2 and 3 --------------------------------------------------------------

EXPECTED = {"confidence": "monitor/confidence:0", "predicted": "classes:0"}  # another choice of tensors


def test_exercise_1_correct(capsys):
    checks.fixed_tensor_names({"confidence": "monitor/confidence", "predicted": "classes:0"},
                              monitored_model_fn, SMALL, EXPECTED)
    assert capsys.readouterr().out.startswith(
        "Correct: every name is in the graph: confidence -> monitor/confidence:0, predicted -> classes:0")


@pytest.mark.parametrize("answer, message", [
    (None, "`fixed_tensors` is still None"),
    (["monitor/confidence", "classes"], "should be a dict {tag: tensor name}"),
    ({"confidence": "monitor/confidence"}, "should keep the tags ['confidence', 'predicted']"),
    ({"confidence": "monitor/confidence", "predicted": 3}, "fixed_tensors['predicted'] should be a tensor *name*"),
    ({"confidence": "confidence", "predicted": "classes"},
     "fixed_tensors['confidence'] = 'confidence' names no tensor in the model_fn's graph"),
    ({"confidence": "monitor/confidence", "predicted": "softmax_tensor"},
     "fixed_tensors['predicted'] finds the tensor softmax_tensor:0, which the model_fn did not name"),
])
def test_exercise_1_messages(answer, message):
    with pytest.raises(CheckFailed) as caught:
        checks.fixed_tensor_names(answer, monitored_model_fn, SMALL, EXPECTED)
    assert message in str(caught.value)


class GoodRecorder(NaiveRecorder):
    def after_run(self, run_context, run_values):
        self.steps.append(int(run_values.results) + 1)


class OwnRunsRecorder(NaiveRecorder):
    def after_run(self, run_context, run_values):
        self.steps.append(len(self.steps) + 1)


class NoStepsRecorder(tf.estimator.SessionRunHook):
    pass


class NeedsArguments(NaiveRecorder):
    def __init__(self, every):
        super().__init__()


class Failing(NaiveRecorder):
    def after_run(self, run_context, run_values):
        raise ZeroDivisionError("division by zero")


class ReReadingRecorder(NaiveRecorder):
    def after_run(self, run_context, run_values):
        self.steps.append(int(run_context.session.run(self.global_step)))


@pytest.mark.parametrize("recorder", [GoodRecorder, ReReadingRecorder])
def test_exercise_2_correct(capsys, recorder):
    checks.fixed_step_recorder(recorder)
    assert capsys.readouterr().out.startswith("Correct: `steps` ends at the real global step: 1 … 5")


@pytest.mark.parametrize("answer, message", [
    (None, "`FixedStepRecorder` is still None"),
    (GoodRecorder(), "the class itself, not an instance"),
    (42, "should be a class that subclasses tf.estimator.SessionRunHook"),
    (dict, "should subclass tf.estimator.SessionRunHook"),
    (NeedsArguments, "it should need no arguments"),
    (NoStepsRecorder, "keep the global steps in a list `self.steps`"),
    (NaiveRecorder, "`steps` ends at 4, as StepRecorder's did"),
    (OwnRunsRecorder, "record the global step, do not count the hook's own runs"),
    (Failing, "training with your hook raised ZeroDivisionError: division by zero"),
])
def test_exercise_2_messages(answer, message):
    with pytest.raises(CheckFailed) as caught:
        checks.fixed_step_recorder(answer)
    assert message in str(caught.value)


def test_exercise_3_correct(capsys):
    checks.logged_steps([0, 40, 80, 100, 140])
    assert capsys.readouterr().out.startswith("Correct: the hook logs at steps [0, 40, 80, 100, 140]")


@pytest.mark.parametrize("answer, message", [
    (None, "`logged_steps` is still None"),
    ("0, 40", "should be a list of whole numbers"),
    ([0, 40, True], "should be a list of whole numbers"),
    ([0, 40, 80, 120], "every_n_iter counts the hook's own runs"),
    ([40, 80, 140], "also logs on its first run"),
    ([1, 41, 81, 101, 141], "the global step before it"),
    ([0, 40, 80, 100], "call 2, train(..., max_steps=150), runs at global steps 100 to 149"),
])
def test_exercise_3_messages(answer, message):
    with pytest.raises(CheckFailed) as caught:
        checks.logged_steps(answer)
    assert message in str(caught.value)


def test_exercise_3_other_calls(capsys):
    checks.logged_steps([0, 3, 5], calls=[("steps", 5), ("max_steps", 5), ("steps", 1)], every_n_iter=3)
    assert "[0, 3, 5]" in capsys.readouterr().out
