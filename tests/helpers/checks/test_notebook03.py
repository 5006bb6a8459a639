"""Notebook 03's exercise checks on right answers and on a bank of plausible wrong ones:
no wrong answer passes, no right one fails, and each message names the mistake without handing
over the answer.

Exercise 1 runs the learner's train op inside a linear model_fn
(``tests.support.model_fns.variant``), as the notebook's ``linear_model_fn`` does; exercise 2 a
predictions function on fixed logits; exercise 3 a metric function on two batches.
"""

import pytest
import tensorflow as tf

from helpers import checks
from helpers.problems import CheckFailed
from tests.support.checks import assert_names_the_mistake, failure
from tests.support.model_fns import variant

GD = tf.compat.v1.train.GradientDescentOptimizer


def _with_train_op(train_op_for):
    """The notebook's ``linear_model_fn(train_op_for)``:
    the TRAIN branch's train_op is ``train_op_for(loss)``."""
    return variant(
        train=lambda mode, loss: tf.estimator.EstimatorSpec(
            mode, loss=loss, train_op=train_op_for(loss)
        )
    )


def _step():
    return tf.compat.v1.train.get_global_step()


def _clipped(clip, optimizer=lambda: GD(0.1), global_step=_step):
    def train_op_for(loss):
        opt = optimizer()
        pairs = [(clip(gradient), variable) for gradient, variable in opt.compute_gradients(loss)]
        return opt.apply_gradients(pairs, global_step=global_step())
    return train_op_for


def _by_norm(gradient):
    return tf.clip_by_norm(gradient, 1.0)


def _global_norm(loss):
    optimizer = GD(0.1)
    gradients, variables = zip(*optimizer.compute_gradients(loss))
    clipped, _ = tf.clip_by_global_norm(gradients, 1.0)
    return optimizer.apply_gradients(zip(clipped, variables), global_step=_step())


def _grouped_increment(loss):
    optimizer = GD(0.1)
    pairs = [(_by_norm(g), v) for g, v in optimizer.compute_gradients(loss)]
    return tf.group(optimizer.apply_gradients(pairs), tf.compat.v1.assign_add(_step(), 1))


def _twice(loss):
    optimizer = GD(0.1)
    pairs = [(_by_norm(g), v) for g, v in optimizer.compute_gradients(loss)]
    return tf.group(
        optimizer.apply_gradients(pairs, global_step=_step()), tf.compat.v1.assign_add(_step(), 1)
    )


def _own_counter(loss):
    counter = tf.Variable(0, dtype=tf.int64, trainable=False, name="my_step")
    return _clipped(_by_norm, global_step=lambda: counter)(loss)


def _create_global_step(loss):
    return _clipped(_by_norm, global_step=tf.compat.v1.train.create_global_step)(loss)


def _no_op(loss):
    return tf.group(tf.compat.v1.assign_add(_step(), 1))


# --------------------------------------------------------------------------- exercise 1


@pytest.mark.parametrize(
    "train_op_for",
    [
        _clipped(_by_norm),
        _global_norm,
        _grouped_increment,
        _clipped(_by_norm, global_step=tf.compat.v1.train.get_or_create_global_step),
    ],
    ids=["clip_by_norm", "clip_by_global_norm", "assign_add grouped", "get_or_create"],
)
def test_exercise_1_right_answers_pass(capsys, train_op_for):
    checks.clipped_training_step(_with_train_op(train_op_for))
    assert capsys.readouterr().out.startswith("Correct: one run moves the global step from 0 to 1")


EXERCISE_1_WRONG = {
    "blank": (None, "`fixed_model_fn` is still None"),
    "not a function": ("model_fn", "should be a model_fn"),
    "the break-it minimize": (
        _with_train_op(lambda loss: GD(0.1).minimize(loss)),
        "leaves the global step at 0",
    ),
    "apply_gradients without the step": (
        _with_train_op(_clipped(_by_norm, global_step=lambda: None)),
        "does not know the global step",
    ),
    "its own counter": (_with_train_op(_own_counter), "leaves the global step at 0"),
    "create_global_step again": (_with_train_op(_create_global_step), "raised ValueError"),
    "advanced twice": (_with_train_op(_twice), "from 0 to 2"),
    "only counts": (_with_train_op(_no_op), "changed no weight"),
    "not clipped": (
        _with_train_op(lambda loss: GD(0.1).minimize(loss, global_step=_step())),
        "used the gradients as they are",
    ),
    "clipped by value": (
        _with_train_op(_clipped(lambda g: tf.clip_by_value(g, -1.0, 1.0))),
        "each gradient *value* was clipped",
    ),
    "Adam": (
        _with_train_op(_clipped(_by_norm, optimizer=lambda: tf.compat.v1.train.AdamOptimizer(0.1))),
        "which optimizer, which learning rate",
    ),
    "learning rate 1": (
        _with_train_op(_clipped(_by_norm, optimizer=lambda: GD(1.0))),
        "which optimizer, which learning rate",
    ),
    "clipped to 0.1": (
        _with_train_op(_clipped(lambda g: tf.clip_by_norm(g, 0.1))),
        "moved dense/kernel by only",
    ),
    "gradient ascent": (
        _with_train_op(_clipped(lambda g: -tf.clip_by_norm(g, 1.0))),
        "against its gradient",
    ),
    "a typo": (
        _with_train_op(
            lambda loss: tf.compat.v1.train.GradientDescentOptimiser(0.1).minimize(loss)
        ),
        "raised AttributeError",
    ),
    "no train_op": (
        variant(train=lambda mode, loss: tf.estimator.EstimatorSpec("eval", loss=loss)),
        "should return an EstimatorSpec with a train_op",
    ),
}


@pytest.mark.parametrize("name", sorted(EXERCISE_1_WRONG))
def test_exercise_1_wrong_answers_fail_and_say_why(name):
    answer, words = EXERCISE_1_WRONG[name]
    assert_names_the_mistake(
        failure(checks.clipped_training_step, answer),
        words,
        ("global_step=", "apply_gradients(", "clip_by_norm", "GradientDescentOptimizer"),
    )


def test_exercise_1_break_it_message_names_cause_and_section():
    with pytest.raises(CheckFailed) as caught:
        checks.clipped_training_step(_with_train_op(lambda loss: GD(0.1).minimize(loss)))
    assert str(caught.value) == (
        "one run of your train_op leaves the global step at 0, so Estimator never counts a step: "
        "the op that applies the gradients does not know the global step it should advance "
        "(section 'One forward pass, then three branches by `mode`', TRAIN)"
    )


# --------------------------------------------------------------------------- exercise 2


def _top(values=lambda top: top.values[:, 0], indices=lambda top: top.indices, of=tf.nn.softmax):
    def top_predictions(logits):
        top = tf.math.top_k(of(logits), k=2)
        return {"top_2": indices(top), "confidence": values(top)}
    return top_predictions


def _argsort(logits):
    probabilities = tf.nn.softmax(logits)
    return {"top_2": tf.argsort(probabilities, axis=1, direction="DESCENDING")[:, :2],
            "confidence": tf.reduce_max(probabilities, axis=1)}


@pytest.mark.parametrize("answer", [_top(), _argsort], ids=["top_k", "argsort"])
def test_exercise_2_right_answers_pass(capsys, answer):
    checks.top_predictions_per_example(answer)
    assert capsys.readouterr().out.startswith(
        "Correct: 'top_2' has shape (4, 2) and 'confidence' shape (4,)"
    )


def test_exercise_2_top_k_of_the_logits_passes(capsys):
    def top_predictions(logits):  # the order of the logits is the order of the probabilities
        probabilities = tf.nn.softmax(logits)
        return {
            "top_2": tf.math.top_k(logits, k=2).indices,
            "confidence": tf.reduce_max(probabilities, axis=1),
        }

    checks.top_predictions_per_example(top_predictions)
    assert "Correct" in capsys.readouterr().out


def _probabilities(logits):
    return tf.nn.softmax(logits)


EXERCISE_2_WRONG = {
    "blank": (None, "`top_predictions` is still None"),
    "not a function": ({"top_2": 0}, "should be a function of the logits"),
    "a tuple": (lambda logits: tf.math.top_k(logits, k=2), "return the predictions dict"),
    "other keys": (
        lambda logits: {"classes": tf.argmax(logits, 1)},
        "use exactly 'top_2' and 'confidence'",
    ),
    "a typo": (
        lambda logits: {"top_2": tf.math.topk(logits, k=2).indices},
        "raised AttributeError",
    ),
    "raises": (lambda logits: {"top_2": tf.math.top_k(logits, k=20).indices}, "raised"),
    "confidence over the whole batch": (
        _top(values=lambda top: tf.reduce_max(top.values)),
        "'confidence' has shape () for a batch of 4 (it reduced over the batch",
    ),
    "confidence over axis 0": (
        lambda logits: {
            "top_2": tf.math.top_k(logits, k=2).indices,
            "confidence": tf.reduce_max(_probabilities(logits), axis=0),
        },
        "'confidence' has shape (10,) for a batch of 4 (it reduced over the batch",
    ),
    "confidence of both": (_top(values=lambda top: top.values), "'confidence' has shape (4, 2)"),
    "argmax without axis": (
        lambda logits: {
            "top_2": tf.argmax(logits),
            "confidence": tf.reduce_max(_probabilities(logits), axis=1),
        },
        "'top_2' has shape (10,) for a batch of 4 (it reduced over the batch",
    ),
    "top_2 of probabilities' values": (_top(indices=lambda top: top.values), "class ids"),
    "least probable": (
        lambda logits: {
            "top_2": tf.argsort(logits, axis=1)[:, :2],
            "confidence": tf.reduce_max(_probabilities(logits), axis=1),
        },
        "the two *least* probable",
    ),
    "second first": (
        _top(indices=lambda top: tf.reverse(top.indices, axis=[1])),
        "in the wrong order",
    ),
    "confidence as a logit": (_top(of=lambda logits: logits), "highest *logit*"),
    "confidence of the runner-up": (
        _top(values=lambda top: top.values[:, 1]),
        "not the probability",
    ),
    "top_2 sorted by class id": (
        _top(indices=lambda top: tf.sort(top.indices, axis=1)),
        "not the two most probable classes",
    ),
}


@pytest.mark.parametrize("name", sorted(EXERCISE_2_WRONG))
def test_exercise_2_wrong_answers_fail_and_say_why(name):
    answer, words = EXERCISE_2_WRONG[name]
    assert_names_the_mistake(failure(checks.top_predictions_per_example, answer), words,
                             ("top_k", "argsort", "axis=1", "softmax"))


# --------------------------------------------------------------------------- exercise 3


def _mean_of_wrong(labels, classes):
    return {
        "error_rate": tf.compat.v1.metrics.mean(tf.cast(tf.not_equal(labels, classes), tf.float32))
    }


def _one_minus_accuracy(labels, classes):
    value, update_op = tf.compat.v1.metrics.accuracy(labels=labels, predictions=classes)
    return {"error_rate": (1.0 - value, update_op)}


@pytest.mark.parametrize(
    "answer", [_mean_of_wrong, _one_minus_accuracy], ids=["mean", "1 - accuracy"]
)
def test_exercise_3_right_answers_pass(capsys, answer):
    checks.error_rate_metric_ops(answer)
    assert capsys.readouterr().out.startswith(
        "Correct: after two batches (1 of 4 wrong, then 1 of 2)"
    )


def _batch_error(labels, classes):
    return tf.reduce_mean(tf.cast(tf.not_equal(labels, classes), tf.float32))


def _keras(labels, classes):
    metric = tf.keras.metrics.Mean()
    metric.update_state(tf.cast(tf.not_equal(labels, classes), tf.float32))
    return {"error_rate": metric}


def _last_batch(labels, classes):
    """A variable that keeps only the last batch: the update assigns instead of adding."""
    value = tf.Variable(0.0, trainable=False, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES])
    return {
        "error_rate": (
            tf.identity(value),
            tf.compat.v1.assign(value, _batch_error(labels, classes)),
        )
    }


def _first_batch(labels, classes):
    """The value reads a variable that only the first update sets."""
    value = tf.Variable(-1.0, trainable=False, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES])
    update = tf.compat.v1.assign(value, tf.where(value < 0, _batch_error(labels, classes), value))
    return {"error_rate": (tf.identity(value), update)}


EXERCISE_3_WRONG = {
    "blank": (None, "`error_rate_ops` is still None"),
    "not a function": (0.33, "should be a function of (labels, classes)"),
    "bare pair": (
        lambda labels, classes: tf.compat.v1.metrics.mean(_batch_error(labels, classes)),
        "returned a tuple: return a dict",
    ),
    "wrong key": (
        lambda labels, classes: {"error": _mean_of_wrong(labels, classes)["error_rate"]},
        "name the metric 'error_rate'",
    ),
    "keras": (_keras, "Keras Metric object"),
    "bare tensor": (
        lambda labels, classes: {"error_rate": _batch_error(labels, classes)},
        "not a (value, update_op) pair",
    ),
    "batch value": (
        lambda labels, classes: {"error_rate": (_batch_error(labels, classes), tf.no_op())},
        "needs the current batch",
    ),
    "mean of batch means": (
        lambda labels, classes: {
            "error_rate": tf.compat.v1.metrics.mean(_batch_error(labels, classes))
        },
        "the mean of the two batches' error rates",
    ),
    "last batch": (_last_batch, "the second batch alone"),
    "first batch": (_first_batch, "the first batch alone"),
    "accuracy": (
        lambda labels, classes: {"error_rate": tf.compat.v1.metrics.accuracy(labels, classes)},
        "the accuracy",
    ),
    "a typo (metric. for metrics.)": (
        lambda labels, classes: {
            "error_rate": tf.compat.v1.metric.mean(_batch_error(labels, classes))
        },
        "raised AttributeError",
    ),
    "count, not rate": (
        lambda labels, classes: {
            "error_rate": tf.compat.v1.metrics.true_positives(
                tf.not_equal(labels, classes), tf.not_equal(labels, classes)
            )
        },
        "is 2.0000",
    ),
}


@pytest.mark.parametrize("name", sorted(EXERCISE_3_WRONG))
def test_exercise_3_wrong_answers_fail_and_say_why(name):
    answer, words = EXERCISE_3_WRONG[name]
    assert_names_the_mistake(failure(checks.error_rate_metric_ops, answer), words,
                             ("metrics.mean", "not_equal", "1 - ", "1.0 -"))


def test_the_banks_are_counted():
    """The closing note of notebook 03 counts these banks: keep it in step."""
    assert (len(EXERCISE_1_WRONG), len(EXERCISE_2_WRONG), len(EXERCISE_3_WRONG)) == (16, 16, 13)
