"""Check cells for the exercises: each says in plain words what is wrong.

Introduced in notebook 00. A check either prints one line that starts with
``Correct:`` or raises ``CheckFailed`` with one sentence on what to change.
Every check first catches an exercise left as it is in the student copy (the
answer still ``None``).
"""

from __future__ import annotations

import numbers

import numpy as np

from .problems import CheckFailed


def _require_answer(answer, name: str) -> None:
    if answer is None:
        raise CheckFailed(
            f"`{name}` is still None: write your code where the exercise says "
            "`# YOUR CODE HERE` (and remove `raise NotImplementedError()`)"
        )


def _correct(message: str) -> None:
    print(f"Correct: {message}")



# --- notebook 00 ---------------------------------------------------------------


def share_of_ones(answer, dataset) -> None:
    """Notebook 00, exercise 1: the fraction of training images showing a 1."""
    _require_answer(answer, "share_of_ones")
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
        raise CheckFailed(
            f"{answer:.5f} is not it: compare the training labels with 1 and take the mean"
        )
    _correct(f"{answer:.2%} of the training digits are ones, the most common digit")


def brightest_class(answer, dataset) -> None:
    """Notebook 00, exercise 2: the Fashion-MNIST class with the brightest mean image."""
    _require_answer(answer, "brightest_class")
    means = [dataset.train_images[dataset.train_labels == k].mean() for k in range(len(dataset.class_names))]
    best = int(np.argmax(means))
    if isinstance(answer, (numbers.Integral, np.integer)):
        hint = " (and that is not the brightest index either)" if int(answer) != best else ""
        raise CheckFailed(
            f"you gave the class index {int(answer)}: give its name, "
            f"`class_names[{int(answer)}]`{hint}"
        )
    if answer not in dataset.class_names:
        raise CheckFailed(f"{answer!r} is not one of the class names {list(dataset.class_names)}")
    if answer != dataset.class_names[best]:
        raise CheckFailed(
            f"{answer!r} has mean pixel {means[dataset.class_names.index(answer)]:.1f}, "
            f"another class is brighter: compare the mean of the training images of each label"
        )
    _correct(f"{answer!r} images are the brightest on average (mean pixel {means[best]:.1f} of 255)")
