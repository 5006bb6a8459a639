"""Streaming multi-class metrics for ``eval_metric_ops``, equal to scikit-learn's
(``zero_division=0``).

Introduced in notebook 06, which teaches what they compute. Each is a ``(value, update_op)`` pair on
local variables (graph mode); ``update_op`` only adds the batch to counts several metrics share, so
read ``value``. Shapes are refused while the graph is built (``MetricsProblem``); values per batch
by graph assertions, whose ``InvalidArgumentError`` has the line ``assertion failed: [<one
sentence>]``.
"""

from __future__ import annotations

import tensorflow as tf

from helpers.language import _
from helpers.problems import MetricsProblem

#: Bins per class of the streaming AUC, equal in log-odds (0.004 wide) over ±LOG_ODDS_RANGE: the
#: range holds every float32 probability but exactly 0 and 1, and, scored from the logits, logit
#: margins up to 128.
AUC_NUM_BINS = 64_000
LOG_ODDS_RANGE = 128.0

#: Measured agreement of ``auc_ovr_macro`` with scikit-learn's exact value: at most 1.8e-3 on
#: the tests' 200 random cases (in a tiny class one pair sharing a bin weighs much), 3e-6 on
#: thousands of examples of a confident model. It does not hold where many pairs share a bin (an
#: untrained model's near-equal outputs): the metric ``auc_ovr_macro_error_bound`` is the exact
#: worst case for the data seen.
AUC_TOLERANCE = 2e-3

AVERAGES = ("macro", "micro", "weighted")


def _metric_variable(shape, name: str) -> tf.Variable:
    """A float64 counter, zero until counted, reset by the local-variables initializer."""
    collections = [tf.compat.v1.GraphKeys.LOCAL_VARIABLES, tf.compat.v1.GraphKeys.METRIC_VARIABLES]
    return tf.compat.v1.Variable(
        tf.zeros(shape, tf.float64), trainable=False, collections=collections, name=name
    )


def _assert(condition, name: str, template: str, *values) -> tf.Operation:
    """A graph assertion whose failure reads ``assertion failed: [<template filled with values>]``
    (no quotes)."""
    message = tf.strings.format(template, values) if values else template
    return tf.debugging.Assert(condition, [message], name=name)


def _class_ids(values, num_classes: int, what: str) -> tf.Tensor:
    """``values`` (labels or predicted classes) as flat int64 ids, asserted in ``0 ..
    num_classes-1`` per batch."""
    values = tf.convert_to_tensor(values)
    shape = values.shape
    if shape.rank is not None and shape.rank >= 2 and any(d != 1 for d in shape[1:]):
        one_hot = shape.rank == 2 and shape[1] == num_classes
        if one_hot and what == "labels":
            message = _(
                "{what} have shape {shape} (one-hot) but the metrics take one class id per "
                "example, shape [batch]: pass tf.argmax({what}, axis=1), or labels as class ids "
                "from the input function"
            )
        elif one_hot:
            message = _(
                "{what} have shape {shape} (one-hot) but the metrics take one class id per "
                "example, shape [batch]: pass tf.argmax({what}, axis=1)"
            )
        elif what == "labels":
            message = _(
                "{what} have shape {shape} (more than one value per example) but the metrics take "
                "one class id per example, shape [batch]: pass tf.argmax({what}, axis=1), or "
                "labels as class ids from the input function"
            )
        else:
            message = _(
                "{what} have shape {shape} (more than one value per example) but the metrics take "
                "one class id per example, shape [batch]: pass tf.argmax({what}, axis=1)"
            )
        raise MetricsProblem(message.format(what=what, shape=shape))
    ids = tf.reshape(tf.cast(values, tf.int64), [-1])
    top = num_classes - 1
    checks = [
        _assert(
            tf.reduce_all(ids >= 0),
            f"{what}_not_negative",
            _(
                "{what} must be class ids 0..{top} but one is {{}}: class ids start at 0; remove "
                "or renumber the examples with negative {what}"
            ).format(what=what, top=top),
            tf.reduce_min(ids),
        ),
        _assert(
            tf.reduce_all(ids <= top),
            f"{what}_below_num_classes",
            _(
                "{what} must be class ids 0..{top} but one is {{}}: pass num_classes=(the largest "
                "id + 1) if there are more than {num_classes} classes, or fix the {what}"
            ).format(what=what, top=top, num_classes=num_classes),
            tf.reduce_max(ids),
        ),
    ]
    with tf.control_dependencies(checks):
        return tf.identity(ids)


def _assert_same_count(ids, count, what: str, other: str) -> tf.Operation:
    """An assertion that ``ids`` has ``count`` entries: one per example, like ``other``."""
    return _assert(
        tf.equal(tf.size(ids, out_type=tf.int64), tf.cast(count, tf.int64)),
        f"{what}_one_per_example",
        _(
            "{what} give {{}} values for {{}} {other}: the metrics take one class id per example; "
            "one-hot {what}? pass tf.argmax({what}, axis=1)"
        ).format(what=what, other=other),
        tf.size(ids),
        count,
    )


def precision_recall_f1(
    labels, predictions, num_classes: int, name: str = "precision_recall_f1"
) -> dict:
    """Streaming ``precision``, ``recall``, ``f1`` (per class) and ``<metric>_<average>``: ``(value,
    update_op)``.

    All share one ``update_op``, which returns the confusion matrix so far (rows the true class).
    """
    # the scope names the failing check: <name>/...
    with tf.compat.v1.variable_scope(None, default_name=name):
        labels = _class_ids(labels, num_classes, "labels")
        predictions = _class_ids(predictions, num_classes, "predictions")
        total = _metric_variable([num_classes, num_classes], "total")
        with tf.control_dependencies(
            [_assert_same_count(labels, tf.size(predictions), "labels", "predictions")]
        ):
            batch = tf.math.confusion_matrix(
                labels, predictions, num_classes=num_classes, dtype=tf.float64
            )
        matrix, update_op = tf.identity(total), total.assign_add(batch)
    true_positives = tf.linalg.diag_part(matrix)
    predicted, support = tf.reduce_sum(matrix, axis=0), tf.reduce_sum(matrix, axis=1)
    scores = {
        "precision": tf.math.divide_no_nan(true_positives, predicted),
        "recall": tf.math.divide_no_nan(true_positives, support),
        "f1": tf.math.divide_no_nan(2 * true_positives, predicted + support),
    }
    # One prediction per label (asserted): each mistake is one FP and one FN, so all three micro
    # values are TP / n.
    micro = tf.math.divide_no_nan(tf.reduce_sum(true_positives), tf.reduce_sum(support))
    for metric, values in list(scores.items()):
        scores[f"{metric}_macro"] = tf.reduce_mean(values)
        scores[f"{metric}_micro"] = micro
        scores[f"{metric}_weighted"] = tf.math.divide_no_nan(
            tf.reduce_sum(values * support), tf.reduce_sum(support)
        )
    return {key: (value, update_op) for key, value in scores.items()}


def _refuse_probability_shape(shape, num_classes: int) -> None:
    """Refuse probabilities whose known shape is not [batch, num_classes] (graph building)."""
    if shape.rank is not None and shape.rank != 2:
        raise MetricsProblem(
            _(
                "probabilities must be [batch, num_classes], got shape {shape}: pass the softmax "
                "output, not the predicted class ids"
            ).format(shape=shape)
        )
    if shape.rank == 2 and shape[1] is not None and shape[1] != num_classes:
        raise MetricsProblem(
            _(
                "probabilities have {columns} columns (classes) but num_classes={num_classes}: "
                "pass num_classes={columns}, the number of the model's outputs"
            ).format(columns=shape[1], num_classes=num_classes)
        )


def _rounded(value):
    """1.8 in a message, not 1.7999999895691872."""
    return tf.round(value * 1e4) / 1e4


def _probability_checks(p, tolerance: float) -> list:
    """``(condition, name, template, values)`` of the per-batch checks, in the order they run."""
    nan = tf.math.is_nan(p)
    sums = tf.reduce_sum(p, axis=1)
    return [
        (
            tf.logical_not(tf.reduce_any(nan)),
            "probabilities_not_nan",
            _(
                "probabilities contain NaN ({} of them): the outputs of the model are not "
                "numbers; look for a NaN loss in training (lower the learning rate) or NaN in the "
                "input"
            ),
            [tf.reduce_sum(tf.cast(nan, tf.int64))],
        ),
        (
            tf.reduce_all((p >= 0.0) & (p <= 1.0)),
            "probabilities_in_0_1",
            _(
                "probabilities must be in [0, 1] but range from {} to {}: did you pass logits? "
                "pass tf.nn.softmax(logits)"
            ),
            [_rounded(tf.reduce_min(p)), _rounded(tf.reduce_max(p))],
        ),
        (
            tf.reduce_all(tf.abs(sums - 1.0) <= tolerance),
            "probabilities_rows_sum_to_1",
            _(
                "each row of probabilities must sum to 1 but rows sum from {} to {}: did you pass "
                "logits, or one sigmoid per class? pass tf.nn.softmax(logits)"
            ),
            [_rounded(tf.reduce_min(sums)), _rounded(tf.reduce_max(sums))],
        ),
    ]


def _check_probabilities(probabilities, num_classes: int) -> tf.Tensor:
    """``probabilities`` as float64 ``[batch, num_classes]``, checked for NaN, range and row sums,
    in order."""
    probabilities = tf.convert_to_tensor(probabilities)
    _refuse_probability_shape(probabilities.shape, num_classes)
    # float32 softmax rounds below 1e-6 per class
    tolerance = 3e-2 if probabilities.dtype.size == 2 else 1e-3
    p = tf.cast(probabilities, tf.float64)
    check = _assert(
        tf.equal(tf.shape(p)[1], num_classes),
        "probabilities_num_classes",
        _(
            "probabilities have {{}} columns (classes) but num_classes={num_classes}: pass "
            "num_classes equal to the number of outputs of the model"
        ).format(num_classes=num_classes),
        tf.shape(p)[1],
    )
    for condition, name, template, values in _probability_checks(p, tolerance):
        with tf.control_dependencies([check]):  # in order: the first that fails names the cause
            check = _assert(condition, name, template, *values)
    with tf.control_dependencies([check]):
        return tf.identity(p)


def _log_odds(probabilities) -> tf.Tensor:
    """Each class's float64 log-odds; from the logits of a graph's ``Softmax`` (exact where float32
    rounds to 1)."""
    tensor = tf.convert_to_tensor(probabilities)
    while hasattr(tensor, "op") and tensor.op.type == "Identity":
        tensor = tensor.op.inputs[0]
    if hasattr(tensor, "op") and tensor.op.type == "Softmax":
        z = tf.cast(tensor.op.inputs[0], tf.float64)
        not_self = tf.linalg.diag(tf.fill([tf.shape(z)[1]], tf.constant(-float("inf"), tf.float64)))
        # row k leaves out class k
        return z - tf.reduce_logsumexp(z[:, tf.newaxis, :] + not_self, axis=2)
    p = tf.cast(probabilities, tf.float64)
    return tf.math.log(p) - tf.math.log1p(-p)


def _auc_from_histograms(positives, negatives) -> dict:
    """The Mann–Whitney AUC per class (a pair in one bin counts ½; bound: ½ × its share of pairs),
    and their means.

    NaN for a class without positives or negatives, which the means leave out (NaN if no class has
    one).
    """
    pairs = tf.reduce_sum(positives, axis=1) * tf.reduce_sum(negatives, axis=1)
    wins = tf.reduce_sum(
        positives * (tf.cumsum(negatives, axis=1, exclusive=True) + 0.5 * negatives), axis=1
    )
    same_bin = tf.reduce_sum(positives * negatives, axis=1)
    defined = pairs > 0
    nan = tf.constant(float("nan"), tf.float64)

    def mean_over_defined(values):
        count = tf.reduce_sum(tf.cast(defined, tf.float64))
        return tf.where(
            count > 0,
            tf.math.divide_no_nan(tf.reduce_sum(tf.where(defined, values, 0.0)), count),
            nan,
        )

    per_class = tf.where(defined, tf.math.divide_no_nan(wins, pairs), nan)
    bound = tf.where(defined, tf.math.divide_no_nan(0.5 * same_bin, pairs), nan)
    return {
        "auc_ovr": per_class,
        "auc_ovr_macro": mean_over_defined(per_class),
        "auc_ovr_macro_error_bound": mean_over_defined(bound),
    }


def auc_ovr(
    labels, probabilities, num_classes: int, num_bins: int = AUC_NUM_BINS, name: str = "auc_ovr"
) -> dict:
    """Streaming one-vs-rest ROC AUC: ``auc_ovr`` (per class), ``auc_ovr_macro``,
    ``auc_ovr_macro_error_bound``.

    ``probabilities`` is the softmax output ``[batch, num_classes]``. Why not exact: a streaming
    metric cannot keep every score, so it counts each class's scores in ``num_bins`` bins, equal in
    log-odds (``_log_odds``), and cannot order a (positive, negative) pair in the same bin: it
    counts it ½. Hence the error is at most ``auc_ovr_macro_error_bound``, within ``AUC_TOLERANCE``
    except where outputs bunch up; scikit-learn on saturated float32 probabilities ties those scores
    too, and is then the less exact of the two.
    """
    size = num_classes * num_bins
    # the scope names the failing check: <name>/...
    with tf.compat.v1.variable_scope(None, default_name=name):
        checked = _check_probabilities(probabilities, num_classes)
        ids = _class_ids(labels, num_classes, "labels")
        positives = _metric_variable([size], "positives")
        negatives = _metric_variable([size], "negatives")
        same_count = _assert_same_count(
            ids, tf.shape(checked)[0], "labels", "rows of probabilities"
        )
        # the checks run also when scoring from the logits
        with tf.control_dependencies([same_count, checked]):
            log_odds = tf.clip_by_value(_log_odds(probabilities), -LOG_ODDS_RANGE, LOG_ODDS_RANGE)
            position = tf.floor((log_odds + LOG_ODDS_RANGE) * (num_bins / (2 * LOG_ODDS_RANGE)))
            bins = tf.clip_by_value(tf.cast(position, tf.int32), 0, num_bins - 1)
        slots = tf.reshape(bins + tf.range(num_classes) * num_bins, [-1])
        is_positive = tf.reshape(tf.one_hot(ids, num_classes, dtype=tf.float64), [-1])
        update_op = tf.group(
            tf.compat.v1.scatter_add(positives, slots, is_positive),
            tf.compat.v1.scatter_add(negatives, slots, 1.0 - is_positive),
        )
        shape = [num_classes, num_bins]
        values = _auc_from_histograms(tf.reshape(positives, shape), tf.reshape(negatives, shape))
        return {key: (value, update_op) for key, value in values.items()}


def classification_metrics(
    labels, classes, probabilities, num_classes: int = 10, prefix: str = "", per_class=("f1",)
) -> dict:
    """All the metrics as scalar ``eval_metric_ops`` (the early-stopping hooks cannot read an
    array).

    Keys, after ``prefix``: ``<metric>_<average>``, ``<metric>_class_<k>`` for ``per_class``,
    ``auc_ovr_macro`` and ``auc_ovr_macro_error_bound``.
    """
    scores = precision_recall_f1(labels, classes, num_classes)
    ops = {
        f"{metric}_{average}": scores[f"{metric}_{average}"]
        for metric in ("precision", "recall", "f1")
        for average in AVERAGES
    }
    for metric in per_class:
        values, update_op = scores[metric]
        ops.update({f"{metric}_class_{k}": (values[k], update_op) for k in range(num_classes)})
    auc = auc_ovr(labels, probabilities, num_classes)
    ops.update({key: auc[key] for key in ("auc_ovr_macro", "auc_ovr_macro_error_bound")})
    return {prefix + key: pair for key, pair in ops.items()}


# ---- generated by make lib: edit the notebook cell, not this block ----
# fmt: off


# From notebooks/06_metrics_and_tensorboard.ipynb, cell 80673aa5 (#@save).
def course_metrics(labels, predictions):
    """The course's metrics as a metric_fn for tf.estimator.add_metrics."""
    return classification_metrics(
        labels, predictions["classes"], predictions["probabilities"]
    )


# fmt: on
# ---- end of the block generated by make lib ----
