"""The exercise checks of notebook 00 accept the right answer and explain each wrong one."""

import numpy as np
import pytest

from helpers import checks
from helpers.data import Dataset
from helpers.problems import CheckFailed


@pytest.fixture
def digits():
    """A tiny dataset: 10 train labels with three 1s, 4 test labels with one 1."""
    train_labels = np.array([1, 1, 1, 0, 2, 3, 4, 5, 6, 7], dtype=np.uint8)
    test_labels = np.array([1, 0, 0, 0], dtype=np.uint8)
    images = np.zeros((10, 28, 28), dtype=np.uint8)
    images[train_labels == 3] = 200  # class 3 is the brightest
    images[train_labels == 5] = 100
    return Dataset("tiny", images, train_labels, images[:4], test_labels, tuple("abcdefghij"))


def test_share_of_ones_correct(digits, capsys):
    checks.share_of_ones(0.3, digits)
    assert capsys.readouterr().out.startswith("Correct:")


@pytest.mark.parametrize("answer, words", [
    (None, "still None"),
    ("0.3", "should be a number"),
    (30.0, "percentage"),
    (0.25, "test set"),
    (3, "count of ones"),
    (0.5, r"is not the fraction of training labels that are 1 \(section 'Class balance'"),
])
def test_share_of_ones_explains_mistakes(digits, answer, words):
    with pytest.raises(CheckFailed, match=words):
        checks.share_of_ones(answer, digits)


def test_brightest_class_correct(digits, capsys):
    checks.brightest_class("d", digits)
    assert "Correct:" in capsys.readouterr().out


@pytest.mark.parametrize("answer, words", [
    (None, "still None"),
    (3, "class index 3"),
    (5, "not the brightest index"),
    ("zebra", "not one of the class names"),
    ("f", "another class is brighter"),
])
def test_brightest_class_explains_mistakes(digits, answer, words):
    with pytest.raises(CheckFailed, match=words):
        checks.brightest_class(answer, digits)
