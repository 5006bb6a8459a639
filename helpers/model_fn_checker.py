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
  from 0 to 1?).

The result is a ``ModelFnReport``: ``findings`` (problems, one plain sentence
each, naming what to change), ``warnings`` (accepted by Estimator but likely
wrong), ``ok``, ``table()`` (what each branch returned) and
``raise_if_problems()``. Each check below is one small function.
"""

from __future__ import annotations

import contextlib
import html
import logging
import re
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd
import tensorflow as tf
from tensorflow.python.util import function_utils
from tensorflow_estimator.python.estimator import model_fn as model_fn_lib

from .problems import WorkbookProblem
from .settings import SEED

ModeKeys = tf.estimator.ModeKeys

MODES = (("PREDICT", ModeKeys.PREDICT), ("EVAL", ModeKeys.EVAL), ("TRAIN", ModeKeys.TRAIN))
SIGNATURE = "signature"
ACCEPTED_ARGS = ("features", "labels", "mode", "params", "config")
COURSE_INPUTS = (
    'The course\'s input functions deliver features {"image": float32 [batch, 28, 28]} '
    "and labels int32 [batch] (class ids, not one-hot)"
)
FIX_GLOBAL_STEP = "optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())"


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
    for mode_name, mode in MODES:
        if mode != ModeKeys.PREDICT and "labels" not in args:
            report.branches[mode_name] = Branch(mode_name, returned="not built (no labels parameter)")
            continue
        branch, findings, warnings = check_branch(model_fn, mode_name, mode, params, batch_size)
        report.branches[mode_name] = branch
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
    findings, warnings = [], []
    with tf.Graph().as_default() as graph:
        tf.compat.v1.set_random_seed(SEED)
        tf.compat.v1.train.get_or_create_global_step()
        features, labels = tiny_batch(batch_size, with_labels=(mode != ModeKeys.PREDICT))
        try:
            with _recording_keras_metrics() as keras_metrics:
                spec = _call_like_estimator(model_fn, features, labels, mode, params)
        except Exception as error:  # the learner's code can raise anything
            findings.append(Finding(mode_name, explain_build_error(mode_name, error)))
            branch.returned = f"raised {type(error).__name__}"
            return branch, findings, warnings
        if not isinstance(spec, tf.estimator.EstimatorSpec):
            findings.append(Finding(mode_name, not_a_spec(spec)))
            branch.returned = type(spec).__name__
            return branch, findings, warnings
        if spec.mode != mode:
            findings.append(Finding(mode_name, (
                f"in {mode_name} the model_fn returned an EstimatorSpec for mode {spec.mode!r}: "
                "give EstimatorSpec the `mode` the model_fn received")))
            branch.returned = f"EstimatorSpec for {spec.mode!r}"
            return branch, findings, warnings
        branch.built = True
        branch.returned = "EstimatorSpec"
        branch.variables = {variable.op.name: tuple(variable.shape.as_list())
                            for variable in tf.compat.v1.trainable_variables()}
        branch.trainable_parameters = int(sum(np.prod(shape) for shape in branch.variables.values()))
        warnings += [Finding(mode_name, keras_metric_warning(key)) for key in keras_metrics]
        with tf.compat.v1.Session(graph=graph) as session:
            session.run([tf.compat.v1.global_variables_initializer(),
                         tf.compat.v1.local_variables_initializer(),
                         tf.compat.v1.tables_initializer()])
            try:
                if mode == ModeKeys.PREDICT:
                    findings += check_predictions(session, spec, branch, batch_size)
                else:
                    findings += check_loss(session, spec, branch, mode_name)
                if mode == ModeKeys.EVAL:
                    findings += check_metrics(session, spec, branch)
                if mode == ModeKeys.TRAIN:
                    findings += check_train_op(session, spec, branch)
            except tf.errors.OpError as error:
                findings.append(Finding(mode_name, (
                    f"running the {mode_name} branch on a batch of {batch_size} raised "
                    f"{type(error).__name__}: {_first_line(error.message)}. {COURSE_INPUTS}: make "
                    "the model_fn work on those")))
    return branch, findings, warnings


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


# --------------------------------------------------------------------------- sentences


def explain_build_error(mode_name: str, error: Exception) -> str:
    """The sentence for an exception raised while the model_fn built a branch."""
    message = _first_line(str(error))
    for pattern, sentence in SPEC_ERRORS:
        match = re.search(pattern, message)
        if match:
            return sentence(mode_name, match)
    raised = f"building the {mode_name} branch raised {type(error).__name__}: {message}"
    if mode_name == "PREDICT":
        return (raised + ". In PREDICT, Estimator passes labels=None: return the EstimatorSpec "
                "before anything uses the labels")
    return raised + f". {COURSE_INPUTS}: make the model_fn accept those"


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


def tiny_batch(batch_size: int = 4, with_labels: bool = True):
    """Features and labels as the course's input functions deliver them, batch size unknown to the graph."""
    generator = np.random.RandomState(SEED)
    images = generator.uniform(0.0, 1.0, size=(batch_size, 28, 28)).astype(np.float32)
    features = {"image": tf.compat.v1.placeholder_with_default(images, [None, 28, 28], name="image")}
    if not with_labels:
        return features, None
    ids = (np.arange(batch_size) % 10).astype(np.int32)
    return features, tf.compat.v1.placeholder_with_default(ids, [None], name="labels")


def _call_like_estimator(model_fn, features, labels, mode, params):
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
    logger = tf.get_logger()
    level = logger.level
    logger.setLevel(logging.ERROR)  # its "params not passed" warning is not the learner's business here
    try:
        model_fn_lib.verify_model_fn_args(model_fn, params)
    except ValueError as error:
        return re.sub(r" at 0x[0-9a-fA-F]+", "", str(error))
    finally:
        logger.setLevel(level)
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
