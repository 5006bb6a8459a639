"""Every message of notebook 10's exercise checks."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from helpers import checks
from helpers.problems import CheckFailed


@pytest.fixture(scope="module")
def predictions():
    rng = np.random.default_rng(10)
    labels = rng.integers(0, 10, 400)
    probabilities = rng.dirichlet(np.ones(10), 400).astype(np.float32)
    probabilities[np.arange(300), labels[:300]] += 2.0
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    return labels, probabilities


def keras_f1(labels, probabilities, average):
    metric = keras.metrics.F1Score(average=average)
    metric.update_state(tf.one_hot(labels, 10), probabilities)
    return metric.result()


# --- exercise 1: F1Score with one-hot labels ------------------------------------


def test_exercise_1_correct(predictions, capsys):
    checks.keras_macro_f1(keras_f1(*predictions, "macro"), *predictions)
    out = capsys.readouterr().out
    assert out.startswith("Correct: F1Score(average='macro') gives") and out.count("\n") == 1


def test_exercise_1_unanswered(predictions):
    with pytest.raises(CheckFailed, match="`f1_macro` is still None"):
        checks.keras_macro_f1(None, *predictions)


@pytest.mark.parametrize("average", ["micro", "weighted"])
def test_exercise_1_other_average(predictions, average):
    with pytest.raises(CheckFailed, match=f"is the {average} average of F1, not the macro one"):
        checks.keras_macro_f1(keras_f1(*predictions, average), *predictions)


def test_exercise_1_wrong_value(predictions):
    with pytest.raises(CheckFailed, match="is not the macro F1 of these predictions.*both must have one column per class \\(section"):
        checks.keras_macro_f1(0.1234, *predictions)


def test_exercise_1_not_a_number(predictions):
    with pytest.raises(CheckFailed, match="should be a number"):
        checks.keras_macro_f1(keras.metrics.F1Score(average="macro"), *predictions)
    with pytest.raises(CheckFailed, match="got no valid data"):
        checks.keras_macro_f1(float("nan"), *predictions)


# --- exercise 2: the Estimator's decay as a Keras schedule ------------------------


def test_exercise_2_correct_schedule_and_function(capsys):
    checks.estimator_decay_schedule(keras.optimizers.schedules.ExponentialDecay(2e-3, 1500, 0.1))
    checks.estimator_decay_schedule(lambda step: 2e-3 * 0.1 ** (step / 1500))
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all(line.startswith("Correct: the rate goes from 2.00e-03") for line in lines)


def test_exercise_2_unanswered():
    with pytest.raises(CheckFailed, match="`schedule` is still None"):
        checks.estimator_decay_schedule(None)


def test_exercise_2_not_callable():
    with pytest.raises(CheckFailed, match="should be a learning-rate schedule"):
        checks.estimator_decay_schedule(2e-3)


def test_exercise_2_staircase():
    with pytest.raises(CheckFailed, match="staircase=True"):
        checks.estimator_decay_schedule(keras.optimizers.schedules.ExponentialDecay(2e-3, 1500, 0.1, staircase=True))


def test_exercise_2_wrong_initial_rate():
    with pytest.raises(CheckFailed, match="at step 0 the rate is 0.001"):
        checks.estimator_decay_schedule(keras.optimizers.schedules.ExponentialDecay(1e-3, 1500, 0.1))


def test_exercise_2_wrong_decay():
    with pytest.raises(CheckFailed, match="at step 1500 the rate is 0.001, not 0.0002"):
        checks.estimator_decay_schedule(keras.optimizers.schedules.ExponentialDecay(2e-3, 1500, 0.5))


def test_exercise_2_failing_call():
    def broken(step):
        raise TypeError("no")

    with pytest.raises(CheckFailed, match=r"calling `schedule\(0\)` failed with TypeError: no"):
        checks.estimator_decay_schedule(broken)
