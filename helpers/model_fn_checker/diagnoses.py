"""What is wrong in a branch that builds and runs, read from its graph and its values: a softmax
fed to the loss as logits, skipped moving-average updates, predictions without the batch dimension
or that depend on the rest of the batch, randomness left on, class ids cast to bool, a Keras
metric object, and trainable variables that differ between the modes or that training never
changes."""

from __future__ import annotations

import re

import numpy as np
import tensorflow as tf

from ..language import _, current, listed
from ..learner_code import error_text, learner_line, op_line
from .report import Branch, ModelFnReport, _at, _listed, _with_shapes

FIX_TRAINING_FLAG = "training=(mode == tf.estimator.ModeKeys.TRAIN)"
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
            "`intermediate_weights`, and its F1 stays 0.0): build a `(value, update_op)` pair with "
            "`tf.compat.v1.metrics` instead"
        ).format(key=key, names=listed(f"`{name}`" for name in unchanged))
    return _(
        "eval_metric_ops[{key!r}] is a Keras Metric object: EstimatorSpec turns it into "
        "`(metric.result(), metric.updates[0])`, and in a graph that one update op is the last op "
        "the metric's `update_state` built; here it updates every state variable, but for another "
        'metric it may not (`tf.keras.metrics.F1Score(average="macro")`\'s op only adds to '
        "`intermediate_weights`, and its F1 stays 0.0): build a `(value, update_op)` pair with "
        "`tf.compat.v1.metrics` instead"
    ).format(key=key)


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


def _twice(branch: Branch) -> bool:
    """True when the branch's variable shapes are one list repeated (the network built twice)."""
    shapes, half = list(branch.variables.values()), len(branch.variables) // 2
    return bool(half) and len(shapes) % 2 == 0 and shapes[:half] == shapes[half:]


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
