"""Exercise checks of notebook 10 (migrating to Keras)."""

from __future__ import annotations

import numpy as np

from ..problems import CheckFailed
from .common import correct, require_answer

__all__ = ["keras_macro_f1", "estimator_decay_schedule"]

F1_TOLERANCE = 1e-4  # exercise 1: Keras's F1Score and scikit-learn's f1_score differ only by float32 rounding
RATE_RELATIVE_TOLERANCE = 1e-5  # exercise 2: float32 schedules against the float64 formula
SCHEDULE_STEPS = (0, 1, 100, 749, 750, 1499, 1500, 3000)  # exercise 2: where the schedules are compared


def _f1(labels, classes, average: str) -> float:
    from sklearn.metrics import f1_score

    return float(f1_score(labels, classes, average=average, labels=list(range(10)), zero_division=0))


def keras_macro_f1(answer, labels, probabilities) -> None:
    """Notebook 10, exercise 1: ``F1Score(average="macro")`` on one-hot labels and probabilities."""
    require_answer(answer, "f1_macro")
    try:
        value = float(np.asarray(answer))
    except (TypeError, ValueError):
        raise CheckFailed(f"`f1_macro` should be a number (the metric's `result()`), "
                          f"not a {type(answer).__name__}") from None
    if not np.isfinite(value):
        raise CheckFailed(f"`f1_macro` is {value}: the metric got no valid data")
    labels, classes = np.asarray(labels), np.asarray(probabilities).argmax(axis=1)
    expected = _f1(labels, classes, "macro")
    if abs(value - expected) <= F1_TOLERANCE:
        return correct(f"F1Score(average='macro') gives {value:.4f}, scikit-learn's macro F1 of the same "
                       f"predictions is {expected:.4f}")
    for other in ("micro", "weighted"):
        if abs(value - _f1(labels, classes, other)) <= F1_TOLERANCE:
            raise CheckFailed(f"{value:.4f} is the {other} average of F1, not the macro one: create the metric "
                              "with average='macro'")
    raise CheckFailed(f"{value:.4f} is not the macro F1 of these predictions ({expected:.4f}): F1Score compares "
                      "the labels and the probabilities column by column, so both must have one column per class "
                      "(section 'Metrics: from `eval_metric_ops` to `keras.metrics`')")


def _close(got: list[float], expected: list[float]) -> bool:
    return all(abs(g - e) <= RATE_RELATIVE_TOLERANCE * e for g, e in zip(got, expected))


def estimator_decay_schedule(answer, initial_rate: float = 2e-3, decay_steps: int = 1500) -> None:
    """Notebook 10, exercise 2: a Keras schedule equal to ``tf.compat.v1.train.exponential_decay``."""
    require_answer(answer, "schedule")
    if not callable(answer):
        raise CheckFailed(f"`schedule` should be a learning-rate schedule (called with a step), "
                          f"not a {type(answer).__name__}")
    got = []
    for step in SCHEDULE_STEPS:
        try:
            got.append(float(np.asarray(answer(step))))
        except Exception as error:  # noqa: BLE001 - report any failure in one sentence
            raise CheckFailed(f"calling `schedule({step})` failed with {type(error).__name__}: {error}") from None
    expected = [initial_rate * 0.1 ** (step / decay_steps) for step in SCHEDULE_STEPS]
    at_decay = SCHEDULE_STEPS.index(1500)
    if _close(got, expected):
        return correct(f"the rate goes from {got[0]:.2e} at step 0 to {got[at_decay]:.2e} at step {decay_steps}, "
                       "smoothly, as the Estimator's decay")
    if _close(got, [initial_rate * 0.1 ** (step // decay_steps) for step in SCHEDULE_STEPS]):
        raise CheckFailed(f"the rate stays {got[0]:.2e} until step {decay_steps} and then drops: that is "
                          "staircase=True; the Estimator's decay is smooth (staircase=False)")
    if abs(got[0] - initial_rate) > RATE_RELATIVE_TOLERANCE * initial_rate:
        raise CheckFailed(f"at step 0 the rate is {got[0]:.3g}, not the initial rate {initial_rate:g}")
    raise CheckFailed(f"at step {decay_steps} the rate is {got[at_decay]:.3g}, not {expected[at_decay]:.3g}: it "
                      f"should shrink tenfold every {decay_steps} steps (decay_steps={decay_steps}, decay_rate=0.1)")
