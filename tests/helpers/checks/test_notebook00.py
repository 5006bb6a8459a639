"""The exercise checks of notebook 00 run the learner's function on data of their own, accept the
right answer however it is written, and name each wrong computation without giving the answer."""

import numpy as np
import pandas as pd
import pytest

from helpers.checks import notebook00 as checks
from helpers.data import Arrays
from tests.support.banks import bank
from tests.support.checks import failure

# The kinds that do not apply, argued (tests/support/banks.py).
NOT_APPLICABLE = {
    1: {
        "off by one": "a fraction of the test labels: no count or index to be off by one",
        "forbidden API": "the prompt forbids no API",
    },
    2: {
        "hard-coded from an output above": "no output above shows a brightness per class",
        "forbidden API": "the prompt forbids no API",
    },
}


@pytest.fixture(scope="module")
def digits():
    """A small stand-in for MNIST: 1 is the most common training label, 3 of 12."""
    train = np.array([1, 1, 1, 0, 2, 3, 4, 5, 6, 7, 8, 9], dtype=np.uint8)
    images = np.zeros((12, 28, 28), dtype=np.uint8)
    images[train == 3] = 200  # class 3 is the brightest
    images[train == 5] = 100
    return Arrays("tiny", images, train, images.copy(), train.copy(), tuple("abcdefghij"))


def majority(train_labels, test_labels):
    most_common = pd.Series(train_labels).value_counts().idxmax()
    return (test_labels == most_common).mean()


def majority_with_bincount(train, test):
    return float(np.mean(test == np.bincount(train).argmax()))


def majority_in_tensorflow(train, test):
    import tensorflow as tf

    most_common = tf.argmax(tf.math.bincount(tf.cast(train, tf.int32)))
    return tf.reduce_mean(tf.cast(tf.equal(tf.cast(test, tf.int64), most_common), tf.float32))


def majority_as_0d_array(train, test):
    return np.array(np.mean(test == np.bincount(train).argmax()))


def majority_counted_by_hand(train, test):
    counts = {}
    for label in train.tolist():
        counts[label] = counts.get(label, 0) + 1
    best = max(counts, key=counts.get)
    return sum(1 for label in test.tolist() if label == best) / len(test)


@pytest.mark.parametrize(
    "answer",
    [
        majority,
        pytest.param(majority_with_bincount, marks=bank(1, "right, written otherwise")),
        pytest.param(majority_in_tensorflow, marks=bank(1, "right, written otherwise")),
        pytest.param(majority_as_0d_array, marks=bank(1, "right, written otherwise")),
        majority_counted_by_hand,
    ],
)
def test_majority_accuracy_correct(digits, capsys, answer):
    checks.majority_accuracy(answer, digits)
    assert capsys.readouterr().out.startswith(
        "Correct: on MNIST, a model that always answers 1 is right on 25.00%"
    )


def most_common_of(labels):
    return np.bincount(labels).argmax()


# The bank of wrong answers: (the function, what the message must say).
@pytest.mark.parametrize(
    "answer, words",
    [
        pytest.param(
            lambda train, test: 0.1135,  # typed from MNIST's table above
            "for every set of labels the check gave it",
            marks=bank(1, "hard-coded from an output above"),
            id="typed",
        ),
        pytest.param(
            lambda train, test: 100 * majority(train, test),
            "returned a percentage",
            marks=bank(1, "wrong unit"),
            id="percentage",
        ),
        pytest.param(
            lambda train, test: np.sum(test == most_common_of(train)),
            "returned a count of test labels",
            marks=bank(1, "wrong unit"),
            id="count",
        ),
        pytest.param(
            lambda train, test: 1 - majority(train, test),
            "the share of test labels the model gets wrong",
            marks=bank(1, "right shape, wrong content"),
            id="error rate",
        ),
        pytest.param(
            lambda train, test: most_common_of(train),
            "returned the label such a model answers",
            id="the label",
        ),
        pytest.param(
            lambda train, test: majority(train, train),
            "how often the most common label occurs in the training labels",
            marks=bank(1, "copy of a nearby cell"),  # the 'train %' column above
            id="training share",
        ),
        pytest.param(
            lambda train, test: majority(test, test),
            "chose the most common label of the test labels",
            id="majority of the test set",
        ),
        pytest.param(
            lambda train, test: np.mean(
                test == np.unique(train)[np.unique(train, return_counts=True)[1].argmin()]
            ),
            "the score of the rarest training label",
            id="rarest",
        ),
        pytest.param(
            lambda train, test: 1 / len(np.unique(train)),  # on the check's sets: no class empty
            "guessing at random",
            id="random",
        ),
        pytest.param(
            lambda train, test: majority(np.concatenate([train, test]), test),
            "of the training and test labels together",
            id="pooled",
        ),
        pytest.param(
            lambda train, test: np.mean(test == np.unique(train, return_counts=True)[1].argmax()),
            "took the position of the most common label",
            id="position for label",
        ),
        pytest.param(
            lambda train, test: majority(train.astype(np.uint8), test.astype(np.uint8)),
            "treated the labels as bytes",
            id="uint8",
        ),
        pytest.param(
            lambda train, test: round(majority(train, test), 2),
            "rounds the accuracy to 2 decimals",
            id="rounded",
        ),
        pytest.param(
            lambda train, test: np.sum(test == most_common_of(train)) // len(test),
            "returned 0.0000 for every set of labels",
            id="integer division",
        ),
        pytest.param(
            lambda train, test: np.bool_(True), "returned bool: return one number", id="np.bool_"
        ),
        pytest.param(
            lambda train, test: np.mean(test == 1),  # MNIST's most common digit, written in
            "`majority_accuracy(train_labels, test_labels)` returned ",
            marks=bank(1, "right on the notebook's data, wrong in general"),
            id="digit 1 written in",
        ),
        pytest.param(
            lambda train, test: np.mean(test[:-1] == most_common_of(train)),
            "that is not the share",
            id="one test label left out",
        ),
        pytest.param(
            lambda train, test: [majority(train, test)],
            "returned list: return one number",
            id="a list",
        ),
        pytest.param(
            lambda train, test: np.array([majority(train, test)]),
            "returned an array of shape (1,): return one number",
            id="an array",
        ),
        pytest.param(
            lambda train, test: print(majority(train, test)),
            "returned None: return one number",
            id="prints",
        ),
        pytest.param(lambda train: 0.5, "takes the parameters (train)", id="one parameter"),
        pytest.param(0.1135, "should be a function", id="a number"),
        pytest.param(None, "still None", id="blank"),
    ],
)
def test_majority_accuracy_names_the_mistake(digits, answer, words):
    message = failure(checks.majority_accuracy, answer, digits)
    assert words in message and "\n" not in message, message


def test_majority_accuracy_error_in_the_learners_code_is_one_line(digits):
    def answer(train, test):
        return (test == undefined_name).mean()  # noqa: F821

    message = failure(checks.majority_accuracy, answer, digits)
    assert message.startswith("your code raised NameError"), message


def test_majority_accuracy_exits_in_one_line(digits):
    """sys.exit() in an answer is reported as the learner's, not as SystemExit."""
    import sys

    message = failure(checks.majority_accuracy, lambda train, test: sys.exit("done"), digits)
    assert message.startswith("your code raised SystemExit"), message


def test_majority_accuracy_answers_cannot_be_typed_in(digits):
    """The check's labels are new at every run: the same wrong answer meets other values."""
    first, second = checks._label_sets(), checks._label_sets()
    assert not np.array_equal(first[0][0], second[0][0])


def brightest(images, labels, class_names):
    means = {name: images[labels == k].mean() for k, name in enumerate(class_names)}
    return max(means, key=means.get)


def brightest_in_pandas(images, labels, class_names):
    frame = pd.DataFrame({"label": labels, "mean": images.reshape(len(images), -1).mean(axis=1)})
    return class_names[frame.groupby("label")["mean"].mean().idxmax()]


def brightest_as_numpy_str(images, labels, class_names):
    means = [images[labels == k].mean() for k in range(len(class_names))]
    return np.array(class_names)[np.argmax(means)]


@pytest.mark.parametrize(
    "answer",
    [
        brightest,
        pytest.param(brightest_in_pandas, marks=bank(2, "right, written otherwise")),
        pytest.param(brightest_as_numpy_str, marks=bank(2, "right, written otherwise")),
    ],
)
def test_brightest_class_correct(digits, capsys, answer):
    checks.brightest_class(answer, digits)
    assert capsys.readouterr().out.startswith("Correct: 'd' images are the brightest")


def pick(statistic, flip=1):
    def answer(images, labels, class_names):
        values = [statistic(images[labels == k].astype(float)) for k in range(len(class_names))]
        return class_names[int(np.argmax(flip * np.array(values)))]

    return answer


def shifted(by):
    def answer(images, labels, class_names):
        means = [images[labels == k].mean() for k in range(len(class_names))]
        return class_names[(int(np.argmax(means)) + by) % len(class_names)]

    return answer


@pytest.mark.parametrize(
    "answer, words",
    [
        pytest.param(
            pick(np.sum), "the largest sum of pixels", marks=bank(2, "right shape, wrong content")
        ),
        pytest.param(pick(np.median), "whose mean pixel is not the highest", id="median"),
        pytest.param(pick(np.max), "whose mean pixel is not the highest", id="max"),
        pytest.param(
            pick(lambda p: (p > 127).mean()), "whose mean pixel is not the highest", id="share"
        ),
        pytest.param(
            pick(lambda p: np.median(p.reshape(len(p), -1).mean(axis=1))),
            "whose mean pixel is not the highest",
            id="median image",
        ),
        pytest.param(
            pick(lambda p: p.reshape(len(p), -1).mean(axis=1).max()),
            "whose mean pixel is not the highest",
            id="brightest image",
        ),
        pytest.param(
            pick(lambda p: p.astype(np.uint8).sum(dtype=np.uint8)),
            "whose mean pixel is not the highest",
            id="uint8 sum",
        ),
        pytest.param(pick(np.mean, flip=-1), "named the darkest class", id="darkest"),
        pytest.param(
            pick(len), "the class with the most images", marks=bank(2, "copy of a nearby cell")
        ),
        pytest.param(shifted(1), "one index after", marks=bank(2, "off by one"), id="k + 1"),
        pytest.param(shifted(-1), "one index before", marks=bank(2, "off by one"), id="k - 1"),
        pytest.param(
            lambda images, labels, class_names: int(
                np.argmax([images[labels == k].mean() for k in range(len(class_names))])
            ),
            "returned the class index",
            marks=bank(2, "wrong unit"),
            id="the index",
        ),
        pytest.param(
            lambda images, labels, class_names: "Coat",  # Fashion-MNIST's, written in
            "not one of the class_names it was given",
            marks=bank(2, "right on the notebook's data, wrong in general"),
            id="typed",
        ),
        pytest.param(
            lambda images, labels, class_names: [brightest(images, labels, class_names)],
            "returned list: return one class name",
            id="a list",
        ),
        pytest.param(lambda images: "a", "takes the parameters (images)", id="one parameter"),
        pytest.param("Coat", "should be a function", id="a name"),
        pytest.param(None, "still None", id="blank"),
    ],
)
def test_brightest_class_names_the_mistake(digits, answer, words):
    message = failure(checks.brightest_class, answer, digits)
    assert words in message and "\n" not in message, message


@pytest.mark.parametrize("position", range(6))
def test_brightest_class_cannot_be_enumerated(digits, position):
    """A wrong class gets a message without a brightness, and the check's classes are new at
    every run: trying each name in turn teaches nothing (issue 46: nine tries gave the table)."""
    message = failure(checks.brightest_class, lambda images, labels, names: names[position], digits)
    assert not any(character.isdigit() for character in message), message


def test_brightest_class_a_name_written_in_fails_on_names_in_another_order(digits):
    """Right everywhere but where the dataset's ten names are given: the brightest class's name
    written in (what the notebook prints) fails, its classes named in another order."""

    def answer(images, labels, class_names):
        return "d" if "a" in class_names else brightest(images, labels, class_names)

    message = failure(checks.brightest_class, answer, digits)
    assert "given with their class names in another order" in message


def test_brightest_class_is_given_copies(digits, capsys):
    def answer(images, labels, class_names):
        name = brightest(images, labels, class_names)
        images[:] = 0
        labels[:] = 0
        return name

    checks.brightest_class(answer, digits)
    assert "Correct:" in capsys.readouterr().out and digits.train_images.any()


def test_a_zh_tw_learner_reads_the_message_in_chinese(digits, zh_tw):
    sentences = zh_tw()
    message = failure(checks.majority_accuracy, lambda a, b: 100 * majority(a, b), digits)
    template = checks.MAJORITY_MISTAKES["percentage"]
    assert message == sentences[template].format(call=checks.MAJORITY_CALL)


@pytest.mark.parametrize(
    "answer, words",
    [
        pytest.param(
            lambda train, test: min(majority(train, test), 0.5),
            "`majority_accuracy(train_labels, test_labels)` returned 0.5",
            id="never above one half",
        ),
        pytest.param(
            lambda train, test: np.mean(test == np.argmax(np.bincount(train)[1:]) + 1),
            "on labels the check made up",
            id="label 0 skipped",
        ),
        pytest.param(
            lambda train, test: 0.1135 if train.dtype == np.uint8 else np.mean(test == train.max()),
            "",
            id="MNIST written in, the largest label elsewhere",
        ),
        pytest.param(lambda train, test: float("nan"), "returned nan", id="nan"),
        pytest.param(lambda train, test: 10**400, "a number too large", id="a huge int"),
    ],
)
def test_majority_accuracy_second_round_of_the_blind_adversary(digits, answer, words):
    """Issue 46, round 2 of the blind adversary on notebook 00 (zh-TW copy): three false passes
    and two tracebacks from inside the check."""
    message = failure(checks.majority_accuracy, answer, digits)
    assert words in message and "\n" not in message, message


@pytest.mark.parametrize(
    "statistic",
    [
        pytest.param(lambda p: p[:, 4:24, 4:24].mean(), id="centre crop"),
        pytest.param(lambda p: (p // 64).mean(), id="quantized"),
        pytest.param(lambda p: np.sqrt(p).mean(), id="square root"),
        pytest.param(lambda p: np.clip(p, 0, 128).mean(), id="clipped"),
        pytest.param(lambda p: p[p > 0].mean(), id="mean of the lit pixels"),
    ],
)
def test_brightest_class_other_statistics_are_refused_without_a_wrong_reason(digits, statistic):
    """Round 2: these passed, or were given another statistic's reason."""
    message = failure(checks.brightest_class, pick(statistic), digits)
    assert "whose mean pixel is not the highest" in message, message


def test_brightest_class_ten_classes_assumed_is_refused(digits):
    """Round 2: range(10) passed whenever the brightest label was below 10."""

    def answer(images, labels, class_names):
        return class_names[int(np.argmax([images[labels == k].mean() for k in range(10)]))]

    failure(checks.brightest_class, answer, digits)


@pytest.mark.parametrize(
    "statistic",
    [
        pytest.param(lambda p: int(p.mean()), id="the mean cut to a whole number"),
        pytest.param(lambda p: np.sqrt((p**2).mean()), id="root mean square"),
        pytest.param(lambda p: ((p / 255) ** 2.2).mean(), id="gamma"),
        pytest.param(lambda p: 2 * np.round(p.mean() / 2), id="rounded to 2"),
    ],
)
def test_brightest_class_third_round_statistics_are_refused(digits, statistic):
    """Round 3 of the blind adversary: these passed on most runs (class means far apart, no
    contrast between the classes close to the brightest)."""
    message = failure(checks.brightest_class, pick(statistic), digits)
    assert "whose mean pixel is not the highest" in message, message
