"""helpers.inputs reads exactly the verified arrays; helpers.model_dirs lists what Estimator wrote.

Uses the real MNIST files (from WORKBOOK_DATASETS or the cache), read once.
"""

import numpy as np
import pytest
import tensorflow as tf

from helpers import data, inputs, model_dirs, models, settings


@pytest.fixture(scope="module")
def mnist():
    return data.load("mnist")


def test_image_dataset_matches_the_loader(mnist):
    first = list(inputs.image_dataset("mnist", "test").take(3).as_numpy_iterator())
    for index, (image, label) in enumerate(first):
        assert image.dtype == np.float32 and image.shape == (28, 28)
        np.testing.assert_allclose(image, mnist.test_images[index] / 255.0, rtol=1e-6)
        assert label == mnist.test_labels[index]


def test_train_input_fn_structure():
    features, labels = next(iter(inputs.make_train_input_fn(batch_size=32)()))
    assert set(features) == {"image"}
    assert features["image"].shape == (32, 28, 28) and features["image"].dtype == tf.float32
    assert labels.shape == (32,) and labels.dtype == tf.int32


def test_eval_input_fn_is_one_ordered_pass(mnist):
    batches = list(inputs.make_eval_input_fn(batch_size=400, count=1000)())
    assert [int(labels.shape[0]) for _, labels in batches] == [400, 400, 200]
    labels = np.concatenate([labels.numpy() for _, labels in batches])
    np.testing.assert_array_equal(labels, mnist.test_labels[:1000])


def test_eval_input_fn_after_a_skip_is_the_rest_in_order(mnist):
    """Notebook 07's held-out images: the test set after the ones the hook watched."""
    batches = list(inputs.make_eval_input_fn(batch_size=500, skip=9_000)())
    labels = np.concatenate([labels.numpy() for _, labels in batches])
    np.testing.assert_array_equal(labels, mnist.test_labels[9_000:])


def test_predict_input_fn_has_features_only():
    batch = next(iter(inputs.make_predict_input_fn(batch_size=8, count=8)()))
    assert isinstance(batch, dict) and set(batch) == {"image"}


def test_image_dataset_rejects_an_unknown_split():
    with pytest.raises(ValueError, match="split"):
        inputs.image_dataset("mnist", "validation")


def test_model_dir_listing_after_a_short_training(tmp_path):
    model_dir = str(tmp_path / "model")
    estimator = tf.estimator.Estimator(
        models.cnn_model_fn, model_dir=model_dir,
        params={"filters": (4, 4), "dense_units": 8},
        config=tf.estimator.RunConfig(tf_random_seed=settings.SEED, save_checkpoints_steps=2,
                                      keep_checkpoint_max=2),
    )
    estimator.train(inputs.make_train_input_fn(batch_size=8), steps=5)
    assert model_dirs.checkpoint_steps(model_dir) == [4, 5]
    table = model_dirs.listing(model_dir)
    patterns = set(table["pattern"])
    assert {"checkpoint", "graph.pbtxt", "model.ckpt-<step>.index", "model.ckpt-<step>.meta",
            "model.ckpt-<step>.data-00000-of-00001", "events.out.tfevents.<time>.<host>"} <= patterns
    assert "other" not in set(table["kind"])
    assert model_dirs.size_bytes(model_dir) == table["bytes"].sum() > 0


def test_checkpoint_steps_of_an_empty_dir(tmp_path):
    assert model_dirs.checkpoint_steps(tmp_path) == []


@pytest.mark.parametrize("name, pattern", [
    ("model.ckpt-1200.index", "model.ckpt-<step>.index"),
    ("eval/events.out.tfevents.1796225224.vm", "eval/events.out.tfevents.<time>.<host>"),
    ("graph.pbtxt", "graph.pbtxt"),
])
def test_normalise(name, pattern):
    assert model_dirs.normalise(name) == pattern
