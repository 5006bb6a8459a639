"""Exercise checks of notebook 00 (set-up and data)."""

from __future__ import annotations

import numbers

import numpy as np

from .common import correct, fail, reporting_learner_errors, require_answer

__all__ = ["majority_accuracy", "brightest_class"]


@reporting_learner_errors
def majority_accuracy(answer, dataset) -> None:
    """Notebook 00, exercise 1: the test accuracy of a model that always answers the training set's
    most common digit."""
    require_answer(answer, "majority_accuracy")
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        fail("`majority_accuracy` should be a number, not {kind}", kind=type(answer).__name__)
    counts = np.bincount(dataset.train_labels, minlength=10)
    digit = int(np.argmax(counts))
    expected = float(np.mean(dataset.test_labels == digit))
    answer = float(answer)
    close = lambda value: abs(answer - value) < 1e-6  # noqa: E731
    if close(expected):
        correct(
            "a model that always answers {digit} is right on {accuracy:.2%} of the test "
            "digits: the baseline any accuracy on MNIST must beat",
            digit=digit,
            accuracy=expected,
        )
        return
    if close(100 * expected):
        fail(
            "{answer:.2f} is a percentage: give the accuracy as a fraction, between 0 and 1",
            answer=answer,
        )
    if close(float(np.sum(dataset.test_labels == digit))):
        fail(
            "{answer:.0f} is a count of test images: an accuracy is that count divided by the "
            "number of test images",
            answer=answer,
        )
    if close(float(digit)):
        fail(
            "{answer:.0f} is the digit such a model answers: the exercise asks how often that "
            "answer is right on the test set",
            answer=answer,
        )
    if close(float(np.mean(dataset.train_labels == digit))):
        fail(
            "that is how often the digit occurs in the training set: the model is scored on "
            "the test images, so count there"
        )
    if close(0.1):
        fail(
            "0.1 is what guessing at random scores on ten classes: this model always gives the "
            "same answer, the training set's most common digit"
        )
    rarest = int(np.argmin(np.where(counts > 0, counts, counts.max() + 1)))
    if close(float(np.mean(dataset.test_labels == rarest))):
        fail("that is the share of the rarest digit: the model answers the most common one")
    if not 0 <= answer <= 1:
        fail("{answer} is not between 0 and 1, as an accuracy is", answer=answer)
    fail(
        "{answer:.5f} is not it: find the most common digit of the training labels (section "
        "'Class balance'), then the share of test labels equal to it",
        answer=answer,
    )


@reporting_learner_errors
def brightest_class(answer, dataset) -> None:
    """Notebook 00, exercise 2: the Fashion-MNIST class with the brightest mean image."""
    require_answer(answer, "brightest_class")
    labels = dataset.train_labels
    means = [
        dataset.train_images[labels == k].mean() if np.any(labels == k) else -1.0
        for k in range(len(dataset.class_names))
    ]
    best = int(np.argmax(means))
    if isinstance(answer, (numbers.Integral, np.integer)) and int(answer) == best:
        fail(
            "you gave the class index {index}: the exercise asks for the class's name, which "
            "the dataset's class_names list gives for each index",
            index=int(answer),
        )
    if isinstance(answer, (numbers.Integral, np.integer)):
        fail(
            "you gave the class index {index}, and that is not the brightest index either: the "
            "exercise asks for the class's name, which the dataset's class_names list gives "
            "for each index",
            index=int(answer),
        )
    if answer not in dataset.class_names:
        fail(
            "{answer!r} is not one of the class names {names}",
            answer=answer,
            names=list(dataset.class_names),
        )
    if answer != dataset.class_names[best]:
        fail(
            "{answer!r} has mean pixel {mean:.1f} and another class is brighter: compare the "
            "mean of the training images of each label",
            answer=answer,
            mean=means[dataset.class_names.index(answer)],
        )
    correct(
        "{answer!r} images are the brightest on average (mean pixel {mean:.1f} of 255)",
        answer=answer,
        mean=means[best],
    )
