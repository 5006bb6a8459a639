"""Every message of notebook 07's exercise checks.

Exercise 1 is arithmetic on a timeline. Exercise 2's check reads a real
Estimator's model_dir: here a tiny model is trained for a few steps with
``train()`` and its evaluation files are written by hand, so each outcome
(stopped early, ran to max_steps with or without skipped evaluations, wrong
folder) is reached in a second or two.
"""

import pytest
import tensorflow as tf

from helpers import checks
from helpers.problems import CheckFailed
from tests.eval_fixtures import write_eval_events

# --- exercise 1: the hook's decision on a timeline ------------------------------


def test_exercise_1_correct(capsys):
    checks.hook_decision({"best_step": 1200, "stops_after": 1800})
    out = capsys.readouterr().out
    assert out.startswith("Correct: the best evaluation counted is at step 1200")
    assert "training ends at 1801" in out


def test_exercise_1_accepts_whole_floats(capsys):
    checks.hook_decision({"best_step": 1200.0, "stops_after": 1800})
    assert "Correct" in capsys.readouterr().out


@pytest.mark.parametrize("answer, message", [
    (None, "`decision` is still None"),
    ([1200, 1800], "should be a dict with the two keys 'best_step' and 'stops_after'"),
    ({"best_step": 1200}, "should be a dict with the two keys"),
    ({"best_step": "1200", "stops_after": 1800}, "decision['best_step'] should be a global step"),
    ({"best_step": 1200, "stops_after": 1800.5}, "decision['stops_after'] should be a global step"),
    ({"best_step": 600, "stops_after": 1200}, "is below min_steps=1000"),
    ({"best_step": 1600, "stops_after": None}, "an equal value is not an increase"),
    ({"best_step": 2000, "stops_after": None}, "an equal value is not an increase"),
    ({"best_step": 2200, "stops_after": None}, "the hook asks to stop before step 2200"),
    ({"best_step": 1300, "stops_after": 1800}, "there is no evaluation at step 1300"),
    ({"best_step": 1000, "stops_after": 1600}, "decision['best_step']: 1000 is not it"),
    ({"best_step": 1200, "stops_after": 1801}, "1801 is where training ends"),
    ({"best_step": 1200, "stops_after": 2000}, "reaching it is enough"),
    ({"best_step": 1200, "stops_after": None}, "the hook does stop"),
    ({"best_step": 1200, "stops_after": 1600}, "1600 is not it"),
])
def test_exercise_1_messages(answer, message):
    with pytest.raises(CheckFailed) as caught:
        checks.hook_decision(answer)
    assert message in str(caught.value)


def test_exercise_1_other_scenario(capsys):
    scenario = {"timeline": {100: 0.5, 200: 0.6, 300: 0.6, 400: 0.55}, "patience": 200, "min_steps": 0}
    checks.hook_decision({"best_step": 200, "stops_after": 400}, scenario=scenario)
    assert "training ends at 401" in capsys.readouterr().out


# --- exercise 2: the fixed run stopped early ---------------------------------------

EVERY, MAX_STEPS = 25, 200


def tiny_model_fn(features, labels, mode):
    weight = tf.compat.v1.get_variable("w", initializer=1.0)
    loss = tf.reduce_mean((features["x"] * weight - labels) ** 2)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def tiny_input_fn():
    return tf.data.Dataset.from_tensors(({"x": [1.0]}, [2.0])).repeat()


def run_like(model_dir, final_step, evaluated_at, eval_name="holdout"):
    """An Estimator trained to ``final_step`` whose evaluations are at ``evaluated_at``."""
    estimator = tf.estimator.Estimator(tiny_model_fn, model_dir=str(model_dir),
                                       config=tf.estimator.RunConfig(log_step_count_steps=1000))
    estimator.train(tiny_input_fn, max_steps=final_step)
    write_eval_events(estimator.eval_dir(eval_name),
                      {step: {"f1_macro": 0.5, "loss": 1.0} for step in evaluated_at})
    return estimator


def check(estimator, broken="elsewhere"):
    checks.stopped_early(estimator, broken_model_dir=broken, max_steps=MAX_STEPS, eval_name="holdout", every=EVERY)


def test_exercise_2_correct(tmp_path, capsys):
    check(run_like(tmp_path, 76, [25, 50, 75, 76]))
    out = capsys.readouterr().out
    assert out.startswith("Correct: training stopped at step 76, before max_steps=200")
    assert "into eval_holdout/" in out


def test_exercise_2_blank():
    with pytest.raises(CheckFailed, match="`fixed_estimator` is still None"):
        check(None)


def test_exercise_2_not_an_estimator():
    with pytest.raises(CheckFailed, match="should be a tf.estimator.Estimator, not str"):
        check("model")


def test_exercise_2_same_model_dir(tmp_path):
    estimator = tf.estimator.Estimator(tiny_model_fn, model_dir=str(tmp_path))
    with pytest.raises(CheckFailed, match="uses the broken run's model_dir"):
        check(estimator, broken=tmp_path)


def test_exercise_2_not_run(tmp_path):
    with pytest.raises(CheckFailed, match="has no checkpoint yet"):
        check(tf.estimator.Estimator(tiny_model_fn, model_dir=str(tmp_path)))


def test_exercise_2_evaluations_elsewhere(tmp_path):
    with pytest.raises(CheckFailed, match=r"no evaluations in eval_holdout/ \(found: eval\)"):
        check(run_like(tmp_path, 76, [25, 50, 75, 76], eval_name=None))


def test_exercise_2_throttled(tmp_path):
    with pytest.raises(CheckFailed, match="evaluations were skipped .* by default train_and_evaluate evaluates at most every 10 minutes "
                       "\\(section 'Trap 4: evaluations skipped by `throttle_secs`'\\)"):
        check(run_like(tmp_path, MAX_STEPS, [25, MAX_STEPS]))


def test_exercise_2_hook_never_looked(tmp_path):
    with pytest.raises(CheckFailed, match=r"written to eval_holdout/ every 25 steps: the hook never saw them, because it reads another "
                       r"folder or looks too rarely \(sections 'Trap 1: .*' and 'Trap 3: the 60-second timer'\)"):
        check(run_like(tmp_path, MAX_STEPS, list(range(25, MAX_STEPS + 1, 25))))


def test_exercise_2_stopped_but_skipped(tmp_path):
    with pytest.raises(CheckFailed, match="training stopped at step 76, but evaluations were skipped"):
        check(run_like(tmp_path, 76, [25, 76]))
