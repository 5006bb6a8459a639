"""Every message of notebook 06's exercise checks.

Exercise 1 builds real metric functions (right, and each mistake a learner can
make) and runs them through the check's two batches; the expected numbers are
checked against scikit-learn. Exercises 2 and 3 use a small event table and a
small confusion matrix made here.
"""

import numpy as np
import pandas as pd
import pytest
import tensorflow as tf
from sklearn.metrics import precision_score

from helpers import checks, metrics
from helpers.checks import notebook06
from helpers.problems import CheckFailed

# --- exercise 1: macro precision as a (value, update_op) pair -----------------


def test_the_batches_tell_every_mistake_apart():
    labels = np.concatenate([b[0] for b in notebook06.BATCHES])
    classes = np.concatenate([b[1] for b in notebook06.BATCHES])
    ours = notebook06.precisions(labels, classes)
    for average in ("macro", "micro", "weighted"):
        assert ours[average] == pytest.approx(
            precision_score(labels, classes, labels=range(10), average=average, zero_division=0))
    assert ours["is_not_0"] == pytest.approx(precision_score(labels != 0, classes != 0))
    second = notebook06.precisions(*notebook06.BATCHES[1])["macro"]
    values = list(ours.values()) + [second]
    assert min(abs(a - b) for i, a in enumerate(values) for b in values[i + 1:]) > 0.01


def _helpers_macro(labels, predictions):
    return {"precision": metrics.precision_recall_f1(labels, predictions["classes"], num_classes=10)["precision_macro"]}


def test_macro_precision_correct(capsys):
    checks.macro_precision_metric(_helpers_macro)
    out = capsys.readouterr().out
    assert out.startswith("Correct: on two batches of ten-class labels your precision is 0.7917")


def _binary(labels, predictions):
    return {"precision": tf.compat.v1.metrics.precision(labels=labels, predictions=predictions["classes"])}


def _named(key, average):
    def metric_fn(labels, predictions):
        return {key: metrics.precision_recall_f1(labels, predictions["classes"], 10)[f"precision_{average}"]}
    return metric_fn


def _keras(labels, predictions):
    metric = tf.keras.metrics.Precision()
    metric.update_state(tf.one_hot(labels, 10), predictions["probabilities"])
    return {"precision": metric}


def _last_batch(labels, predictions):
    value = tf.Variable(0.0, trainable=False, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES])
    matrix = tf.math.confusion_matrix(labels, predictions["classes"], num_classes=10, dtype=tf.float32)
    batch = tf.reduce_mean(tf.math.divide_no_nan(tf.linalg.diag_part(matrix), tf.reduce_sum(matrix, axis=0)))
    return {"precision": (tf.identity(value), tf.compat.v1.assign(value, batch))}


def _per_class(labels, predictions):
    return {"precision": metrics.precision_recall_f1(labels, predictions["classes"], num_classes=10)["precision"]}


def _swapped(labels, predictions):
    return {"precision": metrics.precision_recall_f1(predictions["classes"], labels, num_classes=10)["precision_macro"]}


@pytest.mark.parametrize("answer, words", [
    (None, "`macro_precision` is still None"),
    ("precision", "should be a function"),
    (lambda labels: {}, "must take two arguments"),
    (lambda labels, predictions: _binary(labels, predictions)["precision"], "returned a tuple: return a dict"),
    (_named("prec", "macro"), "name the metric 'precision'"),
    (_keras, "Keras Metric object"),
    (lambda labels, predictions: {"precision": tf.constant(1.0)}, "not a \\(value, update_op\\) pair"),
    (_binary, "0.8750 is the precision of 'the digit is not 0'"),
    (_named("precision", "micro"), "micro precision, which equals the accuracy"),
    (_named("precision", "weighted"), "weighted average"),
    (_last_batch, "second batch alone"),
    (_per_class, "one number per class"),
    (_swapped, "passed in this order"),
], ids=["blank", "not callable", "one argument", "bare pair", "wrong key", "keras", "bare tensor", "binary",
        "micro", "weighted", "last batch", "per class", "swapped"])
def test_macro_precision_explains_mistakes(answer, words):
    with pytest.raises(CheckFailed, match=words) as caught:
        checks.macro_precision_metric(answer)
    assert "precision_macro" not in str(caught.value)  # never the key of the course's function to paste


def test_macro_precision_binary_names_the_cause_and_the_section():
    with pytest.raises(CheckFailed) as caught:
        checks.macro_precision_metric(_binary)
    assert str(caught.value).endswith(
        "tf.compat.v1.metrics.precision casts labels and predictions to bool, so it sees two classes, not ten "
        "(section \"The source article's metrics, run on this model\"); a macro precision is built class by "
        "class, as the course's metrics are")
    assert "metrics.precision_recall_f1" not in str(caught.value)


# --- exercise 2: a value read from the event-file table ------------------------

TABLE = pd.DataFrame(
    [(".", "loss", 1, 2.3), (".", "loss", 101, 0.4),
     ("eval", "accuracy", 100, 0.91), ("eval", "accuracy", 200, 0.95),
     ("eval", "f1_macro", 100, 0.905), ("eval", "f1_macro", 200, 0.948),
     ("eval_training_sample", "f1_macro", 100, 0.912), ("eval_training_sample", "f1_macro", 200, 0.96)],
    columns=["run", "tag", "step", "value"],
)


def test_first_evaluation_f1_correct(capsys):
    checks.first_evaluation_f1(0.905, TABLE)
    assert capsys.readouterr().out.startswith(
        "Correct: the first evaluation (step 100) had a test macro F1 of 0.9050; the last (step 200) reached 0.9480")


def test_first_evaluation_f1_accepts_numpy_scalars(capsys):
    checks.first_evaluation_f1(np.float64(0.905), TABLE)
    assert "Correct" in capsys.readouterr().out


@pytest.mark.parametrize("answer, words", [
    (None, "`first_f1` is still None"),
    (pd.Series([0.905]), "a Series holding one value: take the number out with `.item()`"),
    ("0.905", "should be one number, not a str"),
    (0.948, "is the last evaluation's, at step 200"),
    (0.912, "tag 'f1_macro' of run 'eval_training_sample' at step 100: the test set's evaluations are run 'eval'"),
    (0.91, "tag 'accuracy' of run 'eval' at step 100: the tag of the macro F1 is 'f1_macro'"),
    (0.5, "is not a value in the event files"),
], ids=["blank", "series", "string", "last", "other run", "other tag", "unknown"])
def test_first_evaluation_f1_explains_mistakes(answer, words):
    with pytest.raises(CheckFailed, match=words.replace("(", "\\(").replace(")", "\\)").replace(".", "\\.")):
        checks.first_evaluation_f1(answer, TABLE)


def test_first_evaluation_f1_without_the_metric():
    with pytest.raises(CheckFailed, match="has no 'f1_macro' in run 'eval'"):
        checks.first_evaluation_f1(0.9, TABLE[TABLE["run"] == "."])


# --- exercise 3: the most common mistake in a confusion matrix ------------------

MATRIX = np.array([[50, 1, 0],
                   [7, 40, 2],
                   [0, 3, 45]])


def test_most_confused_pair_correct(capsys):
    checks.most_confused_pair((1, 0), MATRIX)
    assert capsys.readouterr().out.startswith("Correct: true 1 predicted as 0: 7 test images")


def test_most_confused_pair_accepts_numpy_ints_and_lists(capsys):
    checks.most_confused_pair([np.int64(1), np.int64(0)], MATRIX)
    assert "Correct" in capsys.readouterr().out


@pytest.mark.parametrize("answer, words", [
    (None, "`most_confused` is still None"),
    (7, "should be a pair of two class numbers"),
    ((1.0, 0.0), "should be a pair of two class numbers"),
    ((1, 5), "outside"),
    ((0, 0), "on the diagonal"),
    ((0, 1), "the other way round, \\(1, 0\\), is the most common mistake"),
    ((2, 1), "happened 3 times; the most common mistake happened 7 times"),
], ids=["blank", "number", "floats", "outside", "diagonal", "swapped", "smaller"])
def test_most_confused_pair_explains_mistakes(answer, words):
    with pytest.raises(CheckFailed, match=words):
        checks.most_confused_pair(answer, MATRIX)
