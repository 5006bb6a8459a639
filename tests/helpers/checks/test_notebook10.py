"""Every message of notebook 10's exercise checks, tried on the answers learners plausibly give.

Exercise 1 (macro precision with Keras metrics) and exercise 2 (a TF1 piecewise-constant rate as a
Keras schedule): each right answer passes, each wrong one fails with a sentence that names its
mistake and does not print the right value.
"""

import keras
import numpy as np
import pytest
import tensorflow as tf
from sklearn.metrics import precision_score

from helpers.checks import notebook10 as checks
from helpers.problems import CheckFailed
from tests.support.checks import assert_names_the_mistake, failure

RNG = np.random.default_rng(10)
LABELS = RNG.integers(0, 10, 400)
PROBABILITIES = RNG.dirichlet(np.ones(10), 400).astype(np.float32)
PROBABILITIES[np.arange(300), LABELS[:300]] += RNG.uniform(0.3, 2.0, 300).astype(np.float32)
PROBABILITIES /= PROBABILITIES.sum(axis=1, keepdims=True)
CLASSES = PROBABILITIES.argmax(axis=1)
ONE_HOT = tf.one_hot(LABELS, 10)
MACRO = precision_score(LABELS, CLASSES, average="macro")


def keras_result(metric, y_true=ONE_HOT, y_pred=PROBABILITIES):
    metric.update_state(y_true, y_pred)
    return metric.result()


def per_class(make):
    return [float(keras_result(make(k))) for k in range(10)]


# --- exercise 1: macro precision from keras.metrics ------------------------------------

RIGHT_1 = {
    "Precision(class_id=k, top_k=1), averaged": lambda: np.mean(
        per_class(lambda k: keras.metrics.Precision(class_id=k, top_k=1))
    ),
    "the same, as a tensor": lambda: tf.reduce_mean(
        per_class(lambda k: keras.metrics.Precision(class_id=k, top_k=1))
    ),
    "the same, a float32": lambda: np.float32(
        np.mean(per_class(lambda k: keras.metrics.Precision(class_id=k, top_k=1)))
    ),
    "one-hot predictions through Precision(class_id=k)": lambda: np.mean(
        [
            float(
                keras_result(keras.metrics.Precision(class_id=k), ONE_HOT, tf.one_hot(CLASSES, 10))
            )
            for k in range(10)
        ]
    ),
    "scikit-learn": lambda: precision_score(LABELS, CLASSES, average="macro"),
}


@pytest.mark.parametrize("make", RIGHT_1.values(), ids=RIGHT_1)
def test_exercise_1_right_answers_pass(make, capsys):
    checks.keras_macro_precision(make(), LABELS, PROBABILITIES)
    out = capsys.readouterr().out
    assert (
        out.startswith("Correct: ")
        and "scikit-learn's macro precision" in out
        and out.count("\n") == 1
    )


WRONG_1 = {
    "unanswered": (lambda: None, "`precision_macro` is still None"),
    "the metric object": (
        lambda: keras.metrics.Precision(top_k=1),
        "is a metric object: store the number",
    ),
    "ten per-class values": (
        lambda: per_class(lambda k: keras.metrics.Precision(class_id=k, top_k=1)),
        "holds 10 values, one per class",
    ),
    "a string": (lambda: "0.9", "should be a number, not a str"),
    "no valid data": (lambda: float("nan"), "got no valid data"),
    "Precision() on one-hot labels: threshold 0.5, all columns": (
        lambda: keras_result(keras.metrics.Precision()),
        "counts every probability above 0.5",
    ),
    "Precision(top_k=1): micro": (
        lambda: keras_result(keras.metrics.Precision(top_k=1)),
        "micro average, which equals the accuracy",
    ),
    "accuracy": (lambda: np.mean(CLASSES == LABELS), "micro average, which equals the accuracy"),
    "Precision(class_id=k) without top_k, averaged": (
        lambda: np.mean(per_class(lambda k: keras.metrics.Precision(class_id=k))),
        "passes 0.5 \\(the metrics' default threshold\\)",
    ),
    "Recall(class_id=k, top_k=1), averaged": (
        lambda: np.mean(per_class(lambda k: keras.metrics.Recall(class_id=k, top_k=1))),
        "the macro recall",
    ),
    "scikit-learn with labels and predictions swapped": (
        lambda: precision_score(CLASSES, LABELS, average="macro"),
        "the macro recall",
    ),
    "weighted": (
        lambda: precision_score(LABELS, CLASSES, average="weighted"),
        "the weighted average",
    ),
    "F1Score(average='macro')": (
        lambda: keras_result(keras.metrics.F1Score(average="macro")),
        "the macro F1",
    ),
    "one class only": (
        lambda: keras_result(keras.metrics.Precision(class_id=3, top_k=1)),
        "the precision of class 3 alone",
    ),
    "something else": (lambda: 0.1234, "is not the macro precision of these predictions"),
    "three numbers": (
        lambda: [0.1, 0.2, 0.3],
        r"should be one number, not an array of shape \(3,\)",
    ),
}


@pytest.mark.parametrize("make, message", WRONG_1.values(), ids=WRONG_1)
def test_exercise_1_wrong_answers_fail_and_say_why(make, message):
    with pytest.raises(CheckFailed, match=message) as raised:
        checks.keras_macro_precision(make(), LABELS, PROBABILITIES)
    assert f"{MACRO:.4f}" not in str(raised.value)  # the message never hands over the value


def test_exercise_1_the_readings_are_distinct():
    """The mistakes the check recognises give numbers apart from the right one and from each other
    on this data, so each wrong answer above gets its own message."""
    readings = [
        value
        for what, value in checks._readings(LABELS, PROBABILITIES).items()
        if "alone" not in what
    ]
    values = readings + [MACRO]
    gaps = np.abs(np.subtract.outer(values, values))[np.triu_indices(len(values), 1)]
    assert gaps.min() > 2 * checks.PRECISION_TOLERANCE, values


# --- exercise 2: the colleague's piecewise-constant rate as a Keras schedule ----------

BOUNDARIES, VALUES = [500, 1000], [2e-3, 1e-3, 5e-4]

RIGHT_2 = {
    "PiecewiseConstantDecay": keras.optimizers.schedules.PiecewiseConstantDecay(BOUNDARIES, VALUES),
    "a function with <=": lambda step: 2e-3 if step <= 500 else 1e-3 if step <= 1000 else 5e-4,
    "a function with np.searchsorted": lambda step: np.array(VALUES)[
        np.searchsorted(BOUNDARIES, step)
    ],
    "TensorFlow ops": lambda step: tf.where(step <= 500, 2e-3, tf.where(step <= 1000, 1e-3, 5e-4)),
}


@pytest.mark.parametrize("answer", RIGHT_2.values(), ids=RIGHT_2)
def test_exercise_2_right_answers_pass(answer, capsys):
    checks.piecewise_schedule(answer)
    assert capsys.readouterr().out.startswith("Correct: 0.002 up to step 500, then 0.001, 0.0005")


def _broken(step):
    raise TypeError("no")


WRONG_2 = {
    "unanswered": (None, "`schedule` is still None"),
    "a number": (2e-3, "should be a learning-rate schedule"),
    "the TF1 function itself (eager: takes no step)": (
        tf.compat.v1.train.piecewise_constant(tf.Variable(0, dtype=tf.int64), BOUNDARIES, VALUES),
        "calling `schedule\\(0\\)` failed with TypeError",
    ),
    "a failing function": (_broken, "calling `schedule\\(0\\)` failed with TypeError: no"),
    "boundaries exclusive (<)": (
        lambda step: 2e-3 if step < 500 else 1e-3 if step < 1000 else 5e-4,
        "at step 500 the rate has already changed to 0.001: piecewise_constant keeps",
    ),
    "staircase ExponentialDecay, halving every 500 steps": (
        keras.optimizers.schedules.ExponentialDecay(2e-3, 500, 0.5, staircase=True),
        "has already changed",
    ),
    "smooth ExponentialDecay": (
        keras.optimizers.schedules.ExponentialDecay(2e-3, 500, 0.5),
        "it should stay constant between two boundaries",
    ),
    "the course's own decay": (
        keras.optimizers.schedules.ExponentialDecay(2e-3, 1500, 0.1),
        "it should stay constant between two boundaries",
    ),
    "values in the wrong order": (
        keras.optimizers.schedules.PiecewiseConstantDecay(BOUNDARIES, VALUES[::-1]),
        "at step 0 the rate is 0.0005, not the first value",
    ),
    "a third boundary that keeps falling": (
        keras.optimizers.schedules.PiecewiseConstantDecay([500, 1000, 1500], VALUES + [2.5e-4]),
        "after the last boundary it should stay at the last value",
    ),
    "boundaries shifted": (
        keras.optimizers.schedules.PiecewiseConstantDecay([499, 999], VALUES),
        "at step 500 the rate has already changed",
    ),
}


@pytest.mark.parametrize("answer, message", WRONG_2.values(), ids=WRONG_2)
def test_exercise_2_wrong_answers_fail_and_say_why(answer, message):
    with pytest.raises(CheckFailed, match=message):
        checks.piecewise_schedule(answer)


def test_exercise_1_points_to_the_section_for_a_number_it_cannot_place():
    with pytest.raises(CheckFailed) as raised:
        checks.keras_macro_precision(0.1234, LABELS, PROBABILITIES)
    assert str(raised.value).endswith(
        "averaged (section 'Metrics: from `eval_metric_ops` to `keras.metrics`')"
    )


def test_the_tolerances_are_float32s_not_more():
    """1e-4 on the precision (Keras's float32 counts), 1e-5 relative on a rate: a number off by
    half as much again is wrong."""
    with pytest.raises(CheckFailed):
        checks.keras_macro_precision(MACRO + 1.5e-4, LABELS, PROBABILITIES)
    rates = RIGHT_2["a function with <="]
    with pytest.raises(CheckFailed, match="at step 0 the rate is"):
        checks.piecewise_schedule(lambda step: rates(step) * (1 + 1.5e-5))


def test_exercise_2_a_rate_that_changes_one_step_late_is_caught_right_after_the_boundary():
    def late(step):
        return 2e-3 if step <= 501 else 1e-3 if step <= 1001 else 5e-4

    with pytest.raises(CheckFailed, match=r"^at step 501 the rate is 0.002, not 0.001$"):
        checks.piecewise_schedule(late)


def test_exercise_1_a_class_never_predicted_has_precision_0(capsys):
    """As Keras's Precision counts it (0 true positives of 0 predictions), not 1."""
    labels = np.array([0, 1, 2, 2])
    probabilities = np.eye(3)[[0, 1, 1, 1]]  # class 2 is never predicted
    expected = precision_score(labels, [0, 1, 1, 1], average="macro", zero_division=0)
    checks.keras_macro_precision(expected, labels, probabilities)
    assert capsys.readouterr().out.startswith("Correct:")


@pytest.mark.parametrize("boundary, want", [(500, "0.002"), (1000, "0.001")])
def test_exercise_2_a_wrong_rate_on_a_boundary_is_named_as_it_is(boundary, want):
    """Neither "already changed" nor "after the last boundary": just the step and the rate."""
    rates = RIGHT_2["a function with <="]

    def spike(step):
        return 7e-3 if step == boundary else rates(step)

    with pytest.raises(CheckFailed, match=rf"^at step {boundary} the rate is 0.007, not {want}$"):
        checks.piecewise_schedule(spike)


def test_exercise_1_a_briefly_trained_model_with_digits_never_predicted():
    """Fast mode trains a few steps: digit 9 is never the most probable and some digits never pass
    0.5. Keras counts a precision of 0 where a class is never predicted; the check's readings must
    too, or these two mistakes are told they are just not the macro precision."""
    rng = np.random.default_rng(4)
    labels = rng.permutation(np.r_[np.arange(10), rng.integers(0, 9, 30)])
    logits = rng.normal(0, 1, (40, 10))
    logits[np.arange(40), labels] += 1.5
    logits[:, 9] -= 3
    probabilities = (np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)).astype(np.float32)
    assert (probabilities.argmax(axis=1) != 9).all()
    assert ((probabilities > 0.5).sum(axis=0) == 0).sum() >= 2  # 9 and another never pass 0.5
    one_hot = tf.one_hot(labels, 10)

    def precision(k, **kwargs):
        return keras_result(keras.metrics.Precision(class_id=k, **kwargs), one_hot, probabilities)

    for answer, words in [
        (np.mean([precision(k) for k in range(10)]), "passes 0.5 (the metrics' default threshold)"),
        (precision(9, top_k=1), "the precision of class 9 alone"),
    ]:
        assert_names_the_mistake(
            failure(checks.keras_macro_precision, answer, labels, probabilities), words
        )


def test_exercise_2_a_further_boundary_is_caught_at_twice_the_last_one():
    """A learner who adds a boundary after 1000 (at 1500) is told so at the first step checked past
    the last boundary, 2000, with the rate there: not at some far step such as 10000."""
    answer = WRONG_2["a third boundary that keeps falling"][0]
    assert failure(checks.piecewise_schedule, answer) == (
        "at step 2000 the rate is 0.00025: after the last boundary it should stay at the last "
        "value, 0.0005"
    )


def test_exercise_2_a_rate_that_changes_two_steps_early_is_named_at_its_first_wrong_step():
    """Boundaries moved down a step and compared with `<`: the rate changes at 499, and the
    message names 499, the step before the boundary, where the rate first differs."""

    def early(step):
        return 2e-3 if step < 499 else 1e-3 if step < 999 else 5e-4

    assert failure(checks.piecewise_schedule, early) == (
        "at step 499 the rate has already changed to 0.001: piecewise_constant keeps a value up to "
        "and including its boundary"
    )
