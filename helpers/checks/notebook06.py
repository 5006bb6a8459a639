"""Exercise checks of notebook 06: a ``metric_fn`` on two batches, a number from ``events.scalars``,
a confused pair."""

from __future__ import annotations

import numbers

import numpy as np

from ..language import _
from ..problems import CheckFailed
from . import calls, forbidden
from .common import correct, fail, reporting_learner_errors, require_answer
from .metric_use import evaluated, ops_run

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
    "zero",
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
        "zero": _(
            "on two batches of ten-class labels your precision is {result:.4f} where the macro "
            "precision is {expected:.4f}: no digit's precision counted a single true positive, "
            "so either the update op you return does not run the updates of all ten digits (group "
            "them into one op with tf.group), or the predictions you give each digit are never "
            "true: 'the "
            "digit is k' is a comparison of the predicted classes with k (the probabilities "
            "are no classes)"
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
    candidates += [(value / NUM_CLASSES, "one_update") for value in per_digit if value > 0]
    candidates.append((0.0, "zero"))
    candidates += [
        (float(np.mean(per_batch)), "mean_of_batches"),
        (per_batch[1], "second_batch"),
        (per_batch[0], "first_batch"),
    ]
    for value, key in candidates:
        if abs(result - value) <= TOLERANCE:
            return key
    return "none"


# Two more batches, evaluated after the first two as a second, separate evaluate(): digit 1 is in
# no label and never predicted, digit 7 in no label but predicted once, digits 4 and 8 never
# predicted; so a mean over the digits among the labels, or a function that builds another metric
# on its second call, is told apart.
OTHER_BATCHES = (
    ([0, 2, 3, 5, 5, 9, 6], [0, 2, 3, 5, 3, 9, 7]),
    ([4, 8, 0, 6, 2, 9, 3, 0], [9, 6, 0, 6, 2, 9, 3, 5]),
)


def _probabilities() -> np.ndarray:
    """Row ``c``: the softmax output of a model that predicts ``c``, as the check gives it with
    the classes: 0.4 for ``c``, the rest spread unevenly over six of the nine others (each below
    0.15), three left at 0 (as float32 gives a very unlikely digit), so no row is one-hot, none is
    above 0.5, and a column is neither all zero nor all above zero."""
    rows = np.zeros((NUM_CLASSES, NUM_CLASSES))
    rng = np.random.default_rng(6)
    for c in range(NUM_CLASSES):
        others = rng.permutation([k for k in range(NUM_CLASSES) if k != c])[:6]
        spread = rng.uniform(1.0, 2.0, len(others))
        rows[c, others] = 0.6 * spread / spread.sum()
        rows[c, c] = 0.4
    return rows


PROBABILITIES = _probabilities()


def _evaluated_macro(metric_fn, batches) -> tuple:
    """The value a real evaluate() gives ``metric_fn`` over ``batches``, and the calls of
    ``tf.compat.v1.metrics.precision`` that the value reads (their number)."""
    import tensorflow as tf

    read = []

    def build(labels, classes):
        import sys

        made = []  # what each call of tf.compat.v1.metrics.precision returned, by any name
        code = tf.compat.v1.metrics.precision.__code__
        previous = sys.getprofile()

        def profile(frame, event, arg):
            if event == "return" and frame.f_code is code and isinstance(arg, tuple) and arg:
                made.append(arg)
            if previous is not None:
                previous(frame, event, arg)

        probabilities = tf.gather(tf.constant(PROBABILITIES, tf.float32), classes)
        sys.setprofile(profile)
        try:
            ops = metric_fn(labels, {"classes": classes, "probabilities": probabilities})
        except TypeError as error:
            if "argument" in str(error):
                raise CheckFailed(
                    _(
                        "your function must take two arguments, (labels, predictions), like the "
                        "metric_fn of tf.estimator.add_metrics"
                    )
                ) from None
            raise
        finally:
            sys.setprofile(previous)
        value = ops.get("precision") if isinstance(ops, dict) else None
        if isinstance(value, (tuple, list)) and value and isinstance(value[0], tf.Tensor):
            ancestors = ops_run(value[0])
            read.append(sum(1 for pair in made if _op_of(pair[0]) in ancestors))
        return ops

    measured = evaluated(build, "macro_precision", "precision", batches)
    return measured, (read[-1] if read else 0)


def _op_of(tensor):
    return getattr(tensor, "op", None)


def _macro(batches) -> float:
    return precisions(
        np.concatenate([b[0] for b in batches]), np.concatenate([b[1] for b in batches])
    )["macro"]


@reporting_learner_errors
def macro_precision_metric(metric_fn) -> None:
    """Notebook 06, exercise 1: ``{"precision": pair}``, the macro precision over ten classes,
    made of ten ``tf.compat.v1.metrics.precision``, in two real evaluations on other batches."""
    require_answer(metric_fn, "macro_precision")
    if not callable(metric_fn):
        fail(
            "`macro_precision` should be a function of (labels, predictions), not {kind}",
            kind=type(metric_fn).__name__,
        )
    # both batches, in a real evaluate(); the metrics the prompt rules out, watched all along
    ruled_out = forbidden.COURSE_METRICS + forbidden.SCIKIT_LEARN_PRECISION
    with forbidden.watching(metric_fn, ruled_out, _tf_metrics_reproduction(metric_fn)) as called:
        try:
            measured, from_precision = _evaluated_macro(metric_fn, BATCHES)
        except Exception:
            if not called:
                raise
    if called:
        fail(
            "`macro_precision` calls {function}, which the exercise rules out: its point is to "
            "make the ten-class precision yourself from TensorFlow's binary "
            "`tf.compat.v1.metrics.precision`",
            function=called[0],
        )
    if measured.size != 1:
        fail(
            "the value has shape {shape}, one number per class: average them (macro) into one "
            "number",
            shape=measured.shape,
        )
    result = float(measured.reshape(()))
    expected = _macro(BATCHES)
    if abs(result - expected) > TOLERANCE:
        raise CheckFailed(mistakes()[_mistake(result)].format(result=result, expected=expected))
    # a second evaluation, with digits missing from the labels: the same function, called again
    measured, again = _evaluated_macro(metric_fn, OTHER_BATCHES)
    other = float(np.asarray(measured).reshape(-1)[0]) if np.size(measured) == 1 else np.nan
    expected_other = _macro(OTHER_BATCHES)
    if not abs(other - expected_other) <= TOLERANCE:
        labels = np.concatenate([b[0] for b in OTHER_BATCHES])
        classes = np.concatenate([b[1] for b in OTHER_BATCHES])
        from sklearn.metrics import precision_score

        per_digit = precision_score(
            labels, classes, labels=range(NUM_CLASSES), average=None, zero_division=0
        )
        present = np.isin(range(NUM_CLASSES), labels)
        if abs(other - per_digit[present].mean()) <= TOLERANCE:
            fail(
                "in a second evaluation, on two other batches where digits {absent} are in no "
                "label, your precision is {result:.4f} where the macro precision is "
                "{expected:.4f}, and {result:.4f} is a mean over the digits among the labels "
                "only: a digit that is no label has precision 0 and still counts, one of ten",
                absent=", ".join(str(k) for k in np.flatnonzero(~present)),
                result=other,
                expected=expected_other,
            )
        fail(
            "in a second evaluation, on two other batches (digits {absent} in no label, digits "
            "{unpredicted} never predicted), your precision is {result:.4f} where the macro "
            "precision is {expected:.4f}, though on the first two batches it was right: the "
            "metric must be the plain mean of the ten per-digit precisions on any batches, "
            "and your function must build the same metric each time it is called",
            absent=", ".join(str(k) for k in np.flatnonzero(~np.isin(range(NUM_CLASSES), labels))),
            unpredicted=", ".join(
                str(k) for k in np.flatnonzero(~np.isin(range(NUM_CLASSES), classes))
            ),
            result=other,
            expected=expected_other,
        )
    if min(from_precision, again) < NUM_CLASSES:
        fail(
            "your precision is right, {result:.4f}, but its value reads {count} of the ten "
            "`tf.compat.v1.metrics.precision` the exercise asks for: build it from that binary "
            "metric, one call per digit, and average their values",
            result=result,
            count=min(from_precision, again),
        )
    correct(
        "on two batches of ten-class labels your precision is {result:.4f}, the mean of "
        "the ten per-digit precisions, as scikit-learn's precision_score(average='macro', "
        "zero_division=0) gives, and in a second evaluation on two other batches, with digits "
        "missing from the labels, it was right too",
        result=result,
    )


def _tf_metrics_reproduction(metric_fn) -> list:
    """The notebook's ``tf_metrics`` class (its reproduction of the package), as
    ``forbidden.watching`` takes it, when the learner's function can reach it by that name: its
    precision, recall and f1 all go through its ``metric``."""
    reproduction = getattr(metric_fn, "__globals__", {}).get("tf_metrics")
    if isinstance(reproduction, type) and "metric" in vars(reproduction):
        return [("tf_metrics", reproduction, "metric")]
    return []


# Exercise 2's own event tables, in the columns of events.scalars, drawn anew at each check (so no
# answer can read them off): the tags of the notebook's evaluations, the runs' rows in a random
# order, random steps (run 'eval_article_metrics' at every one of run 'eval'), run
# 'eval_training_sample' evaluated at a step run 'eval' was not (before the test set's best) and
# not at another; every value differs from every other by 0.002 at least and lies below 0.9,
# under any trained model's macro F1, so a number from the notebook's table is none of them. The
# test set's macro F1 peaks at one step, which is neither run's first nor last, nor the training
# sample's best (which is neither its first, its last nor its next evaluation); another F1 tag of
# run 'eval' (micro, weighted, a class's) is higher still, at another step.
F1_TABLES = 3
EVAL_TAGS = ("accuracy", "loss", "precision_macro", "f1_macro", "f1_micro", "f1_weighted") + tuple(
    f"f1_class_{k}" for k in range(NUM_CLASSES)
)
EVAL_RUNS = ("eval", "eval_training_sample", "eval_article_metrics")


def f1_table(rng=None):
    """One of exercise 2's tables, drawn with ``rng`` (a new generator when none is given)."""
    import pandas as pd

    from ..events import COLUMNS

    rng = np.random.default_rng() if rng is None else rng
    every = int(rng.choice([50, 100, 125, 200, 250]))
    count = int(rng.integers(5, 8))
    steps = [every * (i + 1) for i in range(count)]
    best = int(rng.integers(2, count - 2))  # an index, neither the first two nor the last two
    # the sample skips one step after the best (not the last) and adds one between two others
    skipped = steps[int(rng.integers(best + 1, count - 1))]
    extra = steps[int(rng.integers(0, best))] + every // 2
    sample_steps = sorted(set(steps) - {skipped} | {extra})
    runs = {
        "eval": steps,
        "eval_training_sample": sample_steps,
        "eval_article_metrics": steps,
    }
    cells = [
        (run, tag, step)
        for run, run_steps in runs.items()
        for tag in (EVAL_TAGS if run != "eval_article_metrics" else ("accuracy", "f1_macro"))
        for step in run_steps
    ]
    # distinct values, 0.002 apart at least, in [0.3, 0.86)
    grid = rng.permutation(np.arange(3001, 8600, 20))[: len(cells) + 1] / 10000
    values = dict(zip(cells, grid))
    # the test set's macro F1: highest at steps[best], by one value taken from the top
    test = [("eval", "f1_macro", step) for step in steps]
    top = max(values[cell] for cell in test)
    peak, highest = test[best], test[int(np.argmax([values[c] for c in test]))]
    values[peak], values[highest] = top, values[peak]
    # the sample's own best elsewhere: at none of the test set's best, the sample's first, its
    # last and its evaluation after the test set's best (so each of those mistakes is named)
    sample = [("eval_training_sample", "f1_macro", step) for step in sample_steps]
    after = min(step for step in sample_steps if step > steps[best])
    elsewhere = [
        c for c in sample if c[2] not in (steps[best], sample_steps[0], sample_steps[-1], after)
    ]
    highest, target = max(sample, key=values.get), elsewhere[int(rng.integers(len(elsewhere)))]
    values[highest], values[target] = values[target], values[highest]
    # another F1 of run 'eval' above the macro F1's best, at another step
    tag = EVAL_TAGS[int(rng.integers(4, len(EVAL_TAGS)))]
    step = steps[int(rng.choice([i for i in range(count) if i != best and steps[i] != skipped]))]
    values[("eval", tag, step)] = 0.8999 - float(rng.integers(0, 20)) / 10000
    training = [(".", "loss", 1, 2.3)] + [
        (".", "loss", step + 1, float(rng.uniform(0.9, 2.0)))
        for step in range(every, steps[-1])
        if step % every == 0
    ]
    rows = training + [(run, tag, step, values[(run, tag, step)]) for run, tag, step in cells]
    order = rng.permutation(len(rows))
    return pd.DataFrame([rows[i] for i in order], columns=COLUMNS)


def f1_tables(rng=None) -> list:
    """``F1_TABLES`` of exercise 2's tables, drawn anew."""
    rng = np.random.default_rng() if rng is None else rng
    return [f1_table(rng) for _ in range(F1_TABLES)]


# Event files store scalars as float32: a value read back through float32 is within 6e-8 of the
# table's (values below 1); 1e-6 tells it from every other value of a table, 0.002 apart at least.
VALUE_TOLERANCE = 1e-6


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


def _wrong_row(table, value: float) -> str:
    """The failure for ``value``, which ``sample_f1`` returned on ``table``, one of the check's:
    the row it is, and what that says of the mistake."""
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


def _notebook_table(table):
    """The notebook's table: read anew from the event files when ``table`` is a ``model_dir``
    (which the answer cell cannot change, as it can rebind or edit ``scalars``), else a copy."""
    import os

    import pandas as pd

    if isinstance(table, (str, os.PathLike)):
        from ..events import scalars

        return scalars(table)
    if not isinstance(table, pd.DataFrame):
        fail(
            "the check takes the event table or its `model_dir`, not a {kind}",
            kind=type(table).__name__,
        )
    return table.copy()


@reporting_learner_errors
def sample_f1_at_best_test_step(answer, table) -> None:
    """Notebook 06, exercise 2: a function of an event table that returns the training sample's
    macro F1 at the step of the test set's best macro F1, tried on tables of the check's, drawn
    anew (the two runs peak at different steps and were evaluated at different steps), then on
    the notebook's, read from ``table`` (a ``model_dir``, or a table)."""
    require_answer(answer, "sample_f1")
    if isinstance(answer, (numbers.Real, np.generic)) or (
        hasattr(answer, "shape") and getattr(answer, "size", None) == 1
    ):
        fail(
            "`sample_f1` is a number, but the exercise asks for a function of the event "
            "table, `def sample_f1(table):`, which the check runs on tables of its own as "
            "well as on the notebook's"
        )
    if not callable(answer):
        fail(
            "`sample_f1` should be a function of the event table, `def sample_f1(table):`, "
            "not a {kind}",
            kind=type(answer).__name__,
        )
    notebook = _notebook_table(table)
    test, sample = _f1_runs(notebook)  # the notebook's table has both runs
    tables = f1_tables()
    calls.bound(answer, "sample_f1", "sample_f1(table)", tables[0].copy())
    for own in tables:
        value = _is_one_number(answer(own.copy()), "sample_f1(table)")
        if not _right_value(own, value):
            raise CheckFailed(_wrong_row(own, value))
    yours = _is_one_number(answer(notebook.copy()), "sample_f1(scalars)")
    if not _right_value(notebook, yours):
        same = notebook[np.isclose(notebook["value"], yours, rtol=0, atol=VALUE_TOLERANCE)]
        if same.empty:
            fail(
                "`sample_f1` was right on {count} tables of the check's, but on the notebook's "
                "table it returned {value:.4f}, which is no "
                "value in that table: a function must read the table it is given, and give "
                "the same answer each time it is called",
                count=len(tables),
                value=yours,
            )
        run, tag, step = same.iloc[0][["run", "tag", "step"]]
        fail(
            "`sample_f1` was right on {count} tables of the check's, but on the notebook's "
            "table it returned {value:.4f}, tag {tag!r} of "
            "run {run!r} at step {step}, which is not the training sample's 'f1_macro' at the "
            "step where run 'eval' has its highest 'f1_macro'",
            count=len(tables),
            value=yours,
            tag=tag,
            run=run,
            step=int(step),
        )
    best = test["value"].max()
    read = sample[np.isclose(sample["value"], yours, rtol=0, atol=VALUE_TOLERANCE)]
    step = int(read["step"][read["step"].isin(test.loc[test["value"] == best, "step"])].iloc[0])
    correct(
        "the test set's macro F1 was highest at step {step} ({best:.4f}), the training "
        "sample's was {value:.4f} there, and on {count} tables of the check's, where the two "
        "runs peak at different steps, your function read the right row too",
        step=step,
        best=best,
        value=yours,
        count=len(tables),
    )


# Exercise 3's own confusion matrices, drawn anew at each check: ten digits, a large diagonal,
# one largest count off it, at (true, predicted) whose mirror (predicted, true) is smaller but the
# second largest, in a row that is not the one with the lowest recall (nor is its mirror's), nor the
# largest row.
CONFUSION_MATRICES = 3


def confusion_matrix(rng=None) -> np.ndarray:
    """One of exercise 3's matrices, drawn with ``rng`` (a new generator when none is given)."""
    rng = np.random.default_rng() if rng is None else rng
    while True:
        matrix = rng.integers(0, 30, (NUM_CLASSES, NUM_CLASSES))
        np.fill_diagonal(matrix, rng.integers(900, 1100, NUM_CLASSES))
        true, predicted = rng.choice(NUM_CLASSES, 2, replace=False)
        matrix[true, predicted] = rng.integers(60, 80)
        matrix[predicted, true] = rng.integers(40, 55)
        recall = matrix.diagonal() / matrix.sum(axis=1)
        if recall.argmin() not in (true, predicted) and matrix.sum(axis=1).argmax() != true:
            return matrix


def _pair(answer, call: str) -> tuple:
    """``answer``, what ``call`` returned, as a pair of ints, or a one-line failure."""
    if isinstance(answer, list):
        fail(
            "`{call}` returned a list: return a tuple, `(true, predicted)`, as the exercise asks",
            call=call,
        )
    if (
        not isinstance(answer, tuple)
        or len(answer) != 2
        or not all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in answer)
    ):
        fail(
            "`{call}` should return a pair of two class numbers, `(true, predicted)`, for "
            "example `(4, 9)`, not {answer!r}",
            call=call,
            answer=answer if isinstance(answer, (tuple, numbers.Number)) else type(answer).__name__,
        )
    return tuple(int(x) for x in answer)


@reporting_learner_errors
def most_confused_pair(answer, matrix) -> None:
    """Notebook 06, exercise 3: ``most_confused(matrix)``, the (true, predicted) pair of
    different classes counted most often, tried on matrices of the check's, drawn anew, then
    on the notebook's ``matrix`` (whose result is the learner's own, reported, not judged: the
    answer cell could have rebound ``matrix``)."""
    require_answer(answer, "most_confused")
    if isinstance(answer, (tuple, list)):
        fail(
            "`most_confused` is a pair, but the exercise asks for a function of the confusion "
            "matrix, `def most_confused(matrix):`, which the check runs on matrices of its own "
            "as well as on `matrix`"
        )
    if not callable(answer):
        fail(
            "`most_confused` should be a function of the confusion matrix, "
            "`def most_confused(matrix):`, not a {kind}",
            kind=type(answer).__name__,
        )
    matrices = [confusion_matrix() for _ in range(CONFUSION_MATRICES)]
    calls.bound(answer, "most_confused", "most_confused(matrix)", matrices[0].copy())
    for own in matrices:
        true, predicted = _pair(answer(own.copy()), "most_confused(matrix)")
        size = own.shape[0]
        if not (0 <= true < size and 0 <= predicted < size):
            fail(
                "on a matrix of the check's, `most_confused(matrix)` returned "
                "`({true}, {predicted})`, but classes run from 0 to {last}",
                last=size - 1,
                true=true,
                predicted=predicted,
            )
        if true == predicted:
            fail(
                "on a matrix of the check's, `most_confused(matrix)` returned "
                "`({true}, {predicted})`, which is on the diagonal: those are the correct "
                "predictions; leave the diagonal out",
                true=true,
                predicted=predicted,
            )
        off = own.astype(float)
        np.fill_diagonal(off, -np.inf)
        top = off.max()
        if own[true, predicted] == top:
            continue
        if own[predicted, true] == top:
            fail(
                "on a matrix of the check's, `most_confused(matrix)` returned "
                "`({true}, {predicted})`, a {true} read as a {predicted}, but the most common "
                "mistake there is the other way round: the pair is (true digit, predicted "
                "digit), and the matrix's rows are the true digit, its columns the predicted "
                "one: check which is which",
                true=true,
                predicted=predicted,
            )
        fail(
            "on a matrix of the check's, `most_confused(matrix)` returned "
            "`({true}, {predicted})`, a {true} read as a {predicted}, which is not the most "
            "common mistake there: look for the largest count off the diagonal, over the whole "
            "matrix",
            true=true,
            predicted=predicted,
        )
    yours = _pair(answer(np.array(matrix, copy=True)), "most_confused(matrix)")
    correct(
        "on {count} confusion matrices of the check's your function found the largest count "
        "off the diagonal, as `(true, predicted)`; on `matrix` it returns `{pair}`, a {true} "
        "read as a {predicted}",
        count=len(matrices),
        pair=yours,
        true=yours[0],
        predicted=yours[1],
    )
