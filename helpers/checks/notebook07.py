"""Exercise checks of notebook 07 (early stopping with train_and_evaluate)."""

from __future__ import annotations

import os
from pathlib import Path

from ..problems import CheckFailed
from .common import correct, require_answer, is_whole_number

__all__ = ["hook_decision", "stopped_early"]

# Exercise 1: a validation timeline (step -> macro F1) and the hook's settings.
EXERCISE_1 = {
    "timeline": {200: 0.951, 400: 0.972, 600: 0.986, 800: 0.979, 1000: 0.981, 1200: 0.984,
                 1400: 0.983, 1600: 0.984, 1800: 0.982, 2000: 0.984, 2200: 0.985, 2400: 0.983},
    "patience": 600,
    "min_steps": 1000,
}


def _first_equal_as_better(timeline, patience, min_steps):
    """(best, stop) if an equal value counted as an improvement (a wrong reading)."""
    best, best_at, stop = None, None, None
    for step, value in sorted(timeline.items()):
        if step < min_steps:
            continue
        if best is None or value >= best:
            best, best_at = value, step
        if stop is None and step - best_at >= patience:
            stop = step
    return best_at, stop


def _strictly_more(timeline, patience, min_steps):
    """The stop if the hook needed more than ``patience`` steps (a wrong reading)."""
    best, best_at = None, None
    for step, value in sorted(timeline.items()):
        if step < min_steps:
            continue
        if best is None or value > best:
            best, best_at = value, step
        if step - best_at > patience:
            return step
    return None


def hook_decision(answer, scenario=None) -> None:
    """Notebook 07, exercise 1: the hook's best step and the evaluation after which it stops."""
    require_answer(answer, "decision")
    from ..early_stopping import best_step, stop_after

    scenario = dict(EXERCISE_1, **(scenario or {}))
    timeline, patience, min_steps = scenario["timeline"], scenario["patience"], scenario["min_steps"]
    if not isinstance(answer, dict) or set(answer) != {"best_step", "stops_after"}:
        raise CheckFailed("`decision` should be a dict with the two keys 'best_step' and 'stops_after'")
    for key in ("best_step", "stops_after"):
        value = answer[key]
        if not (is_whole_number(value) or (key == "stops_after" and value is None)):
            raise CheckFailed(f"decision[{key!r}] should be a global step (a whole number), not {value!r}")
    got_best = int(answer["best_step"])
    got_stop = None if answer["stops_after"] is None else int(answer["stops_after"])
    stop = stop_after(timeline, patience, True, min_steps)
    seen = {step: value for step, value in timeline.items() if stop is None or step <= stop}
    best_at, _ = best_step(seen, True, min_steps)  # the best when the hook stops
    ignoring_min_best, _ = best_step(timeline, True, 0)
    equal_best, equal_stop = _first_equal_as_better(timeline, patience, min_steps)

    if got_best != best_at:
        if got_best == ignoring_min_best:
            raise CheckFailed(
                f"decision['best_step']: the evaluation at step {got_best} is below min_steps={min_steps}, "
                "and the hook skips every evaluation below min_steps: it cannot be the best")
        if got_best in timeline and got_best > best_at and timeline[got_best] == timeline[best_at]:
            raise CheckFailed(
                f"decision['best_step']: at step {got_best} the value equals the best so far, and an equal "
                "value is not an increase: the best stays at the earlier step")
        if got_best not in timeline:
            raise CheckFailed(f"decision['best_step']: there is no evaluation at step {got_best}")
        if stop is not None and got_best > stop:
            raise CheckFailed(
                f"decision['best_step']: the hook asks to stop before step {got_best}, so it never sees "
                "that evaluation: the best is the best when it stops")
        raise CheckFailed(
            f"decision['best_step']: {got_best} is not it; go through the evaluations in order from "
            "min_steps on, keeping the best so far, until the hook stops")
    if got_stop != stop:
        if got_stop == stop + 1:
            raise CheckFailed(
                f"decision['stops_after']: {got_stop} is where training ends, one step after the hook's "
                "request; give the step of the evaluation after which the hook asks to stop")
        if got_stop == _strictly_more(timeline, patience, min_steps):
            raise CheckFailed(
                f"decision['stops_after']: the hook stops as soon as step - best_step >= "
                f"max_steps_without_increase ({patience}); reaching it is enough, it need not be exceeded")
        if got_stop is None or got_stop == equal_stop:
            raise CheckFailed(
                "decision['stops_after']: the hook does stop; count the steps since the best evaluation "
                "(an equal value is not an increase)")
        raise CheckFailed(
            f"decision['stops_after']: {got_stop} is not it; the hook stops at the first evaluation at "
            f"least {patience} steps after the best one")
    correct(
        f"the best evaluation counted is at step {best_at} (those below min_steps={min_steps} are skipped, "
        f"equal values do not count); at step {stop} it is {stop - best_at} steps old, so the hook asks to stop "
        f"there, and training ends at {stop + 1}")


def stopped_early(answer, broken_model_dir, max_steps: int, eval_name: str, every: int) -> None:
    """Notebook 07, exercise 2: the fixed run stopped before ``max_steps``, evaluating every ``every`` steps."""
    require_answer(answer, "fixed_estimator")
    import tensorflow as tf

    from ..early_stopping import read_eval_results

    if not isinstance(answer, tf.estimator.Estimator):
        raise CheckFailed(f"`fixed_estimator` should be a tf.estimator.Estimator, not {type(answer).__name__}")
    if os.path.realpath(str(answer.model_dir)) == os.path.realpath(str(broken_model_dir)):
        raise CheckFailed(
            "`fixed_estimator` uses the broken run's model_dir, whose old evaluations and checkpoint the "
            "hook would read, so it stops at once (section 'Trap 5: running the same cell again')")
    if tf.train.latest_checkpoint(str(answer.model_dir)) is None:
        raise CheckFailed("`fixed_estimator` has no checkpoint yet: run tf.estimator.train_and_evaluate with it")
    final = int(answer.get_variable_value("global_step"))
    eval_dir = answer.eval_dir(eval_name)
    evaluated = sorted(read_eval_results(eval_dir))
    if not evaluated:
        others = sorted(path.name for path in Path(answer.model_dir).glob("eval*") if path.is_dir())
        raise CheckFailed(
            f"no evaluations in {Path(eval_dir).name}/ (found: {', '.join(others) or 'none'}): keep "
            f"EvalSpec(name={eval_name!r}), the exercise's evaluation set")
    between = [step for step in evaluated if step % every == 0 and step < final]
    expected_between = list(range(every, final, every))
    if final >= max_steps:
        if between != expected_between:
            raise CheckFailed(
                f"training ran to max_steps={max_steps} and evaluations were skipped (only at steps "
                f"{evaluated}): by default train_and_evaluate evaluates at most every 10 minutes (section "
                "'Trap 4: evaluations skipped by `throttle_secs`')")
        raise CheckFailed(
            f"training ran to max_steps={max_steps} although an evaluation was written to "
            f"{Path(eval_dir).name}/ every {every} steps: the hook never saw them, because it reads another "
            "folder or looks too rarely (sections 'Trap 1: a named evaluation, and a hook that never fires' "
            "and 'Trap 3: the 60-second timer')")
    if between != expected_between:
        raise CheckFailed(
            f"training stopped at step {final}, but evaluations were skipped (only at steps {evaluated}): "
            "by default train_and_evaluate evaluates at most every 10 minutes (section 'Trap 4: evaluations "
            "skipped by `throttle_secs`')")
    correct(
        f"training stopped at step {final}, before max_steps={max_steps}: evaluation ran at every checkpoint "
        f"into {Path(eval_dir).name}/ and the hook read it there every {every} steps")
