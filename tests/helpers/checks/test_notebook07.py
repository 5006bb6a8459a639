"""Every message of notebook 07's exercise checks.

Exercise 1 is arithmetic on a timeline. Exercise 2's check runs a copy of the
learner's hook (its looks, on evaluations and a clock of its own), trains it and
the exercise's hook in short trainings of its own on the exercise's run and on
two runs the notebook did not show, and reads a real Estimator's model_dir:
here a tiny model is trained for a few steps with ``train()`` (a checkpoint
every EVERY steps, as in the exercise) and its evaluation files are written by
hand, so each outcome (stopped where the hook stops, ran to max_steps with or
without skipped evaluations, wrong folder) is reached in a few seconds. Each
plausible wrong answer is one case of ``WRONG_HOOKS`` or one test below.
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
from helpers.problems import CheckFailed
from tests.support.banks import bank, by_name, entry
from tests.support.checks import assert_names_the_mistake, failure
from tests.support.events import write_eval_events
from tests.support.models import tiny_estimator, tiny_input_fn

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


def run_like(model_dir, final_step, evaluated_at, eval_name="holdout", hook_stops=None):
    """An Estimator trained to ``final_step`` whose evaluations (the exercise's keys) are at
    ``evaluated_at``; ended there by an early-stopping hook (``hook_stops``; by default when it
    ends before MAX_STEPS), or by max_steps."""
    # a checkpoint every EVERY steps, as the exercise's RunConfig: a hook that asks in the step of
    # a checkpoint asks after that checkpoint is saved
    estimator = tiny_estimator(model_dir, save_checkpoints_steps=EVERY)
    if hook_stops is None:
        hook_stops = final_step < MAX_STEPS
    if hook_stops:  # asks to stop in its final_step-th look, one a step: ends at final_step
        looks = itertools.count(1)
        stop = tf.estimator.experimental.make_early_stopping_hook(
            estimator, lambda: next(looks) >= final_step, run_every_secs=None, run_every_steps=1
        )
        estimator.train(tiny_input_fn, max_steps=MAX_STEPS, hooks=[stop])
    else:
        estimator.train(tiny_input_fn, max_steps=final_step)
    write_eval_events(
        estimator.eval_dir(eval_name),
        {step: {"accuracy": 0.1, "precision_": 0.01, "loss": 2.3} for step in evaluated_at},
    )
    return estimator


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
    assert message.startswith(
        "training ended at step 41, and fixed_hook stops this model at step 40: run "
        "train_and_evaluate with fixed_hook in the TrainSpec"
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
    assert message.startswith(
        "training ended at step 40, and fixed_hook stops this model at step 41: run "
        "train_and_evaluate with fixed_hook in the TrainSpec"
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
    estimator = tiny_estimator(tmp_path, save_checkpoints_steps=EVERY)
    never = tf.estimator.experimental.make_early_stopping_hook(
        estimator, lambda: False, run_every_secs=None, run_every_steps=1
    )
    estimator.train(tiny_input_fn, max_steps=STOP, hooks=[never])
    results = {"accuracy": 0.1, "precision_": 0.01, "loss": 2.3}
    write_eval_events(estimator.eval_dir("holdout"), dict.fromkeys([20, 40, STOP], results))
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
    estimator = tiny_estimator(tmp_path)
    with pytest.raises(CheckFailed, match="uses the broken run's model_dir"):
        check(estimator, broken=tmp_path)


def test_exercise_2_not_run(tmp_path):
    with pytest.raises(CheckFailed, match="has no checkpoint yet"):
        check(tiny_estimator(tmp_path))


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
    # fixed_hook right, but the run used the broken cell's hook: every evaluation written, no stop
    with pytest.raises(
        CheckFailed,
        match="training ended at step 100, and fixed_hook stops this model at step "
        "41: run train_and_evaluate with fixed_hook in the TrainSpec",
    ):
        check(run_like(tmp_path, MAX_STEPS, list(range(20, MAX_STEPS + 1, 20))))


def test_exercise_2_run_that_raised(tmp_path):
    # the solution cell raised (KeyError) after the first evaluation:
    # the run ended at its last checkpoint
    with pytest.raises(
        CheckFailed,
        match=r"training ended at step 20, .* \(a run that raised ends at its last "
        "checkpoint",
    ):
        check(run_like(tmp_path, 20, [20]))


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
