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

from ..language import N_, _, listed
from ..logs import logger_level
from ..problems import CheckFailed
from .checkpoint import scratch_model_dir
from .common import (
    correct,
    fail,
    is_whole_number,
    reporting_learner_errors,
    require_answer,
    said,
)

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
# tensorflow_estimator), which a checkpoint saved after the request holds.
STOP_SIGNAL = "signal_early_stopping/STOP"
# Steps and seconds between two probes of a hook: beyond any timer, patience or min_steps a learner
# sets, so each probe is a look and each timeline's steps are counted.
_FAR = 10**7
# Training steps a probe drives to see how often a hook looks (once a step, once a second).
_STEPS_DRIVEN = 1000
# The runs the check trains with the learner's hook and with the exercise's, on the exercise's
# schedule (an evaluation every `every` steps, from step `every` on): the macro precision of the
# first evaluations, the last one's value kept from there on. The first is the exercise's run, of
# the model that cannot learn (every evaluation equals the first); the notebook did not show the
# others, which rise and then fall at their third or fourth evaluation.
RUNS = ((0.25,), (0.30, 0.45, 0.40), (0.30, 0.45, 0.60, 0.55))


def _fresh_copy(hook):
    """A copy of ``hook`` that shares no state with it, its timers as when it was made: the
    learner's hook keeps its own, and a hook already used in a training looks as a new one does."""
    import tensorflow as tf

    fresh = copy.copy(hook)
    vars(fresh).update({key: copy.copy(value) for key, value in vars(hook).items()})
    for value in vars(fresh).values():
        if isinstance(value, tf.compat.v1.train.SecondOrStepTimer):
            value.reset()
    return fresh


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
        self.hook = _fresh_copy(hook)
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

    def looks_again_after(self, seconds: float) -> bool:
        """Whether the hook, after a look, looks again at the next step ``seconds`` later."""
        self.looks(1, seconds)  # a look, then the step and the clock move on
        before = len(self.folders)
        self.after_run()
        return len(self.folders) > before

    def timer_seconds(self) -> float | None:
        """The seconds after which the hook, once it has looked, looks again at the next step: 0
        when it looks at every step, None when it waits for steps (or beyond _FAR seconds)."""
        if not self.looks_again_after(_FAR):
            return None
        low, high = 0.0, float(_FAR)
        for _halving in range(80):
            middle = (low + high) / 2
            low, high = (low, middle) if self.looks_again_after(middle) else (middle, high)
        return float(f"{high:.3g}") if low > 0 else 0.0

    def smallest(self, stops) -> int | None:
        """The smallest whole number n in [0, _FAR] for which ``stops(n)`` (true from there on)."""
        if not stops(_FAR):
            return None
        low, high = 0, _FAR
        while low < high:
            middle = (low + high) // 2
            low, high = (low, middle) if stops(middle) else (middle + 1, high)
        return low

    def threshold(self, stops) -> int | float | None:
        """The smallest number t in [0, _FAR] for which ``stops(t)`` (true from there on), as the
        learner wrote it: 20 for 20 or 20.0, 20.5 for 20.5 (to six significant digits)."""
        whole = self.smallest(stops)
        if not whole:
            return whole
        low, high = float(whole - 1), float(whole)
        for _halving in range(60):
            middle = (low + high) / 2
            low, high = (low, middle) if stops(middle) else (middle, high)
        value = float(f"{high:.6g}")
        return int(value) if value.is_integer() else value


class _NoSession:
    """The session a probe's ``after_run`` runs the hook's stop op in: nothing to run."""

    def run(self, *args, **kwargs):
        return None


def _hook_problem(hook, estimator, eval_name: str, every: int, patience: int, results) -> tuple:
    """``(problem, seen)``: the first way ``hook`` differs from the exercise's in what it watches
    (of the model's ``results``), how long it waits and where it reads (None when none), and what a
    copy of it showed when run (``seen``, to name what else makes it decide otherwise)."""
    import tensorflow as tf

    kind = type(hook).__name__
    if not isinstance(hook, tf.compat.v1.train.SessionRunHook):
        problem = _("`fixed_hook` should be what stop_if_no_increase_hook returns, not {kind}")
        return problem.format(kind=kind), None
    probe = _HookProbe(hook)
    with probe.running():
        try:
            rises = probe.stops_on({_FAR: 0.1, 2 * _FAR: 0.2, 3 * _FAR: 0.3})
        except Exception:  # noqa: BLE001 - a hook that cannot run this way is not the exercise's
            rises = None
        if rises is None or not probe.keys_read:
            problem = _(
                "`fixed_hook` is a {kind} that does not read a metric of the evaluations: make it "
                "with stop_if_no_increase_hook"
            )
            return problem.format(kind=kind), None
        name = probe.keys_read[0]
        waited = probe.threshold(lambda gap: probe.stops_on({_FAR: 0.9, _FAR + gap: 0.5}))
        seen = {
            "skipped": probe.threshold(
                lambda first: probe.stops_on({first: 0.9, first + (waited or 0): 0.5})
            ),
            "still": probe.looks(_STEPS_DRIVEN, 0.0),  # the steps it looks at, the clock still
        }
        clock = probe.timer_seconds()
    problem = (
        (_decrease_problem() if rises else None)
        or _metric_problem(name, results)
        or _patience_problem(waited, every, patience)
        or _folder_problem(probe.folders[0], estimator, eval_name)
    )
    if problem is None and clock:
        # where it stops depends on how long steps and evaluations take: nothing a run of the
        # check's own could tell for the learner's machine
        problem = _(
            "`fixed_hook` looks every {seconds:g} s, on a clock, not after each evaluation: "
            "where it stops depends on the machine's speed, and a run shorter than that gets one "
            "look, before any evaluation (section 'Trap 3: the 60-second timer')"
        ).format(seconds=clock)
    return problem, seen


def _decrease_problem() -> str:
    """The sentence for a hook that waits for a decrease."""
    return _(
        "`fixed_hook` waits for a decrease, as for a loss: the exercise keeps "
        "stop_if_no_increase_hook, for a metric that should rise"
    )


def _metric_problem(name: str, results: list) -> str | None:
    """What is wrong with the metric the hook watches, ``name``, of the results fixed_estimator's
    evaluations write (``results``: the names of its scalar results); None when it is the macro
    precision of the broken run's metric_fn."""
    shown = listed(results)
    if EXERCISE_2["metric"] not in results and name in results:
        return _(
            "`fixed_hook` watches {name!r}, one of `fixed_estimator`'s results ({results}), but "
            "none of them is the macro precision under the broken run's key: build "
            "`fixed_estimator` with the broken run's `metric_fn`, as the exercise asks"
        ).format(name=name, results=shown)
    if EXERCISE_2["metric"] not in results:
        return _(
            "`fixed_estimator`'s results are {results}, without the macro precision under the "
            "broken run's key, and `fixed_hook` watches a name that is not among them (the hook "
            "raises `KeyError` once it reads one): build `fixed_estimator` with the broken run's "
            "`metric_fn`, as the exercise asks"
        ).format(results=shown)
    if name not in results:
        return _(
            "`fixed_hook` watches {name!r}, which is not among this model's evaluation results "
            "(the hook raises KeyError once it reads one): find the name its metric_fn gives the "
            "precision (section 'Trap 2: a metric name that evaluation does not produce')"
        ).format(name=name)
    if name != EXERCISE_2["metric"]:
        return _(
            "`fixed_hook` watches {name!r}, another of the model's results: the exercise stops on "
            "its macro precision"
        ).format(name=name)
    return None


def _patience_problem(waited, every: int, patience: int) -> str | None:
    """What is wrong with how long the hook waits after the best evaluation, ``waited`` (None:
    for ever); None when it waits ``patience`` global steps."""
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
    return None


def _same_folder(one, other) -> bool:
    return os.path.realpath(str(one)) == os.path.realpath(str(other))


def _evaluation_folders(model_dir) -> dict:
    """``{folder name: the steps of its evaluations}``: the folders of ``model_dir`` that
    evaluations were written to (``eval``, ``eval_<name>``), each with at least one."""
    from tensorflow_estimator.python.estimator.early_stopping import read_eval_metrics

    found = {}
    for path in sorted(Path(model_dir).glob("eval*")):
        if path.is_dir() and (path.name == "eval" or path.name.startswith("eval_")):
            steps = sorted(read_eval_metrics(str(path)))
            if steps:
                found[path.name] = steps
    return found


def _folder_problem(reads, estimator, eval_name: str) -> str | None:
    """Whether the hook reads the folder the exercise's evaluations are written to; when not, what
    it reads against where fixed_estimator's evaluations went (the EvalSpec they came from)."""
    from ..paths import display_path

    expected = estimator.eval_dir(eval_name)
    if _same_folder(reads, expected):
        return None
    folders = _evaluation_folders(estimator.model_dir)
    shown = {
        "reads": display_path(reads),
        "eval_name": eval_name,
        "expected": display_path(expected),
    }
    if Path(expected).name in folders:
        message = N_(
            "`fixed_hook` reads {reads}, but fixed_estimator's EvalSpec(name={eval_name!r}) "
            "writes to {expected} (section 'Trap 1: a named evaluation, and a hook that never "
            "fires')"
        )
    elif not folders:  # not evaluated yet: the EvalSpec the exercise keeps
        message = N_(
            "`fixed_hook` reads {reads}, but the colleague's `EvalSpec(name={eval_name!r})` "
            "writes `fixed_estimator`'s evaluations to {expected} (section 'Trap 1: a named "
            "evaluation, and a hook that never fires')"
        )
    elif Path(reads).name in folders and _same_folder(Path(reads).parent, estimator.model_dir):
        used = Path(reads).name[len("eval_") :] or None
        message = _read_where_they_went(used)
        shown["used"] = used
    else:
        message = N_(
            "`fixed_hook` reads {reads}, but `fixed_estimator`'s evaluations went to {found}: keep "
            "the colleague's `EvalSpec(name={eval_name!r})`, whose evaluations go to {expected}, "
            "and have the hook read that folder (section 'Trap 1: a named evaluation, and a hook "
            "that never fires')"
        )
        shown["found"] = listed(
            display_path(Path(estimator.model_dir) / name) for name in sorted(folders)
        )
    return said(message, **shown)


def _read_where_they_went(used) -> str:
    """The sentence for a hook that reads the evaluations of an EvalSpec named ``used`` (None: no
    name), where the exercise keeps another name."""
    if used is None:
        return N_(
            "`fixed_hook` reads {reads}, where `fixed_estimator`'s evaluations went, from an "
            "`EvalSpec` without a name: keep the colleague's `EvalSpec(name={eval_name!r})`, "
            "whose evaluations go to {expected}, and have the hook read that folder"
        )
    return N_(
        "`fixed_hook` reads {reads}, where `fixed_estimator`'s evaluations went, from "
        "`EvalSpec(name={used!r})`: keep the colleague's `EvalSpec(name={eval_name!r})`, whose "
        "evaluations go to {expected}, and have the hook read that folder"
    )


def _model_fn(features, labels, mode):
    """The model of the check's own trainings: one weight, which nothing changes (the hooks judge
    the evaluations the check writes, not the model)."""
    import tensorflow as tf

    weight = tf.compat.v1.get_variable("weight", initializer=1.0)
    loss = tf.reduce_mean((features * weight - labels) ** 2)
    # the hooks fetch the global step as a step runs: the update waits for that read, so that they
    # get the value before the update, as from the exercise's CNN
    read = tf.compat.v1.get_default_graph().get_tensor_by_name("global_step/Read/ReadVariableOp:0")
    with tf.control_dependencies([read, loss]):
        train_op = tf.compat.v1.train.get_global_step().assign_add(1)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _input_fn():
    """One example, for ever."""
    import tensorflow as tf

    return tf.data.Dataset.from_tensors((1.0, 2.0)).repeat()


def _trained(hook, every: int, patience: int, values: tuple) -> tuple:
    """Train a model of the check's own with a copy of ``hook`` in its hooks, a checkpoint every
    ``every`` steps and, right after each save, the evaluation ``train_and_evaluate`` makes of it,
    written to an event file: the macro precision ``values`` (the last kept). The hook reads that
    file, whatever its folder. ``(the step where training ended, the stop signal as it ended)``,
    the signal None when no early-stopping hook made one."""
    import tensorflow as tf
    from tensorflow_estimator.python.estimator import early_stopping

    max_steps = every * (len(values) + 4) + patience
    schedule = {
        every * count: values[min(count, len(values)) - 1]
        for count in range(1, max_steps // every + 1)
    }

    class Evaluations(tf.estimator.CheckpointSaverListener):
        """The evaluation of each checkpoint, written as it is saved."""

        def __init__(self, writer):
            self.writer = writer

        def after_save(self, session, global_step_value):
            if global_step_value in schedule:
                results = dict.fromkeys(EXERCISE_2["other_results"], 1.0)
                results[EXERCISE_2["metric"]] = schedule[global_step_value]
                scalars = [
                    tf.compat.v1.Summary.Value(tag=name, simple_value=value)
                    for name, value in results.items()
                ]
                self.writer.add_summary(tf.compat.v1.Summary(value=scalars), global_step_value)
                self.writer.flush()

    class Ending(tf.compat.v1.train.SessionRunHook):
        """The global step and the stop signal, read once training has ended."""

        def begin(self):
            self.step = tf.compat.v1.train.get_global_step()
            self.signal = [v for v in tf.compat.v1.global_variables() if v.op.name == STOP_SIGNAL]
            self.seen = (None, None)

        def end(self, session):
            signal = bool(session.run(self.signal[0])) if self.signal else None
            self.seen = (int(session.run(self.step)), signal)

    ending = Ending()
    with scratch_model_dir(checkpoint=False) as folder, logger_level("ERROR"):
        config = tf.estimator.RunConfig(
            model_dir=folder,
            save_checkpoints_steps=every,
            keep_checkpoint_max=1,
            checkpoint_save_graph_def=False,
            save_summary_steps=None,
            log_step_count_steps=None,
        )
        estimator = tf.estimator.Estimator(_model_fn, config=config)
        written = os.path.join(folder, "eval")
        with tf.Graph().as_default():  # the v1 FileWriter refuses eager mode
            writer = tf.compat.v1.summary.FileWriter(written)
        read = early_stopping.read_eval_metrics
        try:
            with mock.patch.object(early_stopping, "read_eval_metrics", lambda _: read(written)):
                estimator.train(
                    _input_fn,
                    max_steps=max_steps,
                    hooks=[_fresh_copy(hook), ending],
                    saving_listeners=[Evaluations(writer)],
                )
        finally:
            writer.close()
    return ending.seen


_REFERENCE: dict = {}  # (every, patience) -> where the exercise's hook ends each of RUNS


def _reference_ends(estimator, every: int, patience: int) -> list:
    """Where the exercise's own hook (the solution's) ends each of ``RUNS``."""
    import tensorflow as tf

    if (every, patience) not in _REFERENCE:
        hook = tf.estimator.experimental.stop_if_no_increase_hook(
            estimator,
            EXERCISE_2["metric"],
            patience,
            run_every_secs=None,
            run_every_steps=every,
        )
        _REFERENCE[every, patience] = [_trained(hook, every, patience, run)[0] for run in RUNS]
    return _REFERENCE[every, patience]


def _decision_problem(hook, estimator, seen: dict, every: int, patience: int) -> tuple:
    """``(problem, end)``: how ``hook``, trained on ``RUNS``, decides otherwise than the exercise's
    hook (None when it asks to stop after the same evaluation, and no later), and the step where it
    ended the exercise's run."""
    reference = _reference_ends(estimator, every, patience)
    ended = []
    for run, expected in zip(RUNS, reference):
        end, signal = _trained(hook, every, patience, run)
        ended.append(end)
        # the evaluation the hook asked after: the last one written before its request (at the step
        # where training ended, the evaluation of that step's checkpoint came first)
        if signal and end <= expected and end // every == (expected - 1) // every:
            continue
        return _named_difference(seen, every, end, expected, signal), None
    return None, ended[0]


def _named_difference(seen: dict, every: int, end: int, expected: int, signal) -> str:
    """Why the hook, which watches and waits as the exercise's does, ended a run at ``end`` and not
    at ``expected``: what it skips, or when it looks."""
    if seen["skipped"] is not None and seen["skipped"] > every:
        return _(
            "`fixed_hook` has min_steps={skipped}: it skips the first evaluation, at step "
            "{first}, which is the best of this model that cannot learn, so it stops late or never"
        ).format(skipped=seen["skipped"], first=every)
    still = seen["still"]
    if len(still) < 2:
        return _(
            "`fixed_hook` looks less often than every {driven} steps, while evaluation runs every "
            "{every}: it stops late"
        ).format(driven=_STEPS_DRIVEN, every=every)
    looks = still[1] - still[0]
    if looks > every:
        return _(
            "`fixed_hook` looks every {looks} steps, less often than evaluation runs (every "
            "{every}): it stops late"
        ).format(looks=looks, every=every)
    if every % looks:
        return _(
            "`fixed_hook` looks every {looks} steps, out of step with the evaluations (every "
            "{every}): it sees some of them only after more training steps, so it stops late"
        ).format(looks=looks, every=every)
    if not signal:
        return _(
            "`fixed_hook` never asked to stop a run on the exercise's schedule, where the "
            "exercise's hook stops it at step {expected}"
        ).format(expected=expected)
    return _(
        "`fixed_hook` stopped a run on the exercise's schedule at step {end}, where the "
        "exercise's hook stops it at step {expected}"
    ).format(end=end, expected=expected)


# The images the check evaluates fixed_estimator's checkpoint on, in order, batch after batch: the
# first test images, the exercise's held-out set (small_eval_input_fn's, the first 500) and then
# the rest of the notebook's validation set (the first 2,000). An evaluation that gives what the
# first hundreds of them give was made on held-out images; one that gives none of it was not.
HELD_OUT = {"count": 2_000, "batch_size": 100}


def _held_out_input_fn():
    """The input of ``HELD_OUT``."""
    from .. import inputs

    return inputs.make_eval_input_fn(**HELD_OUT)


def _is_written_as_a_scalar(value) -> bool:
    """Whether Estimator writes an evaluation result of tensor ``value`` as the scalar that the
    hooks read: a single float32, float64, int32 or int64 (a vector, a float16 or a bool is
    written otherwise, or not at all)."""
    import tensorflow as tf

    rank = value.shape.rank
    return rank in (0, None) and value.dtype in (tf.float32, tf.float64, tf.int32, tf.int64)


class _HeldOut:
    """fixed_estimator's evaluation as Estimator builds it (its model_fn in EVAL mode, and the mean
    of the loss) on held-out images: the names of the results it writes, and whether a checkpoint
    gives, on the first of those images, the results an evaluation wrote."""

    def __init__(self, estimator, input_fn):
        import tensorflow as tf

        self.graph = tf.Graph()
        with self.graph.as_default(), logger_level("ERROR"):
            tf.compat.v1.train.get_or_create_global_step()
            features, labels = tf.compat.v1.data.make_one_shot_iterator(input_fn()).get_next()
            spec = estimator.model_fn(
                features, labels, tf.estimator.ModeKeys.EVAL, estimator.config
            )
            pairs = dict(spec.eval_metric_ops or {})
            pairs["loss"] = tf.compat.v1.metrics.mean(spec.loss)
            self.values = {
                name: pair[0] for name, pair in pairs.items() if _is_written_as_a_scalar(pair[0])
            }
            self.updates = [pair[1] for pair in pairs.values()]
            self.saver = tf.compat.v1.train.Saver()
            self.local_init = tf.compat.v1.local_variables_initializer()
        self.results = sorted(self.values)

    def gives(self, checkpoint: str, written: dict) -> bool:
        """Whether ``checkpoint``, evaluated on the first batches of the held-out images (one
        more each time), gives the results ``written`` (``{name: value}``) at some point."""
        import math

        import tensorflow as tf

        names = sorted(set(written) & set(self.values))
        with tf.compat.v1.Session(graph=self.graph) as session, logger_level("ERROR"):
            self.saver.restore(session, checkpoint)
            session.run(self.local_init)
            while True:
                try:
                    session.run(self.updates)
                except tf.errors.OutOfRangeError:
                    return False
                now = session.run({name: self.values[name] for name in names})
                if all(
                    math.isclose(
                        float(now[name]),
                        written[name],
                        rel_tol=_TOLERANCE.get(name, 1e-5),
                        abs_tol=1e-7,
                    )
                    for name in names
                ):
                    return True


# How far a written result may be from what the check computes, relatively: the metrics count the
# same examples whatever the batches; the loss is the mean of the batches' mean losses, which
# another batch size of the same images changes a little (500 images in batches of 64: 1.4e-4).
_TOLERANCE = {"loss": 1e-3}


@reporting_learner_errors
def stopped_early(
    answer,
    hook,
    broken_model_dir,
    max_steps: int,
    eval_name: str,
    every: int,
    patience: int,
    held_out_input_fn=None,
) -> None:
    """Notebook 07, exercise 2: the exercise's hook, fixed, stopped the run where a working hook
    stops it, evaluating the held-out images (``held_out_input_fn``: the first of them in order,
    ``HELD_OUT`` by default; a test gives its own)."""
    require_answer(answer, "fixed_estimator")
    require_answer(hook, "fixed_hook")
    import tensorflow as tf

    if not isinstance(answer, tf.compat.v1.estimator.Estimator):  # add_metrics returns the v1 class
        fail(
            "`fixed_estimator` should be a tf.estimator.Estimator, not {kind}",
            kind=type(answer).__name__,
        )
    held_out = _HeldOut(answer, held_out_input_fn or _held_out_input_fn())
    problem, seen = _hook_problem(hook, answer, eval_name, every, patience, held_out.results)
    if problem is None:
        problem, ends = _decision_problem(hook, answer, seen, every, patience)
    if problem is not None:
        raise CheckFailed(problem)
    _judge_model_dir(answer, broken_model_dir, every)
    folder = Path(answer.eval_dir(eval_name))
    evaluated = _judge_evaluations(answer, folder, eval_name)
    _judge_held_out(answer, folder, held_out)
    final = int(answer.get_variable_value("global_step"))
    _judge_schedule(evaluated, final, every, max_steps)
    _judge_end(answer, final, ends, max_steps)
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


def _judge_model_dir(answer, broken_model_dir, every: int) -> None:
    """Refuse a fixed_estimator in the broken run's folder, not trained, with another checkpoint
    schedule than the broken run's (a checkpoint every ``every`` steps), or trained more than
    once."""
    import tensorflow as tf

    if _same_folder(answer.model_dir, broken_model_dir):
        fail(
            "`fixed_estimator` uses the broken run's model_dir, {folder}: the exercise asks for "
            "`frozen_estimator(…)` with a fresh name, a folder of its own",
            folder=Path(answer.model_dir).name,
        )
    if tf.train.latest_checkpoint(str(answer.model_dir)) is None:
        fail("`fixed_estimator` has no checkpoint yet: run tf.estimator.train_and_evaluate with it")
    steps, seconds = answer.config.save_checkpoints_steps, answer.config.save_checkpoints_secs
    if steps is None:
        fail(
            "`fixed_estimator`'s `RunConfig` saves a checkpoint every {seconds} s, and the broken "
            "run's every {every} steps: the exercise changes only the name and the `metric_fn` of "
            "`frozen_estimator(…)`, so keep its config",
            seconds=seconds,
            every=every,
        )
    if steps != every:
        fail(
            "`fixed_estimator`'s `RunConfig` saves a checkpoint every {steps} steps, and the "
            "broken run's every {every}: the exercise changes only the name and the `metric_fn` of "
            "`frozen_estimator(…)`, so keep its config",
            steps=steps,
            every=every,
        )
    trainings = _trainings(answer.model_dir)
    if trainings > 1:
        fail(
            "`fixed_estimator`'s model_dir holds {count} trainings, each after the first going "
            "on from the checkpoint the one before it left: build `fixed_estimator` again with "
            "`frozen_estimator(…)`, which empties its folder, and train it once (section 'Trap 5: "
            "running the same cell again')",
            count=trainings,
        )


def _flush_event_writers(folder) -> None:
    """Write out what Estimator's cached event writer of ``folder`` (in this kernel) still holds:
    it writes a checkpoint's record to disk only every two minutes."""
    import tensorflow as tf

    cached = getattr(tf.compat.v1.summary.FileWriterCache, "_cache", {})
    for writer in list(cached.values()):
        if _same_folder(writer.get_logdir(), folder):
            writer.flush()


def _trainings(model_dir) -> int:
    """How many trainings ran in ``model_dir``: each saves a checkpoint at the step it starts from
    (the step the one before ended at), and records each save in the folder's event files."""
    import tensorflow as tf

    _flush_event_writers(model_dir)
    saved = []
    for path in sorted(Path(model_dir).glob("events.out.tfevents.*")):
        try:
            for event in tf.compat.v1.train.summary_iterator(str(path)):
                if event.session_log.status == tf.compat.v1.SessionLog.CHECKPOINT:
                    saved.append(event.step)
        except tf.errors.DataLossError:  # a record being written: the ones before it count
            continue
    return 1 + sum(later <= earlier for earlier, later in zip(saved, saved[1:]))


def _judge_evaluations(answer, folder: Path, eval_name: str) -> list:
    """The steps of the evaluations in ``folder``, where the hook reads; refuse a model with none
    there."""
    folders = _evaluation_folders(answer.model_dir)
    if folder.name in folders:
        return folders[folder.name]
    if not folders:
        fail(
            "`fixed_estimator` was trained, but never evaluated: its model_dir has no "
            "evaluations; train it with `tf.estimator.train_and_evaluate` and an `EvalSpec`, as "
            "`run_demo` does"
        )
    fail(
        "no evaluations in {folder}/ (found: {found}): keep EvalSpec(name={eval_name!r}), "
        "the exercise's evaluation set",
        folder=folder.name,
        found=listed(sorted(folders)),
        eval_name=eval_name,
    )


def _judge_held_out(answer, folder: Path, held_out: _HeldOut) -> None:
    """Refuse evaluations that the held-out images do not give: the last one whose checkpoint is
    kept, evaluated by the check on those images, gives none of its results."""
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.early_stopping import read_eval_metrics

    written = read_eval_metrics(str(folder))
    state = tf.train.get_checkpoint_state(str(answer.model_dir))
    kept = {
        int(step): path
        for path in (state.all_model_checkpoint_paths if state else [])
        for step in [path.rsplit("-", 1)[-1]]
        if step.isdigit() and tf.io.gfile.exists(f"{path}.index")
    }
    evaluated = sorted(set(kept) & set(written))
    if not evaluated:
        return  # no evaluation of a kept checkpoint: nothing to compare
    step = evaluated[-1]
    if not held_out.gives(kept[step], dict(written[step])):
        fail(
            "the evaluation at step {step} in {folder}/ was not made on the colleague's held-out "
            "images: on them, `fixed_estimator`'s checkpoint of that step gives other results; "
            "give the `EvalSpec` `small_eval_input_fn`, as the broken run did",
            step=step,
            folder=folder.name,
        )


def _judge_schedule(evaluated: list, final: int, every: int, max_steps: int) -> None:
    """Refuse a run that skipped evaluations (throttled)."""
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


def _judge_end(answer, final: int, ends: int, max_steps: int) -> None:
    """Refuse a run that fixed_hook did not end: it ended elsewhere than where fixed_hook ends
    this model's run (``ends``, in the check's own training), or there without the hook's stop."""
    if final != ends and final >= max_steps:
        fail(
            "training ran to `max_steps={max_steps}`, but `fixed_hook`, run by the check on the "
            "same schedule, stops this model earlier: run `train_and_evaluate` with `fixed_hook` "
            "in the `TrainSpec`",
            max_steps=max_steps,
        )
    if final < ends:
        fail(
            "training ended at step {final}, before `fixed_hook` asks this model to stop (run by "
            "the check on the same schedule): run `train_and_evaluate` with `fixed_hook` in the "
            "`TrainSpec`, and let the hook end it",
            final=final,
        )
    if final > ends:
        fail(
            "training ended at step {final}, later than `fixed_hook` ends this model's run (run "
            "by the check on the same schedule): run `train_and_evaluate` with `fixed_hook` in the "
            "`TrainSpec`",
            final=final,
        )
    signal = _stop_signal(answer.model_dir)
    if signal is None:
        fail(
            "training ended at step {final}, but no early-stopping hook was in that training "
            "(its checkpoints have no stop signal): run train_and_evaluate with fixed_hook in the "
            "TrainSpec, not with a max_steps chosen to end there",
            final=final,
        )
    if not signal and final % (answer.config.save_checkpoints_steps or final + 1):
        # the checkpoint of the last step was saved as training ended, after any request
        fail(
            "training ended at step {final}, but no early-stopping hook asked it to stop (the "
            "checkpoint saved as it ended holds a stop signal that is false): run "
            "train_and_evaluate with fixed_hook in the TrainSpec, not with a max_steps chosen "
            "to end there",
            final=final,
        )


def _stop_signal(model_dir):
    """The stop signal an early-stopping hook sets, as the last checkpoint saved it: None when the
    training had no such hook. (A checkpoint saved by the step timer in the step the hook asks in
    is saved before it asks: there the signal is still false.)"""
    import tensorflow as tf

    latest = tf.train.latest_checkpoint(str(model_dir))
    if STOP_SIGNAL not in dict(tf.train.list_variables(latest)):
        return None
    return bool(tf.train.load_variable(latest, STOP_SIGNAL))
