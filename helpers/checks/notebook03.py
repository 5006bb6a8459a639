"""Exercise checks of notebook 03: a TRAIN branch that clips its gradients and still advances the
global step, predictions computed per example, and a metric of its own as a (value, update_op) pair.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np

from ..language import _
from ..learner_code import error_text
from ..problems import CheckFailed
from .common import correct, fail, reporting_learner_errors, require_answer
from .metric_use import evaluated, ops_run

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


# exercise 1's three training steps, on images the notebook never showed, at global steps 0, 1
# and 2: first four bright ones (pixels up to 10), all labelled with the class that gives the
# variables their longest gradients (the kernel's far above 1, the bias's above 1 too: a bias it
# predicts none of), which clipping must shorten each to a norm of exactly 1, each on its own;
# then four dim ones (each pixel below 0.05) of four classes, whose gradients are all shorter than
# the clip norm and must be applied as they are; last the bright ones again, each labelled with
# the class the model finds likeliest, every variable first scaled by one factor (the logits with
# it) until the loss is small: the kernel's gradient is still far above 1, and must be clipped
# whatever the loss. Large gradients come at the first global step and at the last, at a large
# loss and at a small one: a clip that waits for a later step, or for a large loss, lets one
# through
BRIGHT, DIM, CONFIDENT = 0, 1, 2  # the runs, in order
DIM_LABELS = (7, 2, 9, 4)
CLASSES = 10
# the last step's loss lies between these, well below 1
CONFIDENT_LOSS = (0.1, 0.3)
# an update agrees with another within this share of the other's norm. A move is the difference
# of two float32 weights (below 1, each rounded to about 6e-8 of itself), the reference is worked
# out from float32 gradients summed in another order: the two agree to about 1e-5 of the move,
# and 1e-3 leaves room for that. Clipping by the global norm instead misses by far more: on the
# bright steps the bias's gradient is about a hundredth of the global norm, and its step shrinks
# about a hundredfold
RELATIVE_TOLERANCE = 1e-3
# cosine above which an update is along a gradient (against it below minus it)
PARALLEL = 1 - 1e-4


def exercise_1_images():
    """The dim and the bright images of exercise 1's steps, float32 [4, 28, 28] each."""
    rng = np.random.default_rng(303)
    dim = rng.uniform(0.0, 0.05, (4, 28, 28)).astype(np.float32)
    bright = rng.uniform(0.0, 10.0, (4, 28, 28)).astype(np.float32)
    return dim, bright


def _train_spec(model_fn, images, labels):
    """``model_fn``'s TRAIN branch on ``images`` and ``labels``; one line when building it fails
    or it has no train_op."""
    import tensorflow as tf

    try:
        spec = model_fn(
            features={"image": images}, labels=labels, mode=tf.estimator.ModeKeys.TRAIN, params={}
        )
    except Exception as error:
        raise CheckFailed(
            _("building the TRAIN branch raised {error}").format(error=_quoted(error))
        ) from None
    if not isinstance(spec, tf.estimator.EstimatorSpec) or spec.train_op is None:
        fail(
            "the TRAIN branch should return an EstimatorSpec with a train_op: the clipped "
            "step belongs there (section '{section}', TRAIN)",
            section=branches_section(),
        )
    return spec


def _train_steps(model_fn):
    """Build ``model_fn``'s TRAIN branch on placeholders and run its train_op three times, on the
    bright images, the dim ones, then the bright ones with a small loss: (variable names,
    [(loss, gradients, moves) per run], the global step before the first run and after each)."""
    import tensorflow as tf

    with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(3)
        global_step = tf.compat.v1.train.create_global_step()
        images = tf.compat.v1.placeholder(tf.float32, [None, 28, 28], name="image")
        labels = tf.compat.v1.placeholder(tf.int32, [None], name="labels")
        spec = _train_spec(model_fn, images, labels)
        trainable = tf.compat.v1.trainable_variables()
        pairs = [
            (gradient, variable)
            for gradient, variable in zip(tf.gradients(spec.loss, trainable), trainable)
            if gradient is not None
        ]
        if not pairs:
            fail("the loss of the TRAIN branch depends on no trainable variable")
        model = SimpleNamespace(images=images, labels=labels, loss=spec.loss, step=global_step)
        model.gradients, model.variables = [g for g, _v in pairs], [v for _g, v in pairs]
        model.train_op = spec.train_op
        # to scale the variables before the last step
        model.holders = [
            tf.compat.v1.placeholder(v.dtype.base_dtype, v.shape) for v in model.variables
        ]
        model.setters = [v.assign(h) for v, h in zip(model.variables, model.holders)]
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            runs, steps = _run_three_steps(session, model)
    names = [variable.op.name for variable in model.variables]
    return names, runs, steps


def _run_three_steps(session, model):
    """Run the train_op on the bright images, the dim ones, then the bright ones at a small loss:
    ([(loss, gradients, moves) per run], the global step before the first run and after each)."""
    dim, bright = exercise_1_images()
    feeds = {
        BRIGHT: lambda: _bright_feed(session, model, bright),
        DIM: lambda: {model.images: dim, model.labels: DIM_LABELS},
        CONFIDENT: lambda: _confident_feed(session, model, bright),  # after two steps
    }
    runs, steps = [], [int(session.run(model.step))]
    for run in (BRIGHT, DIM, CONFIDENT):
        runs.append(_run_step(session, model, feeds[run]()))
        steps.append(int(session.run(model.step)))
    return runs, steps


def _run_step(session, model, feed):
    """Run the train_op once on ``feed``: (the loss, the gradients, each variable's move)."""
    loss, grads, before = session.run([model.loss, model.gradients, model.variables], feed)
    try:
        session.run(model.train_op, feed)
    except Exception as error:
        raise CheckFailed(
            _("running the train_op raised {error}").format(error=_quoted(error))
        ) from None
    after = session.run(model.variables)
    return float(loss), grads, [old - new for old, new in zip(before, after)]


def _bright_feed(session, model, bright) -> dict:
    """The feed of the bright images, labelled all with the class that makes the shortest of the
    variables' gradients the longest it can be (a class the model predicts for none of them)."""

    def shortest(label):
        feed = {model.images: bright, model.labels: [label] * len(bright)}
        return min(np.linalg.norm(g) for g in session.run(model.gradients, feed))

    label = max(range(CLASSES), key=shortest)
    return {model.images: bright, model.labels: [label] * len(bright)}


def _confident_feed(session, model, pictures) -> dict:
    """The feed of ``pictures``, each labelled with the class the model finds likeliest, once
    every variable is scaled by the one factor (found by bisection) that brings the loss within
    ``CONFIDENT_LOSS``: on a linear model the logits scale with it, and the loss falls as it
    grows, from ln 10 at 0."""

    def loss_of(feed) -> float:
        return float(session.run(model.loss, feed))

    likeliest = [
        min(
            range(CLASSES),
            key=lambda label: loss_of({model.images: picture[None], model.labels: [label]}),
        )
        for picture in pictures
    ]
    feed = {model.images: pictures, model.labels: likeliest}
    values = session.run(model.variables)
    low, high, scale = 0.0, None, 1.0
    for _attempt in range(60):
        session.run(model.setters, dict(zip(model.holders, [scale * v for v in values])))
        loss = loss_of(feed)
        if CONFIDENT_LOSS[0] <= loss <= CONFIDENT_LOSS[1]:
            break
        low, high = (scale, high) if loss > CONFIDENT_LOSS[1] else (low, scale)
        scale = 2 * scale if high is None else (low + high) / 2
    return feed


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


def _require_one_step_per_run(steps) -> None:
    """Refuse a train_op whose runs do not each advance the global step by exactly one:
    ``steps`` is the global step before the first run and after each."""
    start, end = steps[0], steps[1]
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
    for run, (before, after) in enumerate(zip(steps[1:], steps[2:]), start=2):
        if after != before + 1:
            fail(
                "the first run of your train_op moved the global step from {start} to {end}, "
                "but run {run} moved it from {before} to {after}: each run must advance it by "
                "one from the value it has (is it set rather than advanced?)",
                start=start,
                end=end,
                run=run,
                before=before,
                after=after,
            )


@reporting_learner_errors
def clipped_training_step(model_fn) -> None:
    """Notebook 03, exercise 1: each train_op run is a gradient-descent step on each variable's
    gradient clipped to norm 1, which advances the global step by one; three runs, on large
    gradients (each shortened to norm 1 on its own), on small ones (left as they are) and on
    large ones of a small loss (shortened too)."""
    require_answer(model_fn, "fixed_model_fn")
    if not callable(model_fn):
        fail(
            "`fixed_model_fn` should be a model_fn (a function), not {kind}",
            kind=type(model_fn).__name__,
        )
    names, runs, steps = _train_steps(model_fn)
    _require_one_step_per_run(steps)
    if not any(np.any(move != 0) for _loss, _grads, moves in runs for move in moves):
        fail("one run of your train_op changed no weight: it should apply the clipped gradients")
    # each variable's step in each run, the reference's: each gradient clipped on its own
    pairs = [
        (name, g, move, LEARNING_RATE * _clipped(g, float(np.linalg.norm(g))))
        for _loss, grads, moves in runs
        for name, g, move in zip(names, grads, moves)
    ]
    if all(_near(move, want) for _name, _g, move, want in pairs):
        return correct(
            "one run moves the global step from {start} to {end}, and each weight by at most "
            "{most:g} (the kernel's gradient had norm {norm:.1f})",
            start=steps[0],
            end=steps[1],
            most=LEARNING_RATE * CLIP_NORM,
            norm=float(np.linalg.norm(runs[BRIGHT][1][0])),
        )
    _refuse_clipping_together(names, runs)
    _refuse_a_mistake_of_every_variable(runs, pairs)
    _refuse_a_clip_that_comes_and_goes(names, runs, steps)
    for name, g, move, want in pairs:
        if not _near(move, want):
            _say_how_it_moved(name, g, move, want)


def _refuse_clipping_together(names, runs) -> None:
    """Refuse steps that all clip the gradients together, by their global norm, naming the
    variable whose step that shortened the most."""
    rate = LEARNING_RATE
    steps = []  # (the run's global norm, name, move, that step clipped together, clipped alone)
    for _loss, grads, moves in runs:
        total = float(np.sqrt(sum(np.sum(g**2) for g in grads)))
        steps += [
            (total, name, move, rate * _clipped(g, total), rate * _clipped(g, np.linalg.norm(g)))
            for name, g, move in zip(names, grads, moves)
        ]
    if not all(_near(move, together) for _total, _name, move, together, _alone in steps):
        return
    total, name, move, _together, alone = max(
        steps, key=lambda step: np.linalg.norm(step[4]) / (np.linalg.norm(step[2]) + 1e-30)
    )
    fail(
        "one run of your train_op clipped the gradients together, by their global norm "
        "({total:.3g}): that moved {name} by {moved:.3g}, where its own gradient, clipped to "
        "a norm of at most {clip:g}, moves it by {want:.3g}: clip each variable's gradient "
        "on its own",
        total=total,
        name=name,
        moved=float(np.linalg.norm(move)),
        clip=CLIP_NORM,
        want=float(np.linalg.norm(alone)),
    )


def _refuse_a_mistake_of_every_variable(runs, pairs) -> None:
    """Refuse, in one line, steps that all make the same mistake: the gradients not clipped,
    clipped value by value, or scaled by another rate."""
    rate, clip = LEARNING_RATE, CLIP_NORM
    if all(_near(move, rate * g) for _name, g, move, _want in pairs):
        fail(
            "the step used the gradients as they are (the kernel's has norm {norm:.1f}): clip "
            "them to a norm of at most {clip:g} between computing and applying them",
            norm=float(np.linalg.norm(runs[BRIGHT][1][0])),
            clip=clip,
        )
    if all(_near(move, rate * np.clip(g, -clip, clip)) for _name, g, move, _want in pairs):
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


def _refuse_a_clip_that_comes_and_goes(names, runs, steps) -> None:
    """Refuse a gradient left unclipped in one run though longer than the clip norm, where
    another run clipped the same variable's gradient right: the global step each of the two runs
    started at (``steps``, before each run) and its loss are stated."""
    rate, clip = LEARNING_RATE, CLIP_NORM
    for index, name in enumerate(names):
        long = [
            (step, loss, grads[index], moves[index])
            for step, (loss, grads, moves) in zip(steps, runs)
            if np.linalg.norm(grads[index]) > clip * (1 + 2 * RELATIVE_TOLERANCE)
        ]
        clipped = [
            (step, loss)
            for step, loss, g, move in long
            if _near(move, rate * _clipped(g, float(np.linalg.norm(g))))
        ]
        unclipped = [(step, loss, g) for step, loss, g, move in long if _near(move, rate * g)]
        if clipped and unclipped:
            (step, loss, gradient), (other_step, other) = unclipped[0], clipped[0]
            fail(
                "one run of your train_op applied the gradient of {name} unclipped, at its full "
                "norm of {norm:.3g}, though another run clipped it: a gradient longer than "
                "{clip:g} must be clipped on every step (the run that did not clip started at "
                "global step {step} with a loss of {loss:.2f}, the one that did at global step "
                "{other_step} with a loss of {other:.2f})",
                name=name,
                norm=float(np.linalg.norm(gradient)),
                clip=clip,
                step=step,
                loss=loss,
                other_step=other_step,
                other=other,
            )


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
# then a batch of 1 and an odd one of 7, as Estimator's last batch may be: rows whose logits are
# all negative, or all but one (where the best logit zeroed, or masked by a product, becomes the
# runner-up), among others; last a batch of 4, three of whose rows have logits from 100 to 150,
# where the exp of a logit overflows float32 (a softmax by hand that does not subtract each row's
# largest logit gives nan), and a row of small logits (which underflow when the batch's largest
# is subtracted). In each row the three most probable classes differ by 0.02 or more
EXERCISE_2_BATCHES = (
    EXERCISE_2_LOGITS,
    np.array([[-1.2, -0.4, -2.5, -0.9, -3.1, -1.7, -0.1, -2.2, -1.4, -0.6]], dtype=np.float32),
    np.array(
        [
            [-1.0, -2.0, 1.5, -0.3, -1.4, -2.6, -0.8, -3.0, -1.9, -0.9],
            [-0.7, -1.5, -2.2, -0.2, -1.0, -3.3, -2.8, -1.1, -1.6, -2.0],
            [0.3, 1.1, -0.5, 2.4, 0.0, -1.2, 0.6, 1.8, -0.9, 0.2],
            [-2.1, -0.9, -1.7, -2.9, -0.3, -1.3, -2.4, -3.5, -1.2, 0.9],
            [-4.0, -3.2, -2.7, -3.8, -1.9, -2.3, -3.5, -2.6, -3.0, -1.4],
            [1.2, -0.6, 0.4, -1.5, 2.7, 0.9, -0.2, 3.1, -0.8, 0.1],
            [-1.3, 2.0, -1.1, -0.9, -2.3, -1.6, -0.4, -2.8, -1.9, -3.0],
        ],
        dtype=np.float32,
    ),
    np.array(
        [
            [100.0, 3.2, -1.5, 97.8, 0.4, 12.0, -7.0, 95.5, 2.0, 40.0],
            [0.6, -0.4, 1.9, -1.2, 0.2, 2.6, -0.7, 0.9, -2.0, 1.3],
            [120.5, 118.0, 121.7, 119.2, 117.1, 116.4, 118.8, 115.0, 114.3, 119.9],
            [-2.0, 150.0, 0.5, -1.0, 148.6, 3.0, 1.0, 0.0, -0.5, 2.5],
        ],
        dtype=np.float32,
    ),
)
# the largest float32 whose exp is finite (about 88.72): the exp of a larger logit overflows
LARGEST_EXP = float(np.log(np.finfo(np.float32).max))
PREDICTION_KEYS = ("top_2", "confidence")


def _predictions_of(function, logits) -> dict:
    """``function(logits)``, the predictions dict of a PREDICT branch: one line when calling it
    fails, or when it is not a dict of the two keys' tensors, as ``EstimatorSpec`` takes."""
    import tensorflow as tf

    from ..logs import logger_level

    try:
        predictions = function(logits)
    except Exception as error:
        raise CheckFailed(
            _("top_predictions(logits) raised {error}").format(error=_quoted(error))
        ) from None
    if not isinstance(predictions, dict):
        fail(
            "top_predictions returned a value of type {kind}: return the predictions dict, "
            '{{"top_2": …, "confidence": …}}',
            kind=type(predictions).__name__,
        )
    if sorted(predictions) != sorted(PREDICTION_KEYS):
        fail(
            "the predictions have the keys {keys}: use exactly 'top_2' and 'confidence'",
            keys=sorted(map(str, predictions)),
        )
    for key in PREDICTION_KEYS:
        try:  # as the lesson uses them: the predictions of a PREDICT branch's EstimatorSpec
            with logger_level("ERROR"):
                tf.estimator.EstimatorSpec(
                    tf.estimator.ModeKeys.PREDICT, predictions={key: predictions[key]}
                )
        except Exception:
            fail(
                "'{key}' holds a value of type {kind}: an EstimatorSpec takes only tensors as "
                "predictions, computed from `logits` in the graph the PREDICT branch builds",
                key=key,
                kind=type(predictions[key]).__name__,
            )
    return predictions


def _run_predictions(function) -> list:
    """``function``'s predictions on each batch of ``EXERCISE_2_BATCHES``, as numpy arrays by
    key; one line when computing one raises."""
    import tensorflow as tf

    with tf.Graph().as_default():
        logits = tf.compat.v1.placeholder(tf.float32, [None, 10], name="logits")
        predictions = _predictions_of(function, logits)
        top_2 = predictions["top_2"]
        if not top_2.dtype.is_integer:
            fail(
                "'top_2' holds {dtype} values: it should hold class ids, whole numbers 0–9",
                dtype=top_2.dtype.name,
            )
        found = []
        with tf.compat.v1.Session() as session:
            for batch in EXERCISE_2_BATCHES:
                found.append({})
                for key in PREDICTION_KEYS:
                    try:
                        value = session.run(predictions[key], {logits: batch})
                    except tf.errors.OpError as error:
                        _refuse_a_failed_batch(key, len(batch), error)
                    found[-1][key] = np.asarray(value)
    return found


def _refuse_a_failed_batch(key, size, error) -> None:
    """Refuse the prediction ``key`` whose computation on a batch of ``size`` raised ``error``."""
    first = len(EXERCISE_2_BATCHES[0])
    if size == first:
        fail(
            "computing '{key}' on a batch of {size} raised {error}",
            key=key,
            size=size,
            error=_quoted(error),
        )
    fail(
        "computing '{key}' on a batch of {size} raised {error}, where a batch of {first} "
        "raised none: a prediction must follow the size of the batch it is given, and "
        "Estimator's last batch is often smaller (section '{section}', PREDICT)",
        key=key,
        size=size,
        error=_quoted(error),
        first=first,
        section=branches_section(),
    )


def _require_batch_first(values, batch, first_shapes) -> None:
    """Refuse predictions ``values`` on a batch of ``batch`` whose shape is not the batch first;
    ``first_shapes`` are their shapes on the first batch, or None on the first batch itself."""
    for key, shape in (("top_2", (batch, 2)), ("confidence", (batch,))):
        got = values[key].shape
        found = dict(key=key, got=got, batch=batch, shape=shape, section=branches_section())
        if got == shape:
            continue
        if first_shapes is None and got in ((), (10,), (2,)):
            fail(
                "'{key}' has shape {got} for a batch of {batch} (it reduced over the batch, "
                "axis 0): Estimator needs the batch first, and '{key}' should have shape "
                "{shape} (section '{section}', PREDICT)",
                **found,
            )
        if first_shapes is None:
            fail(
                "'{key}' has shape {got} for a batch of {batch}: Estimator needs the batch "
                "first, and '{key}' should have shape {shape} (section '{section}', PREDICT)",
                **found,
            )
        if got == tuple(size for size in shape if size != 1):
            fail(
                "'{key}' has shape {got} for a batch of {batch}, but shape {right} for a batch "
                "of {first}: every axis of size 1 was removed, the batch's too (a squeeze "
                "without its `axis`?), and Estimator needs the batch first whatever its size "
                "(section '{section}', PREDICT)",
                right=first_shapes[key],
                first=len(EXERCISE_2_BATCHES[0]),
                **found,
            )
        fail(
            "'{key}' has shape {got} for a batch of {batch}, but shape {right} for a batch of "
            "{first}: Estimator needs the batch first whatever its size, and '{key}' should "
            "have shape {shape} (section '{section}', PREDICT)",
            right=first_shapes[key],
            first=len(EXERCISE_2_BATCHES[0]),
            **found,
        )


def _compare_predictions(values, logits) -> None:
    """Refuse ``values``, the predictions on ``logits``, unless they are the right ones."""
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    probabilities = exp / exp.sum(axis=1, keepdims=True)
    order = np.argsort(-probabilities, axis=1)
    _refuse_an_overflow(values, logits, probabilities, order)
    top_2 = values["top_2"]
    if np.array_equal(top_2, order[:, ::-1][:, :2]):
        fail("'top_2' holds the two *least* probable classes of each example: sort the other way")
    if np.array_equal(top_2, order[:, [1, 0]]):
        fail("'top_2' has the right two classes in the wrong order: the most probable comes first")
    twice = top_2[:, 0] == top_2[:, 1]
    if np.any(twice) and np.all(np.sort(logits, axis=1)[twice, -2] < 0):
        fail(
            "'top_2' names one class twice for an example whose logits are all negative, or all "
            "but one: its two classes should be the two most probable, most probable first"
        )
    if np.any(twice):
        fail(
            "'top_2' names one class twice for an example: its two classes should be the two "
            "most probable, most probable first"
        )
    if not np.array_equal(top_2, order[:, :2]):
        fail("'top_2' is not the two most probable classes of each example, most probable first")
    confidence = values["confidence"]
    if np.allclose(confidence, logits.max(axis=1), atol=1e-5):
        fail("'confidence' is the highest *logit* of each example: it should be a probability")
    if not np.allclose(confidence, probabilities.max(axis=1), atol=1e-5):
        fail("'confidence' is not the probability of each example's most probable class")


def _refuse_an_overflow(values, logits, probabilities, order) -> None:
    """Refuse predictions wrong on rows of large logits only, those whose exp overflows float32
    (above ``LARGEST_EXP``), right on every other row: the probabilities overflowed."""
    wrong = {
        "top_2": np.any(values["top_2"] != order[:, :2], axis=1),
        "confidence": ~np.isclose(values["confidence"], probabilities.max(axis=1), atol=1e-5),
    }
    large = logits.max(axis=1) > LARGEST_EXP
    either = wrong["top_2"] | wrong["confidence"]
    if not np.any(either & large) or np.any(either & ~large):
        return
    row = int(np.argmax(either & large))
    key = "confidence" if wrong["confidence"][row] else "top_2"
    fail(
        "'{key}' is {value} for an example whose largest logit is {largest:g}, though right for "
        "every example of smaller logits: the probabilities overflow for large logits, as in "
        "a softmax written by hand without subtracting each row's largest logit first (in "
        "float32 the exp of a number above 88.7 is inf, and inf / inf is nan); the lesson's "
        "tf.nn.softmax does not overflow",
        key=key,
        value=np.asarray(values[key][row]).tolist(),
        largest=float(logits[row].max()),
    )


@reporting_learner_errors
def top_predictions_per_example(function) -> None:
    """Notebook 03, exercise 2: per example, the two most probable classes and the highest
    probability, on batches of several sizes."""
    require_answer(function, "top_predictions")
    if not callable(function):
        fail(
            "`top_predictions` should be a function of the logits, not {kind}",
            kind=type(function).__name__,
        )
    runs = _run_predictions(function)
    first_shapes = None
    for values, logits in zip(runs, EXERCISE_2_BATCHES):
        _require_batch_first(values, len(logits), first_shapes)
        first_shapes = first_shapes or {key: values[key].shape for key in PREDICTION_KEYS}
        _compare_predictions(values, logits)
    correct(
        "'top_2' has shape {top_2} and 'confidence' shape {confidence} for a batch of {batch}: "
        "per example, its two most probable classes and the probability of the first",
        top_2=first_shapes["top_2"],
        confidence=first_shapes["confidence"],
        batch=len(EXERCISE_2_BATCHES[0]),
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
    evaluated, in two evaluations of batches of different sizes: run in a session, an update on
    each batch then the value read, then by a real ``Estimator.evaluate``."""
    require_answer(metric_fn, "error_rate_ops")
    if not callable(metric_fn):
        fail(
            "`error_rate_ops` should be a function of `(labels, classes)`, not {kind}",
            kind=type(metric_fn).__name__,
        )
    in_session = _run_in_a_session(metric_fn)
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
    in_session = in_session or values
    if all(_same(value, right) for value, right in zip(in_session, rights)):
        index = next(i for i, pair in enumerate(zip(values, rights)) if not _same(*pair))
        fail(
            "run in a session, an update on each batch then the value, your metric is right, "
            "but a real evaluate() reports {value:.4f} after {batches} batches with {wrong} of "
            "{total} classes wrong: evaluate() runs the update op once more when the input "
            "runs out, and any part of it that reads no batch runs then too (section "
            "'{section}')",
            value=values[index],
            batches=len(EXERCISE_3_BATCHES[index]),
            wrong=wrong[index],
            total=total[index],
            section=pair_section(),
        )
    # what the pair computes, batch by batch, names the mistake, and the values it states
    _name_the_mistake(in_session, wrong, total)


def _name_the_mistake(values, wrong, total) -> None:
    """Refuse the error rates ``values`` of the two evaluations, which had ``wrong`` of ``total``
    classes wrong, naming the mistake that gives them all."""
    rights = [w / n for w, n in zip(wrong, total)]
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


def _run_in_a_session(metric_fn):
    """The value of ``metric_fn``'s pair in a session after an update on each batch of each
    evaluation (the variables initialized anew for each), as the lesson runs a pair; one line for
    a pair that cannot be run so, or whose value reads the batch or update op reads none. None
    when the answer is not a dict holding a pair: ``evaluated()`` names what it is instead."""
    import tensorflow as tf

    with tf.Graph().as_default():
        labels = tf.compat.v1.placeholder(tf.int32, [None], name="labels")
        classes = tf.compat.v1.placeholder(tf.int32, [None], name="classes")
        try:
            ops = metric_fn(labels, classes)
        except Exception as error:  # the learner's function failed: one line
            raise CheckFailed(
                _("running error_rate_ops(labels, classes) on two batches raised {error}").format(
                    error=_quoted(error)
                )
            ) from None
        pair = ops.get("error_rate") if isinstance(ops, dict) else None
        if not isinstance(pair, tuple) or len(pair) != 2:
            return None
        _require_a_tensor_and_an_op(pair)
        _require_reading_the_batch(pair, {labels.op, classes.op})
        value, update = pair
        initialize = [
            tf.compat.v1.global_variables_initializer(),
            tf.compat.v1.local_variables_initializer(),
        ]
        values = []
        with tf.compat.v1.Session() as session:
            for batches in EXERCISE_3_BATCHES:
                session.run(initialize)
                for batch_labels, batch_classes in batches:
                    _run_the_update(session, update, {labels: batch_labels, classes: batch_classes})
                values.append(_read_the_value(session, value, len(batches)))
    return values


def _require_a_tensor_and_an_op(pair) -> None:
    """Refuse a pair that an EstimatorSpec does not take, or evaluate() cannot run: the value must
    be a tensor (or a variable), the update op an op or a tensor (or a variable, or a list of
    them)."""
    import tensorflow as tf

    value, update = pair
    if not (
        isinstance(value, (tf.Tensor, tf.Variable))
        and tf.nest.flatten(update)
        and all(
            isinstance(part, (tf.Tensor, tf.Operation, tf.Variable))
            for part in tf.nest.flatten(update)
        )
    ):
        fail(
            "ops['error_rate'] holds a pair of {value} and {update}: its value must be a "
            "tensor, and its update op an op or a tensor, both built in the graph (section "
            "'{section}')",
            value=type(value).__name__,
            update=type(update).__name__,
            section=pair_section(),
        )


def _require_reading_the_batch(pair, batch_ops) -> None:
    """Refuse a value that reads the batch (``batch_ops``, the ops that give it), and an update op
    that reads neither the labels nor the classes: ``evaluate()`` stops when the batches run out,
    and such an op never asks for the next one."""
    value, update = pair
    if _depends_on(value, batch_ops):
        fail(
            "the value needs the current batch to be computed: it must read the totals that "
            "the update op accumulates"
        )
    if _depends_on(update, batch_ops):
        return
    if _reads_a_constant_truth(update):
        fail(
            "the update op reads neither `labels` nor `classes`, so it adds nothing of the "
            "batch to the totals, and evaluate() would never end: it reads a constant True or "
            "False instead, and in a graph `!=` or `==` between two tensors compares the "
            "objects, not their values (section '{section}')",
            section=pair_section(),
        )
    fail(
        "the update op reads neither `labels` nor `classes`, so it adds nothing of the batch "
        "to the totals, and evaluate() would never end (section '{section}')",
        section=pair_section(),
    )


def _run_the_update(session, update, feed) -> None:
    """Run the update op on one batch; one line when it raises."""
    import tensorflow as tf

    try:
        session.run(update, feed)
    except tf.errors.OpError as error:
        fail(
            "running the update op on a batch of {size} raised {error}",
            size=len(next(iter(feed.values()))),
            error=_quoted(error),
        )


def _read_the_value(session, value, batches) -> float:
    """The value after the updates of ``batches`` batches; one line when reading it raises or it
    is not one number."""
    import tensorflow as tf

    try:
        read = np.asarray(session.run(value))
    except tf.errors.OpError as error:
        fail(
            "reading the value after the updates of {batches} batches raised {error}",
            batches=batches,
            error=_quoted(error),
        )
    if read.size != 1 or not np.issubdtype(read.dtype, np.number):
        fail(
            "after {batches} batches the value has shape {shape} and type {dtype}: an error "
            "rate is one number",
            batches=batches,
            shape=read.shape,
            dtype=read.dtype.name,
        )
    return float(read.reshape(()))


def _reads_a_constant_truth(op_or_tensor) -> bool:
    """Whether running ``op_or_tensor`` reads a constant True or False (what Python's ``!=`` or
    ``==`` between two tensors of a graph gives)."""
    import tensorflow as tf

    return any(
        op.type == "Const" and op.get_attr("dtype") == tf.bool for op in ops_run(op_or_tensor)
    )


def _depends_on(op_or_tensor, ops) -> bool:
    """Whether running ``op_or_tensor`` runs any of ``ops``, through inputs and control
    dependencies."""
    return not ops_run(op_or_tensor).isdisjoint(ops)


def _evaluated_error_rate(metric_fn, batches) -> float:
    """The value a real ``Estimator.evaluate`` reports for the learner's metric over
    ``batches``; an error in the learner's function is one line."""
    try:
        value = evaluated(
            metric_fn,
            "error_rate_ops",
            "error_rate",
            batches,
            section=pair_section(),  # cited at the end of evaluated()'s messages
        )
    except CheckFailed:
        raise
    except Exception as error:  # the learner's function failed (a typo, a wrong argument): one line
        raise CheckFailed(
            _("running error_rate_ops(labels, classes) on two batches raised {error}").format(
                error=_quoted(error)
            )
        ) from None
    return float(np.asarray(value).reshape(-1)[0])


# what is cut from an error's text before it is quoted: the reprs of tensors, variables and ops
# (their shapes and types; a list of (gradient, variable) pairs holds many), the memory addresses
# of objects, and TensorFlow's pointers to its documentation
_REPRS = (
    (r"<tf\.(Tensor|Variable|Operation) '([^']*)'[^<>]*>", r"<tf.\1 '\2'>"),
    (r"<tf\.(Tensor|Variable): [^<>]*>", r"<tf.\1>"),
    (r"<(?:[\w.]+\.)?(\w+) object at 0x[0-9a-fA-F]+>", r"<\1 object>"),
    (r" at 0x[0-9a-fA-F]+", ""),
    (r"\s*See https?://\S+.*", ""),
)


def _quoted(error: BaseException) -> str:
    """What Python or TensorFlow said, as a message quotes it: ``error_text``'s type and first
    line in backticks (their words, English in every edition, as the zh-TW edition keeps backticked
    text), without the reprs and addresses of ``_REPRS``."""
    text = str(getattr(error, "message", None) or error)
    for pattern, kept in _REPRS:
        text = re.sub(pattern, kept, text)
    stand_in = type(type(error).__name__, (Exception,), {})(text)  # error_text reads its name
    return "`{}`".format(error_text(stand_in).replace("`", "'"))
