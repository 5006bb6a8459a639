"""The exercise checks of notebook 03 accept the right answer and explain each wrong one."""

import pytest
import tensorflow as tf

from helpers import checks
from helpers.problems import CheckFailed

ModeKeys = tf.estimator.ModeKeys


def _model_fn(classes_of=lambda logits: tf.argmax(logits, axis=1, output_type=tf.int32), global_step=True,
              probabilities=True):
    """A linear model_fn like the notebook's, with the two exercise bugs switchable."""

    def model_fn(features, labels, mode, params):
        logits = tf.keras.layers.Dense(10)(tf.reshape(features["image"], [-1, 28 * 28]))
        predictions = {"classes": classes_of(logits)}
        if probabilities:
            predictions["probabilities"] = tf.nn.softmax(logits)
        if mode == ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions=predictions)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        if mode == ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(mode, loss=loss)
        step = tf.compat.v1.train.get_global_step() if global_step else None
        train_op = tf.compat.v1.train.AdamOptimizer(1e-3).minimize(loss, global_step=step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


# --------------------------------------------------------------------------- exercise 1


def test_train_op_increments_correct(capsys):
    checks.train_op_increments(_model_fn())
    assert capsys.readouterr().out.startswith("Correct: one run of your train_op moves the global step from 0 to 1")


@pytest.mark.parametrize("answer, words", [
    (None, "`fixed_model_fn` is still None"),
    ("model_fn", "should be a function"),
])
def test_train_op_increments_explains_blank_answers(answer, words):
    with pytest.raises(CheckFailed, match=words):
        checks.train_op_increments(answer)


def test_train_op_increments_names_the_global_step():
    with pytest.raises(CheckFailed) as caught:
        checks.train_op_increments(_model_fn(global_step=False))
    message = str(caught.value)
    assert message.startswith("one run of your train_op leaves the global step at 0, so Estimator never counts a step")
    assert "section 'One forward pass, then three branches by `mode`'" in message
    assert "global_step=" not in message and "minimize" not in message  # the cause and the section, not the code


def test_train_op_increments_reports_other_problems():
    with pytest.raises(CheckFailed, match=r"for PREDICT: predictions\['classes'\] has shape \(10,\)"):
        checks.train_op_increments(_model_fn(classes_of=tf.argmax))


# --------------------------------------------------------------------------- exercise 2


def test_predictions_per_example_correct(capsys):
    checks.predictions_per_example(_model_fn())
    assert capsys.readouterr().out.startswith("Correct: 'classes' has shape (4,) for a batch of 4")


def test_predictions_per_example_blank():
    with pytest.raises(CheckFailed, match="`fixed_predict_model_fn` is still None"):
        checks.predictions_per_example(None)


def test_predictions_per_example_argmax_without_axis():
    with pytest.raises(CheckFailed) as caught:
        checks.predictions_per_example(_model_fn(classes_of=tf.argmax))
    message = str(caught.value)
    assert message.startswith("'classes' has shape (10,) for a batch of 4, not one class per example")
    assert "the argmax reduces over the wrong axis, the batch (section" in message
    assert "axis=1" not in message  # the cause and the section, not the code


def test_predictions_per_example_wrong_axis_values():
    # one value per example, but not the most probable class: the lowest logit
    with pytest.raises(CheckFailed, match="not the most probable class"):
        checks.predictions_per_example(_model_fn(classes_of=lambda logits: tf.argmin(logits, axis=1)))


def test_predictions_per_example_renamed_key():
    def model_fn(features, labels, mode, params):
        spec = _model_fn(probabilities=False)(features, labels, mode, params)
        if mode == ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"class_ids": spec.predictions["classes"]})
        return spec

    with pytest.raises(CheckFailed, match="no 'classes' key"):
        checks.predictions_per_example(model_fn)


def test_predictions_per_example_reports_train_problems():
    with pytest.raises(CheckFailed, match="for TRAIN: the train_op does not increment"):
        checks.predictions_per_example(_model_fn(global_step=False))


def test_accuracy_metric_ops_hints_name_the_section_not_the_code():
    with pytest.raises(CheckFailed) as caught:
        checks.accuracy_metric_ops(_keras)
    message = str(caught.value)
    assert "section 'What a `(value, update_op)` pair does'" in message
    assert "metrics.accuracy" not in message


# --------------------------------------------------------------------------- exercise 3


def test_accuracy_metric_ops_correct(capsys):
    checks.accuracy_metric_ops(
        lambda labels, classes: {"accuracy": tf.compat.v1.metrics.accuracy(labels=labels, predictions=classes)})
    assert capsys.readouterr().out.startswith("Correct: after two batches")


def _keras(labels, classes):
    metric = tf.keras.metrics.Accuracy()
    metric.update_state(labels, classes)
    return {"accuracy": metric}


def _batch_mean(labels, classes):
    return tf.reduce_mean(tf.cast(tf.equal(labels, classes), tf.float32))


def _last_batch(labels, classes):
    """Variables that keep only the last batch: the update assigns instead of adding."""
    value = tf.Variable(0.0, trainable=False, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES])
    return {"accuracy": (tf.identity(value), tf.compat.v1.assign(value, _batch_mean(labels, classes)))}


def _error_rate(labels, classes):
    value, update = tf.compat.v1.metrics.accuracy(labels=labels, predictions=classes)
    return {"accuracy": (1.0 - value, update)}


@pytest.mark.parametrize("answer, words", [
    (None, "`accuracy_ops` is still None"),
    (42, "should be a function"),
    (lambda labels, classes: tf.compat.v1.metrics.accuracy(labels, classes), "returned a tuple: return a dict"),
    (lambda labels, classes: {"acc": tf.compat.v1.metrics.accuracy(labels, classes)}, "name the metric 'accuracy'"),
    (_keras, "Keras Metric object"),
    (lambda labels, classes: {"accuracy": _batch_mean(labels, classes)}, "not a \\(value, update_op\\) pair"),
    (lambda labels, classes: {"accuracy": (_batch_mean(labels, classes), tf.no_op())}, "needs the current batch"),
    (_last_batch, "the second batch alone"),
    (_error_rate, "is 0.3333, not 0.6667"),
], ids=["blank", "not callable", "bare pair", "wrong key", "keras", "bare tensor", "batch value", "last batch",
        "error rate"])
def test_accuracy_metric_ops_explains_mistakes(answer, words):
    with pytest.raises(CheckFailed, match=words):
        checks.accuracy_metric_ops(answer)
