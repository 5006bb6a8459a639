"""Exercise checks of notebook 00 (set-up and data)."""

from __future__ import annotations

import numbers

import numpy as np

from ..problems import CheckFailed
from .common import correct, require_answer

__all__ = ["share_of_ones", "brightest_class"]


def share_of_ones(answer, dataset) -> None:
    """Notebook 00, exercise 1: the fraction of training images showing a 1."""
    require_answer(answer, "share_of_ones")
    if not isinstance(answer, numbers.Real):
        raise CheckFailed(f"`share_of_ones` should be a number, not {type(answer).__name__}")
    expected = float(np.mean(dataset.train_labels == 1))
    answer = float(answer)
    if abs(answer - 100 * expected) < 1e-3:
        raise CheckFailed(f"{answer:.2f} is a percentage: give the fraction, between 0 and 1")
    if abs(answer - float(np.mean(dataset.test_labels == 1))) < 1e-6:
        raise CheckFailed("that is the share in the test set: use the training labels")
    if abs(answer - float(np.sum(dataset.train_labels == 1))) < 1e-6:
        raise CheckFailed("that is the count of ones: divide it by the number of training labels")
    if abs(answer - expected) > 1e-6:
        raise CheckFailed(f"{answer:.5f} is not the fraction of training labels that are 1 (section 'Class balance' "
                          "counts the labels)")
    correct(f"{answer:.2%} of the training digits are ones, the most common digit")


def brightest_class(answer, dataset) -> None:
    """Notebook 00, exercise 2: the Fashion-MNIST class with the brightest mean image."""
    require_answer(answer, "brightest_class")
    labels = dataset.train_labels
    means = [dataset.train_images[labels == k].mean() if np.any(labels == k) else -1.0
             for k in range(len(dataset.class_names))]
    best = int(np.argmax(means))
    if isinstance(answer, (numbers.Integral, np.integer)):
        hint = " (and that is not the brightest index either)" if int(answer) != best else ""
        raise CheckFailed(f"you gave the class index {int(answer)}: the exercise asks for the class's name, which "
                          f"the dataset's class_names list gives for each index{hint}")
    if answer not in dataset.class_names:
        raise CheckFailed(f"{answer!r} is not one of the class names {list(dataset.class_names)}")
    if answer != dataset.class_names[best]:
        raise CheckFailed(f"{answer!r} has mean pixel {means[dataset.class_names.index(answer)]:.1f}, another class "
                          "is brighter: compare the mean of the training images of each label")
    correct(f"{answer!r} images are the brightest on average (mean pixel {means[best]:.1f} of 255)")
