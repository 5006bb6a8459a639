"""Predictions of an exported model, and tables around them (notebook 08; notebook 10 reuses them).

``serving_input_receiver_fn`` and ``estimator_predictions`` are defined in notebook 08's ``#@save export`` cells.
Notebook 10's Keras cells import it on TF 2.21 too: ``tf.estimator`` is only used when a receiver is called.
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow as tf


def as_text_path(path: str | bytes | os.PathLike) -> str:
    """``export_saved_model`` returns bytes: the path as text, relative to here."""
    from .settings import display_path

    return display_path(path.decode() if isinstance(path, bytes) else path)


def serving_input_receiver_fn():
    images = tf.compat.v1.placeholder(tf.float32, [None, 28, 28], name="image")
    return tf.estimator.export.ServingInputReceiver(features={"image": images},
                                                    receiver_tensors={"image": images})


def estimator_predictions(estimator, input_fn, predict_keys=None) -> dict:
    """Every prediction of ``estimator.predict`` as ``{key: array}``, read a batch at
    a time."""
    batches = list(estimator.predict(input_fn, predict_keys=predict_keys, yield_single_examples=False))
    return {key: np.concatenate([batch[key] for batch in batches]) for key in batches[0]}


def saved_model_predictions(signature, images: np.ndarray, key: str = "image", batch_size: int = 1000) -> dict:
    """Call a SavedModel signature on ``images`` in batches; return ``{output: array}``."""
    outputs: dict[str, list] = {}
    for start in range(0, len(images), batch_size):
        for name, value in signature(**{key: tf.constant(images[start:start + batch_size])}).items():
            outputs.setdefault(name, []).append(value.numpy())
    return {name: np.concatenate(parts) for name, parts in outputs.items()}


def agreement(reference: dict, other: dict) -> dict:
    """How far ``other``'s predictions are from ``reference``'s: same class share and largest probability gap."""
    same = float(np.mean(reference["classes"] == other["classes"]))
    gap = float(np.max(np.abs(reference["probabilities"] - other["probabilities"])))
    return {"same class": same, "differing": int(np.sum(reference["classes"] != other["classes"])),
            "max |Δ probability|": gap}

