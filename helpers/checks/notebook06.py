"""Exercise checks of notebook 06: a ``metric_fn`` on two batches, a number from ``events.scalars``,
a confused pair."""

from __future__ import annotations

import numbers

import numpy as np

from ..language import _
from ..problems import CheckFailed
from . import calls, forbidden
from .common import correct, fail, reporting_learner_errors, require_answer
from .metric_use import evaluated

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


# The mistakes whose value the learner's may be, when it is not the macro precision.
MISTAKE_KEYS = (
    "is_not_0",
    "micro",
    "weighted",
    "recall",
    "predicted_only",
    "one_update",
    "mean_of_batches",
    "second_batch",
    "first_batch",
    "none",
)


def mistakes() -> dict:
    """Each mistake's message in the learner's language, a whole template with the named values
    {result} (the learner's value) and {expected} (the macro precision)."""
    return {
        "is_not_0": _(
            "on two batches of ten-class labels your precision is {result:.4f} where the macro "
            "precision is {expected:.4f}, and {result:.4f} is the precision of 'the digit is not "
            "0': tf.compat.v1.metrics.precision casts labels and predictions to bool, so on the "
            "class ids themselves it sees two classes, not ten (section \"The source article's "
            'metrics dict, run on this model"); give it one digit at a time'
        ),
        "micro": _(
            "on two batches of ten-class labels your precision is {result:.4f} where the macro "
            "precision is {expected:.4f}, and {result:.4f} is the micro precision, which equals "
            "the accuracy on single-label data: the exercise asks for the plain mean of the ten "
            "per-digit precisions (section 'Every metric of the trained model')"
        ),
        "weighted": _(
            "on two batches of ten-class labels your precision is {result:.4f} where the macro "
            "precision is {expected:.4f}, and {result:.4f} is the weighted average, by each "
            "digit's number of labels: the macro average weighs every digit the same (section "
            "'Every metric of the trained model')"
        ),
        "recall": _(
            "on two batches of ten-class labels your precision is {result:.4f} where the macro "
            "precision is {expected:.4f}, and {result:.4f} is the macro recall, the share of each "
            "true digit that was found (what you get when labels and predictions trade places, or "
            "from tf.compat.v1.metrics.mean_per_class_accuracy): precision divides by how often "
            "each digit was predicted"
        ),
        "predicted_only": _(
            "on two batches of ten-class labels your precision is {result:.4f} where the macro "
            "precision is {expected:.4f}, and {result:.4f} is a mean over the digits that were "
            "predicted: a digit never predicted has precision 0 (as with zero_division=0) and "
            "still counts, one of ten"
        ),
        "one_update": _(
            "on two batches of ten-class labels your precision is {result:.4f} where the macro "
            "precision is {expected:.4f}, and {result:.4f} is the mean of ten per-digit "
            "precisions of which only one digit's counts were ever updated: the update op you "
            "return must run the updates of all ten digits, grouped into one op with tf.group "
            "(section 'A metric is a `(value, update_op)` pair')"
        ),
        "mean_of_batches": _(
            "on two batches of ten-class labels your precision is {result:.4f} where the macro "
            "precision is {expected:.4f}, and {result:.4f} is the mean of the two batches' own "
            "precisions: the update op must add each batch's counts to running totals, and the "
            "value divide those totals once (section 'A metric is a `(value, update_op)` pair')"
        ),
        "second_batch": _(
            "on two batches of ten-class labels your precision is {result:.4f} where the macro "
            "precision is {expected:.4f}, and {result:.4f} is the second batch alone: the update "
            "op must add each batch to running totals (section 'A metric is a "
            "`(value, update_op)` pair')"
        ),
        "first_batch": _(
            "on two batches of ten-class labels your precision is {result:.4f} where the macro "
            "precision is {expected:.4f}, and {result:.4f} is the first batch alone: the value "
            "must read totals that every batch's update adds to (section 'A metric is a "
            "`(value, update_op)` pair')"
        ),
        "none": _(
            "on two batches of ten-class labels your precision is {result:.4f} where the macro "
            "precision is {expected:.4f}, and {result:.4f} is none of the usual slips (a binary, "
            "micro, weighted or per-batch precision, a recall, one digit's update op): each "
            "digit's precision is its true positives over all the examples predicted as that "
            "digit, counted over both batches; then take the plain mean of ten"
        ),
    }


def _mistake(result: float) -> str:
    """The key in ``MISTAKE_KEYS`` of the mistake whose value ``result`` is ("none" if none is)."""
    from sklearn.metrics import precision_score

    labels = np.concatenate([b[0] for b in BATCHES])
    classes = np.concatenate([b[1] for b in BATCHES])
    everything = precisions(labels, classes)
    per_batch = [precisions(*batch)["macro"] for batch in BATCHES]
    per_digit = precision_score(
        labels, classes, labels=range(NUM_CLASSES), average=None, zero_division=0
    )
    candidates = [(everything[key], key) for key in MISTAKE_KEYS if key in everything]
    # one digit's update op returned: its counts cover both batches, the nine others stay 0
    candidates += [(value / NUM_CLASSES, "one_update") for value in per_digit]
    candidates += [
        (float(np.mean(per_batch)), "mean_of_batches"),
        (per_batch[1], "second_batch"),
        (per_batch[0], "first_batch"),
    ]
    for value, key in candidates:
        if abs(result - value) <= TOLERANCE:
            return key
    return "none"


@reporting_learner_errors
def macro_precision_metric(metric_fn) -> None:
    """Notebook 06, exercise 1: ``{"precision": pair}``, the macro precision over ten classes."""
    require_answer(metric_fn, "macro_precision")
    if not callable(metric_fn):
        fail(
            "`macro_precision` should be a function of (labels, predictions), not {kind}",
            kind=type(metric_fn).__name__,
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
                    _(
                        "your function must take two arguments, (labels, predictions), like the "
                        "metric_fn of tf.estimator.add_metrics"
                    )
                ) from None
            raise

    # both batches, in a real evaluate(); the metrics the prompt rules out, watched all along
    ruled_out = forbidden.COURSE_METRICS + forbidden.SCIKIT_LEARN_PRECISION
    with forbidden.watching(metric_fn, ruled_out, _tf_metrics_reproduction(metric_fn)) as called:
        try:
            measured = evaluated(build, "macro_precision", "precision", BATCHES)
        except Exception:
            if not called:
                raise
    if called:
        fail(
            "`macro_precision` calls {function}, which the exercise rules out: its point is to "
            "make the ten-class precision yourself from TensorFlow's binary "
            "tf.compat.v1.metrics.precision",
            function=called[0],
        )
    if measured.size != 1:
        fail(
            "the value has shape {shape}, one number per class: average them (macro) into one "
            "number",
            shape=measured.shape,
        )
    result = float(measured.reshape(()))
    expected = precisions(
        np.concatenate([b[0] for b in BATCHES]), np.concatenate([b[1] for b in BATCHES])
    )["macro"]
    if abs(result - expected) <= TOLERANCE:
        correct(
            "on two batches of ten-class labels your precision is {result:.4f}, the mean of "
            "the ten per-digit precisions, as scikit-learn's precision_score(average='macro', "
            "zero_division=0) gives",
            result=result,
        )
        return
    raise CheckFailed(mistakes()[_mistake(result)].format(result=result, expected=expected))


def _tf_metrics_reproduction(metric_fn) -> list:
    """The notebook's ``tf_metrics`` class (its reproduction of the package), as
    ``forbidden.watching`` takes it, when the learner's function can reach it by that name: its
    precision, recall and f1 all go through its ``metric``."""
    reproduction = getattr(metric_fn, "__globals__", {}).get("tf_metrics")
    if isinstance(reproduction, type) and "metric" in vars(reproduction):
        return [("tf_metrics", reproduction, "metric")]
    return []


# Exercise 2's own event table, in the columns of events.scalars: the test set's macro F1 peaks at
# step 200, the training sample's at step 400 and is lower at its last step, 500; every value in the
# table differs, so the number a function returns names the row it read, and all lie below any
# trained model's (0.8), so a number hard-coded from the notebook's table is none of them.
F1_TABLE_STEPS = (100, 200, 300, 400, 500)
F1_TABLE_VALUES = {
    ("eval", "f1_macro"): (0.612, 0.734, 0.721, 0.703, 0.716),
    ("eval", "accuracy"): (0.640, 0.751, 0.742, 0.725, 0.733),
    ("eval_training_sample", "f1_macro"): (0.625, 0.741, 0.763, 0.792, 0.781),
    ("eval_training_sample", "accuracy"): (0.651, 0.758, 0.776, 0.803, 0.795),
    ("eval_article_metrics", "f1_macro"): (0.598, 0.702, 0.695, 0.688, 0.707),
}
F1_TABLE_LOSS = ((1, 2.3), (101, 1.21), (201, 0.98), (301, 0.87), (401, 0.81), (500, 0.79))


# Event files store scalars as float32: a value read back through float32 is within 6e-8 of the
# table's (values below 1); 1e-6 tells it from every other value of the table, 0.003 apart at least.
VALUE_TOLERANCE = 1e-6


def f1_table():
    """Exercise 2's own table (a new one each time: the learner's function may change it)."""
    import pandas as pd

    from ..events import COLUMNS

    rows = [(".", "loss", step, value) for step, value in F1_TABLE_LOSS] + [
        (run, tag, step, value)
        for (run, tag), values in F1_TABLE_VALUES.items()
        for step, value in zip(F1_TABLE_STEPS, values)
    ]
    table = pd.DataFrame(rows, columns=COLUMNS)
    return table.sort_values(["run", "tag", "step"], ignore_index=True)


def _is_one_number(answer, call: str) -> float:
    """``answer``, what ``call`` returned, as a float, or a one-line failure that says how to get
    one number."""
    if (
        hasattr(answer, "shape")
        and getattr(answer, "size", None) == 1
        and not isinstance(answer, np.generic)
    ):
        fail(
            "`{call}` returned a {kind} holding one value: return the number itself, with "
            "`.item()`",
            call=call,
            kind=type(answer).__name__,
        )
    if isinstance(answer, bool) or not isinstance(answer, (numbers.Real, np.generic)):
        fail(
            "`{call}` returned a {kind}: it should return one number",
            call=call,
            kind=type(answer).__name__,
        )
    return float(answer)


def _f1_runs(table) -> tuple:
    """The test set's and the training sample's 'f1_macro' rows of ``table``, by step."""
    runs = []
    for run in ("eval", "eval_training_sample"):
        rows = table[(table["run"] == run) & (table["tag"] == "f1_macro")].sort_values("step")
        if rows.empty:
            fail(
                "the table has no 'f1_macro' in run '{run}': pass the table of "
                "events.scalars(estimator.model_dir) after the training above",
                run=run,
            )
        runs.append(rows)
    return tuple(runs)


def _right_value(table, value: float) -> bool:
    """Whether ``value`` is the training sample's macro F1 at a step of the test set's best."""
    test, sample = _f1_runs(table)
    best_steps = set(test.loc[test["value"] == test["value"].max(), "step"])
    at_best = sample[sample["step"].isin(best_steps)]
    return bool(np.isclose(at_best["value"], value, rtol=0, atol=VALUE_TOLERANCE).any())


def _wrong_row(value: float) -> str:
    """The failure for ``value``, which ``sample_f1`` returned on the check's table: the row it is,
    and what that says of the mistake."""
    table = f1_table()
    same = table[np.isclose(table["value"], value, rtol=0, atol=VALUE_TOLERANCE)]
    if same.empty:
        return _(
            "on a table of the check's, `sample_f1(table)` returned {value:.4f}, which is no value "
            "in the table: the table has one row per run, tag and step (section 'Event files as a "
            "pandas table')"
        ).format(value=value)
    run, tag, step = same.iloc[0][["run", "tag", "step"]]
    sample = table[(table["run"] == "eval_training_sample") & (table["tag"] == "f1_macro")]
    found = dict(value=value, run=run, tag=tag, step=int(step))
    if tag != "f1_macro":
        template = _(
            "on a table of the check's, `sample_f1(table)` returned {value:.4f}, tag {tag!r} of "
            "run {run!r} at step {step}: the macro F1's tag is 'f1_macro'"
        )
    elif run == "eval":
        template = _(
            "on a table of the check's, `sample_f1(table)` returned {value:.4f}, tag 'f1_macro' "
            "of run 'eval' at step {step}, the test set's: take the step from run 'eval', then "
            "read the value of run 'eval_training_sample' at that step"
        )
    elif run != "eval_training_sample":
        template = _(
            "on a table of the check's, `sample_f1(table)` returned {value:.4f}, tag 'f1_macro' "
            "of run {run!r} at step {step}: the training sample's evaluations are run "
            "'eval_training_sample'"
        )
    elif abs(value - sample["value"].max()) <= VALUE_TOLERANCE:
        template = _(
            "on a table of the check's, `sample_f1(table)` returned {value:.4f}, tag 'f1_macro' "
            "of run 'eval_training_sample' at step {step}, the training sample's own best: on "
            "this table the two runs peak at different steps, and the right step is the one "
            "where run 'eval', the test set, has its highest 'f1_macro'"
        )
    elif step == sample["step"].max():
        template = _(
            "on a table of the check's, `sample_f1(table)` returned {value:.4f}, tag 'f1_macro' "
            "of run 'eval_training_sample' at step {step}, the last evaluation: the right step is "
            "the one where run 'eval', the test set, has its highest 'f1_macro'"
        )
    elif step == sample["step"].min():
        template = _(
            "on a table of the check's, `sample_f1(table)` returned {value:.4f}, tag 'f1_macro' "
            "of run 'eval_training_sample' at step {step}, the first evaluation: the right step "
            "is the one where run 'eval', the test set, has its highest 'f1_macro'"
        )
    else:
        template = _(
            "on a table of the check's, `sample_f1(table)` returned {value:.4f}, tag 'f1_macro' "
            "of run 'eval_training_sample' at step {step}: the right step is the one where run "
            "'eval', the test set, has its highest 'f1_macro'"
        )
    return template.format(**found)


@reporting_learner_errors
def sample_f1_at_best_test_step(answer, table) -> None:
    """Notebook 06, exercise 2: a function of an event table that returns the training sample's
    macro F1 at the step of the test set's best macro F1, tried on the check's own table (where
    the two runs peak at different steps) and on the learner's ``table``."""
    require_answer(answer, "sample_f1")
    if isinstance(answer, (numbers.Real, np.generic)) or (
        hasattr(answer, "shape") and getattr(answer, "size", None) == 1
    ):
        fail(
            "`sample_f1` is a number, but the exercise asks for a function of the event "
            "table, `def sample_f1(table):`, which the check runs on a table of its own as "
            "well as on `scalars`"
        )
    if not callable(answer):
        fail(
            "`sample_f1` should be a function of the event table, `def sample_f1(table):`, "
            "not a {kind}",
            kind=type(answer).__name__,
        )
    test, sample = _f1_runs(table)  # the learner's table has both runs
    calls.bound(answer, "sample_f1", "sample_f1(table)", f1_table())
    value = _is_one_number(answer(f1_table()), "sample_f1(table)")
    if not _right_value(f1_table(), value):
        raise CheckFailed(_wrong_row(value))
    yours = _is_one_number(answer(table.copy()), "sample_f1(scalars)")
    if not _right_value(table, yours):
        fail(
            "`sample_f1(scalars)` returned {value:.4f}, which is not the training sample's "
            "macro F1 at the step where run 'eval' has its highest 'f1_macro', though your "
            "function found it in the check's table: read the steps from the table it is given",
            value=yours,
        )
    best = test["value"].max()
    read = sample[np.isclose(sample["value"], yours, rtol=0, atol=VALUE_TOLERANCE)]
    step = int(read["step"][read["step"].isin(test.loc[test["value"] == best, "step"])].iloc[0])
    correct(
        "the test set's macro F1 was highest at step {step} ({best:.4f}), the training "
        "sample's was {value:.4f} there, and on the check's table, where the two runs peak at "
        "different steps, your function read the right row too",
        step=step,
        best=best,
        value=yours,
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
        fail(
            "`most_confused` should be a pair of two class numbers, (true, predicted), for "
            "example (4, 9)"
        )
    true, predicted = (int(x) for x in answer)
    size = matrix.shape[0]
    if not (0 <= true < size and 0 <= predicted < size):
        fail(
            "classes run from 0 to {last}; ({true}, {predicted}) is outside",
            last=size - 1,
            true=true,
            predicted=predicted,
        )
    if true == predicted:
        fail(
            "({true}, {predicted}) is on the diagonal: those are the correct predictions; "
            "leave the diagonal out",
            true=true,
            predicted=predicted,
        )
    top = max(matrix[row, column] for row in range(size) for column in range(size) if row != column)
    count = matrix[true, predicted]
    if count == top:
        correct(
            "true {true} predicted as {predicted}: {count:g} test images, the most common mistake",
            true=true,
            predicted=predicted,
            count=count,
        )
        return
    if matrix[predicted, true] == top:
        fail(
            "a {true} read as a {predicted} happened {count:g} times, fewer than the most "
            "common mistake: the pair is (true digit, predicted digit), and the matrix's rows "
            "are the true digit, its columns the predicted one: check which is which",
            true=true,
            predicted=predicted,
            count=count,
        )
    fail(
        "true {true} predicted as {predicted} happened {count:g} times; the most common "
        "mistake happened {top:g} times: look for the largest count off the diagonal",
        true=true,
        predicted=predicted,
        count=count,
        top=top,
    )
