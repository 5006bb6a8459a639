"""Exercise checks of notebook 10 (migrating to Keras)."""

from __future__ import annotations

import numpy as np

from ..problems import CheckFailed
from .common import correct, reporting_learner_errors, require_answer

__all__ = ["keras_macro_precision", "piecewise_schedule"]

PRECISION_TOLERANCE = 1e-4  # exercise 1: Keras's float32 counts against scikit-learn's
# exercise 2: float32 schedules against TensorFlow's own piecewise_constant
RATE_RELATIVE_TOLERANCE = 1e-5
EXERCISE_2 = {"boundaries": (500, 1000), "values": (2e-3, 1e-3, 5e-4)}  # the colleague's schedule
SECTION = "section 'Metrics: from `eval_metric_ops` to `keras.metrics`'"


def _per_class_precision(one_hot, predicted) -> np.ndarray:
    """Precision of each class, ``predicted`` a 0/1 matrix like ``one_hot`` (0 where a class is
    never predicted)."""
    true_positives = (predicted * one_hot).sum(axis=0)
    return np.divide(
        true_positives,
        predicted.sum(axis=0),
        out=np.zeros(one_hot.shape[1]),
        where=predicted.sum(axis=0) > 0,
    )


def _readings(labels, probabilities) -> dict:
    """What a learner's number may be instead of the macro precision, each with what it says about
    the mistake."""
    from sklearn.metrics import f1_score, precision_score, recall_score

    classes = probabilities.argmax(axis=1)
    one_hot = np.eye(probabilities.shape[1])[labels]
    kept = dict(labels=list(range(probabilities.shape[1])), zero_division=0)
    above_half = (probabilities > 0.5).astype(float)
    flat_precision = (above_half * one_hot).sum() / max(above_half.sum(), 1)
    micro = precision_score(labels, classes, average="micro", **kept)
    above_half_macro = _per_class_precision(one_hot, above_half).mean()
    macro_recall = recall_score(labels, classes, average="macro", **kept)
    weighted = precision_score(labels, classes, average="weighted", **kept)
    macro_f1 = f1_score(labels, classes, average="macro", **kept)
    readings = {
        (
            "the precision of all classes counted together (the micro average, which equals the "
            "accuracy when each digit has one label): compute one precision per class, then "
            "average them"
        ): micro,
        (
            "a precision that counts every probability above 0.5 as a prediction, over all ten "
            "columns at once: a digit is predicted as its most probable class, and the macro "
            "average is taken over the classes"
        ): flat_precision,
        (
            "the average of per-class precisions that count a class as predicted when its "
            "probability passes 0.5 (the metrics' default threshold), not when it is the largest "
            "of the ten"
        ): above_half_macro,
        (
            "the macro recall: precision divides by the times a class was predicted, recall by "
            "the times it was the true class"
        ): macro_recall,
        (
            "the weighted average of the per-class precisions: the macro average gives every "
            "class the same weight"
        ): weighted,
        "the macro F1, not the precision": macro_f1,
    }
    for k, value in enumerate(precision_score(labels, classes, average=None, **kept)):
        readings[f"the precision of class {k} alone: the macro precision averages all ten"] = value
    return readings


@reporting_learner_errors
def keras_macro_precision(answer, labels, probabilities) -> None:
    """Notebook 10, exercise 1: the macro precision of ``probabilities`` on integer ``labels``, with
    Keras."""
    require_answer(answer, "precision_macro")
    from sklearn.metrics import precision_score

    if hasattr(answer, "update_state") and hasattr(answer, "result"):
        raise CheckFailed("`precision_macro` is a metric object: store the number, its `result()`")
    try:
        if isinstance(answer, (str, bytes)):
            raise TypeError(answer)
        array = np.asarray(answer, dtype=np.float64)
    except (TypeError, ValueError):
        raise CheckFailed(
            f"`precision_macro` should be a number, not a {type(answer).__name__}"
        ) from None
    labels, probabilities = np.asarray(labels), np.asarray(probabilities, dtype=np.float64)
    if array.size == probabilities.shape[1]:
        raise CheckFailed(
            f"`precision_macro` holds {array.size} values, one per class: the macro "
            "precision is one number, their average"
        )
    if array.size != 1:
        raise CheckFailed(
            f"`precision_macro` should be one number, not an array of shape {array.shape}"
        )
    value = float(array.reshape(()))
    if not np.isfinite(value):
        raise CheckFailed(f"`precision_macro` is {value}: the metric got no valid data")
    classes = probabilities.argmax(axis=1)
    expected = precision_score(
        labels,
        classes,
        average="macro",
        labels=list(range(probabilities.shape[1])),
        zero_division=0,
    )
    if abs(value - expected) <= PRECISION_TOLERANCE:
        return correct(
            f"{value:.4f}, scikit-learn's macro precision of the same predictions is {expected:.4f}"
        )
    for what, reading in _readings(labels, probabilities).items():
        if abs(value - reading) <= PRECISION_TOLERANCE:
            raise CheckFailed(f"{value:.4f} is {what}")
    raise CheckFailed(
        f"{value:.4f} is not the macro precision of these predictions: one precision "
        "per class, where a digit counts for the class with its largest "
        f"probability, averaged ({SECTION})"
    )


def _piecewise(step: int, boundaries, values) -> float:
    """What ``tf.compat.v1.train.piecewise_constant`` gives at ``step`` (run by TensorFlow)."""
    import tensorflow as tf

    rate = tf.compat.v1.train.piecewise_constant(
        tf.constant(step, tf.int64), list(boundaries), list(values)
    )
    return float(rate() if callable(rate) else rate)


@reporting_learner_errors
def piecewise_schedule(
    answer, boundaries=EXERCISE_2["boundaries"], values=EXERCISE_2["values"]
) -> None:
    """Notebook 10, exercise 2: a Keras schedule equal to tf.compat.v1.train.piecewise_constant."""
    require_answer(answer, "schedule")
    if not callable(answer):
        raise CheckFailed(
            f"`schedule` should be a learning-rate schedule (called with a step), "
            f"not a {type(answer).__name__}"
        )
    near_boundaries = [b + d for b in boundaries for d in (-1, 0, 1)]
    steps = sorted({0, 1, *near_boundaries, 2 * boundaries[-1], 10 * boundaries[-1]})
    got = {}
    for step in steps:
        try:
            got[step] = float(np.asarray(answer(step)))
        except Exception as error:  # noqa: BLE001 - report any failure in one sentence
            raise CheckFailed(
                f"calling `schedule({step})` failed with {type(error).__name__}: {error}"
            ) from None
    want = {step: _piecewise(step, boundaries, values) for step in steps}

    def same(a, b):
        return abs(a - b) <= RATE_RELATIVE_TOLERANCE * abs(b)

    wrong = [step for step in steps if not same(got[step], want[step])]
    if not wrong:
        return correct(
            f"{got[0]:g} up to step {boundaries[0]}, then "
            f"{', '.join(f'{v:g}' for v in values[1:])}: the same rate as "
            "piecewise_constant at every step checked"
        )
    step = wrong[0]
    if not same(got[0], values[0]):
        raise CheckFailed(f"at step 0 the rate is {got[0]:.3g}, not the first value, {values[0]:g}")
    if not same(got[1], got[0]):
        raise CheckFailed(
            f"the rate moves from {got[0]:.3g} at step 0 to {got[1]:.3g} at step 1: "
            "it should stay constant between two boundaries"
        )
    if any(same(got[b], want[b + 1]) and not same(got[b], want[b]) for b in boundaries):
        raise CheckFailed(
            f"at step {step} the rate has already changed to {got[step]:.3g}: "
            "piecewise_constant keeps a value up to and including its boundary"
        )
    if step > boundaries[-1]:
        raise CheckFailed(
            f"at step {step} the rate is {got[step]:.3g}: after the last boundary it "
            f"should stay at the last value, {values[-1]:g}"
        )
    raise CheckFailed(f"at step {step} the rate is {got[step]:.3g}, not {want[step]:g}")
