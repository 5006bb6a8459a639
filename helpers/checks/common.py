"""What the exercise checks share: the answer-missing message, the success line, and running a
learner's streaming metric (notebooks 03 and 06)."""

from __future__ import annotations

import numbers

from ..problems import CheckFailed


def require_answer(answer, name: str) -> None:
    """Fail plainly when the exercise was left blank (the answer still None)."""
    if answer is None:
        raise CheckFailed(
            f"`{name}` is still None: write your code where the exercise says "
            "`# YOUR CODE HERE` (and remove `raise NotImplementedError()`)"
        )


def correct(message: str) -> None:
    """Print the one success line of a check."""
    print(f"Correct: {message}")


def is_whole_number(value) -> bool:
    """A whole number: an int (not a bool), or a float such as 500.0."""
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Integral):
        return True
    return isinstance(value, numbers.Real) and float(value).is_integer()


def run_metric_pair(build, answer: str, key: str, batches, keras_hint: str = "a (value, update_op) pair",
                    pair_hint: str = "", value_hint: str = ""):
    """Feed ``batches`` through ``build(labels, classes)``'s ``{key: (value, update_op)}`` (a learner's metric,
    notebooks 03 and 06) and return the value; each wrong shape of answer gets one line, plus the ``*_hint``."""
    import numpy as np
    import tensorflow as tf

    with tf.Graph().as_default():
        labels = tf.compat.v1.placeholder(tf.int32, [None], name="labels")
        classes = tf.compat.v1.placeholder(tf.int32, [None], name="classes")
        ops = build(labels, classes)
        if not isinstance(ops, dict):
            raise CheckFailed(f"`{answer}` returned a {type(ops).__name__}: return a dict, "
                              f'{{"{key}": (value, update_op)}}')
        if key not in ops:
            raise CheckFailed(f"the dict has the keys {sorted(ops)}: name the metric '{key}'")
        pair = ops[key]
        if isinstance(pair, tf.keras.metrics.Metric):
            raise CheckFailed("that is a Keras Metric object: Estimator runs only its first update op, "
                              f"which can leave it silently wrong; return {keras_hint}")
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise CheckFailed(f"ops['{key}'] is a {type(pair).__name__}, not a (value, update_op) pair{pair_hint}")
        value, update_op = pair
        with tf.compat.v1.Session() as session:
            session.run([tf.compat.v1.global_variables_initializer(),
                         tf.compat.v1.local_variables_initializer()])
            for batch_labels, batch_classes in batches:
                session.run(update_op, {labels: batch_labels, classes: batch_classes})
            try:
                return np.asarray(session.run(value))
            except tf.errors.InvalidArgumentError:
                raise CheckFailed("the value needs the current batch to be computed: it must read the totals "
                                  f"that the update op accumulates{value_hint}") from None
