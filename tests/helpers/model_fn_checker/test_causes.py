"""The model_fn checker reports the actual cause of a mistake, where it is, and only hints that
follow.

Run-time errors keep TensorFlow's cause and the learner's line; a PREDICT branch with another
network, a network built twice, a bool-casting precision and dropout left on are caught; a hint
(labels=None, the course's inputs) appears only when the error comes from what it names. Each
model_fn here has exactly one thing wrong; the helpers come from ``tests/support/model_fns.py``.
"""

import inspect
import warnings

import pytest
import tensorflow as tf

from helpers import metrics
from helpers.model_fn_checker import check_model_fn, explain_run_error

from tests.support.model_fns import (
    dense_logits,
    finding_with_branch,
    good_model_fn,
    minimize,
    only_finding,
    variant,
)

ModeKeys = tf.estimator.ModeKeys
HERE = "tests/helpers/model_fn_checker/test_causes.py"


def _line_of(function, text: str) -> int:
    """The line number, in this file, of the line of ``function`` that contains ``text``."""
    lines, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _from_logits(logits_fn, predictions=lambda logits: {"classes": tf.argmax(logits, axis=1)}):
    """A model_fn whose logits come from ``logits_fn(features)``; everything else is right."""

    def model_fn(features, labels, mode, params):
        logits = logits_fn(features)
        if mode == ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions=predictions(logits))
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        if mode == ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(mode, loss=loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=minimize(loss))

    return model_fn


# --------------------------------------------------------------------------- 6: run-time errors
# keep their cause


def test_a_run_time_error_names_its_cause_and_the_learners_line():
    def model_fn(features, labels, mode, params):
        # 4 * 784 values do not split into rows of 100
        rows = tf.reshape(features["image"], [-1, 100])
        classes = tf.argmax(tf.keras.layers.Dense(10)(rows), axis=1)
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": classes})

    sentence = check_model_fn(model_fn).findings[0].sentence
    line = _line_of(model_fn, "rows = tf.reshape")
    assert sentence.startswith(
        "running the PREDICT branch on a batch of 4 raised InvalidArgumentError: Input to reshape "
        "is a tensor with 3136 values, but the requested shape requires a multiple of 100 "
        f'(line {line} of `model_fn` in {HERE}: `rows = tf.reshape(features["image"], [-1, 100])'
    )
    assert "Graph execution error" not in sentence and "/work/" not in sentence
    assert 'it ran on features {"image": float32 [batch, 28, 28]}' in sentence
    assert "labels" not in sentence  # only the features reach the reshape


def test_an_index_out_of_range_names_the_index_and_the_labels():
    def model_fn(features, labels, mode, params):
        logits = dense_logits(features)
        if mode == ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(
                mode, predictions={"classes": tf.argmax(logits, axis=1)}
            )
        weights = tf.gather(tf.constant([1.0, 2.0, 3.0]), labels)  # the label 3 has no weight
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(
            labels=labels, logits=logits, weights=weights
        )
        if mode == ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(mode, loss=loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=minimize(loss))

    report = check_model_fn(model_fn)
    assert [f.mode for f in report.findings] == ["EVAL", "TRAIN"]
    sentence = report.findings[0].sentence
    assert "raised InvalidArgumentError: indices[3] = 3 is not in [0, 3)" in sentence
    assert f"(line {_line_of(model_fn, 'weights = tf.gather')} of `model_fn`" in sentence
    assert "it ran on labels int32 [batch] (class ids, not one-hot)" in sentence


def test_the_eval_side_of_argmax_without_axis_is_explained():
    model_fn = variant(classes=lambda logits: tf.argmax(logits))  # over the batch
    report = check_model_fn(model_fn)
    assert [f.mode for f in report.findings] == ["PREDICT", "EVAL"]
    sentence = report.findings[1].sentence
    assert "raised InvalidArgumentError: Incompatible shapes: [10] vs. [4]" in sentence
    line = _line_of(model_fn, '"accuracy": tf.compat')  # in tests/support/model_fns.py
    assert f"(line {line} of `model_fn`" in sentence
    assert sentence.endswith("write `tf.argmax(logits, axis=1)`")


# --------------------------------------------------------------------------- 7: the same network in
# every mode


def test_a_predict_branch_with_another_network_is_a_problem():
    def predict_branch(features, labels, mode, params):
        logits = tf.keras.layers.Dense(32)(tf.reshape(features["image"], [-1, 28 * 28]))
        return tf.estimator.EstimatorSpec(
            mode, predictions={"probabilities": tf.nn.softmax(logits)}
        )

    sentence = finding_with_branch("PREDICT", predict_branch)
    assert sentence.startswith(
        "the PREDICT branch builds other trainable variables than TRAIN (other shapes: "
        "dense/kernel (784, 32) in PREDICT, (784, 10) in TRAIN"
    )
    assert "restores the weights trained in TRAIN into it by name" in sentence


def test_variables_only_in_one_mode_are_named():
    def predict_branch(features, labels, mode, params):
        hidden = tf.keras.layers.Dense(16)(tf.reshape(features["image"], [-1, 28 * 28]))
        logits = tf.keras.layers.Dense(10)(hidden)
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, axis=1)})

    sentence = finding_with_branch("PREDICT", predict_branch)
    assert "only in PREDICT: dense_1/kernel (16, 10) and dense_1/bias (10,)" in sentence
    assert "other shapes: dense/kernel (784, 16) in PREDICT, (784, 10) in TRAIN" in sentence


def test_a_network_built_twice_in_predict_only():
    def predict_branch(features, labels, mode, params):
        dense_logits(features)  # a first copy, left over
        return tf.estimator.EstimatorSpec(
            mode, predictions={"classes": tf.argmax(dense_logits(features), axis=1)}
        )

    sentence = finding_with_branch("PREDICT", predict_branch)
    assert "only in PREDICT: dense_1/kernel (784, 10) and dense_1/bias (10,)" in sentence
    assert (
        "because it builds the network twice (its 4 variables are the same 2 shapes two times)"
        in sentence
    )


def test_predictions_from_a_second_untrained_copy_of_the_network():
    def model_fn(features, labels, mode, params):
        classes = tf.argmax(dense_logits(features), axis=1)  # the first network: predictions only
        logits = dense_logits(features)  # the second network: the loss only
        if mode == ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"classes": classes})
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        if mode == ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(mode, loss=loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=minimize(loss))

    report = check_model_fn(model_fn)
    sentence = only_finding(report, "PREDICT")
    assert sentence.startswith(
        "the predictions use dense/kernel (784, 10) and dense/bias (10,), which training "
        "never changes because the TRAIN loss does not depend on them"
    )
    assert "builds the network twice" in sentence
    assert report.branches["TRAIN"].untrained == ("dense/kernel", "dense/bias")
    assert report.warnings == []  # said once, where it matters


def test_an_unused_second_network_is_a_warning():
    def model_fn(features, labels, mode, params):
        dense_logits(features)  # built, never used
        return good_model_fn(features, labels, mode, params)

    report = check_model_fn(model_fn)
    assert report.ok
    assert len(report.warnings) == 1 and report.warnings[0].mode == "TRAIN"
    assert report.warnings[0].sentence.startswith(
        "the TRAIN loss does not depend on 2 of the 4 trainable variables (dense/kernel (784, 10) "
        "and dense/bias (10,)), so training never changes them: the TRAIN branch builds the "
        "network twice"
    )


def test_the_course_cnn_trains_every_variable():
    from helpers import models

    report = check_model_fn(models.cnn_model_fn, params={"filters": (4, 8), "dense_units": 16})
    assert report.ok and report.warnings == []
    assert report.branches["TRAIN"].untrained == ()
    assert report.branches["PREDICT"].used_variables == set(report.variables)


# --------------------------------------------------------------------------- 8: the course's traps


@pytest.mark.parametrize("function", ["precision", "recall"])
def test_bool_casting_precision_on_ten_classes_is_a_warning(function):
    def metric_ops(labels, classes):
        return {
            function: getattr(tf.compat.v1.metrics, function)(labels=labels, predictions=classes)
        }

    report = check_model_fn(variant(metrics=metric_ops))
    assert report.ok and len(report.warnings) == 1 and report.warnings[0].mode == "EVAL"
    sentence = report.warnings[0].sentence
    assert sentence.startswith(
        f"eval_metric_ops['{function}'] casts class ids to bool (values 0 to "
    )
    assert f"as `tf.compat.v1.metrics.{function}` does" in sentence
    assert "helpers.metrics.precision_recall_f1" in sentence


def test_per_class_precision_is_not_warned_about():
    def metric_ops(labels, classes):
        return metrics.precision_recall_f1(labels, classes, num_classes=10)

    report = check_model_fn(variant(metrics=metric_ops))
    assert report.ok and report.warnings == []


def test_dropout_left_on_outside_train_is_a_warning():
    def logits_fn(features):
        hidden = tf.keras.layers.Dense(64)(tf.reshape(features["image"], [-1, 28 * 28]))
        return tf.keras.layers.Dense(10)(tf.keras.layers.Dropout(0.5)(hidden, training=True))

    report = check_model_fn(
        _from_logits(logits_fn, lambda logits: {"probabilities": tf.nn.softmax(logits)})
    )
    assert report.ok
    assert [w.mode for w in report.warnings] == ["PREDICT", "EVAL"]
    predict, evaluate = (w.sentence for w in report.warnings)
    assert predict.startswith(
        "predictions['probabilities'] differs between two runs of PREDICT on the same batch"
    )
    assert evaluate.startswith("the loss differs between two runs of EVAL on the same batch")
    assert "dropout" in predict and "`training=(mode == tf.estimator.ModeKeys.TRAIN)`" in predict


def test_batch_normalization_in_training_mode_at_prediction_is_a_warning():
    def logits_fn(features):
        hidden = tf.keras.layers.Dense(64)(tf.reshape(features["image"], [-1, 28 * 28]))
        return tf.keras.layers.Dense(10)(
            tf.keras.layers.BatchNormalization()(hidden, training=True)
        )

    report = check_model_fn(
        _from_logits(logits_fn, lambda logits: {"probabilities": tf.nn.softmax(logits)})
    )
    # TRAIN: its train_op does not run the layer's update ops either
    # (tests/helpers/model_fn_checker/test_structure.py)
    assert report.ok and [w.mode for w in report.warnings] == ["PREDICT", "TRAIN"]
    assert "moving averages stay at their initial values" in report.warnings[1].sentence
    assert "changes by up to" in report.warnings[0].sentence
    assert "when the other examples of the batch are left out" in report.warnings[0].sentence


def test_a_fixed_batch_size_is_a_warning():
    def model_fn(features, labels, mode, params):
        # 4: the batch size
        logits = tf.keras.layers.Dense(10)(tf.reshape(features["image"], [4, 28 * 28]))
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, axis=1)})

    report = check_model_fn(model_fn)
    assert [w.mode for w in report.warnings] == ["PREDICT"]
    sentence = report.warnings[0].sentence
    assert sentence.startswith(
        "PREDICT works on a batch of 4 but not on 2 examples, where it raised "
        "InvalidArgumentError: Input to reshape is a tensor with 1568 values"
    )
    assert f"(line {_line_of(model_fn, '[4, 28 * 28]')} of `model_fn`" in sentence
    assert sentence.endswith("write -1 (or `tf.shape(...)[0]`) for the batch dimension")


def test_dropout_switched_by_mode_is_fine():
    def model_fn(features, labels, mode, params):
        hidden = tf.keras.layers.Dense(64)(tf.reshape(features["image"], [-1, 28 * 28]))
        hidden = tf.keras.layers.Dropout(0.5)(hidden, training=(mode == ModeKeys.TRAIN))
        return _from_logits(lambda _: tf.keras.layers.Dense(10)(hidden))(
            features, labels, mode, params
        )

    report = check_model_fn(model_fn)
    assert report.ok and report.warnings == [], report


# --------------------------------------------------------------------------- 9: hints that follow
# from the error


def test_a_predict_error_without_labels_does_not_blame_labels():
    def model_fn(features, labels, mode, params):
        hidden = tf.keras.layers.Conv2D(8, 3)(features["image"])  # needs [batch, 28, 28, 1]
        logits = tf.keras.layers.Dense(10)(tf.keras.layers.Flatten()(hidden))
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, axis=1)})

    sentence = check_model_fn(model_fn).findings[0].sentence
    assert sentence.startswith(
        'building the PREDICT branch raised ValueError: Input 0 of layer "conv2d" is '
        "incompatible with the layer: expected min_ndim=4, found ndim=3"
    )
    assert f"(line {_line_of(model_fn, 'Conv2D(8, 3)')} of `model_fn`" in sentence
    assert "labels" not in sentence
    assert (
        'the course\'s input functions deliver features {"image": float32 [batch, 28, 28]}'
        in sentence
    )


def test_a_missing_params_key_is_not_blamed_on_the_inputs():
    def model_fn(features, labels, mode, params):
        if mode != ModeKeys.TRAIN:
            return good_model_fn(features, labels, mode, params)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(
            labels=labels, logits=dense_logits(features)
        )
        optimizer = tf.compat.v1.train.AdamOptimizer(params["learning_rate"])
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    sentence = only_finding(check_model_fn(model_fn, params={"dense_units": 8}), "TRAIN")
    assert sentence.startswith(
        f"the model_fn reads params['learning_rate'] (line "
        f"{_line_of(model_fn, 'AdamOptimizer')} of `model_fn`"
    )
    assert "the params given have no such key (keys: 'dense_units')" in sentence
    assert "input functions" not in sentence and "labels" not in sentence


def test_a_wrong_features_key_names_the_right_one():
    def model_fn(features, labels, mode, params):
        return good_model_fn({"image": features["images"]}, labels, mode, params)

    sentence = check_model_fn(model_fn).findings[0].sentence
    assert sentence.startswith("the model_fn reads features['images']")
    assert sentence.endswith("use the key 'image'")


@pytest.mark.parametrize(
    "written, mode_name, key", [("TRAIN", "TRAIN", "train"), ("predict", "PREDICT", "infer")]
)
def test_mode_compared_with_a_wrong_string(written, mode_name, key):
    def model_fn(features, labels, mode, params):
        logits = dense_logits(features)
        classes = tf.argmax(logits, axis=1, output_type=tf.int32)
        if mode == "predict":
            return tf.estimator.EstimatorSpec(mode, predictions={"classes": classes})
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        if mode == "TRAIN":
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=minimize(loss))
        return tf.estimator.EstimatorSpec(mode, loss=loss)

    report = check_model_fn(model_fn)
    assert [f.mode for f in report.findings] == ["PREDICT", "TRAIN"]
    sentence = next(f.sentence for f in report.findings if f.mode == mode_name)
    assert sentence == (
        f"the model_fn compares `mode` with {written!r}, but in {mode_name} Estimator passes "
        f"tf.estimator.ModeKeys.{mode_name} == {key!r}, so that branch never runs: compare "
        f"with `tf.estimator.ModeKeys.{mode_name}`"
    )
    assert "train_op" not in sentence and "labels" not in sentence


@pytest.mark.parametrize(
    "module, name, v1_name",
    [
        ("tensorflow", "layers", "tf.compat.v1.layers"),
        ("tensorflow._api.v2.nn", "xw_plus_b", "tf.compat.v1.nn.xw_plus_b"),
    ],
)
def test_a_tensorflow_1_name_points_to_compat_v1(module, name, v1_name):
    def model_fn(features, labels, mode, params):
        namespace = tf.nn if module.endswith(".nn") else tf
        # as `tf.layers.dense(...)` in a TF 1 tutorial
        logits = getattr(namespace, name)(features["image"])
        return logits

    sentence = check_model_fn(model_fn).findings[0].sentence
    assert sentence.startswith(
        f"building the PREDICT branch raised AttributeError: module '{module}' has no "
        f"attribute '{name}'"
    )
    assert sentence.endswith(f"TensorFlow 2 keeps as `{v1_name}`: write that")
    # the line names the features, but they are not the cause
    assert "input functions" not in sentence


def test_an_unknown_attribute_is_not_blamed_on_the_inputs():
    def model_fn(features, labels, mode, params):
        return tf.keras.layers.Dense(10)(features["image"]).no_such_attribute

    sentence = check_model_fn(model_fn).findings[0].sentence
    assert "raised AttributeError" in sentence and sentence.endswith(": fix that line")
    assert "input functions" not in sentence


def test_a_typo_is_reported_as_a_typo_at_its_line():
    def model_fn(features, labels, mode, params):
        logits = dense_logits(features)
        if mode == ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(
                mode, predictions={"classes": tf.argmax(logits, axis=1)}
            )
        cross_entropy = tf.compat.v1.losses.sparse_softmax_cross_entropy
        loss = cross_entropy(labels=lables, logits=logits)  # noqa: F821
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=minimize(loss))

    report = check_model_fn(model_fn)
    assert [f.mode for f in report.findings] == ["EVAL", "TRAIN"]
    sentence = report.findings[0].sentence
    assert sentence.startswith(
        f"the name `lables` (line {_line_of(model_fn, 'labels=lables')} of `model_fn`"
    )
    assert sentence.endswith(
        "is not defined, a typo for `labels`?: correct the spelling at that line"
    )
    assert "input functions" not in sentence


# --------------------------------------------------------------------------- Keras seeds


@pytest.mark.slow(
    reason="checks the course CNN twice and restores Keras's seed generator (about 8 s)"
)
def test_keras_seeding_is_isolated_and_does_not_warn():
    from keras.src import backend as keras_backend

    tf.keras.utils.set_random_seed(7)  # as a learner's notebook may have done
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            first = check_model_fn(good_model_fn)
        second = check_model_fn(good_model_fn)
        learner_draw = keras_backend._SEED_GENERATOR.generator.random()
    finally:
        keras_backend._SEED_GENERATOR.generator = None
    assert not [w for w in caught if "randrange" in str(w.message)]
    assert (
        first.branches["PREDICT"].prediction_values["classes"]
        == second.branches["PREDICT"].prediction_values["classes"]
    ).all()
    import random
    # the checker did not draw from the learner's generator

    assert learner_draw == random.Random(7).random()


# --------------------------------------------------------------------------- where: no machine
# paths


def _model_fn_from_a_cell(source: str, filename: str = "/tmp/ipykernel_4242/1234567.py"):
    """Define ``model_fn`` as a Jupyter cell does: compiled from a file name outside the project."""
    import linecache

    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"tf": tf, "ModeKeys": ModeKeys}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["model_fn"]


def test_a_line_in_a_notebook_cell_is_named_without_its_path():
    model_fn = _model_fn_from_a_cell(
        "def model_fn(features, labels, mode, params):\n"
        "    rows = tf.reshape(features['image'], [-1, 100])\n"
        "    classes = tf.argmax(tf.keras.layers.Dense(10)(rows), axis=1)\n"
        "    return tf.estimator.EstimatorSpec(mode, predictions={'classes': classes})\n"
    )
    sentence = check_model_fn(model_fn).findings[0].sentence
    assert "(line 2 of `model_fn`: `rows = tf.reshape(features['image'], [-1, 100])`)" in sentence
    assert "/tmp" not in sentence and "ipykernel" not in sentence


def test_the_line_is_read_from_the_error_message_when_the_op_has_no_traceback():

    message = (
        "Graph execution error:\n\nDetected at node 'Reshape' defined at (most recent call last):\n"
        f'    File "{__file__}", line 3, in model_fn\n'
        "Node: 'Reshape'\nInput to reshape is a tensor with 3136 values\n\t [[{{node Reshape}}]]"
    )
    error = tf.errors.InvalidArgumentError(None, None, message)  # no op, so no op traceback
    assert explain_run_error("EVAL", error, 4).startswith(
        "running the EVAL branch on a batch of 4 raised InvalidArgumentError: Input to reshape is "
        f"a tensor with 3136 values (line 3 of `model_fn` in {HERE}"
    )


# --------------------------------------------------------------------------- one-hot labels into
# the course's sparse loss (issue 32)

ONE_HOT_WAYS_OUT = (
    "are one-hot, shape [batch, 10], as the article's `tf.argmax(labels)` implies, but that loss "
    "takes class ids, shape [batch] (TensorFlow raised ValueError: "
)
ONE_HOT_FIX = (
    ": turn them into class ids with `tf.argmax(labels, axis=1)`, or keep them one-hot and use "
    "`tf.compat.v1.losses.softmax_cross_entropy(onehot_labels=labels, logits=logits)`"
)


def _one_hot_model_fn(features, labels, mode, params):
    """The article's labels (one-hot, which its `tf.argmax(labels)` implies) into the course's
    sparse loss."""
    logits = dense_logits(features)
    classes = tf.argmax(logits, axis=1, output_type=tf.int32)
    if mode == ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": classes})
    labels = tf.one_hot(labels, 10)  # as the article's input delivers them
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == ModeKeys.EVAL:
        accuracy = tf.compat.v1.metrics.accuracy(tf.argmax(labels, axis=1), classes)
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"acc": accuracy})
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=minimize(loss))


def test_one_hot_labels_into_the_sparse_loss_are_named_with_the_two_ways_out():
    report = check_model_fn(_one_hot_model_fn)
    assert [finding.mode for finding in report.findings] == ["EVAL", "TRAIN"]
    line = _line_of(_one_hot_model_fn, "loss = tf.compat.v1.losses.sparse_softmax")
    for finding in report.findings:
        assert finding.sentence.startswith(
            "the labels that reach the sparse softmax cross-entropy "
            f"(line {line} of `_one_hot_model_fn` in {HERE}: "
            "`loss = tf.compat.v1.losses.sparse_softmax_cross_entropy("
        )
        assert ONE_HOT_WAYS_OUT + "`labels.shape.rank` must equal" in finding.sentence
        assert finding.sentence.endswith(ONE_HOT_FIX)


def test_one_hot_labels_into_keras_sparse_loss_are_named_when_the_branch_runs():
    """Keras's sparse loss builds on one-hot labels (it flattens them to batch × 10 ids) and fails
    only when it runs."""

    def model_fn(features, labels, mode, params):
        logits = dense_logits(features)
        if mode == ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, 1)})
        one_hot = tf.one_hot(labels, 10)
        loss = tf.reduce_mean(
            tf.keras.losses.sparse_categorical_crossentropy(one_hot, logits, from_logits=True)
        )
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=minimize(loss))

    report = check_model_fn(model_fn)
    assert [finding.mode for finding in report.findings] == ["EVAL", "TRAIN"]
    for finding in report.findings:
        assert ONE_HOT_WAYS_OUT.replace("ValueError: ", "InvalidArgumentError: ") in (
            finding.sentence
        )
        assert "got logits shape [4,10] and labels shape [40])" in finding.sentence
        assert finding.sentence.endswith(ONE_HOT_FIX)


def test_labels_of_another_rank_into_the_sparse_loss_are_not_called_one_hot():
    def model_fn(features, labels, mode, params):
        logits = dense_logits(features)
        if mode == ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, 1)})
        pairs = tf.stack([labels, labels], axis=1)  # [batch, 2]: not one-hot
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=pairs, logits=logits)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=minimize(loss))

    report = check_model_fn(model_fn)
    assert report.findings and not any("are one-hot" in f.sentence for f in report.findings)
    assert report.findings[0].sentence.startswith(
        "building the EVAL branch raised ValueError: `labels.shape.rank` must equal"
    )
