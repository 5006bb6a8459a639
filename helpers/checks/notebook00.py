"""Exercise checks of notebook 00 (set-up and data).

Both exercises ask for a function, and each check runs it on data of its own, made anew at every
run (so no answer can be typed in for it) and made so that each plausible wrong computation gives
another answer than the right one; a mistake is named only when the learner's function gave what
it gives on every one of those sets. Then the function runs on the notebook's dataset for the
success line.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..language import N_
from ..problems import CheckFailed
from . import calls
from .common import correct, fail, reporting_learner_errors, said

__all__ = ["majority_accuracy", "brightest_class"]

MAJORITY_CALL = "majority_accuracy(train_labels, test_labels)"
BRIGHTEST_CALL = "brightest_class(images, labels, class_names)"
CLOSE = 1e-6  # an accuracy computed in float32 is within 1e-7 of the exact fraction


def _majority_variants(train, test) -> dict:
    """What the plausible computations give on one label set, by what they did."""
    values, counts = np.unique(train, return_counts=True)
    label = values[np.argmax(counts)]
    pooled_values, pooled_counts = np.unique(np.concatenate([train, test]), return_counts=True)
    test_values, test_counts = np.unique(test, return_counts=True)
    share = float(np.mean(test == label))
    return {
        "right": share,
        "percentage": 100 * share,
        "count": float(np.sum(test == label)),
        "error rate": 1 - share,
        "label": float(label),
        "training share": float(counts.max() / len(train)),
        "test majority": float(test_counts.max() / len(test)),
        "pooled": float(np.mean(test == pooled_values[np.argmax(pooled_counts)])),
        "rarest": float(np.mean(test == values[np.argmin(counts)])),
        "random": 1 / len(values),
        "position": float(np.mean(test == np.argmax(counts))),
        "as bytes": float(np.mean(test.astype(np.uint8) == np.uint8(label))),
    }


def _label_set(rng):
    """(train, test) labels of 5 to 11 classes with gaps between their values, under random
    counts with a structure: the most common training label M is above 255 and M - 256 is a label
    too (bytes would mix them up); another label is the most common of the test labels, a third
    of both sets together; the rarest training label is a fourth and the second most common a
    fifth; M's position among the sorted labels is a label too. Drawn again until every
    computation of ``_majority_variants`` gives a value of its own, none of them 0."""
    for _attempt in range(1000):
        majority = int(rng.integers(256, 400))
        pool = [v for v in range(0, 500) if v not in (majority, majority - 256)]
        small = [v for v in pool if v < 12]  # M's position is likely among them
        others = rng.choice(pool, size=int(rng.integers(4, 8)), replace=False)
        others = np.array([*others, *rng.choice(small, size=2, replace=False)])
        others = np.unique(others)[rng.permutation(len(np.unique(others)))]
        classes = np.array([majority, majority - 256, *others])  # M, M - 256, P, T, R, Q, the rest
        train_counts = np.array([60 + rng.integers(0, 6), *rng.integers(5, 30, len(others) + 1)])
        test_counts = rng.integers(3, 30, len(classes))
        train_counts[2], test_counts[2] = 45, 60  # P: the most common of both together
        test_counts[3] = 70 + rng.integers(0, 10)  # T: the most common test label
        train_counts[3] = min(train_counts[3], 20)
        train_counts[4] = 2  # R: the rarest training label
        train_counts[5], test_counts[5] = 52, 5  # Q: the second most common training label
        train = rng.permutation(np.repeat(classes, train_counts)).astype(np.int64)
        test = rng.permutation(np.repeat(classes, test_counts)).astype(np.int64)
        values = sorted(_majority_variants(train, test).values())
        if values[0] > 1e-3 and all(b - a > 1e-3 for a, b in zip(values, values[1:])):
            return train, test
    raise RuntimeError("no label set found")  # pragma: no cover - the counts are built for it


def _label_sets(rng=None) -> list:
    """Three label sets of ``_label_set``, one where the most common training label never
    occurs in the test labels (the accuracy is 0), and one of bytes where 0 is nine labels in
    ten (the accuracy about 0.9)."""
    rng = rng or np.random.default_rng()
    sets = [_label_set(rng) for _ in range(3)]
    train, test = _label_set(rng)
    majority = np.unique(train)[np.argmax(np.unique(train, return_counts=True)[1])]
    sets.append((train, test[test != majority]))
    # MNIST's own type, and the case the notebook warns of: one class, 0, holds 9 of 10 labels
    others = rng.integers(1, 10, size=(2, 30)).astype(np.uint8)
    train = rng.permutation(np.concatenate([np.zeros(270, np.uint8), others[0]]))
    test = rng.permutation(
        np.concatenate([np.zeros(int(rng.integers(240, 265)), np.uint8), others[1]])
    )
    sets.append((train, test))
    return sets


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
        "`{call}` chose the most common label of the test labels, on the check's labels: the "
        "model is built from the training labels alone, then scored on the test labels"
    ),
    "pooled": N_(
        "`{call}` chose the most common label of the training and test labels together, on the "
        "check's labels: the model is built from the training labels alone"
    ),
    "rarest": N_(
        "`{call}` returned the score of the rarest training label, on the check's labels: "
        "the model answers the most common one"
    ),
    "random": N_(
        "`{call}` returned one over the number of classes, on the check's labels: that is "
        "guessing at random; this model always gives the training set's most common label"
    ),
    "position": N_(
        "`{call}` took the position of the most common label among the labels for the label "
        "itself: on the check's labels, the values are not 0, 1, 2…"
    ),
    "as bytes": N_(
        "`{call}` treated the labels as bytes: on the check's labels some are above 255, and a "
        "byte wraps them round"
    ),
}


@reporting_learner_errors
def majority_accuracy(answer, dataset) -> None:
    """Notebook 00, exercise 1: ``answer(train_labels, test_labels)``, the test accuracy of a
    model that always answers the most common training label; tried on label sets of the check's
    own (``_label_sets``), then on ``dataset``'s."""
    calls.function(answer, "majority_accuracy", MAJORITY_CALL)
    cases = _label_sets()
    returned = []
    for train, test in cases:
        calls.bound(answer, "majority_accuracy", MAJORITY_CALL, train.copy(), test.copy())
        value = answer(train.copy(), test.copy())
        returned.append(calls.number(value, "majority_accuracy", MAJORITY_CALL))
    variants = [_majority_variants(train, test) for train, test in cases]
    if all(abs(value - v["right"]) < CLOSE for value, v in zip(returned, variants)):
        return _majority_on(answer, dataset)
    made = [
        message
        for mistake, message in MAJORITY_MISTAKES.items()
        if all(abs(value - v[mistake]) < CLOSE for value, v in zip(returned, variants))
    ]
    if len(made) == 1:  # named only when no other mistake gives the same values
        raise CheckFailed(said(made[0], call=MAJORITY_CALL))
    if all(abs(value - returned[0]) < CLOSE for value in returned):
        fail(
            "`{call}` returned {value:.4f} for every set of labels the check gave it, though "
            "their accuracies differ",
            call=MAJORITY_CALL,
            value=returned[0],
        )
    for digits in range(1, 5):
        if all(
            abs(value - round(v["right"], digits)) < CLOSE for value, v in zip(returned, variants)
        ):
            fail(
                "`{call}` rounds the accuracy to {digits} decimals: return it unrounded",
                call=MAJORITY_CALL,
                digits=digits,
            )
    value = next(v for v, r in zip(returned, variants) if not abs(v - r["right"]) <= CLOSE)
    fail(
        "on labels the check made up, `{call}` returned {value:.4f}: that is not the share "
        "of test labels equal to the most common training label (section 'Class balance')",
        call=MAJORITY_CALL,
        value=value,
    )


def _majority_on(answer, dataset) -> None:
    """The success line, from the answer's run on ``dataset``'s labels (copies)."""
    train, test = dataset.train_labels, dataset.test_labels
    value = calls.number(answer(train.copy(), test.copy()), "majority_accuracy", MAJORITY_CALL)
    expected = _majority_variants(train, test)
    if abs(value - expected["right"]) > CLOSE:
        fail(
            "`{call}` is right on the check's labels but not on MNIST's: it returned {value:.4f} "
            "there",
            call=MAJORITY_CALL,
            value=value,
        )
    correct(
        "on MNIST, a model that always answers {digit:.0f} is right on {accuracy:.2%} of the "
        "test digits: the baseline any accuracy on MNIST must beat (and your function gave the "
        "same on five label sets of the check's)",
        digit=expected["label"],
        accuracy=value,
    )


# Made-up names for the check's classes (none of Fashion-MNIST's)
_NAMES = (
    "Kite", "Lamp", "Mug", "Sock", "Vase", "Fork", "Hat", "Drum", "Comb", "Bell", "Rope", "Fan",
    "Bowl", "Key", "Cup", "Pen", "Map", "Jar", "Box", "Cap",
)  # fmt: skip


def _brightest(images, labels, names) -> str:
    """The name of the class whose images have the highest mean pixel."""
    return names[int(np.argmax([images[labels == k].mean() for k in range(len(names))]))]


def _brightness_variants(images, labels, names) -> dict:
    """The class each plausible computation names, by what it computed."""
    pixels = [images[labels == k].astype(np.float64) for k in range(len(names))]
    per_image = [p.reshape(len(p), -1).mean(axis=1) for p in pixels]
    by = {
        "right": np.argmax([p.mean() for p in pixels]),
        "sum": np.argmax([p.sum() for p in pixels]),
        "median": np.argmax([np.median(p) for p in pixels]),
        "max": np.argmax([p.max() for p in pixels]),
        "darkest": np.argmin([p.mean() for p in pixels]),
        "most common": np.argmax([len(p) for p in pixels]),
        "bright pixels": np.argmax([(p > 127).mean() for p in pixels]),
        "median image": np.argmax([np.median(m) for m in per_image]),
        "brightest image": np.argmax([m.max() for m in per_image]),
        "byte sum": np.argmax([images[labels == k].sum(dtype=np.uint8) for k in range(len(names))]),
    }
    best = int(by["right"])
    named = {mistake: names[int(k)] for mistake, k in by.items()}
    named["next"] = names[(best + 1) % len(names)]
    named["previous"] = names[best - 1]
    return named


def _class_images(rng, size: int, levels, shares, lift: int = 0):
    """``size`` images whose pixels take the values ``levels`` (plus a little noise) in the
    ``shares`` given, scattered; ``lift``: that many images, the first, lit in full at 250."""
    kinds = rng.choice(len(levels), p=shares, size=(size, 28, 28))
    noise = rng.integers(-4, 5, size=(size, 28, 28))
    values = np.clip(np.asarray(levels)[kinds] + noise * (np.asarray(levels)[kinds] > 0), 0, 250)
    values[:lift] = 250
    return values.astype(np.uint8)


def _made_up_images(rng, last: bool = False):
    """(images, labels, class_names) of the check's own, a class for each way of being brightest
    and a few ordinary ones, in a random order under random names, with random sizes and a little
    noise: the brightest mean, the largest sum, the highest median pixel, the brightest single
    pixel, the darkest, the most images, the most pixels above 127, the brightest median image, the
    brightest single image and the brightest's two neighbours in label order are each another
    class, and a sum of bytes, which wraps round, names another class than the brightest. A class
    close behind the brightest, evenly lit, one with a few very bright pixels and one bright in
    its centre alone catch other statistics. ``last``: the brightest has the last label."""
    for _attempt in range(100):
        u = rng.uniform
        bright = u(0.66, 0.74)  # the brightest: this share of its pixels near 205-215
        level = u(208, 218)
        mean = level * bright  # the brightest's mean, about 140 to 160
        behind = [mean - u(0.2, 0.9) for _ in range(3)]  # three classes less than 1 below it
        roles = [
            _class_images(rng, rng.integers(5, 9), [level, 0], [bright, 1 - bright]),
            _class_images(rng, rng.integers(50, 61), [u(65, 80)], [1.0]),  # the largest sum
            _class_images(rng, rng.integers(8, 15), [u(228, 240), 0], [0.55, 0.45]),  # median
            _class_images(rng, rng.integers(8, 15), [u(50, 70)], [1.0]),  # a pixel at 255, below
            _class_images(rng, rng.integers(8, 15), [u(6, 10)], [1.0]),  # the darkest
            _class_images(rng, rng.integers(65, 75), [u(25, 35)], [1.0]),  # the most images
            _class_images(rng, rng.integers(8, 15), [u(132, 140), 0], [0.9, 0.1]),  # above 127
            np.concatenate(  # most of its images bright, the rest black: the median image
                [
                    _class_images(rng, 5, [u(190, 205)], [1.0]),
                    _class_images(rng, 4, [0], [1.0]),
                ]
            ),
            _class_images(rng, rng.integers(7, 10), [u(35, 45)], [1.0], lift=1),  # brightest image
            _class_images(rng, rng.integers(8, 15), [u(60, 90)], [1.0]),  # two ordinary ones,
            _class_images(rng, rng.integers(8, 15), [u(60, 90)], [1.0]),  # the brightest's sides
            # close behind the brightest (less than one grey level: a rounded mean cannot tell
            # them apart): more of it lit, less brightly (197, in the top quarter of the bytes
            # even with the noise), which a mean of a quantization or a clip ranks first; evenly
            # lit, which a mean of a root ranks first; few pixels, very bright (250), which a
            # mean of squares or a gamma ranks first
            _class_images(
                rng, rng.integers(8, 15), [197, 0], [behind[0] / 197, 1 - behind[0] / 197]
            ),
            _class_images(rng, rng.integers(8, 15), [behind[1]], [1.0]),
            _class_images(
                rng, rng.integers(8, 15), [250, 0], [behind[2] / 250, 1 - behind[2] / 250]
            ),
            _class_images(rng, rng.integers(8, 15), [u(240, 250), 0], [0.2, 0.8]),  # bright ink
        ]
        roles[3][:, 14, 14] = 255
        centre = _class_images(rng, rng.integers(8, 15), [u(244, 250)], [1.0])  # bright centre
        centre[:, :5], centre[:, -5:], centre[:, :, :5], centre[:, :, -5:] = 0, 0, 0, 0
        roles.append(centre)
        roles += [
            _class_images(rng, rng.integers(8, 15), [rng.integers(60, 90)], [1.0])
            for _ in range(rng.integers(0, 3))
        ]
        order = list(rng.permutation(len(roles)))  # label k holds roles[order[k]]
        if last:  # the brightest at the last label, above 9
            order.remove(0)
            order.append(0)
        at = order.index(0)  # the brightest's neighbours are ordinary classes (9 and 10)
        for neighbour, filler in ((at - 1, 9), ((at + 1) % len(order), 10)):
            where = order.index(filler)
            order[neighbour], order[where] = order[where], order[neighbour]
        images = np.concatenate([roles[j] for j in order])
        labels = np.repeat(np.arange(len(roles), dtype=np.uint8), [len(roles[j]) for j in order])
        shuffled = rng.permutation(len(labels))
        images, labels = images[shuffled], labels[shuffled]
        names = tuple(rng.choice(_NAMES, size=len(roles), replace=False).tolist())
        named = _brightness_variants(images, labels, names)
        wrapped = named.pop("byte sum")  # wraps round: any class, never named as a mistake
        brightest = names[order.index(0)]  # sampling may put a class close behind in front
        means = sorted(roles[j].mean() for j in range(len(roles)))
        close = 0 < means[-1] - means[-2] < 1
        if last:  # and a whole-number mean, or one rounded to 2, ties them: the earlier label wins
            close = close and int(means[-1]) == int(means[-2])
            close = close and round(means[-1] / 2) == round(means[-2] / 2)
        if len(set(named.values())) == len(named) and wrapped != brightest == named["right"]:
            if close:
                return images, labels, names
    raise RuntimeError("no image set found")  # pragma: no cover - the roles are built to differ


# The mistakes named: those no other plausible statistic ranks the same way on the check's images.
# A median, a maximum, a threshold, a root or a crop gets the plain refusal, which names the class
# it chose and says its mean is not the highest.
BRIGHTNESS_MISTAKES = {
    "sum": N_(
        "on images the check made up, `{call}` named the class with the largest sum of pixels: "
        "a class with more images sums to more; compare means"
    ),
    "darkest": N_(
        "on images the check made up, `{call}` named the darkest class: it should name the "
        "brightest"
    ),
    "most common": N_(
        "on images the check made up, `{call}` named the class with the most images: compare "
        "the classes' mean pixel, not their sizes"
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
    whose images have the highest mean pixel; tried on three sets of images made up anew, then
    on ``dataset``'s test split with its class names in another order, then on its training split
    for the success line. The answer is given copies: what it does to them changes nothing."""
    calls.function(answer, "brightest_class", BRIGHTEST_CALL)
    rng = np.random.default_rng()
    sets = [_made_up_images(rng, last=k == 0) for k in range(3)]
    calls.bound(answer, "brightest_class", BRIGHTEST_CALL, *sets[0])
    variants = [_brightness_variants(*made_up) for made_up in sets]
    named = []
    for images, labels, names in sets:
        named.append(answer(images.copy(), labels.copy(), names))
        _name_of(named[-1], names)
    if any(str(n) != v["right"] for n, v in zip(named, variants)):
        made = [
            mistake
            for mistake in variants[0]
            if all(str(n) == v[mistake] for n, v in zip(named, variants))
        ]
        if len(made) == 1 and made[0] in BRIGHTNESS_MISTAKES:  # no other gives these classes
            raise CheckFailed(said(BRIGHTNESS_MISTAKES[made[0]], call=BRIGHTEST_CALL))
        wrong = next(str(n) for n, v in zip(named, variants) if str(n) != v["right"])
        fail(
            "on images the check made up, `{call}` named {named!r}, whose mean pixel is not the "
            "highest: average every pixel of each class's images, then take the largest",
            call=BRIGHTEST_CALL,
            named=wrong,
        )
    images, labels = dataset.test_images, dataset.test_labels
    best = list(dataset.class_names).index(_brightest(images, labels, dataset.class_names))
    order = rng.permutation(len(dataset.class_names))
    while order[best] == best:  # the brightest class gets another name than its own
        order = rng.permutation(len(dataset.class_names))
    names = tuple(dataset.class_names[k] for k in order)  # label k is called names[k]
    expected = names[best]
    given = answer(images.copy(), labels.copy(), names)
    _name_of(given, names)
    if str(given) != expected:
        fail(
            "`{call}` is right on the check's images but not on {dataset}'s test images, given "
            "with their class names in another order",
            call=BRIGHTEST_CALL,
            dataset=dataset.name,
        )
    images, labels, names = dataset.train_images, dataset.train_labels, dataset.class_names
    expected = _brightest(images, labels, names)
    given = answer(images.copy(), labels.copy(), tuple(names))
    if str(given) != expected:
        fail(
            "`{call}` is right on the check's images but named another class on {dataset}'s "
            "training images",
            call=BRIGHTEST_CALL,
            dataset=dataset.name,
        )
    correct(
        "{answer!r} images are the brightest on average in {dataset} (mean pixel {mean:.1f} of "
        "255), and your function found the brightest class of four other sets of images too",
        answer=expected,
        dataset=dataset.name,
        mean=float(images[labels == list(names).index(expected)].mean()),
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
