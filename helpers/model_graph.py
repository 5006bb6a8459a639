"""A ``model_fn``'s graph, built as Estimator builds it: a fresh graph with a global step and the
course's seeds, the keyword arguments Estimator passes, placeholders or a tiny batch like the
course's input (used by the model_fn checker, the tensor-name checks, checkpoints, early stopping
and notebooks 04-05).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator
from unittest import mock

import numpy as np
import tensorflow as tf
from tensorflow.python.util import function_utils

from .settings import SEED

ModeKeys = tf.estimator.ModeKeys


class _IntegerSeeds(random.Random):
    """Keras asks for ``randint(1, 1e9)``; Python 3.11 deprecates the float bound."""

    def randint(self, a, b):
        return super().randint(int(a), int(b))


@contextlib.contextmanager
def estimator_graph() -> Iterator[tf.Graph]:
    """A fresh default graph with a global step and the course's seeds, as Estimator builds one.

    Keras layers built in it get seeds from their own generator: the same weights on every run,
    the learner's random streams untouched.
    """
    from keras.src import backend as keras_backend  # the Keras 2.15 that TensorFlow 2.15 uses

    seeds = mock.patch.object(
        keras_backend._SEED_GENERATOR, "generator", _IntegerSeeds(SEED), create=True
    )
    with seeds, tf.Graph().as_default() as graph:
        tf.compat.v1.set_random_seed(SEED)
        tf.compat.v1.train.get_or_create_global_step()
        yield graph


def call_like_estimator(
    model_fn: Callable, features, labels, mode: str, params: dict | None
) -> object:
    """Call ``model_fn`` with the keyword arguments an Estimator would pass it."""
    args = function_utils.fn_args(model_fn)
    config = tf.estimator.RunConfig(tf_random_seed=SEED) if "config" in args else None
    given = {"labels": labels, "mode": mode, "params": dict(params or {}), "config": config}
    return model_fn(
        features=features, **{name: value for name, value in given.items() if name in args}
    )


def _placeholders(like):
    """A placeholder for each ``tf.TensorSpec`` (or tensor) in ``like``, named as the spec is."""
    return tf.nest.map_structure(
        lambda x: tf.compat.v1.placeholder(
            x.dtype, x.shape, name=x.name if isinstance(x, tf.TensorSpec) else None
        ),
        like,
    )


def build_graph(
    model_fn: Callable,
    params: dict | None = None,
    mode: str = ModeKeys.TRAIN,
    features_like=None,
    labels_like=None,
) -> tf.Graph:
    """The graph ``model_fn`` builds in ``mode`` (nothing runs).

    The inputs are placeholders like the course's input, or like ``features_like`` /
    ``labels_like``; labels are None in PREDICT, as Estimator passes them.
    """
    if features_like is None:
        features_like = {"image": tf.TensorSpec([None, 28, 28], tf.float32, name="image")}
        labels_like = tf.TensorSpec([None], tf.int32, name="labels")
    with estimator_graph() as graph:
        features = _placeholders(features_like)
        without_labels = mode == ModeKeys.PREDICT or labels_like is None
        labels = None if without_labels else _placeholders(labels_like)
        call_like_estimator(model_fn, features, labels, mode, params)
    return graph


def tiny_batch(batch_size: int = 4, with_labels: bool = True) -> tuple[dict, tf.Tensor | None]:
    """Features (uniform noise) and labels as the course's input functions deliver them.

    Both are placeholders with a default value, so the batch size is unknown to the graph.
    """
    random_state = np.random.RandomState(SEED)
    images = random_state.uniform(0.0, 1.0, size=(batch_size, 28, 28)).astype(np.float32)
    image = tf.compat.v1.placeholder_with_default(images, [None, 28, 28], name="image")
    if not with_labels:
        return {"image": image}, None
    ids = (np.arange(batch_size) % 10).astype(np.int32)
    return {"image": image}, tf.compat.v1.placeholder_with_default(ids, [None], name="labels")
