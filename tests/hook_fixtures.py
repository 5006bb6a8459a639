"""What the hook tests and notebook 05's check tests share: a one-variable model whose weight follows
w_t = 2 - 0.98**t under gradient descent (about a second of training per test), the naive step recorder, and
the course CNN with notebook 05's ``monitor`` tensors."""

import tensorflow as tf

from helpers import models

from .notebook_code import definitions

LEARNING_RATE = 0.01
SMALL = {"filters": (8, 16), "dense_units": 32}


def tiny_model_fn(features, labels, mode):
    weight = tf.compat.v1.get_variable("w", initializer=1.0)
    value = tf.identity(weight, name="monitor/weight")  # on the loss's path: read before the update
    loss = tf.reduce_mean((features["x"] * value - labels) ** 2)
    # A fetched global step comes from this read; make the update wait for it (as in the
    # exercise check), so that it is always the value before the update, even in so small a model.
    read = tf.compat.v1.get_default_graph().get_tensor_by_name("global_step/Read/ReadVariableOp:0")
    with tf.control_dependencies([read]):
        train_op = tf.compat.v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def tiny_input_fn():
    return tf.data.Dataset.from_tensors(({"x": [1.0]}, [2.0])).repeat()


def finite_input_fn():
    return tf.data.Dataset.from_tensors(({"x": [1.0]}, [2.0])).repeat(3)


def tiny_estimator(model_dir, **config):
    settings = dict(tf_random_seed=1, log_step_count_steps=None, save_summary_steps=None)
    settings.update(config)
    return tf.estimator.Estimator(tiny_model_fn, model_dir=str(model_dir), config=tf.estimator.RunConfig(**settings))


def weight_at(step):
    return 2.0 - 0.98 ** step


class NaiveRecorder(tf.estimator.SessionRunHook):
    """The trap: the global step fetched together with train_op."""

    def __init__(self):
        self.steps = []

    def begin(self):
        self.global_step = tf.compat.v1.train.get_global_step()

    def before_run(self, run_context):
        return tf.estimator.SessionRunArgs(self.global_step)

    def after_run(self, run_context, run_values):
        self.steps.append(int(run_values.results))


def monitored_model_fn(features, labels, mode, params):
    """The course CNN plus notebook 05's `monitor/confidence` and `monitor/first_classes`."""
    spec = models.cnn_model_fn(features, labels, mode, params)
    probabilities = tf.compat.v1.get_default_graph().get_tensor_by_name("softmax_tensor:0")
    with tf.name_scope("monitor"):
        tf.reduce_mean(tf.reduce_max(probabilities, axis=1), name="confidence")
        tf.identity(tf.argmax(probabilities[:10], axis=1), name="first_classes")
    return spec


def notebook_05(*names: str) -> list:
    """The named classes and functions of notebook 05's cells, run with the notebook's imports only (its other
    definitions need the values its cells compute, e.g. ``small_estimator``'s default ``SMALL``)."""
    namespace = definitions("05_hooks.ipynb", names)
    return [namespace[name] for name in names]
