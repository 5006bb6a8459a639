"""The model_fn checker finds each kind of mistake and passes the course's CNN.

Every test builds a tiny model_fn (a dense layer on the flattened image) with
exactly one thing wrong, and checks that the report names it, in the right
mode, with the words a learner needs.
"""

import pytest
import tensorflow as tf

from helpers import models
from helpers.model_fn_checker import Finding, check_model_fn
from helpers.problems import WorkbookProblem
from tests.support.model_fns import (
    dense_logits,
    finding_with_branch,
    good_model_fn,
    minimize,
    only_finding,
    variant,
)

ModeKeys = tf.estimator.ModeKeys


# --------------------------------------------------------------------------- passing


@pytest.fixture(scope="module")
def cnn_report():
    return check_model_fn(models.cnn_model_fn)


def test_the_course_cnn_passes_clean(cnn_report):
    assert cnn_report.ok and cnn_report.findings == [] and cnn_report.warnings == []
    predict, evaluate, train = (cnn_report.branches[m] for m in ("PREDICT", "EVAL", "TRAIN"))
    assert predict.predictions == {"classes": (4,), "probabilities": (4, 10)}
    assert predict.export_outputs == ("serving_default",)
    assert evaluate.loss_shape == () and evaluate.metrics == {"accuracy": ()}
    assert train.train_op and train.global_step == (0, 1)
    # conv 3x3x1x32+32, conv 3x3x32x64+64, dense 7*7*64*128+128, dense 128*10+10
    assert cnn_report.trainable_parameters == 320 + 18_496 + 401_536 + 1_290


def test_params_change_the_model(cnn_report):
    small = check_model_fn(models.cnn_model_fn, params={"filters": (8, 16), "dense_units": 32})
    assert small.ok
    assert small.trainable_parameters == (9 * 8 + 8) + (9 * 8 * 16 + 16) + (
        7 * 7 * 16 * 32 + 32
    ) + (32 * 10 + 10)
    assert small.trainable_parameters < cnn_report.trainable_parameters


def test_a_simple_model_fn_passes_and_reports_each_branch():
    report = check_model_fn(good_model_fn, batch_size=3)
    assert report.ok
    table = report.table()
    assert list(table.index) == ["PREDICT", "EVAL", "TRAIN"]
    assert table.loc["PREDICT", "predictions"] == "classes (3,)"
    assert table.loc["EVAL", "eval_metric_ops"] == "accuracy scalar"
    assert table.loc["TRAIN", "train_op"] == "yes, global step 0 → 1"
    assert "OK" in repr(report) and "<table" in report._repr_html_()
    report.raise_if_problems()  # nothing to raise


# --------------------------------------------------------------------------- signature


def test_features_renamed():
    def model_fn(inputs, labels, mode, params):
        return good_model_fn(inputs, labels, mode, params)

    report = check_model_fn(model_fn)
    sentences = [f.sentence for f in report.findings]
    assert all(f.mode == "signature" for f in report.findings)
    assert "no parameter named `features`" in sentences[0]
    assert "must include features argument." in sentences[0]  # Estimator's own message, quoted
    assert " at 0x" not in sentences[0]
    assert "Estimator does not pass `inputs`" in sentences[1]
    assert report.branches == {}  # Estimator would refuse it: nothing is built


def test_unexpected_parameter_quotes_estimator():
    def model_fn(features, labels, mode, params, hparams):
        return good_model_fn(features, labels, mode, params)

    sentence = only_finding(check_model_fn(model_fn), "signature")
    assert "Estimator does not pass `hparams`" in sentence
    assert "features, labels, mode, params, config" in sentence
    assert "has following not expected args: ['hparams']" in sentence


def test_params_given_but_not_accepted():
    def model_fn(features, labels, mode):
        return good_model_fn(features, labels, mode, {})

    sentence = only_finding(check_model_fn(model_fn, params={"learning_rate": 0.1}), "signature")
    assert "no `params` parameter" in sentence and "does not include params argument" in sentence


def test_no_labels_parameter():
    def model_fn(features, mode):
        logits = dense_logits(features)
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, axis=1)})

    report = check_model_fn(model_fn)
    assert "no `labels` parameter" in only_finding(report, "signature")
    assert report.branches["PREDICT"].built
    assert not report.branches["TRAIN"].built


def test_no_mode_parameter_is_a_warning():
    def model_fn(features, labels):
        return good_model_fn(features, labels, ModeKeys.PREDICT, {})

    report = check_model_fn(model_fn)
    assert any(
        w.mode == "signature" and "no `mode` parameter" in w.sentence for w in report.warnings
    )
    assert not report.ok  # without mode it returns PREDICT's spec in TRAIN: no train_op


# --------------------------------------------------------------------------- returned value


def test_not_an_estimator_spec():
    def train_branch(features, labels, mode, params):
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(
            labels=labels, logits=dense_logits(features)
        )
        return loss, minimize(loss)

    sentence = finding_with_branch("TRAIN", train_branch)
    assert "returned a tuple, not a tf.estimator.EstimatorSpec" in sentence
    assert "model_fn should return an EstimatorSpec." in sentence


def test_a_branch_without_return():
    def model_fn(features, labels, mode, params):
        if mode != ModeKeys.EVAL:
            return good_model_fn(features, labels, mode, params)

    assert "returned None (a branch without `return`?)" in only_finding(
        check_model_fn(model_fn), "EVAL"
    )


# --------------------------------------------------------------------------- TRAIN


def test_no_train_op():
    model_fn = variant(train=lambda mode, loss: tf.estimator.EstimatorSpec(mode, loss=loss))
    sentence = only_finding(check_model_fn(model_fn), "TRAIN")
    assert (
        "no `train_op`" in sentence
        and "global_step=tf.compat.v1.train.get_global_step()" in sentence
    )


def test_train_op_without_global_step():
    def train(mode, loss):
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    report = check_model_fn(variant(train=train))
    sentence = only_finding(report, "TRAIN")
    assert "does not increment the global step (still 0 after one run)" in sentence
    assert "minimize(loss, global_step=tf.compat.v1.train.get_global_step())" in sentence
    assert report.branches["TRAIN"].global_step == (0, 0)
    assert report.table().loc["TRAIN", "train_op"] == "yes, global step 0 → 0"


def test_train_op_that_steps_twice():
    def train(mode, loss):
        step = tf.compat.v1.train.get_global_step()
        first = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        with tf.control_dependencies([first]):
            second = tf.compat.v1.assign_add(step, 1)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=second)

    assert "from 0 to 2" in only_finding(check_model_fn(variant(train=train)), "TRAIN")


# --------------------------------------------------------------------------- PREDICT


def test_no_predictions():
    def predict_branch(features, labels, mode, params):
        return tf.estimator.EstimatorSpec(mode)

    assert "no `predictions`" in finding_with_branch("PREDICT", predict_branch)


def test_argmax_without_axis():
    model_fn = variant(
        predict=lambda logits: {
            "classes": tf.argmax(logits),
            "probabilities": tf.nn.softmax(logits),
        }
    )
    report = check_model_fn(model_fn)
    sentence = only_finding(report, "PREDICT")
    assert "predictions['classes'] has shape (10,) for a batch of 4" in sentence
    assert "write `tf.argmax(logits, axis=1)`" in sentence
    assert report.branches["PREDICT"].predictions == {"classes": (10,), "probabilities": (4, 10)}


def test_other_prediction_without_batch_dimension():
    model_fn = variant(predict=lambda logits: tf.reduce_mean(tf.nn.softmax(logits), axis=0))
    sentence = only_finding(check_model_fn(model_fn), "PREDICT")
    assert sentence.startswith("predictions has shape (10,) for a batch of 4")
    assert "argmax" not in sentence


def test_predict_branch_that_uses_labels():
    def model_fn(features, labels, mode, params):
        logits = dense_logits(features)
        # before branching
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        if mode == ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(
                mode, predictions={"classes": tf.argmax(logits, axis=1)}
            )
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=minimize(loss))

    sentence = only_finding(check_model_fn(model_fn), "PREDICT")
    assert "building the PREDICT branch raised" in sentence and "labels=None" in sentence


# --------------------------------------------------------------------------- EVAL (and loss)


def test_no_loss_in_eval():
    def eval_branch(features, labels, mode, params):
        classes = tf.argmax(dense_logits(features), axis=1, output_type=tf.int32)
        metric = tf.compat.v1.metrics.accuracy(labels=labels, predictions=classes)
        return tf.estimator.EstimatorSpec(mode, eval_metric_ops={"accuracy": metric})

    assert "no `loss` in EVAL" in finding_with_branch("EVAL", eval_branch)


@pytest.mark.parametrize("static", [False, True], ids=["unknown batch", "known size"])
def test_loss_not_a_scalar(static):
    def per_example(labels, logits):
        return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)

    def model_fn(features, labels, mode, params):
        logits = dense_logits(features)
        if mode == ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(
                mode, predictions={"classes": tf.argmax(logits, axis=1)}
            )
        # unknown batch: a [None] loss that EstimatorSpec accepts and reshapes at run time;
        # known size: a [10] loss that EstimatorSpec refuses at once
        loss = per_example(labels, logits) if not static else tf.reduce_mean(logits, axis=0)
        if mode == ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(mode, loss=loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=minimize(tf.reduce_mean(loss)))

    report = check_model_fn(model_fn)
    assert [f.mode for f in report.findings] == ["EVAL", "TRAIN"]
    sentence = report.findings[0].sentence
    if static:
        assert "the loss is not a scalar" in sentence
    else:
        assert "the loss has shape (4,)" in sentence
    assert "tf.reduce_mean" in sentence


def test_metric_that_is_not_a_pair():
    def metrics(labels, classes):
        return {"accuracy": tf.reduce_mean(tf.cast(tf.equal(labels, classes), tf.float32))}

    sentence = only_finding(check_model_fn(variant(metrics=metrics)), "EVAL")
    assert "eval_metric_ops['accuracy'] is not a `(value, update_op)` pair" in sentence


def test_keras_metric_is_a_warning():
    def metrics(labels, classes):
        metric = tf.keras.metrics.Accuracy()
        metric.update_state(labels, classes)
        return {"keras_accuracy": metric}

    report = check_model_fn(variant(metrics=metrics))
    assert report.ok
    assert len(report.warnings) == 1 and report.warnings[0].mode == "EVAL"
    assert (
        "eval_metric_ops['keras_accuracy'] is a Keras Metric object" in report.warnings[0].sentence
    )
    assert report.branches["EVAL"].metrics == {"keras_accuracy": ()}
    assert "1 warning" in repr(report)


# --------------------------------------------------------------------------- labels and run-time
# errors


def test_one_hot_labels_expected():
    def model_fn(features, labels, mode, params):
        logits = dense_logits(features)
        if mode == ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(
                mode, predictions={"classes": tf.argmax(logits, axis=1)}
            )
        loss = tf.compat.v1.losses.softmax_cross_entropy(onehot_labels=labels, logits=logits)
        if mode == ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(mode, loss=loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=minimize(loss))

    report = check_model_fn(model_fn)
    assert [f.mode for f in report.findings] == ["EVAL", "TRAIN"]
    sentence = report.findings[0].sentence
    assert sentence.startswith(
        "building the EVAL branch raised ValueError: Shapes (None, 10) and (None,)"
    )
    assert "labels int32 [batch] (class ids, not one-hot)" in sentence
    assert report.table().loc["TRAIN", "returned"] == "raised ValueError"


def test_error_when_the_graph_runs():
    def model_fn(features, labels, mode, params):
        # 4 * 784 values do not split into rows of 100
        rows = tf.reshape(features["image"], [-1, 100])
        classes = tf.argmax(tf.keras.layers.Dense(10)(rows), axis=1)
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": classes})

    report = check_model_fn(model_fn)
    assert report.findings[0].mode == "PREDICT"
    sentence = report.findings[0].sentence
    assert (
        "running the PREDICT branch on a batch of 4 raised InvalidArgumentError: Input to reshape"
        in sentence
    )
    assert "Graph execution error" not in sentence  # the cause, not TensorFlow's header


# --------------------------------------------------------------------------- the report


def test_raise_if_problems_names_the_first_finding():
    report = check_model_fn(
        variant(train=lambda mode, loss: tf.estimator.EstimatorSpec(mode, loss=loss))
    )
    with pytest.raises(WorkbookProblem, match=r"^TRAIN: the EstimatorSpec has no `train_op`"):
        report.raise_if_problems()
    assert isinstance(report.findings[0], Finding)
    mode, sentence = report.findings[0]  # a (mode, sentence) pair
    assert mode == "TRAIN" and sentence
    assert "1 problem to fix" in repr(report)
    page = report._repr_html_()
    assert "<ul>" in page and "<code>train_op</code>" in page and "<b>TRAIN</b>" in page
