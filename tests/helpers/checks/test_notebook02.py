"""Unit tests for the exercise checks of notebook 02 (``helpers/checks/notebook02.py``).

Every message of every check is reached once: the blank answer of the student
copy, each wrong answer the checks recognise, and the success line. The input
functions under test build tiny datasets in memory (no files, no training).
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from helpers.checks import notebook02 as checks
from helpers.data import Arrays
from tests.support.checks import failure, notebook_headings


def fails(check, answer, *words, **kwargs):
    """Assert that ``check(answer)`` raises CheckFailed with one line containing every word."""
    message = failure(check, answer, **kwargs)
    assert "\n" not in message
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    return message


# --- exercise 1: steps for three epochs, repeated before batching --------------------


def test_steps_blank():
    fails(
        checks.steps_for_epochs, None, "`steps_for_three_epochs` is still None", "# YOUR CODE HERE"
    )


@pytest.mark.parametrize("answer", ["704", [704], True])
def test_steps_not_a_number(answer):
    fails(checks.steps_for_epochs, answer, "should be a number")


# The bank of plausible wrong answers for 3 epochs of 60,000 in batches of 256 (right: 704).
@pytest.mark.parametrize(
    "answer, words",
    [
        (180000 / 256, ("703.125", "round up")),
        (705, ("short batch at the end of every epoch", "batch-then-repeat", "section '`repeat`'")),
        (703, ("leaves out the last, shorter batch", "drop_remainder")),
        (235, ("about one epoch", "3 times")),
        (234, ("about one epoch",)),
        (180000, ("number of examples", "batch of 256")),
        (60000, ("number of examples",)),
        (469 * 3, ("1407 is not it", "count the examples all the epochs hold together")),
    ],
)
def test_steps_wrong_answers_are_named(answer, words):
    message = fails(checks.steps_for_epochs, answer, *words)
    assert "ceil" not in message and "704" not in message  # the cause, not the answer


@pytest.mark.parametrize("answer", [704, 704.0, np.int64(704)])
def test_steps_correct(answer, capsys):
    checks.steps_for_epochs(answer)
    assert capsys.readouterr().out == (
        "Correct: 3 × 60000 examples, repeated and then batched by 256, make 704 "
        "steps; only the very last batch is short (32 examples)\n"
    )


def test_steps_correct_without_remainder(capsys):
    checks.steps_for_epochs(1800, examples=60000, batch_size=100, epochs=3)
    assert (
        capsys.readouterr().out
        == "Correct: 3 × 60000 examples, repeated and then batched by 100, make 1800 steps\n"
    )


# --- exercises 2 and 3: input functions ------------------------------------------

IMAGES = np.linspace(0, 1, 6 * 28 * 28, dtype=np.float32).reshape(6, 28, 28)
LABELS = np.array([3, 1, 4, 1, 5, 9], dtype=np.int32)
# What the exercise-2 check compares with: the tiny test split is IMAGES/LABELS, in this order.
TEST = Arrays("Tiny-Fashion", IMAGES, LABELS[::-1].copy(), IMAGES, LABELS, tuple("abcdefghij"))
OTHER = Arrays(
    "Tiny-MNIST",
    IMAGES,
    LABELS,
    IMAGES,
    np.array([7, 7, 2, 2, 0, 0], dtype=np.int32),
    tuple("0123456789"),
)


def pipeline(
    images=IMAGES, labels=LABELS, batch=4, features=lambda image: {"image": image}, then=None
):
    """An input_fn over a tiny in-memory dataset:
    (features(image), label), batched, then ``then``."""

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices((images, labels))
        dataset = dataset.map(lambda image, label: (features(image), label))
        dataset = dataset.batch(batch) if batch else dataset
        return then(dataset) if then else dataset

    return input_fn


def check(answer):
    """Exercise 2's check on the tiny datasets, in batches of 4."""
    checks.eval_input_fn(answer, TEST, OTHER, batch_size=4)


def check3(answer):
    """Exercise 3's check against the one-hot version of ``pipeline()``."""
    checks.class_id_input_fn(answer, ONE_HOT)


def one_hot_input_fn():
    """The notebook's ``one_hot_input_fn`` on the tiny dataset: ``pipeline()`` with one-hot labels
    (a function of its own: the check watches for a call of its code, which every ``pipeline``
    closure shares)."""
    return pipeline()().map(lambda f, label: (f, tf.one_hot(label, 10)))


ONE_HOT = one_hot_input_fn


@pytest.mark.parametrize(
    "check_fn,name", [(check, "fashion_eval_input_fn"), (check3, "class_id_input_fn")]
)
def test_input_fn_blank(check_fn, name):
    fails(check_fn, None, f"`{name}` is still None")


def test_eval_input_fn_correct(capsys):
    check(pipeline())
    assert capsys.readouterr().out == (
        "Correct: 2 batches of 4 (the last of 2), every test image once and in "
        "order: evaluate() returns after one pass\n"
    )


def test_eval_input_fn_white_pixel_is_fine(capsys):
    check(pipeline(images=IMAGES[::-1].copy()))  # the first batch holds a pixel of exactly 1.0
    assert capsys.readouterr().out.startswith("Correct: 2 batches of 4")


def test_eval_input_fn_asks_for_the_exercise_batches():
    """Notebook 02 calls the check without batch_size: the exercise's 300 is the default."""
    fails(
        checks.eval_input_fn,
        pipeline(),
        "first batch holds 4 images",
        "batches of 300",
        dataset=TEST,
        other=OTHER,
    )


# The bank of plausible wrong answers to exercise 2, beyond the shape mistakes below.
@pytest.mark.parametrize(
    "answer, words",
    [
        (
            pipeline(then=lambda d: d.repeat()),
            ("more than the 6 test images", "it repeats", "one pass"),
        ),
        (pipeline(labels=LABELS[::-1].copy(), then=lambda d: d.repeat()), ("the training split",)),
        (pipeline(batch=3), ("first batch holds 3 images", "batches of 4")),
        (
            lambda: pipeline(batch=0)().batch(4, drop_remainder=True),
            ("yields 4 of the 6 test images", "drop_remainder"),
        ),
        (
            pipeline(labels=OTHER.test_labels),
            ("labels of Tiny-MNIST's test split", "read Tiny-Fashion's"),
        ),
        (
            pipeline(labels=np.array([1, 1, 3, 4, 5, 9], dtype=np.int32)),
            ("another order", "does not shuffle"),
        ),
        (
            pipeline(labels=LABELS + 0 * LABELS - np.array([0, 0, 0, 0, 0, 1], dtype=np.int32)),
            ("not those of Tiny-Fashion's test split",),
        ),
        (pipeline(images=IMAGES * 255), ("go up to 170", "between 0 and 1")),
        # divided by 127.5, half of the recipe for [-1, 1]: a white pixel is 2
        (pipeline(images=(IMAGES[::-1] * 255).round() / 127.5), ("go up to 2", "between 0 and 1")),
        # a channel axis added, as Keras tutorials do, and no batch
        (
            pipeline(batch=0, features=lambda image: {"image": tf.expand_dims(image, -1)}),
            ("features['image'] has shape (28, 28, 1)", "[batch, 28, 28]"),
        ),
        (pipeline(labels=np.eye(10, dtype=np.float32)[LABELS]), ("one-hot",)),
        (pipeline(features=lambda image: image), ("bare tensor",)),
        (pipeline()(), ("is a Dataset", "give the function")),
    ],
)
def test_eval_input_fn_wrong_answers_are_named(answer, words):
    fails(check, answer, *words)


def test_class_id_input_fn_correct(capsys):
    check3(lambda: ONE_HOT().map(lambda f, one_hot: (f, tf.argmax(one_hot, axis=1))))
    assert capsys.readouterr().out == (
        "Correct: `class_id_input_fn()` yields the same batches with int64 class "
        "ids, shape [batch]: what the model's loss reads\n"
    )


def test_class_id_input_fn_int32_is_fine(capsys):
    check3(lambda: ONE_HOT().map(lambda f, one_hot: (f, tf.cast(tf.argmax(one_hot, -1), tf.int32))))
    assert "int32 class ids" in capsys.readouterr().out


def test_class_id_input_fn_batches_of_ten_are_fine(capsys):
    """Labels of shape [10] are the axis-0 mistake only when the batch is not itself 10 images."""

    def one_hot_tens():
        return (
            pipeline(
                images=np.concatenate([IMAGES, IMAGES]),
                labels=np.concatenate([LABELS, LABELS]),
                batch=0,
            )()
            .batch(10, drop_remainder=True)
            .map(lambda f, label: (f, tf.one_hot(label, 10)))
        )

    checks.class_id_input_fn(
        lambda: one_hot_tens().map(lambda f, one_hot: (f, tf.argmax(one_hot, axis=1))), one_hot_tens
    )
    assert capsys.readouterr().out.startswith("Correct")


# The bank of plausible wrong answers to exercise 3.
@pytest.mark.parametrize(
    "answer, words",
    [
        (ONE_HOT, ("one-hot", "one integer class id per image")),
        (
            lambda: ONE_HOT().map(lambda f, one_hot: (f, tf.argmax(one_hot))),
            ("reduced over the batch", "axis 0"),
        ),
        (
            lambda: ONE_HOT().map(lambda f, one_hot: (f, tf.reduce_max(one_hot, axis=1))),
            ("labels are float32",),
        ),
        (lambda: ONE_HOT().map(lambda f, one_hot: (f, tf.cast(one_hot, tf.int32))), ("one-hot",)),
        (
            lambda: ONE_HOT().map(lambda f, one_hot: (f, tf.argmin(one_hot, axis=1))),
            ("not the classes of one_hot_input_fn()'s first batch",),
        ),
        (
            lambda: ONE_HOT().map(lambda f, one_hot: (f, tf.reverse(tf.argmax(one_hot, 1), [0]))),
            ("not the classes of one_hot_input_fn()'s first batch",),
        ),
        # reads the data again instead of converting one_hot_input_fn()'s batches
        (
            pipeline(labels=LABELS[::-1].copy()),
            ("never calls one_hot_input_fn()", "one-hot label turned back into its class id"),
        ),
        # calls one_hot_input_fn() for show, then returns the data read again, converted
        (
            lambda: (ONE_HOT(), pipeline()().map(lambda f, label: (f, tf.cast(label, tf.int64))))[
                1
            ],
            ("calls one_hot_input_fn() but its labels do not come from it",),
        ),
        (
            lambda: ONE_HOT().unbatch().batch(2).map(lambda f, h: (f, tf.argmax(h, axis=1))),
            ("holds 2 labels",),
        ),
        (
            lambda: ONE_HOT().map(lambda f, one_hot: (f["image"], tf.argmax(one_hot, axis=1))),
            ("bare tensor",),
        ),
        (ONE_HOT(), ("is a Dataset",)),
    ],
)
def test_class_id_input_fn_wrong_answers_are_named(answer, words):
    message = fails(check3, answer, *words)
    assert "argmax(" not in message  # the cause, not the code


def test_input_fn_given_a_dataset():
    fails(check, pipeline()(), "is a Dataset", "give the function")


def test_input_fn_not_callable():
    fails(check, 42, "should be a function", "not int")


def test_input_fn_raises():
    def broken():
        raise RuntimeError("no such file\nsecond line")

    fails(check, broken, "calling `fashion_eval_input_fn()` raised RuntimeError: no such file")


def test_input_fn_returns_no_dataset():
    fails(check, lambda: (IMAGES, LABELS), "returned a tuple", "tf.data.Dataset")


def test_input_fn_dict_only():
    def dict_only():
        return tf.data.Dataset.from_tensor_slices({"image": IMAGES, "label": LABELS}).batch(4)

    fails(check, dict_only, "dict only", "(features, labels) pairs")


def test_input_fn_not_a_pair():
    def triple():
        return tf.data.Dataset.from_tensor_slices(({"image": IMAGES}, LABELS, LABELS)).batch(4)

    fails(check, triple, "should be a pair (features, labels)")


def test_input_fn_bare_tensor():
    fails(
        check,
        pipeline(features=lambda image: image),
        "bare tensor",
        "features['image']",
        "(section 'What an input function returns')",
    )


def test_input_fn_features_not_a_dict():
    fails(check, pipeline(features=lambda image: (image, image)), "should be a dict")


def test_input_fn_wrong_key():
    fails(check, pipeline(features=lambda image: {"x": image}), "keys ['x']", "features['image']")


def test_input_fn_image_not_one_tensor():
    fails(
        check, pipeline(features=lambda image: {"image": {"pixels": image}}), "should be one tensor"
    )


def test_input_fn_uint8_images():
    fails(check, pipeline(images=(IMAGES * 255).astype(np.uint8)), "is uint8", "float32")


def test_input_fn_unbatched():
    fails(check, pipeline(batch=0), "single images of shape (28, 28)", ".batch(100)")


def test_input_fn_flat_images():
    fails(check, pipeline(images=IMAGES.reshape(6, 784)), "shape (None, 784)", "[batch, 28, 28]")


def test_input_fn_labels_not_one_tensor():
    fails(check, pipeline(labels={"label": LABELS}), "one tensor of class ids")


def test_input_fn_one_hot_labels():
    one_hot = np.eye(10, dtype=np.float32)[LABELS]
    fails(
        check,
        pipeline(labels=one_hot),
        "one-hot, shape (None, 10) float32",
        "one integer class id per image",
        "(section 'What an input function returns')",
    )


def test_input_fn_float_labels():
    fails(check, pipeline(labels=LABELS.astype(np.float32)), "labels are float32", "tf.int32")


def test_input_fn_label_matrix():
    fails(check, pipeline(labels=LABELS.reshape(6, 1)), "shape (None, 1)", "shape [batch]")


def test_input_fn_empty():
    fails(check, lambda: pipeline()().take(0), "empty dataset")


def test_input_fn_fails_while_reading():
    def bad_map():
        def fail(features, label):
            with tf.control_dependencies(
                [tf.debugging.assert_less(features["image"], -1.0, message="boom")]
            ):
                return {"image": tf.identity(features["image"])}, label

        return pipeline()().map(fail)

    fails(check, bad_map, "reading the batches", "InvalidArgumentError")


def test_input_fn_unscaled_pixels():
    fails(check, pipeline(images=IMAGES * 255), "go up to 170", "between 0 and 1")


def test_input_fn_pixels_over_one_are_said_as_they_are():
    # the first batch scaled to [0, 1.5]: "go up to 2" (rounded) would contradict "between 0
    # and 1" for pixels between 1 and 2, so the message gives the real highest one
    fails(check, pipeline(images=IMAGES * 2.25), "go up to 1.5:", "between 0 and 1")


def test_input_fn_negative_pixels():
    fails(check, pipeline(images=IMAGES - 0.5), "negative (-0.50)")


def test_input_fn_counts_differ():
    def uneven():
        images = tf.data.Dataset.from_tensor_slices(IMAGES).batch(4)
        labels = tf.data.Dataset.from_tensor_slices(LABELS).batch(3)
        return tf.data.Dataset.zip(({"image": images}, labels))

    fails(check, uneven, "4 images but 3 labels")


# --- answers that bypass the lesson -----------------------------------------------


@pytest.fixture
def tiny_image_dataset(monkeypatch):
    """``inputs.image_dataset`` reads the tiny test split (IMAGES, LABELS) instead of the files, so
    the course's own input functions run here offline."""
    from helpers import inputs

    def image_dataset(name="mnist", split="train"):
        return tf.data.Dataset.from_tensor_slices((IMAGES, LABELS))

    monkeypatch.setattr(inputs, "image_dataset", image_dataset)
    return inputs


def test_eval_input_fn_built_from_image_dataset_passes(tiny_image_dataset, capsys):
    """The notebook's solution: inputs.image_dataset, batched, the image put in a dict."""

    def fashion_eval_input_fn():
        return (
            tiny_image_dataset.image_dataset("fashion-mnist", "test")
            .batch(4)
            .map(lambda image, label: ({"image": image}, label))
        )

    check(fashion_eval_input_fn)
    assert capsys.readouterr().out.startswith("Correct: 2 batches of 4")


@pytest.mark.parametrize(
    "answer",
    [
        # the helper's input function itself, stored as the answer
        lambda inputs: inputs.make_eval_input_fn("fashion-mnist", batch_size=4),
        # a function of the learner's that calls the helper
        lambda inputs: lambda: inputs.make_eval_input_fn("fashion-mnist", batch_size=4)(),
        # the helper bound to a name of its own, then its dataset changed a little
        lambda inputs: (
            lambda helper=inputs.make_eval_input_fn: helper("fashion-mnist", batch_size=4)().map(
                lambda features, label: (features, label)
            )
        ),
    ],
    ids=["its input function", "called inside", "under another name"],
)
def test_eval_input_fn_from_make_eval_input_fn_is_refused(tiny_image_dataset, answer):
    """Issue 32: the exercise rules out make_eval_input_fn; the answer is otherwise right (the tiny
    test split, every image once, in batches of 4), so only the lesson it skips refuses it."""
    message = fails(
        check,
        answer(tiny_image_dataset),
        "`fashion_eval_input_fn()` gets its batches from inputs.make_eval_input_fn",
        "build them yourself from inputs.image_dataset",
    )
    assert ".batch(" not in message and "as_features" not in message


def test_class_id_input_fn_that_reads_the_data_again_is_refused():
    """Issue 32: batches equal to one_hot_input_fn()'s, class ids and all, read from the data again
    instead of converted: right labels, but not the exercise."""
    message = fails(
        check3,
        pipeline(),
        "`class_id_input_fn()` never calls one_hot_input_fn()",
        "one-hot label turned back into its class id",
    )
    assert "argmax(" not in message


def test_class_id_input_fn_on_a_dataset_made_beforehand_is_refused():
    """one_hot_input_fn() called once, outside the answer: the Estimator would get a dataset of
    another graph; the check sees that the answer itself never calls it."""
    made = ONE_HOT()
    fails(
        check3,
        lambda: made.map(lambda f, one_hot: (f, tf.argmax(one_hot, axis=1))),
        "never calls one_hot_input_fn()",
    )


def test_class_id_input_fn_given_one_hot_input_fn_by_another_name_passes(capsys):
    """The check watches one_hot_input_fn's code run, not the name it is called by."""

    def converted(input_fn):
        return lambda: input_fn().map(lambda f, one_hot: (f, tf.argmax(one_hot, axis=1)))

    check3(converted(ONE_HOT))
    assert capsys.readouterr().out.startswith("Correct")


def test_the_checks_leave_no_profile_function_behind():
    """The check watches calls with sys.setprofile while it calls the answer, and puts back what was
    there, after a pass and after a failure alike."""
    import sys

    def mine(frame, event, arg):
        return None

    sys.setprofile(mine)
    try:
        check3(lambda: ONE_HOT().map(lambda f, one_hot: (f, tf.argmax(one_hot, axis=1))))
        assert sys.getprofile() is mine
        fails(check3, pipeline(), "never calls")
        assert sys.getprofile() is mine
    finally:
        sys.setprofile(None)


def test_the_sections_the_messages_cite_are_headings_of_notebook_02():
    from tests import ROOT

    source = (ROOT / "helpers" / "checks" / "notebook02.py").read_text()
    cited = {
        "The course's input functions are exactly this",
        "Train, evaluate and predict: three input functions",
        "What an input function returns",
        "`repeat`",
    }
    assert all(title in source for title in cited)  # each on one line of the module
    headings = notebook_headings("02_input_fn")
    assert cited <= headings, cited - headings


def test_a_zh_tw_learner_reads_the_message_in_chinese(zh_tw):
    template = "{answer} is a number of examples: one step trains a whole batch of {batch_size}"
    sentences = zh_tw()
    message = failure(checks.steps_for_epochs, 60000)
    assert message == sentences[template].format(answer=60000, batch_size=256)
    assert "60000 是樣本數" in message
