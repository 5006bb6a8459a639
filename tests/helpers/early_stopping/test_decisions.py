"""helpers.early_stopping and notebook 07's ``HookProbe``: the hook's decisions, the pre-flight
check, a real stop.

The decision tests write evaluation event files by hand (what an Estimator's evaluation writes) into
a temporary ``eval`` folder and ask the real ``stop_if_no_increase_hook`` /
``stop_if_no_decrease_hook`` through their ``after_run``, as the training loop does (notebook 07's
``HookProbe``). The last test runs ``train_and_evaluate`` with a tiny model that cannot learn
(learning rate 0), so the stop step is known exactly.
"""

import random
from operator import itemgetter

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import tensorflow as tf  # noqa: E402

from helpers import early_stopping, events, inputs, logs, metrics, models  # noqa: E402
from helpers.problems import WorkbookProblem  # noqa: E402
from tools.notebook_code import definitions  # noqa: E402
from tests.support.events import write_eval_events  # noqa: E402
from tests.support.models import linear_estimator  # noqa: E402

HookProbe, replay = itemgetter("HookProbe", "replay")(
    definitions("07_early_stopping.ipynb", ("HookProbe", "replay"))
)

increase = tf.estimator.experimental.stop_if_no_increase_hook
decrease = tf.estimator.experimental.stop_if_no_decrease_hook


def decisions(estimator, timeline, make_hook, metric="f1_macro"):
    """Write the timeline one evaluation at a time; after each, ask a fresh hook."""
    answers = {}
    seen = {}
    for step, value in sorted(timeline.items()):
        seen[step] = {metric: value}
        write_eval_events(estimator.eval_dir(), {step: {metric: value}})
        with HookProbe(make_hook()) as probe:
            answers[step] = probe.asks_to_stop(step)
    return answers


def every_step(hook_fn, estimator, metric, patience, **kwargs):
    return lambda: hook_fn(
        estimator, metric, patience, run_every_secs=None, run_every_steps=1, **kwargs
    )


# --- the hook's rule, on synthetic evaluation files ---------------------------------


def test_patience_is_counted_in_global_steps_not_evaluations(tmp_path):
    estimator = linear_estimator(tmp_path)
    # Two evaluations without an increase, but 300 steps after the best: stop.
    answers = decisions(
        estimator,
        {100: 0.90, 150: 0.80, 400: 0.85},
        every_step(increase, estimator, "f1_macro", 300),
    )
    assert answers == {100: False, 150: False, 400: True}


def test_many_evaluations_within_the_patience_do_not_stop(tmp_path):
    estimator = linear_estimator(tmp_path)
    timeline = {
        100: 0.9,
        120: 0.8,
        140: 0.8,
        160: 0.8,
        180: 0.8,
        200: 0.8,
        220: 0.8,
        240: 0.8,
        399: 0.8,
    }
    answers = decisions(estimator, timeline, every_step(increase, estimator, "f1_macro", 300))
    assert not any(answers.values())


def test_stops_exactly_when_steps_since_best_reach_the_patience(tmp_path):
    estimator = linear_estimator(tmp_path)
    answers = decisions(
        estimator,
        {100: 0.5, 200: 0.6, 300: 0.55, 400: 0.59, 500: 0.58},
        every_step(increase, estimator, "f1_macro", 300),
    )
    assert answers == {100: False, 200: False, 300: False, 400: False, 500: True}


def test_an_equal_value_is_not_an_increase(tmp_path):
    estimator = linear_estimator(tmp_path)
    # 0.6 again at 300 does not move the best from 200; at 500, 300 steps have passed.
    answers = decisions(
        estimator,
        {100: 0.5, 200: 0.6, 300: 0.6, 400: 0.6, 500: 0.6},
        every_step(increase, estimator, "f1_macro", 300),
    )
    assert answers[400] is False and answers[500] is True


def test_a_tiny_increase_counts_there_is_no_min_delta(tmp_path):
    estimator = linear_estimator(tmp_path)
    answers = decisions(
        estimator,
        {100: 0.5, 200: 0.6, 300: 0.6000001, 400: 0.6000002, 500: 0.6000003},
        every_step(increase, estimator, "f1_macro", 300),
    )
    assert not any(answers.values())


def test_evaluations_below_min_steps_are_ignored(tmp_path):
    estimator = linear_estimator(tmp_path)
    timeline = {100: 0.99, 200: 0.5, 300: 0.6, 400: 0.55, 500: 0.58, 600: 0.57}
    without = decisions(estimator, timeline, every_step(increase, estimator, "f1_macro", 300))
    assert without[400] is True  # the spike at 100 is the best: 300 steps later, stop
    (tmp_path / "second").mkdir()
    estimator = linear_estimator(tmp_path / "second")
    with_min = decisions(
        estimator, timeline, every_step(increase, estimator, "f1_macro", 300, min_steps=200)
    )
    # min_steps=200: the spike is ignored, the best is 0.6 at 300, so the stop comes at 600.
    assert with_min == {100: False, 200: False, 300: False, 400: False, 500: False, 600: True}


def test_decrease_hook_watches_the_loss_going_down(tmp_path):
    estimator = linear_estimator(tmp_path)
    timeline = {100: 0.30, 200: 0.20, 300: 0.25, 400: 0.20, 500: 0.21}
    answers = decisions(
        estimator, timeline, every_step(decrease, estimator, "loss", 300), metric="loss"
    )
    assert answers == {100: False, 200: False, 300: False, 400: False, 500: True}
    (tmp_path / "second").mkdir()
    estimator = linear_estimator(tmp_path / "second")
    rising = decisions(
        estimator, timeline, every_step(increase, estimator, "loss", 300), metric="loss"
    )
    assert rising == {100: False, 200: False, 300: False, 400: True, 500: True}  # best 0.30 at 100


def test_a_hook_reading_an_empty_folder_never_stops(tmp_path):
    estimator = linear_estimator(tmp_path)
    write_eval_events(estimator.eval_dir("val"), {100: {"f1_macro": 0.5}, 900: {"f1_macro": 0.4}})
    with HookProbe(every_step(increase, estimator, "f1_macro", 100)()) as probe:
        assert probe.asks_to_stop(1000) is False
    hook = increase(
        estimator,
        "f1_macro",
        100,
        eval_dir=estimator.eval_dir("val"),
        run_every_secs=None,
        run_every_steps=1,
    )
    with HookProbe(hook) as probe:
        assert probe.asks_to_stop(1000) is True


def test_a_missing_metric_raises_key_error_once_there_is_an_evaluation(tmp_path):
    estimator = linear_estimator(tmp_path)
    with HookProbe(every_step(increase, estimator, "f1", 100)()) as probe:
        assert probe.asks_to_stop(0) is False  # nothing evaluated yet: nothing to read
    write_eval_events(estimator.eval_dir(), {100: {"f1_macro": 0.5, "loss": 0.3}})
    with HookProbe(every_step(increase, estimator, "f1", 100)()) as probe:
        with pytest.raises(KeyError, match="'f1'"):
            probe.asks_to_stop(101)


def test_the_timer_decides_when_the_hook_looks(tmp_path):
    estimator = linear_estimator(tmp_path)
    write_eval_events(estimator.eval_dir(), {100: {"f1_macro": 0.5}})
    hook = increase(estimator, "f1_macro", 300, run_every_secs=None, run_every_steps=200)
    with HookProbe(hook) as probe:
        # the first call always looks: nothing to stop for yet
        assert probe.asks_to_stop(100) is False
        write_eval_events(estimator.eval_dir(), {400: {"f1_macro": 0.4}})
        assert probe.asks_to_stop(101) is False  # 1 step since it looked: it does not look
        # 200 steps since it looked: it reads step 400 and stops
        assert probe.asks_to_stop(300) is True
    (tmp_path / "second").mkdir()
    estimator = linear_estimator(tmp_path / "second")
    write_eval_events(estimator.eval_dir(), {100: {"f1_macro": 0.5}})
    hook = increase(estimator, "f1_macro", 300)  # the default: run_every_secs=60
    with HookProbe(hook) as probe:
        assert probe.asks_to_stop(100) is False
        write_eval_events(estimator.eval_dir(), {400: {"f1_macro": 0.4}})
        # within 60 s of its first look, however many steps
        assert probe.asks_to_stop(5000) is False


@pytest.mark.parametrize("case", range(12))
def test_best_step_and_stop_after_follow_the_real_hook(tmp_path, case):
    generator = random.Random(case)
    steps = sorted(generator.sample(range(50, 1000, 50), 7))
    timeline = {step: generator.choice([0.5, 0.6, 0.7]) for step in steps}
    patience = generator.choice([100, 150, 300])
    min_steps = generator.choice([0, 0, 200])
    higher = generator.random() < 0.5
    hook_fn = increase if higher else decrease
    estimator = linear_estimator(tmp_path)
    answers = decisions(
        estimator,
        timeline,
        every_step(hook_fn, estimator, "m", patience, min_steps=min_steps),
        metric="m",
    )
    first_stop = next((step for step, stops in answers.items() if stops), None)
    assert early_stopping.stop_after(timeline, patience, higher, min_steps) == first_stop


def test_best_step_keeps_the_earliest_of_equal_values():
    assert early_stopping.best_step({100: 0.5, 200: 0.7, 300: 0.7}) == (200, 0.7)
    assert early_stopping.best_step({100: 0.5, 200: 0.3, 300: 0.3}, higher_is_better=False) == (
        200,
        0.3,
    )
    assert early_stopping.best_step({100: 0.9, 200: 0.5}, min_steps=150) == (200, 0.5)
    assert early_stopping.best_step({100: 0.9}, min_steps=150) == (None, None)


def test_best_step_counts_an_evaluation_at_step_0_by_default():
    assert early_stopping.best_step({0: 0.9, 100: 0.5, 200: 0.7}) == (0, 0.9)
    assert early_stopping.stop_after({0: 0.9, 100: 0.5, 200: 0.7}, patience=200) == 200


def test_stop_after_watches_an_increasing_metric_by_default():
    timeline = {100: 0.5, 200: 0.6, 300: 0.55, 400: 0.58, 500: 0.59}
    # the best is 0.6 at 200: 300 steps later, stop (lower is better would stop at 400)
    assert early_stopping.stop_after(timeline, patience=300) == 500
    rising = {100: 0.5, 200: 0.6, 300: 0.7, 400: 0.8}
    assert early_stopping.stop_after(rising, patience=200) is None


def test_replay_lists_the_hooks_answer_per_evaluation(tmp_path):
    estimator = linear_estimator(tmp_path)
    table = replay(
        {100: 0.5, 200: 0.6, 300: 0.6, 400: 0.55, 500: 0.59},
        "f1_macro",
        every_step(increase, estimator, "f1_macro", 300),
        estimator.eval_dir(),
    )
    assert list(table["hook asks to stop"]) == [False, False, False, False, True]
    assert list(table["best step so far"]) == [100, 200, 200, 200, 200]
    assert list(table["steps since best"]) == [0, 0, 100, 200, 300]


# --- the pre-flight check -----------------------------------------------------------


def test_preflight_passes_and_lists_the_scalar_results(tmp_path):
    estimator = linear_estimator(tmp_path, metrics.course_metrics)
    spec = tf.estimator.EvalSpec(inputs.make_eval_input_fn(count=10))
    report = early_stopping.preflight(estimator, spec, "f1_macro")
    assert isinstance(report, early_stopping.PreflightReport)
    assert "auc_ovr_macro" in repr(report) and "f1_class_9" in repr(report)
    assert "f1_class_0, f1_class_1" in repr(report) and repr(report).startswith(
        "Pre-flight check passed: 'f1_macro'"
    )
    assert early_stopping.preflight(estimator, spec, "loss")  # Estimator adds the loss


def test_preflight_names_a_missing_metric_and_what_exists(tmp_path):
    estimator = linear_estimator(tmp_path, metrics.course_metrics)
    spec = tf.estimator.EvalSpec(inputs.make_eval_input_fn(count=10))
    with pytest.raises(early_stopping.EarlyStoppingProblem) as caught:
        early_stopping.preflight(estimator, spec, "f1")
    message = str(caught.value)
    assert isinstance(caught.value, WorkbookProblem)
    assert message.startswith(
        "metric_name='f1' is not among the evaluation results of this model (accuracy, "
    )
    assert (
        "so the hook would raise KeyError: 'f1' at its first check after an evaluation" in message
    )
    assert "loss" in message and "f1_class_9" in message


def test_preflight_suggests_the_close_name(tmp_path):
    estimator = linear_estimator(tmp_path)
    spec = tf.estimator.EvalSpec(inputs.make_eval_input_fn(count=10))
    with pytest.raises(early_stopping.EarlyStoppingProblem, match=r"did you mean 'accuracy'\?"):
        early_stopping.preflight(estimator, spec, "acuracy")


def test_preflight_refuses_an_array_metric(tmp_path):
    def per_class_f1(labels, predictions):
        return {"f1": metrics.precision_recall_f1(labels, predictions["classes"], 10)["f1"]}

    estimator = linear_estimator(tmp_path, per_class_f1)
    spec = tf.estimator.EvalSpec(inputs.make_eval_input_fn(count=10))
    with pytest.raises(
        early_stopping.EarlyStoppingProblem,
        match=r"metric_name='f1' is an array of shape \(10,\), .* tensor summary",
    ):
        early_stopping.preflight(estimator, spec, "f1")


def test_preflight_finds_a_hook_reading_the_wrong_folder(tmp_path):
    estimator = linear_estimator(tmp_path / "model")
    named = tf.estimator.EvalSpec(inputs.make_eval_input_fn(count=10), name="val")
    with pytest.raises(early_stopping.EarlyStoppingProblem) as caught:
        early_stopping.preflight(estimator, named, "accuracy")
    message = str(caught.value)
    assert message.startswith("The hook reads") and "eval_val" in message
    assert "pass eval_dir=estimator.eval_dir('val')" in message
    assert early_stopping.preflight(
        estimator, named, "accuracy", eval_dir=estimator.eval_dir("val")
    )
    unnamed = tf.estimator.EvalSpec(inputs.make_eval_input_fn(count=10))
    with pytest.raises(early_stopping.EarlyStoppingProblem, match=r"EvalSpec\(name=None\) writes"):
        early_stopping.preflight(estimator, unnamed, "accuracy", eval_dir=estimator.eval_dir("val"))


def test_preflight_reports_both_problems_at_once(tmp_path):
    estimator = linear_estimator(tmp_path)
    named = tf.estimator.EvalSpec(inputs.make_eval_input_fn(count=10), name="val")
    with pytest.raises(early_stopping.EarlyStoppingProblem) as caught:
        early_stopping.preflight(estimator, named, "f1")
    message = str(caught.value)
    assert "KeyError: 'f1'" in message and "never stop" in message


def test_preflight_wants_an_eval_spec(tmp_path):
    with pytest.raises(early_stopping.EarlyStoppingProblem, match="EvalSpec"):
        early_stopping.preflight(linear_estimator(tmp_path), "val", "accuracy")


# --- reading a run back ----------------------------------------------------------------


def test_captured_log_shows_some_lines_and_collects_all(capsys):
    logger = tf.get_logger()
    with logs.logger_level("INFO"):  # as course_setup.start() sets it in the notebooks
        with logs.captured_log(show=("Requesting",)) as lines:
            logger.info("Calling model_fn.")
            logger.info("Requesting early stopping at global step 75")
    assert lines == ["Calling model_fn.", "Requesting early stopping at global step 75"]
    assert "Calling model_fn." not in capsys.readouterr().err
    assert early_stopping.requested_at(lines) == 75
    assert early_stopping.requested_at(["nothing"]) is None


# --- a real run -------------------------------------------------------------------------


@pytest.mark.slow(reason="runs train_and_evaluate")
def test_train_and_evaluate_stops_before_max_steps(tmp_path):
    """A model that cannot learn (learning rate 0): its F1 never increases after the first
    evaluation.
    """

    def f1_only(labels, predictions):
        return {
            "f1_macro": metrics.precision_recall_f1(labels, predictions["classes"], 10)["f1_macro"]
        }

    every, patience, max_steps = 10, 20, 200
    config = tf.estimator.RunConfig(
        tf_random_seed=1,
        save_checkpoints_steps=every,
        keep_checkpoint_max=50,
        log_step_count_steps=1000,
    )
    params = {"filters": (2, 4), "dense_units": 8, "learning_rate": 0.0}
    estimator = tf.estimator.Estimator(
        models.cnn_model_fn, model_dir=str(tmp_path), params=params, config=config
    )
    estimator = tf.estimator.add_metrics(estimator, f1_only)
    hook = increase(estimator, "f1_macro", patience, run_every_secs=None, run_every_steps=every)
    eval_spec = tf.estimator.EvalSpec(
        inputs.make_eval_input_fn(count=100, batch_size=100), steps=None, throttle_secs=0
    )
    early_stopping.preflight(estimator, eval_spec, "f1_macro")
    with logs.logger_level("INFO"):  # the hook's "Requesting early stopping" line is an INFO record
        with logs.captured_log(show=()) as lines:
            result, exports = tf.estimator.train_and_evaluate(
                estimator,
                tf.estimator.TrainSpec(
                    inputs.make_train_input_fn(shuffle_buffer=100),
                    max_steps=max_steps,
                    hooks=[hook],
                ),
                eval_spec,
            )
    final = int(estimator.get_variable_value("global_step"))
    # First evaluation at 10 is the best; 20 steps later (at 30) the hook asks, training ends one
    # step later.
    assert early_stopping.requested_at(lines) == every + patience
    assert final == every + patience + 1 < max_steps
    assert result["global_step"] == final and exports == []
    evaluated = events.scalars_by_step(str(tmp_path), "eval")
    assert list(evaluated.index) == [10, 20, 30, final]
    assert evaluated["f1_macro"].nunique() == 1
    assert bool(np.asarray(tf.train.load_variable(str(tmp_path), "signal_early_stopping/STOP")))
