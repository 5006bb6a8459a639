"""Streaming multi-class metrics for an Estimator's ``eval_metric_ops``.

Introduced in notebook 06. ``tf.compat.v1.metrics.precision`` / ``recall``
cast labels and predictions to bool, so on ten classes they measure "the digit
is not 0"; these functions compute the multi-class metrics instead, and agree
with scikit-learn (``zero_division=0``, ``labels=range(num_classes)``).

Every metric is a ``(value, update_op)`` pair built on local variables, like
``tf.compat.v1.metrics.*``: the Estimator runs ``update_op`` on every
evaluation batch and reads ``value`` once at the end. One difference: here
``update_op`` only adds the batch to the counts (the confusion matrix, the
score histograms) that several metrics share; it does not also compute each
metric, so read ``value`` after the updates. Graph mode only (inside a
``model_fn`` or a ``tf.Graph``).

What each metric means (``k`` is a class; TP, FP, FN are counted per class):

* precision of k: of the examples predicted k, the share that are k, TP / (TP + FP);
* recall of k: of the examples that are k, the share predicted k, TP / (TP + FN);
* F1 of k: the harmonic mean of the two, 2 TP / (2 TP + FP + FN);
* ``_macro``: the plain mean over all ``num_classes`` classes (every class counts the same);
* ``_micro``: computed from TP, FP, FN summed over classes; for single-label
  data precision = recall = F1 = accuracy;
* ``_weighted``: the mean over classes weighted by each class's number of true examples;
* ``auc_ovr_macro``: for each class, the probability that a random example of
  the class gets a higher score for it than a random example of another class
  (one-vs-rest ROC AUC), averaged over classes.

Edge cases, as scikit-learn with ``zero_division=0``: a class never predicted
has precision 0, a class never present has recall 0, F1 is 0 when TP = 0.

``classification_metrics`` plugs all of them into ``helpers.models.cnn_model_fn``::

    params={"metrics": metrics.classification_metrics}

Every metric it returns is a scalar: an array-valued metric is written as a
tensor summary, which the early-stopping hooks cannot read.
"""

from __future__ import annotations

import tensorflow as tf

#: Bins per class of the streaming ROC AUC, equal in log-odds over
#: [-LOG_ODDS_RANGE, LOG_ODDS_RANGE]: each bin is 0.004 wide in log-odds, so a
#: score p shares its bin only with scores within about 0.4 % of p (near 0) or
#: of 1 - p (near 1), and within 0.001 of it around 0.5.
AUC_NUM_BINS = 10_000
LOG_ODDS_RANGE = 20.0

#: Agreement of ``auc_ovr_macro`` with scikit-learn's exact value, measured:
#: at most 1.8e-3 over the tests' 200 random cases, many of them tiny (with
#: 1 positive among 45 examples, one pair sharing a bin moves that class's AUC
#: by 1/88); 2e-7 on 5,000 examples of a confident model's softmax. The exact
#: worst case for the data seen is the metric ``auc_ovr_macro_error_bound``.
AUC_TOLERANCE = 2e-3

AVERAGES = ("macro", "micro", "weighted")

_COLLECTIONS = [tf.compat.v1.GraphKeys.LOCAL_VARIABLES, tf.compat.v1.GraphKeys.METRIC_VARIABLES]


def _metric_variable(shape, name):
    """A float64 counter of ``shape`` that starts at 0 and is reset by the local-variables initializer."""
    return tf.compat.v1.Variable(
        tf.zeros(shape, dtype=tf.float64), trainable=False, collections=_COLLECTIONS, name=name
    )


def _flat_ids(values):
    """Class ids (labels or predicted classes) as a flat int64 vector."""
    return tf.reshape(tf.cast(values, tf.int64), [-1])


def confusion_matrix(labels, predictions, num_classes: int, name: str = "confusion_matrix"):
    """A streaming ``[num_classes, num_classes]`` confusion matrix: rows true class, columns predicted.

    Returns ``(value, update_op)``; counts are float64. Class ids outside
    ``0 .. num_classes-1`` fail the run with ``InvalidArgumentError``.
    """
    with tf.compat.v1.variable_scope(None, default_name=name):
        total = _metric_variable([num_classes, num_classes], "total")
        batch = tf.math.confusion_matrix(
            _flat_ids(labels), _flat_ids(predictions), num_classes=num_classes, dtype=tf.float64
        )
        return tf.identity(total), total.assign_add(batch)


def scores_from_confusion_matrix(matrix) -> dict:
    """Per-class and averaged precision, recall and F1 of a confusion matrix tensor.

    Keys: ``precision``, ``recall``, ``f1`` (vectors, one value per class) and
    ``<metric>_<average>`` for the averages in ``AVERAGES`` (scalars).
    """
    true_positives = tf.linalg.diag_part(matrix)
    predicted = tf.reduce_sum(matrix, axis=0)
    support = tf.reduce_sum(matrix, axis=1)
    per_class = {
        "precision": tf.math.divide_no_nan(true_positives, predicted),
        "recall": tf.math.divide_no_nan(true_positives, support),
        "f1": tf.math.divide_no_nan(2 * true_positives, predicted + support),
    }
    tp, pred, true = (tf.reduce_sum(x) for x in (true_positives, predicted, support))
    micro = {
        "precision": tf.math.divide_no_nan(tp, pred),
        "recall": tf.math.divide_no_nan(tp, true),
        "f1": tf.math.divide_no_nan(2 * tp, pred + true),
    }
    scores = dict(per_class)
    for metric, values in per_class.items():
        scores[f"{metric}_macro"] = tf.reduce_mean(values)
        scores[f"{metric}_micro"] = micro[metric]
        scores[f"{metric}_weighted"] = tf.math.divide_no_nan(tf.reduce_sum(values * support), true)
    return scores


def precision_recall_f1(labels, predictions, num_classes: int, name: str = "precision_recall_f1") -> dict:
    """Streaming precision, recall and F1: a dict of ``(value, update_op)`` pairs.

    Keys as in ``scores_from_confusion_matrix``. All pairs share one confusion
    matrix and one ``update_op`` (it returns the updated matrix), so each
    batch is counted once however many of the metrics are evaluated.
    """
    matrix, update_op = confusion_matrix(labels, predictions, num_classes, name=name)
    return {key: (value, update_op) for key, value in scores_from_confusion_matrix(matrix).items()}


def _check_probabilities(probabilities, num_classes: int):
    """``probabilities`` as float64 ``[batch, num_classes]`` with values in 0–1 (checked when run)."""
    probabilities = tf.convert_to_tensor(probabilities)
    if probabilities.shape.rank is not None and probabilities.shape.rank != 2:
        raise ValueError(
            f"probabilities must be [batch, num_classes], got shape {probabilities.shape}: "
            "pass the softmax output, not the predicted class ids"
        )
    probabilities.shape.assert_is_compatible_with([None, num_classes])
    probabilities = tf.cast(probabilities, tf.float64)
    zero, one = tf.constant(0.0, tf.float64), tf.constant(1.0, tf.float64)
    checks = [
        tf.debugging.assert_greater_equal(probabilities, zero, message="probabilities below 0"),
        tf.debugging.assert_less_equal(probabilities, one, message="probabilities above 1 (logits?)"),
    ]
    with tf.control_dependencies(checks):
        return tf.identity(probabilities)


def score_bins(probabilities, num_bins: int = AUC_NUM_BINS):
    """The AUC histogram bin (int32) of each score: equal widths in log-odds.

    Scores within ``1 / (1 + e^20)`` (about 2e-9) of 0 or 1 share the end bins.
    Computed in float64, so a higher score never gets a lower bin.
    """
    p = tf.cast(probabilities, tf.float64)
    log_odds = tf.math.log(p) - tf.math.log1p(-p)  # -inf at 0, +inf at 1
    log_odds = tf.clip_by_value(log_odds, -LOG_ODDS_RANGE, LOG_ODDS_RANGE)
    position = (log_odds + LOG_ODDS_RANGE) * (num_bins / (2 * LOG_ODDS_RANGE))
    return tf.clip_by_value(tf.cast(tf.floor(position), tf.int32), 0, num_bins - 1)


def auc_scores_from_histograms(positives, negatives) -> dict:
    """ROC AUC per class and macro-averaged, from ``[num_classes, num_bins]`` score histograms.

    The AUC of a class is P(positive's score > negative's score) + ½ P(same
    bin): the Mann–Whitney statistic, equal to the trapezoidal ROC area with
    thresholds at the bin edges. It is defined for a class with positives and
    negatives (0 otherwise); the macro mean is over those classes (0 if none).
    The error bound of a class is ½ × (pairs in the same bin) / (all pairs).
    """
    pairs = tf.reduce_sum(positives, axis=1) * tf.reduce_sum(negatives, axis=1)
    negatives_below = tf.cumsum(negatives, axis=1, exclusive=True)
    wins = tf.reduce_sum(positives * (negatives_below + 0.5 * negatives), axis=1)
    same_bin = tf.reduce_sum(positives * negatives, axis=1)
    per_class = tf.math.divide_no_nan(wins, pairs)
    bound = tf.math.divide_no_nan(0.5 * same_bin, pairs)
    defined = tf.cast(pairs > 0, tf.float64)
    count = tf.reduce_sum(defined)
    return {
        "auc_ovr": per_class,
        "auc_ovr_macro": tf.math.divide_no_nan(tf.reduce_sum(per_class * defined), count),
        "auc_ovr_macro_error_bound": tf.math.divide_no_nan(tf.reduce_sum(bound * defined), count),
    }


def auc_ovr(labels, probabilities, num_classes: int, num_bins: int = AUC_NUM_BINS,
            name: str = "auc_ovr") -> dict:
    """Streaming one-vs-rest ROC AUC: a dict of ``(value, update_op)`` pairs.

    Keys: ``auc_ovr`` (one value per class), ``auc_ovr_macro`` (their mean, as
    scikit-learn's ``roc_auc_score(y, probabilities, multi_class="ovr",
    average="macro")``) and ``auc_ovr_macro_error_bound``.

    ``probabilities`` is the softmax output ``[batch, num_classes]``. For each
    class k the scores ``probabilities[:, k]`` of examples of class k
    (positives) and of the rest (negatives) are counted into ``num_bins`` bins
    (``score_bins``); the AUC of k is the share of (positive, negative) pairs
    ranked correctly, a pair in the same bin counting ½.

    Tolerance against scikit-learn's exact value: ``AUC_TOLERANCE`` = 2e-3,
    and below 1e-6 on a full evaluation set of a trained model. Why not exact:
    threshold discretisation. scikit-learn ranks every distinct score; a
    streaming metric cannot keep every score, so it keeps counts per bin, and
    cannot order two scores in the same bin: it counts such a
    (positive, negative) pair as a tie (½) where the truth is 0 or 1. So the
    error is at most ``auc_ovr_macro_error_bound`` (½ × the share of pairs in
    the same bin); it is large only when positives and negatives bunch up in
    a bin (an untrained model's near-equal outputs) or when a class has so
    few examples that one pair weighs much. Exact ties cost nothing: they are
    counted ½, as scikit-learn does. The bins are equal in log-odds, which
    resolves the scores near 0 and 1 where a trained model puts most of them:
    on a confident model's softmax, 10,000 equal bins of 0–1 (the thresholds
    of ``tf.compat.v1.metrics.auc(num_thresholds=10000)``) were off by 1e-4,
    these by under 1e-6. ``update_op`` only counts (cheap, whatever ``num_bins``);
    ``value`` reads all the bins.

    A class absent from the labels, or with no negatives, has no AUC
    (scikit-learn warns and gives NaN): its ``auc_ovr`` is 0 and the macro
    mean is over the classes that have one (0 when none has).
    """
    probabilities = _check_probabilities(probabilities, num_classes)
    size = num_classes * num_bins
    with tf.compat.v1.variable_scope(None, default_name=name):
        positives = _metric_variable([size], "positives")
        negatives = _metric_variable([size], "negatives")
        slots = tf.reshape(score_bins(probabilities, num_bins) + tf.range(num_classes) * num_bins, [-1])
        is_positive = tf.reshape(tf.one_hot(_flat_ids(labels), num_classes, dtype=tf.float64), [-1])
        update_op = tf.group(tf.compat.v1.scatter_add(positives, slots, is_positive),
                             tf.compat.v1.scatter_add(negatives, slots, 1.0 - is_positive))
        shape = [num_classes, num_bins]
        values = auc_scores_from_histograms(tf.reshape(positives, shape), tf.reshape(negatives, shape))
        return {key: (value, update_op) for key, value in values.items()}


def classification_metrics(labels, classes, probabilities, num_classes: int = 10, prefix: str = "",
                           per_class=("f1",)) -> dict:
    """All the multi-class metrics as ``eval_metric_ops`` (scalar values only).

    Keys (each with ``prefix`` in front): ``precision_macro``,
    ``precision_micro``, ``precision_weighted``, the same for ``recall`` and
    ``f1``, ``auc_ovr_macro``, and ``<metric>_class_<k>`` for each class and
    each metric in ``per_class`` (default F1 only: ``f1_class_0`` …).
    The signature fits ``params["metrics"]`` of ``helpers.models.cnn_model_fn``.
    """
    scores = precision_recall_f1(labels, classes, num_classes)
    ops = {f"{metric}_{average}": scores[f"{metric}_{average}"]
           for metric in ("precision", "recall", "f1") for average in AVERAGES}
    for metric in per_class:
        values, update_op = scores[metric]
        for k in range(num_classes):
            ops[f"{metric}_class_{k}"] = (values[k], update_op)
    ops["auc_ovr_macro"] = auc_ovr(labels, probabilities, num_classes)["auc_ovr_macro"]
    return {prefix + key: pair for key, pair in ops.items()}
