"""The small models the tests train.

* The one-variable model: ``w`` starts at 1.0 and learns ``x * w = 2`` from the single example
  ``x = 1``; under gradient descent (rate 0.01) its weight is ``w_t = 2 - 0.98**t`` after ``t``
  steps, so a hook's readings are known exactly, in about a second of training.
* The linear model on the course's images (a dense layer on the flattened image) whose evaluation
  also reports its accuracy as float16 and float64: what the early-stopping hooks can and cannot
  read.
* ``SMALL_CNN``: the course CNN's parameters, made small enough to build and train in a test.
"""

from __future__ import annotations

import tensorflow as tf

LEARNING_RATE = 0.01
SMALL_CNN = {"filters": (8, 16), "dense_units": 32}


def tiny_model_fn(features, labels, mode):
    """The one-variable model; its weight is also ``monitor/weight``, read before the update."""
    weight = tf.compat.v1.get_variable("w", initializer=1.0)
    value = tf.identity(weight, name="monitor/weight")  # on the loss's path: read before the update
    loss = tf.reduce_mean((features["x"] * value - labels) ** 2)
    # A fetched global step comes from this read; make the update wait for it, so that it is always
    # the value before the update, even in so small a model.
    read = tf.compat.v1.get_default_graph().get_tensor_by_name("global_step/Read/ReadVariableOp:0")
    with tf.control_dependencies([read]):
        train_op = tf.compat.v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def tiny_input_fn():
    """The one example, for ever."""
    return tf.data.Dataset.from_tensors(({"x": [1.0]}, [2.0])).repeat()


def finite_input_fn():
    """The one example three times: training ends after step 3."""
    return tf.data.Dataset.from_tensors(({"x": [1.0]}, [2.0])).repeat(3)


def tiny_estimator(model_dir, **config) -> tf.estimator.Estimator:
    """The one-variable model in ``model_dir``; ``config`` changes its ``RunConfig``."""
    settings = dict(tf_random_seed=1, log_step_count_steps=None, save_summary_steps=None)
    settings.update(config)
    return tf.estimator.Estimator(
        tiny_model_fn, model_dir=str(model_dir), config=tf.estimator.RunConfig(**settings)
    )


def weight_at(step: int) -> float:
    """The one-variable model's weight after ``step`` steps."""
    return 2.0 - 0.98**step


def linear_model_fn(features, labels, mode):
    """A linear model; evaluated: accuracy, and the same as float16 and float64."""
    logits = tf.keras.layers.Dense(10)(tf.reshape(features["image"], [-1, 28 * 28]))
    classes = tf.argmax(logits, axis=1, output_type=tf.int32)
    predictions = {"classes": classes, "probabilities": tf.nn.softmax(logits)}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        accuracy, update = tf.compat.v1.metrics.accuracy(labels, classes)
        ops = {
            "accuracy": (accuracy, update),
            "accuracy_half": (tf.cast(accuracy, tf.float16), update),
            "accuracy_double": (tf.cast(accuracy, tf.float64), update),
        }
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, eval_metric_ops=ops, predictions=predictions
        )
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step()
    )
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def linear_estimator(folder, metric_fn=None) -> tf.estimator.Estimator:
    """``linear_model_fn`` in ``folder``; ``metric_fn`` is added by ``tf.estimator.add_metrics``."""
    estimator = tf.estimator.Estimator(linear_model_fn, model_dir=str(folder))
    return tf.estimator.add_metrics(estimator, metric_fn) if metric_fn else estimator
