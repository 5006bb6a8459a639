"""Unit tests for the exercise checks of notebook 02 (``helpers/checks/notebook02.py``).

Every message of every check is reached once: the blank answer of the student
copy, each wrong answer the checks recognise, and the success line. The input
functions under test build tiny datasets in memory (no files, no training).
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from helpers import checks
from helpers.problems import CheckFailed


def fails(check, answer, *words, **kwargs):
    """Assert that ``check(answer)`` raises CheckFailed with one line containing every word."""
    with pytest.raises(CheckFailed) as caught:
        check(answer, **kwargs)
    message = str(caught.value)
    assert "\n" not in message
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    return message


# --- exercise 1: steps in one epoch ---------------------------------------------


def test_steps_blank():
    fails(checks.steps_in_one_epoch, None, "`steps_in_one_epoch` is still None", "# YOUR CODE HERE")


@pytest.mark.parametrize("answer", ["469", [469], True])
def test_steps_not_a_number(answer):
    fails(checks.steps_in_one_epoch, answer, "should be a number")


def test_steps_fraction():
    fails(checks.steps_in_one_epoch, 60000 / 128, "468.75", "round up")


def test_steps_rounded_down():
    fails(checks.steps_in_one_epoch, 468, "last, shorter batch of 96 examples", "drop_remainder")


def test_steps_examples():
    fails(checks.steps_in_one_epoch, 60000, "number of examples", "batch of 128")


def test_steps_other():
    fails(checks.steps_in_one_epoch, 600, "600 is not it", "round up")


@pytest.mark.parametrize("answer", [469, 469.0, np.int64(469)])
def test_steps_correct(answer, capsys):
    checks.steps_in_one_epoch(answer)
    assert capsys.readouterr().out == "Correct: 60000 examples in batches of 128 make 469 steps, the last one with 96 examples\n"


def test_steps_correct_without_remainder(capsys):
    checks.steps_in_one_epoch(600, examples=60000, batch_size=100)
    assert capsys.readouterr().out == "Correct: 60000 examples in batches of 100 make 600 steps\n"


def test_steps_floor_equals_ceil_is_not_a_trap():
    fails(checks.steps_in_one_epoch, 601, "601 is not it", examples=60000, batch_size=100)


# --- exercises 2 and 3: input functions ------------------------------------------

IMAGES = np.linspace(0, 1, 6 * 28 * 28, dtype=np.float32).reshape(6, 28, 28)
LABELS = np.array([3, 1, 4, 1, 5, 9], dtype=np.int32)


def pipeline(images=IMAGES, labels=LABELS, batch=4, features=lambda image: {"image": image}):
    """An input_fn over a tiny in-memory dataset: (features(image), label), batched."""

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices((images, labels))
        dataset = dataset.map(lambda image, label: (features(image), label))
        return dataset.batch(batch) if batch else dataset

    return input_fn


@pytest.mark.parametrize("check,name", [(checks.dict_input_fn, "dict_input_fn"),
                                        (checks.int_labels_input_fn, "int_labels_input_fn")])
def test_input_fn_blank(check, name):
    fails(check, None, f"`{name}` is still None")


def test_input_fn_correct(capsys):
    checks.dict_input_fn(pipeline())
    assert capsys.readouterr().out == (
        "Correct: `dict_input_fn()` yields batches of 4 (features, labels): features['image'] "
        "float32 [batch, 28, 28] in 0–1 and int32 class ids, what cnn_model_fn reads\n"
    )


def test_int64_labels_are_fine(capsys):
    checks.int_labels_input_fn(pipeline(labels=LABELS.astype(np.int64)))
    assert "Correct: `int_labels_input_fn()`" in capsys.readouterr().out


def test_input_fn_given_a_dataset():
    fails(checks.dict_input_fn, pipeline()(), "is a Dataset", "give the function")


def test_input_fn_not_callable():
    fails(checks.dict_input_fn, 42, "should be a function", "not int")


def test_input_fn_raises():
    def broken():
        raise RuntimeError("no such file\nsecond line")

    fails(checks.dict_input_fn, broken, "calling `dict_input_fn()` raised RuntimeError: no such file")


def test_input_fn_returns_no_dataset():
    fails(checks.dict_input_fn, lambda: (IMAGES, LABELS), "returned a tuple", "tf.data.Dataset")


def test_input_fn_dict_only():
    def dict_only():
        return tf.data.Dataset.from_tensor_slices({"image": IMAGES, "label": LABELS}).batch(4)

    fails(checks.dict_input_fn, dict_only, "dict only", "(features, labels) pairs")


def test_input_fn_not_a_pair():
    def triple():
        return tf.data.Dataset.from_tensor_slices(({"image": IMAGES}, LABELS, LABELS)).batch(4)

    fails(checks.dict_input_fn, triple, "should be a pair (features, labels)")


def test_input_fn_bare_tensor():
    fails(checks.dict_input_fn, pipeline(features=lambda image: image), "bare tensor", "features['image']", "(section 'What an input function returns')")


def test_input_fn_features_not_a_dict():
    fails(checks.dict_input_fn, pipeline(features=lambda image: (image, image)), "should be a dict")


def test_input_fn_wrong_key():
    fails(checks.dict_input_fn, pipeline(features=lambda image: {"x": image}), "keys ['x']", "features['image']")


def test_input_fn_image_not_one_tensor():
    fails(checks.dict_input_fn, pipeline(features=lambda image: {"image": {"pixels": image}}), "should be one tensor")


def test_input_fn_uint8_images():
    fails(checks.dict_input_fn, pipeline(images=(IMAGES * 255).astype(np.uint8)), "is uint8", "float32")


def test_input_fn_unbatched():
    fails(checks.dict_input_fn, pipeline(batch=0), "single images of shape (28, 28)", ".batch(100)")


def test_input_fn_flat_images():
    fails(checks.dict_input_fn, pipeline(images=IMAGES.reshape(6, 784)), "shape (None, 784)", "[batch, 28, 28]")


def test_input_fn_labels_not_one_tensor():
    fails(checks.int_labels_input_fn, pipeline(labels={"label": LABELS}), "one tensor of class ids")


def test_input_fn_one_hot_labels():
    one_hot = np.eye(10, dtype=np.float32)[LABELS]
    fails(checks.int_labels_input_fn, pipeline(labels=one_hot), "one-hot, shape (None, 10) float32",
                 "one integer class id per image", "(section 'What an input function returns')")


def test_input_fn_float_labels():
    fails(checks.int_labels_input_fn, pipeline(labels=LABELS.astype(np.float32)), "labels are float32", "tf.int32")


def test_input_fn_label_matrix():
    fails(checks.int_labels_input_fn, pipeline(labels=LABELS.reshape(6, 1)), "shape (None, 1)", "shape [batch]")


def test_input_fn_empty():
    fails(checks.dict_input_fn, lambda: pipeline()().take(0), "empty dataset")


def test_input_fn_fails_while_reading():
    def bad_map():
        def fail(features, label):
            with tf.control_dependencies([tf.debugging.assert_less(features["image"], -1.0, message="boom")]):
                return {"image": tf.identity(features["image"])}, label

        return pipeline()().map(fail)

    fails(checks.dict_input_fn, bad_map, "reading the first batch", "InvalidArgumentError")


def test_input_fn_unscaled_pixels():
    fails(checks.dict_input_fn, pipeline(images=IMAGES * 255, batch=6), "go up to 255", "divide by 255")


def test_input_fn_negative_pixels():
    fails(checks.dict_input_fn, pipeline(images=IMAGES - 0.5), "negative (-0.50)")


def test_input_fn_labels_out_of_range():
    fails(checks.int_labels_input_fn, pipeline(labels=LABELS + 1, batch=6), "from 2 to 10", "0 to 9")


def test_input_fn_counts_differ():
    def uneven():
        images = tf.data.Dataset.from_tensor_slices(IMAGES).batch(4)
        labels = tf.data.Dataset.from_tensor_slices(LABELS).batch(3)
        return tf.data.Dataset.zip(({"image": images}, labels))

    fails(checks.dict_input_fn, uneven, "4 images but 3 labels")
