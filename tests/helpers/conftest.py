"""Fixtures the tests of several helpers modules share.

``trained_cnn``: the course CNN, made tiny (2 and 2 filters, 4 dense units), trained for one
step on random images in a temporary folder, once a session: a real model to export and
load (``helpers.export``, notebook 08's checks) in a few seconds.
"""

import numpy as np
import pytest
import tensorflow as tf

from helpers import models

TINY_CNN = {"filters": (2, 2), "dense_units": 4}


@pytest.fixture(scope="session")
def trained_cnn(tmp_path_factory) -> tf.estimator.Estimator:
    rng = np.random.default_rng(0)
    images = rng.random((8, 28, 28), dtype=np.float32)
    labels = rng.integers(0, 10, 8).astype(np.int32)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"image": images}, labels)).batch(4)

    model_dir = tmp_path_factory.mktemp("trained_cnn")
    estimator = tf.estimator.Estimator(
        models.cnn_model_fn,
        model_dir=str(model_dir),
        params=TINY_CNN,
        config=tf.estimator.RunConfig(tf_random_seed=1),
    )
    estimator.train(input_fn, steps=1)
    return estimator
