"""The model_fn checker's graph checks on small graphs: a prediction without the batch, an argmax
over the batch behind a cast, a softmax reaching the loss through reshapes and casts, the update
ops a train_op skips, a binary precision, and when two runs' values differ.

Two checks run a PREDICT-only model_fn (no ``labels`` parameter: one graph, no Keras layer); the
rest call the checker's parts on a graph of a few ops, or on plain values.
"""

from types import SimpleNamespace

import numpy as np
import pytest
import tensorflow as tf

from helpers.model_fn_checker import (
    Branch,
    ModelFnReport,
    _is_argmax_over_batch,
    _largest_change,
    _not_a_spec_for,
    check_bool_casts,
    check_model_fn,
    check_moving_averages,
    check_softmax_logits,
    skipped_updates,
)
from tests.support.model_fns import minimize

ModeKeys = tf.estimator.ModeKeys
NO_LABELS = "the model_fn has no `labels` parameter"


# --------------------------------------------------------------------------- PREDICT, end to end


def brightness_baseline(features, mode):
    """No network (no trainable variable): class 0, and a confidence reduced over the batch."""
    images = features["image"]
    classes = tf.zeros_like(images[:, 0, 0], dtype=tf.int32)
    confidence = tf.reduce_mean(images)  # axis=[1, 2] forgotten: one number for the batch
    return tf.estimator.EstimatorSpec(
        mode, predictions={"classes": classes, "confidence": confidence}
    )


def fixed_batch_of_three(features, mode):
    weights = tf.compat.v1.get_variable("weights", [28 * 28, 10])
    logits = tf.matmul(tf.reshape(features["image"], [3, 28 * 28]), weights)
    return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, axis=1)})


def test_a_prediction_reduced_over_the_batch_is_a_problem_even_without_variables():
    report = check_model_fn(brightness_baseline)
    assert [f.mode for f in report.findings] == ["signature", "PREDICT"]
    assert report.findings[1].sentence == (
        "predictions['confidence'] has shape () for a batch of 4: every prediction needs the "
        "batch as its first dimension"
    )
    assert report.branches["PREDICT"].predictions == {"classes": (4,), "confidence": ()}
    assert report.trainable_parameters == 0


def test_a_fixed_batch_size_is_found_on_a_batch_of_three():
    report = check_model_fn(fixed_batch_of_three, batch_size=3)
    assert [f.sentence[: len(NO_LABELS)] for f in report.findings] == [NO_LABELS]
    assert [w.mode for w in report.warnings] == ["PREDICT"]
    assert report.warnings[0].sentence.startswith(
        "PREDICT works on a batch of 3 but not on 2 examples, where it raised "
        "InvalidArgumentError: Input to reshape is a tensor with 1568 values"
    )
    table = report.table()
    assert table.loc["PREDICT", "returned"] == "EstimatorSpec"
    assert table.loc["PREDICT", "predictions"] == "classes (3,)"
    assert (
        table.loc["EVAL", "returned"]
        == table.loc["TRAIN", "returned"]
        == ("not built (no labels parameter)")
    )


def test_an_estimator_spec_for_another_mode_is_named():
    """The EVAL branch's return copied into TRAIN, mode and all."""
    with tf.Graph().as_default():
        spec = tf.estimator.EstimatorSpec(ModeKeys.EVAL, loss=tf.constant(1.0))
    branch = Branch("TRAIN")
    assert _not_a_spec_for(ModeKeys.TRAIN, spec, branch) == (
        "in TRAIN the model_fn returned an EstimatorSpec for mode 'eval': give EstimatorSpec the "
        "`mode` the model_fn received"
    )
    assert branch.returned == "EstimatorSpec for 'eval'"
    assert _not_a_spec_for(ModeKeys.EVAL, spec, Branch("EVAL")) is None


# --------------------------------------------------------------------------- argmax and softmax


def test_an_argmax_over_the_batch_is_recognised_behind_a_cast_and_a_name():
    with tf.Graph().as_default():
        logits = tf.zeros([4, 10])
        over_batch = tf.identity(tf.cast(tf.argmax(logits), tf.int32), name="classes")
        per_example = tf.identity(tf.cast(tf.argmax(logits, axis=1), tf.int32))
        assert _is_argmax_over_batch(over_batch)
        assert not _is_argmax_over_batch(per_example)
        assert not _is_argmax_over_batch(tf.identity(logits))


def softmax_logits_eval_unfinished(features, labels, mode, params):
    weights = tf.compat.v1.get_variable("weights", [28 * 28, 10])
    pixels = tf.reshape(features["image"], [-1, 28 * 28])
    probabilities = tf.nn.softmax(tf.matmul(pixels, weights))
    if mode == ModeKeys.PREDICT:
        classes = tf.argmax(probabilities, axis=1)
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": classes})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, probabilities)
    if mode == ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode)  # the loss not passed yet
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=minimize(loss))


def test_a_softmax_given_as_logits_is_warned_about_while_eval_is_unfinished():
    report = check_model_fn(softmax_logits_eval_unfinished)
    assert [f.mode for f in report.findings] == ["EVAL"]
    assert report.findings[0].sentence.startswith("the EstimatorSpec has no `loss` in EVAL")
    assert [w.mode for w in report.warnings] == ["TRAIN"]
    assert report.warnings[0].sentence.startswith("the loss's logits are the output of a softmax")


def test_a_softmax_reshaped_squeezed_and_cast_on_its_way_to_the_loss_is_still_found():
    with tf.Graph().as_default():
        probabilities = tf.nn.softmax(tf.zeros([4, 10]))
        reshaped = tf.reshape(tf.identity(probabilities), [4, 1, 10])
        squeezed = tf.expand_dims(tf.squeeze(reshaped, axis=1), 0)  # [1, 4, 10]
        logits = tf.cast(tf.reshape(squeezed, [4, 10]), tf.float64)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(tf.constant([1, 2, 3, 4]), logits)
        found = ModelFnReport("model_fn", 4)
        check_softmax_logits(loss, found)
    assert [w.mode for w in found.warnings] == ["TRAIN"]
    assert found.warnings[0].sentence.startswith("the loss's logits are the output of a softmax")
    assert "(with 10 classes, above 1.46)" in found.warnings[0].sentence


# --------------------------------------------------------------------------- update ops


def test_only_the_moving_averages_update_ops_the_train_op_skips_are_listed():
    with tf.Graph().as_default() as graph:
        step = tf.compat.v1.train.get_or_create_global_step()
        mean = tf.compat.v1.get_variable(
            "bn/moving_mean", initializer=tf.zeros([3]), trainable=False
        )
        total = tf.compat.v1.get_variable("accuracy/total", initializer=0.0, trainable=False)
        kernel = tf.compat.v1.get_variable("dense/kernel", initializer=tf.ones([3]))
        variance = tf.compat.v1.get_variable(
            "bn/moving_variance", initializer=tf.ones([3]), trainable=False
        )
        mean.assign_sub(tf.ones([3]))  # the moving averages' updates: never run
        variance.assign(tf.zeros([3]))  # a new value, as Keras's fused batch norm can assign
        total.assign_add(1.0)  # a running total: not a moving average
        tf.identity(mean)  # a read, not an update
        loss = tf.reduce_sum(kernel * mean)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        skipped = skipped_updates(train_op)
    assert {v.op.name: [op.type for op in ops] for v, ops in skipped.items()} == {
        "bn/moving_mean": ["AssignSubVariableOp"],
        "bn/moving_variance": ["AssignVariableOp"],
    }
    assert all(op.graph is graph for ops in skipped.values() for op in ops)


class _Variable:  # a variable as check_moving_averages sees it: a name and a value
    def __init__(self, name: str):
        self.op = SimpleNamespace(name=name)


class _Session:
    def run(self, variable):
        return np.zeros(3)  # unchanged after the training step


@pytest.mark.parametrize("layers", [2, 3])
def test_many_unchanged_moving_averages_are_named_four_at_most(layers):
    names = [f"bn{i}/moving_{kind}" for i in range(layers) for kind in ("mean", "variance")][:5]
    skipped = {_Variable(name): [object()] for name in names}
    found = ModelFnReport("model_fn", 4)
    with tf.Graph().as_default():
        check_moving_averages(_Session(), skipped, [np.zeros(3)] * len(skipped), found)
    listed = {
        4: "`bn0/moving_mean`, `bn0/moving_variance`, `bn1/moving_mean` and `bn1/moving_variance`",
        5: "`bn0/moving_mean`, `bn0/moving_variance`, `bn1/moving_mean`, `bn1/moving_variance` "
        "and 1 more",
    }[len(names)]
    assert found.warnings[0].sentence.startswith(
        f"the train_op does not run the update ops of {listed}, so these moving averages"
    )


def test_the_fix_for_update_ops_in_the_collection_is_code_to_copy():
    skipped = {_Variable("batch_normalization/moving_mean"): ["update"]}
    found = ModelFnReport("model_fn", 4)
    with tf.Graph().as_default():
        tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, "update")
        check_moving_averages(_Session(), skipped, [np.zeros(3)], found)
    assert found.warnings[0].sentence.endswith(
        ": `with tf.control_dependencies(tf.compat.v1.get_collection("
        "tf.compat.v1.GraphKeys.UPDATE_OPS)): train_op = optimizer.minimize(...)`"
    )
    keras = ModelFnReport("model_fn", 4)
    with tf.Graph().as_default():
        check_moving_averages(_Session(), skipped, [np.zeros(3)], keras)
    assert keras.warnings[0].sentence.endswith(
        ": `with tf.control_dependencies(bn.updates): train_op = optimizer.minimize(...)` "
        "(a Keras model: `model.updates`)"
    )


# --------------------------------------------------------------------------- metrics


def test_a_binary_precision_on_zeros_and_ones_is_not_warned_about():
    with tf.Graph().as_default():
        labels, predicted = tf.constant([0, 1, 1, 0]), tf.constant([0, 1, 0, 0])
        spec = SimpleNamespace(
            eval_metric_ops={"precision": tf.compat.v1.metrics.precision(labels, predicted)}
        )
        found = ModelFnReport("model_fn", 4)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.local_variables_initializer())
            check_bool_casts(session, spec, found)
    assert found.warnings == []


# --------------------------------------------------------------------------- two runs compared


def test_the_largest_change_between_two_runs_is_measured():
    first = {"classes": np.array([3, 1]), "probabilities": np.array([0.1, 0.5])}
    second = {"classes": np.array([3, 1]), "probabilities": np.array([0.1, 0.7])}
    key, change = _largest_change(first, second)
    assert key == "probabilities" and change == pytest.approx(0.2)
    # two keys that change as much: the first is named
    assert _largest_change({"a": [0, 1], "b": [0, 1]}, {"a": [0, 2], "b": [0, 2]}) == ("a", 1.0)


def test_noise_far_below_a_real_change_and_nan_in_both_runs_are_no_change():
    assert _largest_change({"p": [0.5, 1000.0]}, {"p": [0.5 + 1e-9, 1000.0]}) == (None, 0.0)
    assert _largest_change({"p": [np.nan, 0.5]}, {"p": [np.nan, 0.5 + 1e-9]}) == (None, 0.0)


def test_other_values_than_numbers_or_another_shape_count_as_changed():
    words = {"name": np.array([b"seven", b"one"])}
    assert _largest_change(words, dict(words)) == (None, 0.0)
    assert _largest_change(words, {"name": np.array([b"seven", b"two"])}) == ("name", np.inf)
    assert _largest_change({"p": [1.0, 2.0]}, {"p": [1.0, 2.0, 3.0]}) == ("p", np.inf)
