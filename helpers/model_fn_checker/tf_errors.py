"""TensorFlow's and Estimator's errors turned into sentences: what an error raised while building
a branch, or running it, means for the learner's model_fn, and what to write instead.
``SPEC_ERRORS`` is the table of EstimatorSpec's own messages and their sentences."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable

import tensorflow as tf

from ..language import _, all_of, any_of, listed, N_
from ..learner_code import Line, error_text, learner_line
from ..model_graph import call_like_estimator, estimator_graph, tiny_batch
from ..problems import similar_names
from .diagnoses import _ancestors, _is_argmax_over_batch
from .report import _at

ModeKeys = tf.estimator.ModeKeys

FIX_GLOBAL_STEP = "optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())"
FEATURES_IN = 'features {"image": float32 [batch, 28, 28]}'


def labels_in() -> str:
    """How the course's input functions deliver the labels, in the learner's language."""
    return _("labels int32 [batch] (class ids, not one-hot)")


# EstimatorSpec's own ValueError (its first line) -> the sentence, a template in English that
# `_()` translates where it is said; its fields are the mode, FIX_GLOBAL_STEP as `fix`, and the
# pattern's named groups.
SPEC_ERRORS = (
    (
        re.compile(r"^Missing train_op\."),
        N_(
            "the EstimatorSpec has no `train_op` (EstimatorSpec raises `ValueError: Missing "
            "train_op.`): in TRAIN, return `train_op={fix}`"
        ),
    ),
    (
        re.compile(r"^Missing loss\."),
        N_(
            "the EstimatorSpec has no `loss` in {mode} (EstimatorSpec raises `ValueError: Missing "
            "loss.`): EVAL and TRAIN need one, e.g. "
            "`tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)`"
        ),
    ),
    (
        re.compile(r"^Missing predictions\."),
        N_(
            "the EstimatorSpec has no `predictions` (EstimatorSpec raises `ValueError: Missing "
            "predictions.`): in PREDICT, return "
            '`predictions={{"classes": ..., "probabilities": ...}}`'
        ),
    ),
    (
        re.compile(r"^Loss must be scalar"),
        N_(
            "the loss is not a scalar (EstimatorSpec raises `ValueError: Loss must be scalar`): "
            "reduce it with `tf.reduce_mean`, or use a `tf.compat.v1.losses` function"
        ),
    ),
    (
        re.compile(
            r"^Values of eval_metric_ops must be \(metric_value, update_op\) tuples, given: .* "
            r"for key: (?P<key>.+)$"
        ),
        N_(
            "eval_metric_ops[{key!r}] is not a `(value, update_op)` pair: give the pair that a "
            "`tf.compat.v1.metrics` function returns, e.g. "
            "`tf.compat.v1.metrics.accuracy(labels, classes)`, not the value alone"
        ),
    ),
    (
        re.compile(r"^eval_metric_ops must be a dict"),
        N_("eval_metric_ops is not a dict: give `{{name: (value, update_op)}}`"),
    ),
    (
        re.compile(r"^(?P<name>loss|train_op|predictions.*) must be (Operation or )?Tensor, given"),
        N_(
            "`{name}` is not a TensorFlow tensor: return the tensor or op the model built, not a "
            "Python or NumPy value"
        ),
    ),
)

# TensorFlow's texts that the sentences below read values from
ONE_HOT_AT_BUILD = re.compile(  # a sparse cross-entropy given [batch, classes] labels: rank error
    r"labels\.shape=\((?:None|\d+), (\d+)\) of rank 2 and "
    r"logits\.shape=\((?:None|\d+), (\d+)\) of rank 2"
)
ONE_HOT_AT_RUN = re.compile(  # Keras's sparse_categorical_crossentropy: batch × classes labels
    r"got logits shape \[(\d+),(\d+)\] and labels shape \[(\d+)\]"
)
NO_TF_ATTRIBUTE = re.compile(r"module '(tensorflow[\w.]*)' has no attribute '(\w+)'")
ABOUT_A_DICT = re.compile(r"\bdict\b|non-tensor type|\{'")  # the features dict used as a tensor


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
    for pattern, template in SPEC_ERRORS:
        if match := pattern.search(said):
            return _(template).format(mode=mode_name, fix=FIX_GLOBAL_STEP, **match.groupdict())
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
    if rank := ONE_HOT_AT_BUILD.search(message):
        return int(rank[1]) if rank[1] == rank[2] else None
    if flat := ONE_HOT_AT_RUN.search(message):
        batch, classes, labels = (int(number) for number in flat.groups())
        return classes if labels == batch * classes else None
    return None


def _tf1_name(message: str) -> str | None:
    """``tf.compat.v1.layers`` for "module 'tensorflow' has no attribute 'layers'", if TF 2 has
    that name."""
    match = NO_TF_ATTRIBUTE.search(message)
    if not match:
        return None
    path = re.sub(r"^tensorflow(\._api\.v2)?(\.compat\.v[12])?\.?", "", match.group(1))
    parts = [part for part in path.split(".") if part] + [match.group(2)]
    target = functools.reduce(lambda module, part: getattr(module, part, None), parts, tf.compat.v1)
    return None if target is None else "tf.compat.v1." + ".".join(parts)


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
        have = listed(repr(k) for k in (params or {})) or _("none")
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
    about_a_dict = on_the_dict or ABOUT_A_DICT.search(message)
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
