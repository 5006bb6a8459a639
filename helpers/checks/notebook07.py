"""Exercise checks of notebook 07 (early stopping with train_and_evaluate): the hook's decision, a
fixed run."""

from __future__ import annotations

import os
from pathlib import Path

from ..problems import CheckFailed
from .common import correct, is_whole_number, reporting_learner_errors, require_answer

__all__ = ["hook_decision", "stopped_early"]

# Exercise 1: a validation timeline (step -> macro F1) and the hook's settings.
EXERCISE_1 = {
    "timeline": {
        200: 0.951,
        400: 0.972,
        600: 0.986,
        800: 0.979,
        1000: 0.981,
        1200: 0.984,
        1400: 0.983,
        1600: 0.984,
        1800: 0.982,
        2000: 0.984,
        2200: 0.985,
        2400: 0.983,
    },
    "patience": 600,
    "min_steps": 1000,
}


@reporting_learner_errors
def hook_decision(answer, scenario=None) -> None:
    """Notebook 07, exercise 1: the hook's best step and the evaluation after which it stops."""
    require_answer(answer, "decision")
    from ..early_stopping import best_step, stop_after

    scenario = dict(EXERCISE_1, **(scenario or {}))
    timeline, patience = scenario["timeline"], scenario["patience"]
    min_steps = scenario["min_steps"]
    if not isinstance(answer, dict) or set(answer) != {"best_step", "stops_after"}:
        raise CheckFailed(
            "`decision` should be a dict with the two keys 'best_step' and 'stops_after'"
        )
    for key, value in sorted(answer.items()):
        if not (is_whole_number(value) or (key == "stops_after" and value is None)):
            raise CheckFailed(
                f"decision[{key!r}] should be a global step (a whole number), not {value!r}"
            )
    got_best = int(answer["best_step"])
    got_stop = None if answer["stops_after"] is None else int(answer["stops_after"])
    stop = stop_after(timeline, patience, True, min_steps)
    seen = {step: value for step, value in timeline.items() if stop is None or step <= stop}
    best_at, _ = best_step(seen, True, min_steps)  # the best when the hook stops
    if got_best != best_at:
        _wrong_best_step(got_best, best_at, stop, timeline, min_steps)
    if got_stop != stop:
        _wrong_stop(got_stop, stop, timeline, patience, min_steps)
    correct(
        f"the best evaluation counted is at step {best_at} (those below min_steps={min_steps} "
        f"are skipped, equal values do not count); at step {stop} it is {stop - best_at} steps "
        f"old, so the hook asks to stop there, and training ends at {stop + 1}"
    )


def _wrong_best_step(got_best, best_at, stop, timeline, min_steps) -> None:
    """Raise what is wrong with the learner's ``decision['best_step']``."""
    from ..early_stopping import best_step

    if got_best == best_step(timeline, True, 0)[0]:  # min_steps ignored
        raise CheckFailed(
            f"decision['best_step']: the evaluation at step {got_best} is below "
            f"min_steps={min_steps}, and the hook skips every evaluation below "
            "min_steps: it cannot be the best"
        )
    if got_best in timeline and got_best > best_at and timeline[got_best] == timeline[best_at]:
        raise CheckFailed(
            f"decision['best_step']: at step {got_best} the value "
            "equals the best so far, and an equal value is not "
            "an increase: the best stays at the earlier step"
        )
    if got_best not in timeline:
        raise CheckFailed(f"decision['best_step']: there is no evaluation at step {got_best}")
    if stop is not None and got_best > stop:
        raise CheckFailed(
            f"decision['best_step']: the hook asks to stop before step {got_best}, "
            "so it never sees that evaluation: the best is the best when it stops"
        )
    raise CheckFailed(
        f"decision['best_step']: {got_best} is not it; go through the evaluations "
        "in order from min_steps on, keeping the best so far, until the hook stops"
    )


def _wrong_stop(got_stop, stop, timeline, patience, min_steps) -> None:
    """Raise what is wrong with the learner's ``decision['stops_after']``."""
    from ..early_stopping import stop_after

    if got_stop == stop + 1:
        raise CheckFailed(
            f"decision['stops_after']: {got_stop} is where training ends, one "
            "step after the hook's request; give the step of the evaluation "
            "after which the hook asks to stop"
        )
    # waiting for more than the patience
    if got_stop == stop_after(timeline, patience + 1, True, min_steps):
        raise CheckFailed(
            "decision['stops_after']: the hook stops as soon as step - "
            f"best_step >= max_steps_without_increase ({patience}); reaching it "
            "is enough, it need not be exceeded"
        )
    # an equal value counted as an increase: (value, step) pairs, of equal values the later
    # compares higher
    if got_stop is None or got_stop == stop_after(
        {step: (value, step) for step, value in timeline.items()}, patience, True, min_steps
    ):
        raise CheckFailed(
            "decision['stops_after']: the hook does stop; count the steps since "
            "the best evaluation (an equal value is not an increase)"
        )
    raise CheckFailed(
        f"decision['stops_after']: {got_stop} is not it; the hook stops at the "
        f"first evaluation at least {patience} steps after the best one"
    )


# Exercise 2: the key the exercise's metric_fn gives the macro precision, and the model's other
# results.
EXERCISE_2 = {"metric": "precision_", "other_results": ("accuracy", "loss")}


def _hook_problem(hook, estimator, eval_name: str, every: int, patience: int) -> str | None:
    """The first way ``hook`` differs from the exercise's, read from its should_stop_fn's closure
    and its timer."""
    import inspect
    import operator
    from ..settings import display_path

    rule = getattr(hook, "_should_stop_fn", None)
    found = (
        inspect.getclosurevars(rule).nonlocals if callable(rule) and hasattr(hook, "_timer") else {}
    )
    if "max_steps_without_improvement" not in found:
        return (
            "`fixed_hook` should be what stop_if_no_increase_hook "
            f"returns, not {type(hook).__name__}"
        )
    name, steps, reads = (
        found["metric_name"],
        found["max_steps_without_improvement"],
        found["eval_dir"],
    )
    secs, looks = hook._timer._every_secs, hook._timer._every_steps
    if found["is_lhs_better"] is not operator.gt:
        return (
            "`fixed_hook` waits for a decrease, as for a loss: the exercise keeps "
            "stop_if_no_increase_hook, for a metric that should rise"
        )
    if name != EXERCISE_2["metric"]:
        return f"`fixed_hook` watches {name!r}, " + (
            "another of the model's results: the exercise stops on its macro precision"
            if name in EXERCISE_2["other_results"]
            else "which is not among this model's evaluation results (the hook raises KeyError "
            "once it reads one): find the name its metric_fn gives the precision (section "
            "'Trap 2: a metric name that evaluation does not produce')"
        )
    if steps != patience:
        unit = (
            " (patience counts global steps, not evaluations)" if steps * every == patience else ""
        )
        return (
            f"`fixed_hook` has max_steps_without_increase={steps}: "
            f"keep PATIENCE_DEMO, {patience} steps{unit}"
        )
    if found["min_steps"]:
        return (
            f"`fixed_hook` has min_steps={found['min_steps']}: "
            "it skips the first evaluations and stops late"
        )
    if os.path.realpath(str(reads)) != os.path.realpath(str(estimator.eval_dir(eval_name))):
        return (
            f"`fixed_hook` reads {display_path(reads)}, but fixed_estimator's "
            f"EvalSpec(name={eval_name!r}) writes to "
            f"{display_path(estimator.eval_dir(eval_name))} (section 'Trap 1: a named "
            "evaluation, and a hook that never fires')"
        )
    if secs is not None:
        return (
            f"`fixed_hook` looks every {secs} seconds: a run of a few seconds gets one look, "
            "before any evaluation (section 'Trap 3: the 60-second timer')"
        )
    if looks > every:
        return (
            f"`fixed_hook` looks every {looks} steps, less often "
            f"than evaluation runs (every {every}): it stops late"
        )
    return None


@reporting_learner_errors
def stopped_early(
    answer, hook, broken_model_dir, max_steps: int, eval_name: str, every: int, patience: int
) -> None:
    """Notebook 07, exercise 2: the exercise's hook, fixed, stopped the run where a working hook
    stops it."""
    require_answer(answer, "fixed_estimator")
    require_answer(hook, "fixed_hook")
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.early_stopping import read_eval_metrics

    if not isinstance(answer, tf.compat.v1.estimator.Estimator):  # add_metrics returns the v1 class
        raise CheckFailed(
            f"`fixed_estimator` should be a tf.estimator.Estimator, not {type(answer).__name__}"
        )
    if problem := _hook_problem(hook, answer, eval_name, every, patience):
        raise CheckFailed(problem)
    if os.path.realpath(str(answer.model_dir)) == os.path.realpath(str(broken_model_dir)):
        raise CheckFailed(
            "`fixed_estimator` uses the broken run's model_dir, whose old "
            "evaluations and checkpoint the hook would read, so it stops at once "
            "(section 'Trap 5: running the same cell again')"
        )
    if tf.train.latest_checkpoint(str(answer.model_dir)) is None:
        raise CheckFailed(
            "`fixed_estimator` has no checkpoint yet: run tf.estimator.train_and_evaluate with it"
        )
    final, folder = int(answer.get_variable_value("global_step")), Path(answer.eval_dir(eval_name))
    evaluated = sorted(read_eval_metrics(str(folder)))
    if not evaluated:
        others = sorted(path.name for path in Path(answer.model_dir).glob("eval*") if path.is_dir())
        raise CheckFailed(
            f"no evaluations in {folder.name}/ (found: "
            f"{', '.join(others) or 'none'}): keep "
            f"EvalSpec(name={eval_name!r}), the exercise's evaluation set"
        )
    if [step for step in evaluated if step % every == 0 and step < final] != list(
        range(every, final, every)
    ):
        ran = (
            f"ran to max_steps={max_steps} and"
            if final >= max_steps
            else f"stopped at step {final}, but"
        )
        raise CheckFailed(
            f"training {ran} evaluations were skipped (only at steps {evaluated}): "
            "by default train_and_evaluate evaluates at most every 10 minutes "
            "(section 'Trap 4: evaluations skipped by `throttle_secs`')"
        )
    if final != every + patience + 1:
        raise CheckFailed(
            f"training ended at step {final}, and a working hook stops this "
            f"model at step {every + patience + 1}: run train_and_evaluate "
            "with fixed_hook in the TrainSpec, with the broken run's "
            "metric_fn (a run that raised ends at its last checkpoint)"
        )
    correct(
        f"the hook watched the macro precision in {folder.name}/, looked after each "
        f"evaluation, and stopped training at step {final}, {patience} steps after the first "
        f"evaluation, before max_steps={max_steps}"
    )
