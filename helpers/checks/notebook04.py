"""Exercise checks of notebook 04 (training, checkpoints, resuming)."""

from __future__ import annotations

import os

from ..language import all_of
from .common import correct, fail, is_whole_number, reporting_learner_errors, require_answer

__all__ = ["global_steps_after", "steps_after_rerun", "fixed_estimator"]

# Exercise 1: the train() calls, in order, on a fresh model_dir (the notebook lists the same).
EXERCISE_1_CALLS = (("steps", 200), ("max_steps", 500), ("max_steps", 400), ("steps", 100))
# a crash, the same call again
EXERCISE_2 = {"save_checkpoints_steps": 100, "crash_at": 750, "count": 1000}
# exercise 3: how far a warm-started kernel may move from its source in the first steps
WARM_TOLERANCE = 0.08


def train_ranges(calls) -> list[range]:
    """The global steps that each ``(kind, count)`` call, train(kind=count), runs on a fresh model
    (also 05)."""
    ranges, step = [], 0
    for kind, count in calls:
        ranges.append(range(step, step + count if kind == "steps" else max(step, count)))
        step = ranges[-1].stop
    return ranges


@reporting_learner_errors
def global_steps_after(answer, calls=EXERCISE_1_CALLS) -> None:
    """Notebook 04, exercise 1: the global step after each train() call of ``calls``."""
    require_answer(answer, "global_steps")
    if not isinstance(answer, (list, tuple)) or not all(is_whole_number(v) for v in answer):
        fail(
            "`global_steps` should be a list of {calls} whole numbers, one per train() call",
            calls=len(calls),
        )
    if len(answer) != len(calls):
        fail(
            "`global_steps` has {given} numbers: give one per train() call, {calls} in all",
            given=len(answer),
            calls=len(calls),
        )
    ranges = train_ranges(calls)
    for index, ((kind, count), got, run) in enumerate(zip(calls, map(int, answer), ranges)):
        if got == run.stop:
            continue
        call = dict(number=index + 1, kind=kind, count=count, got=got, before=run.start)
        if kind == "max_steps" and got == run.start + count:
            fail(
                "call {number}, train(..., {kind}={count}): max_steps is not a number of steps "
                "to add but the global step to stop at; the model was at {before}",
                **call,
            )
        if kind == "max_steps" and count < run.start and got == count:
            fail(
                "call {number}, train(..., {kind}={count}): training never goes back; with the "
                "model already at {before}, max_steps={count} does nothing",
                **call,
            )
        if kind == "steps" and got == count:
            fail(
                "call {number}, train(..., {kind}={count}): steps counts from where the model "
                "is ({before}), not from 0",
                **call,
            )
        fail(
            "call {number}, train(..., {kind}={count}): {got} is not it; the model was at "
            "{before} before this call",
            **call,
        )
    correct(
        "the global steps are {steps}: `steps` adds, `max_steps` stops at a global step and "
        "never goes back",
        steps=[run.stop for run in ranges],
    )


@reporting_learner_errors
def steps_after_rerun(answer, scenario: dict | None = None) -> None:
    """Notebook 04, exercise 2: the final global step after a crash and a re-run, for steps and
    max_steps."""
    require_answer(answer, "after_rerun")
    scenario = dict(EXERCISE_2, **(scenario or {}))
    every, crash_at, count = (
        scenario["save_checkpoints_steps"],
        scenario["crash_at"],
        scenario["count"],
    )
    if not isinstance(answer, dict) or set(answer) != {"steps", "max_steps"}:
        fail("`after_rerun` should be a dict with the two keys 'steps' and 'max_steps'")
    for key, value in answer.items():
        if not is_whole_number(value):
            fail(
                "after_rerun[{key!r}] should be a whole number (a global step), not {value!r}",
                key=key,
                value=value,
            )
    restored = (crash_at // every) * every  # the scenario never crashes on a saving step
    with_steps, with_max = int(answer["steps"]), int(answer["max_steps"])
    values = dict(
        crash_at=crash_at,
        count=count,
        restored=restored,
        ended=restored + count,
        with_steps=with_steps,
        with_max=with_max,
    )
    if with_steps != restored + count:
        if with_steps == crash_at + count:
            fail(
                "after_rerun['steps']: the re-run does not start at {crash_at}, where it "
                "crashed: it starts from the last checkpoint",
                **values,
            )
        if with_steps == count:
            fail(
                "after_rerun['steps']: steps={count} adds {count} steps to the restored model; "
                "where does the re-run start?",
                **values,
            )
        fail(
            "after_rerun['steps']: {with_steps} is not it; find the last checkpoint written "
            "before the crash, then add {count}",
            **values,
        )
    if with_max != count:
        fail(
            "after_rerun['max_steps']: {with_max} is not it; max_steps={count} is the global "
            "step where training stops, wherever it restarts",
            **values,
        )
    correct(
        "the re-run restores step {restored} (the last checkpoint before the crash at "
        "{crash_at}); steps={count} ends at {ended}, max_steps={count} at {count}",
        **values,
    )


@reporting_learner_errors
def fixed_estimator(answer, old_model_dir, params: dict, steps: int) -> None:
    """Notebook 04, exercise 3: the widened model, trained in a fresh model_dir, every variable
    whose shape the change kept warm-started from the old one."""
    require_answer(answer, "fixed_estimator")
    import numpy as np
    import tensorflow as tf

    if not isinstance(answer, tf.estimator.Estimator):
        fail(
            "`fixed_estimator` should be a tf.estimator.Estimator, not {kind}",
            kind=type(answer).__name__,
        )
    if os.path.realpath(str(answer.model_dir)) == os.path.realpath(str(old_model_dir)):
        # the old model's run ends far beyond `steps`: a run of `steps` there started afresh
        trained = tf.train.latest_checkpoint(str(old_model_dir))
        if trained and int(tf.train.load_variable(trained, "global_step")) == steps:
            fail(
                "`fixed_estimator` trained in the old model's folder, which "
                "settings.fresh_model_dir(...) of that name emptied first: the old model is "
                "gone; run the cells that train it again, then give fixed_estimator a "
                "model_dir of its own"
            )
        fail(
            "`fixed_estimator` still uses the old model_dir, so it restores the old "
            "checkpoint: give it a fresh one with settings.fresh_model_dir(...)"
        )
    given = answer.params or {}
    for key, value in params.items():
        if key not in given:
            fail(
                "`fixed_estimator` builds {key}=the default, not the changed model's "
                "{key}={value}: pass params=widened",
                key=key,
                value=value,
            )
        if tuple(np.ravel(given[key])) != tuple(np.ravel(value)):
            fail(
                "`fixed_estimator` builds {key}={built}, not the changed model's "
                "{key}={value}: pass params=widened",
                key=key,
                built=given[key],
                value=value,
            )
    state = tf.train.get_checkpoint_state(str(answer.model_dir))
    if state is None or not state.all_model_checkpoint_paths:
        fail(
            "`fixed_estimator` has no checkpoint yet: it has not trained the {steps} steps the "
            "exercise asks for",
            steps=steps,
        )
    reached = int(answer.get_variable_value("global_step"))
    if reached != steps:
        fail(
            "`fixed_estimator` is at global step {reached}, expected {steps}: train it once "
            "with steps={steps} (a warm start begins at global step 0)",
            reached=reached,
            steps=steps,
        )
    oldest = state.all_model_checkpoint_paths[0]
    # a layer is kept when every variable of it has the old model's shape (dense/bias keeps its
    # shape when dense/kernel grows: that layer changed)
    old_shapes = dict(tf.train.list_variables(str(old_model_dir)))
    weights = {name: shape for name, shape in tf.train.list_variables(oldest) if _is_weight(name)}
    changed = {
        name.rpartition("/")[0] for name, shape in weights.items() if old_shapes.get(name) != shape
    }
    kept = [name for name in weights if name.rpartition("/")[0] not in changed]

    def warm(name: str) -> bool:
        start = tf.train.load_variable(oldest, name)
        source = tf.train.load_variable(str(old_model_dir), name)
        if oldest.endswith("-0"):
            return np.array_equal(start, source)
        return float(np.mean(np.abs(start - source))) < WARM_TOLERANCE

    cold = [name for name in kept if not warm(name)]
    if cold == kept:
        fail(
            "`fixed_estimator` started every variable from new random values, so nothing was "
            "warm-started from the old model: only layers whose shapes did not change can be "
            '(section "Warm start: begin with another model\'s weights")'
        )
    if cold:
        fail(
            "`fixed_estimator` started {cold} from new random values, although their layers "
            "did not change: every layer the old model can give its weights to should start "
            "from them",
            cold=all_of(cold),
        )
    correct(
        "the changed model trained to step {steps} in its own model_dir, and the variables "
        "of the layers it kept ({kept}) started from the old model's values",
        steps=steps,
        kept=all_of(kept),
    )


def _is_weight(name: str) -> bool:
    """A layer's variable, not the global step or an optimizer's (``…/Adam``, ``beta1_power``)."""
    return name != "global_step" and "/Adam" not in name and not name.startswith("beta")
