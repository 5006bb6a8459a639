"""The model_fns the tests of the model_fn checker and of notebook 03's checks share: a small right
one (a dense layer on the flattened image), ``variant`` to replace one part of it, and
``only_finding`` to read a report with exactly one finding."""

import tensorflow as tf

from helpers.model_fn_checker import check_model_fn

ModeKeys = tf.estimator.ModeKeys


def dense_logits(features):
    return tf.keras.layers.Dense(10)(tf.reshape(features["image"], [-1, 28 * 28]))


def minimize(loss):
    return tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step()
    )


def good_model_fn(features, labels, mode, params):
    logits = dense_logits(features)
    classes = tf.argmax(logits, axis=1, output_type=tf.int32)
    if mode == ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": classes})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == ModeKeys.EVAL:
        accuracy = tf.compat.v1.metrics.accuracy(labels=labels, predictions=classes)
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=minimize(loss))


def variant(predict=None, loss=None, metrics=None, train=None, classes=None):
    """``good_model_fn`` with one part replaced; each replacement is a function of built tensors."""

    def model_fn(features, labels, mode, params):
        logits = dense_logits(features)
        classes_ = classes(logits) if classes else tf.argmax(logits, axis=1, output_type=tf.int32)
        if mode == ModeKeys.PREDICT:
            predictions = predict(logits) if predict else {"classes": classes_}
            return tf.estimator.EstimatorSpec(mode, predictions=predictions)
        value = (
            loss
            or (
                lambda: tf.compat.v1.losses.sparse_softmax_cross_entropy(
                    labels=labels, logits=logits
                )
            )
        )()
        if mode == ModeKeys.EVAL:
            ops = (
                metrics(labels, classes_)
                if metrics
                else {
                    "accuracy": tf.compat.v1.metrics.accuracy(labels=labels, predictions=classes_)
                }
            )
            return tf.estimator.EstimatorSpec(mode, loss=value, eval_metric_ops=ops)
        if train:
            return train(mode, value)
        return tf.estimator.EstimatorSpec(mode, loss=value, train_op=minimize(value))

    return model_fn


def only_finding(report, mode):
    """The report's single finding, which must be in ``mode``."""
    assert len(report.findings) == 1, report.findings
    finding = report.findings[0]
    assert finding.mode == mode, finding
    return finding.sentence


def finding_with_branch(mode_name: str, branch) -> str:
    """The model_fn checker's one finding, in that mode, on ``good_model_fn`` whose ``mode_name``
    branch (``"TRAIN"``, ``"EVAL"`` or ``"PREDICT"``) is
    ``branch(features, labels, mode, params)``."""

    def model_fn(features, labels, mode, params):  # the names Estimator accepts
        if mode == getattr(ModeKeys, mode_name):
            return branch(features, labels, mode, params)
        return good_model_fn(features, labels, mode, params)

    return only_finding(check_model_fn(model_fn), mode_name)
