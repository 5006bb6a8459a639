"""Notebook 05's exercise 1 check: names a hook can find, and messages that name the cause, not the answer.

The graph is the notebook's: the course CNN plus a `monitor` name scope with
`confidence` and `first_classes` (the check's default expected tensors).
"""

import pytest
import tensorflow as tf

from helpers import checks, models
from helpers.problems import CheckFailed

SMALL = {"filters": (8, 16), "dense_units": 32}
RIGHT = {"confidence": "monitor/confidence", "predicted": "monitor/first_classes"}


def monitored_model_fn(features, labels, mode, params):
    spec = models.cnn_model_fn(features, labels, mode, params)
    probabilities = tf.compat.v1.get_default_graph().get_tensor_by_name("softmax_tensor:0")
    with tf.name_scope("monitor"):
        tf.reduce_mean(tf.reduce_max(probabilities, axis=1), name="confidence")
        tf.identity(tf.argmax(probabilities[:10], axis=1), name="first_classes")
    return spec


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
        "hooks.tensor_table lists the names there (section 'Naming tensors so a hook can find them')")
    assert "monitor/" not in message


def test_a_name_of_another_tensor():
    with pytest.raises(CheckFailed) as caught:
        checks.fixed_tensor_names({"confidence": "monitor/confidence", "predicted": "softmax_tensor"},
                                  monitored_model_fn, SMALL)
    message = str(caught.value)
    assert message.startswith("fixed_tensors['predicted'] finds the tensor softmax_tensor:0, which the model_fn "
                              "did not name for 'predicted'")
    assert "first_classes" not in message
