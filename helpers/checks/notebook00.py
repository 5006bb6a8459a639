"""Exercise checks of notebook 00 (set-up and data).

Both exercises ask for a function, and each check runs it on data the notebook never showed, built
so that the plausible wrong computations give different answers there, before running it on the
notebook's own dataset for the success line.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import calls
from ..language import N_
from ..problems import CheckFailed
from .common import correct, fail, reporting_learner_errors, said

__all__ = ["majority_accuracy", "brightest_class"]

MAJORITY_CALL = "majority_accuracy(train_labels, test_labels)"
BRIGHTEST_CALL = "brightest_class(images, labels, class_names)"


def _shuffled(counts, seed: int) -> np.ndarray:
    """Labels with ``counts[k]`` times label ``k``, in a fixed random order."""
    labels = np.repeat(np.arange(len(counts), dtype=np.uint8), counts)
    return np.random.default_rng(seed).permutation(labels)


def _label_sets() -> list:
    """(train, test) label sets of the check's own: the training set's most common label is
    neither the test set's nor label 1; its share differs between the sets, from 1/classes and
    from the rarest label's share. The second has three classes and 0 as the most common."""
    return [
        (
            _shuffled([50, 45, 30, 48, 61, 47, 52, 90, 44, 40], seed=1),
            _shuffled([21, 19, 12, 35, 18, 20, 23, 16, 17, 19], seed=2),
        ),
        (_shuffled([65, 25, 10], seed=3), _shuffled([9, 18, 3], seed=4)),
    ]


def _majority_variants(train, test) -> dict:
    """What the plausible wrong computations give on one label set, by what they did."""
    classes = int(max(train.max(), test.max())) + 1
    train_counts = np.bincount(train, minlength=classes)
    test_counts = np.bincount(test, minlength=classes)
    digit = int(np.argmax(train_counts))
    share = float(np.mean(test == digit))
    present = np.where(train_counts > 0, train_counts, train_counts.max() + 1)
    return {
        "right": share,
        "percentage": 100 * share,
        "count": float(np.sum(test == digit)),
        "error rate": 1 - share,
        "label": float(digit),
        "training share": float(np.mean(train == digit)),
        "test majority": float(test_counts.max() / len(test)),
        "rarest": float(np.mean(test == int(np.argmin(present)))),
        "random": 1 / classes,
    }


MAJORITY_MISTAKES = {
    "percentage": N_(
        "`{call}` returned a percentage on the check's labels: return the accuracy as "
        "a fraction, between 0 and 1"
    ),
    "count": N_(
        "`{call}` returned a count of test labels on the check's labels: an accuracy is that "
        "count divided by the number of test labels"
    ),
    "error rate": N_(
        "`{call}` returned the share of test labels the model gets wrong, on the check's "
        "labels: the accuracy is the share it gets right"
    ),
    "label": N_(
        "`{call}` returned the label such a model answers, on the check's labels: the "
        "exercise asks how often that answer is right on the test labels"
    ),
    "training share": N_(
        "`{call}` returned how often the most common label occurs in the training "
        "labels, on the check's labels: the model is scored on the test labels, so count there"
    ),
    "test majority": N_(
        "`{call}` chose the most common label of the test labels, on the check's "
        "labels: the model is built from the training labels alone, then scored on the test labels"
    ),
    "rarest": N_(
        "`{call}` returned the score of the rarest training label, on the check's labels: "
        "the model answers the most common one"
    ),
    "random": N_(
        "`{call}` returned one over the number of classes, on the check's labels: that is "
        "guessing at random; this model always gives the training set's most common label"
    ),
}


@reporting_learner_errors
def majority_accuracy(answer, dataset) -> None:
    """Notebook 00, exercise 1: ``answer(train_labels, test_labels)``, the test accuracy of a
    model that always answers the most common training label; tried on the check's own label
    sets, then on ``dataset``'s."""
    calls.function(answer, "majority_accuracy", MAJORITY_CALL)
    cases = _label_sets()
    returned = []
    for train, test in cases:
        calls.bound(answer, "majority_accuracy", MAJORITY_CALL, train.copy(), test.copy())
        value = answer(train.copy(), test.copy())
        returned.append(calls.number(value, "majority_accuracy", MAJORITY_CALL))
    rights = [_majority_variants(train, test)["right"] for train, test in cases]
    if abs(returned[0] - returned[1]) < 1e-6 and abs(returned[0] - rights[0]) > 1e-6:
        fail(
            "`{call}` returned {value:.4f} for two different sets of labels: compute the "
            "accuracy from the labels it is given, not from MNIST's",
            call=MAJORITY_CALL,
            value=returned[0],
        )
    for value, (train, test) in zip(returned, cases):
        variants = _majority_variants(train, test)
        if abs(value - variants["right"]) < 1e-6:
            continue
        for mistake, message in MAJORITY_MISTAKES.items():
            if abs(value - variants[mistake]) < 1e-6:
                raise CheckFailed(said(message, call=MAJORITY_CALL))
        fail(
            "on labels the check made up, `{call}` returned {value:.4f}: that is not the share "
            "of test labels equal to the most common training label (section 'Class balance')",
            call=MAJORITY_CALL,
            value=value,
        )
    train, test = dataset.train_labels, dataset.test_labels
    value = calls.number(answer(train.copy(), test.copy()), "majority_accuracy", MAJORITY_CALL)
    expected = _majority_variants(train, test)
    if abs(value - expected["right"]) > 1e-6:
        fail(
            "`{call}` is right on the check's labels but returned {value:.4f} on MNIST's: "
            "does it depend on how many classes or labels there are?",
            call=MAJORITY_CALL,
            value=value,
        )
    correct(
        "on MNIST, a model that always answers {digit:.0f} is right on {accuracy:.2%} of the "
        "test digits: the baseline any accuracy on MNIST must beat (and your function gave the "
        "same on two label sets of the check's)",
        digit=expected["label"],
        accuracy=value,
    )


# The check's own images: eight classes of unequal size and distinct brightness, built so that the
# class with the highest mean pixel is not the one with the highest sum, median or maximum, nor the
# most common, the darkest or either neighbour of its index. Per class: (images, pixel value).
_NAMES = ("Kite", "Lamp", "Mug", "Sock", "Vase", "Fork", "Hat", "Drum")
_CLASSES = [(40, 50), (35, 120), (30, None), (20, 60), (15, 90), (10, 150), (15, 110), (12, 10)]


def _made_up_images():
    """(images, labels, class_names) of the check's own, shuffled; class 2 has 60 % of its pixels
    at 215 and the rest at 0 (highest median), class 3 one pixel at 255 per image (highest max)."""
    images, labels = [], []
    for k, (count, value) in enumerate(_CLASSES):
        block = np.full((count, 28, 28), value or 0, dtype=np.uint8)
        if value is None:
            block.reshape(count, -1)[:, : int(0.6 * 784)] = 215
        if k == 3:
            block[:, 14, 14] = 255
        images.append(block)
        labels.append(np.full(count, k, dtype=np.uint8))
    order = np.random.default_rng(5).permutation(sum(count for count, _value in _CLASSES))
    return np.concatenate(images)[order], np.concatenate(labels)[order], _NAMES


def _brightness_variants(images, labels, names) -> dict:
    """The class each plausible computation names, by what it computed."""
    pixels = [images[labels == k].astype(np.float64) for k in range(len(names))]
    by = {
        "right": np.argmax([p.mean() for p in pixels]),
        "sum": np.argmax([p.sum() for p in pixels]),
        "median": np.argmax([np.median(p) for p in pixels]),
        "max": np.argmax([p.max() for p in pixels]),
        "darkest": np.argmin([p.mean() for p in pixels]),
        "most common": np.argmax([len(p) for p in pixels]),
    }
    best = int(by["right"])
    named = {mistake: names[int(k)] for mistake, k in by.items()}
    named["next"] = names[(best + 1) % len(names)]
    named["previous"] = names[best - 1]
    return named


BRIGHTNESS_MISTAKES = {
    "sum": N_(
        "on images the check made up, `{call}` named the class with the largest sum of "
        "pixels: a class with more images sums to more; compare means"
    ),
    "median": N_(
        "on images the check made up, `{call}` named the class with the highest median "
        "pixel: the exercise asks for the highest mean"
    ),
    "max": N_(
        "on images the check made up, `{call}` named the class with the brightest single "
        "pixel: the exercise asks for the highest mean over all its images' pixels"
    ),
    "darkest": N_(
        "on images the check made up, `{call}` named the darkest class: it should name "
        "the brightest"
    ),
    "most common": N_(
        "on images the check made up, `{call}` named the class with the most images: "
        "compare the classes' mean pixel, not their sizes"
    ),
    "next": N_(
        "on images the check made up, `{call}` named the class one index after the "
        "brightest: index class_names with the brightest class's own label"
    ),
    "previous": N_(
        "on images the check made up, `{call}` named the class one index before the "
        "brightest: index class_names with the brightest class's own label"
    ),
}


@reporting_learner_errors
def brightest_class(answer, dataset) -> None:
    """Notebook 00, exercise 2: ``answer(images, labels, class_names)``, the name of the class
    whose images have the highest mean pixel; tried on the check's own images, then on
    ``dataset``'s training split."""
    calls.function(answer, "brightest_class", BRIGHTEST_CALL)
    images, labels, names = _made_up_images()
    calls.bound(answer, "brightest_class", BRIGHTEST_CALL, images, labels, names)
    named = answer(images.copy(), labels.copy(), names)
    variants = _brightness_variants(images, labels, names)
    _name_of(named, names)
    if str(named) != variants["right"]:
        for mistake, message in BRIGHTNESS_MISTAKES.items():
            if str(named) == variants[mistake]:
                raise CheckFailed(said(message, call=BRIGHTEST_CALL))
        fail(
            "on images the check made up, `{call}` named {named!r}, whose mean pixel is not the "
            "highest: average every pixel of each class's images, then take the largest",
            call=BRIGHTEST_CALL,
            named=str(named),
        )
    images, labels, names = dataset.train_images, dataset.train_labels, dataset.class_names
    named = answer(images, labels, tuple(names))
    _name_of(named, names)
    expected = _brightness_variants(images, labels, names)["right"]
    if str(named) != expected:
        fail(
            "`{call}` is right on the check's images but named another class on {dataset}'s "
            "training images: does it assume a number of classes or of images?",
            call=BRIGHTEST_CALL,
            dataset=dataset.name,
        )
    mean = images[labels == list(names).index(expected)].mean()
    correct(
        "{answer!r} images are the brightest on average in {dataset} (mean pixel {mean:.1f} of "
        "255), and your function found the brightest of the check's own classes too",
        answer=expected,
        dataset=dataset.name,
        mean=float(mean),
    )


def _name_of(named, names) -> None:
    """Refuse in one line a result that is not one of ``names``."""
    if isinstance(named, (numbers.Integral, np.integer)) and not isinstance(named, bool):
        fail(
            "`{call}` returned the class index {index}: return the class's name, which "
            "class_names gives for each index",
            call=BRIGHTEST_CALL,
            index=int(named),
        )
    if not isinstance(named, str):
        fail(
            "`{call}` returned {kind}: return one class name, a string",
            call=BRIGHTEST_CALL,
            kind=type(named).__name__,
        )
    if named not in names:
        fail(
            "`{call}` returned {named!r}, which is not one of the class_names it was given: "
            "take the name from that parameter",
            call=BRIGHTEST_CALL,
            named=str(named),
        )
