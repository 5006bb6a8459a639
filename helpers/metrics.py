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
The AUC of a class that has no examples, or has all of them, is undefined:
NaN, as scikit-learn's, and left out of ``auc_ovr_macro`` (NaN when no class
has an AUC, e.g. before any batch).

What is checked, and when. While the graph is built (a ``MetricsProblem``,
one line): labels or predictions that are not one class id per example
(one-hot labels, probabilities given as predictions), probabilities that are
not ``[batch, num_classes]`` (class ids given as probabilities, a wrong
``num_classes``). On every evaluation batch, as assertions in the graph: class
ids outside ``0 .. num_classes-1``, NaN probabilities, probabilities outside
[0, 1] or rows that do not sum to 1 (logits?), and the shapes the graph could
not know. A failed assertion stops the evaluation with TensorFlow's
``InvalidArgumentError`` (not a ``MetricsProblem``: the batch is seen only
when the graph runs), after TensorFlow's lines on where the op was made; the
sentence is its line ``assertion failed: [<one sentence>]``.

``classification_metrics`` plugs all of them into ``helpers.models.cnn_model_fn``::

    params={"metrics": metrics.classification_metrics}

Every metric it returns is a scalar: an array-valued metric is written as a
tensor summary, which the early-stopping hooks cannot read.
"""

from __future__ import annotations

import tensorflow as tf

from helpers.problems import MetricsProblem

#: Bins per class of the streaming ROC AUC, equal in log-odds over
#: [-LOG_ODDS_RANGE, LOG_ODDS_RANGE]: each bin is 0.004 wide in log-odds, so a
#: score p shares its bin only with scores within about 0.4 % of p (near 0) or
#: of 1 - p (near 1), and within 0.001 of it around 0.5. The range covers
#: every float32 probability other than exactly 0 and 1 (log-odds -103.3 to
#: 16.6) and, scored from the logits, margins of up to 128 between a class's
#: logit and the others'.
AUC_NUM_BINS = 64_000
LOG_ODDS_RANGE = 128.0

#: Agreement of ``auc_ovr_macro`` with scikit-learn's exact value, measured:
#: at most 1.8e-3 over the tests' 200 random cases, many of them tiny (with
#: 1 positive among 45 examples, one pair sharing a bin moves that class's AUC
#: by 1/88); at most 3e-6 on 2,000 to 5,000 examples of a confident model, also
#: where float32 softmax saturates (a logit margin of 40; binned from the
#: probabilities over ±20 in log-odds, as before, it was off by 3e-2 there).
#: It does not hold when
#: many (positive, negative) pairs share a bin: the near-equal outputs of an
#: untrained model. The exact worst case for the data seen is the metric
#: ``auc_ovr_macro_error_bound``.
AUC_TOLERANCE = 2e-3

AVERAGES = ("macro", "micro", "weighted")

#: How far a row of probabilities may sum from 1: rounding of a float32 softmax
#: stays below 1e-6 per class; 16-bit floats get ``_SUM_TOLERANCE_16_BIT``.
_SUM_TOLERANCE = 1e-3
_SUM_TOLERANCE_16_BIT = 3e-2

_COLLECTIONS = [tf.compat.v1.GraphKeys.LOCAL_VARIABLES, tf.compat.v1.GraphKeys.METRIC_VARIABLES]


def _metric_variable(shape, name):
    """A float64 counter of ``shape`` that starts at 0 and is reset by the local-variables initializer."""
    return tf.compat.v1.Variable(
        tf.zeros(shape, dtype=tf.float64), trainable=False, collections=_COLLECTIONS, name=name
    )


def _rounded(value):
    """``value`` rounded to 4 decimals for a message (float64: 1.8, not 1.7999999895691872)."""
    return tf.round(tf.cast(value, tf.float64) * 1e4) / 1e4


def _assert(condition, name: str, template: str, *values):
    """A graph assertion ``name`` whose failure reads ``assertion failed: [<template filled with values>]``.

    TensorFlow prints the message with quotes escaped: the templates have none.
    """
    message = tf.strings.format(template, values) if values else template
    return tf.debugging.Assert(condition, [message], name=name)


def _class_ids(values, num_classes: int, what: str):
    """``values`` (labels or predicted classes) as a flat int64 vector of checked class ids.

    Refused while building the graph: more than one value per example (a
    ``[batch, n]`` tensor with n > 1). Asserted per batch: ids in
    ``0 .. num_classes-1``.
    """
    values = tf.convert_to_tensor(values)
    shape = values.shape
    if shape.rank is not None and shape.rank >= 2 and any(d != 1 for d in shape[1:]):
        kind = "one-hot" if shape.rank == 2 and shape[1] == num_classes else "more than one value per example"
        raise MetricsProblem(
            f"{what} have shape {shape} ({kind}) but the metrics take one class id per example, "
            f"shape [batch]: pass tf.argmax({what}, axis=1)"
            + (", or labels as class ids from the input function" if what == "labels" else "")
        )
    ids = tf.reshape(tf.cast(values, tf.int64), [-1])
    top = num_classes - 1
    checks = [
        _assert(tf.reduce_all(ids >= 0), f"{what}_not_negative",
                f"{what} must be class ids 0..{top} but one is {{}}: class ids start at 0; "
                f"remove or renumber the examples with negative {what}", tf.reduce_min(ids)),
        _assert(tf.reduce_all(ids <= top), f"{what}_below_num_classes",
                f"{what} must be class ids 0..{top} but one is {{}}: pass num_classes=(the largest id + 1) "
                f"if there are more than {num_classes} classes, or fix the {what}", tf.reduce_max(ids)),
    ]
    with tf.control_dependencies(checks):
        return tf.identity(ids)


def _assert_same_count(ids, count, what: str, other: str):
    """An assertion that ``ids`` has ``count`` entries: one per example, like ``other``."""
    return _assert(tf.equal(tf.size(ids, out_type=tf.int64), tf.cast(count, tf.int64)), f"{what}_one_per_example",
                   f"{what} give {{}} values for {{}} {other}: the metrics take one class id per example; "
                   f"one-hot {what}? pass tf.argmax({what}, axis=1)",
                   tf.size(ids), count)


def confusion_matrix(labels, predictions, num_classes: int, name: str = "confusion_matrix"):
    """A streaming ``[num_classes, num_classes]`` confusion matrix: rows true class, columns predicted.

    Returns ``(value, update_op)``; counts are float64. One-hot labels or
    predictions raise ``MetricsProblem``; class ids outside
    ``0 .. num_classes-1`` fail the run with ``InvalidArgumentError`` (see the
    module docstring).
    """
    with tf.compat.v1.variable_scope(None, default_name=name):  # names the failing check: <name>/...
        labels = _class_ids(labels, num_classes, "labels")
        predictions = _class_ids(predictions, num_classes, "predictions")
        total = _metric_variable([num_classes, num_classes], "total")
        same_count = _assert_same_count(labels, tf.size(predictions), "labels", "predictions")
        with tf.control_dependencies([same_count]):
            batch = tf.math.confusion_matrix(labels, predictions, num_classes=num_classes, dtype=tf.float64)
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
    """``probabilities`` as float64 ``[batch, num_classes]``, softmax-like (shape checked now, values when run).

    The value checks run in order, so the first that fails names the cause:
    NaN, then values outside [0, 1], then rows that do not sum to 1.
    """
    probabilities = tf.convert_to_tensor(probabilities)
    shape = probabilities.shape
    if shape.rank is not None and shape.rank != 2:
        raise MetricsProblem(
            f"probabilities must be [batch, num_classes], got shape {shape}: "
            "pass the softmax output, not the predicted class ids"
        )
    if shape.rank == 2 and shape[1] is not None and shape[1] != num_classes:
        raise MetricsProblem(
            f"probabilities have {shape[1]} columns (classes) but num_classes={num_classes}: "
            f"pass num_classes={shape[1]}, the number of the model's outputs"
        )
    tolerance = _SUM_TOLERANCE_16_BIT if probabilities.dtype.size == 2 else _SUM_TOLERANCE
    p = tf.cast(probabilities, tf.float64)
    columns = _assert(tf.equal(tf.shape(p)[1], num_classes), "probabilities_num_classes",
                      f"probabilities have {{}} columns (classes) but num_classes={num_classes}: "
                      "pass num_classes equal to the number of outputs of the model", tf.shape(p)[1])
    nan = tf.math.is_nan(p)
    with tf.control_dependencies([columns]):
        no_nan = _assert(tf.logical_not(tf.reduce_any(nan)), "probabilities_not_nan",
                         "probabilities contain NaN ({} of them): the outputs of the model are not numbers; "
                         "look for a NaN loss in training (lower the learning rate) or NaN in the input",
                         tf.reduce_sum(tf.cast(nan, tf.int64)))
    with tf.control_dependencies([no_nan]):
        in_range = _assert(tf.reduce_all((p >= 0.0) & (p <= 1.0)), "probabilities_in_0_1",
                           "probabilities must be in [0, 1] but range from {} to {}: did you pass logits? "
                           "pass tf.nn.softmax(logits)", _rounded(tf.reduce_min(p)), _rounded(tf.reduce_max(p)))
    sums = tf.reduce_sum(p, axis=1)
    with tf.control_dependencies([in_range]):
        rows_sum_to_1 = _assert(tf.reduce_all(tf.abs(sums - 1.0) <= tolerance), "probabilities_rows_sum_to_1",
                                "each row of probabilities must sum to 1 but rows sum from {} to {}: "
                                "did you pass logits, or one sigmoid per class? pass tf.nn.softmax(logits)",
                                _rounded(tf.reduce_min(sums)), _rounded(tf.reduce_max(sums)))
    with tf.control_dependencies([rows_sum_to_1]):
        return tf.identity(p)


def softmax_logits(probabilities):
    """The logits that ``probabilities`` is the ``tf.nn.softmax`` of, or None (also in eager mode).

    Follows ``tf.identity`` ops back from ``probabilities`` to a ``Softmax`` op
    of the graph (``tf.nn.softmax``, a Keras softmax activation).
    """
    tensor = tf.convert_to_tensor(probabilities)
    if tf.executing_eagerly() or not hasattr(tensor, "op"):
        return None
    while tensor.op.type == "Identity":
        tensor = tensor.op.inputs[0]
    return tensor.op.inputs[0] if tensor.op.type == "Softmax" else None


def log_odds_scores(probabilities, logits=None):
    """The score of each class as float64 log-odds, log(p / (1 - p)), ``[batch, num_classes]``.

    From ``logits`` when given: ``logit_k - logsumexp(other logits)``, exact
    where float32 softmax saturates (a margin of 40 gives p = 1.0 and 4e-18,
    where the log-odds are still 40 and -40 plus the logits' spread). Otherwise
    from the probabilities: ±inf at exactly 0 and 1.
    """
    if logits is not None:
        z = tf.cast(logits, tf.float64)
        num_classes = tf.shape(z)[1]
        not_self = tf.linalg.diag(tf.fill([num_classes], tf.constant(-float("inf"), tf.float64)))
        others = tf.reduce_logsumexp(z[:, tf.newaxis, :] + not_self, axis=2)  # row k leaves out class k
        return z - others
    p = tf.cast(probabilities, tf.float64)
    return tf.math.log(p) - tf.math.log1p(-p)


def score_bins(log_odds, num_bins: int = AUC_NUM_BINS):
    """The AUC histogram bin (int32) of each log-odds score: equal widths over ±``LOG_ODDS_RANGE``.

    Scores beyond the range share the end bins. Monotonic: a higher score
    never gets a lower bin.
    """
    log_odds = tf.clip_by_value(tf.cast(log_odds, tf.float64), -LOG_ODDS_RANGE, LOG_ODDS_RANGE)
    position = (log_odds + LOG_ODDS_RANGE) * (num_bins / (2 * LOG_ODDS_RANGE))
    return tf.clip_by_value(tf.cast(tf.floor(position), tf.int32), 0, num_bins - 1)


def auc_scores_from_histograms(positives, negatives) -> dict:
    """ROC AUC per class and macro-averaged, from ``[num_classes, num_bins]`` score histograms.

    The AUC of a class is P(positive's score > negative's score) + ½ P(same
    bin): the Mann–Whitney statistic, equal to the trapezoidal ROC area with
    thresholds at the bin edges. It is defined for a class with positives and
    negatives, NaN otherwise; the macro mean is over the classes that have one
    (NaN if none has). The error bound of a class is ½ × (pairs in the same
    bin) / (all pairs); ``auc_ovr_macro_error_bound`` is the mean of the
    defined classes' bounds.
    """
    pairs = tf.reduce_sum(positives, axis=1) * tf.reduce_sum(negatives, axis=1)
    negatives_below = tf.cumsum(negatives, axis=1, exclusive=True)
    wins = tf.reduce_sum(positives * (negatives_below + 0.5 * negatives), axis=1)
    same_bin = tf.reduce_sum(positives * negatives, axis=1)
    defined = pairs > 0
    nan = tf.constant(float("nan"), tf.float64)

    def per_defined_class(numerator):
        return tf.where(defined, tf.math.divide_no_nan(numerator, pairs), nan)

    def mean_over_defined(values):
        count = tf.reduce_sum(tf.cast(defined, tf.float64))
        total = tf.reduce_sum(tf.where(defined, values, tf.zeros_like(values)))
        return tf.where(count > 0, tf.math.divide_no_nan(total, count), nan)

    per_class, bound = per_defined_class(wins), per_defined_class(0.5 * same_bin)
    return {
        "auc_ovr": per_class,
        "auc_ovr_macro": mean_over_defined(per_class),
        "auc_ovr_macro_error_bound": mean_over_defined(bound),
    }


def auc_ovr(labels, probabilities, num_classes: int, num_bins: int = AUC_NUM_BINS,
            name: str = "auc_ovr") -> dict:
    """Streaming one-vs-rest ROC AUC: a dict of ``(value, update_op)`` pairs.

    Keys: ``auc_ovr`` (one value per class), ``auc_ovr_macro`` (their mean, as
    scikit-learn's ``roc_auc_score(y, probabilities, multi_class="ovr",
    average="macro")``) and ``auc_ovr_macro_error_bound``.

    ``probabilities`` is the softmax output ``[batch, num_classes]``. The score
    of class k is its log-odds (``log_odds_scores``), from the logits when
    ``probabilities`` is the output of ``tf.nn.softmax`` in the graph (as in
    ``helpers.models.cnn_model_fn``), else from the probabilities. For each
    class k the scores of examples of class k (positives) and of the rest
    (negatives) are counted into ``num_bins`` bins (``score_bins``); the AUC of
    k is the share of (positive, negative) pairs ranked correctly, a pair in
    the same bin counting ½.

    Tolerance against scikit-learn's exact value: ``AUC_TOLERANCE`` = 2e-3,
    and a few 1e-6 on a full evaluation set of a trained model. Why not exact:
    threshold discretisation. scikit-learn ranks every distinct score; a
    streaming metric cannot keep every score, so it keeps counts per bin, and
    cannot order two scores in the same bin: it counts such a
    (positive, negative) pair as a tie (½) where the truth is 0 or 1. So the
    error is at most ``auc_ovr_macro_error_bound`` (½ × the share of pairs in
    the same bin). The tolerance does not hold when positives and negatives
    bunch up in a bin (an untrained model's near-equal outputs: the bound says
    by how much), and it is reached only when a class has so few examples that
    one pair weighs much. Exact ties cost nothing: they are counted ½, as
    scikit-learn does. The bins are equal in log-odds, which resolves the
    scores near 0 and 1 where a trained model puts most of them; scoring from
    the logits also orders the scores that float32 softmax rounds to exactly
    0 or 1. Given only the probabilities, such scores are ties for this metric
    and for scikit-learn alike: both are off the exact value by the same amount
    (5e-3 on the tests' model with a logit margin of 40, whose wrong answers
    get probability 1.0), and the bound says so. So where softmax saturates,
    scikit-learn on ``predict``'s float32 probabilities is the less exact
    value, and the two differ by up to the bound of the probabilities, not of
    the logits. ``update_op`` only counts (cheap, whatever ``num_bins``);
    ``value`` reads all the bins.

    A class absent from the labels, or with no negatives, has no AUC: its
    ``auc_ovr`` is NaN (scikit-learn: NaN and a warning) and the macro mean is
    over the classes that have one (scikit-learn's macro would be NaN), NaN
    when none has.

    Refused (see the module docstring): one-hot labels, class ids given as
    probabilities, probabilities whose column count is not ``num_classes``;
    per batch: labels outside ``0 .. num_classes-1``, NaN probabilities,
    probabilities outside [0, 1] or rows not summing to 1.
    """
    logits = softmax_logits(probabilities)
    size = num_classes * num_bins
    with tf.compat.v1.variable_scope(None, default_name=name):  # names the failing check: <name>/...
        probabilities = _check_probabilities(probabilities, num_classes)
        ids = _class_ids(labels, num_classes, "labels")
        positives = _metric_variable([size], "positives")
        negatives = _metric_variable([size], "negatives")
        same_count = _assert_same_count(ids, tf.shape(probabilities)[0], "labels", "rows of probabilities")
        with tf.control_dependencies([same_count, probabilities]):  # the checks run also when scoring logits
            bins = score_bins(log_odds_scores(probabilities, logits), num_bins)
        slots = tf.reshape(bins + tf.range(num_classes) * num_bins, [-1])
        is_positive = tf.reshape(tf.one_hot(ids, num_classes, dtype=tf.float64), [-1])
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
    ``f1``, ``auc_ovr_macro`` and its ``auc_ovr_macro_error_bound`` (how far it
    can be from scikit-learn's exact value: see ``auc_ovr``), and
    ``<metric>_class_<k>`` for each class and each metric in ``per_class``
    (default F1 only: ``f1_class_0`` …).
    The signature fits ``params["metrics"]`` of ``helpers.models.cnn_model_fn``;
    for another number of classes pass e.g.
    ``functools.partial(metrics.classification_metrics, num_classes=3)``.
    """
    scores = precision_recall_f1(labels, classes, num_classes)
    ops = {f"{metric}_{average}": scores[f"{metric}_{average}"]
           for metric in ("precision", "recall", "f1") for average in AVERAGES}
    for metric in per_class:
        values, update_op = scores[metric]
        for k in range(num_classes):
            ops[f"{metric}_class_{k}"] = (values[k], update_op)
    auc = auc_ovr(labels, probabilities, num_classes)
    for key in ("auc_ovr_macro", "auc_ovr_macro_error_bound"):
        ops[key] = auc[key]
    return {prefix + key: pair for key, pair in ops.items()}
