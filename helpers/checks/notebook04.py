"""Exercise checks of notebook 04 (training, checkpoints, resuming)."""

from __future__ import annotations

import os

from ..problems import CheckFailed
from .common import correct, is_whole_number, reporting_learner_errors, require_answer

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
        raise CheckFailed(
            f"`global_steps` should be a list of {len(calls)} whole numbers, one per train() call"
        )
    if len(answer) != len(calls):
        raise CheckFailed(
            f"`global_steps` has {len(answer)} numbers: give "
            f"one per train() call, {len(calls)} in all"
        )
    ranges = train_ranges(calls)
    for index, ((kind, count), got, run) in enumerate(zip(calls, map(int, answer), ranges)):
        before, call = run.start, f"call {index + 1}, train(..., {kind}={count})"
        if got == run.stop:
            continue
        if kind == "max_steps" and got == before + count:
            raise CheckFailed(
                f"{call}: max_steps is not a number of steps to add but the global "
                f"step to stop at; the model was at {before}"
            )
        if kind == "max_steps" and count < before and got == count:
            raise CheckFailed(
                f"{call}: training never goes back; with the model already at "
                f"{before}, max_steps={count} does nothing"
            )
        if kind == "steps" and got == count:
            raise CheckFailed(
                f"{call}: steps counts from where the model is ({before}), not from 0"
            )
        raise CheckFailed(f"{call}: {got} is not it; the model was at {before} before this call")
    correct(
        f"the global steps are {[run.stop for run in ranges]}: `steps` adds, `max_steps` stops "
        "at a global step and never goes back"
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
        raise CheckFailed(
            "`after_rerun` should be a dict with the two keys 'steps' and 'max_steps'"
        )
    for key, value in answer.items():
        if not is_whole_number(value):
            raise CheckFailed(
                f"after_rerun[{key!r}] should be a whole number (a global step), not {value!r}"
            )
    restored = (crash_at // every) * every  # the scenario never crashes on a saving step
    with_steps, with_max = int(answer["steps"]), int(answer["max_steps"])
    if with_steps != restored + count:
        if with_steps == crash_at + count:
            raise CheckFailed(
                f"after_rerun['steps']: the re-run does not start at {crash_at}, "
                "where it crashed: it starts from the last checkpoint"
            )
        if with_steps == count:
            raise CheckFailed(
                f"after_rerun['steps']: steps={count} adds {count} steps to the "
                "restored model; where does the re-run start?"
            )
        raise CheckFailed(
            f"after_rerun['steps']: {with_steps} is not it; find the last checkpoint "
            f"written before the crash, then add {count}"
        )
    if with_max != count:
        raise CheckFailed(
            f"after_rerun['max_steps']: {with_max} is not it; max_steps={count} is "
            "the global step where training stops, wherever it restarts"
        )
    correct(
        f"the re-run restores step {restored} (the last checkpoint before the crash at "
        f"{crash_at}); steps={count} ends at {restored + count}, max_steps={count} at {count}"
    )


@reporting_learner_errors
def fixed_estimator(
    answer, old_model_dir, params: dict, steps: int, warm_variable: str = "conv2d/kernel"
) -> None:
    """Notebook 04, exercise 3: the widened model, trained in a fresh model_dir, warm-started from
    the old one."""
    require_answer(answer, "fixed_estimator")
    import numpy as np
    import tensorflow as tf

    if not isinstance(answer, tf.estimator.Estimator):
        raise CheckFailed(
            f"`fixed_estimator` should be a tf.estimator.Estimator, not {type(answer).__name__}"
        )
    if os.path.realpath(str(answer.model_dir)) == os.path.realpath(str(old_model_dir)):
        raise CheckFailed(
            "`fixed_estimator` still uses the old model_dir, so it restores the old "
            "checkpoint: give it a fresh one with settings.fresh_model_dir(...)"
        )
    given = answer.params or {}
    for key, value in params.items():
        if key not in given or tuple(np.ravel(given[key])) != tuple(np.ravel(value)):
            raise CheckFailed(
                f"`fixed_estimator` builds {key}={given.get(key, 'the default')}, "
                f"not the changed model's {key}={value}: pass params=widened"
            )
    state = tf.train.get_checkpoint_state(str(answer.model_dir))
    if state is None or not state.all_model_checkpoint_paths:
        raise CheckFailed(
            "`fixed_estimator` has no checkpoint yet: it has not trained the "
            f"{steps} steps the exercise asks for"
        )
    reached = int(answer.get_variable_value("global_step"))
    if reached != steps:
        raise CheckFailed(
            f"`fixed_estimator` is at global step {reached}, expected {steps}: train "
            f"it once with steps={steps} (a warm start begins at global step 0)"
        )
    source = tf.train.load_variable(str(old_model_dir), warm_variable)
    oldest = state.all_model_checkpoint_paths[0]
    start = tf.train.load_variable(oldest, warm_variable)
    if start.shape != source.shape or not (
        np.array_equal(start, source)
        if oldest.endswith("-0")
        else float(np.mean(np.abs(start - source))) < WARM_TOLERANCE
    ):
        raise CheckFailed(
            f"`fixed_estimator` started {warm_variable} from new random values, so nothing was "
            "warm-started from the old model: only layers whose shapes did not change can be "
            '(section "Warm start: begin with another model\'s weights")'
        )
    correct(
        f"the changed model trained to step {steps} in its own model_dir, and {warm_variable} "
        "started from the old model's values"
    )
