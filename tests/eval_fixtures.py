"""What the tests of notebooks 06 and 07's helpers share: evaluation event files written as Estimator writes
them, notebook 07's ``HookProbe`` and ``replay`` (taken from the notebook's cell), and a small linear model."""

from __future__ import annotations

from tests import ROOT
import itertools
import json
import os
from pathlib import Path

import pandas as pd
import tensorflow as tf

from helpers import early_stopping

NOTEBOOK_07 = ROOT / "notebooks" / "07_early_stopping.ipynb"
_WRITERS = itertools.count()  # event files are named after the second they were opened in: a suffix per writer


def lesson_cell(notebook: Path, defines: str, namespace: dict) -> dict:
    """Run the code cell of ``notebook`` that contains ``defines`` in ``namespace``, and return the namespace."""
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and defines in source:
            exec(compile(source, f"{notebook.name}:{defines}", "exec"), namespace)
            return namespace
    raise LookupError(f"no code cell of {notebook.name} contains {defines!r}")


_cell = lesson_cell(NOTEBOOK_07, "class HookProbe",
                    {"tf": tf, "pd": pd, "Path": Path, "early_stopping": early_stopping})
HookProbe, replay = _cell["HookProbe"], _cell["replay"]


def write_eval_events(eval_dir, results: dict) -> None:
    """Write ``{step: {name: value}}`` into ``eval_dir`` as v1 scalars (``simple_value``), all the hooks read."""
    os.makedirs(eval_dir, exist_ok=True)
    with tf.Graph().as_default():  # the v1 FileWriter refuses eager mode
        writer = tf.compat.v1.summary.FileWriter(str(eval_dir), filename_suffix=f".{os.getpid()}.{next(_WRITERS)}")
    try:
        for step, values in sorted(results.items()):
            summary = [tf.compat.v1.Summary.Value(tag=tag, simple_value=float(value)) for tag, value in values.items()]
            writer.add_summary(tf.compat.v1.Summary(value=summary), int(step))
    finally:
        writer.close()


def linear_model_fn(features, labels, mode):
    """A linear model; evaluated: accuracy, and the same as float16 and float64 (what the hooks can read)."""
    logits = tf.keras.layers.Dense(10)(tf.reshape(features["image"], [-1, 28 * 28]))
    classes = tf.argmax(logits, axis=1, output_type=tf.int32)
    predictions = {"classes": classes, "probabilities": tf.nn.softmax(logits)}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        accuracy, update = tf.compat.v1.metrics.accuracy(labels, classes)
        ops = {"accuracy": (accuracy, update), "accuracy_half": (tf.cast(accuracy, tf.float16), update),
               "accuracy_double": (tf.cast(accuracy, tf.float64), update)}
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=ops, predictions=predictions)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def estimator_in(folder, metric_fn=None) -> tf.estimator.Estimator:
    """``linear_model_fn`` in ``folder``, with ``tf.estimator.add_metrics(…, metric_fn)`` when given."""
    estimator = tf.estimator.Estimator(linear_model_fn, model_dir=str(folder))
    return tf.estimator.add_metrics(estimator, metric_fn) if metric_fn else estimator


def all_metrics(labels, predictions) -> dict:
    """``metrics.classification_metrics`` as a ``metric_fn`` of ``tf.estimator.add_metrics``."""
    from helpers import metrics

    return metrics.classification_metrics(labels, predictions["classes"], predictions["probabilities"])
