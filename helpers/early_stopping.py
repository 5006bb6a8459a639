"""Early stopping with ``train_and_evaluate``: a pre-flight check, the hook's rule, the timeline.

Introduced in notebook 07.

``tf.estimator.experimental.stop_if_no_increase_hook`` (and ``…_decrease_hook``)
does not see the evaluation results directly: every time it checks, it re-reads
the evaluation event files in its ``eval_dir`` (``estimator.eval_dir()`` unless
told otherwise) and applies one rule to the scalars it finds there. Three
configuration mistakes then fail late or never:

* a ``metric_name`` that evaluation does not write as a scalar raises
  ``KeyError`` in the middle of training, after the first evaluation: a name
  that is not a result, an array result (written as a tensor summary), or a
  scalar of a dtype that Estimator does not write at all (float16, bool,
  uint8, …: only float32, float64, int32 and int64 become v1 scalars);
* an ``eval_dir`` where evaluation does not write (``EvalSpec(name="val")``
  writes to ``eval_val``) leaves the hook reading nothing: it never stops;
* a ``min_steps`` not below ``max_steps`` (or ``min_steps`` plus the patience
  not below it) leaves the hook no evaluation that could stop training.

``preflight(estimator, eval_spec, metric_name, eval_dir=None, min_steps=0,
max_steps=None, patience=None)`` finds them before any training step: it builds
the model's EVAL graph once on a tiny batch (with ``helpers.model_fn_checker``)
to learn the shape and dtype of each result evaluation will write, compares the
hook's folder with the one the ``EvalSpec`` writes to, and, when ``max_steps``
is given, checks that the hook can stop before it. It raises
``EarlyStoppingProblem`` with one sentence per problem.

To watch the hook decide, ``HookProbe`` calls a hook's ``after_run`` the way
the training loop does; ``replay`` writes a timeline's evaluations the way an
Estimator does (v1 scalar summaries, ``simple_value``) and asks a hook after
each one. ``best_step`` is the
hook's rule written out (``early_stopping.py``, ``_stop_if_no_metric_improvement_hook``),
``plot_timeline`` draws a run's evaluations with its best step and stop, and
``log_showing`` keeps a training cell's log to the lines worth reading.
"""

from __future__ import annotations

import contextlib
import difflib
import itertools
import logging
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import tensorflow as tf

from . import inputs
from .logs import captured_log, logger_level
from .model_fn_checker import check_branch, estimator_graph
from .problems import WorkbookProblem
from .settings import display_path

#: Estimator adds the mean loss to every evaluation's results under this name.
LOSS = "loss"

#: The log lines a training cell of notebook 07 shows (all others are collected, not shown).
STOPPING_LINES = (
    "Saving dict for global step",
    "Skip the current checkpoint eval",
    "No increase in metric",
    "No decrease in metric",
    "Requesting early stopping",
    "Loss for final step",
)


# Event files are named after the second they were opened in and the host: two writers opened in
# the same second would write the same file. A suffix per writer keeps them apart.
_WRITERS = itertools.count()


def _file_writer(eval_dir):
    with tf.Graph().as_default():  # the v1 FileWriter refuses eager mode
        return tf.compat.v1.summary.FileWriter(str(eval_dir), filename_suffix=f".{os.getpid()}.{next(_WRITERS)}")


class EarlyStoppingProblem(WorkbookProblem):
    """An early-stopping hook that would crash mid-training or never fire (notebook 07)."""


# --------------------------------------------------------------------------- pre-flight


# What ``_write_dict_to_summary`` (tensorflow_estimator, estimator.py) writes as a v1 scalar
# (``simple_value``), the only kind of value the hooks read: a result that is one of these Python
# types. ``session.run`` returns a scalar result as a NumPy scalar of the tensor's dtype, and
# ``np.float64`` is a ``float``; a float16, bool, int8, uint8, … result is skipped with a warning.
_WRITTEN_AS_SCALAR = (np.float32, float, np.int64, np.int32, int)


def written_as_scalar(dtype) -> bool:
    """Whether Estimator writes a scalar evaluation result of ``dtype`` where the hooks can read it.

    The rule of ``_write_dict_to_summary`` applied to the NumPy scalar that
    ``session.run`` returns for that dtype; a string result is not written
    under its own name (Estimator parses it as a serialized ``Summary``).
    """
    dtype = tf.as_dtype(dtype)
    if dtype == tf.string or not dtype.is_numpy_compatible:
        return False
    return isinstance(np.zeros((), dtype.as_numpy_dtype)[()], _WRITTEN_AS_SCALAR)


def scalar_dtypes_written() -> list:
    """The names of the dtypes whose scalar evaluation results Estimator writes as v1 scalars."""
    candidates = (tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int8, tf.int16, tf.int32, tf.int64,
                  tf.uint8, tf.uint16, tf.uint32, tf.uint64, tf.bool, tf.complex64, tf.complex128, tf.string)
    return [dtype.name for dtype in candidates if written_as_scalar(dtype)]


@dataclass(frozen=True)
class Result:
    """One evaluation result as evaluation returns it: its shape and dtype."""

    shape: tuple
    dtype: str

    @property
    def readable(self) -> bool:
        """Whether the early-stopping hooks can read it: a scalar that Estimator writes as ``simple_value``."""
        return tuple(self.shape) == () and written_as_scalar(self.dtype)


def evaluation_results(estimator, batch_size: int = 4) -> dict:
    """``{name: Result(shape, dtype)}`` of what evaluating ``estimator`` returns and writes.

    The keys of the model's ``eval_metric_ops`` plus ``loss``. The EVAL graph is
    built once in a fresh ``tf.Graph`` on a batch of ``batch_size`` random images
    and run (one update of every metric), so each value's real shape is known;
    the dtype is the value tensor's. A scalar of a dtype that
    ``written_as_scalar`` accepts is written as a v1 scalar, which the hooks
    can read; anything else is written as a tensor summary, or not at all.
    """
    if not isinstance(estimator, tf.estimator.Estimator):
        raise EarlyStoppingProblem(f"expected a tf.estimator.Estimator, not {type(estimator).__name__}")
    specs = []

    def recording_model_fn(features, labels, mode, config):
        specs.append(estimator.model_fn(features, labels, mode, config))
        return specs[-1]

    with logger_level(logging.WARNING):  # "Calling model_fn." is Estimator's business, not this check's
        branch, findings, _ = check_branch(recording_model_fn, "EVAL", tf.estimator.ModeKeys.EVAL,
                                           None, batch_size)
    if findings:
        raise EarlyStoppingProblem(f"the EVAL graph could not be built, so the hook has nothing to read: {findings[0].sentence}")
    dtypes = {name: tf.as_dtype(value.dtype).base_dtype.name
              for name, (value, _) in (specs[-1].eval_metric_ops or {}).items()}
    results = {name: Result(tuple(shape), dtypes.get(name, "float32")) for name, shape in branch.metrics.items()}
    results.setdefault(LOSS, Result((), "float32"))  # Estimator adds tf.compat.v1.metrics.mean(loss): float32
    return dict(sorted(results.items()))


def compact_names(names) -> str:
    """Names joined by commas, with numbered runs shortened: ``f1_class_0…9``."""
    names = sorted(names, key=_natural_key)
    parts, index = [], 0
    while index < len(names):
        match = re.fullmatch(r"(.*?)(\d+)", names[index])
        end = index
        if match:
            stem, number = match.group(1), int(match.group(2))
            while end + 1 < len(names) and names[end + 1] == f"{stem}{number + end + 1 - index}":
                end += 1
        if end - index >= 2:
            last_number = re.fullmatch(r".*?(\d+)", names[end]).group(1)
            parts.append(f"{names[index]}…{last_number}")
        else:
            parts.extend(names[index:end + 1])
        index = end + 1
    return ", ".join(parts)


def _natural_key(name: str):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _same_folder(first, second) -> bool:
    return os.path.realpath(str(first)) == os.path.realpath(str(second))


@dataclass
class PreflightReport:
    """What ``preflight`` found: the metric, the evaluation results, the two folders."""

    metric_name: str
    results: dict  # name -> Result(shape, dtype) of every evaluation result
    hook_reads: str
    evaluation_writes: str
    eval_name: str | None
    problems: list = field(default_factory=list)
    steps: str = ""  # what min_steps / max_steps leave the hook, when they were given

    @property
    def scalars(self) -> list:
        """The results the hook can read: the scalars that Estimator writes as v1 scalars."""
        return readable_names(self.results)

    @property
    def ok(self) -> bool:
        return not self.problems

    def __repr__(self) -> str:
        if self.problems:
            return "Pre-flight check failed: " + " ".join(self.problems)
        return (f"Pre-flight check passed: {self.metric_name!r} is one of the {len(self.scalars)} scalar "
                f"evaluation results ({compact_names(self.scalars)}), and the hook reads "
                f"{display_path(self.hook_reads)}, where the evaluations are written." + self.steps)


def readable_names(results: dict) -> list:
    """The names of the results the hooks can read (see ``Result.readable``)."""
    return [name for name, result in results.items() if result.readable]


def closest_names(name: str, candidates) -> list:
    """The candidates closest to ``name`` (difflib ratio at least 0.5); a tie lists all, macro averages first.

    ``'f1_'`` is as close to ``'f1_micro'`` as to ``'f1_macro'``; the macro F1 is
    the one worth stopping on (the micro one equals accuracy on single-label data).
    """
    scored = [(difflib.SequenceMatcher(None, name, candidate).ratio(), candidate) for candidate in candidates]
    scored = [(score, candidate) for score, candidate in scored if score >= 0.5]
    if not scored:
        return []
    best = max(score for score, _ in scored)
    tied = [candidate for score, candidate in scored if score == best]
    return sorted(tied, key=lambda candidate: ("macro" not in candidate, _natural_key(candidate)))


def metric_problem(metric_name: str, results: dict) -> str | None:
    """The sentence for a ``metric_name`` the hook could not read, or None."""
    scalars = readable_names(results)
    listing = compact_names(scalars)
    keyerror = f"so the hook would raise KeyError: {metric_name!r} at its first check after an evaluation"
    if metric_name not in results:
        close = closest_names(metric_name, scalars)
        hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
        return (f"metric_name={metric_name!r} is not among the evaluation results of this model "
                f"({listing}), {keyerror}, in the middle of training{hint}.")
    result = results[metric_name]
    if tuple(result.shape) != ():
        return (f"metric_name={metric_name!r} is an array of shape {tuple(result.shape)}, which "
                "Estimator writes as a tensor summary that the hook cannot read (it would raise "
                f"KeyError: {metric_name!r}): choose one of the scalar results, {listing}.")
    if not written_as_scalar(result.dtype):
        how = ("a string result it parses as a serialized Summary" if result.dtype == "string"
               else f"a {result.dtype} one it skips with the warning 'Skipping summary for {metric_name}'")
        written = scalar_dtypes_written()
        return (f"metric_name={metric_name!r} is a {result.dtype} scalar, and Estimator writes only "
                f"{', '.join(written[:-1])} and {written[-1]} scalars to the event file ({how}), {keyerror}: "
                f"cast its value in eval_metric_ops with tf.cast(value, tf.float32), or choose one of {listing}.")
    return None


def steps_problem(min_steps: int, max_steps: int | None, patience: int | None) -> str | None:
    """The sentence for a hook that cannot stop before ``max_steps``, or None.

    The hook ignores evaluations below ``min_steps`` and stops at an evaluation
    at least ``patience`` steps after the best one counted, so the earliest stop
    is at ``min_steps + patience``; the evaluation at ``max_steps`` comes after
    the last training step, too late to stop anything.
    """
    if max_steps is None:
        return None
    if min_steps >= max_steps:
        return (f"min_steps={min_steps} is not below max_steps={max_steps}: the hook ignores every evaluation "
                f"before global step {min_steps} and training ends at step {max_steps}, so it can never stop "
                "training early: lower min_steps (or raise max_steps).")
    if patience is not None and min_steps + patience >= max_steps:
        return (f"min_steps + patience = {min_steps} + {patience} = {min_steps + patience} is not below "
                f"max_steps={max_steps}: the hook's earliest stop is an evaluation {patience} steps after the "
                f"first one it counts (at step {min_steps} or later), and training ends at step {max_steps}, "
                "so it can never stop training early: lower min_steps or the patience (or raise max_steps).")
    return None


def _steps_sentence(min_steps: int, max_steps: int | None, patience: int | None) -> str:
    if max_steps is None:
        return ""
    if patience is None:
        return f" It counts the evaluations from step {min_steps} on, before max_steps={max_steps}."
    return (f" It can stop training from step {min_steps + patience} on (min_steps + patience), "
            f"before max_steps={max_steps}.")


def folder_problem(hook_reads, eval_name: str | None, evaluation_writes) -> str | None:
    """The sentence for a hook that reads another folder than evaluation writes to, or None."""
    if _same_folder(hook_reads, evaluation_writes):
        return None
    spec = f"EvalSpec(name={eval_name!r})"
    fix = f"eval_dir=estimator.eval_dir({eval_name!r})" if eval_name else "eval_dir=estimator.eval_dir() (or leave it out)"
    return (f"The hook reads {display_path(hook_reads)}, but {spec} writes its evaluations to "
            f"{display_path(evaluation_writes)}, so the hook would never see a result and never stop: "
            f"pass {fix}.")


def preflight(estimator, eval_spec, metric_name: str, eval_dir=None, min_steps: int = 0,
              max_steps: int | None = None, patience: int | None = None) -> PreflightReport:
    """Check an early-stopping set-up before training; raise ``EarlyStoppingProblem`` if it cannot work.

    Give the same ``estimator``, ``metric_name``, ``eval_dir`` and ``min_steps``
    as to the hook, the ``EvalSpec`` given to ``train_and_evaluate``, and, to
    check the steps too, the ``TrainSpec``'s ``max_steps`` and the hook's
    ``max_steps_without_increase`` (or ``…_decrease``) as ``patience``. Three
    problems are caught: ``metric_name`` not among the evaluation results that
    Estimator writes as scalars (``eval_metric_ops`` keys plus ``loss``, of
    dtype float32, float64, int32 or int64: the hook would raise ``KeyError``
    mid-training); a hook folder that is not where the ``EvalSpec`` writes
    (the hook would never fire); and ``min_steps`` (plus ``patience``) not
    below ``max_steps`` (it could never fire). Returns the report when all is
    well (it prints as one line).
    """
    if not isinstance(eval_spec, tf.estimator.EvalSpec):
        raise EarlyStoppingProblem(f"expected the tf.estimator.EvalSpec given to train_and_evaluate, "
                                   f"not {type(eval_spec).__name__}")
    hook_reads = eval_dir if eval_dir is not None else estimator.eval_dir()
    writes = estimator.eval_dir(eval_spec.name)
    results = evaluation_results(estimator)
    report = PreflightReport(metric_name, results, str(hook_reads), str(writes), eval_spec.name,
                             steps=_steps_sentence(min_steps, max_steps, patience))
    for problem in (metric_problem(metric_name, results), folder_problem(hook_reads, eval_spec.name, writes),
                    steps_problem(min_steps, max_steps, patience)):
        if problem:
            report.problems.append(problem)
    if report.problems:
        raise EarlyStoppingProblem(" ".join(report.problems))
    return report


# --------------------------------------------------------------------------- the hook's decision


def _summary(values: dict):
    return tf.compat.v1.Summary(value=[
        tf.compat.v1.Summary.Value(tag=name, simple_value=float(value)) for name, value in values.items()
    ])


def read_eval_results(eval_dir) -> dict:
    """``{step: {name: value}}``: the scalar summaries of the event files in ``eval_dir``, as the hook sees them.

    Only v1 scalars (``simple_value``) count, as in the hook; a missing folder gives ``{}``.
    """
    found = {}
    for path in sorted(Path(eval_dir).glob("events.out.tfevents.*")) if Path(eval_dir).is_dir() else []:
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            values = {value.tag: value.simple_value for value in event.summary.value
                      if value.HasField("simple_value")}
            if values:
                found.setdefault(int(event.step), {}).update(values)
    return dict(sorted(found.items()))


class HookProbe:
    """Call a hook's ``after_run`` as the training loop does, at global steps you choose.

    The hook's ``begin()`` runs in a graph of its own with a global step, as
    under ``train()``; ``asks_to_stop(step)`` then passes ``step`` as the value
    of the global step fetched with the training step and returns whether the
    hook requested a stop. The early-stopping hooks check only when their
    timer allows it: build them with ``run_every_secs=None, run_every_steps=1``
    to have them check at every call.
    """

    def __init__(self, hook):
        self.hook = hook
        with estimator_graph() as self._graph:
            hook.begin()
            initialize = tf.compat.v1.global_variables_initializer()
        self._session = tf.compat.v1.Session(graph=self._graph)
        self._session.run(initialize)

    def asks_to_stop(self, global_step: int) -> bool:
        context = tf.compat.v1.train.SessionRunContext(
            original_args=tf.compat.v1.train.SessionRunArgs(fetches=None), session=self._session)
        values = tf.compat.v1.train.SessionRunValues(results=int(global_step), options=None, run_metadata=None)
        self.hook.after_run(context, values)
        return context.stop_requested

    def close(self) -> None:
        self._session.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def _best_so_far(values, higher_is_better: bool, min_steps: int):
    """Walk the evaluations in step order as the hook does: ``(step, best_step, best_value)``.

    Evaluations at a step below ``min_steps`` are skipped; a value becomes the
    best only when it is strictly better than the best so far.
    """
    best, best_at = None, None
    for step, value in sorted(dict(values).items()):
        if step < min_steps:
            continue
        if best is None or (value > best if higher_is_better else value < best):
            best, best_at = value, step
        yield step, best_at, best


def best_step(values, higher_is_better: bool = True, min_steps: int = 0):
    """The hook's best evaluation: ``(step, value)``, or ``(None, None)`` if none counts.

    The rule of ``stop_if_no_increase_hook`` / ``…_decrease_hook``: evaluations at a
    step below ``min_steps`` are skipped; a value becomes the best only when it is
    strictly better than the best so far, so the earliest of equal values stays
    the best. ``values`` maps step to value (a dict or a pandas Series).
    """
    best_at, best = None, None
    for _, best_at, best in _best_so_far(values, higher_is_better, min_steps):
        pass
    return best_at, best


def stop_after(values, patience: int, higher_is_better: bool = True, min_steps: int = 0):
    """The evaluation step after which the hook asks to stop, or None: the hook's rule.

    It stops at the first evaluation whose step is at least ``patience`` steps
    after the best one so far (``step - best_step >= patience``).
    """
    for step, best_at, _ in _best_so_far(values, higher_is_better, min_steps):
        if step - best_at >= patience:
            return step
    return None


def replay(values: dict, metric_name: str, make_hook, eval_dir, higher_is_better: bool = True,
           min_steps: int = 0) -> pd.DataFrame:
    """Show a hook a timeline one evaluation at a time; one row per evaluation.

    ``values`` is ``{step: value}`` of ``metric_name``; ``make_hook()`` returns the
    hook to ask (built on an Estimator whose evaluations go to ``eval_dir``, with
    ``run_every_secs=None, run_every_steps=1``). Event files already in
    ``eval_dir`` are removed first. After each evaluation is written, a fresh
    hook is asked at that step. Columns: the value, the best step so far by
    ``best_step`` (the hook's rule), steps since it, and the hook's answer.
    """
    os.makedirs(eval_dir, exist_ok=True)
    for old in Path(eval_dir).glob("events.out.tfevents.*"):
        old.unlink()
    rows = []
    seen = {}
    writer = _file_writer(eval_dir)
    try:
        for step, value in sorted(values.items()):
            writer.add_summary(_summary({metric_name: value}), int(step))
            writer.flush()
            seen[step] = value
            best_at, _ = best_step(seen, higher_is_better, min_steps)
            with HookProbe(make_hook()) as probe:
                stops = probe.asks_to_stop(step)
            rows.append({"step": step, metric_name: value, "best step so far": best_at if best_at is not None else "-",
                         "steps since best": step - best_at if best_at is not None else "-",
                         "hook asks to stop": stops})
    finally:
        writer.close()
    return pd.DataFrame(rows).set_index("step")


# --------------------------------------------------------------------------- a run, read back


def log_showing(prefixes: Iterable[str] = STOPPING_LINES) -> contextlib.AbstractContextManager[list[str]]:
    """Show only TensorFlow log lines that start with one of ``prefixes``; collect them all."""
    return captured_log(show=prefixes)


def requested_at(lines) -> int | None:
    """The global step of "Requesting early stopping at global step N" in a log, or None."""
    for line in lines:
        match = re.match(r"Requesting early stopping at global step (\d+)", line)
        if match:
            return int(match.group(1))
    return None


def make_holdout_input_fn(dataset: str = "mnist", skip: int = 2_000, batch_size: int = 500):
    """``inputs.make_eval_input_fn`` over the test images after the first ``skip`` (notebook 07's name for it).

    Notebook 07 lets the hook watch the first ``skip`` test images (a validation
    set) and measures the chosen model on the others, which chose nothing.
    """
    return inputs.make_eval_input_fn(dataset, "test", batch_size, skip=skip)


def plot_timeline(values, metric: str, best: int, stop: int, patience: int | None = None,
                  min_steps: int = 0, max_steps: int | None = None, title: str | None = None):
    """A run's evaluations of ``metric`` against the global step, with the best step and the stop.

    ``values`` maps step to value (a pandas Series from ``events.timeline``).
    Marked: the steps below ``min_steps`` (ignored by the hook), the best
    evaluation, the ``patience`` window after it, the step where training
    stopped, and ``max_steps`` where it would have ended otherwise.
    """
    series = pd.Series(dict(values)).sort_index()
    figure, axis = plt.subplots(figsize=(10, 4))
    if min_steps:
        axis.axvspan(0, min_steps, color="0.85", label=f"ignored by the hook (step < min_steps = {min_steps})")
    if patience:
        axis.axvspan(best, best + patience, color="tab:green", alpha=0.12,
                     label=f"patience: {patience} steps after the best")
    axis.plot(series.index, series.values, marker="o", markersize=4, color="tab:blue",
              label=f"{metric} at each evaluation")
    axis.plot([best], [series[best]], marker="*", markersize=14, color="tab:green", linestyle="none",
              label=f"best: step {best}")
    axis.axvline(stop, color="tab:red", label=f"training stopped: step {stop}")
    if max_steps:
        axis.axvline(max_steps, color="0.4", linestyle=":", label=f"max_steps = {max_steps}")
    axis.set_xlim(0, max(max_steps or 0, stop, series.index.max()) * 1.02)
    axis.set_xlabel("global step")
    axis.set_ylabel(metric)
    axis.set_title(title or f"Evaluations of {metric}, and where the hook stopped training")
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the plot, never on it
    figure.tight_layout()
    return figure
