"""Evaluation event files written as an Estimator's evaluation writes them, for the tests of what
reads them (``helpers.events``, the early-stopping hooks, notebook 07's checks)."""

from __future__ import annotations

import itertools
import os

import tensorflow as tf

_WRITERS = (
    itertools.count()
)  # event files are named after the second they were opened in: a suffix per writer


def write_eval_events(eval_dir, results: dict) -> None:
    """Write ``{step: {name: value}}`` into ``eval_dir`` as v1 scalars (``simple_value``): what
    the early-stopping hooks read."""
    os.makedirs(eval_dir, exist_ok=True)
    with tf.Graph().as_default():  # the v1 FileWriter refuses eager mode
        writer = tf.compat.v1.summary.FileWriter(
            str(eval_dir), filename_suffix=f".{os.getpid()}.{next(_WRITERS)}"
        )
    try:
        for step, values in sorted(results.items()):
            summary = [
                tf.compat.v1.Summary.Value(tag=tag, simple_value=float(value))
                for tag, value in values.items()
            ]
            writer.add_summary(tf.compat.v1.Summary(value=summary), int(step))
    finally:
        writer.close()
