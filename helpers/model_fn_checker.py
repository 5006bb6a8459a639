"""Run a ``model_fn`` through PREDICT, EVAL and TRAIN on a tiny batch and say what to change
(notebook 03; early stopping's pre-flight check runs its EVAL branch). Each mode's graph is built
by ``model_graph`` as Estimator builds it.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import html
import inspect
import logging
import re
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple
from unittest import mock

import numpy as np
import pandas as pd
import tensorflow as tf
from tensorflow.python.util import function_utils
from tensorflow_estimator.python.estimator import model_fn as model_fn_lib

from .language import _, all_of, any_of, current
from .learner_code import Line, error_text, learner_line, op_line, where
from .logs import logger_level
from .model_graph import call_like_estimator, estimator_graph, tiny_batch
from .problems import WorkbookProblem, similar_names

ModeKeys = tf.estimator.ModeKeys

MODES = (("PREDICT", ModeKeys.PREDICT), ("EVAL", ModeKeys.EVAL), ("TRAIN", ModeKeys.TRAIN))
ACCEPTED_ARGS = ("features", "labels", "mode", "params", "config")
FIX_GLOBAL_STEP = "optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())"
FIX_TRAINING_FLAG = "training=(mode == tf.estimator.ModeKeys.TRAIN)"
FEATURES_IN = 'features {"image": float32 [batch, 28, 28]}'


def labels_in() -> str:
    """How the course's input functions deliver the labels, in the learner's language."""
    return _("labels int32 [batch] (class ids, not one-hot)")


# how a string compared with `mode` starts -> the mode it meant ("TRAIN", "training" -> TRAIN)
_MODE_PREFIXES = (("train", "TRAIN"), ("eval", "EVAL"), ("pred", "PREDICT"), ("infer", "PREDICT"))


class Finding(NamedTuple):
    """One thing to change: the mode it was found in (or ``signature``) and a sentence."""

    mode: str
    sentence: str

    def label(self) -> str:
        """What the finding is listed under: its mode, or the signature in the learner's
        language."""
        # TRANSLATORS: what a finding about the model_fn's parameter names is listed under
        return _("signature") if self.mode == "signature" else self.mode

    def __str__(self) -> str:
        return f"{self.label()}{colon()}{self.sentence}"


def colon() -> str:
    """What follows a label: ``": "`` in English, the full-width ``"："`` in Chinese."""
    return "：" if current() == "zh_TW" else ": "


@dataclass
class Branch:
    """What one mode's branch returned, as the checker saw it when it ran it."""

    mode: str
    built: bool = False
    returned: str = field(default_factory=lambda: _("not built"))
    predictions: dict = field(default_factory=dict)  # key -> evaluated shape
    prediction_values: dict = field(default_factory=dict)  # key -> numpy array
    export_outputs: tuple = ()
    loss_shape: tuple | None = None
    metrics: dict = field(default_factory=dict)  # name -> shape of the value after one update
    train_op: bool | None = None
    global_step: tuple | None = None  # (before, after) one run of train_op
    variables: dict = field(default_factory=dict)  # trainable variable name -> shape
    used_variables: frozenset = frozenset()  # variables the predictions (PREDICT) or loss use
    untrained: tuple = ()  # TRAIN: trainable variables the loss has no gradient for

    def row(self) -> dict:
        """The branch's row of the report's table."""
        if not self.built:
            return {"returned": self.returned}
        if self.train_op is None:
            train_op = "-"
        elif self.global_step is None:
            train_op = _("yes, not run")
        else:
            before, after = self.global_step
            train_op = _("yes, global step {before} → {after}").format(before=before, after=after)
        loss = "-" if self.loss_shape is None else _shapes({"": self.loss_shape}).strip()
        return {
            "returned": self.returned,
            "predictions": _shapes(self.predictions),
            "export_outputs": ", ".join(self.export_outputs) or "-",
            "loss": loss,
            "eval_metric_ops": _shapes(self.metrics),
            "train_op": train_op,
        }


def _shapes(named: dict) -> str:
    """``classes (4,), probabilities (4, 10)``: names and shapes, ``scalar`` for a shape ()."""
    scalar = _("scalar")  # TRANSLATORS: the shape () of a value, in the report's table
    listed = (f"{key} {scalar if len(s) == 0 else tuple(s)}" for key, s in named.items())
    return ", ".join(listed) or "-"


TABLE_COLUMNS = ("returned", "predictions", "export_outputs", "loss", "eval_metric_ops", "train_op")


def verdict(problems: int, warnings: int) -> str:
    """The report's verdict for ``problems`` and ``warnings`` (each counted 0, 1 or more)."""
    verdicts = {
        (0, 0): _("OK: Estimator can train, evaluate and predict with it"),
        (0, 1): _("OK: Estimator can train, evaluate and predict with it (1 warning)"),
        (0, 2): _("OK: Estimator can train, evaluate and predict with it ({warnings} warnings)"),
        (1, 0): _("1 problem to fix"),
        (1, 1): _("1 problem to fix (1 warning)"),
        (1, 2): _("1 problem to fix ({warnings} warnings)"),
        (2, 0): _("{problems} problems to fix"),
        (2, 1): _("{problems} problems to fix (1 warning)"),
        (2, 2): _("{problems} problems to fix ({warnings} warnings)"),
    }
    return verdicts[(min(problems, 2), min(warnings, 2))].format(
        problems=problems, warnings=warnings
    )


@dataclass
class ModelFnReport:
    """The result of ``check_model_fn``: findings, warnings and one ``Branch`` per mode."""

    name: str
    batch_size: int
    findings: list = field(default_factory=list)  # of Finding
    warnings: list = field(default_factory=list)  # of Finding
    branches: dict = field(default_factory=dict)  # "PREDICT" / "EVAL" / "TRAIN" -> Branch

    @property
    def ok(self) -> bool:  # Estimator could train, evaluate and predict with this model_fn
        return not self.findings

    @property
    def variables(self) -> dict:  # the trainable variables {name: shape} of the first branch built
        return next((dict(b.variables) for b in self.branches.values() if b.built), {})

    @property
    def trainable_parameters(self) -> int | None:
        built = any(b.built for b in self.branches.values())
        return int(sum(np.prod(shape) for shape in self.variables.values())) if built else None

    def problem(self, mode: str, sentence: str) -> None:
        self.findings.append(Finding(mode, sentence))

    def warn(self, mode: str, sentence: str) -> None:
        self.warnings.append(Finding(mode, sentence))

    def table(self) -> pd.DataFrame:
        """One row per branch, in the order of MODES (the order check_model_fn adds them)."""
        rows = [branch.row() for branch in self.branches.values()]
        frame = pd.DataFrame(rows, index=list(self.branches), columns=list(TABLE_COLUMNS))
        return frame.rename_axis("mode").fillna("-")

    def shown_table(self) -> pd.DataFrame:
        """``table()`` with the headings that are words (not code) in the learner's language."""
        # TRANSLATORS: headings of the model_fn check's table; the other columns are code names
        headings = {"returned": _("returned")}
        return self.table().rename(columns=headings).rename_axis(_("mode"))

    def raise_if_problems(self) -> None:
        if self.findings:
            raise WorkbookProblem(str(self.findings[0]))

    def headline(self) -> str:
        said = verdict(len(self.findings), len(self.warnings))
        if self.trainable_parameters is None:
            return _("model_fn check of {name} on a batch of {batch_size}: {verdict}").format(
                name=self.name, batch_size=self.batch_size, verdict=said
            )
        return _(
            "model_fn check of {name} on a batch of {batch_size}, {parameters:,} trainable "
            "parameters: {verdict}"
        ).format(
            name=self.name,
            batch_size=self.batch_size,
            parameters=self.trainable_parameters,
            verdict=said,
        )

    def __repr__(self) -> str:
        problem, warning = _("problem  {finding}"), _("warning  {finding}")
        lines = [
            self.headline(),
            *("  " + problem.format(finding=f) for f in self.findings),
            *("  " + warning.format(finding=f) for f in self.warnings),
        ]
        if self.branches:  # Chinese characters take two columns of a fixed-width font
            with pd.option_context("display.unicode.east_asian_width", current() == "zh_TW"):
                lines += ["", self.shown_table().to_string()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        def code(text: str) -> str:  # `code` in backticks becomes <code>code</code>
            return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))

        parts = [f"<p><b>{code(self.headline())}</b></p>"]
        for title, findings in ((_("Problems:"), self.findings), (_("Warnings:"), self.warnings)):
            if findings:
                items = "".join(
                    f"<li><b>{code(f.label())}</b>{colon()}{code(f.sentence)}</li>"
                    for f in findings
                )
                parts.append(f"<p>{title}</p><ul>{items}</ul>")
        return "\n".join(parts + ([self.shown_table().to_html()] if self.branches else []))


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
        finding = signature_problems()[kind].format(names=names, accepted=", ".join(ACCEPTED_ARGS))
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


def _keras_metric_sentence(key: str, metric: tf.keras.metrics.Metric) -> str:
    """The warning for a Keras Metric object given as ``eval_metric_ops[key]``, naming the state
    variables that the one update op EstimatorSpec keeps leaves unchanged."""
    kept = metric.updates[0] if metric.updates else None
    changed = {op.inputs[0].op for op in _ancestors([kept]) if op.type in _ASSIGNS and op.inputs}
    unchanged = [v.name.split(":")[0] for v in metric.variables if v.handle.op not in changed]
    if unchanged:
        return _(
            "eval_metric_ops[{key!r}] is a Keras Metric object: EstimatorSpec turns it into "
            "`(metric.result(), metric.updates[0])`, and in a graph that one update op is the last "
            "op the metric's `update_state` built; here it leaves {names} unchanged, so the value "
            'is wrong (`tf.keras.metrics.F1Score(average="macro")`\'s op only adds to '
            "`intermediate_weights`, and its F1 stays 0.0): build a (value, update_op) pair with "
            "`tf.compat.v1.metrics` instead"
        ).format(key=key, names=", ".join(f"`{name}`" for name in unchanged))
    return _(
        "eval_metric_ops[{key!r}] is a Keras Metric object: EstimatorSpec turns it into "
        "`(metric.result(), metric.updates[0])`, and in a graph that one update op is the last op "
        "the metric's `update_state` built; here it updates every state variable, but for another "
        'metric it may not (`tf.keras.metrics.F1Score(average="macro")`\'s op only adds to '
        "`intermediate_weights`, and its F1 stays 0.0): build a (value, update_op) pair with "
        "`tf.compat.v1.metrics` instead"
    ).format(key=key)


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


_PASS_THROUGH = ("Identity", "Reshape", "Cast", "Squeeze", "ExpandDims")  # keep the values
_CROSS_ENTROPIES = ("SparseSoftmaxCrossEntropyWithLogits", "SoftmaxCrossEntropyWithLogits")
_ASSIGNS = (
    "AssignSubVariableOp",
    "AssignAddVariableOp",
    "AssignVariableOp",
    "AssignSub",
    "AssignAdd",
    "Assign",
)
FIX_UPDATE_OPS = (
    "with tf.control_dependencies(tf.compat.v1.get_collection("
    "tf.compat.v1.GraphKeys.UPDATE_OPS)): train_op = optimizer.minimize(...)"
)
FIX_KERAS_UPDATES = "with tf.control_dependencies(bn.updates): train_op = optimizer.minimize(...)"


def check_softmax_logits(loss: tf.Tensor, found: ModelFnReport) -> None:
    """Warn when a softmax cross-entropy in the loss is given a softmax's output as its logits."""
    for op in _ancestors([loss]):
        source = op.inputs[0].op if op.type in _CROSS_ENTROPIES else None
        while source is not None and source.type in _PASS_THROUGH and source.inputs:
            source = source.inputs[0].op
        if source is None or source.type != "Softmax":
            continue
        classes = source.outputs[0].shape[-1]  # the lowest loss: all probability on the right class
        if classes:
            sentence = _(
                "the loss's logits are the output of a softmax ({at}), and the cross-entropy loss "
                "applies softmax again, so it gets probabilities (0 to 1) where it expects logits: "
                "the loss stays high however right the classes are (with {classes} classes, above "
                "{floor:.2f}) and its gradients are weak, so the model learns more slowly and ends "
                "less accurate: give the loss the last layer's output before the softmax (no "
                "`activation=tf.nn.softmax`), and apply `tf.nn.softmax(logits)` only for the "
                "predicted probabilities"
            )
        else:
            sentence = _(
                "the loss's logits are the output of a softmax ({at}), and the cross-entropy loss "
                "applies softmax again, so it gets probabilities (0 to 1) where it expects logits: "
                "the loss stays high however right the classes are (above 0 for any number of "
                "classes) and its gradients are weak, so the model learns more slowly and ends "
                "less accurate: give the loss the last layer's output before the softmax (no "
                "`activation=tf.nn.softmax`), and apply `tf.nn.softmax(logits)` only for the "
                "predicted probabilities"
            )
        floor = np.log(np.e + classes - 1) - 1 if classes else None
        return found.warn(
            "TRAIN", sentence.format(at=_at(op_line(source)), classes=classes, floor=floor)
        )


def skipped_updates(train_op) -> dict:
    """``{moving-average variable: its update ops}`` for the update ops ``train_op`` does not
    run (batch normalization's moving_mean and moving_variance)."""
    run = _ancestors([train_op])
    variables = {
        variable.op: variable
        for variable in tf.compat.v1.global_variables()
        if variable.op.name.rsplit("/", 1)[-1].startswith("moving_")
    }
    skipped = {}
    for op in train_op.graph.get_operations() if variables else []:
        target = op.inputs[0].op if op.type in _ASSIGNS and op.inputs else None
        while target is not None and target.type == "Identity":
            target = target.inputs[0].op
        if target in variables and op is not variables[target].initializer and op not in run:
            skipped.setdefault(variables[target], []).append(op)
    return skipped


def check_moving_averages(
    session: tf.compat.v1.Session, skipped: dict, initial: list, found: ModelFnReport
) -> None:
    """Warn when moving averages whose update ops the train_op skips did not move in one step."""
    unchanged = [
        variable
        for variable, value in zip(skipped, initial)
        if np.array_equal(session.run(variable), value)
    ]
    if not unchanged:
        return
    names = _listed([f"`{variable.op.name}`" for variable in unchanged], limit=4)
    collected = set(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS))
    if all(op in collected for variable in unchanged for op in skipped[variable]):
        sentence = _(
            "the train_op does not run the update ops of {names}, so these moving averages stay "
            "at their initial values (unchanged after a training step) while EVAL and PREDICT "
            "normalize with them: `tf.compat.v1.layers.batch_normalization` puts its update ops "
            "in the UPDATE_OPS collection, and in Estimator's graph they run only when the "
            "train_op asks for them (whatever its deprecation warning says): `{fix}`"
        )
        fix = FIX_UPDATE_OPS
    else:
        sentence = _(
            "the train_op does not run the update ops of {names}, so these moving averages stay "
            "at their initial values (unchanged after a training step) while EVAL and PREDICT "
            "normalize with them: a Keras BatchNormalization layer called in a model_fn keeps its "
            "update ops in the layer's `.updates` (not in the UPDATE_OPS collection), so keep the "
            "layer in a variable and build the train_op under them: `{fix}` (a Keras model: "
            "`model.updates`)"
        )
        fix = FIX_KERAS_UPDATES
    found.warn("TRAIN", sentence.format(names=names, fix=fix))


def check_predictions(
    session: tf.compat.v1.Session, spec, branch: Branch, found: ModelFnReport
) -> None:
    """Every prediction needs the batch as its first dimension, and must not change with the rest
    of the batch."""
    predictions = (
        spec.predictions if isinstance(spec.predictions, dict) else {"(tensor)": spec.predictions}
    )
    where = {
        key: "predictions" if key == "(tensor)" else f"predictions[{key!r}]" for key in predictions
    }
    batch_size = found.batch_size
    branch.prediction_values = whole = session.run(predictions)
    branch.predictions = {key: np.shape(value) for key, value in whole.items()}
    branch.export_outputs = tuple(sorted(spec.export_outputs or {}))
    for key, shape in branch.predictions.items():
        if len(shape) == 0 or shape[0] != batch_size:
            template = (
                _(
                    "{name} has shape {shape} for a batch of {batch_size}: every prediction needs "
                    "the batch as its first dimension; `tf.argmax(logits)` without `axis` reduces "
                    "over axis 0, the batch: write `tf.argmax(logits, axis=1)`"
                )
                if _is_argmax_over_batch(predictions[key])
                else _(
                    "{name} has shape {shape} for a batch of {batch_size}: every prediction needs "
                    "the batch as its first dimension"
                )
            )
            found.problem(
                "PREDICT",
                template.format(name=where[key], shape=tuple(shape), batch_size=batch_size),
            )
    named = {where[key]: tensor for key, tensor in predictions.items()}
    if found.findings or check_repeatable(session, named, "PREDICT", found) or batch_size < 3:
        return
    check_batch_independence(session, predictions, whole, where, found)


def check_batch_independence(
    session: tf.compat.v1.Session, predictions: dict, whole: dict, where: dict, found: ModelFnReport
) -> None:
    """Warn when the predictions of the batch's first two examples (``whole``: those of the whole
    batch) change, or fail, when the batch is those two examples only."""
    try:
        image = session.graph.get_tensor_by_name("image:0")
        part = session.run(predictions, {image: session.run(image)[:2]})
    except tf.errors.OpError as error:
        return found.warn(
            "PREDICT",
            _(
                "PREDICT works on a batch of {batch_size} but not on 2 examples, where it raised "
                "{error} ({at}), so the model assumes a batch size and the last, smaller batch of "
                "an input would fail: write -1 (or `tf.shape(...)[0]`) for the batch dimension"
            ).format(
                batch_size=found.batch_size, error=error_text(error), at=_at(learner_line(error))
            ),
        )
    key, change = _largest_change({key: value[:2] for key, value in whole.items()}, part)
    if key is not None:
        found.warn(
            "PREDICT",
            _(
                "{name} for the first two examples changes by up to {change:.3g} when the other "
                "examples of the batch are left out, so a layer uses batch statistics at "
                "prediction time (batch normalization called with `training=True`?): pass `{fix}`"
            ).format(name=where[key], change=change, fix=FIX_TRAINING_FLAG),
        )


def check_repeatable(
    session: tf.compat.v1.Session, tensors: dict, mode_name: str, found: ModelFnReport
) -> bool:
    """Run ``tensors`` twice on one batch: a difference (warned, True) means randomness is on."""
    key, change = _largest_change(session.run(tensors), session.run(tensors))
    if key is not None:
        found.warn(
            mode_name,
            _(
                "{name} differs between two runs of {mode} on the same batch (by up to "
                "{change:.3g}), so something random is still on in {mode}, dropout or another "
                "layer called with `training=True`: pass `{fix}`"
            ).format(name=key, mode=mode_name, change=change, fix=FIX_TRAINING_FLAG),
        )
    return key is not None


def check_bool_casts(session: tf.compat.v1.Session, spec, found: ModelFnReport) -> None:
    """Warn when a metric casts class ids other than 0 and 1 to bool (precision and recall do)."""
    for key, (_value, update) in (spec.eval_metric_ops or {}).items():
        casts = [
            op
            for op in _ancestors([update])
            if op.type == "Cast"
            and op.get_attr("DstT") == tf.bool
            and op.inputs[0].dtype != tf.bool
        ]
        if not casts:
            continue
        values = np.unique(
            np.concatenate([np.ravel(v) for v in session.run([op.inputs[0] for op in casts])])
        )
        if values.size and set(values.tolist()) - {0, 1}:
            function = next(
                (m.group(1) for op in casts if (m := re.match(r"(precision|recall)", op.name))),
                None,
            )
            if function:
                sentence = _(
                    "eval_metric_ops[{key!r}] casts class ids to bool (values {low} to {high} on "
                    "the checker's batch), as `tf.compat.v1.metrics.{function}` does, so on ten "
                    'classes it measures "digit is not 0", not a multi-class score: build it per '
                    "class, e.g. with "
                    "`helpers.metrics.precision_recall_f1(labels, classes, num_classes=10)` "
                    "(notebook 06)"
                )
            else:
                sentence = _(
                    "eval_metric_ops[{key!r}] casts class ids to bool (values {low} to {high} on "
                    "the checker's batch), as the metric does, so on ten classes it measures "
                    '"digit is not 0", not a multi-class score: build it per class, e.g. with '
                    "`helpers.metrics.precision_recall_f1(labels, classes, num_classes=10)` "
                    "(notebook 06)"
                )
            found.warn(
                "EVAL",
                sentence.format(
                    key=key, low=int(values.min()), high=int(values.max()), function=function
                ),
            )


def other_variables(twice: bool) -> str:
    """The finding for a branch with other trainable variables than TRAIN's (``twice``: the
    branch builds the network twice)."""
    if twice:
        return _(
            "the {mode} branch builds other trainable variables than {reference} ({differences}) "
            "because it builds the network twice (its {count} variables are the same {half} "
            "shapes two times), but Estimator restores the weights trained in TRAIN into it by "
            "name: build the same network in every mode (compute the logits once, before "
            "branching on `mode`)"
        )
    return _(
        "the {mode} branch builds other trainable variables than {reference} ({differences}), but "
        "Estimator restores the weights trained in TRAIN into it by name: build the same network "
        "in every mode (compute the logits once, before branching on `mode`)"
    )


def untrained_predicting(twice: bool) -> str:
    """The finding for predictions from variables training never changes (``twice``: TRAIN
    builds the network twice)."""
    if twice:
        return _(
            "the predictions use {names}, which training never changes because the TRAIN loss "
            "does not depend on them: the TRAIN branch builds the network twice (its {count} "
            "variables are the same {half} shapes two times), so compute the logits once and use "
            "them for the predictions and the loss"
        )
    return _(
        "the predictions use {names}, which training never changes because the TRAIN loss does "
        "not depend on them: compute the logits once and use them for the predictions and the loss"
    )


def untrained(twice: bool) -> str:
    """The warning for variables the TRAIN loss does not depend on (``twice``: TRAIN builds the
    network twice)."""
    if twice:
        return _(
            "the TRAIN loss does not depend on {untrained} of the {count} trainable variables "
            "({names}), so training never changes them: the TRAIN branch builds the network twice "
            "(its {count} variables are the same {half} shapes two times), so build it once and "
            "use its logits"
        )
    return _(
        "the TRAIN loss does not depend on {untrained} of the {count} trainable variables "
        "({names}), so training never changes them: build the network once and use its logits"
    )


def check_variables(report: ModelFnReport) -> None:
    """Compare the trainable variables of the modes, and what TRAIN trains."""
    built = {mode: branch for mode, branch in report.branches.items() if branch.built}
    reference = built.get("TRAIN") or built.get("EVAL")
    if reference is None:
        return
    untrained_used = check_untrained(report, built.get("TRAIN"), built.get("PREDICT"))
    for branch in (built.get("PREDICT") if not untrained_used else None, built.get("EVAL")):
        if branch is None or branch is reference or branch.variables == reference.variables:
            continue
        sentence = other_variables(_twice(branch)).format(
            mode=branch.mode,
            reference=reference.mode,
            differences=_differences(branch, reference),
            count=len(branch.variables),
            half=len(branch.variables) // 2,
        )
        report.problem(branch.mode, sentence)


def check_untrained(report: ModelFnReport, train: Branch | None, predict: Branch | None) -> bool:
    """Report the trainable variables that TRAIN never changes; True when PREDICT uses some."""
    untrained_used = set(train.untrained) & predict.used_variables if train and predict else set()
    if untrained_used:  # restored by name, these are the weights training never changed
        names = [name for name in train.variables if name in untrained_used]
        sentence = untrained_predicting(_twice(train)).format(
            names=_with_shapes(names, train.variables),
            count=len(train.variables),
            half=len(train.variables) // 2,
        )
        report.problem("PREDICT", sentence)
    elif train is not None and train.untrained:
        sentence = untrained(_twice(train)).format(
            untrained=len(train.untrained),
            names=_with_shapes(train.untrained, train.variables),
            count=len(train.variables),
            half=len(train.variables) // 2,
        )
        report.warn("TRAIN", sentence)
    return bool(untrained_used)


def _differences(branch: Branch, reference: Branch) -> str:
    """``only in EVAL: …; other shapes: …``: how the variables of two branches differ."""
    here, there, parts = branch.variables, reference.variables, []
    for one, other in ((branch, reference), (reference, branch)):
        if only := [n for n in one.variables if n not in other.variables]:
            parts.append(
                _("only in {mode}: {names}").format(
                    mode=one.mode, names=_with_shapes(only, one.variables)
                )
            )
    if reshaped := [n for n in here if n in there and here[n] != there[n]]:
        shape = _("{name} {here} in {mode}, {there} in {reference}")
        shapes = [
            shape.format(
                name=n, here=here[n], mode=branch.mode, there=there[n], reference=reference.mode
            )
            for n in reshaped
        ]
        parts.append(_("other shapes: {shapes}").format(shapes=_listed(shapes)))
    return ("；" if current() == "zh_TW" else "; ").join(parts)


def _with_shapes(names, shapes: dict) -> str:
    """``dense/kernel (784, 10), dense/bias (10,) and 2 more``: names with their shapes."""
    return _listed([f"{name} {shapes[name]}" for name in names])


def _listed(items: list, limit: int = 3) -> str:
    """``a, b and c``; beyond ``limit`` items, ``a, b, c and 2 more``."""
    items = list(items)
    if len(items) > limit:
        return _("{first} and {more} more").format(
            first=", ".join(items[:limit]), more=len(items) - limit
        )
    return all_of(items)


def _twice(branch: Branch) -> bool:
    """True when the branch's variable shapes are one list repeated (the network built twice)."""
    shapes, half = list(branch.variables.values()), len(branch.variables) // 2
    return bool(half) and len(shapes) % 2 == 0 and shapes[:half] == shapes[half:]


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


def build_errors() -> dict:
    """Why building a branch failed -> the finding (templates in the learner's language)."""
    return {
        "labels": _(
            "building the {mode} branch raised {error} ({at}); in PREDICT, Estimator passes "
            "labels=None, and with labels the branch builds: return the EstimatorSpec before "
            "anything uses the labels"
        ),
        "tf1": _(
            "building the {mode} branch raised {error} ({at}); that is a TensorFlow 1 name, which "
            "TensorFlow 2 keeps as `{name}`: write that"
        ),
        "inputs": _(
            "building the {mode} branch raised {error} ({at}); the course's input functions "
            "deliver {delivered}: make that line accept them"
        ),
        "other": _("building the {mode} branch raised {error} ({at}): fix that line"),
    }


def one_hot_into_sparse() -> str:
    """The finding for one-hot labels given to a sparse softmax cross-entropy."""
    return _(
        "the labels that reach the sparse softmax cross-entropy ({at}) are one-hot, shape [batch, "
        "{classes}], as the article's `tf.argmax(labels)` implies, but that loss takes class ids, "
        "shape [batch] (TensorFlow raised {error}): turn them into class ids with "
        "`tf.argmax(labels, axis=1)`, or keep them one-hot and use "
        "`tf.compat.v1.losses.softmax_cross_entropy(onehot_labels=labels, logits=logits)`"
    )


def explain_build_error(
    mode_name: str, error: Exception, params: dict | None, needs_labels: bool
) -> str:
    """The sentence for an exception raised while the model_fn built a branch."""
    said = (str(error).strip().splitlines() or [""])[0].strip()
    for pattern, sentence in SPEC_ERRORS:
        if match := re.search(pattern, said):
            return sentence(mode_name, match)
    line = learner_line(error)
    if sentence := _missing_name_or_key(mode_name, error, line, params):
        return sentence
    values = {"mode": mode_name, "error": error_text(error), "at": _at(line)}
    if classes := _one_hot_classes(str(error)):
        return one_hot_into_sparse().format(classes=classes, **values)
    if needs_labels:
        return build_errors()["labels"].format(**values)
    if v1_name := _tf1_name(said) if isinstance(error, AttributeError) else None:
        return build_errors()["tf1"].format(name=v1_name, **values)
    code = line.source if line else ""
    if given := [
        text
        for word, text in (("features", FEATURES_IN), ("labels", labels_in()))
        if isinstance(error, (ValueError, TypeError)) and re.search(rf"\b{word}\b", code)
    ]:
        return build_errors()["inputs"].format(delivered=all_of(given), **values)
    return build_errors()["other"].format(**values)


def _one_hot_classes(message: str) -> int | None:
    """The number of classes when TensorFlow's ``message`` says that a sparse softmax
    cross-entropy got one-hot labels, [batch, classes] (at build: a rank error; Keras's
    ``sparse_categorical_crossentropy`` at run time: batch × classes labels), else None."""
    if rank := re.search(
        r"labels\.shape=\((?:None|\d+), (\d+)\) of rank 2 and "
        r"logits\.shape=\((?:None|\d+), (\d+)\) of rank 2",
        message,
    ):
        return int(rank[1]) if rank[1] == rank[2] else None
    if flat := re.search(r"got logits shape \[(\d+),(\d+)\] and labels shape \[(\d+)\]", message):
        batch, classes, labels = (int(number) for number in flat.groups())
        return classes if labels == batch * classes else None
    return None


def missing() -> dict:
    """A name or key the model_fn reads that is not there -> the finding (templates in the
    learner's language)."""
    return {
        "typo": _(
            "the name `{name}` ({at}) is not defined, a typo for `{close}`?: correct the spelling "
            "at that line"
        ),
        "name": _(
            "the name `{name}` ({at}) is not defined: define it before that line, or correct its "
            "spelling"
        ),
        "params": _(
            "the model_fn reads params[{key!r}] ({at}), but the params given have no such key "
            "(keys: {have}): pass it, as `Estimator(params=...)` would, e.g. "
            "`check_model_fn(model_fn, params={{{key!r}: ...}})`, or use "
            "`params.get({key!r}, default)`"
        ),
        "features": _(
            "the model_fn reads features[{key!r}] ({at}), but the course's input functions "
            "deliver {features}: use the key 'image'"
        ),
        "key": _(
            "building the {mode} branch raised KeyError: {key!r} ({at}): that key is missing there"
        ),
    }


def _missing_name_or_key(
    mode_name: str, error: Exception, line: Line | None, params: dict | None
) -> str | None:
    """The sentence for a NameError or a KeyError raised at the learner's ``line``, else None."""
    at, code = _at(line), line.source if line else ""
    if isinstance(error, NameError) and getattr(error, "name", None):
        known = set(dir(__builtins__) if not isinstance(__builtins__, dict) else __builtins__)
        known |= set(line.namespace if line else {})
        if close := similar_names(error.name, known, limit=1):
            return missing()["typo"].format(name=error.name, at=at, close=close[0])
        return missing()["name"].format(name=error.name, at=at)
    if not isinstance(error, KeyError) or not error.args:
        return None
    key = error.args[0]
    if re.search(r"\bparams\s*\[", code):
        # TRANSLATORS: the params' keys when there are none
        have = ", ".join(repr(k) for k in (params or {})) or _("none")
        return missing()["params"].format(key=key, at=at, have=have)
    if re.search(r"\bfeatures\s*\[", code):
        return missing()["features"].format(key=key, at=at, features=FEATURES_IN)
    return missing()["key"].format(mode=mode_name, key=key, at=at)


def features_as_tensor(
    model_fn: Callable, error: Exception, features: dict, mode: str, params: dict | None
) -> str | None:
    """The sentence when ``error`` came from using the features dict as a tensor, else None."""
    if not isinstance(error, (TypeError, AttributeError, ValueError)):
        return None
    message = (str(error).strip().splitlines() or [""])[0]
    line = learner_line(error)
    on_the_dict = getattr(error, "obj", None) is features  # 'dict' object has no attribute …
    about_a_dict = on_the_dict or re.search(r"\bdict\b|non-tensor type|\{'", message)
    name = _tensor_use(features, line) if about_a_dict else None
    if name is None and not on_the_dict and not _builds_with_a_tensor(model_fn, mode, params):
        return None
    name = name or "features"
    first_sentence = re.sub(r"^(.{20,}?\.)\s.*$", r"\1", message)
    if name == "features":
        sentence = _(
            "`{name}` is used as a tensor ({at}), but Estimator passes the input function's "
            "features as a dict, {features}: take the tensor out of it, {take} (TensorFlow raised "
            "`{error}`)"
        )
    else:
        sentence = _(
            "`{name}` (the model_fn's `features`) is used as a tensor ({at}), but Estimator passes "
            "the input function's features as a dict, {features}: take the tensor out of it, "
            "{take} (TensorFlow raised `{error}`)"
        )
    return sentence.format(
        name=name,
        at=_at(line),
        features=_describe(features),
        take=any_of(f'`{name}["{key}"]`' for key in features),
        error=f"{type(error).__name__}: {first_sentence}",
    )


def _tensor_use(features: dict, line: Line | None) -> str | None:
    """The name that ``line`` uses as a tensor while it holds the ``features`` dict."""
    try:
        nodes = list(ast.walk(ast.parse(line.source))) if line else []
    except SyntaxError:  # a line of a statement that spans several lines
        return None
    namespace = line.namespace if line else {}
    key = (ast.Constant, ast.Name)
    as_dict = {
        id(node.value)
        for node in nodes  # features["image"], features[key], features.get
        if isinstance(node, ast.Subscript)
        and isinstance(node.slice, key)
        or isinstance(node, ast.Attribute)
        and hasattr(dict, node.attr)
    }
    return next(
        (
            node.id
            for node in nodes
            if isinstance(node, ast.Name)
            and id(node) not in as_dict
            and namespace.get(node.id) is features
        ),
        None,
    )


def _builds_with_a_tensor(model_fn: Callable, mode: str, params: dict | None) -> bool:
    """True when the model_fn builds once its features are the image tensor instead of the dict."""
    with estimator_graph():
        features, labels = tiny_batch(with_labels=(mode != ModeKeys.PREDICT))
        try:
            call_like_estimator(model_fn, features["image"], labels, mode, params)
        except Exception:  # still failing: the dict was not the cause
            return False
    return True


def _describe(features: dict) -> str:
    """``{"image": float32 [batch, 28, 28]}``: the keys, dtypes and shapes of a features dict."""

    def shape(tensor) -> str:
        return ", ".join("batch" if d is None else str(d) for d in tensor.shape.as_list())

    return (
        "{"
        + ", ".join(
            f'"{key}": {value.dtype.name} [{shape(value)}]' for key, value in features.items()
        )
        + "}"
    )


def run_errors() -> dict:
    """Why running a branch failed -> the finding (templates in the learner's language)."""
    return {
        "argmax": _(
            "running the {mode} branch on a batch of {batch_size} raised {error} ({at}); it uses "
            "`tf.argmax(logits)` without `axis`, which reduces over axis 0, the batch: write "
            "`tf.argmax(logits, axis=1)`"
        ),
        "inputs": _(
            "running the {mode} branch on a batch of {batch_size} raised {error} ({at}); it ran "
            "on {given}: make that line work on them"
        ),
        "other": _(
            "running the {mode} branch on a batch of {batch_size} raised {error} ({at}): fix that "
            "line"
        ),
        "unplaced": _(
            "running the {mode} branch on a batch of {batch_size} raised {error}, and TensorFlow "
            "did not record which line built the op that failed: look for the line of the "
            "model_fn that builds it"
        ),
    }


def explain_run_error(mode_name: str, error: tf.errors.OpError, batch_size: int) -> str:
    """The sentence for an error TensorFlow raised running a branch: cause, where, and a hint."""
    line = learner_line(error)
    values = {
        "mode": mode_name,
        "batch_size": batch_size,
        "error": error_text(error),
        "at": _at(line),
    }
    if classes := _one_hot_classes(error.message):
        return one_hot_into_sparse().format(classes=classes, **values)
    ancestors = _ancestors([getattr(error, "op", None)])
    if any(_is_argmax_over_batch(a.outputs[0]) for a in ancestors if a.type == "ArgMax"):
        return run_errors()["argmax"].format(**values)
    names = {a.name for a in ancestors if a.type == "PlaceholderWithDefault"}
    if given := [
        text for name, text in (("image", FEATURES_IN), ("labels", labels_in())) if name in names
    ]:
        return run_errors()["inputs"].format(given=all_of(given), **values)
    return run_errors()["other" if line else "unplaced"].format(**values)


SPEC_ERRORS = (  # EstimatorSpec's own ValueError -> the sentence (made when it is needed)
    (
        r"^Missing train_op\.",
        lambda mode, m: _(
            "the EstimatorSpec has no `train_op` (EstimatorSpec raises `ValueError: Missing "
            "train_op.`): in TRAIN, return `train_op={fix}`"
        ).format(fix=FIX_GLOBAL_STEP),
    ),
    (
        r"^Missing loss\.",
        lambda mode, m: _(
            "the EstimatorSpec has no `loss` in {mode} (EstimatorSpec raises `ValueError: Missing "
            "loss.`): EVAL and TRAIN need one, e.g. "
            "`tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)`"
        ).format(mode=mode),
    ),
    (
        r"^Missing predictions\.",
        lambda mode, m: _(
            "the EstimatorSpec has no `predictions` (EstimatorSpec raises `ValueError: Missing "
            "predictions.`): in PREDICT, return "
            '`predictions={{"classes": ..., "probabilities": ...}}`'
        ).format(),
    ),
    (
        r"^Loss must be scalar",
        lambda mode, m: _(
            "the loss is not a scalar (EstimatorSpec raises `ValueError: Loss must be scalar`): "
            "reduce it with `tf.reduce_mean`, or use a `tf.compat.v1.losses` function"
        ),
    ),
    (
        r"^Values of eval_metric_ops must be \(metric_value, update_op\) tuples, given: .* for "
        r"key: (.+)$",
        lambda mode, m: _(
            "eval_metric_ops[{key!r}] is not a (value, update_op) pair: give the pair that a "
            "`tf.compat.v1.metrics` function returns, e.g. "
            "`tf.compat.v1.metrics.accuracy(labels, classes)`, not the value alone"
        ).format(key=m.group(1)),
    ),
    (
        r"^eval_metric_ops must be a dict",
        lambda mode, m: _(
            "eval_metric_ops is not a dict: give `{{name: (value, update_op)}}`"
        ).format(),
    ),
    (
        r"^(loss|train_op|predictions.*) must be (Operation or )?Tensor, given",
        lambda mode, m: _(
            "`{name}` is not a TensorFlow tensor: return the tensor or op the model built, not a "
            "Python or NumPy value"
        ).format(name=m.group(1)),
    ),
)


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


def _largest_change(first: dict, second: dict) -> tuple[str | None, float]:
    """``(key, largest absolute difference)`` of two runs' values; ``(None, 0.0)`` if they agree."""
    worst, change = None, 0.0
    for key, a in first.items():
        a, b = np.asarray(a), np.asarray(second[key])
        if a.shape != b.shape or (
            not np.issubdtype(a.dtype, np.number) and not np.array_equal(a, b)
        ):
            return key, float("inf")
        if not np.issubdtype(a.dtype, np.number) or np.allclose(
            a, b, rtol=1e-5, atol=1e-6, equal_nan=True
        ):
            continue
        difference = float(np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64))))
        if difference > change:
            worst, change = key, difference
    return worst, change


def _ancestors(items) -> set:
    """Every op the given tensors or ops depend on (data and control inputs), and themselves."""
    stack, seen = (
        [item if isinstance(item, tf.Operation) else item.op for item in items if item is not None],
        set(),
    )
    while stack:
        op = stack.pop()
        if op not in seen:
            seen.add(op)
            stack.extend([tensor.op for tensor in op.inputs] + list(op.control_inputs))
    return seen


def _is_argmax_over_batch(tensor: tf.Tensor) -> bool:
    """True when ``tensor`` is (a cast or identity of) an ArgMax over axis 0."""
    op = tensor.op
    while op.type in ("Identity", "Cast") and op.inputs:
        op = op.inputs[0].op
    axis = tf.get_static_value(op.inputs[1]) if op.type == "ArgMax" else None
    return axis is not None and int(axis) == 0


def _at(line: Line | None) -> str:
    """Where a finding happened: the learner's line, or that it is unknown."""
    return where(line) if line else _("line unknown")


def _tf1_name(message: str) -> str | None:
    """``tf.compat.v1.layers`` for "module 'tensorflow' has no attribute 'layers'", if TF 2 has
    that name."""
    match = re.search(r"module '(tensorflow[\w.]*)' has no attribute '(\w+)'", message)
    if not match:
        return None
    path = re.sub(r"^tensorflow(\._api\.v2)?(\.compat\.v[12])?\.?", "", match.group(1))
    parts = [part for part in path.split(".") if part] + [match.group(2)]
    target = functools.reduce(lambda module, part: getattr(module, part, None), parts, tf.compat.v1)
    return None if target is None else "tf.compat.v1." + ".".join(parts)
