"""Every message of notebook 07's exercise checks.

Exercise 1 is arithmetic on a timeline. Exercise 2's check runs a copy of the
learner's hook (its looks, on evaluations and a clock of its own), trains it and
the exercise's hook in short trainings of its own on the exercise's run and on
two runs the notebook did not show, builds the model's evaluation (the results
it writes, and what a checkpoint gives on the held-out examples), and reads a
real Estimator's model_dir: here the one-variable model, with made-up metrics
under the exercise's keys, is trained for a few steps with ``train()`` (a
checkpoint every EVERY steps, as in the exercise) and its evaluation files are
written by hand, with the results its checkpoint gives on the data the
evaluation fed (the held-out examples, or the training input), so each outcome
(stopped where the hook stops, ran to max_steps with or without skipped
evaluations, wrong folder, wrong data, trained twice) is reached in a few
seconds. Each plausible wrong answer is one case of ``WRONG_HOOKS`` or one test
below.
"""

from tests import ROOT

import inspect
import itertools
import json
import os
import re
from pathlib import Path

import pytest
import tensorflow as tf

from helpers.checks import notebook07 as checks
from helpers.paths import display_path
from helpers.problems import CheckFailed
from tests.support.banks import bank, by_name, entry
from tests.support.checks import assert_names_the_mistake, failure
from tests.support.events import write_eval_events
from tests.support.models import tiny_estimator, tiny_input_fn, tiny_model_fn

# The kinds that do not apply, argued (tests/support/banks.py).
NOT_APPLICABLE = {
    1: {
        "wrong unit": "global steps: counts, with no other unit",
        "copy of a nearby cell": (
            "the cell that would fit, replay, gives the right answer (the prompt keeps it for "
            "afterwards)"
        ),
        "forbidden API": (
            "a value: the check cannot see how it was found (the prompt asks to work it out "
            "without running)"
        ),
        "right on the notebook's data, wrong in general": (
            "a value: the check sees no code it could run on other data"
        ),
    },
    2: {},
}


# --- exercise 1: the hook's decision on a timeline ------------------------------


def test_exercise_1_correct(capsys):
    checks.hook_decision({"best_step": 1200, "stops_after": 1800})
    out = capsys.readouterr().out
    assert out.startswith("Correct: the best evaluation counted is at step 1200")
    assert "at step 1800 it is 600 steps old, so the hook asks to stop there" in out
    assert "training ends at step 1801" in out


def test_exercise_1_judges_the_table_the_learner_reads():
    """The check's timeline and hook settings are the ones the exercise shows (student copy)."""
    cells = json.loads(
        (ROOT / "notebooks" / "student" / "07_early_stopping.ipynb").read_text(encoding="utf-8")
    )["cells"]
    text = next(
        "".join(cell["source"])
        for cell in cells
        if cell["cell_type"] == "markdown" and "**Exercise 1.**" in "".join(cell["source"])
    )
    row = {
        match[1]: match[2].split("|")
        for match in re.finditer(r"^\| (\w+) \|(.*)\|$", text, re.MULTILINE)
    }
    shown = dict(zip(map(int, row["step"]), map(float, row["f1_macro"])))
    exercise = checks.EXERCISE_1
    assert shown == exercise["timeline"]
    assert (
        f"max_steps_without_increase={exercise['patience']}, min_steps={exercise['min_steps']}"
        in text
    )


@bank(1, "right, written otherwise")
def test_exercise_1_accepts_whole_floats(capsys):
    checks.hook_decision({"best_step": 1200.0, "stops_after": 1800})
    assert "Correct" in capsys.readouterr().out


@pytest.mark.parametrize(
    "answer, message",
    [
        (None, "`decision` is still None"),
        ([1200, 1800], "should be a dict with the two keys 'best_step' and 'stops_after'"),
        ({"best_step": 1200}, "should be a dict with the two keys"),
        (
            {"best_step": "1200", "stops_after": 1800},
            "decision['best_step'] should be a global step",
        ),
        (
            {"best_step": 1200, "stops_after": 1800.5},
            "decision['stops_after'] should be a global step",
        ),
        ({"best_step": 600, "stops_after": 1200}, "an evaluation below min_steps=1000"),
        ({"best_step": 1600, "stops_after": None}, "an equal value is not an increase"),
        ({"best_step": 2000, "stops_after": None}, "an equal value is not an increase"),
        ({"best_step": 2200, "stops_after": None}, "the hook asks to stop before step 2200"),
        ({"best_step": 1300, "stops_after": 1800}, "there is no evaluation at step 1300"),
        pytest.param(
            {"best_step": 1000, "stops_after": 1600},
            "decision['best_step'] is 1000, which is not the hook's best",
            marks=bank(1, "right shape, wrong content"),
        ),
        # the step it stops at, seen but not the best
        (
            {"best_step": 1800, "stops_after": 1800},
            "decision['best_step'] is 1800, which is not the hook's best",
        ),
        pytest.param(
            {"best_step": 1200, "stops_after": 1801},
            "is 1801, the step where training ends",
            marks=bank(1, "off by one"),
        ),
        ({"best_step": 1200, "stops_after": 2000}, "reaching it is enough"),
        ({"best_step": 1200, "stops_after": None}, "the hook does stop"),
        ({"best_step": 1200, "stops_after": 1600}, "is 1600, which is not where the hook stops"),
    ],
)
def test_exercise_1_messages(answer, message):
    right = ("1200", "1800")  # unless the answer holds it
    assert_names_the_mistake(
        failure(checks.hook_decision, answer),
        message,
        tuple(number for number in right if number not in repr(answer)),
    )


@pytest.mark.parametrize(
    "stop",
    [pytest.param(1800, marks=bank(1, "hard-coded from an output above")), 1801],
    ids=["requested at 1800", "ended at 1801"],
)
def test_exercise_1_the_sections_run_copied_is_named(stop):
    """{'best_step': 1400, 'stops_after': 1800}, the run printed above ('best validation F1 … at
    step 1400', 'Requesting early stopping at global step 1800'), not the exercise's table: the
    message says where the numbers come from, not only that 1400 is not the hook's best."""
    message = failure(checks.hook_decision, {"best_step": 1400, "stops_after": stop})
    assert message == (
        "`decision` holds the best step and the stop of the run trained in the sections above, "
        f"1400 and {stop}: the exercise asks about the table in its own prompt, with "
        "max_steps_without_increase=600 and min_steps=1000; work both steps out from that table"
    )
    assert "1200" not in message


def test_exercise_1_the_sections_run_is_what_the_notebook_prints_and_not_the_answer(capsys):
    cells = json.loads(
        (ROOT / "notebooks" / "07_early_stopping.ipynb").read_text(encoding="utf-8")
    )["cells"]
    printed = "".join(
        "".join(output.get("text", ""))
        for cell in cells
        if cell["cell_type"] == "code"
        for output in cell.get("outputs", [])
    )
    best, (requested, ended) = checks.SECTIONS_RUN.values()
    assert re.search(rf"best validation F1 [\d.]+ at step {best};", printed)
    assert f"Requesting early stopping at global step {requested}\n" in printed
    assert f"training ended at step {ended} of max_steps" in printed
    # the exercise's own answer is another: the check never refuses it as copied
    checks.hook_decision({"best_step": 1200, "stops_after": 1800})
    assert capsys.readouterr().out.startswith("Correct:")


def test_exercise_1_other_scenario(capsys):
    checks.judge_decision(
        {"best_step": 200, "stops_after": 400},
        timeline={100: 0.5, 200: 0.6, 300: 0.6, 400: 0.55},
        patience=200,
        min_steps=0,
    )
    assert "training ends at step 401" in capsys.readouterr().out


def test_exercise_1_never_stops_where_ties_would_keep_it_going():
    """Counting the tie at 300 as an increase, the hook would stop at 500, not never."""
    message = failure(
        checks.judge_decision,
        {"best_step": 200, "stops_after": None},
        timeline={100: 0.5, 200: 0.6, 300: 0.6, 400: 0.55, 500: 0.55},
        patience=200,
        min_steps=0,
    )
    assert_names_the_mistake(
        message, "but the hook does stop: count the steps since the best", ("400",)
    )


# A timeline on which the hook never stops: no evaluation is 300 steps after the best (200).
NEVER = {"timeline": {100: 0.5, 200: 0.6, 300: 0.55, 400: 0.58}, "patience": 300, "min_steps": 0}


def test_exercise_1_a_hook_that_never_stops_is_judged_not_crashed(capsys):
    """stop_after gives None: the right answer is None, and the check says so (no TypeError)."""
    checks.judge_decision({"best_step": 200, "stops_after": None}, **NEVER)
    out = capsys.readouterr().out
    assert out.startswith("Correct: the best evaluation counted is at step 200"), out
    assert "so the hook never asks to stop and training runs to max_steps" in out


@pytest.mark.parametrize(
    "answer, words",
    [
        (
            {"best_step": 200, "stops_after": 400},
            "decision['stops_after'] is 400, but no evaluation is 300 steps after the best one, "
            "so the hook never asks to stop",
        ),
        ({"best_step": 200, "stops_after": 401}, "decision['stops_after'] is 401, but no"),
        ({"best_step": 400, "stops_after": None}, "decision['best_step'] is 400, which is not"),
    ],
)
def test_exercise_1_a_hook_that_never_stops_names_each_mistake(answer, words):
    assert_names_the_mistake(failure(checks.judge_decision, answer, **NEVER), words)


def test_exercise_1_has_no_parameter_for_tests():
    """The learner's check takes the answer only; other timelines go to judge_decision."""
    assert list(inspect.signature(checks.hook_decision).parameters) == ["answer"]


# --- exercise 2: the fixed hook and the run it stopped --------------------------------

EVERY, PATIENCE, MAX_STEPS = 20, 20, 100
STOP = EVERY + PATIENCE + 1  # where a working hook stops the model that cannot learn
increase = tf.estimator.experimental.stop_if_no_increase_hook
decrease = tf.estimator.experimental.stop_if_no_decrease_hook
# The results of the exercise's model: the broken run's metric_fn gives 'accuracy' and the macro
# precision; Estimator adds 'loss'.
EXERCISE_METRICS = ("accuracy", "precision_")


def exercise_model_fn(features, labels, mode, params):
    """The one-variable model, evaluated with made-up metrics under ``params["metrics"]`` (means
    of its prediction, so that other data gives other values), as the exercise's model is with
    its metric_fn."""
    spec = tiny_model_fn(features, labels, mode)
    if mode != tf.estimator.ModeKeys.EVAL:
        return spec
    weight = tf.compat.v1.get_default_graph().get_tensor_by_name("monitor/weight:0")
    prediction = features["x"] * weight
    ops = {
        name: tf.compat.v1.metrics.mean(prediction * (index + 1))
        for index, name in enumerate(params["metrics"])
    }
    return tf.estimator.EstimatorSpec(mode, loss=spec.loss, eval_metric_ops=ops)


def exercise_estimator(model_dir, metrics=EXERCISE_METRICS, **config):
    """The one-variable model in ``model_dir`` with the exercise's results (``metrics`` and the
    loss), a checkpoint every EVERY steps as the exercise's RunConfig; ``config`` changes it."""
    settings = dict(
        tf_random_seed=1,
        log_step_count_steps=None,
        save_summary_steps=None,
        save_checkpoints_steps=EVERY,
    )
    settings.update(config)
    return tf.estimator.Estimator(
        exercise_model_fn,
        model_dir=str(model_dir),
        params={"metrics": metrics},
        config=tf.estimator.RunConfig(**settings),
    )


def held_out_input_fn():
    """The held-out examples, in order, one a batch: the check's stream of them (the exercise's
    held-out set is the first; the notebook's, the first 500 test images, then up to 2,000)."""
    return tf.data.Dataset.from_tensor_slices(({"x": [[2.0], [3.0], [5.0]]}, [[3.0], [4.0], [4.0]]))


HELD_OUT = (held_out_input_fn, 1)  # the exercise's held-out set: the first example
ON_THE_TRAINING_INPUT = (tiny_input_fn, 5)  # five batches of the training input


def write_evaluations(estimator, steps, eval_name="holdout", data=HELD_OUT, loss_times=1.0):
    """Write evaluations at ``steps`` into ``estimator.eval_dir(eval_name)``: the results of its
    latest kept checkpoint among ``steps`` evaluated on ``data`` (an input_fn and its number of
    batches, as an EvalSpec gives them), the same at each step (the check compares only those)."""
    state = tf.train.get_checkpoint_state(estimator.model_dir)
    kept = {int(path.rsplit("-", 1)[1]): path for path in state.all_model_checkpoint_paths}
    at = max((step for step in steps if step in kept), default=max(kept))
    scratch = tf.estimator.Estimator(
        exercise_model_fn,
        model_dir=estimator.model_dir + "_evaluated",
        params=estimator.params,
        config=tf.estimator.RunConfig(log_step_count_steps=None),
    )
    input_fn, batches = data
    results = scratch.evaluate(input_fn, steps=batches, checkpoint_path=kept[at])
    results.pop("global_step")
    results["loss"] *= loss_times  # another batching of the same data: see the test of it
    write_eval_events(estimator.eval_dir(eval_name), dict.fromkeys(steps, results))


def run_like(
    model_dir,
    final_step,
    evaluated_at,
    eval_name="holdout",
    hook_stops=None,
    data=HELD_OUT,
    **config,
):
    """An Estimator trained to ``final_step`` whose evaluations (the exercise's results, on
    ``data``) are at ``evaluated_at``; ended there by an early-stopping hook (``hook_stops``; by
    default when it ends before MAX_STEPS), or by max_steps. ``config`` changes its RunConfig."""
    # a checkpoint every EVERY steps, as the exercise's RunConfig: a hook that asks in the step of
    # a checkpoint asks after that checkpoint is saved
    estimator = exercise_estimator(model_dir, **config)
    train_to(estimator, final_step, hook_stops)
    write_evaluations(estimator, evaluated_at, eval_name, data)
    return estimator


def train_to(estimator, final_step, hook_stops=None):
    """Train ``estimator`` to ``final_step``, ended there by an early-stopping hook (``hook_stops``;
    by default when it ends before MAX_STEPS), or by max_steps."""
    if hook_stops is None:
        hook_stops = final_step < MAX_STEPS
    if (
        hook_stops
    ):  # asks to stop in its look at step final_step - 1, one a step: ends at final_step
        start = estimator.get_variable_value("global_step") if estimator.latest_checkpoint() else 0
        looks = itertools.count(start + 1)
        stop = tf.estimator.experimental.make_early_stopping_hook(
            estimator, lambda: next(looks) >= final_step, run_every_secs=None, run_every_steps=1
        )
        estimator.train(tiny_input_fn, max_steps=MAX_STEPS, hooks=[stop])
    else:
        estimator.train(tiny_input_fn, max_steps=final_step)


def good_hook(estimator, make=increase, **changes):
    """The exercise's hook, fixed, with ``changes`` to its arguments (a wrong answer); ``make``:
    another hook function, given the same arguments (a wrong answer too)."""
    arguments = dict(
        metric_name="precision_",
        max_steps_without_increase=PATIENCE,
        eval_dir=estimator.eval_dir("holdout"),
        run_every_secs=None,
        run_every_steps=EVERY,
    )
    arguments.update(changes)
    metric_name, patience = (
        arguments.pop("metric_name"),
        arguments.pop("max_steps_without_increase"),
    )
    return make(estimator, metric_name, patience, **arguments)


def check(estimator, hook=None, broken="elsewhere"):
    hook = good_hook(estimator) if hook is None else hook
    checks.stopped_early(
        estimator,
        hook,
        broken_model_dir=broken,
        max_steps=MAX_STEPS,
        eval_name="holdout",
        every=EVERY,
        patience=PATIENCE,
        held_out_input_fn=held_out_input_fn,
    )


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    """A run that stopped where a working hook stops it."""
    return run_like(tmp_path_factory.mktemp("stopped"), STOP, [20, 40, STOP])


def test_exercise_2_correct(stopped, capsys):
    check(stopped)
    out = capsys.readouterr().out
    assert out.startswith("Correct: the hook watched the macro precision in eval_holdout/")
    assert (
        "asked to stop after the evaluation at step 40 (20 steps after the first, at step 20); "
        "training ended at step 41, before max_steps=100" in out
    )


@bank(2, "right, written otherwise")
def test_exercise_2_accepts_a_hook_that_looks_more_often(stopped, capsys):
    # every 10 steps: it looks at step 40 too, right after the evaluation there
    check(stopped, good_hook(stopped, run_every_steps=10))
    assert "Correct" in capsys.readouterr().out


@pytest.fixture(scope="module")
def stopped_at_the_evaluation(tmp_path_factory):
    """A run that a hook looking at every step stopped: it asked at step 39, right after the
    checkpoint of step 40 was saved and evaluated, and training ended at step 40, a checkpoint's
    step, whose checkpoint holds the stop signal as it was before the request (false)."""
    return run_like(tmp_path_factory.mktemp("every_step"), STOP - 1, [20, STOP - 1])


def test_exercise_2_accepts_the_step_a_hook_that_looks_every_step_stops_at(
    stopped_at_the_evaluation, capsys
):
    # run_every_steps=1 sees the evaluation at step 40 in the step that ends at 40: training ends
    # at 40 (the hook logs "Requesting early stopping at global step 39")
    run = stopped_at_the_evaluation
    check(run, good_hook(run, run_every_steps=1))
    assert (
        "after the evaluation at step 40 (20 steps after the first, at step 20); training "
        "ended at step 40," in capsys.readouterr().out
    )


def test_exercise_2_the_every_step_run_saved_no_stop_signal(stopped_at_the_evaluation):
    """What the check refused before: the stop signal of the run's last checkpoint is false, so
    only the hook's own run tells that it stopped there."""
    assert checks._stop_signal(stopped_at_the_evaluation.model_dir) is False


def test_exercise_2_accepts_a_timer_of_zero_seconds(stopped_at_the_evaluation, capsys):
    # run_every_secs=0: a look at every step, as run_every_steps=1
    run = stopped_at_the_evaluation
    check(run, good_hook(run, run_every_secs=0, run_every_steps=None))
    assert "Correct" in capsys.readouterr().out


def test_exercise_2_a_hook_that_looks_every_step_and_a_run_that_ended_a_step_later(stopped):
    """A hook that looks at every step ends this model's run at step 40: a run that ended at 41
    was not that hook's."""
    message = failure(check, stopped, good_hook(stopped, run_every_steps=1))
    assert message == (
        "training ended at step 41, later than `fixed_hook` ends this model's run (run by the "
        "check on the same schedule): run `train_and_evaluate` with `fixed_hook` in the "
        "`TrainSpec`"
    ), message


def test_exercise_2_accepts_the_arguments_by_position(stopped, capsys):
    # (estimator, metric_name, max_steps_without_increase, eval_dir, min_steps, run_every_secs,
    # run_every_steps)
    check(
        stopped,
        increase(stopped, "precision_", PATIENCE, stopped.eval_dir("holdout"), 0, None, EVERY),
    )
    assert "Correct" in capsys.readouterr().out


# Right hooks written otherwise than the solution, each tried on the run it stops (a learner's
# answers; arguments by position, min_steps and run_every_steps have their own tests).
RIGHT_HOOKS = {
    "tf.compat.v1's hook": lambda e: tf.compat.v1.estimator.experimental.stop_if_no_increase_hook(
        e,
        "precision_",
        PATIENCE,
        eval_dir=e.eval_dir("holdout"),
        run_every_secs=None,
        run_every_steps=EVERY,
    ),
    # made on the broken run's Estimator: the hook keeps only its folder and its settings
    "made on another Estimator": lambda e: increase(
        tiny_estimator(e.model_dir + "_other"),
        "precision_",
        PATIENCE,
        eval_dir=e.eval_dir("holdout"),
        run_every_secs=None,
        run_every_steps=EVERY,
    ),
    "the folder joined by hand": lambda e: good_hook(
        e, eval_dir=os.path.join(e.model_dir, "eval_holdout")
    ),
    "the folder as a Path": lambda e: good_hook(e, eval_dir=Path(e.model_dir) / "eval_holdout"),
    "PATIENCE_DEMO's value, EVERY as patience": lambda e: good_hook(
        e, max_steps_without_increase=EVERY
    ),
}


@pytest.mark.parametrize("case", sorted(RIGHT_HOOKS))
def test_exercise_2_right_hooks_written_otherwise_pass(stopped, case, capsys):
    check(stopped, RIGHT_HOOKS[case](stopped))
    assert "Correct" in capsys.readouterr().out


def test_exercise_2_a_max_steps_that_ends_before_the_hook_asks(tmp_path):
    """max_steps=40, one step before the exercise's hook would end the run: the run is refused with
    the step where fixed_hook ends it (the learner's run in the notebook, with fixed_hook in the
    TrainSpec, ends the same way)."""
    message = failure(check, run_like(tmp_path, STOP - 1, [20, STOP - 1], hook_stops=False))
    assert message == (
        "training ended at step 40, before `fixed_hook` asks this model to stop (run by the "
        "check on the same schedule): run `train_and_evaluate` with `fixed_hook` in the "
        "`TrainSpec`, and let the hook end it"
    ), message


def test_exercise_2_accepts_a_hook_already_used_in_a_training(stopped, tmp_path, capsys):
    """The hook's timer remembers its last look (step 60 here): the check's trainings start from a
    copy that looks as a new hook does."""
    hook = good_hook(stopped)
    tiny_estimator(tmp_path).train(tiny_input_fn, max_steps=70, hooks=[hook])
    check(stopped, hook)
    assert "Correct" in capsys.readouterr().out


def test_exercise_2_a_max_steps_run_with_the_broken_hook_is_refused(tmp_path):
    """max_steps=41 and the broken cell's hook (on a timer: it never looks again) in the TrainSpec:
    the checkpoint saved as training ended holds the hook's stop signal, false."""
    estimator = exercise_estimator(tmp_path)
    never = tf.estimator.experimental.make_early_stopping_hook(
        estimator, lambda: False, run_every_secs=None, run_every_steps=1
    )
    estimator.train(tiny_input_fn, max_steps=STOP, hooks=[never])
    write_evaluations(estimator, [20, 40, STOP])
    assert failure(check, estimator).startswith(
        "training ended at step 41, but no early-stopping hook asked it to stop (the checkpoint "
        "saved as it ended holds a stop signal that is false)"
    )


@pytest.mark.parametrize("min_steps", [0, 5, EVERY])
def test_exercise_2_accepts_a_min_steps_that_skips_no_evaluation(stopped, min_steps, capsys):
    """min_steps=EVERY still counts the first evaluation (at step EVERY): the same decision."""
    check(stopped, good_hook(stopped, min_steps=min_steps))
    assert "Correct" in capsys.readouterr().out


@bank(2, "hard-coded from an output above")  # max_steps=41, typed from the output above
def test_exercise_2_a_run_that_max_steps_ended_where_the_hook_would_is_refused(tmp_path):
    # hard-coded from an output above: max_steps=41, and no hook in the TrainSpec
    with pytest.raises(
        CheckFailed,
        match=r"training ended at step 41, but no early-stopping hook was in that training \(its "
        r"checkpoints have no stop signal\)",
    ):
        check(run_like(tmp_path, STOP, [20, 40, STOP], hook_stops=False))


# First the likeliest wrong answer: the decrease hook on the loss stops this model at the same step,
# and is not the exercise.
WRONG_HOOKS = {
    # stops the notebook's frozen model at the same step
    "decrease hook on the loss": pytest.param(
        lambda e: good_hook(e, decrease, metric_name="loss"),
        "waits for a decrease, as for a loss: the exercise keeps stop_if_no_increase_hook",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "decrease hook on the precision": (lambda e: good_hook(e, decrease), "waits for a decrease"),
    "the accuracy instead of the precision": pytest.param(
        lambda e: good_hook(e, metric_name="accuracy"),
        "watches 'accuracy', another of the model's results",
        marks=bank(2, "right shape, wrong content"),
    ),
    "the increase hook on the loss": (
        lambda e: good_hook(e, metric_name="loss"),
        "watches 'loss', another of the model's results",
    ),
    "the broken run's name kept": pytest.param(
        lambda e: good_hook(e, metric_name="precision"),
        "watches 'precision', which is not among this model's evaluation results",
        marks=bank(2, "copy of a nearby cell"),
    ),
    "the helpers' name for it": (
        lambda e: good_hook(e, metric_name="precision_macro"),
        "watches 'precision_macro', which is not among",
    ),
    "the article's key for accuracy": (
        lambda e: good_hook(e, metric_name="acc"),
        "watches 'acc', which is not among",
    ),
    "patience in evaluations": pytest.param(
        lambda e: good_hook(e, max_steps_without_increase=1),
        "max_steps_without_increase=1: keep PATIENCE_DEMO, "
        "20 steps (patience counts global steps, not evaluations)",
        marks=bank(2, "wrong unit"),
    ),
    "a longer patience": (
        lambda e: good_hook(e, max_steps_without_increase=40),
        "max_steps_without_increase=40: keep PATIENCE_DEMO",
    ),
    # one more than EVERY, where EVERY skips no evaluation
    "min_steps added": pytest.param(
        lambda e: good_hook(e, min_steps=EVERY + 1),
        "has min_steps=21: it skips the first evaluation, at step 20",
        marks=bank(2, "off by one"),
    ),
    "min_steps beyond the run": (
        lambda e: good_hook(e, min_steps=1000),
        "has min_steps=1000: it skips the first evaluation, at step 20",
    ),
    "eval_dir left out": (
        lambda e: good_hook(e, eval_dir=None),
        "/eval, but fixed_estimator's EvalSpec(name='holdout') writes to",
    ),
    "the broken run's folder": (
        lambda e: good_hook(e, eval_dir="elsewhere/eval_holdout"),
        "reads elsewhere/eval_holdout, but",
    ),
    "the default timer": (
        lambda e: increase(e, "precision_", PATIENCE, eval_dir=e.eval_dir("holdout")),
        "looks every 60 s, on a clock, not after each evaluation",
    ),
    "the article's timer": (
        lambda e: good_hook(e, run_every_secs=120, run_every_steps=None),
        "looks every 120 s, on a clock, not after each evaluation",
    ),
    # right on the exercise's run, which it stops after the evaluation at step 40, and late on a
    # run that falls at its third evaluation (step 60), which it sees at step 80
    "looks every other evaluation": pytest.param(
        lambda e: good_hook(e, run_every_steps=2 * EVERY),
        "looks every 40 steps, less often than evaluation runs (every 20): it stops late",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "looks less often than it evaluates": (
        lambda e: good_hook(e, run_every_steps=50),
        "looks every 50 steps, less often than evaluation runs",
    ),
    "looks one step less often than it evaluates": (
        lambda e: good_hook(e, run_every_steps=EVERY + 1),
        "looks every 21 steps, less often than evaluation runs (every 20): it stops late",
    ),
    # sees the evaluation at step 40 at step 42: training ends at 43
    "looks out of step with the evaluations": (
        lambda e: good_hook(e, run_every_steps=7),
        "looks every 7 steps, out of step with the evaluations (every 20)",
    ),
    # right on the exercise's run (it looks at step 39, after the evaluation at 40), late on a run
    # that falls at its fourth evaluation (it sees the one at step 80 at step 81)
    "looks every 3 steps": (
        lambda e: good_hook(e, run_every_steps=3),
        "looks every 3 steps, out of step with the evaluations (every 20)",
    ),
    "a timer of a second": (
        lambda e: good_hook(e, run_every_secs=1, run_every_steps=None),
        "looks every 1 s, on a clock, not after each evaluation",
    ),
    # on the learner's machine it may look right after each evaluation (one takes longer), or not
    "a timer of a millisecond": (
        lambda e: good_hook(e, run_every_secs=0.001, run_every_steps=None),
        "looks every 0.001 s, on a clock, not after each evaluation",
    ),
    "a timer of half a second": (
        lambda e: good_hook(e, run_every_secs=0.5, run_every_steps=None),
        "looks every 0.5 s, on a clock, not after each evaluation",
    ),
    # make_early_stopping_hook, where the prompt keeps stop_if_no_increase_hook
    "a hook of its own rule": pytest.param(
        lambda e: tf.estimator.experimental.make_early_stopping_hook(
            e, lambda: False, run_every_secs=None, run_every_steps=EVERY
        ),
        "`fixed_hook` is a _StopOnPredicateHook that does not read a metric of the evaluations",
        marks=bank(2, "forbidden API"),
    ),
    "the hook's should_stop_fn": (
        lambda e: good_hook(e)._should_stop_fn,
        "should be what stop_if_no_increase_hook returns, not function",
    ),
}


def test_exercise_2_patience_message_whole(stopped):
    """A patience that is not in evaluations gets no note on units."""
    assert failure(check, stopped, good_hook(stopped, max_steps_without_increase=40)) == (
        "`fixed_hook` has max_steps_without_increase=40: keep PATIENCE_DEMO, 20 steps"
    )


@pytest.mark.parametrize("case", by_name(WRONG_HOOKS))
def test_exercise_2_wrong_hooks(stopped, case):
    make, message = entry(WRONG_HOOKS[case])
    assert_names_the_mistake(failure(check, stopped, make(stopped)), message, ("precision_'",))


def test_exercise_2_blank():
    with pytest.raises(CheckFailed, match="`fixed_estimator` is still None"):
        check(None, hook="unused")


def test_exercise_2_hook_left_blank(stopped):
    with pytest.raises(CheckFailed, match="`fixed_hook` is still None"):
        checks.stopped_early(
            stopped,
            None,
            broken_model_dir="elsewhere",
            max_steps=MAX_STEPS,
            eval_name="holdout",
            every=EVERY,
            patience=PATIENCE,
        )


def test_exercise_2_not_an_estimator():
    with pytest.raises(CheckFailed, match="should be a tf.estimator.Estimator, not str"):
        check("model", hook="unused")


def test_exercise_2_same_model_dir(tmp_path):
    """The broken run's name given to frozen_estimator, which empties the folder: the prompt asks
    for a fresh name, and the message states no consequence that emptying avoided (stopping at
    once, on the old evaluations)."""
    estimator = exercise_estimator(tmp_path / "07_exercise_broken")
    message = failure(check, estimator, broken=tmp_path / "07_exercise_broken")
    assert message == (
        "`fixed_estimator` uses the broken run's model_dir, 07_exercise_broken: the exercise asks "
        "for `frozen_estimator(…)` with a fresh name, a folder of its own"
    )


def test_exercise_2_not_run(tmp_path):
    with pytest.raises(CheckFailed, match="has no checkpoint yet"):
        check(exercise_estimator(tmp_path))


def test_exercise_2_evaluations_elsewhere(tmp_path):
    with pytest.raises(CheckFailed, match=r"no evaluations in eval_holdout/ \(found: eval\)"):
        check(run_like(tmp_path, STOP, [20, 40, STOP], eval_name=None))


def test_exercise_2_throttled(tmp_path):
    with pytest.raises(
        CheckFailed,
        match="ran to max_steps=100 and evaluations were skipped .* by default "
        "train_and_evaluate evaluates at most every 10 minutes "
        "\\(section 'Trap 4: evaluations skipped by `throttle_secs`'\\)",
    ):
        check(run_like(tmp_path, MAX_STEPS, [20, MAX_STEPS]))


def test_exercise_2_stopped_but_skipped(tmp_path):
    with pytest.raises(
        CheckFailed, match="training stopped at step 41, but evaluations were skipped"
    ):
        check(run_like(tmp_path, STOP, [20, STOP]))


def test_exercise_2_run_with_another_hook(tmp_path):
    """fixed_hook right, but the run used the broken cell's `hook`: every evaluation written, no
    stop. The message says so without the stop step (the notebook prints it) or a clause about a
    run that raised (nothing raised)."""
    message = failure(check, run_like(tmp_path, MAX_STEPS, list(range(20, MAX_STEPS + 1, 20))))
    assert message == (
        "training ran to `max_steps=100`, but `fixed_hook`, run by the check on the same "
        "schedule, stops this model earlier: run `train_and_evaluate` with `fixed_hook` in the "
        "`TrainSpec`"
    )


def test_exercise_2_run_that_raised(tmp_path):
    # the solution cell raised after the first evaluation: the run ended at its last checkpoint
    message = failure(check, run_like(tmp_path, 20, [20]))
    assert message.startswith(
        "training ended at step 20, before `fixed_hook` asks this model to stop"
    ), message


def test_exercise_2_messages_never_give_the_answer():
    source = (ROOT / "helpers" / "checks" / "notebook07.py").read_text(encoding="utf-8")
    start = source.index("def _hook_problem")
    # in EXERCISE_2 only
    assert "precision_'" not in source[start:] and '"precision_"' not in source[start:]


def test_exercise_2_observes_the_hook_without_its_private_attributes():
    """The check runs a copy of the hook (after_run) on evaluations and a clock of its own: it
    reads none of TensorFlow's private attributes, and leaves the learner's hook as it was."""
    source = (ROOT / "helpers" / "checks" / "notebook07.py").read_text(encoding="utf-8")
    for private in (
        "._timer",
        "._every_secs",
        "._every_steps",
        "getclosurevars",
        "_should_stop_fn",
    ):
        assert private not in source, private


def test_exercise_2_leaves_the_learners_hook_as_it_was(stopped, capsys):
    hook = good_hook(stopped)
    before = {
        key: vars(value).copy()
        for key, value in vars(hook).items()
        if hasattr(value, "__dict__") and not callable(value)
    }
    check(stopped, hook)
    assert "Correct" in capsys.readouterr().out
    after = {
        key: vars(value).copy()
        for key, value in vars(hook).items()
        if hasattr(value, "__dict__") and not callable(value)
    }
    assert after == before


@pytest.mark.parametrize("every_steps", [EVERY, 10, 5])
def test_exercise_2_a_hook_that_looks_at_every_evaluation_or_more_often_passes(
    stopped, every_steps, capsys
):
    check(stopped, good_hook(stopped, run_every_steps=every_steps))
    assert "Correct" in capsys.readouterr().out


def test_exercise_2_a_timer_of_many_seconds_is_measured(stopped):
    message = failure(check, stopped, good_hook(stopped, run_every_secs=7, run_every_steps=None))
    assert message.startswith(
        "`fixed_hook` looks every 7 s, on a clock, not after each evaluation"
    ), message


def test_exercise_2_a_hook_that_looks_very_rarely(stopped):
    message = failure(check, stopped, good_hook(stopped, run_every_steps=5000))
    assert message.startswith("`fixed_hook` looks less often than every 1000 steps"), message


def test_exercise_2_a_patience_beyond_any_run(stopped):
    message = failure(check, stopped, good_hook(stopped, max_steps_without_increase=10**8))
    assert message.startswith("`fixed_hook` never asks to stop, even 10000000 steps"), message


# --- what a blind adversary's answers showed (round 1): each refused for what the run did ---------


@bank(2, "right shape, wrong content")
def test_exercise_2_evaluations_of_the_training_input_are_refused(tmp_path):
    """EvalSpec(train_input_fn, steps=5, name="holdout", throttle_secs=0) with the right hook: the
    run stops where a working hook stops it, on the precision of training batches. The check
    evaluates the checkpoint of the last evaluation on the held-out examples and gets other
    results."""
    run = run_like(tmp_path, STOP, [20, 40, STOP], data=ON_THE_TRAINING_INPUT)
    assert failure(check, run) == (
        "the evaluation at step 41 in eval_holdout/ was not made on the colleague's held-out "
        "images: on them, `fixed_estimator`'s checkpoint of that step gives other results; give "
        "the `EvalSpec` `small_eval_input_fn`, as the broken run did"
    )


@bank(2, "right, written otherwise")
@pytest.mark.parametrize("batches", [2, None], ids=["more held-out examples", "all of them"])
def test_exercise_2_accepts_evaluations_of_more_held_out_examples(tmp_path, batches, capsys):
    """An evaluation of more held-out examples, in order (in the notebook: the first 2,000 test
    images, its validation set, or steps=1 of small_eval_input_fn's one batch), is held out too."""
    check(run_like(tmp_path, STOP, [20, 40, STOP], data=(held_out_input_fn, batches)))
    assert "Correct" in capsys.readouterr().out


def test_exercise_2_the_held_out_images_begin_with_the_exercises():
    """The check's held-out images are the first test images in order, small_eval_input_fn's (the
    first 500) first, batch for batch."""
    cells = json.loads(
        (ROOT / "notebooks" / "07_early_stopping.ipynb").read_text(encoding="utf-8")
    )["cells"]
    source = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")
    assert "small_eval_input_fn = inputs.make_eval_input_fn(count=500)\n" in source
    assert 'tf.estimator.EvalSpec(small_eval_input_fn, steps=None, name="holdout")' in source
    assert checks.HELD_OUT["count"] >= 500 and 500 % checks.HELD_OUT["batch_size"] == 0


def test_exercise_2_an_evalspec_without_a_name_and_the_hook_reading_it(tmp_path):
    """EvalSpec without a name and the hook on the default eval_dir: they match (the run stopped
    where a working hook stops it), but the exercise keeps the name; the message names the EvalSpec
    the learner wrote, not EvalSpec(name='holdout')."""
    run = run_like(tmp_path, STOP, [20, 40, STOP], eval_name=None)
    assert failure(check, run, good_hook(run, eval_dir=None)) == (
        f"`fixed_hook` reads {display_path(run.eval_dir())}, where `fixed_estimator`'s evaluations "
        "went, from an `EvalSpec` without a name: keep the colleague's "
        "`EvalSpec(name='holdout')`, whose evaluations go to "
        f"{display_path(run.eval_dir('holdout'))}"
        ", and have the hook read that folder"
    )


@bank(2, "off by one")  # one letter off: 'Holdout'
def test_exercise_2_another_name_on_both_the_evalspec_and_the_hook(tmp_path):
    run = run_like(tmp_path, STOP, [20, 40, STOP], eval_name="Holdout")
    message = failure(check, run, good_hook(run, eval_dir=run.eval_dir("Holdout")))
    assert message == (
        f"`fixed_hook` reads {display_path(run.eval_dir('Holdout'))}, where `fixed_estimator`'s "
        "evaluations went, from `EvalSpec(name='Holdout')`: keep the colleague's "
        "`EvalSpec(name='holdout')`, whose evaluations go to "
        f"{display_path(run.eval_dir('holdout'))}"
        ", and have the hook read that folder"
    )


def test_exercise_2_a_hook_reading_elsewhere_than_the_evaluations_went(tmp_path):
    """EvalSpec(name='val') and the hook on the default eval_dir: neither is the exercise's."""
    run = run_like(tmp_path, STOP, [20, 40, STOP], eval_name="val")
    assert failure(check, run, good_hook(run, eval_dir=None)) == (
        f"`fixed_hook` reads {display_path(run.eval_dir())}, but `fixed_estimator`'s evaluations "
        f"went to {display_path(run.eval_dir('val'))}: keep the colleague's "
        "`EvalSpec(name='holdout')`, whose evaluations go to "
        f"{display_path(run.eval_dir('holdout'))}"
        ", and have the hook read that folder (section 'Trap 1: a named evaluation, and a hook "
        "that never fires')"
    )


def test_exercise_2_a_hook_reading_elsewhere_before_any_evaluation(tmp_path):
    """Not run yet: the message names the EvalSpec the exercise keeps, as the colleague's."""
    estimator = exercise_estimator(tmp_path)
    assert failure(check, estimator, good_hook(estimator, eval_dir=None)) == (
        f"`fixed_hook` reads {display_path(estimator.eval_dir())}, but the colleague's "
        "`EvalSpec(name='holdout')` writes `fixed_estimator`'s evaluations to "
        f"{display_path(estimator.eval_dir('holdout'))} (section 'Trap 1: a named evaluation, and "
        "a hook that never fires')"
    )


@pytest.mark.parametrize(
    "metric",
    [
        # frozen_estimator's default metric_fn, the sections' F1, and the hook on it
        pytest.param("f1_macro", marks=bank(2, "copy of a nearby cell")),
        # a metric_fn of one's own, with the course's key for the macro precision
        "precision_macro",
    ],
)
def test_exercise_2_a_hook_on_a_result_of_another_metric_fn(tmp_path, metric):
    """The hook reads a result the model has (no KeyError: the run stopped where a working hook
    stops it), but the model is not built with the broken run's metric_fn."""
    run = run_like(tmp_path, STOP, [20, 40, STOP], metrics=("accuracy", metric))
    message = failure(check, run, good_hook(run, metric_name=metric))
    results = ", ".join(sorted(["accuracy", metric, "loss"]))
    assert message == (
        f"`fixed_hook` watches {metric!r}, one of `fixed_estimator`'s results ({results}), but "
        "none of them is the macro precision under the broken run's key: build `fixed_estimator` "
        "with the broken run's `metric_fn`, as the exercise asks"
    )
    assert "KeyError" not in message


def test_exercise_2_the_hook_right_on_a_model_of_another_metric_fn(tmp_path):
    """The hook on the broken run's key, the model without it: the hook raises KeyError once it
    reads an evaluation; the message does not repeat the key."""
    run = exercise_estimator(tmp_path, metrics=("accuracy", "f1_macro"))
    message = failure(check, run)
    assert message == (
        "`fixed_estimator`'s results are accuracy, f1_macro, loss, without the macro precision "
        "under the broken run's key, and `fixed_hook` watches a name that is not among them (the "
        "hook raises `KeyError` once it reads one): build `fixed_estimator` with the broken run's "
        "`metric_fn`, as the exercise asks"
    )


def test_exercise_2_another_checkpoint_schedule_is_a_changed_config(tmp_path):
    """RunConfig(save_checkpoints_steps=10) and the hook looking every 10 steps: it works, and
    stops the run at step 31. The prompt changes only frozen_estimator's name and metric_fn:
    refused for the config, with no stop step that this config does not give."""
    run = run_like(tmp_path, 31, [10, 20, 30, 31], save_checkpoints_steps=10)
    assert failure(check, run, good_hook(run, run_every_steps=10)) == (
        "`fixed_estimator`'s `RunConfig` saves a checkpoint every 10 steps, and the broken run's "
        "every 20: the exercise changes only the name and the `metric_fn` of "
        "`frozen_estimator(…)`, so keep its config"
    )


def test_exercise_2_a_checkpoint_timer_is_a_changed_config(tmp_path):
    run = run_like(
        tmp_path, MAX_STEPS, [MAX_STEPS], save_checkpoints_steps=None, save_checkpoints_secs=600
    )
    assert failure(check, run).startswith(
        "`fixed_estimator`'s `RunConfig` saves a checkpoint every 600 s, and the broken run's "
        "every 20 steps"
    )


@pytest.mark.parametrize("every_steps", [EVERY, 1])
def test_exercise_2_a_second_run_in_the_same_model_dir_is_trap_5(tmp_path, every_steps):
    """run_demo twice in the cell: the second run goes on from where the first ended, and the hook
    stops it (looking every 20 steps: at step 61; every step: at once, at 41, where one run would
    end at 40). Nothing was skipped by throttle_secs: the check counts the trainings."""
    first_end, second_end = (STOP, STOP + EVERY) if every_steps == EVERY else (STOP - 1, STOP)
    run = run_like(tmp_path, first_end, [20, 40, first_end])
    train_to(run, second_end)
    write_evaluations(run, sorted({20, 40, first_end, second_end}))
    message = failure(check, run, good_hook(run, run_every_steps=every_steps))
    assert message == (
        "`fixed_estimator`'s model_dir holds 2 trainings, each after the first going on from the "
        "checkpoint the one before it left: build `fixed_estimator` again with "
        "`frozen_estimator(…)`, which empties its folder, and train it once (section 'Trap 5: "
        "running the same cell again')"
    )


@pytest.mark.parametrize(
    "changes, words",
    [
        (
            {"max_steps_without_increase": PATIENCE + 0.5},
            "`fixed_hook` has max_steps_without_increase=20.5: keep PATIENCE_DEMO, 20 steps",
        ),
        ({"min_steps": EVERY + 0.5}, "`fixed_hook` has min_steps=20.5: it skips the first"),
    ],
    ids=["patience", "min_steps"],
)
def test_exercise_2_numbers_are_said_as_written(stopped, changes, words):
    message = failure(check, stopped, good_hook(stopped, **changes))
    assert message.startswith(words), message


@bank(2, "right, written otherwise")
def test_exercise_2_accepts_the_patience_as_a_whole_float(stopped, capsys):
    check(stopped, good_hook(stopped, max_steps_without_increase=float(PATIENCE)))
    assert "Correct" in capsys.readouterr().out


def test_exercise_2_trained_but_never_evaluated(tmp_path):
    """train() with fixed_hook, no train_and_evaluate: no evaluation at all, so nothing about the
    EvalSpec's name."""
    estimator = exercise_estimator(tmp_path)
    train_to(estimator, MAX_STEPS)
    assert failure(check, estimator) == (
        "`fixed_estimator` was trained, but never evaluated: its model_dir has no evaluations; "
        "train it with `tf.estimator.train_and_evaluate` and an `EvalSpec`, as `run_demo` does"
    )


@pytest.mark.parametrize("loss_times, passes", [(1.0002, True), (1.005, False)])
def test_exercise_2_the_loss_of_the_held_out_images_in_other_batches(
    tmp_path, loss_times, passes, capsys
):
    """The loss an evaluation writes is the mean of its batches' mean losses: the same images in
    other batches give it a little apart (500 images in batches of 64: 1.4e-4 of it), while the
    metrics, counts, stay the same. The check allows the loss 0.1%."""
    run = exercise_estimator(tmp_path)
    train_to(run, STOP)
    write_evaluations(run, [20, 40, STOP], loss_times=loss_times)
    if passes:
        check(run)
        assert "Correct" in capsys.readouterr().out
    else:
        assert failure(check, run).startswith("the evaluation at step 41 in eval_holdout/ was not")
