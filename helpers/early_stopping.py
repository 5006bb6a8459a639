"""Early stopping (notebook 07): ``preflight`` finds, before training, the hook set-ups that would
raise ``KeyError`` mid-training or never stop; ``best_step``/``stop_after`` are the hook's rule
written out (tensorflow_estimator's ``early_stopping.py``, whose ``read_eval_metrics`` reads what
the hook reads).
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from typing import NamedTuple

import tensorflow as tf

from .language import _, all_of, any_of, listed, sentences
from .logs import logger_level
from .model_fn_checker import check_branch
from .problems import WorkbookProblem, similar_names
from .paths import display_path


class EarlyStoppingProblem(WorkbookProblem):
    """An early-stopping hook that would crash mid-training or never fire (notebook 07)."""


# The dtypes whose scalar results Estimator's ``_write_dict_to_summary`` writes as v1 scalars, the
# only kind the hooks read; it skips the others with a warning (the tests check this list against
# Estimator's own writer).
SCALAR_DTYPES = ("float32", "float64", "int32", "int64")


def written_as_scalar(dtype) -> bool:
    """Whether Estimator writes a scalar result of ``dtype`` where the hooks read it."""
    return tf.as_dtype(dtype).name in SCALAR_DTYPES


class Result(NamedTuple):
    """One evaluation result as evaluation returns it: its shape and dtype."""

    shape: tuple
    dtype: str

    @property
    def readable(self) -> bool:
        """Whether the hooks can read it: a scalar that Estimator writes as ``simple_value``."""
        return tuple(self.shape) == () and written_as_scalar(self.dtype)


def evaluation_results(estimator, batch_size: int = 4) -> dict[str, Result]:
    """``{name: Result}`` of what evaluating ``estimator`` writes: its EVAL graph run once on
    random images."""
    # add_metrics returns the v1 class
    if not isinstance(estimator, tf.compat.v1.estimator.Estimator):
        raise EarlyStoppingProblem(
            _("expected a tf.estimator.Estimator, not {kind}").format(kind=type(estimator).__name__)
        )
    specs = []

    def recording_model_fn(features, labels, mode, config):
        specs.append(estimator.model_fn(features, labels, mode, config))
        return specs[-1]

    # "Calling model_fn." is Estimator's business, not this check's
    with logger_level(logging.WARNING):
        branch, findings, _graph = check_branch(
            recording_model_fn, "EVAL", tf.estimator.ModeKeys.EVAL, None, batch_size
        )
    if findings:
        raise EarlyStoppingProblem(
            _(
                "the EVAL graph could not be built, so the hook has nothing to read: {finding}"
            ).format(finding=findings[0].sentence)
        )
    dtypes = {
        name: tf.as_dtype(value.dtype).base_dtype.name
        for name, (value, _update_op) in (specs[-1].eval_metric_ops or {}).items()
    }
    results = {
        name: Result(tuple(shape), dtypes.get(name, "float32"))
        for name, shape in branch.metrics.items()
    }
    # Estimator adds tf.compat.v1.metrics.mean(loss): float32
    results.setdefault("loss", Result((), "float32"))
    return dict(sorted(results.items()))


@dataclass
class PreflightReport:
    """What a passed ``preflight`` found; it prints as one line."""

    metric_name: str
    results: dict  # name -> Result of every evaluation result
    hook_reads: str
    steps: str = ""  # what min_steps / max_steps leave the hook, when they were given

    def __repr__(self) -> str:
        scalars = [name for name, result in self.results.items() if result.readable]
        passed = _(
            "Pre-flight check passed: {metric!r} is one of the {count} scalar evaluation results "
            "({names}), and the hook reads {folder}, where the evaluations are written."
        ).format(
            metric=self.metric_name,
            count=len(scalars),
            names=listed(scalars),
            folder=display_path(self.hook_reads),
        )
        return sentences(passed, self.steps)


def metric_problem(metric_name: str, results: dict[str, Result]) -> str | None:
    """The sentence for a ``metric_name`` the hook could not read, or None."""
    scalars = [name for name, result in results.items() if result.readable]
    listing = listed(scalars)
    if metric_name not in results:
        close = similar_names(metric_name, scalars)
        if close:
            return _(
                "metric_name={metric!r} is not among the evaluation results of this model "
                "({names}), so the hook would raise KeyError: {metric!r} at its first check after "
                "an evaluation, in the middle of training (did you mean {close}?)."
            ).format(metric=metric_name, names=listing, close=any_of(map(repr, close)))
        return _(
            "metric_name={metric!r} is not among the evaluation results of this model ({names}), "
            "so the hook would raise KeyError: {metric!r} at its first check after an evaluation, "
            "in the middle of training."
        ).format(metric=metric_name, names=listing)
    result = results[metric_name]
    if tuple(result.shape) != ():
        return _(
            "metric_name={metric!r} is an array of shape {shape}, which Estimator writes as a "
            "tensor summary that the hook cannot read (it would raise KeyError: {metric!r}): "
            "choose one of the scalar results, {names}."
        ).format(metric=metric_name, shape=tuple(result.shape), names=listing)
    if result.dtype == "string":
        return _(
            "metric_name={metric!r} is a string scalar, and Estimator writes only {written} "
            "scalars to the event file (a string result it parses as a serialized Summary), so "
            "the hook would raise KeyError: {metric!r} at its first check after an evaluation: "
            "cast its value in eval_metric_ops with tf.cast(value, tf.float32), or choose one of "
            "{names}."
        ).format(metric=metric_name, written=all_of(SCALAR_DTYPES), names=listing)
    if not written_as_scalar(result.dtype):
        return _(
            "metric_name={metric!r} is a {dtype} scalar, and Estimator writes only {written} "
            "scalars to the event file (a {dtype} one it skips with the warning 'Skipping summary "
            "for {metric}'), so the hook would raise KeyError: {metric!r} at its first check after "
            "an evaluation: cast its value in eval_metric_ops with tf.cast(value, tf.float32), or "
            "choose one of {names}."
        ).format(
            metric=metric_name, dtype=result.dtype, written=all_of(SCALAR_DTYPES), names=listing
        )
    return None


def steps_problem(min_steps: int, max_steps: int | None, patience: int | None) -> str | None:
    """The sentence for a hook that cannot stop before ``max_steps`` (its earliest stop:
    min_steps + patience)."""
    if max_steps is None:
        return None
    if min_steps >= max_steps:
        return _(
            "min_steps={min_steps} is not below max_steps={max_steps}: the hook ignores every "
            "evaluation before global step {min_steps} and training ends at step {max_steps}, so "
            "it can never stop training early: lower min_steps (or raise max_steps)."
        ).format(min_steps=min_steps, max_steps=max_steps)
    if patience is not None and min_steps + patience >= max_steps:
        return _(
            "min_steps + patience = {min_steps} + {patience} = {earliest} is not below "
            "max_steps={max_steps}: the hook's earliest stop is an evaluation {patience} steps "
            "after the first one it counts (at step {min_steps} or later), and training ends at "
            "step {max_steps}, so it can never stop training early: lower min_steps or the "
            "patience (or raise max_steps)."
        ).format(
            min_steps=min_steps,
            patience=patience,
            earliest=min_steps + patience,
            max_steps=max_steps,
        )
    return None


def _steps_sentence(min_steps: int, max_steps: int | None, patience: int | None) -> str:
    if max_steps is None:
        return ""
    if patience is None:
        return _(
            "It counts the evaluations from step {min_steps} on, before max_steps={max_steps}."
        ).format(min_steps=min_steps, max_steps=max_steps)
    return _(
        "It can stop training from step {earliest} on (min_steps + patience), before "
        "max_steps={max_steps}."
    ).format(earliest=min_steps + patience, max_steps=max_steps)


def folder_problem(hook_reads, eval_name: str | None, evaluation_writes) -> str | None:
    """The sentence for a hook that reads another folder than evaluation writes to, or None."""
    if os.path.realpath(str(hook_reads)) == os.path.realpath(str(evaluation_writes)):
        return None
    values = {
        "reads": display_path(hook_reads),
        "name": eval_name,
        "writes": display_path(evaluation_writes),
    }
    if eval_name:
        return _(
            "The hook reads {reads}, but EvalSpec(name={name!r}) writes its evaluations to "
            "{writes}, so the hook would never see a result and never stop: pass "
            "eval_dir=estimator.eval_dir({name!r})."
        ).format(**values)
    return _(
        "The hook reads {reads}, but EvalSpec(name={name!r}) writes its evaluations to {writes}, "
        "so the hook would never see a result and never stop: pass eval_dir=estimator.eval_dir() "
        "(or leave it out)."
    ).format(**values)


def preflight(
    estimator,
    eval_spec,
    metric_name: str,
    eval_dir=None,
    min_steps: int = 0,
    max_steps: int | None = None,
    patience: int | None = None,
) -> PreflightReport:
    """Check an early-stopping set-up before training (what the hook gets, the ``EvalSpec`` and, for
    the steps, ``max_steps`` and the patience); raise ``EarlyStoppingProblem`` with one sentence per
    problem found.
    """
    if not isinstance(eval_spec, tf.estimator.EvalSpec):
        raise EarlyStoppingProblem(
            _("expected the tf.estimator.EvalSpec given to train_and_evaluate, not {kind}").format(
                kind=type(eval_spec).__name__
            )
        )
    results = evaluation_results(estimator)  # first: it refuses what is not an Estimator
    hook_reads = eval_dir if eval_dir is not None else estimator.eval_dir()
    writes = estimator.eval_dir(eval_spec.name)
    problems = [
        problem
        for problem in (
            metric_problem(metric_name, results),
            folder_problem(hook_reads, eval_spec.name, writes),
            steps_problem(min_steps, max_steps, patience),
        )
        if problem
    ]
    if problems:
        raise EarlyStoppingProblem(sentences(*problems))
    return PreflightReport(
        metric_name, results, str(hook_reads), _steps_sentence(min_steps, max_steps, patience)
    )


def _best_so_far(values, higher_is_better: bool, min_steps: int):
    """``(step, best_step, best_value)`` in step order; below ``min_steps`` skipped; only a
    better value counts."""
    best, best_at = None, None
    for step, value in sorted(dict(values).items()):
        if step < min_steps:
            continue
        if best is None or (value > best if higher_is_better else value < best):
            best, best_at = value, step
        yield step, best_at, best


def best_step(values, higher_is_better: bool = True, min_steps: int = 0) -> tuple:
    """The hook's best ``(step, value)`` of ``{step: value}`` (the earliest of equals), or
    ``(None, None)``."""
    best_at, best = None, None
    for _step, best_at, best in _best_so_far(values, higher_is_better, min_steps):
        pass
    return best_at, best


def stop_after(
    values, patience: int, higher_is_better: bool = True, min_steps: int = 0
) -> int | None:
    """The first evaluation step at least ``patience`` steps after the best so far (where the
    hook stops), or None."""
    for step, best_at, _best in _best_so_far(values, higher_is_better, min_steps):
        if step - best_at >= patience:
            return step
    return None


def requested_at(lines) -> int | None:
    """The global step of "Requesting early stopping at global step N" in a log, or None."""
    for line in lines:
        if match := re.match(r"Requesting early stopping at global step (\d+)", line):
            return int(match.group(1))
    return None
