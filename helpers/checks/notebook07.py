"""Exercise checks of notebook 07 (early stopping with train_and_evaluate): the hook's decision, a fixed run."""

from __future__ import annotations

import os
from pathlib import Path

from ..problems import CheckFailed
from .common import correct, require_answer, is_whole_number

__all__ = ["hook_decision", "stopped_early"]

# Exercise 1: a validation timeline (step -> macro F1) and the hook's settings.
EXERCISE_1 = {"timeline": {200: 0.951, 400: 0.972, 600: 0.986, 800: 0.979, 1000: 0.981, 1200: 0.984, 1400: 0.983,
                            1600: 0.984, 1800: 0.982, 2000: 0.984, 2200: 0.985, 2400: 0.983},
              "patience": 600, "min_steps": 1000}


def hook_decision(answer, scenario=None) -> None:
    """Notebook 07, exercise 1: the hook's best step and the evaluation after which it stops."""
    require_answer(answer, "decision")
    from ..early_stopping import best_step, stop_after
    scenario = dict(EXERCISE_1, **(scenario or {}))
    timeline, patience, min_steps = scenario["timeline"], scenario["patience"], scenario["min_steps"]
    if not isinstance(answer, dict) or set(answer) != {"best_step", "stops_after"}:
        raise CheckFailed("`decision` should be a dict with the two keys 'best_step' and 'stops_after'")
    for key, value in sorted(answer.items()):
        if not (is_whole_number(value) or (key == "stops_after" and value is None)):
            raise CheckFailed(f"decision[{key!r}] should be a global step (a whole number), not {value!r}")
    got_best = int(answer["best_step"])
    got_stop = None if answer["stops_after"] is None else int(answer["stops_after"])
    stop = stop_after(timeline, patience, True, min_steps)
    seen = {step: value for step, value in timeline.items() if stop is None or step <= stop}
    best_at, _ = best_step(seen, True, min_steps)  # the best when the hook stops
    if got_best != best_at:
        if got_best == best_step(timeline, True, 0)[0]:  # min_steps ignored
            raise CheckFailed(f"decision['best_step']: the evaluation at step {got_best} is below "
                              f"min_steps={min_steps}, and the hook skips every evaluation below min_steps: it "
                              "cannot be the best")
        if got_best in timeline and got_best > best_at and timeline[got_best] == timeline[best_at]:
            raise CheckFailed(f"decision['best_step']: at step {got_best} the value equals the best so far, and an "
                              "equal value is not an increase: the best stays at the earlier step")
        if got_best not in timeline:
            raise CheckFailed(f"decision['best_step']: there is no evaluation at step {got_best}")
        if stop is not None and got_best > stop:
            raise CheckFailed(f"decision['best_step']: the hook asks to stop before step {got_best}, so it never "
                              "sees that evaluation: the best is the best when it stops")
        raise CheckFailed(f"decision['best_step']: {got_best} is not it; go through the evaluations in order from "
                          "min_steps on, keeping the best so far, until the hook stops")
    if got_stop != stop:
        if got_stop == stop + 1:
            raise CheckFailed(f"decision['stops_after']: {got_stop} is where training ends, one step after the "
                              "hook's request; give the step of the evaluation after which the hook asks to stop")
        if got_stop == stop_after(timeline, patience + 1, True, min_steps):  # waiting for more than the patience
            raise CheckFailed("decision['stops_after']: the hook stops as soon as step - best_step >= "
                              f"max_steps_without_increase ({patience}); reaching it is enough, it need not be "
                              "exceeded")
        # an equal value counted as an increase: (value, step) pairs, of equal values the later compares higher
        if got_stop is None or got_stop == stop_after({step: (value, step) for step, value in timeline.items()},
                                                      patience, True, min_steps):
            raise CheckFailed("decision['stops_after']: the hook does stop; count the steps since the best "
                              "evaluation (an equal value is not an increase)")
        raise CheckFailed(f"decision['stops_after']: {got_stop} is not it; the hook stops at the first evaluation "
                          f"at least {patience} steps after the best one")
    correct(f"the best evaluation counted is at step {best_at} (those below min_steps={min_steps} are skipped, "
            f"equal values do not count); at step {stop} it is {stop - best_at} steps old, so the hook asks to "
            f"stop there, and training ends at {stop + 1}")


def stopped_early(answer, broken_model_dir, max_steps: int, eval_name: str, every: int) -> None:
    """Notebook 07, exercise 2: the fixed run stopped before ``max_steps``, evaluating every ``every`` steps."""
    require_answer(answer, "fixed_estimator")
    import tensorflow as tf
    from ..early_stopping import read_eval_results
    if not isinstance(answer, tf.compat.v1.estimator.Estimator):  # add_metrics returns the v1 class
        raise CheckFailed(f"`fixed_estimator` should be a tf.estimator.Estimator, not {type(answer).__name__}")
    if os.path.realpath(str(answer.model_dir)) == os.path.realpath(str(broken_model_dir)):
        raise CheckFailed("`fixed_estimator` uses the broken run's model_dir, whose old evaluations and checkpoint "
                          "the hook would read, so it stops at once (section 'Trap 5: running the same cell again')")
    if tf.train.latest_checkpoint(str(answer.model_dir)) is None:
        raise CheckFailed("`fixed_estimator` has no checkpoint yet: run tf.estimator.train_and_evaluate with it")
    final = int(answer.get_variable_value("global_step"))
    folder = Path(answer.eval_dir(eval_name))
    evaluated = sorted(read_eval_results(folder))
    if not evaluated:
        others = sorted(path.name for path in Path(answer.model_dir).glob("eval*") if path.is_dir())
        raise CheckFailed(f"no evaluations in {folder.name}/ (found: {', '.join(others) or 'none'}): keep "
                          f"EvalSpec(name={eval_name!r}), the exercise's evaluation set")
    if [step for step in evaluated if step % every == 0 and step < final] != list(range(every, final, every)):
        ran = f"ran to max_steps={max_steps} and" if final >= max_steps else f"stopped at step {final}, but"
        raise CheckFailed(f"training {ran} evaluations were skipped (only at steps {evaluated}): by default "
                          "train_and_evaluate evaluates at most every 10 minutes (section 'Trap 4: evaluations "
                          "skipped by `throttle_secs`')")
    if final >= max_steps:
        raise CheckFailed(f"training ran to max_steps={max_steps} although an evaluation was written to "
                          f"{folder.name}/ every {every} steps: the hook never saw them, because it reads another "
                          "folder or looks too rarely (sections 'Trap 1: a named evaluation, and a hook that never "
                          "fires' and 'Trap 3: the 60-second timer')")
    correct(f"training stopped at step {final}, before max_steps={max_steps}: evaluation ran at every checkpoint "
            f"into {folder.name}/ and the hook read it there every {every} steps")
