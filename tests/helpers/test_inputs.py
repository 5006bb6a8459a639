"""helpers.inputs reads exactly the verified arrays, in the order and batches the input functions
promise.

Uses the real MNIST files (from WORKBOOK_DATASETS or the cache), read once.
"""

import numpy as np
import pytest
import tensorflow as tf

from helpers import data, inputs


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


def test_the_defaults_are_mnist_its_training_split_and_the_course_batch_sizes(mnist):
    image, label = next(inputs.image_dataset().as_numpy_iterator())
    np.testing.assert_allclose(image, mnist.train_images[0] / 255.0, rtol=1e-6)
    assert label == mnist.train_labels[0]
    assert next(iter(inputs.make_train_input_fn()()))[1].shape == (100,)
    assert next(iter(inputs.make_eval_input_fn()()))[1].shape == (500,)
    assert next(iter(inputs.make_predict_input_fn()()))["image"].shape == (500, 28, 28)


def test_an_unknown_split_is_named_with_the_two_there_are():
    with pytest.raises(ValueError, match="split must be 'train' or 'test', not 'validation'"):
        inputs.image_dataset("mnist", "validation")
