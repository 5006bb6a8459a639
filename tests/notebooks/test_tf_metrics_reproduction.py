"""Notebook 06's reproduction of ``tf_metrics`` (guillaumegenthial/tf_metrics, not on PyPI) against
scikit-learn: precision, recall and F1, for each ``average`` (its default is ``'micro'``) and with
``pos_indices`` (the classes counted; default all), accumulated over several batches as
``evaluate()`` does. The class is read from the notebook's cell, so the test follows the lesson."""

import numpy as np
import pytest
import tensorflow as tf
from sklearn.metrics import precision_recall_fscore_support

from tools.notebook_code import definitions

NOTEBOOK = "06_metrics_and_tensorboard.ipynb"
NUM_CLASSES = 6


@pytest.fixture(scope="module")
def tf_metrics():
    return definitions(NOTEBOOK, names=("tf_metrics",))["tf_metrics"]


def _data(seed: int):
    """50 labels of six classes and predictions 60 % right; class 5 is never predicted."""
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, NUM_CLASSES, 50)
    predictions = np.where(rng.rand(50) < 0.6, labels, rng.randint(0, NUM_CLASSES - 1, 50))
    predictions[predictions == NUM_CLASSES - 1] = 0
    return labels, predictions


def _run(tf_metrics, labels, predictions, **kwargs):
    """precision, recall, f1 of the reproduction after two batches."""
    with tf.Graph().as_default():
        y = tf.compat.v1.placeholder(tf.int64, [None])
        p = tf.compat.v1.placeholder(tf.int64, [None])
        pairs = [
            getattr(tf_metrics, name)(y, p, NUM_CLASSES, **kwargs)
            for name in ("precision", "recall", "f1")
        ]
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.local_variables_initializer())
            for batch in (slice(0, 20), slice(20, None)):
                session.run(
                    [update for _, update in pairs], {y: labels[batch], p: predictions[batch]}
                )
            return np.array(session.run([value for value, _ in pairs]))


@pytest.mark.parametrize("average", ["micro", "macro", "weighted"])
@pytest.mark.parametrize(
    "pos_indices", [None, [1, 2, 3], [5]], ids=["all", "1-3", "never predicted"]
)
@pytest.mark.parametrize("seed", [0, 1])
def test_equals_scikit_learn(tf_metrics, average, pos_indices, seed):
    labels, predictions = _data(seed)
    classes = list(range(NUM_CLASSES)) if pos_indices is None else pos_indices
    expected = precision_recall_fscore_support(
        labels, predictions, labels=classes, average=average, zero_division=0
    )[:3]
    assert _run(
        tf_metrics, labels, predictions, pos_indices=pos_indices, average=average
    ) == pytest.approx(expected, abs=1e-9)


def test_default_average_is_micro_which_is_the_accuracy(tf_metrics):
    labels, predictions = _data(0)
    found = _run(tf_metrics, labels, predictions)
    assert found == pytest.approx([np.mean(labels == predictions)] * 3, abs=1e-9)
    macro = _run(tf_metrics, labels, predictions, average="macro")
    assert abs(macro[0] - found[0]) > 0.01  # the default is not the macro average


def test_update_op_returns_the_value_so_far(tf_metrics):
    labels, predictions = _data(1)
    with tf.Graph().as_default():
        value, update = tf_metrics.precision(
            tf.constant(labels), tf.constant(predictions), NUM_CLASSES, average="macro"
        )
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.local_variables_initializer())
            returned = session.run(update)
            assert returned == pytest.approx(session.run(value))


def test_weights_mask_examples(tf_metrics):
    labels, predictions = _data(0)
    mask = (np.arange(50) % 2).astype(np.float64)
    with tf.Graph().as_default():
        value, update = tf_metrics.recall(
            tf.constant(labels),
            tf.constant(predictions),
            NUM_CLASSES,
            weights=tf.constant(mask),
            average="macro",
        )
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.local_variables_initializer())
            session.run(update)
            found = session.run(value)
    kept = mask == 1
    assert found == pytest.approx(
        precision_recall_fscore_support(
            labels[kept],
            predictions[kept],
            labels=range(NUM_CLASSES),
            average="macro",
            zero_division=0,
        )[1]
    )
