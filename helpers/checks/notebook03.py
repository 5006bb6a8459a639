"""Exercise checks of notebook 03: two run the learner's ``model_fn`` through ``helpers.model_fn_checker``, the
third runs the learner's metric function on two small batches, as evaluation would."""

from __future__ import annotations

import numpy as np

from ..problems import CheckFailed
from .common import correct, require_answer, run_metric_pair

__all__ = ["train_op_increments", "predictions_per_example", "accuracy_metric_ops"]

PAIR_SECTION = "section 'What a `(value, update_op)` pair does'"
TRAPS = "section 'One forward pass, then three branches by `mode`'"


def _report(model_fn, name: str):
    from ..model_fn_checker import check_model_fn

    require_answer(model_fn, name)
    if not callable(model_fn):
        raise CheckFailed(f"`{name}` should be a function (a model_fn), not {type(model_fn).__name__}")
    return check_model_fn(model_fn)


def _raise_first_problem(report, mode: str) -> None:
    """Raise the checker's first finding in ``mode``, else its first finding at all."""
    finding = next((f for f in report.findings if f.mode == mode), None) or next(iter(report.findings), None)
    if finding is not None:
        raise CheckFailed(f"the checker says, for {finding.mode}: {finding.sentence}")


def train_op_increments(model_fn) -> None:
    """Notebook 03, exercise 1: the TRAIN branch's train_op moves the global step by one."""
    report = _report(model_fn, "fixed_model_fn")
    moved = getattr(report.branches.get("TRAIN"), "global_step", None)
    if moved is not None and moved[0] == moved[1]:
        raise CheckFailed(
            f"one run of your train_op leaves the global step at {moved[1]}, so Estimator never counts a step: "
            f"the optimizer does not know the global step it should advance ({TRAPS}, TRAIN, and the Recap's traps)")
    _raise_first_problem(report, "TRAIN")
    before, after = report.branches["TRAIN"].global_step
    correct(f"one run of your train_op moves the global step from {before} to {after}, "
            "and the checker finds nothing else to fix")


def predictions_per_example(model_fn) -> None:
    """Notebook 03, exercise 2: PREDICT returns one class per example (argmax over axis 1)."""
    report = _report(model_fn, "fixed_predict_model_fn")
    values = getattr(report.branches.get("PREDICT"), "prediction_values", None) or {}
    shape = tuple(np.shape(values["classes"])) if "classes" in values else None
    if shape is not None and (not shape or shape[0] != report.batch_size):
        raise CheckFailed(
            f"'classes' has shape {shape} for a batch of {report.batch_size}, not one class per example: the "
            f"argmax reduces over the wrong axis, the batch ({TRAPS}, and the Recap's traps)")
    _raise_first_problem(report, "PREDICT")
    if "classes" not in values:
        raise CheckFailed(f"the predictions have no 'classes' key (they have {sorted(values)}): keep the "
                          "names of the original model_fn")
    if "probabilities" in values and not np.array_equal(values["classes"], np.argmax(values["probabilities"], 1)):
        raise CheckFailed("'classes' is not the most probable class of each example: take `tf.argmax(logits, axis=1)`")
    correct(f"'classes' has shape {shape} for a batch of {report.batch_size}: one class per example")


def accuracy_metric_ops(metric_fn) -> None:
    """Notebook 03, exercise 3: ``{"accuracy": (value, update_op)}`` that accumulates over batches."""
    require_answer(metric_fn, "accuracy_ops")
    if not callable(metric_fn):
        raise CheckFailed(f"`accuracy_ops` should be a function of (labels, classes), not {type(metric_fn).__name__}")
    batches = [([0, 1, 2, 3], [0, 1, 2, 0]), ([4, 5], [4, 4])]  # 3 of 4 right, then 1 of 2: 4 of 6
    result = float(run_metric_pair(metric_fn, "accuracy_ops", "accuracy", batches,
                                   keras_hint=f"a (value, update_op) pair ({PAIR_SECTION})",
                                   pair_hint=f" ({PAIR_SECTION})", value_hint=f" ({PAIR_SECTION})"))
    if abs(result - 0.5) < 1e-6:
        raise CheckFailed("after two batches the value is 0.5, the second batch alone: the update op "
                          f"must add each batch to running totals ({PAIR_SECTION})")
    if abs(result - 4 / 6) > 1e-6:
        raise CheckFailed(f"after two batches with 4 of 6 classes right the value is {result:.4f}, not "
                          "0.6667: compare `labels` with `classes`")
    correct("after two batches (3 of 4 right, then 1 of 2) the accuracy is 4/6 = 0.6667: "
            "the update op accumulates, the value reads the totals")
