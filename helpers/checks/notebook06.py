"""Exercise checks of notebook 06: a ``metric_fn`` on two batches, a number from ``events.scalars``,
a confused pair."""

from __future__ import annotations

import numbers

import numpy as np

from ..problems import CheckFailed
from .common import correct, reporting_learner_errors, require_answer, run_metric_pair

__all__ = ["macro_precision_metric", "sample_f1_at_best_test_step", "most_confused_pair"]

NUM_CLASSES = 10
# Two batches of (labels, predicted classes), every digit among the labels. Digits 2, 6 and 9 are
# never predicted
# (so a mean over the predicted digits only is told apart), and the macro, micro (= accuracy),
# weighted and
# "is not 0" precisions, the macro recall, each batch's macro precision alone and their mean all
# differ.
BATCHES = (
    ([8, 5, 5, 4, 7, 7, 6, 8, 2, 5, 4], [8, 5, 5, 4, 7, 7, 5, 8, 4, 5, 3]),
    ([9, 0, 3, 0, 0, 1, 8, 3, 4], [5, 3, 3, 0, 0, 1, 8, 3, 4]),
)
TOLERANCE = 1e-6
PAIR_SECTION = "section 'A metric is a `(value, update_op)` pair'"
AVERAGES_SECTION = "section 'Every metric of the trained model'"


def precisions(labels, classes) -> dict:
    """What ``macro_precision`` may return, right and wrong, by scikit-learn (zero_division=0)."""
    from sklearn.metrics import precision_score, recall_score

    labels, classes = np.asarray(labels), np.asarray(classes)
    found = {
        average: float(
            precision_score(
                labels, classes, labels=range(NUM_CLASSES), average=average, zero_division=0
            )
        )
        for average in ("macro", "micro", "weighted")
    }
    found["is_not_0"] = float(precision_score(labels != 0, classes != 0, zero_division=0))
    found["recall"] = float(
        recall_score(labels, classes, labels=range(NUM_CLASSES), average="macro", zero_division=0)
    )
    per_class = precision_score(
        labels, classes, labels=range(NUM_CLASSES), average=None, zero_division=0
    )
    found["predicted_only"] = float(per_class[np.isin(range(NUM_CLASSES), classes)].mean())
    return found


def _mistakes(result: float) -> str | None:
    """The sentence naming the mistake whose value ``result`` is, or None."""
    everything = precisions(
        np.concatenate([b[0] for b in BATCHES]), np.concatenate([b[1] for b in BATCHES])
    )
    per_batch = [precisions(*batch)["macro"] for batch in BATCHES]
    for value, what in [
        (
            everything["is_not_0"],
            "the precision of 'the digit is not 0': "
            "tf.compat.v1.metrics.precision casts labels and predictions to "
            "bool, so on the class ids themselves it sees two classes, not "
            "ten (section \"The source article's metrics dict, run on this "
            'model"); give it one digit at a time',
        ),
        (
            everything["micro"],
            "the micro precision, which equals the accuracy on single-label "
            "data: the exercise asks for the plain mean of the ten per-digit "
            f"precisions ({AVERAGES_SECTION})",
        ),
        (
            everything["weighted"],
            "the weighted average, by each digit's number of labels: the "
            f"macro average weighs every digit the same ({AVERAGES_SECTION})",
        ),
        (
            everything["recall"],
            "the macro recall, the share of each true digit that was found "
            "(what you get when labels and predictions trade places, or from "
            "tf.compat.v1.metrics.mean_per_class_accuracy): precision divides "
            "by how often each digit was predicted",
        ),
        (
            everything["predicted_only"],
            "a mean over the digits that were predicted: a "
            "digit never predicted has precision 0 (as with "
            "zero_division=0) and still counts, one of ten",
        ),
        (
            float(np.mean(per_batch)),
            "the mean of the two batches' own precisions: the update op "
            "must add each batch's counts to running totals, and the "
            f"value divide those totals once ({PAIR_SECTION})",
        ),
        (
            per_batch[1],
            "the second batch alone: the update op must add "
            f"each batch to running totals ({PAIR_SECTION})",
        ),
        (
            per_batch[0],
            "the first batch alone: the value must read totals that every batch's "
            f"update adds to ({PAIR_SECTION})",
        ),
    ]:
        if abs(result - value) <= TOLERANCE:
            return what
    return None


@reporting_learner_errors
def macro_precision_metric(metric_fn) -> None:
    """Notebook 06, exercise 1: ``{"precision": pair}``, the macro precision over ten classes."""
    require_answer(metric_fn, "macro_precision")
    if not callable(metric_fn):
        raise CheckFailed(
            "`macro_precision` should be a function of (labels, predictions), "
            f"not {type(metric_fn).__name__}"
        )
    import tensorflow as tf

    def build(labels, classes):
        try:
            return metric_fn(
                labels, {"classes": classes, "probabilities": tf.one_hot(classes, NUM_CLASSES)}
            )
        except TypeError as error:
            if "argument" in str(error):
                raise CheckFailed(
                    "your function must take two arguments, (labels, predictions), "
                    "like the metric_fn of tf.estimator.add_metrics"
                ) from None
            raise

    # both batches, as evaluate() would
    measured = run_metric_pair(build, "macro_precision", "precision", BATCHES)
    if measured.size != 1:
        raise CheckFailed(
            f"the value has shape {measured.shape}, one number per class: average "
            "them (macro) into one number"
        )
    result = float(measured.reshape(()))
    expected = precisions(
        np.concatenate([b[0] for b in BATCHES]), np.concatenate([b[1] for b in BATCHES])
    )["macro"]
    if abs(result - expected) <= TOLERANCE:
        correct(
            f"on two batches of ten-class labels your precision is {result:.4f}, "
            "the mean of the ten per-digit precisions, as scikit-learn's "
            "precision_score(average='macro', zero_division=0) gives"
        )
        return
    described = (
        f"on two batches of ten-class labels your precision is {result:.4f}; the macro "
        f"precision is {expected:.4f}"
    )
    what = _mistakes(result)
    if what is not None:
        raise CheckFailed(f"{described}. {result:.4f} is {what}")
    raise CheckFailed(
        f"{described}, and {result:.4f} is none of the usual slips (a binary, micro, "
        "weighted or per-batch precision, a recall): each digit's precision is its "
        "true positives over all the examples predicted as that digit, counted over "
        "both batches; then take the plain mean of ten"
    )


def _is_one_number(answer, name: str) -> float:
    """``answer`` as a float, or a one-line failure that says how to get one number."""
    if (
        hasattr(answer, "shape")
        and getattr(answer, "size", None) == 1
        and not isinstance(answer, np.generic)
    ):
        raise CheckFailed(
            f"`{name}` is a {type(answer).__name__} holding "
            "one value: take the number out with `.item()`"
        )
    if isinstance(answer, bool) or not isinstance(answer, (numbers.Real, np.generic)):
        raise CheckFailed(f"`{name}` should be one number, not a {type(answer).__name__}")
    return float(answer)


@reporting_learner_errors
def sample_f1_at_best_test_step(answer, table) -> None:
    """Notebook 06, exercise 2: the training sample's macro F1 at the step of the test set's best
    macro F1."""
    require_answer(answer, "sample_f1")
    value = _is_one_number(answer, "sample_f1")
    runs = {
        run: table[(table["run"] == run) & (table["tag"] == "f1_macro")].sort_values("step")
        for run in ("eval", "eval_training_sample")
    }
    for run, rows in runs.items():
        if rows.empty:
            raise CheckFailed(
                f"the table has no 'f1_macro' in run '{run}': pass the table of "
                "events.scalars(estimator.model_dir) after the training above"
            )
    test, sample = runs["eval"], runs["eval_training_sample"]
    best_steps = set(test.loc[test["value"] == test["value"].max(), "step"])
    at_best = sample[sample["step"].isin(best_steps)]
    hit = at_best[np.isclose(at_best["value"], value, rtol=0, atol=1e-9)]
    if not hit.empty:
        step = int(hit.iloc[0]["step"])
        correct(
            f"the test set's macro F1 was highest at step {step} ({test['value'].max():.4f}); "
            f"the training sample's was {value:.4f} there"
        )
        return
    same = table[np.isclose(table["value"], value, rtol=0, atol=1e-9)]
    same = same.assign(is_f1=same["tag"] == "f1_macro").sort_values("is_f1", ascending=False)
    if same.empty:
        raise CheckFailed(
            f"{value:.4f} is not a value in the event files: the table has one row "
            "per run, tag and step (section 'Event files as a pandas table')"
        )
    row = same.iloc[0]
    step = int(row["step"])
    where = f"{value:.4f} is tag '{row['tag']}' of run '{row['run']}' at step {step}"
    if row["tag"] != "f1_macro":
        raise CheckFailed(f"{where}: the macro F1's tag is 'f1_macro'")
    if row["run"] == "eval":
        raise CheckFailed(
            f"{where}, the test set's: take the step from run 'eval', then read the "
            "value of run 'eval_training_sample' at that step"
        )
    if row["run"] != "eval_training_sample":
        raise CheckFailed(
            f"{where}: the training sample's evaluations are run 'eval_training_sample'"
        )
    which = (
        " (the training sample's own best)"
        if value == sample["value"].max()
        else " (the last evaluation)"
        if step == sample["step"].max()
        else " (the first evaluation)"
        if step == sample["step"].min()
        else ""
    )
    raise CheckFailed(
        f"{where}{which}: the right step is the one where run 'eval', the test set, "
        "has its highest 'f1_macro'"
    )


@reporting_learner_errors
def most_confused_pair(answer, matrix) -> None:
    """Notebook 06, exercise 3: the (true, predicted) pair of different classes seen most often."""
    require_answer(answer, "most_confused")
    matrix = np.asarray(matrix)
    if (
        not isinstance(answer, (tuple, list))
        or len(answer) != 2
        or not all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in answer)
    ):
        raise CheckFailed(
            "`most_confused` should be a pair of two class numbers, (true, "
            "predicted), for example (4, 9)"
        )
    true, predicted = (int(x) for x in answer)
    size = matrix.shape[0]
    if not (0 <= true < size and 0 <= predicted < size):
        raise CheckFailed(f"classes run from 0 to {size - 1}; ({true}, {predicted}) is outside")
    if true == predicted:
        raise CheckFailed(
            f"({true}, {predicted}) is on the diagonal: those are the correct "
            "predictions; leave the diagonal out"
        )
    top = max(matrix[row, column] for row in range(size) for column in range(size) if row != column)
    count = matrix[true, predicted]
    if count == top:
        correct(
            f"true {true} predicted as {predicted}: {count:g} test images, the most common mistake"
        )
        return
    if matrix[predicted, true] == top:
        raise CheckFailed(
            f"a {true} read as a {predicted} happened {count:g} times, "
            "fewer than the most common mistake: the pair is (true "
            "digit, predicted digit), and the matrix's rows are the true "
            "digit, its columns the predicted one: check which is which"
        )
    raise CheckFailed(
        f"true {true} predicted as {predicted} happened {count:g} "
        f"times; the most common mistake happened {top:g} times: "
        "look for the largest count off the diagonal"
    )
