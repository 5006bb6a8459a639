"""The exercise checks of notebook 00 accept the right answer and explain each wrong one."""

import numpy as np
import pytest

from helpers.checks import notebook00 as checks
from helpers.data import Arrays
from helpers.problems import CheckFailed
from tests.support.checks import failure


@pytest.fixture
def digits():
    """A tiny dataset: 10 train labels with three 1s, 4 test labels with one 1."""
    train_labels = np.array([1, 1, 1, 0, 2, 3, 4, 5, 6, 7], dtype=np.uint8)
    test_labels = np.array([1, 0, 0, 0], dtype=np.uint8)
    images = np.zeros((10, 28, 28), dtype=np.uint8)
    images[train_labels == 3] = 200  # class 3 is the brightest
    images[train_labels == 5] = 100
    return Arrays("tiny", images, train_labels, images[:4], test_labels, tuple("abcdefghij"))


def test_majority_accuracy_correct(digits, capsys):
    checks.majority_accuracy(0.25, digits)
    assert capsys.readouterr().out.startswith(
        "Correct: a model that always answers 1 is right on 25.00%"
    )


# The bank of plausible wrong answers (the tiny dataset: 1 is the most common training digit, 3 of
# 10; one test label of 4 is a 1; 0 is the first of the rarest, and 3 of the 4 test labels).
@pytest.mark.parametrize(
    "answer, words",
    [
        (None, "still None"),
        ("0.25", "should be a number"),
        (True, "should be a number"),
        (25.0, "percentage"),
        (1, "is a count of test images"),
        (0.3, "how often the digit occurs in the training set"),
        (0.1, "guessing at random"),
        (0.75, "share of the rarest digit"),
        (
            0.5,
            r"0.50000 is not it: "
            r"find the most common digit of the training labels \(section 'Class balance'\)",
        ),
        (7.0, "not between 0 and 1"),
    ],
)
def test_majority_accuracy_explains_mistakes(digits, answer, words):
    with pytest.raises(CheckFailed, match=words) as raised:
        checks.majority_accuracy(answer, digits)
    assert "\n" not in str(raised.value) and "mean(" not in str(raised.value)


def test_majority_accuracy_the_digit_itself(digits):
    """On MNIST the most common digit is 1, which is also the count of ones in the tiny test set;
    with digit 2 most common the answer 2 is the digit."""
    labels = np.array([2, 2, 2, 0, 1], dtype=np.uint8)
    images = np.zeros((5, 28, 28), dtype=np.uint8)
    data = Arrays(
        "tiny",
        images,
        labels,
        images[:4],
        np.array([2, 0, 0, 0], dtype=np.uint8),
        tuple("abcdefghij"),
    )
    with pytest.raises(CheckFailed, match="is the digit such a model answers"):
        checks.majority_accuracy(2, data)


@pytest.mark.parametrize("answer", ["d", np.str_("d")], ids=["str", "numpy str"])
def test_brightest_class_correct(digits, capsys, answer):
    checks.brightest_class(answer, digits)
    assert "Correct:" in capsys.readouterr().out


@pytest.mark.parametrize(
    "answer, words",
    [
        (None, "still None"),
        (3, "class index 3"),
        (5, "not the brightest index"),
        ("zebra", "not one of the class names"),
        ("f", "another class is brighter"),
        ("c", "another class is brighter"),  # off by one: class_names[k - 1]
        ("e", "another class is brighter"),  # off by one: class_names[k + 1]
        ("b", "another class is brighter"),  # the majority exercise's class, copied
        (200.0, "not one of the class names"),  # the brightest mean itself, not its class
    ],
    ids=[
        "blank",
        "the index",
        "another index",
        "no class",
        "another class",
        "k - 1",
        "k + 1",
        "the commonest class",
        "the mean",
    ],
)
def test_brightest_class_explains_mistakes(digits, answer, words):
    with pytest.raises(CheckFailed, match=words):
        checks.brightest_class(answer, digits)


def test_majority_accuracy_above_1_is_not_an_accuracy(digits):
    with pytest.raises(CheckFailed, match="1.5 is not between 0 and 1"):
        checks.majority_accuracy(1.5, digits)


def test_brightest_class_index_that_is_the_brightest_gets_no_hint(digits):
    with pytest.raises(CheckFailed) as failed:
        checks.brightest_class(3, digits)
    assert str(failed.value).endswith("the dataset's class_names list gives for each index")


def test_brightest_class_ignores_classes_without_images(capsys):
    """All images black: every class present is as bright (0), one with no image is not one."""
    labels = np.array([0, 1, 2, 3, 4, 5, 6, 7], dtype=np.uint8)  # no 8, no 9
    images = np.zeros((8, 28, 28), dtype=np.uint8)
    data = Arrays("dark", images, labels, images[:2], labels[:2], tuple("abcdefghij"))
    checks.brightest_class("a", data)
    assert "Correct:" in capsys.readouterr().out


def test_majority_accuracy_is_exact_to_1e_6(digits):
    with pytest.raises(CheckFailed, match="is not it"):
        checks.majority_accuracy(0.25 + 1.5e-6, digits)


def test_the_rarest_digit_is_one_the_training_set_has():
    """No 0 in training: the rarest digit is the first one that occurs least (2), not 0."""
    train_labels = np.array([1, 1, 1] + [d for d in range(2, 10) for _ in range(2)], np.uint8)
    test_labels = np.array([1, 1, 2, 3, 4, 5, 6, 7], dtype=np.uint8)
    images = np.zeros((len(train_labels), 28, 28), dtype=np.uint8)
    data = Arrays("tiny", images, train_labels, images[:8], test_labels, tuple("abcdefghij"))
    with pytest.raises(CheckFailed, match="share of the rarest digit"):
        checks.majority_accuracy(0.125, data)


def test_a_zh_tw_learner_reads_the_message_in_chinese(digits, zh_tw):
    template = (
        "{answer:.5f} is not it: find the most common digit of the training labels (section "
        "'Class balance'), then the share of test labels equal to it"
    )
    sentences = zh_tw()
    message = failure(checks.majority_accuracy, 0.5, digits)
    assert message == sentences[template].format(answer=0.5)
    # the section named as the zh-TW notebook heads it
    assert "0.50000 " in message and "「類別平衡」" in message
