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

from .logs import logger_level
from .model_fn_checker import check_branch
from .problems import WorkbookProblem, similar_names
from .settings import display_path


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
            f"expected a tf.estimator.Estimator, not {type(estimator).__name__}"
        )
    specs = []

    def recording_model_fn(features, labels, mode, config):
        specs.append(estimator.model_fn(features, labels, mode, config))
        return specs[-1]

    # "Calling model_fn." is Estimator's business, not this check's
    with logger_level(logging.WARNING):
        branch, findings, _ = check_branch(
            recording_model_fn, "EVAL", tf.estimator.ModeKeys.EVAL, None, batch_size
        )
    if findings:
        raise EarlyStoppingProblem(
            "the EVAL graph could not be built, so the hook has nothing to read: "
            f"{findings[0].sentence}"
        )
    dtypes = {
        name: tf.as_dtype(value.dtype).base_dtype.name
        for name, (value, _) in (specs[-1].eval_metric_ops or {}).items()
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
        return (
            f"Pre-flight check passed: {self.metric_name!r} is one of the {len(scalars)} scalar "
            f"evaluation results ({', '.join(scalars)}), and the hook reads "
            f"{display_path(self.hook_reads)}, where the evaluations are written." + self.steps
        )


def metric_problem(metric_name: str, results: dict[str, Result]) -> str | None:
    """The sentence for a ``metric_name`` the hook could not read, or None."""
    scalars = [name for name, result in results.items() if result.readable]
    listing = ", ".join(scalars)
    keyerror = (
        f"so the hook would raise KeyError: {metric_name!r} at its first check after an evaluation"
    )
    if metric_name not in results:
        close = similar_names(metric_name, scalars)
        hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
        return (
            f"metric_name={metric_name!r} is not among the evaluation results of this model "
            f"({listing}), {keyerror}, in the middle of training{hint}."
        )
    result = results[metric_name]
    if tuple(result.shape) != ():
        return (
            f"metric_name={metric_name!r} is an array of shape {tuple(result.shape)}, which "
            "Estimator writes as a tensor summary that the hook cannot read (it would raise "
            f"KeyError: {metric_name!r}): choose one of the scalar results, {listing}."
        )
    if not written_as_scalar(result.dtype):
        how = (
            "a string result it parses as a serialized Summary"
            if result.dtype == "string"
            else f"a {result.dtype} one it skips with the warning "
            f"'Skipping summary for {metric_name}'"
        )
        return (
            f"metric_name={metric_name!r} is a {result.dtype} scalar, and Estimator writes only "
            f"{', '.join(SCALAR_DTYPES[:-1])} and {SCALAR_DTYPES[-1]} scalars to the event file "
            f"({how}), {keyerror}: cast its value in eval_metric_ops with tf.cast(value, "
            f"tf.float32), or choose one of {listing}."
        )
    return None


def steps_problem(min_steps: int, max_steps: int | None, patience: int | None) -> str | None:
    """The sentence for a hook that cannot stop before ``max_steps`` (its earliest stop:
    min_steps + patience)."""
    if max_steps is None:
        return None
    if min_steps >= max_steps:
        return (
            f"min_steps={min_steps} is not below max_steps={max_steps}: the hook ignores every "
            f"evaluation before global step {min_steps} and training ends at step {max_steps}, so "
            "it can never stop training early: lower min_steps (or raise max_steps)."
        )
    if patience is not None and min_steps + patience >= max_steps:
        return (
            f"min_steps + patience = {min_steps} + {patience} = {min_steps + patience} is not "
            f"below max_steps={max_steps}: the hook's earliest stop is an evaluation {patience} "
            f"steps after the first one it counts (at step {min_steps} or later), and training "
            f"ends at step {max_steps}, so it can never stop training early: lower min_steps or "
            "the patience (or raise max_steps)."
        )
    return None


def _steps_sentence(min_steps: int, max_steps: int | None, patience: int | None) -> str:
    if max_steps is None:
        return ""
    if patience is None:
        return f" It counts the evaluations from step {min_steps} on, before max_steps={max_steps}."
    return (
        f" It can stop training from step {min_steps + patience} on (min_steps + patience), "
        f"before max_steps={max_steps}."
    )


def folder_problem(hook_reads, eval_name: str | None, evaluation_writes) -> str | None:
    """The sentence for a hook that reads another folder than evaluation writes to, or None."""
    if os.path.realpath(str(hook_reads)) == os.path.realpath(str(evaluation_writes)):
        return None
    fix = (
        f"eval_dir=estimator.eval_dir({eval_name!r})"
        if eval_name
        else "eval_dir=estimator.eval_dir() (or leave it out)"
    )
    return (
        f"The hook reads {display_path(hook_reads)}, but EvalSpec(name={eval_name!r}) writes its "
        f"evaluations to {display_path(evaluation_writes)}, so the hook would never see a result "
        f"and never stop: pass {fix}."
    )


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
            "expected the tf.estimator.EvalSpec given to train_and_evaluate, "
            f"not {type(eval_spec).__name__}"
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
        raise EarlyStoppingProblem(" ".join(problems))
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
    for _, best_at, best in _best_so_far(values, higher_is_better, min_steps):
        pass
    return best_at, best


def stop_after(
    values, patience: int, higher_is_better: bool = True, min_steps: int = 0
) -> int | None:
    """The first evaluation step at least ``patience`` steps after the best so far (where the
    hook stops), or None."""
    for step, best_at, _ in _best_so_far(values, higher_is_better, min_steps):
        if step - best_at >= patience:
            return step
    return None


def requested_at(lines) -> int | None:
    """The global step of "Requesting early stopping at global step N" in a log, or None."""
    for line in lines:
        if match := re.match(r"Requesting early stopping at global step (\d+)", line):
            return int(match.group(1))
    return None
