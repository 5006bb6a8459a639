"""Exercise checks of notebook 07 (early stopping with train_and_evaluate): the hook's decision, a
fixed run."""

from __future__ import annotations

import collections
import contextlib
import copy
import os
import time
from pathlib import Path
from unittest import mock

from ..language import _, listed
from ..logs import logger_level
from ..problems import CheckFailed
from .common import correct, fail, is_whole_number, reporting_learner_errors, require_answer

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


# The run the sections train (full mode), as the notebook prints it: "best validation F1 … at step
# 1400", "Requesting early stopping at global step 1800", training ended at step 1801.
SECTIONS_RUN = {"best_step": 1400, "stops_after": (1800, 1801)}


@reporting_learner_errors
def hook_decision(answer) -> None:
    """Notebook 07, exercise 1: the hook's best step and the evaluation after which it stops."""
    require_answer(answer, "decision")
    if _copied_from_the_sections_run(answer):
        fail(
            "`decision` holds the best step and the stop of the run trained in the sections "
            "above, {best} and {stop}: the exercise asks about the table in its own prompt, "
            "with max_steps_without_increase={patience} and min_steps={min_steps}; work both "
            "steps out from that table",
            best=answer["best_step"],
            stop=answer["stops_after"],
            patience=EXERCISE_1["patience"],
            min_steps=EXERCISE_1["min_steps"],
        )
    judge_decision(answer, **EXERCISE_1)


def _copied_from_the_sections_run(answer) -> bool:
    """Whether ``answer`` is the sections' run's best step and stop (or its last step)."""
    return (
        isinstance(answer, dict)
        and set(answer) == {"best_step", "stops_after"}
        and all(is_whole_number(value) for value in answer.values())
        and answer["best_step"] == SECTIONS_RUN["best_step"]
        and answer["stops_after"] in SECTIONS_RUN["stops_after"]
    )


def judge_decision(answer, timeline: dict, patience: int, min_steps: int) -> None:
    """``hook_decision`` on any timeline and hook settings (the exercise's, or a test's)."""
    from ..early_stopping import best_step, stop_after

    if not isinstance(answer, dict) or set(answer) != {"best_step", "stops_after"}:
        fail("`decision` should be a dict with the two keys 'best_step' and 'stops_after'")
    for key, value in sorted(answer.items()):
        if not (is_whole_number(value) or (key == "stops_after" and value is None)):
            fail(
                "decision[{key!r}] should be a global step (a whole number), not {value!r}",
                key=key,
                value=value,
            )
    got_best = int(answer["best_step"])
    got_stop = None if answer["stops_after"] is None else int(answer["stops_after"])
    stop = stop_after(timeline, patience, True, min_steps)
    seen = {step: value for step, value in timeline.items() if stop is None or step <= stop}
    best_at = best_step(seen, True, min_steps)[0]  # the best when the hook stops
    if got_best != best_at:
        _wrong_best_step(got_best, best_at, stop, timeline, min_steps)
    if got_stop != stop:
        _wrong_stop(got_stop, stop, timeline, patience, min_steps)
    if stop is None:
        correct(
            "the best evaluation counted is at step {best} (those below min_steps={min_steps} "
            "are skipped, equal values do not count), and no later evaluation is {patience} "
            "steps after it, so the hook never asks to stop and training runs to max_steps",
            best=best_at,
            min_steps=min_steps,
            patience=patience,
        )
        return
    correct(
        "the best evaluation counted is at step {best} (those below min_steps={min_steps} are "
        "skipped, equal values do not count); at step {stop} it is {age} steps old, so the "
        "hook asks to stop there, and training ends at step {end}",
        best=best_at,
        min_steps=min_steps,
        stop=stop,
        age=stop - best_at,
        end=stop + 1,
    )


def _wrong_best_step(got_best, best_at, stop, timeline, min_steps) -> None:
    """Raise what is wrong with the learner's ``decision['best_step']``."""
    from ..early_stopping import best_step

    if got_best == best_step(timeline, True, 0)[0]:  # min_steps ignored
        fail(
            "decision['best_step'] is {got}, an evaluation below min_steps={min_steps}, and "
            "the hook skips every evaluation below min_steps: it cannot be the best",
            got=got_best,
            min_steps=min_steps,
        )
    if got_best in timeline and got_best > best_at and timeline[got_best] == timeline[best_at]:
        fail(
            "decision['best_step'] is {got}, whose value only equals the best so far, and an "
            "equal value is not an increase: the best stays at the earlier step",
            got=got_best,
        )
    if got_best not in timeline:
        fail(
            "decision['best_step'] is {got}, but there is no evaluation at step {got}", got=got_best
        )
    if stop is not None and got_best > stop:
        fail(
            "decision['best_step'] is {got}, but the hook asks to stop before step {got}, so "
            "it never sees that evaluation: the best is the best when it stops",
            got=got_best,
        )
    fail(
        "decision['best_step'] is {got}, which is not the hook's best: go through the "
        "evaluations in order from min_steps on, keeping the best so far, until the hook stops",
        got=got_best,
    )


def _wrong_stop(got_stop, stop, timeline, patience, min_steps) -> None:
    """Raise what is wrong with the learner's ``decision['stops_after']`` (``stop``: the hook's,
    None when it never stops)."""
    from ..early_stopping import stop_after

    if stop is None:
        fail(
            "decision['stops_after'] is {got}, but no evaluation is {patience} steps after "
            "the best one, so the hook never asks to stop: give None",
            got=got_stop,
            patience=patience,
        )
    if got_stop == stop + 1:
        fail(
            "decision['stops_after'] is {got}, the step where training ends, one step after "
            "the hook's request: give the step of the evaluation after which the hook asks to "
            "stop",
            got=got_stop,
        )
    # waiting for more than the patience
    if got_stop == stop_after(timeline, patience + 1, True, min_steps):
        fail(
            "decision['stops_after'] is {got}, but the hook stops as soon as step - best_step "
            ">= max_steps_without_increase ({patience}): reaching it is enough, it need not be "
            "exceeded",
            got=got_stop,
            patience=patience,
        )
    # an equal value counted as an increase: (value, step) pairs, of equal values the later
    # compares higher
    if got_stop is None or got_stop == stop_after(
        {step: (value, step) for step, value in timeline.items()}, patience, True, min_steps
    ):
        fail(
            "decision['stops_after'] is {got}, but the hook does stop: count the steps since "
            "the best evaluation (an equal value is not an increase)",
            got=got_stop,
        )
    fail(
        "decision['stops_after'] is {got}, which is not where the hook stops: it stops at the "
        "first evaluation at least {patience} steps after the best one",
        got=got_stop,
        patience=patience,
    )


# Exercise 2: the key the exercise's metric_fn gives the macro precision, and the model's other
# results.
EXERCISE_2 = {"metric": "precision_", "other_results": ("accuracy", "loss")}


# The variable an early-stopping hook sets to ask for the stop (early_stopping.py in
# tensorflow_estimator), which the run's last checkpoint saves.
STOP_SIGNAL = "signal_early_stopping/STOP"
# Steps and seconds between two probes of a hook: beyond any timer, patience or min_steps a learner
# sets, so each probe is a look and each timeline's steps are counted.
_FAR = 10**7
# Training steps a probe drives to see how often a hook looks (once a step, once a second).
_STEPS_DRIVEN = 1000


class _Results(dict):
    """One evaluation's results as the hook reads them: any key gives ``value``, and is recorded."""

    def __init__(self, value, keys: list):
        super().__init__()
        self.value, self.keys_read = value, keys

    def __getitem__(self, key):
        self.keys_read.append(key)
        return self.value


class _HookProbe:
    """A copy of the learner's hook run as a training loop runs it (``after_run`` with the global
    step), with the evaluation results it reads and the clock it sees chosen here: what it watches,
    and when it stops, are observed, not read from its attributes."""

    def __init__(self, hook):
        self.hook = copy.copy(hook)  # the learner's hook keeps its own timer
        vars(self.hook).update({key: copy.copy(value) for key, value in vars(hook).items()})
        self.step, self.clock = _FAR, time.time() + _FAR
        self.timeline: dict = {}
        self.folders: list = []  # the folder of each look
        self.keys_read: list = []

    def _read_eval_metrics(self, eval_dir):
        self.folders.append(eval_dir)
        return collections.OrderedDict(
            (step, _Results(value, self.keys_read)) for step, value in sorted(self.timeline.items())
        )

    @contextlib.contextmanager
    def running(self):
        """Inside: evaluations from ``self.timeline``, the clock at ``self.clock``, no log."""
        from tensorflow_estimator.python.estimator import early_stopping

        with (
            mock.patch.object(early_stopping, "read_eval_metrics", self._read_eval_metrics),
            mock.patch("time.time", lambda: self.clock),
            logger_level("WARNING"),
        ):
            yield

    def after_run(self) -> bool:
        """One training step at ``self.step``: whether the hook asked to stop."""
        import tensorflow as tf

        context = tf.compat.v1.train.SessionRunContext(original_args=None, session=_NoSession())
        values = tf.compat.v1.train.SessionRunValues(
            results=self.step, options=None, run_metadata=None
        )
        self.hook.after_run(context, values)
        return context.stop_requested

    def stops_on(self, timeline: dict) -> bool:
        """Whether the hook, looking at evaluations ``{step: value}``, asks to stop."""
        self.timeline = timeline
        self.step, self.clock = self.step + _FAR, self.clock + _FAR
        return self.after_run()

    def looks(self, steps: int, seconds_per_step: float) -> list:
        """Of ``steps`` training steps, the ones (counted from 0) after which the hook looked."""
        self.timeline = {}
        self.step, self.clock = self.step + _FAR, self.clock + _FAR
        looked = []
        for index in range(steps):
            before = len(self.folders)
            self.after_run()
            if len(self.folders) > before:
                looked.append(index)
            self.step, self.clock = self.step + 1, self.clock + seconds_per_step
        return looked

    def smallest(self, stops) -> int | None:
        """The smallest whole number n in [0, _FAR] for which ``stops(n)`` (true from there on)."""
        if not stops(_FAR):
            return None
        low, high = 0, _FAR
        while low < high:
            middle = (low + high) // 2
            low, high = (low, middle) if stops(middle) else (middle + 1, high)
        return low


class _NoSession:
    """The session a probe's ``after_run`` runs the hook's stop op in: nothing to run."""

    def run(self, *args, **kwargs):
        return None


def _hook_problem(hook, estimator, eval_name: str, every: int, patience: int) -> str | None:
    """The first way ``hook`` differs from the exercise's, observed by running a copy of it."""
    import tensorflow as tf

    kind = type(hook).__name__
    if not isinstance(hook, tf.compat.v1.train.SessionRunHook):
        return _("`fixed_hook` should be what stop_if_no_increase_hook returns, not {kind}").format(
            kind=kind
        )
    probe = _HookProbe(hook)
    with probe.running():
        try:
            rises = probe.stops_on({_FAR: 0.1, 2 * _FAR: 0.2, 3 * _FAR: 0.3})
        except Exception:  # noqa: BLE001 - a hook that cannot run this way is not the exercise's
            rises = None
        if rises is None or not probe.keys_read:
            return _(
                "`fixed_hook` is a {kind} that does not read a metric of the evaluations: make it "
                "with stop_if_no_increase_hook"
            ).format(kind=kind)
        name = probe.keys_read[0]
        waited = probe.smallest(lambda gap: probe.stops_on({_FAR: 0.9, _FAR + gap: 0.5}))
        skipped = probe.smallest(
            lambda first: probe.stops_on({first: 0.9, first + (waited or 0): 0.5})
        )
        still = probe.looks(_STEPS_DRIVEN, 0.0)
        timed = probe.looks(_STEPS_DRIVEN, 1.0)
    return _watch_problem(rises, name, waited, skipped, every, patience) or _look_problem(
        probe.folders[0], estimator, eval_name, still, timed, every
    )


def _watch_problem(rises, name, waited, skipped, every: int, patience: int) -> str | None:
    """What the hook watches and how long it waits, against the exercise's; None when both fit."""
    if rises:
        return _(
            "`fixed_hook` waits for a decrease, as for a loss: the exercise keeps "
            "stop_if_no_increase_hook, for a metric that should rise"
        )
    if name != EXERCISE_2["metric"] and name in EXERCISE_2["other_results"]:
        return _(
            "`fixed_hook` watches {name!r}, another of the model's results: the exercise stops on "
            "its macro precision"
        ).format(name=name)
    if name != EXERCISE_2["metric"]:
        return _(
            "`fixed_hook` watches {name!r}, which is not among this model's evaluation results "
            "(the hook raises KeyError once it reads one): find the name its metric_fn gives the "
            "precision (section 'Trap 2: a metric name that evaluation does not produce')"
        ).format(name=name)
    if waited is None:
        return _(
            "`fixed_hook` never asks to stop, even {far} steps after the best evaluation: keep "
            "PATIENCE_DEMO, {patience} steps, as max_steps_without_increase"
        ).format(far=_FAR, patience=patience)
    if waited * every == patience:
        return _(
            "`fixed_hook` has max_steps_without_increase={waited}: keep PATIENCE_DEMO, {patience} "
            "steps (patience counts global steps, not evaluations)"
        ).format(waited=waited, patience=patience)
    if waited != patience:
        return _(
            "`fixed_hook` has max_steps_without_increase={waited}: keep PATIENCE_DEMO, {patience} "
            "steps"
        ).format(waited=waited, patience=patience)
    if skipped:
        return _(
            "`fixed_hook` has min_steps={skipped}: it skips the first evaluations and stops late"
        ).format(skipped=skipped)
    return None


def _look_problem(reads, estimator, eval_name: str, still, timed, every: int) -> str | None:
    """Which folder the hook reads and how often it looks, against the exercise's."""
    from ..paths import display_path

    expected = estimator.eval_dir(eval_name)
    if os.path.realpath(str(reads)) != os.path.realpath(str(expected)):
        return _(
            "`fixed_hook` reads {reads}, but fixed_estimator's EvalSpec(name={eval_name!r}) "
            "writes to {expected} (section 'Trap 1: a named evaluation, and a hook that never "
            "fires')"
        ).format(reads=display_path(reads), eval_name=eval_name, expected=display_path(expected))
    if len(still) < 2 and len(timed) >= 2:
        seconds = timed[1] - timed[0]
        return _(
            "`fixed_hook` looks every {seconds} seconds: a run of a few seconds gets one look, "
            "before any evaluation (section 'Trap 3: the 60-second timer')"
        ).format(seconds=seconds)
    if len(still) < 2:
        return _(
            "`fixed_hook` looks less often than every {driven} steps, while evaluation runs every "
            "{every}: it stops late"
        ).format(driven=_STEPS_DRIVEN, every=every)
    if still[1] - still[0] > every:
        return _(
            "`fixed_hook` looks every {looks} steps, less often than evaluation runs (every "
            "{every}): it stops late"
        ).format(looks=still[1] - still[0], every=every)
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
        fail(
            "`fixed_estimator` should be a tf.estimator.Estimator, not {kind}",
            kind=type(answer).__name__,
        )
    if problem := _hook_problem(hook, answer, eval_name, every, patience):
        raise CheckFailed(problem)
    if os.path.realpath(str(answer.model_dir)) == os.path.realpath(str(broken_model_dir)):
        fail(
            "`fixed_estimator` uses the broken run's model_dir, whose old evaluations and "
            "checkpoint the hook would read, so it stops at once (section 'Trap 5: running the "
            "same cell again')"
        )
    if tf.train.latest_checkpoint(str(answer.model_dir)) is None:
        fail("`fixed_estimator` has no checkpoint yet: run tf.estimator.train_and_evaluate with it")
    final, folder = int(answer.get_variable_value("global_step")), Path(answer.eval_dir(eval_name))
    evaluated = sorted(read_eval_metrics(str(folder)))
    if not evaluated:
        others = sorted(path.name for path in Path(answer.model_dir).glob("eval*") if path.is_dir())
        if not others:
            fail(
                "fixed_estimator's model_dir has no evaluation folder, and no evaluations in "
                "{folder}/: keep EvalSpec(name={eval_name!r}), the exercise's evaluation set",
                folder=folder.name,
                eval_name=eval_name,
            )
        fail(
            "no evaluations in {folder}/ (found: {found}): keep EvalSpec(name={eval_name!r}), "
            "the exercise's evaluation set",
            folder=folder.name,
            found=listed(others),
            eval_name=eval_name,
        )
    skipped = [step for step in evaluated if step % every == 0 and step < final] != list(
        range(every, final, every)
    )
    if skipped and final >= max_steps:
        fail(
            "training ran to max_steps={max_steps} and evaluations were skipped (only at steps "
            "{evaluated}): by default train_and_evaluate evaluates at most every 10 minutes "
            "(section 'Trap 4: evaluations skipped by `throttle_secs`')",
            max_steps=max_steps,
            evaluated=evaluated,
        )
    if skipped:
        fail(
            "training stopped at step {final}, but evaluations were skipped (only at steps "
            "{evaluated}): by default train_and_evaluate evaluates at most every 10 minutes "
            "(section 'Trap 4: evaluations skipped by `throttle_secs`')",
            final=final,
            evaluated=evaluated,
        )
    # the hook asks at the evaluation `patience` steps after the best (one step later when it
    # looks every step: it sees that evaluation's step itself), and training ends one step on
    if final not in (every + patience, every + patience + 1):
        fail(
            "training ended at step {final}, and a working hook stops this model at step "
            "{expected}: run train_and_evaluate with fixed_hook in the TrainSpec, with the "
            "broken run's metric_fn (a run that raised ends at its last checkpoint)",
            final=final,
            expected=every + patience + 1,
        )
    if not _stopped_by_a_hook(answer.model_dir):
        fail(
            "training ended at step {final}, but no early-stopping hook asked it to stop (its "
            "last checkpoint holds no stop signal): run train_and_evaluate with fixed_hook in "
            "the TrainSpec, not with a max_steps chosen to end there",
            final=final,
        )
    correct(
        "the hook watched the macro precision in {folder}/, looked after each evaluation, and "
        "asked to stop after the evaluation at step {asked} ({patience} steps after the first, "
        "at step {first}); training ended at step {final}, before max_steps={max_steps}",
        folder=folder.name,
        asked=every + patience,
        patience=patience,
        first=every,
        final=final,
        max_steps=max_steps,
    )


def _stopped_by_a_hook(model_dir) -> bool:
    """Whether an early-stopping hook ended the run: the variable its stop op sets, which the
    last checkpoint saves, is true."""
    import tensorflow as tf

    latest = tf.train.latest_checkpoint(str(model_dir))
    if STOP_SIGNAL not in dict(tf.train.list_variables(latest)):
        return False
    return bool(tf.train.load_variable(latest, STOP_SIGNAL))
