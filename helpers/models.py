"""The course's CNN ``model_fn``, defined in notebook 03's cells marked ``#@save models``, where it is taught.

Notebooks 04–10 import it from here; ``tests/notebooks/test_lesson_cells.py`` fails when a function here differs
from its notebook cell: change both. ``params``: ``learning_rate``, ``decay_steps`` (None, or a tenfold
decay every N steps), ``filters``, ``dense_units``, ``dropout`` (defaults in ``cnn_params``).
"""

from __future__ import annotations

import tensorflow as tf

from .cnn_params import DEFAULT_PARAMS  # noqa: F401  (models.DEFAULT_PARAMS, as notebooks use it)

ModeKeys = tf.estimator.ModeKeys


def cnn_logits(images, training: bool, params: dict):
    """The forward pass: two conv + pool blocks, a dense layer, dropout, 10 logits."""
    x = tf.reshape(images, [-1, 28, 28, 1])
    for filters in params["filters"]:
        x = tf.keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
        x = tf.keras.layers.MaxPooling2D(2)(x)
    x = tf.keras.layers.Flatten()(x)
    x = tf.keras.layers.Dense(params["dense_units"], activation="relu")(x)
    x = tf.keras.layers.Dropout(params["dropout"])(x, training=training)
    return tf.keras.layers.Dense(10)(x)


def cnn_model_fn(features, labels, mode, params):
    """The CNN ``model_fn``: ``features["image"]`` is float32 [batch, 28, 28] in 0–1."""
    params = {**DEFAULT_PARAMS, **(params or {})}
    training = mode == ModeKeys.TRAIN
    logits = cnn_logits(features["image"], training=training, params=params)
    probabilities = tf.nn.softmax(logits, name="softmax_tensor")
    classes = tf.argmax(logits, axis=1, output_type=tf.int32, name="classes")
    predictions = {"classes": classes, "probabilities": probabilities}

    if mode == ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(
            mode,
            predictions=predictions,
            export_outputs={
                "serving_default": tf.estimator.export.PredictOutput(predictions)
            },
        )

    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(
        labels=labels, logits=logits
    )

    if mode == ModeKeys.EVAL:
        metrics = {
            "accuracy": tf.compat.v1.metrics.accuracy(
                labels=labels, predictions=classes
            )
        }
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, eval_metric_ops=metrics, predictions=predictions
        )

    global_step = tf.compat.v1.train.get_global_step()
    learning_rate = params["learning_rate"]
    if params["decay_steps"]:
        learning_rate = tf.compat.v1.train.exponential_decay(
            learning_rate,
            global_step,
            decay_steps=params["decay_steps"],
            decay_rate=0.1,
        )
    optimizer = tf.compat.v1.train.AdamOptimizer(learning_rate=learning_rate)
    train_op = optimizer.minimize(loss, global_step=global_step)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
