"""Run the learner's model_fn as Estimator does: judge its parameter names, then build and run each
mode's branch (PREDICT, EVAL, TRAIN) in a fresh graph on a tiny batch, collecting the findings of
the diagnoses and of the error explanations into a ``ModelFnReport``."""

from __future__ import annotations

import ast
import contextlib
import inspect
import logging
import re
import textwrap
from collections.abc import Callable, Iterator
from unittest import mock

import numpy as np
import tensorflow as tf
from tensorflow.python.util import function_utils
from tensorflow_estimator.python.estimator import model_fn as model_fn_lib

from ..language import _, listed
from ..logs import logger_level
from ..model_graph import call_like_estimator, estimator_graph, tiny_batch
from .diagnoses import (
    _ancestors,
    _keras_metric_sentence,
    check_bool_casts,
    check_predictions,
    check_repeatable,
    check_moving_averages,
    check_softmax_logits,
    check_variables,
    skipped_updates,
)
from .report import Branch, Finding, ModelFnReport, _listed
from .tf_errors import FIX_GLOBAL_STEP, explain_build_error, explain_run_error, features_as_tensor

ModeKeys = tf.estimator.ModeKeys

MODES = (("PREDICT", ModeKeys.PREDICT), ("EVAL", ModeKeys.EVAL), ("TRAIN", ModeKeys.TRAIN))
ACCEPTED_ARGS = ("features", "labels", "mode", "params", "config")

# how a string compared with `mode` starts -> the mode it meant ("TRAIN", "training" -> TRAIN)
_MODE_PREFIXES = (("train", "TRAIN"), ("eval", "EVAL"), ("pred", "PREDICT"), ("infer", "PREDICT"))


def check_model_fn(
    model_fn: Callable, params: dict | None = None, batch_size: int = 4
) -> ModelFnReport:
    """Run ``model_fn`` in PREDICT, EVAL and TRAIN on a tiny batch; report what to change."""
    report = ModelFnReport(
        getattr(model_fn, "__name__", None) or type(model_fn).__name__, batch_size
    )
    if not check_signature(model_fn, params, report):
        return report
    wrong_modes = wrong_mode_comparisons(model_fn)
    for mode_name, mode in MODES:
        if mode != ModeKeys.PREDICT and "labels" not in function_utils.fn_args(model_fn):
            report.branches[mode_name] = Branch(
                mode_name, returned=_("not built (no labels parameter)")
            )
            continue
        report.branches[mode_name], findings, warnings = check_branch(
            model_fn, mode_name, mode, params, batch_size
        )
        if mode_name in wrong_modes:  # what went wrong in this branch follows from the comparison
            findings = [Finding(mode_name, _wrong_mode_sentence(mode_name, wrong_modes[mode_name]))]
        report.findings += findings
        report.warnings += warnings
    check_variables(report)
    return report


def _wrong_mode_sentence(mode_name: str, compared: str) -> str:
    """The finding for a branch the model_fn selects by comparing ``mode`` with ``compared``."""
    return _(
        "the model_fn compares `mode` with {compared!r}, but in {mode} Estimator passes "
        "tf.estimator.ModeKeys.{mode} == {key!r}, so that branch never runs: compare with "
        "`tf.estimator.ModeKeys.{mode}`"
    ).format(compared=compared, mode=mode_name, key=getattr(ModeKeys, mode_name))


def signature_problems() -> dict:
    """What Estimator refuses -> the finding (templates in the learner's language)."""
    return {
        "features": _(
            "the model_fn has no parameter named `features`: Estimator passes the features by "
            "that name, so call the first parameter `features`"
        ),
        "params": _(
            "params are given but the model_fn has no `params` parameter: add `params` to its "
            "signature to receive them"
        ),
        "unexpected": _(
            "Estimator does not pass {names}: it accepts only the parameter names {accepted}, so "
            "rename {names}"
        ),
    }


def check_signature(model_fn: Callable, params: dict | None, report: ModelFnReport) -> bool:
    """Judge the parameter names by Estimator's rule; True when Estimator would call it."""
    args, estimator_error = list(function_utils.fn_args(model_fn)), None
    # its "params not passed" warning is not the learner's business here
    with logger_level(logging.ERROR):
        try:
            model_fn_lib.verify_model_fn_args(model_fn, params)
        except ValueError as error:
            estimator_error = re.sub(r" at 0x[0-9a-fA-F]+", "", str(error))  # no memory address
    unexpected = [name for name in args if name not in ACCEPTED_ARGS and name != "self"]
    refused = {  # in the order Estimator checks them: the first is the one it raises for
        "features": "features" not in args,
        "params": params is not None and "params" not in args,
        "unexpected": bool(unexpected),
    }
    raised_for = next((kind for kind, refuses in refused.items() if refuses), None)
    names = _listed([f"`{name}`" for name in unexpected], limit=len(unexpected))
    for kind in ("features", "unexpected", "params"):
        if not refused[kind]:
            continue
        finding = signature_problems()[kind].format(names=names, accepted=listed(ACCEPTED_ARGS))
        if kind == raised_for and estimator_error:
            finding = _("{finding} (Estimator raises `ValueError: {error}`)").format(
                finding=finding, error=estimator_error
            )
        report.problem("signature", finding)
    if "labels" not in args:
        report.problem(
            "signature",
            _(
                "the model_fn has no `labels` parameter: Estimator passes the input_fn's labels "
                "in training and evaluation (and raises `ValueError: model_fn does not take "
                "labels, but input_fn returns labels.`), so add `labels`"
            ),
        )
    if "mode" not in args:
        report.warn(
            "signature",
            _(
                "the model_fn has no `mode` parameter, so it cannot tell training, evaluation "
                "and prediction apart: add `mode` and branch on it"
            ),
        )
    return estimator_error is None


def check_branch(
    model_fn: Callable, mode_name: str, mode: str, params: dict | None, batch_size: int
) -> tuple[Branch, list, list]:
    """Build one mode's branch in a fresh graph and run it: (Branch, findings, warnings)."""
    branch, found = Branch(mode_name), ModelFnReport(mode_name, batch_size)
    with estimator_graph() as graph:
        if (spec := build_branch(model_fn, branch, mode, params, found)) is not None:
            if mode == ModeKeys.TRAIN:
                check_softmax_logits(spec.loss, found)
            with tf.compat.v1.Session(graph=graph) as session:
                session.run(
                    [
                        tf.compat.v1.global_variables_initializer(),
                        tf.compat.v1.local_variables_initializer(),
                        tf.compat.v1.tables_initializer(),
                    ]
                )
                run = check_predictions if mode == ModeKeys.PREDICT else run_branch
                try:
                    run(session, spec, branch, found)
                except tf.errors.OpError as error:
                    found.problem(mode_name, explain_run_error(mode_name, error, batch_size))
    return branch, found.findings, found.warnings


def build_branch(
    model_fn: Callable, branch: Branch, mode: str, params: dict | None, found: ModelFnReport
) -> tf.estimator.EstimatorSpec | None:
    """Call ``model_fn`` in the current graph; the EstimatorSpec, or None (with a finding)."""
    features, labels = tiny_batch(found.batch_size, with_labels=(mode != ModeKeys.PREDICT))
    try:
        with _recording_keras_metrics() as keras_metrics:
            spec = call_like_estimator(model_fn, features, labels, mode, params)
    except Exception as error:  # the learner's code can raise anything
        branch.returned = _("raised {error}").format(error=type(error).__name__)
        if sentence := features_as_tensor(model_fn, error, features, mode, params):
            return found.problem(branch.mode, sentence)
        needs_labels = mode == ModeKeys.PREDICT and _builds_with_labels(
            model_fn, params, found.batch_size
        )
        return found.problem(
            branch.mode, explain_build_error(branch.mode, error, params, needs_labels)
        )
    if sentence := _not_a_spec_for(mode, spec, branch):
        return found.problem(branch.mode, sentence)
    branch.built, branch.returned = True, "EstimatorSpec"
    _note_variables(branch, spec, mode)
    for key, metric in keras_metrics:
        found.warn(branch.mode, _keras_metric_sentence(key, metric))
    return spec


def _not_a_spec_for(mode: str, spec, branch: Branch) -> str | None:
    """The sentence when ``spec`` is not an EstimatorSpec for ``mode`` (noted in ``branch``)."""
    if not isinstance(spec, tf.estimator.EstimatorSpec):
        branch.returned = type(spec).__name__
        if spec is None:
            return _(
                "the model_fn returned None (a branch without `return`?), not a "
                "tf.estimator.EstimatorSpec: return `tf.estimator.EstimatorSpec(mode, ...)` in "
                "every branch (Estimator raises `ValueError: model_fn should return an "
                "EstimatorSpec.`)"
            )
        return _(
            "the model_fn returned a {kind}, not a tf.estimator.EstimatorSpec: return "
            "`tf.estimator.EstimatorSpec(mode, ...)` in every branch (Estimator raises "
            "`ValueError: model_fn should return an EstimatorSpec.`)"
        ).format(kind=type(spec).__name__)
    if spec.mode != mode:
        branch.returned = _("EstimatorSpec for {mode!r}").format(mode=spec.mode)
        return _(
            "in {mode} the model_fn returned an EstimatorSpec for mode {returned!r}: give "
            "EstimatorSpec the `mode` the model_fn received"
        ).format(mode=branch.mode, returned=spec.mode)
    return None


def _note_variables(branch: Branch, spec: tf.estimator.EstimatorSpec, mode: str) -> None:
    """Note in ``branch`` the trainable variables, those its output uses, and (TRAIN) those that
    the loss has no gradient for, so that training never changes them."""
    trainable = tf.compat.v1.trainable_variables()
    branch.variables = {variable.op.name: tuple(variable.shape.as_list()) for variable in trainable}
    outputs = tf.nest.flatten(spec.predictions if mode == ModeKeys.PREDICT else spec.loss)
    branch.used_variables = frozenset(
        op.name for op in _ancestors(outputs) if op.type in ("VarHandleOp", "VariableV2")
    )
    if mode == ModeKeys.TRAIN and trainable and spec.loss.dtype.is_floating:
        # a loss TensorFlow cannot differentiate is not this check's business
        with contextlib.suppress(Exception):
            gradients = tf.compat.v1.gradients(spec.loss, trainable)
            branch.untrained = tuple(
                var.op.name for var, gradient in zip(trainable, gradients) if gradient is None
            )


def run_branch(session: tf.compat.v1.Session, spec, branch: Branch, found: ModelFnReport) -> None:
    """Run what Estimator runs in EVAL or TRAIN: the loss, then the metrics or the train_op once."""
    loss = spec.loss
    # EstimatorSpec reshapes a loss of unknown size to []; look at what it was given.
    if loss.op.type == "Reshape" and loss.op.inputs[0].shape.num_elements() is None:
        loss = loss.op.inputs[0]
    branch.loss_shape = np.shape(session.run(loss))
    if np.prod(branch.loss_shape) != 1:
        found.problem(
            branch.mode,
            _(
                "the loss has shape {shape}, but Estimator needs one number for the batch: reduce "
                "it with `tf.reduce_mean`, or use a `tf.compat.v1.losses` function, which returns "
                "the mean"
            ).format(shape=tuple(branch.loss_shape)),
        )
    elif branch.mode == "EVAL":
        check_repeatable(session, {_("the loss"): spec.loss}, "EVAL", found)
        check_bool_casts(session, spec, found)
        metric_ops = spec.eval_metric_ops or {}
        session.run([update for _value, update in metric_ops.values()])
        values = session.run({key: value for key, (value, _update) in metric_ops.items()})
        branch.metrics = {key: np.shape(value) for key, value in values.items()}
    if branch.mode == "TRAIN":  # one run of train_op must move the global step from 0 to exactly 1
        branch.train_op = spec.train_op is not None
        global_step = tf.compat.v1.train.get_global_step()
        skipped = skipped_updates(spec.train_op)
        before, averages = int(session.run(global_step)), session.run(list(skipped))
        session.run(spec.train_op)
        after = int(session.run(global_step))
        check_moving_averages(session, skipped, averages, found)
        branch.global_step = (before, after)
        if after == before:
            found.problem(
                "TRAIN",
                _(
                    "the train_op does not increment the global step (still {after} after one "
                    "run), so Estimator's step counting never advances (train(steps=…) would run "
                    "until the input runs out): write `{fix}`"
                ).format(after=after, fix=FIX_GLOBAL_STEP),
            )
        elif after != before + 1:
            found.problem(
                "TRAIN",
                _(
                    "one run of the train_op moved the global step from {before} to {after}: "
                    "pass `global_step=` to exactly one minimize call"
                ).format(before=before, after=after),
            )


def wrong_mode_comparisons(model_fn: Callable) -> dict:
    """``{mode name: string}`` for each comparison of ``mode`` with a string that is no mode key."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(model_fn)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return {}
    keys, wrong = {ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT}, {}
    for node in ast.walk(tree):
        sides = [node.left, *node.comparators] if isinstance(node, ast.Compare) else []
        if not any(isinstance(side, ast.Name) and side.id == "mode" for side in sides):
            continue
        for side in sides:
            for item in side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]:
                if (
                    isinstance(item, ast.Constant)
                    and isinstance(item.value, str)
                    and item.value not in keys
                ):
                    low = item.value.strip().lower()
                    if meant := next(
                        (mode for prefix, mode in _MODE_PREFIXES if low.startswith(prefix)), None
                    ):
                        wrong.setdefault(meant, item.value)
    return wrong


def _builds_with_labels(model_fn: Callable, params: dict | None, batch_size: int) -> bool:
    """True when the PREDICT branch builds once it is given labels (so labels=None made it fail)."""
    with estimator_graph():
        try:
            call_like_estimator(model_fn, *tiny_batch(batch_size), ModeKeys.PREDICT, params)
        except Exception:  # still failing: the labels were not the cause
            return False
    return True


@contextlib.contextmanager
def _recording_keras_metrics() -> Iterator[list]:
    """Note ``(key, metric)`` for the eval_metric_ops values that are Keras Metric objects
    (EstimatorSpec replaces such a metric by ``(metric.result(), metric.updates[0])``, so the
    returned spec no longer shows it)."""
    metrics, original = [], model_fn_lib._validate_eval_metric_ops

    def recording(eval_metric_ops):
        if isinstance(eval_metric_ops, dict):
            metrics.extend(
                (k, v) for k, v in eval_metric_ops.items() if isinstance(v, tf.keras.metrics.Metric)
            )
        return original(eval_metric_ops)

    with mock.patch.object(model_fn_lib, "_validate_eval_metric_ops", recording):
        yield metrics
