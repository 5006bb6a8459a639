"""Exercise checks of notebook 03: a TRAIN branch that clips its gradients and still advances the
global step, predictions computed per example, and a metric of its own as a (value, update_op) pair.
"""

from __future__ import annotations

import numpy as np

from ..language import _
from ..problems import CheckFailed
from .common import correct, fail, reporting_learner_errors, require_answer
from .metric_use import evaluated

__all__ = ["clipped_training_step", "top_predictions_per_example", "error_rate_metric_ops"]

# exercise 1: one step of gradient descent at this rate, on gradients clipped to norm 1
LEARNING_RATE = 0.1
CLIP_NORM = 1.0


# the sections of notebook 03 the messages send the learner to (functions: the heading is looked
# up in the catalogue when a message is made)
def pair_section() -> str:
    """The heading of notebook 03's section on ``(value, update_op)`` pairs, as the learner's
    edition of the notebook writes it."""
    return _("What a `(value, update_op)` pair does")


def branches_section() -> str:
    """The heading of notebook 03's section on the three branches, as the learner's edition of the
    notebook writes it."""
    return _("One forward pass, then three branches by `mode`")


# exercise 1's two training steps, on images the notebook never showed: first four dim ones (each
# pixel below 0.05) of four classes, whose gradients are all shorter than the clip norm and must
# be applied as they are; then four bright ones (pixels up to 10), all labelled with the class
# that gives the variables their longest gradients (the kernel's far above 1, the bias's above 1
# too: a bias it predicts none of), which clipping must shorten each to a norm of exactly 1
DIM_LABELS = (7, 2, 9, 4)
CLASSES = 10
# an update agrees with another within this share of the other's norm (float32 weights)
RELATIVE_TOLERANCE = 1e-3
# cosine above which an update is along a gradient (against it below minus it)
PARALLEL = 1 - 1e-4


def exercise_1_images():
    """The dim and the bright images of exercise 1's two steps, float32 [4, 28, 28] each."""
    rng = np.random.default_rng(303)
    dim = rng.uniform(0.0, 0.05, (4, 28, 28)).astype(np.float32)
    bright = rng.uniform(0.0, 10.0, (4, 28, 28)).astype(np.float32)
    return dim, bright


def _train_twice(model_fn):
    """Build ``model_fn``'s TRAIN branch on placeholders and run its train_op twice, on the dim
    images, then on the bright ones: (variable names, [(gradients, moves) per run], the global
    step before and after the first run)."""
    import tensorflow as tf

    dim, bright = exercise_1_images()
    with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(3)
        global_step = tf.compat.v1.train.create_global_step()
        images = tf.compat.v1.placeholder(tf.float32, [None, 28, 28], name="image")
        labels = tf.compat.v1.placeholder(tf.int32, [None], name="labels")
        try:
            spec = model_fn(
                features={"image": images},
                labels=labels,
                mode=tf.estimator.ModeKeys.TRAIN,
                params={},
            )
        except Exception as error:
            raise CheckFailed(
                _("building the TRAIN branch raised {kind}: {first_line}").format(
                    kind=type(error).__name__, first_line=_first_line(error)
                )
            ) from None
        if not isinstance(spec, tf.estimator.EstimatorSpec) or spec.train_op is None:
            fail(
                "the TRAIN branch should return an EstimatorSpec with a train_op: the clipped "
                "step belongs there (section '{section}', TRAIN)",
                section=branches_section(),
            )
        pairs = [
            (gradient, variable)
            for gradient, variable in zip(
                tf.gradients(spec.loss, tf.compat.v1.trainable_variables()),
                tf.compat.v1.trainable_variables(),
            )
            if gradient is not None
        ]
        if not pairs:
            fail("the loss of the TRAIN branch depends on no trainable variable")
        gradients, variables = [g for g, _v in pairs], [v for _g, v in pairs]
        runs = []
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            start = int(session.run(global_step))
            for feed in (
                lambda: {images: dim, labels: DIM_LABELS},
                lambda: _bright_feed(session, gradients, images, labels, bright),  # after a step
            ):
                feed = feed()
                grads, before = session.run([gradients, variables], feed)
                try:
                    session.run(spec.train_op, feed)
                except Exception as error:
                    raise CheckFailed(
                        _("running the train_op raised {kind}: {first_line}").format(
                            kind=type(error).__name__, first_line=_first_line(error)
                        )
                    ) from None
                after = session.run(variables)
                runs.append((grads, [old - new for old, new in zip(before, after)]))
                if len(runs) == 1:
                    end = int(session.run(global_step))
    names = [variable.op.name for variable in variables]
    return names, runs, (start, end)


def _bright_feed(session, gradients, images, labels, bright) -> dict:
    """The feed of the bright images, labelled all with the class that makes the shortest of the
    variables' gradients the longest it can be (a class the model predicts for none of them)."""

    def shortest(label):
        feed = {images: bright, labels: [label] * len(bright)}
        return min(np.linalg.norm(g) for g in session.run(gradients, feed))

    label = max(range(CLASSES), key=shortest)
    return {images: bright, labels: [label] * len(bright)}


def _near(value, target) -> bool:
    """Whether ``value`` equals ``target`` to float32 rounding (relative to ``target``'s norm)."""
    return np.linalg.norm(value - target) <= RELATIVE_TOLERANCE * np.linalg.norm(target) + 1e-7


def _clipped(gradient, norm):
    """``gradient`` shortened to a length of at most ``CLIP_NORM`` when its length is ``norm``."""
    return gradient * min(1.0, CLIP_NORM / norm) if norm > 0 else gradient


def _cosine(a, b) -> float:
    length = np.linalg.norm(a) * np.linalg.norm(b)
    return float(np.sum(a * b) / length) if length > 0 else 0.0


def _slice_clipped(gradient, axis):
    """``gradient`` with each slice along ``axis`` (the norm taken over that axis) clipped to
    ``CLIP_NORM``, as a clip given ``axes`` does."""
    norms = np.sqrt(np.sum(gradient**2, axis=axis, keepdims=True))
    return gradient * np.minimum(1.0, CLIP_NORM / np.maximum(norms, 1e-30))


@reporting_learner_errors
def clipped_training_step(model_fn) -> None:
    """Notebook 03, exercise 1: each train_op run is a gradient-descent step on each variable's
    gradient clipped to norm 1, which advances the global step by one; two runs, on small
    gradients (left as they are) and on large ones (each shortened to norm 1)."""
    require_answer(model_fn, "fixed_model_fn")
    if not callable(model_fn):
        fail(
            "`fixed_model_fn` should be a model_fn (a function), not {kind}",
            kind=type(model_fn).__name__,
        )
    names, runs, (start, end) = _train_twice(model_fn)
    rate, clip = LEARNING_RATE, CLIP_NORM
    if end == start:
        fail(
            "one run of your train_op leaves the global step at {end}, so Estimator never "
            "counts a step: the op that applies the gradients does not know the global step it "
            "should advance (section '{section}', TRAIN)",
            end=end,
            section=branches_section(),
        )
    if end != start + 1:
        fail(
            "one run of your train_op moves the global step from {start} to {end}: a training "
            "step must advance it by exactly one (is it advanced twice?)",
            start=start,
            end=end,
        )
    if not any(np.any(move != 0) for _grads, moves in runs for move in moves):
        fail("one run of your train_op changed no weight: it should apply the clipped gradients")
    # each variable's step in each run, the reference's: each gradient clipped on its own; the
    # same step on gradients clipped together, by their global norm, is right too
    each, together = [], []
    for grads, _moves in runs:
        total = float(np.sqrt(sum(np.sum(g**2) for g in grads)))
        each.append([rate * _clipped(g, float(np.linalg.norm(g))) for g in grads])
        together.append([rate * _clipped(g, total) for g in grads])
    pairs = [
        (name, g, move, want)
        for (grads, moves), wants in zip(runs, each)
        for name, g, move, want in zip(names, grads, moves, wants)
    ]

    def everywhere(expected) -> bool:
        return all(_near(move, expected(g, want)) for _name, g, move, want in pairs)

    bright_grads = runs[-1][0]
    if everywhere(lambda g, want: want) or all(
        _near(move, want)
        for (_grads, moves), wants in zip(runs, together)
        for move, want in zip(moves, wants)
    ):
        return correct(
            "one run moves the global step from {start} to {end}, and each weight by at most "
            "{most:g} (the kernel's gradient had norm {norm:.1f})",
            start=start,
            end=end,
            most=rate * clip,
            norm=float(np.linalg.norm(bright_grads[0])),
        )
    if everywhere(lambda g, want: rate * g):
        fail(
            "the step used the gradients as they are (the kernel's has norm {norm:.1f}): clip "
            "them to a norm of at most {clip:g} between computing and applying them",
            norm=float(np.linalg.norm(bright_grads[0])),
            clip=clip,
        )
    if everywhere(lambda g, want: rate * np.clip(g, -clip, clip)):
        fail(
            "each gradient *value* was clipped to [-1, 1]: the norm of each "
            "gradient, the length of the whole vector, is what should be at most 1"
        )
    factors = [
        float(np.linalg.norm(move) / np.linalg.norm(want))
        for _name, _g, move, want in pairs
        if np.linalg.norm(want) > 0 and _cosine(move, want) > PARALLEL
    ]
    if len(factors) == len(pairs) and max(factors) <= min(factors) * (1 + 2 * RELATIVE_TOLERANCE):
        fail(
            "each run of your train_op moved every variable along its clipped gradient, "
            "{factor:.3g} times as far as gradient descent at learning rate {rate:g} moves it: "
            "which learning rate, and are the gradients applied once?",
            factor=float(np.median(factors)),
            rate=rate,
        )
    for name, g, move, want in pairs:
        if not _near(move, want):
            _say_how_it_moved(name, g, move, want)


def _say_how_it_moved(name, gradient, move, want) -> None:
    """Refuse, in one line, the step ``move`` of the variable ``name`` whose gradient was
    ``gradient``, where the reference moved it by ``want``."""
    rate, clip = LEARNING_RATE, CLIP_NORM
    norm, moved = float(np.linalg.norm(gradient)), float(np.linalg.norm(move))
    if moved <= RELATIVE_TOLERANCE * float(np.linalg.norm(want)):
        fail(
            "one run of your train_op left {name} where it was, though its gradient had norm "
            "{norm:.3g}: every trainable variable's gradient, clipped, should be applied",
            name=name,
            norm=norm,
        )
    direction = _cosine(move, gradient)
    if direction < -PARALLEL:
        fail(
            "one run of your train_op moved {name} along its gradient, which raises the loss: "
            "gradient descent moves each variable against its clipped gradient",
            name=name,
        )
    if direction > PARALLEL:
        if norm > clip and abs(moved - rate * norm) <= RELATIVE_TOLERANCE * rate * norm:
            fail(
                "one run of your train_op applied the gradient of {name} unclipped, at its full "
                "norm of {norm:.3g}: clip each variable's gradient to a norm of at most {clip:g}, "
                "{name}'s too",
                name=name,
                norm=norm,
                clip=clip,
            )
        fail(
            "one run of your train_op moved {name} by {moved:.3g} against its gradient, whose "
            "norm was {norm:.3g}: that gradient, clipped to a norm of at most {clip:g} and "
            "multiplied by the learning rate {rate:g}, moves it by {want:.3g}",
            name=name,
            moved=moved,
            norm=norm,
            clip=clip,
            rate=rate,
            want=float(np.linalg.norm(want)),
        )
    if _near(move, rate * np.clip(gradient, -clip, clip)):
        fail(
            "each gradient *value* was clipped to [-1, 1]: the norm of each "
            "gradient, the length of the whole vector, is what should be at most 1"
        )
    for axis in range(np.ndim(gradient)) if np.ndim(gradient) > 1 else ():
        if _near(move, rate * _slice_clipped(gradient, axis)):
            fail(
                "one run of your train_op clipped the gradient of {name} in slices, the norm of "
                "each taken over axis {axis} alone: the norm to clip to {clip:g} is that of the "
                "whole gradient, over all its axes",
                name=name,
                axis=axis,
                clip=clip,
            )
    fail(
        "one run of your train_op moved {name} in another direction than its gradient's: "
        "clipping only shortens a gradient, and gradient descent at learning rate {rate:g} "
        "moves each variable straight against it (which optimizer?)",
        name=name,
        rate=rate,
    )


# Exercise 2: logits of 4 examples whose classes, by probability, are all different (no ties).
EXERCISE_2_LOGITS = np.array(
    [
        [0.1, 2.0, -1.0, 0.5, 0.0, 1.2, -0.3, 0.7, 0.2, -2.0],
        [3.0, 0.1, 0.2, -0.5, 2.1, 0.0, 0.4, -1.0, 0.3, 0.6],
        [-0.2, 0.3, 0.1, 0.0, -1.0, 0.5, 1.5, 2.5, 0.6, 0.7],
        [0.4, -0.1, 0.2, 1.9, 0.0, 0.3, -0.6, 0.1, 2.2, 0.5],
    ],
    dtype=np.float32,
)


def _run_predictions(function):
    import tensorflow as tf

    with tf.Graph().as_default():
        logits = tf.compat.v1.placeholder(tf.float32, [None, 10], name="logits")
        try:
            predictions = function(logits)
        except Exception as error:
            raise CheckFailed(
                _("top_predictions(logits) raised {kind}: {first_line}").format(
                    kind=type(error).__name__, first_line=_first_line(error)
                )
            ) from None
        if not isinstance(predictions, dict):
            fail(
                "top_predictions returned a {kind}: return the predictions dict, "
                '{{"top_2": …, "confidence": …}}',
                kind=type(predictions).__name__,
            )
        if sorted(predictions) != ["confidence", "top_2"]:
            fail(
                "the predictions have the keys {keys}: use exactly 'top_2' and 'confidence'",
                keys=sorted(map(str, predictions)),
            )
        with tf.compat.v1.Session() as session:
            return {
                key: np.asarray(value)
                for key, value in session.run(predictions, {logits: EXERCISE_2_LOGITS}).items()
            }


@reporting_learner_errors
def top_predictions_per_example(function) -> None:
    """Notebook 03, exercise 2: per example, the two most probable classes and the highest
    probability."""
    require_answer(function, "top_predictions")
    if not callable(function):
        fail(
            "`top_predictions` should be a function of the logits, not {kind}",
            kind=type(function).__name__,
        )
    values = _run_predictions(function)
    batch = len(EXERCISE_2_LOGITS)
    exp = np.exp(EXERCISE_2_LOGITS - EXERCISE_2_LOGITS.max(axis=1, keepdims=True))
    probabilities = exp / exp.sum(axis=1, keepdims=True)
    order = np.argsort(-probabilities, axis=1)
    for key, shape in (("top_2", (batch, 2)), ("confidence", (batch,))):
        got = values[key].shape
        found = dict(key=key, got=got, batch=batch, shape=shape, section=branches_section())
        if got != shape and got in ((), (10,), (2,)):
            fail(
                "'{key}' has shape {got} for a batch of {batch} (it reduced over the batch, "
                "axis 0): Estimator needs the batch first, and '{key}' should have shape "
                "{shape} (section '{section}', PREDICT)",
                **found,
            )
        if got != shape:
            fail(
                "'{key}' has shape {got} for a batch of {batch}: Estimator needs the batch "
                "first, and '{key}' should have shape {shape} (section '{section}', PREDICT)",
                **found,
            )
    top_2 = values["top_2"]
    if not np.issubdtype(top_2.dtype, np.integer):
        fail(
            "'top_2' holds {dtype} values: it should hold class ids, whole numbers 0–9",
            dtype=top_2.dtype,
        )
    if np.array_equal(top_2, order[:, ::-1][:, :2]):
        fail("'top_2' holds the two *least* probable classes of each example: sort the other way")
    if np.array_equal(top_2, order[:, [1, 0]]):
        fail("'top_2' has the right two classes in the wrong order: the most probable comes first")
    if not np.array_equal(top_2, order[:, :2]):
        fail("'top_2' is not the two most probable classes of each example, most probable first")
    confidence = values["confidence"]
    if np.allclose(confidence, EXERCISE_2_LOGITS.max(axis=1), atol=1e-5):
        fail("'confidence' is the highest *logit* of each example: it should be a probability")
    if not np.allclose(confidence, probabilities.max(axis=1), atol=1e-5):
        fail("'confidence' is not the probability of each example's most probable class")
    correct(
        "'top_2' has shape {top_2} and 'confidence' shape {confidence} for a batch of {batch}: "
        "per example, its two most probable classes and the probability of the first",
        top_2=top_2.shape,
        confidence=confidence.shape,
        batch=batch,
    )


# exercise 3's two evaluations, each a list of (labels, classes) batches of different sizes: the
# first 1 wrong of 4, then 1 of 2 (2 of 6); the second 0 of 3, 2 of 5, 1 of 2, 2 of 3 (5 of 13).
# On them each mistake ``_error_readings`` names gives its own value (tests/helpers/checks).
EXERCISE_3_BATCHES = (
    (([0, 1, 2, 3], [0, 1, 2, 0]), ([4, 5], [4, 4])),
    (
        ([1, 2, 3], [1, 2, 3]),
        ([6, 7, 8, 9, 0], [6, 1, 8, 2, 0]),
        ([5, 5], [5, 3]),
        ([9, 8, 7], [9, 0, 1]),
    ),
)
# a value within this share of a reading (at least 1) is that reading (float32 counts, divisions)
METRIC_TOLERANCE = 1e-6


def _same(value: float, reading: float) -> bool:
    return abs(value - reading) <= METRIC_TOLERANCE * max(1.0, abs(reading))


def _wrong_counts(batches) -> list:
    """(wrong, examples) of each batch."""
    return [
        (sum(label != cls for label, cls in zip(labels, classes)), len(labels))
        for labels, classes in batches
    ]


def _error_readings(batches) -> dict:
    """What the plausible mistakes give on ``batches``, by name (``error_rate_messages()``'s
    keys): a reading is named when it is the value on every evaluation."""
    counts = _wrong_counts(batches)
    wrong, total = sum(w for w, _n in counts), sum(n for _w, n in counts)
    return {
        "last batch": counts[-1][0] / counts[-1][1],
        "mean of batches": float(np.mean([w / n for w, n in counts])),
        "accuracy": 1 - wrong / total,
        "first batch": counts[0][0] / counts[0][1],
        "percent": 100 * wrong / total,
        "count": float(wrong),
    }


def error_rate_messages() -> dict:
    """The message of each reading of ``_error_readings``, in the learner's language, formatted
    with {value} (the first evaluation's value), {wrong} and {total} (its counts) and
    {section}."""
    return {
        "last batch": _(
            "after two batches the value is {value:.4f}, the second batch alone: the update op "
            "must add each batch to running totals (section '{section}')"
        ),
        "mean of batches": _(
            "after two batches the value is {value:.4f}, the mean of the two batches' error "
            "rates (1/4 and 1/2), which weighs the batch of 2 like the batch of 4: count wrong "
            "examples and all examples over the batches, then divide (section '{section}')"
        ),
        "accuracy": _(
            "after two batches the value is {value:.4f}, the accuracy, the fraction of "
            "examples *right* (section '{section}')"
        ),
        "first batch": _(
            "after two batches the value is {value:.4f}, the first batch alone: the value must "
            "read totals that every update adds to (section '{section}')"
        ),
        "percent": _(
            "after two batches with {wrong} of {total} classes wrong the value is "
            "{value:.4f}, the error rate in percent: an eval metric is the fraction itself, "
            "between 0 and 1, as the accuracy is (section '{section}')"
        ),
        "count": _(
            "after two batches with {wrong} of {total} classes wrong the value is "
            "{value:.4f}, the number of wrong examples: the rate divides it by the number of "
            "examples evaluated, which the update op must count too (section '{section}')"
        ),
    }


@reporting_learner_errors
def error_rate_metric_ops(metric_fn) -> None:
    """Notebook 03, exercise 3: ``{"error_rate": (value, update_op)}`` over all the batches
    evaluated, in two evaluations of batches of different sizes."""
    require_answer(metric_fn, "error_rate_ops")
    if not callable(metric_fn):
        fail(
            "`error_rate_ops` should be a function of `(labels, classes)`, not {kind}",
            kind=type(metric_fn).__name__,
        )
    _require_reading_the_batch(metric_fn)
    values = [_evaluated_error_rate(metric_fn, batches) for batches in EXERCISE_3_BATCHES]
    counts = [_wrong_counts(batches) for batches in EXERCISE_3_BATCHES]
    wrong = [sum(w for w, _n in each) for each in counts]
    total = [sum(n for _w, n in each) for each in counts]
    rights = [w / n for w, n in zip(wrong, total)]
    if all(_same(value, right) for value, right in zip(values, rights)):
        return correct(
            "after two batches (1 of 4 wrong, then 1 of 2) the error rate is 2/6 = 0.3333: "
            "the update op accumulates, the value reads the totals"
        )
    found = dict(value=values[0], wrong=wrong[0], total=total[0], section=pair_section())
    readings = [_error_readings(batches) for batches in EXERCISE_3_BATCHES]
    for key, message in error_rate_messages().items():
        if all(_same(value, seen[key]) for value, seen in zip(values, readings)):
            raise CheckFailed(message.format(**found))
    # a constant scale or a constant change of the denominator, found from the two evaluations
    factors = [value / right for value, right in zip(values, rights)]
    if (
        abs(factors[0] - 1) > 1e-3
        and abs(factors[0]) > 1e-3
        and abs(factors[1] - factors[0]) <= 1e-4 * abs(factors[0])
    ):
        fail(
            "after two batches with {wrong} of {total} classes wrong the value is {value:.4f}, "
            "{factor:.4g} times the error rate, on other batches too: the rate is the wrong "
            "examples divided by all the examples evaluated, nothing more (section '{section}')",
            factor=factors[0],
            **found,
        )
    if all(value > 0 for value in values):
        shifts = [w / value - n for w, n, value in zip(wrong, total, values)]
        nearest = round(shifts[0])
        if nearest != 0 and all(abs(shift - nearest) <= 1e-4 for shift in shifts):
            fail(
                "after two batches with {wrong} of {total} classes wrong the value is "
                "{value:.4f}, {wrong} divided by {denominator}: divide by the number of examples "
                "evaluated, {total} (section '{section}')",
                denominator=total[0] + nearest,
                **found,
            )
    first_wrong = 1 if _same(values[0], rights[0]) else 0
    fail(
        "after {batches} batches with {wrong} of {total} classes wrong the value is {value:.4f}: "
        "compare `labels` with `classes` and count the examples where they differ",
        batches=len(EXERCISE_3_BATCHES[first_wrong]),
        wrong=wrong[first_wrong],
        total=total[first_wrong],
        value=values[first_wrong],
    )


def _require_reading_the_batch(metric_fn) -> None:
    """Refuse an update op that reads neither the labels nor the classes: ``evaluate()`` stops when
    the batches run out, and such an op never asks for the next one."""
    import tensorflow as tf

    with tf.Graph().as_default():
        labels = tf.compat.v1.placeholder(tf.int32, [None], name="labels")
        classes = tf.compat.v1.placeholder(tf.int32, [None], name="classes")
        try:
            ops = metric_fn(labels, classes)
        except Exception as error:  # the learner's function failed: one line
            raise CheckFailed(
                _(
                    "running error_rate_ops(labels, classes) on two batches raised {kind}: "
                    "{first_line}"
                ).format(kind=type(error).__name__, first_line=_first_line(error))
            ) from None
        pair = ops.get("error_rate") if isinstance(ops, dict) else None
        if not isinstance(pair, tuple) or len(pair) != 2:
            return  # evaluated() names what it is instead
        value, update = pair
        if not all(isinstance(getattr(x, "op", x), tf.Operation) for x in pair):
            return  # not a tensor or an op: evaluated() says so
        if _depends_on(value, {labels.op, classes.op}):
            fail(
                "the value needs the current batch to be computed: it must read the totals that "
                "the update op accumulates"
            )
        if not _depends_on(update, {labels.op, classes.op}):
            fail(
                "the update op reads neither `labels` nor `classes`, so it adds nothing of "
                "the batch to the totals, and evaluate() would never end (in a graph, `!=` "
                "between two tensors compares the objects, not their values) (section "
                "'{section}')",
                section=pair_section(),
            )


def _depends_on(op_or_tensor, ops) -> bool:
    """Whether running ``op_or_tensor`` (a tensor, an op or anything with an ``op``) runs any of
    ``ops``, through inputs and control dependencies."""
    import tensorflow as tf

    # a tensor, an op, or what a resource variable's assign returns in a graph (its op the assign)
    start = op_or_tensor if isinstance(op_or_tensor, tf.Operation) else op_or_tensor.op
    seen, pending = set(), [start]
    while pending:
        op = pending.pop()
        if op in ops:
            return True
        if op not in seen:
            seen.add(op)
            pending.extend(tensor.op for tensor in op.inputs)
            pending.extend(op.control_inputs)
    return False


def _evaluated_error_rate(metric_fn, batches) -> float:
    """The value a real ``Estimator.evaluate`` reports for the learner's metric over
    ``batches``; an error in the learner's function is one line."""
    try:
        return float(
            evaluated(
                metric_fn,
                "error_rate_ops",
                "error_rate",
                batches,
                section=pair_section(),  # cited at the end of evaluated()'s messages
            )
        )
    except CheckFailed:
        raise
    except Exception as error:  # the learner's function failed (a typo, a wrong argument): one line
        raise CheckFailed(
            _(
                "running error_rate_ops(labels, classes) on two batches raised {kind}: {first_line}"
            ).format(kind=type(error).__name__, first_line=_first_line(error))
        ) from None


def _first_line(error: BaseException) -> str:
    """The first line of ``error``'s text, or nothing when it has none."""
    return (str(error).strip().splitlines() or [""])[0]
