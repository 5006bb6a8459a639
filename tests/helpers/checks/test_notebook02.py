"""The exercise checks of notebook 02 use each answer as the lesson does: exercise 1's function
against the batches tf.data makes for other sizes, exercise 2's input function in a real
``Estimator.evaluate`` and exercise 3's in a real ``Estimator.train`` (with ``one_hot_input_fn``
swapped for one-hot batches of the check's own), comparing every batch, pixel and label."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
import tensorflow as tf

from helpers import inputs
from helpers.checks import notebook02 as checks
from helpers.data import Arrays
from helpers.problems import CheckFailed
from tests.support.banks import bank
from tests.support.checks import failure, notebook_headings

# The kinds that do not apply, argued (tests/support/banks.py).
NOT_APPLICABLE = {
    1: {"forbidden API": "the prompt rules out no API for counting steps"},
    2: {
        "hard-coded from an output above": "an input function: the prompt gives its only number",
    },
    3: {
        "off by one": "class ids are positions read off the one-hot labels: nothing to count",
        "hard-coded from an output above": "an input function: no number in it",
    },
}


def fails(check, answer, *words, **kwargs):
    """``check(answer)`` raises one line that holds every one of ``words``."""
    message = failure(check, answer, **kwargs)
    assert "\n" not in message, message
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    return message


# --- exercise 1: a function of examples, batch size and epochs ------------------------------


def steps(examples, batch_size, epochs):
    return math.ceil(epochs * examples / batch_size)


def steps_by_counting(examples, batch_size, epochs):
    total = examples * epochs
    return total // batch_size + (1 if total % batch_size else 0)


def steps_from_tf_data(examples, batch_size, epochs):
    dataset = tf.data.Dataset.range(examples).repeat(epochs).batch(batch_size)
    return int(dataset.cardinality())


@pytest.mark.parametrize(
    "answer",
    [
        steps,
        pytest.param(steps_by_counting, marks=bank(1, "right, written otherwise")),
        pytest.param(steps_from_tf_data, marks=bank(1, "right, written otherwise")),
        pytest.param(lambda e, b, n: float(-(-e * n // b)), id="a float"),
    ],
)
def test_steps_correct(answer, capsys):
    checks.steps_for_epochs(answer)
    assert capsys.readouterr().out.startswith(
        "Correct: 3 × 60000 examples, repeated and then batched by 256, make 704 steps (only "
        "the very last batch is short, 32 examples), and your function agreed with tf.data on 14"
    )


@pytest.mark.parametrize(
    "answer, words",
    [
        pytest.param(
            lambda e, b, n: 704,
            "`steps_for_epochs(1000, 300, 3)` returned 704",
            marks=bank(1, "hard-coded from an output above"),
            id="704 typed",
        ),
        pytest.param(
            lambda e, b, n: n * math.ceil(e / b),
            "a short batch at the end of every epoch",
            marks=bank(
                1, "copy of a nearby cell", "right on the notebook's data, wrong in general"
            ),
            id="batch then repeat",
        ),
        pytest.param(
            lambda e, b, n: e * n // b,
            "leaves out the last, shorter batch",
            marks=bank(1, "off by one"),
            id="rounded down",
        ),
        pytest.param(lambda e, b, n: math.ceil(e / b), "counts one epoch", id="one epoch"),
        pytest.param(
            lambda e, b, n: e * n, "counts examples", marks=bank(1, "wrong unit"), id="examples"
        ),
        pytest.param(
            lambda e, b, n: e * n / b,
            "a fraction of a step",
            marks=bank(1, "right shape, wrong content"),
            id="not rounded",
        ),
        pytest.param(
            lambda e, b, n: round(e * n / b), "leaves out the last", id="rounded to nearest"
        ),
        pytest.param(lambda e, b: 704, "takes the parameters (e, b)", id="two parameters"),
        pytest.param(
            lambda e, b, n: math.ceil(e / b * n),
            "`steps_for_epochs(60000, 225, 15)` returned 4001",
            id="float division rounds up past a whole number",
        ),
        pytest.param(
            lambda e, b, n: n if b >= e else math.ceil(e * n / b),
            "counts a short batch at the end of every epoch",
            id="a batch larger than the data, several epochs",
        ),
        pytest.param(
            lambda e, b, n: -(-e * n // 256),
            "`steps_for_epochs(1000, 300, 3)` returned 12, but train() runs another number",
            marks=bank(1, "right on the notebook's data, wrong in general"),
            id="the batch size written in (an adversary was told batch-then-repeat)",
        ),
        pytest.param(lambda e, b, n: "704", "returned str: return one number", id="a string"),
        pytest.param(704, "should be a function", id="a number"),
        pytest.param(None, "`steps_for_epochs` is still None", id="blank"),
    ],
)
def test_steps_wrong_answers_are_named(answer, words):
    message = fails(checks.steps_for_epochs, answer, words)
    assert "ceil" not in message  # the cause, not the answer


# --- exercises 2 and 3: input functions ------------------------------------------------------

# A tiny test split of 10 images (bytes, as the files hold them) and another dataset's
RNG = np.random.default_rng(2)
PIXELS = RNG.integers(0, 256, size=(10, 28, 28), dtype=np.uint8)
LABELS = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], dtype=np.int32)
TEST = Arrays("Tiny-Fashion", PIXELS[::-1].copy(), LABELS[::-1].copy(), PIXELS, LABELS, "abc")
OTHER_PIXELS = RNG.integers(0, 256, size=(10, 28, 28), dtype=np.uint8)
OTHER = Arrays("Tiny-MNIST", PIXELS, LABELS, OTHER_PIXELS, (LABELS + 3) % 10, "abc")


def _from_arrays(pixels, labels):
    """(pixel bytes, label) pairs read from arrays without putting them in the graph (the check
    refuses an input function whose data are constants of the graph)."""
    spec = (tf.TensorSpec([28, 28], tf.uint8), tf.TensorSpec([], tf.int32))
    return tf.data.Dataset.from_generator(lambda: zip(pixels, labels), output_signature=spec)


def tiny(pixels=PIXELS, labels=LABELS, batch=4, image=lambda image: image, then=None):
    """An input function over a tiny in-memory split, the pixels scaled to 0-1 in the graph."""

    def input_fn():
        dataset = _from_arrays(pixels, labels)
        dataset = dataset.map(
            lambda p, label: ({"image": image(tf.cast(p, tf.float32) / 255)}, label)
        )
        dataset = dataset.batch(batch) if batch else dataset
        return then(dataset) if then else dataset

    return input_fn


def check(answer):
    """Exercise 2's check on the tiny split, in batches of 4."""
    checks.eval_input_fn(answer, TEST, OTHER, batch_size=4)


@pytest.mark.slow(reason="a real Estimator.evaluate per answer, about 1 s each")
@pytest.mark.parametrize(
    "answer",
    [
        tiny(),
        pytest.param(
            lambda mode, params: tiny()(), marks=bank(2, "right, written otherwise"), id="mode"
        ),
        pytest.param(
            tiny(image=lambda image: image * 1.0), marks=bank(2, "right, written otherwise")
        ),
    ],
)
def test_eval_input_fn_correct(answer, capsys):
    check(answer)
    assert capsys.readouterr().out.startswith("Correct: evaluate() read 3 batches of 4")


def _other_after_the_first_call(then):
    """Right at its first call; ``then(dataset)`` at the next ones."""
    made = []

    def input_fn():
        made.append(True)
        return tiny()() if len(made) == 1 else then(tiny()())

    return input_fn


@pytest.mark.slow(reason="real Estimator.evaluate runs, about 3 s each")
@pytest.mark.parametrize(
    "then",
    [
        pytest.param(lambda dataset: dataset.unbatch().shuffle(10, seed=3).batch(4), id="shuffles"),
        pytest.param(lambda dataset: tiny(pixels=OTHER_PIXELS)(), id="other images"),
    ],
)
@bank(2, "right on the notebook's data, wrong in general")
def test_eval_input_fn_right_at_its_first_call_only(then):
    """Issue 46, round 3 on notebook 02: the check called the function once."""
    fails(check, _other_after_the_first_call(then), "a second evaluate() with")


def reversed_after_first(dataset):
    """The first batch as it is, then the rest of the examples in reverse order."""
    rest = dataset.skip(1).unbatch().batch(100)
    rest = rest.map(
        lambda f, label: ({"image": tf.reverse(f["image"], [0])}, tf.reverse(label, [0]))
    )
    return dataset.take(1).concatenate(rest.unbatch().batch(4))


OUTSIDE = tiny()()  # a dataset built before the function, in the eager context


@pytest.mark.slow(reason="a real Estimator.evaluate per answer, about 1 s each")
@pytest.mark.parametrize(
    "answer, words",
    [
        pytest.param(
            tiny(image=lambda image: 1.0 - image),
            "inverted",
            marks=bank(2, "right shape, wrong content"),
            id="inverted",
        ),
        pytest.param(tiny(image=lambda image: image * 0), "all zeros", id="zeros"),
        pytest.param(tiny(image=lambda image: tf.transpose(image)), "transposed", id="transposed"),
        pytest.param(
            tiny(image=lambda image: image * 255),
            "go up to 255",
            marks=bank(2, "wrong unit"),
            id="not scaled",
        ),
        pytest.param(
            tiny(pixels=OTHER_PIXELS),
            "the images are those of Tiny-MNIST's test split",
            id="the other dataset's images, this one's labels",
        ),
        pytest.param(
            tiny(labels=(LABELS + 3) % 10), "the labels of batch 1 are those of Tiny-MNIST", id="o"
        ),
        pytest.param(
            tiny(then=reversed_after_first),
            "the examples come in another order",
            id="reordered after the first batch",
        ),
        pytest.param(
            tiny(batch=5), "batch 1 holds 5 examples where 4 were expected", id="batches of 5"
        ),
        pytest.param(
            tiny(then=lambda d: d.repeat()),
            "yields more than the 10 examples",
            marks=bank(2, "copy of a nearby cell"),  # the training input function, repeating
            id="repeats",
        ),
        pytest.param(
            tiny(then=lambda d: d.unbatch().batch(4, drop_remainder=True)),
            "yields 8 of the 10 examples",
            marks=bank(2, "off by one"),
            id="drop_remainder",
        ),
        pytest.param(
            lambda: OUTSIDE, "returns a dataset built outside the function", id="built outside"
        ),
        pytest.param(lambda x: tiny()(), "has the parameter x", id="a parameter of its own"),
        pytest.param(lambda: 5, "returned a int: return a tf.data.Dataset", id="no dataset"),
        pytest.param(OUTSIDE, "is a Dataset: give the function", id="the dataset itself"),
        pytest.param(
            tiny(image=lambda image: tf.reshape(image, [3])),
            "raised ValueError: Cannot reshape a tensor",
            id="an error in the map",
        ),
        pytest.param(tiny(batch=None), "single images of shape `(28, 28)`", id="unbatched"),
        pytest.param(
            lambda: tiny()().map(lambda f, label: f),
            "a dict only, with no labels",
            id="no labels",
        ),
        pytest.param(
            lambda: tiny()().map(lambda f, label: (f["image"], label)),
            "the features are a bare tensor",
            id="bare tensor",
        ),
        pytest.param(
            lambda: tiny()().map(lambda f, label: (f, tf.one_hot(label, 10))),
            "the labels are one-hot",
            id="one-hot",
        ),
        pytest.param(
            tiny(then=lambda d: d.map(lambda f, label: (f, (label + 1) % 10))),
            "the labels of batch 1 are each one class off",
            id="labels changed, not reordered",
        ),
        pytest.param(
            tiny(image=lambda image: tf.RaggedTensor.from_tensor(image)),
            "features['image'] should be one tensor",
            id="ragged images",
        ),
        pytest.param(
            lambda: tiny(batch=None)().repeat().batch(4),
            "yields more than the 10 examples",
            id="repeat then batch",
        ),
        pytest.param(
            tiny(image=lambda image: image * 0.9999),
            "(largest difference 0.0001 on a 0–1 scale)",
            id="scaled a little",
        ),
        pytest.param(
            lambda: (
                tiny()()
                .take(2)
                .concatenate(
                    tiny()().skip(2).map(lambda f, label: ({"image": f["image"] * 0}, label))
                )
            ),
            "the images of batch 3 are all zeros",
            id="the last batch zeroed",
        ),
        pytest.param(None, "`fashion_eval_input_fn` is still None", id="blank"),
    ],
)
def test_eval_input_fn_wrong_answers_are_named(answer, words):
    fails(check, answer, words)


@pytest.mark.slow(reason="a real Estimator.evaluate")
def test_eval_input_fn_with_the_data_in_the_graph_is_refused():
    """from_tensor_slices of arrays, the trap the notebook measures, embeds them in the graph."""
    many = np.zeros((1000, 28, 28), dtype=np.uint8)
    data = Arrays("Big", many, np.zeros(1000, np.int32), many, np.zeros(1000, np.int32), "ab")

    def answer():
        images = data.test_images.astype(np.float32) / 255
        return tf.data.Dataset.from_tensor_slices(({"image": images}, data.test_labels)).batch(4)

    fails(
        checks.eval_input_fn,
        answer,
        "puts 3,140 KB of data in the graph",
        other=OTHER,
        dataset=data,
        batch_size=4,
    )


@pytest.fixture
def tiny_image_dataset(monkeypatch):
    """``inputs.image_dataset`` reads the tiny test split instead of the files."""

    def image_dataset(name="mnist", split="train"):
        return _from_arrays(PIXELS, LABELS).map(
            lambda pixels, label: (tf.cast(pixels, tf.float32) / 255, label)
        )

    monkeypatch.setattr(inputs, "image_dataset", image_dataset)


@pytest.mark.slow(reason="a real Estimator.evaluate per answer")
@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(
            lambda: inputs.make_eval_input_fn("fashion-mnist", batch_size=4),
            marks=bank(2, "forbidden API"),
            id="its input function",
        ),
        pytest.param(
            lambda: lambda: inputs.make_eval_input_fn("fashion-mnist", batch_size=4)(),
            id="called inside",
        ),
        pytest.param(
            lambda: functools.partial(
                lambda helper: helper("fashion-mnist", batch_size=4)(),
                inputs.make_eval_input_fn,
            ),
            id="through a partial",
        ),
    ],
)
def test_eval_input_fn_from_make_eval_input_fn_is_refused(tiny_image_dataset, answer):
    fails(check, answer(), "gets its batches from inputs.make_eval_input_fn")


# --- exercise 3: class ids from one_hot_input_fn's batches, with the check's own stand-in ----


def one_hot_input_fn():
    """The notebook's one_hot_input_fn (the check swaps it for one-hot batches of its own)."""
    return (
        inputs.image_dataset("mnist", "train")
        .batch(100)
        .map(lambda image, label: ({"image": image}, tf.one_hot(label, 10)))
    )


def check3(answer):
    checks.class_id_input_fn(answer, one_hot_input_fn)


def class_ids():
    return one_hot_input_fn().map(lambda features, one_hot: (features, tf.argmax(one_hot, axis=1)))


def class_ids_int32(mode):
    return one_hot_input_fn().map(
        lambda features, one_hot: (features, tf.argmax(one_hot, -1, output_type=tf.int32))
    )


def class_ids_from(source=one_hot_input_fn):
    return source().map(lambda features, one_hot: (features, tf.argmax(one_hot, axis=1)))


@pytest.mark.slow(reason="a real Estimator.train over 2,000 images, about 2 s")
@pytest.mark.parametrize(
    "answer",
    [
        class_ids,
        pytest.param(class_ids_int32, marks=bank(3, "right, written otherwise")),
        pytest.param(class_ids_from, marks=bank(3, "right, written otherwise")),
    ],
)
def test_class_id_input_fn_correct(answer, capsys):
    check3(answer)
    assert capsys.readouterr().out.startswith(
        "Correct: train() read every batch of a one-hot input of the check's ("
    )


def converted(labels=lambda one_hot: tf.argmax(one_hot, axis=1), image=lambda i: i, then=None):
    def answer():
        dataset = one_hot_input_fn().map(
            lambda f, one_hot: ({"image": image(f["image"])}, labels(one_hot))
        )
        return then(dataset) if then else dataset

    return answer


@pytest.mark.slow(reason="a real Estimator.train per answer, about 2 s")
@pytest.mark.parametrize(
    "answer, words",
    [
        pytest.param(
            one_hot_input_fn,
            "the labels are one-hot",
            marks=bank(3, "wrong unit", "copy of a nearby cell"),
            id="the break-it cell's input function",
        ),
        pytest.param(
            converted(labels=lambda one_hot: tf.argmax(one_hot)),
            "tf.argmax reduced over the batch (its default axis 0)",
            id="argmax over the batch",
        ),
        pytest.param(
            converted(image=lambda i: i * 0),
            "all zeros",
            marks=bank(3, "right shape, wrong content"),
            id="zeroed images",
        ),
        pytest.param(
            converted(labels=lambda one_hot: tf.zeros_like(tf.argmax(one_hot, axis=1))),
            "the labels of batch 1 are all the same class",
            id="constant labels",
        ),
        pytest.param(
            converted(labels=lambda one_hot: tf.argmax(one_hot, axis=1) + 1),
            "each one class off",
            id="labels plus one",
        ),
        pytest.param(
            converted(then=lambda d: d.take(1).concatenate(d.skip(1).shuffle(8, seed=1))),
            "another order than in the batches of one_hot_input_fn(): take the batches as",
            id="shuffled after the first batch",
        ),
        pytest.param(
            converted(labels=lambda one_hot: tf.reshape(one_hot, [3])),
            "raised ValueError: Dimension size must be evenly divisible",
            id="an error in the map",
        ),
        pytest.param(
            lambda: (
                inputs.image_dataset("mnist", "train")
                .batch(100)
                .map(lambda image, label: ({"image": image}, label))
            ),
            "never calls one_hot_input_fn()",
            marks=bank(3, "forbidden API", "right on the notebook's data, wrong in general"),
            id="reads the data again",
        ),
        pytest.param(None, "`class_id_input_fn` is still None", id="blank"),
    ],
)
def test_class_id_input_fn_wrong_answers_are_named(answer, words):
    fails(check3, answer, words)


class Converter:
    """An object that converts one_hot_input_fn's batches, holding the function itself."""

    def __init__(self, source, batch=None):
        self.source, self.batch = source, batch

    def __call__(self):
        shape = [self.batch] if self.batch else [-1]
        return self.source().map(
            lambda f, one_hot: (f, tf.reshape(tf.argmax(one_hot, axis=1), shape))
        )


@pytest.mark.slow(reason="a real Estimator.train per answer, about 2 s")
@pytest.mark.parametrize(
    "answer",
    [
        functools.partial(lambda source: Converter(source)(), one_hot_input_fn),
        Converter(one_hot_input_fn),
        {"fn": Converter({"src": one_hot_input_fn}["src"])}["fn"],
    ],
    ids=["a partial", "an object", "from a dict"],
)
def test_class_id_input_fn_reaching_one_hot_input_fn_any_way_is_judged_on_the_checks_data(
    answer, capsys
):
    """Issue 46's adversary: a partial or an object held one_hot_input_fn where no swap of names
    reached it, and was judged on MNIST; the function itself now yields the check's batches."""
    check3(answer)
    out = capsys.readouterr().out
    assert "Correct: train() read every batch of a one-hot input of the check's" in out


def _calls_then_reads_a_fixed_slice():
    one_hot_input_fn()
    return (
        inputs.image_dataset("fashion-mnist", "train")
        .take(2000)
        .batch(64)
        .map(lambda image, label: ({"image": image}, label))
    )


@pytest.mark.slow(reason="a real Estimator.train per answer, about 2 s")
@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(Converter(one_hot_input_fn, batch=100), id="an object assuming 100"),
        pytest.param(_calls_then_reads_a_fixed_slice, id="calls it, reads a fixed slice"),
    ],
)
def test_class_id_input_fn_cannot_guess_the_checks_data(answer):
    """The check's batches are drawn anew at every run: no size or slice can be written in."""
    with pytest.raises(CheckFailed):
        check3(answer)


def _tells_the_stand_in_apart():
    """Right while one_hot_input_fn runs code other than its own, wrong on the notebook's data."""
    source = one_hot_input_fn()
    if one_hot_input_fn.__code__.co_filename != __file__:  # the check's stand-in
        return source.map(lambda f, one_hot: (f, tf.argmax(one_hot, axis=1)))
    return source.map(lambda f, one_hot: (f, tf.argmax(one_hot, axis=1) * 0))


@pytest.mark.slow(reason="two real Estimator.train runs, about 4 s")
@bank(3, "right on the notebook's data, wrong in general")
def test_class_id_input_fn_that_tells_the_stand_in_apart_is_judged_on_the_real_one_too():
    """Issue 46's adversary: an answer that recognised the stand-in by its code passed; the
    check now also trains with the notebook's own one_hot_input_fn, on MNIST."""
    fails(check3, _tells_the_stand_in_apart, "the labels of batch 1 are all the same class")


@pytest.mark.slow(reason="a real Estimator.train per answer, about 3 s")
@pytest.mark.parametrize(
    "answer, words",
    [
        pytest.param(
            lambda: (
                one_hot_input_fn().take(600).map(lambda f, one_hot: (f, tf.argmax(one_hot, axis=1)))
            ),
            "examples of the batches of one_hot_input_fn(): the last, shorter batch or some",
            marks=bank(3, "right on the notebook's data, wrong in general"),
            id="take(600), the notebook's batch count",
        ),
        pytest.param(
            converted(image=lambda i: tf.clip_by_value(i, 0.0, 0.5)),
            "on a 0–1 scale): pass each image on as it comes",
            id="images changed (the advice of exercise 2 was given)",
        ),
    ],
)
def test_class_id_input_fn_third_round_of_the_blind_adversary(answer, words):
    """Issue 46, round 3 on notebook 02 (zh-TW copy): the check's input holds more than the
    notebook's 600 batches, and a changed image is told to pass on as it comes."""
    fails(check3, answer, words)


def test_the_stand_in_is_undone():
    before = one_hot_input_fn.__code__
    with checks._standing_in(one_hot_input_fn, lambda: "stand-in"):
        assert one_hot_input_fn() == "stand-in"
    assert one_hot_input_fn.__code__ is before and checks.STAND_IN_NAME not in globals()


def test_the_sections_the_messages_cite_are_headings_of_notebook_02():
    from tests import ROOT

    source = (ROOT / "helpers" / "checks" / "notebook02.py").read_text(encoding="utf-8")
    cited = {
        "The course's input functions are exactly this",
        "What an input function returns",
        "`repeat`",
    }
    assert all(title in source for title in cited)  # each on one line of the module
    headings = notebook_headings("02_input_fn")
    assert cited <= headings, cited - headings


def test_a_zh_tw_learner_reads_the_message_in_chinese(zh_tw):
    sentences = zh_tw()
    message = failure(checks.steps_for_epochs, lambda e, b, n: e * n)
    template = checks.STEPS_MISTAKES["examples"]
    assert message == sentences[template].format(call=checks.STEPS_CALL)


@pytest.mark.slow(reason="a real Estimator.evaluate per answer")
@pytest.mark.parametrize(
    "answer, words",
    [
        pytest.param(
            tiny(then=lambda d: d.map(lambda f, label: (f, tf.cast(label, tf.uint8)))),
            "the labels are uint8",
            id="uint8 labels, which the model's loss refuses",
        ),
        pytest.param(
            lambda: (
                _from_arrays(TEST.train_images, TEST.train_labels)
                .map(lambda p, label: ({"image": tf.cast(p, tf.float32) / 255}, label))
                .batch(4)
                .concatenate(tiny()())
            ),
            "the labels of batch 1 are those of Tiny-Fashion's training split",
            id="the training split, longer than the test split",
        ),
    ],
)
def test_eval_input_fn_second_round_of_the_blind_adversary(answer, words):
    """Issue 46, round 2 on notebook 02 (zh-TW copy)."""
    fails(check, answer, words)
