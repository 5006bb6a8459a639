"""Run a ``model_fn`` through its three modes on a tiny batch and say what is wrong.

Introduced in notebook 03 (``model_fn`` and ``EstimatorSpec``); its exercise
checks use it too.

``check_model_fn(model_fn, params=None, batch_size=4)`` does what an Estimator
does before training, evaluating or predicting, without the input files or a
``model_dir``:

* it reads the parameter names the way ``tf.estimator.Estimator`` does (only
  ``features, labels, mode, params, config`` are accepted, ``features`` is
  required) and quotes the ``ValueError`` the Estimator would raise;
* for each mode (PREDICT, EVAL, TRAIN) it builds the model in a fresh
  ``tf.Graph`` with a global step, on a batch shaped like the course's input
  functions deliver it (``{"image": float32 [batch, 28, 28]}``, labels int32
  ``[batch]``, ``labels=None`` in PREDICT; the batch dimension is unknown to
  the graph, as it is under an Estimator), and runs the result in a
  ``tf.compat.v1.Session``: the predictions (their real shapes), the loss, one
  update of every metric, and one training step (did the global step move
  from 0 to 1?);
* it runs PREDICT twice on the same batch, and on its first two examples
  alone, and the EVAL loss twice: a difference means something random
  (dropout) or batch-dependent (batch normalization) is still on outside TRAIN;
* it warns when a metric casts class ids to bool (``tf.compat.v1.metrics.precision``
  and ``recall`` do), and when the TRAIN loss does not depend on some weights;
* it compares the trainable variables (names and shapes) of the three modes:
  Estimator restores the weights trained in TRAIN into EVAL and PREDICT by name;
* it reads the ``model_fn``'s source for ``mode`` compared with a string that is
  not a mode key (``"TRAIN"``; the keys are ``"train"``, ``"eval"``, ``"infer"``).

An error is reported with its cause (for a run-time error, the line TensorFlow
puts after ``Graph execution error:``) and the line of the learner's code it
comes from; a hint is added only when it follows from that error.

The result is a ``ModelFnReport``: ``findings`` (problems, one plain sentence
each, naming what to change), ``warnings`` (accepted by Estimator but likely
wrong), ``ok``, ``table()`` (what each branch returned) and
``raise_if_problems()``. Each check below is one small function.
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import html
import inspect
import linecache
import logging
import random
import re
import sys
import textwrap
import traceback
from pathlib import Path
from dataclasses import dataclass, field
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import pandas as pd
import tensorflow as tf
from tensorflow.python.util import function_utils
from tensorflow_estimator.python.estimator import model_fn as model_fn_lib

from .logs import logger_level
from .problems import WorkbookProblem
from .settings import PROJECT_ROOT, SEED

ModeKeys = tf.estimator.ModeKeys

MODES = (("PREDICT", ModeKeys.PREDICT), ("EVAL", ModeKeys.EVAL), ("TRAIN", ModeKeys.TRAIN))
SIGNATURE = "signature"
ACCEPTED_ARGS = ("features", "labels", "mode", "params", "config")
FIX_GLOBAL_STEP = "optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())"
FIX_TRAINING_FLAG = "training=(mode == tf.estimator.ModeKeys.TRAIN)"
FEATURES_IN = 'features {"image": float32 [batch, 28, 28]}'
LABELS_IN = "labels int32 [batch] (class ids, not one-hot)"


class Finding(NamedTuple):
    """One thing to change: the mode it was found in (or ``signature``) and a sentence."""

    mode: str
    sentence: str

    def __str__(self) -> str:
        return f"{self.mode}: {self.sentence}"


@dataclass
class Branch:
    """What one mode's branch returned, as the checker saw it when it ran it."""

    mode: str
    built: bool = False
    returned: str = "not built"
    predictions: dict = field(default_factory=dict)  # key -> evaluated shape
    prediction_values: dict = field(default_factory=dict)  # key -> numpy array
    export_outputs: tuple = ()
    loss_shape: tuple | None = None
    metrics: dict = field(default_factory=dict)  # name -> shape of the value after one update
    train_op: bool | None = None
    global_step: tuple | None = None  # (before, after) one run of train_op
    trainable_parameters: int | None = None
    variables: dict = field(default_factory=dict)  # trainable variable name -> shape
    used_variables: frozenset = frozenset()  # the variables the predictions (PREDICT) or loss depend on
    untrained: tuple = ()  # TRAIN: trainable variables the loss has no gradient for

    def row(self) -> dict:
        """This branch as one row of ``ModelFnReport.table()``."""
        if not self.built:
            return {"returned": self.returned}
        train_op = "-"
        if self.train_op is not None:
            before, after = self.global_step or (None, None)
            train_op = "no" if not self.train_op else (
                "yes, not run" if before is None else f"yes, global step {before} → {after}")
        return {
            "returned": self.returned,
            "predictions": _describe_shapes(self.predictions),
            "export_outputs": ", ".join(self.export_outputs) or "-",
            "loss": "-" if self.loss_shape is None else _describe_shape(self.loss_shape),
            "eval_metric_ops": _describe_shapes(self.metrics),
            "train_op": train_op,
        }


@dataclass
class ModelFnReport:
    """The result of ``check_model_fn``: findings, warnings and one ``Branch`` per mode."""

    name: str
    batch_size: int
    findings: list = field(default_factory=list)  # of Finding
    warnings: list = field(default_factory=list)  # of Finding
    branches: dict = field(default_factory=dict)  # "PREDICT" / "EVAL" / "TRAIN" -> Branch

    @property
    def ok(self) -> bool:
        """True when Estimator could train, evaluate and predict with this model_fn."""
        return not self.findings

    @property
    def trainable_parameters(self) -> int | None:
        """The number of trainable weights the model_fn creates (from the first branch built)."""
        for branch in self.branches.values():
            if branch.trainable_parameters is not None:
                return branch.trainable_parameters
        return None

    @property
    def variables(self) -> dict:
        """The trainable variables, ``{name: shape}`` (from the first branch built)."""
        for branch in self.branches.values():
            if branch.built:
                return dict(branch.variables)
        return {}

    def table(self) -> pd.DataFrame:
        """What each branch returned, one row per mode."""
        columns = ["returned", "predictions", "export_outputs", "loss", "eval_metric_ops", "train_op"]
        frame = pd.DataFrame([self.branches[mode].row() for mode, _ in MODES if mode in self.branches],
                             index=[mode for mode, _ in MODES if mode in self.branches], columns=columns)
        frame.index.name = "mode"
        return frame.fillna("-")

    def raise_if_problems(self) -> None:
        """Raise ``WorkbookProblem`` with the first finding, if there is one."""
        if self.findings:
            raise WorkbookProblem(str(self.findings[0]))

    def headline(self) -> str:
        if self.ok:
            verdict = "OK: Estimator can train, evaluate and predict with it"
        else:
            count = len(self.findings)
            verdict = f"{count} problem{'s' if count != 1 else ''} to fix"
        if self.warnings:
            count = len(self.warnings)
            verdict += f" ({count} warning{'s' if count != 1 else ''})"
        parameters = self.trainable_parameters
        size = f", {parameters:,} trainable parameters" if parameters is not None else ""
        return f"model_fn check of {self.name} on a batch of {self.batch_size}{size}: {verdict}"

    def __repr__(self) -> str:
        lines = [self.headline()]
        lines += [f"  problem  {finding}" for finding in self.findings]
        lines += [f"  warning  {finding}" for finding in self.warnings]
        if self.branches:
            lines += ["", self.table().to_string()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        parts = [f"<p><b>{_html(self.headline())}</b></p>"]
        for title, findings in (("Problems", self.findings), ("Warnings", self.warnings)):
            if findings:
                items = "".join(f"<li><b>{_html(f.mode)}</b>: {_html(f.sentence)}</li>" for f in findings)
                parts.append(f"<p>{title}:</p><ul>{items}</ul>")
        if self.branches:
            parts.append(self.table().to_html())
        return "\n".join(parts)


# --------------------------------------------------------------------------- checks


def check_model_fn(model_fn, params=None, batch_size: int = 4) -> ModelFnReport:
    """Run ``model_fn`` in PREDICT, EVAL and TRAIN on a tiny batch; report what to change."""
    report = ModelFnReport(name=_name_of(model_fn), batch_size=batch_size)
    findings, warnings, can_call = check_signature(model_fn, params)
    report.findings += findings
    report.warnings += warnings
    if not can_call:
        return report
    args = set(function_utils.fn_args(model_fn))
    wrong_modes = wrong_mode_comparisons(model_fn)
    for mode_name, mode in MODES:
        if mode != ModeKeys.PREDICT and "labels" not in args:
            report.branches[mode_name] = Branch(mode_name, returned="not built (no labels parameter)")
            continue
        branch, findings, warnings = check_branch(model_fn, mode_name, mode, params, batch_size)
        if mode_name in wrong_modes:  # what went wrong in this branch follows from the comparison
            findings = [Finding(mode_name, wrong_mode_sentence(mode_name, wrong_modes[mode_name]))]
        report.branches[mode_name] = branch
        report.findings += findings
        report.warnings += warnings
    findings, warnings = check_variables(report.branches)
    report.findings += findings
    report.warnings += warnings
    return report


def check_signature(model_fn, params=None):
    """The parameter names, judged by Estimator's own rule: (findings, warnings, can_call)."""
    args = list(function_utils.fn_args(model_fn))
    estimator_error = _estimator_signature_error(model_fn, params)
    quote = f" (Estimator raises `ValueError: {estimator_error}`)" if estimator_error else ""
    findings, warnings = [], []
    if "features" not in args:
        findings.append(Finding(SIGNATURE, (
            "the model_fn has no parameter named `features`: Estimator passes the features by that "
            "name, so call the first parameter `features`" + quote)))
        quote = ""
    unexpected = [name for name in args if name not in ACCEPTED_ARGS and name != "self"]
    if unexpected:
        names = ", ".join(f"`{name}`" for name in unexpected)
        findings.append(Finding(SIGNATURE, (
            f"Estimator does not pass {names}: it accepts only the parameter names "
            f"{', '.join(ACCEPTED_ARGS)}, so rename {'it' if len(unexpected) == 1 else 'them'}" + quote)))
        quote = ""
    if params is not None and "params" not in args:
        findings.append(Finding(SIGNATURE, (
            "params are given but the model_fn has no `params` parameter: add `params` to its "
            "signature to receive them" + quote)))
    if "labels" not in args:
        findings.append(Finding(SIGNATURE, (
            "the model_fn has no `labels` parameter: Estimator passes the input_fn's labels in "
            "training and evaluation (and raises `ValueError: model_fn does not take labels, but "
            "input_fn returns labels.`), so add `labels`")))
    if "mode" not in args:
        warnings.append(Finding(SIGNATURE, (
            "the model_fn has no `mode` parameter, so it cannot tell training, evaluation and "
            "prediction apart: add `mode` and branch on it")))
    can_call = estimator_error is None
    return findings, warnings, can_call


def check_branch(model_fn, mode_name: str, mode, params, batch_size: int):
    """Build one mode's branch in a fresh graph and run it: (Branch, findings, warnings)."""
    branch = Branch(mode_name)
    with estimator_graph() as graph:
        spec, findings, warnings = build_branch(model_fn, branch, mode, params, batch_size)
        if spec is None:
            return branch, findings, warnings
        with tf.compat.v1.Session(graph=graph) as session:
            session.run([tf.compat.v1.global_variables_initializer(),
                         tf.compat.v1.local_variables_initializer(),
                         tf.compat.v1.tables_initializer()])
            try:
                run_findings, run_warnings = run_branch(session, spec, branch, batch_size)
                findings += run_findings
                warnings += run_warnings
            except tf.errors.OpError as error:
                findings.append(Finding(mode_name, explain_run_error(mode_name, error, batch_size)))
    return branch, findings, warnings


def build_branch(model_fn, branch: Branch, mode, params, batch_size: int):
    """Call ``model_fn`` in the current graph: (the EstimatorSpec or None, findings, warnings)."""
    mode_name = branch.mode
    features, labels = tiny_batch(batch_size, with_labels=(mode != ModeKeys.PREDICT))
    try:
        with _recording_keras_metrics() as keras_metrics:
            spec = call_like_estimator(model_fn, features, labels, mode, params)
    except Exception as error:  # the learner's code can raise anything
        needs_labels = mode == ModeKeys.PREDICT and _builds_with_labels(model_fn, params, batch_size)
        branch.returned = f"raised {type(error).__name__}"
        return None, [Finding(mode_name, explain_build_error(mode_name, error, params, needs_labels))], []
    if not isinstance(spec, tf.estimator.EstimatorSpec):
        branch.returned = type(spec).__name__
        return None, [Finding(mode_name, not_a_spec(spec))], []
    if spec.mode != mode:
        branch.returned = f"EstimatorSpec for {spec.mode!r}"
        return None, [Finding(mode_name, (
            f"in {mode_name} the model_fn returned an EstimatorSpec for mode {spec.mode!r}: "
            "give EstimatorSpec the `mode` the model_fn received"))], []
    branch.built = True
    branch.returned = "EstimatorSpec"
    trainable = tf.compat.v1.trainable_variables()
    branch.variables = {variable.op.name: tuple(variable.shape.as_list()) for variable in trainable}
    branch.trainable_parameters = int(sum(np.prod(shape) for shape in branch.variables.values()))
    outputs = spec.predictions if mode == ModeKeys.PREDICT else spec.loss
    branch.used_variables = frozenset(_variables_used_by(tf.nest.flatten(outputs)))
    if mode == ModeKeys.TRAIN:
        branch.untrained = _untrained_variables(spec.loss, trainable)
    return spec, [], [Finding(mode_name, keras_metric_warning(key)) for key in keras_metrics]


def run_branch(session, spec, branch: Branch, batch_size: int):
    """Run what Estimator would run in this mode: (findings, warnings)."""
    findings, warnings = [], []
    if branch.mode == "PREDICT":
        findings += check_predictions(session, spec, branch, batch_size)
        if not findings:
            warnings += check_predictions_repeat(session, spec, batch_size)
        return findings, warnings
    findings += check_loss(session, spec, branch, branch.mode)
    if branch.mode == "EVAL" and not findings:
        warnings += check_repeatable(session, {"the loss": spec.loss}, "EVAL")
        warnings += check_bool_casts(session, spec)
        findings += check_metrics(session, spec, branch)
    if branch.mode == "TRAIN":
        findings += check_train_op(session, spec, branch)
    return findings, warnings


def check_predictions(session, spec, branch: Branch, batch_size: int) -> list:
    """Every prediction must have the batch as its first dimension."""
    predictions = spec.predictions if isinstance(spec.predictions, dict) else {"(tensor)": spec.predictions}
    values = session.run(predictions)
    branch.prediction_values = values
    branch.predictions = {key: np.shape(value) for key, value in values.items()}
    branch.export_outputs = tuple(sorted(spec.export_outputs or {}))
    findings = []
    for key, shape in branch.predictions.items():
        if len(shape) == 0 or shape[0] != batch_size:
            findings.append(Finding("PREDICT", batch_dimension_finding(key, shape, batch_size, predictions[key])))
    return findings


def check_loss(session, spec, branch: Branch, mode_name: str) -> list:
    """The loss must be one number for the whole batch."""
    loss = spec.loss
    # EstimatorSpec reshapes a loss of unknown size to []; look at what it was given.
    if loss.op.type == "Reshape" and loss.op.inputs[0].shape.num_elements() is None:
        loss = loss.op.inputs[0]
    value = session.run(loss)
    branch.loss_shape = np.shape(value)
    if np.size(value) != 1:
        return [Finding(mode_name, loss_not_scalar(np.shape(value)))]
    return []


def check_metrics(session, spec, branch: Branch) -> list:
    """Run every metric's update once, then read its value."""
    metric_ops = spec.eval_metric_ops or {}
    session.run([update for _, update in metric_ops.values()])
    values = session.run({key: value for key, (value, _) in metric_ops.items()})
    branch.metrics = {key: np.shape(value) for key, value in values.items()}
    return []


def check_train_op(session, spec, branch: Branch) -> list:
    """One run of ``train_op`` must move the global step from 0 to exactly 1."""
    branch.train_op = spec.train_op is not None
    global_step = tf.compat.v1.train.get_global_step()
    before = int(session.run(global_step))
    session.run(spec.train_op)
    after = int(session.run(global_step))
    branch.global_step = (before, after)
    if after == before:
        return [Finding("TRAIN", (
            f"the train_op does not increment the global step (still {after} after one run), so "
            "Estimator's step counting never advances (train(steps=…) would run until the input "
            "runs out): write "
            f"`{FIX_GLOBAL_STEP}`"))]
    if after != before + 1:
        return [Finding("TRAIN", (
            f"one run of the train_op moved the global step from {before} to {after}: pass "
            "`global_step=` to exactly one minimize call"))]
    return []


def check_predictions_repeat(session, spec, batch_size: int) -> list:
    """PREDICT twice on the same batch, then on its first two examples alone: the predictions must agree."""
    predictions = spec.predictions if isinstance(spec.predictions, dict) else {"(tensor)": spec.predictions}
    warnings = check_repeatable(session, predictions, "PREDICT")
    if warnings or batch_size < 3:
        return warnings
    image = session.graph.get_tensor_by_name("image:0")
    whole = session.run(predictions)
    try:
        part = session.run(predictions, {image: tiny_images(batch_size)[:2]})
    except tf.errors.OpError as error:
        return [Finding("PREDICT", (
            f"PREDICT works on a batch of {batch_size} but not on 2 examples, where it raised "
            f"{type(error).__name__}: {_run_error_cause(error.message)}{_place(_op_frame(error))}, so the "
            "model assumes a batch size and the last, smaller batch of an input would fail: write -1 (or "
            "`tf.shape(...)[0]`) for the batch dimension"))]
    key, change = _largest_change({key: value[:2] for key, value in whole.items()}, part)
    if key is None:
        return []
    return [Finding("PREDICT", (
        f"{_where(key)} for the first two examples changes by up to {change:.3g} when the other examples "
        "of the batch are left out, so a layer uses batch statistics at prediction time (batch "
        f"normalization called with `training=True`?): pass `{FIX_TRAINING_FLAG}`"))]


def check_repeatable(session, tensors: dict, mode_name: str) -> list:
    """Run ``tensors`` twice on the same batch: a difference means something random is on in this mode."""
    first, second = session.run(tensors), session.run(tensors)
    key, change = _largest_change(first, second)
    if key is None:
        return []
    what = _where(key) if mode_name == "PREDICT" else key
    return [Finding(mode_name, (
        f"{what} differs between two runs of {mode_name} on the same batch (by up to {change:.3g}), so "
        f"something random is still on in {mode_name}, dropout or another layer called with "
        f"`training=True`: pass `{FIX_TRAINING_FLAG}`"))]


def check_bool_casts(session, spec) -> list:
    """Warn when a metric casts class ids other than 0 and 1 to bool (precision and recall do)."""
    warnings = []
    for key, (_, update) in (spec.eval_metric_ops or {}).items():
        casts = [op for op in _ancestors([update]) if op.type == "Cast" and op.get_attr("DstT") == tf.bool
                 and op.inputs[0].dtype != tf.bool]
        if not casts:
            continue
        values = np.unique(np.concatenate([np.ravel(v) for v in session.run([op.inputs[0] for op in casts])]))
        if values.size and set(values.tolist()) - {0, 1}:
            function = next((m.group(1) for op in casts if (m := re.match(r"(precision|recall)", op.name))), None)
            warnings.append(Finding("EVAL", bool_cast_warning(key, function, values)))
    return warnings


def check_variables(branches: dict):
    """Compare the trainable variables of the modes, and what TRAIN trains: (findings, warnings)."""
    built = {mode: branch for mode, branch in branches.items() if branch.built}
    reference = built.get("TRAIN") or built.get("EVAL")
    if reference is None:
        return [], []
    findings, warnings = [], []
    train, predict = built.get("TRAIN"), built.get("PREDICT")
    untrained_used = set(train.untrained) & predict.used_variables if train and predict else set()
    if untrained_used:  # restored by name, these are the weights training never changed
        names = [name for name in train.variables if name in untrained_used]
        findings.append(Finding("PREDICT", untrained_in_predict(train, names)))
    elif train is not None and train.untrained:
        warnings.append(Finding("TRAIN", untrained_warning(train)))
    for mode_name in ("PREDICT", "EVAL"):
        branch = built.get(mode_name)
        if mode_name == "PREDICT" and untrained_used:
            continue
        if branch is not None and branch is not reference and branch.variables != reference.variables:
            findings.append(Finding(mode_name, different_variables(branch, reference)))
    return findings, warnings


def wrong_mode_comparisons(model_fn) -> dict:
    """``{mode name: string}`` for each comparison of ``mode`` with a string that is not a mode key."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(model_fn)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return {}
    keys = {ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT}
    wrong = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if not any(isinstance(side, ast.Name) and side.id == "mode" for side in sides):
            continue
        for side in sides:
            items = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
            for item in items:
                if isinstance(item, ast.Constant) and isinstance(item.value, str) and item.value not in keys:
                    meant = _mode_meant(item.value)
                    if meant:
                        wrong.setdefault(meant, item.value)
    return wrong


# --------------------------------------------------------------------------- sentences


def explain_build_error(mode_name: str, error: Exception, params=None, needs_labels: bool = False) -> str:
    """The sentence for an exception raised while the model_fn built a branch."""
    message = _first_line(_strip_paths(str(error)))
    for pattern, sentence in SPEC_ERRORS:
        match = re.search(pattern, message)
        if match:
            return sentence(mode_name, match)
    frame = _learner_frame(error.__traceback__)
    place = _place(frame)
    if isinstance(error, NameError) and getattr(error, "name", None):
        return name_error_sentence(error.name, place, frame)
    if isinstance(error, KeyError) and error.args:
        return key_error_sentence(mode_name, error.args[0], params, place, frame)
    raised = f"building the {mode_name} branch raised {type(error).__name__}: {message}{place}"
    if needs_labels:
        return (raised + "; in PREDICT, Estimator passes labels=None, and with labels the branch builds: "
                "return the EstimatorSpec before anything uses the labels")
    v1_name = _tf1_name(message) if isinstance(error, AttributeError) else None
    if v1_name:
        return raised + f"; that is a TensorFlow 1 name, which TensorFlow 2 keeps as `{v1_name}`: write that"
    hint = _inputs_hint(_source(frame)) if isinstance(error, (ValueError, TypeError)) else ""
    return raised + (f"; {hint}: make that line accept them" if hint else ": fix that line")


def explain_run_error(mode_name: str, error, batch_size: int) -> str:
    """The sentence for an error TensorFlow raised while running a branch: its cause, where, and a hint."""
    op = getattr(error, "op", None)
    frame = _op_frame(error)
    sentence = (f"running the {mode_name} branch on a batch of {batch_size} raised {type(error).__name__}: "
                f"{_run_error_cause(error.message)}{_place(frame)}")
    ancestors = _ancestors([op]) if op is not None else set()
    if any(_is_argmax_over_batch(a.outputs[0]) for a in ancestors if a.type == "ArgMax"):
        return sentence + ("; it uses `tf.argmax(logits)` without `axis`, which reduces over axis 0, the "
                           "batch: write `tf.argmax(logits, axis=1)`")
    names = {a.name for a in ancestors if a.type == "PlaceholderWithDefault"}
    given = [text for name, text in (("image", FEATURES_IN), ("labels", LABELS_IN)) if name in names]
    if given:
        return sentence + f"; it ran on {' and '.join(given)}: make that line work on them"
    return sentence + ": fix that line"


def name_error_sentence(name: str, place: str, frame) -> str:
    known = set(dir(__builtins__) if not isinstance(__builtins__, dict) else __builtins__)
    if frame is not None:
        known |= set(frame.namespace)
    close = difflib.get_close_matches(name, sorted(known - {name}), n=1)
    if close:
        return (f"the name `{name}`{place} is not defined, a typo for `{close[0]}`?: correct the spelling "
                "at that line")
    return f"the name `{name}`{place} is not defined: define it before that line, or correct its spelling"


def key_error_sentence(mode_name: str, key, params, place: str, frame) -> str:
    line = _source(frame)
    if re.search(r"\bparams\s*\[", line):
        have = ", ".join(repr(k) for k in (params or {})) or "none"
        return (f"the model_fn reads params[{key!r}]{place}, but the params given have no such key "
                f"(keys: {have}): pass it, as `Estimator(params=...)` would, e.g. "
                f"`check_model_fn(model_fn, params={{{key!r}: ...}})`, or use `params.get({key!r}, default)`")
    if re.search(r"\bfeatures\s*\[", line):
        return (f"the model_fn reads features[{key!r}]{place}, but the course's input functions deliver "
                f"{FEATURES_IN}: use the key 'image'")
    return f"building the {mode_name} branch raised KeyError: {key!r}{place}: that key is missing there"


def wrong_mode_sentence(mode_name: str, literal: str) -> str:
    key = getattr(ModeKeys, mode_name)
    return (f"the model_fn compares `mode` with {literal!r}, but in {mode_name} Estimator passes "
            f"tf.estimator.ModeKeys.{mode_name} == {key!r}, so that branch never runs: compare with "
            f"`tf.estimator.ModeKeys.{mode_name}`")


def different_variables(branch: Branch, reference: Branch) -> str:
    here, there = branch.variables, reference.variables
    parts = []
    only_here = [n for n in here if n not in there]
    only_there = [n for n in there if n not in here]
    reshaped = [n for n in here if n in there and here[n] != there[n]]
    if only_here:
        parts.append(f"only in {branch.mode}: {_list_variables(only_here, here)}")
    if only_there:
        parts.append(f"only in {reference.mode}: {_list_variables(only_there, there)}")
    if reshaped:
        parts.append("other shapes: " + ", ".join(
            f"{n} {here[n]} in {branch.mode}, {there[n]} in {reference.mode}" for n in reshaped[:3]))
    return (f"the {branch.mode} branch builds other trainable variables than {reference.mode} "
            f"({'; '.join(parts)}){_twice(branch)}, but Estimator restores the weights trained in TRAIN into it by name: "
            "build the same network in every mode (compute the logits once, before branching on `mode`)")


def untrained_in_predict(train: Branch, names: list) -> str:
    return (f"the predictions use {_list_variables(names, train.variables)}, which training never "
            f"changes because the TRAIN loss does not depend on them{_twice(train)}: compute the logits "
            "once and use them for the predictions and the loss")


def untrained_warning(train: Branch) -> str:
    return (f"the TRAIN loss does not depend on {len(train.untrained)} of the {len(train.variables)} "
            f"trainable variables ({_list_variables(train.untrained, train.variables)}), so training never "
            f"changes them{_twice(train)}: build the network once and use its logits")


def bool_cast_warning(key: str, function: str | None, values) -> str:
    what = f"`tf.compat.v1.metrics.{function}`" if function else "it"
    return (f"eval_metric_ops[{key!r}] casts class ids to bool (values {int(values.min())} to "
            f"{int(values.max())} on the checker's batch), as {what} does, so on ten classes it measures \"digit is not 0\", not "
            "a multi-class score: build it per class, e.g. with "
            "`helpers.metrics.precision_recall_f1(labels, classes, num_classes=10)` (notebook 06)")


def not_a_spec(returned) -> str:
    what = "None (a branch without `return`?)" if returned is None else f"a {type(returned).__name__}"
    return (f"the model_fn returned {what}, not a tf.estimator.EstimatorSpec: return "
            "`tf.estimator.EstimatorSpec(mode, ...)` in every branch (Estimator raises "
            "`ValueError: model_fn should return an EstimatorSpec.`)")


def batch_dimension_finding(key: str, shape: tuple, batch_size: int, tensor) -> str:
    where = "predictions" if key == "(tensor)" else f"predictions[{key!r}]"
    sentence = (f"{where} has shape {tuple(shape)} for a batch of {batch_size}: every prediction "
                "needs the batch as its first dimension")
    if _is_argmax_over_batch(tensor):
        sentence += ("; `tf.argmax(logits)` without `axis` reduces over axis 0, the batch: "
                     "write `tf.argmax(logits, axis=1)`")
    return sentence


def loss_not_scalar(shape: tuple) -> str:
    return (f"the loss has shape {tuple(shape)}, but Estimator needs one number for the batch: "
            "reduce it with `tf.reduce_mean`, or use a `tf.compat.v1.losses` function, which "
            "returns the mean")


def keras_metric_warning(key: str) -> str:
    return (f"eval_metric_ops[{key!r}] is a Keras Metric object: Estimator accepts it but runs "
            "only its first update op (`metric.updates[0]`), so the value can be silently wrong "
            "(`tf.keras.metrics.F1Score(average=\"macro\")` stays 0.0); build a (value, update_op) "
            "pair with `tf.compat.v1.metrics` instead")


SPEC_ERRORS = (
    (r"^Missing train_op\.", lambda mode, m: (
        "the EstimatorSpec has no `train_op` (EstimatorSpec raises `ValueError: Missing "
        f"train_op.`): in TRAIN, return `train_op={FIX_GLOBAL_STEP}`")),
    (r"^Missing loss\.", lambda mode, m: (
        f"the EstimatorSpec has no `loss` in {mode} (EstimatorSpec raises `ValueError: Missing "
        "loss.`): EVAL and TRAIN need one, e.g. `tf.compat.v1.losses.sparse_softmax_cross_entropy"
        "(labels=labels, logits=logits)`")),
    (r"^Missing predictions\.", lambda mode, m: (
        "the EstimatorSpec has no `predictions` (EstimatorSpec raises `ValueError: Missing "
        "predictions.`): in PREDICT, return `predictions={\"classes\": ..., \"probabilities\": ...}`")),
    (r"^Loss must be scalar", lambda mode, m: (
        "the loss is not a scalar (EstimatorSpec raises `ValueError: Loss must be scalar`): "
        "reduce it with `tf.reduce_mean`, or use a `tf.compat.v1.losses` function")),
    (r"^Values of eval_metric_ops must be \(metric_value, update_op\) tuples, given: .* for key: (.+)$",
     lambda mode, m: (
         f"eval_metric_ops[{m.group(1)!r}] is not a (value, update_op) pair: give the pair that a "
         "`tf.compat.v1.metrics` function returns, e.g. `tf.compat.v1.metrics.accuracy(labels, "
         "classes)`, not the value alone")),
    (r"^eval_metric_ops must be a dict", lambda mode, m: (
        "eval_metric_ops is not a dict: give `{name: (value, update_op)}`")),
    (r"^(loss|train_op|predictions.*) must be (Operation or )?Tensor, given", lambda mode, m: (
        f"`{m.group(1)}` is not a TensorFlow tensor: return the tensor or op the model built, "
        "not a Python or NumPy value")),
)


# --------------------------------------------------------------------------- plumbing


def tiny_images(batch_size: int = 4):
    """The checker's batch of images: uniform noise in [0, 1], float32 [batch_size, 28, 28]."""
    generator = np.random.RandomState(SEED)
    return generator.uniform(0.0, 1.0, size=(batch_size, 28, 28)).astype(np.float32)


def tiny_batch(batch_size: int = 4, with_labels: bool = True):
    """Features and labels as the course's input functions deliver them, batch size unknown to the graph."""
    images = tiny_images(batch_size)
    features = {"image": tf.compat.v1.placeholder_with_default(images, [None, 28, 28], name="image")}
    if not with_labels:
        return features, None
    ids = (np.arange(batch_size) % 10).astype(np.int32)
    return features, tf.compat.v1.placeholder_with_default(ids, [None], name="labels")


def _builds_with_labels(model_fn, params, batch_size: int) -> bool:
    """True when the PREDICT branch builds once it is given labels (so labels=None made it fail)."""
    if "labels" not in function_utils.fn_args(model_fn):
        return False
    with estimator_graph():
        features, labels = tiny_batch(batch_size, with_labels=True)
        try:
            call_like_estimator(model_fn, features, labels, ModeKeys.PREDICT, params)
        except Exception:  # still failing: the labels were not the cause
            return False
    return True


@contextlib.contextmanager
def estimator_graph() -> Iterator[tf.Graph]:
    """A fresh default graph with a global step and the course's seeds, as Estimator builds one.

    The one place where the checker, ``hooks`` and ``interrupts`` build a
    ``model_fn``'s graph outside an Estimator.
    """
    with tf.Graph().as_default() as graph, _keras_seeds():
        tf.compat.v1.set_random_seed(SEED)
        tf.compat.v1.train.get_or_create_global_step()
        yield graph


def _placeholders_like(structure):
    """Placeholders with the dtypes and shapes of ``structure`` (and the names of its ``TensorSpec``s)."""
    return tf.nest.map_structure(
        lambda like: tf.compat.v1.placeholder(like.dtype, like.shape, name=like.name if isinstance(like, tf.TensorSpec) else None), structure)


def build_graph(model_fn, params: dict | None = None, mode: str = ModeKeys.TRAIN,
                features_like=None, labels_like=None) -> tf.Graph:
    """The graph ``model_fn`` builds in ``mode``, on placeholders shaped like the course's input.

    ``features = {"image": float32 [None, 28, 28]}``, ``labels`` int32 ``[None]``
    (``None`` in PREDICT), and a global step, as Estimator provides; or
    placeholders like ``features_like`` / ``labels_like``. Nothing is run.
    """
    with estimator_graph() as graph:
        if features_like is None:
            features_like = {"image": tf.TensorSpec([None, 28, 28], tf.float32, name="image")}
            labels_like = tf.TensorSpec([None], tf.int32, name="labels")
        features = _placeholders_like(features_like)
        labels = None if mode == ModeKeys.PREDICT or labels_like is None else _placeholders_like(labels_like)
        call_like_estimator(model_fn, features, labels, mode, params)
    return graph


def call_like_estimator(model_fn, features, labels, mode, params):
    """Call ``model_fn`` with the keyword arguments an Estimator would pass it."""
    args = function_utils.fn_args(model_fn)
    kwargs = {}
    if "labels" in args:
        kwargs["labels"] = labels
    if "mode" in args:
        kwargs["mode"] = mode
    if "params" in args:
        kwargs["params"] = dict(params or {})
    if "config" in args:
        kwargs["config"] = tf.estimator.RunConfig(tf_random_seed=SEED)
    return model_fn(features=features, **kwargs)


def _estimator_signature_error(model_fn, params) -> str | None:
    """The message of the ValueError Estimator's own check raises, or None (address removed)."""
    with logger_level(logging.ERROR):  # its "params not passed" warning is not the learner's business here
        try:
            model_fn_lib.verify_model_fn_args(model_fn, params)
        except ValueError as error:
            return re.sub(r" at 0x[0-9a-fA-F]+", "", str(error))
    return None


@contextlib.contextmanager
def _recording_keras_metrics():
    """Note the eval_metric_ops keys whose values are Keras Metric objects.

    EstimatorSpec converts such a metric into ``(metric.result(), metric.updates[0])``
    while it is built, so the returned spec no longer shows it: the checker looks
    at the dict before EstimatorSpec's own validation does.
    """
    keys = []
    original = model_fn_lib._validate_eval_metric_ops

    def recording(eval_metric_ops):
        if isinstance(eval_metric_ops, dict):
            keys.extend(k for k, v in eval_metric_ops.items() if isinstance(v, tf.keras.metrics.Metric))
        return original(eval_metric_ops)

    model_fn_lib._validate_eval_metric_ops = recording
    try:
        yield keys
    finally:
        model_fn_lib._validate_eval_metric_ops = original


class _IntegerSeeds(random.Random):
    """Keras asks its seed generator for ``randint(1, 1e9)``; Python 3.11 deprecates the float bound."""

    def randint(self, a, b):
        return super().randint(int(a), int(b))


@contextlib.contextmanager
def _keras_seeds():
    """Give Keras layers built by the checker seeds from their own generator, seeded with ``SEED``.

    The checker's weights are then the same on every run, the learner's random
    streams are not consumed, and Keras's ``randint(1, 1e9)`` (which warns when
    ``tf.keras.utils.set_random_seed`` was called) gets integer bounds.
    """
    try:
        from keras.src import backend as keras_backend

        state = keras_backend._SEED_GENERATOR
    except (ImportError, AttributeError):  # another Keras: leave its seeding alone
        yield
        return
    saved = getattr(state, "generator", None)
    state.generator = _IntegerSeeds(SEED)
    try:
        yield
    finally:
        state.generator = saved


def _ancestors(items) -> set:
    """Every op that the given tensors or ops depend on (data and control inputs), themselves included."""
    stack = [item if isinstance(item, tf.Operation) else item.op for item in items if item is not None]
    seen = set()
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(tensor.op for tensor in op.inputs)
        stack.extend(op.control_inputs)
    return seen


def _variables_used_by(tensors) -> set:
    """The names of the variables the tensors are computed from."""
    return {op.name for op in _ancestors(tensors) if op.type in ("VarHandleOp", "VariableV2")}


def _untrained_variables(loss, trainable) -> tuple:
    """The names of the trainable variables the loss has no gradient for (training never changes them)."""
    if loss is None or not trainable or not loss.dtype.is_floating:
        return ()
    try:
        gradients = tf.compat.v1.gradients(loss, trainable)
    except Exception:  # a loss TensorFlow cannot differentiate is not this check's business
        return ()
    return tuple(variable.op.name for variable, gradient in zip(trainable, gradients) if gradient is None)


def _largest_change(first: dict, second: dict):
    """``(key, largest absolute difference)`` of two runs' values, or ``(None, 0.0)`` when they agree."""
    worst, change = None, 0.0
    for key, a in first.items():
        a, b = np.asarray(a), np.asarray(second[key])
        if a.shape != b.shape:
            return key, float("inf")
        if not np.issubdtype(a.dtype, np.number):
            if not np.array_equal(a, b):
                return key, float("inf")
            continue
        if np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True):
            continue
        difference = float(np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64))))
        if difference > change:
            worst, change = key, difference
    return worst, change


class _Frame(NamedTuple):
    """One line of the learner's code: where an error or an op comes from."""

    filename: str
    lineno: int
    name: str
    namespace: dict  # the frame's globals and locals (empty for an op's traceback)


_CHECKER_FILE = str(Path(__file__).resolve())
_LIBRARY_DIRS = tuple(sorted({str(Path(p).resolve()) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}))


def _is_learner_file(filename: str) -> bool:
    if filename.startswith("<frozen") or "site-packages" in filename or "dist-packages" in filename:
        return False
    path = str(Path(filename).resolve())
    return path != _CHECKER_FILE and not path.startswith(_LIBRARY_DIRS)


def _learner_frame(frames) -> _Frame | None:
    """The innermost frame of the learner's code in a Python traceback or an op's traceback."""
    if frames is None:
        return None
    if hasattr(frames, "tb_frame"):  # a Python traceback: keep the frames' names for NameError
        frames = [_Frame(f.f_code.co_filename, line, f.f_code.co_name, {**f.f_globals, **f.f_locals})
                  for f, line in traceback.walk_tb(frames)]
    elif not all(isinstance(f, _Frame) for f in frames):  # an op's traceback, outermost first
        frames = [_Frame(f.filename, f.lineno, f.name, {}) for f in frames]
    for frame in reversed(frames):
        if _is_learner_file(frame.filename):
            return frame
    return None


def _op_frame(error) -> _Frame | None:
    """The learner's line that built the op a run-time error comes from (op traceback, else the message)."""
    op = getattr(error, "op", None)
    frame = _learner_frame(getattr(op, "traceback", None)) if op is not None else None
    return frame or _learner_frame(_frames_in_message(error.message))


def _frames_in_message(message: str) -> list:
    """The frames TensorFlow lists after "Detected at node … defined at (most recent call last):"."""
    return [_Frame(path, int(line), name, {})
            for path, line, name in re.findall(r'File "([^"]+)", line (\d+), in (\S+)', str(message))]


def _source(frame: _Frame | None) -> str:
    """The stripped source line of ``frame`` ('' when it cannot be read)."""
    if frame is None:
        return ""
    return linecache.getline(frame.filename, frame.lineno).strip()


def _place(frame: _Frame | None) -> str:
    """`` (line 5 of `model_fn`: `code`)``; the file is named only when it lies in the project."""
    if frame is None:
        return ""
    path = Path(frame.filename).resolve()
    inside = path.is_relative_to(PROJECT_ROOT) and path.exists()
    where = f" in {path.relative_to(PROJECT_ROOT).as_posix()}" if inside else ""
    line = _source(frame).replace("`", "'")
    if len(line) > 80:
        line = line[:77] + "…"
    code = f": `{line}`" if line else ""
    return f" (line {frame.lineno} of `{frame.name}`{where}{code})"


def _inputs_hint(line: str) -> str:
    """What the course's input functions deliver, for the inputs named in ``line`` ('' if none)."""
    given = [text for word, text in (("features", FEATURES_IN), ("labels", LABELS_IN))
             if re.search(rf"\b{word}\b", line)]
    return "the course's input functions deliver " + " and ".join(given) if given else ""


def _tf1_name(message: str) -> str | None:
    """``tf.compat.v1.layers`` for "module 'tensorflow' has no attribute 'layers'", if TF 2 has that name."""
    match = re.search(r"module '(tensorflow[\w.]*)' has no attribute '(\w+)'", message)
    if not match:
        return None
    path = re.sub(r"^tensorflow(\._api\.v2)?(\.compat\.v[12])?\.?", "", match.group(1))
    parts = [part for part in path.split(".") if part] + [match.group(2)]
    target = tf.compat.v1
    for part in parts:
        target = getattr(target, part, None)
        if target is None:
            return None
    return "tf.compat.v1." + ".".join(parts)


def _run_error_cause(message: str) -> str:
    """The line TensorFlow puts after ``Graph execution error:`` and the node's traceback."""
    in_traceback = False
    for line in _strip_paths(message).splitlines():
        text = re.sub(r"\s*\[\[\{\{node [^}]*\}\}\]\].*$", "", line).strip()
        if text.startswith("Detected at node"):
            in_traceback = True
            continue
        if in_traceback and text.startswith("File "):
            continue
        in_traceback = False
        if text and text != "Graph execution error:" and not text.startswith("Node: "):
            return text.rstrip(".")
    return _first_line(message)


def _strip_paths(text: str) -> str:
    """``text`` with the project's own folder removed from the paths it names."""
    return str(text).replace(str(PROJECT_ROOT) + "/", "")


def _mode_meant(literal: str) -> str | None:
    """The mode a wrong string stands for: "TRAIN" → TRAIN, "predict" → PREDICT; None if unclear."""
    low = literal.strip().lower()
    for prefix, mode_name in (("train", "TRAIN"), ("eval", "EVAL"), ("pred", "PREDICT"), ("infer", "PREDICT")):
        if low.startswith(prefix):
            return mode_name
    return None


def _where(key: str) -> str:
    return "predictions" if key == "(tensor)" else f"predictions[{key!r}]"


def _list_variables(names, shapes: dict) -> str:
    listed = ", ".join(f"{name} {shapes[name]}" for name in list(names)[:3])
    return listed + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _twice(branch: Branch) -> str:
    """`` (the network is built twice …)`` when the branch's variable shapes are one list repeated."""
    shapes = list(branch.variables.values())
    half = len(shapes) // 2
    if half and len(shapes) % 2 == 0 and shapes[:half] == shapes[half:]:
        return (f" (the {branch.mode} branch builds the network twice: its {len(shapes)} variables are the "
                f"same {half} shapes two times)")
    return ""


def _is_argmax_over_batch(tensor) -> bool:
    """True when ``tensor`` is (a cast or identity of) an ArgMax over axis 0."""
    op = tensor.op
    while op.type in ("Identity", "Cast") and op.inputs:
        op = op.inputs[0].op
    if op.type != "ArgMax":
        return False
    axis = tf.get_static_value(op.inputs[1])
    return axis is not None and int(axis) == 0


def _html(text: str) -> str:
    """Escape for HTML; `code` in backticks becomes <code>code</code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))


def _name_of(model_fn) -> str:
    return getattr(model_fn, "__name__", None) or type(model_fn).__name__


def _first_line(text: str) -> str:
    lines = [line.strip() for line in str(text).strip().splitlines() if line.strip()]
    return lines[0] if lines else ""


def _describe_shape(shape) -> str:
    return "scalar" if len(shape) == 0 else str(tuple(shape))


def _describe_shapes(shapes: dict) -> str:
    if not shapes:
        return "-"
    return ", ".join(f"{key} {_describe_shape(shape)}" for key, shape in shapes.items())
