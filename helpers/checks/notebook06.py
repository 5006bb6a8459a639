"""Exercise checks of notebook 06: a ``metric_fn`` on two batches, a number from ``events.scalars``, a confused pair."""

from __future__ import annotations

import numbers

import numpy as np

from ..problems import CheckFailed
from .common import correct, require_answer, run_metric_pair

__all__ = ["macro_precision_metric", "first_evaluation_f1", "most_confused_pair"]

NUM_CLASSES = 10
# Two batches of (labels, predicted classes), chosen so that the macro, micro (= accuracy), weighted and
# "is not 0" precisions, and the macro precision of the second batch alone, all differ.
BATCHES = (([0, 0, 0, 1, 1, 2, 2, 3, 4, 5, 6, 7], [0, 1, 1, 1, 0, 2, 3, 3, 4, 5, 6, 1]),
           ([7, 8, 8, 9, 9, 9, 0, 3], [7, 8, 2, 9, 9, 0, 0, 3]))
TOLERANCE = 1e-6
AVERAGES_SECTION = "section \"The reference: scikit-learn on the model's predictions\""


def precisions(labels, classes) -> dict:
    """Precision of ``classes`` against ``labels``: macro, micro, weighted and "is not 0" (binary, as TF1's)."""
    from sklearn.metrics import precision_score
    found = {average: float(precision_score(labels, classes, labels=range(NUM_CLASSES), average=average,
                                            zero_division=0)) for average in ("macro", "micro", "weighted")}
    found["is_not_0"] = float(precision_score(np.asarray(labels) != 0, np.asarray(classes) != 0, zero_division=0))
    return found


def macro_precision_metric(metric_fn) -> None:
    """Notebook 06, exercise 1: ``{"precision": pair}`` with the macro precision over ten classes."""
    require_answer(metric_fn, "macro_precision")
    if not callable(metric_fn):
        raise CheckFailed("`macro_precision` should be a function of (labels, predictions), "
                          f"not {type(metric_fn).__name__}")
    import tensorflow as tf

    def build(labels, classes):
        try:
            return metric_fn(labels, {"classes": classes, "probabilities": tf.one_hot(classes, NUM_CLASSES)})
        except TypeError as error:
            if "argument" in str(error):
                raise CheckFailed("your function must take two arguments, (labels, predictions), like the "
                                  "metric_fn of tf.estimator.add_metrics") from None
            raise
    measured = run_metric_pair(build, "macro_precision", "precision", BATCHES)  # both batches, as evaluate() would
    if measured.size != 1:
        raise CheckFailed(f"the value has shape {measured.shape}, one number per class: average them (macro) into one "
                          "number")
    result = float(measured.reshape(()))
    expected = precisions(np.concatenate([b[0] for b in BATCHES]), np.concatenate([b[1] for b in BATCHES]))
    if abs(result - expected["macro"]) <= TOLERANCE:
        correct(f"on two batches of ten-class labels your precision is {result:.4f}, the mean of the ten "
                "per-class precisions, as scikit-learn's precision_score(average='macro') gives")
        return
    described = (f"on two batches of ten-class labels your precision is {result:.4f}; the macro precision is "
                 f"{expected['macro']:.4f}")
    for value, what in [
        (expected["is_not_0"], "the precision of 'the digit is not 0': tf.compat.v1.metrics.precision casts labels "
         "and predictions to bool, so it sees two classes, not ten (section \"The source article's metrics, run on "
         "this model\"); a macro precision is built class by class, as the course's metrics are"),
        (expected["micro"], "the micro precision, which equals the accuracy on single-label data: the exercise asks "
         f"for the plain mean of the ten per-class precisions ({AVERAGES_SECTION})"),
        (expected["weighted"], "the weighted average, by each class's examples: the macro average weighs every "
         f"class the same ({AVERAGES_SECTION})"),
        (precisions(*BATCHES[1])["macro"], "the second batch alone: the update op must add each batch to running "
         "totals (section 'A metric is a `(value, update_op)` pair')"),
    ]:
        if abs(result - value) <= TOLERANCE:
            raise CheckFailed(f"{described}. {result:.4f} is {what}")
    raise CheckFailed(f"{described}: check that the labels and classes are passed in this order and that "
                      "num_classes is 10")


def first_evaluation_f1(answer, table) -> None:
    """Notebook 06, exercise 2: the test set's macro F1 at the first evaluation, from ``events.scalars``."""
    require_answer(answer, "first_f1")
    if hasattr(answer, "shape") and getattr(answer, "size", None) == 1 and not isinstance(answer, np.generic):
        raise CheckFailed(f"`first_f1` is a {type(answer).__name__} holding one value: take the number out "
                          "with `.item()`")
    if isinstance(answer, bool) or not isinstance(answer, (numbers.Real, np.generic)):
        raise CheckFailed(f"`first_f1` should be one number, not a {type(answer).__name__}")
    value = float(answer)
    rows = table[(table["run"] == "eval") & (table["tag"] == "f1_macro")].sort_values("step")
    if rows.empty:
        raise CheckFailed("the table has no 'f1_macro' in run 'eval': pass the table of "
                          "events.scalars(estimator.model_dir) after the training above")
    first, last = rows.iloc[0], rows.iloc[-1]
    if abs(value - first["value"]) <= 1e-9:
        correct(f"the first evaluation (step {first['step']}) had a test macro F1 of {first['value']:.4f}; "
                f"the last (step {last['step']}) reached {last['value']:.4f}")
        return
    if abs(value - last["value"]) <= 1e-9:
        raise CheckFailed(f"{value:.4f} is the last evaluation's, at step {last['step']}: the first evaluation is "
                          "the row with the smallest step")
    same = table[np.isclose(table["value"], value, rtol=0, atol=1e-9)]
    if not same.empty:
        row = same.iloc[0]
        hint = ("the test set's evaluations are run 'eval'" if row["run"] != "eval"
                else "the tag of the macro F1 is 'f1_macro'")
        raise CheckFailed(f"{value:.4f} is tag '{row['tag']}' of run '{row['run']}' at step {row['step']}: {hint}")
    raise CheckFailed(f"{value:.4f} is not a value in the event files: the table has one row per run, tag "
                      "and step (section 'Event files as a pandas table')")


def most_confused_pair(answer, matrix) -> None:
    """Notebook 06, exercise 3: the (true, predicted) pair of different classes seen most often."""
    require_answer(answer, "most_confused")
    matrix = np.asarray(matrix)
    if (not isinstance(answer, (tuple, list)) or len(answer) != 2
            or not all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in answer)):
        raise CheckFailed("`most_confused` should be a pair of two class numbers, (true, predicted), "
                          "for example (4, 9)")
    true, predicted = (int(x) for x in answer)
    size = matrix.shape[0]
    if not (0 <= true < size and 0 <= predicted < size):
        raise CheckFailed(f"classes run from 0 to {size - 1}; ({true}, {predicted}) is outside")
    if true == predicted:
        raise CheckFailed(f"({true}, {predicted}) is on the diagonal: those are the correct predictions; leave the "
                          "diagonal out")
    top = max(matrix[row, column] for row in range(size) for column in range(size) if row != column)
    count = matrix[true, predicted]
    if count == top:
        correct(f"true {true} predicted as {predicted}: {count:g} test images, the most common mistake")
        return
    if matrix[predicted, true] == top:
        raise CheckFailed(f"({true}, {predicted}) happened {count:g} times; the other way round, "
                          f"({predicted}, {true}), is the most common mistake: rows are the true class, "
                          "columns the predicted one")
    raise CheckFailed(f"true {true} predicted as {predicted} happened {count:g} times; the most common "
                      f"mistake happened {top:g} times: look for the largest count off the diagonal")
