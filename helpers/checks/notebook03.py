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


def _train_once(model_fn):
    """Build ``model_fn``'s TRAIN branch on 4 bright images and run one step: (gradients, before,
    after, steps)."""
    import tensorflow as tf

    with tf.Graph().as_default():
        tf.compat.v1.set_random_seed(3)
        global_step = tf.compat.v1.train.create_global_step()
        # over-bright images: gradients far above norm 1
        features = {"image": tf.fill([4, 28, 28], 5.0)}
        labels = tf.constant([0, 1, 2, 3], tf.int32)
        try:
            spec = model_fn(
                features=features, labels=labels, mode=tf.estimator.ModeKeys.TRAIN, params={}
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
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            start = session.run(global_step)
            grads, before = session.run([gradients, variables])
            try:
                session.run(spec.train_op)
            except Exception as error:
                raise CheckFailed(
                    _("running the train_op raised {kind}: {first_line}").format(
                        kind=type(error).__name__, first_line=_first_line(error)
                    )
                ) from None
            after = session.run(variables)
            end = session.run(global_step)
    names = [variable.op.name for variable in variables]
    return names, grads, before, after, (int(start), int(end))


@reporting_learner_errors
def clipped_training_step(model_fn) -> None:
    """Notebook 03, exercise 1: one train_op run is a clipped gradient-descent step that advances
    the global step."""
    require_answer(model_fn, "fixed_model_fn")
    if not callable(model_fn):
        fail(
            "`fixed_model_fn` should be a model_fn (a function), not {kind}",
            kind=type(model_fn).__name__,
        )
    names, grads, before, after, (start, end) = _train_once(model_fn)
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
    # learning rate × the gradient the step used
    moves = [old - new for old, new in zip(before, after)]
    if not any(np.any(move != 0) for move in moves):
        fail("one run of your train_op changed no weight: it should apply the clipped gradients")
    used = [move / LEARNING_RATE for move in moves]
    if all(np.allclose(u, g, rtol=1e-3, atol=1e-6) for u, g in zip(used, grads)):
        fail(
            "the step used the gradients as they are (the kernel's has norm {norm:.1f}): clip "
            "them to a norm of at most {clip:g} between computing and applying them",
            norm=float(np.linalg.norm(grads[0])),
            clip=clip,
        )
    if all(
        np.allclose(u, np.clip(g, -CLIP_NORM, CLIP_NORM), rtol=1e-3, atol=1e-6)
        for u, g in zip(used, grads)
    ):
        fail(
            "each gradient *value* was clipped to [-1, 1]: the norm of each "
            "gradient, the length of the whole vector, is what should be at most 1"
        )
    for name, u, g in zip(names, used, grads):
        norm, expected = float(np.linalg.norm(u)), min(float(np.linalg.norm(g)), CLIP_NORM)
        direction = float(np.sum(u * g))
        if norm > CLIP_NORM * (1 + 1e-3) or direction <= 0:
            fail(
                "the step moved {name} by {moved:.3g}: gradient descent at learning rate "
                "{rate:g} on gradients of norm at most {clip:g} moves each variable by at most "
                "{most:g}, against its gradient (which optimizer, which learning rate?)",
                name=name,
                moved=norm * rate,
                rate=rate,
                clip=clip,
                most=rate * clip,
            )
        if norm < expected * 0.5 * (1 - 1e-3) and name.endswith("kernel"):
            fail(
                "the step moved {name} by only {moved:.3g}: clip to a norm of {clip:g}, with "
                "learning rate {rate:g}",
                name=name,
                moved=norm * rate,
                clip=clip,
                rate=rate,
            )
    correct(
        "one run moves the global step from {start} to {end}, and each weight by at most "
        "{most:g} (the kernel's gradient had norm {norm:.1f})",
        start=start,
        end=end,
        most=rate * clip,
        norm=float(np.linalg.norm(grads[0])),
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


@reporting_learner_errors
def error_rate_metric_ops(metric_fn) -> None:
    """Notebook 03, exercise 3: ``{"error_rate": (value, update_op)}`` over all the batches
    evaluated."""
    require_answer(metric_fn, "error_rate_ops")
    if not callable(metric_fn):
        fail(
            "`error_rate_ops` should be a function of (labels, classes), not {kind}",
            kind=type(metric_fn).__name__,
        )
    batches = [([0, 1, 2, 3], [0, 1, 2, 0]), ([4, 5], [4, 4])]  # 1 wrong of 4, then 1 of 2: 2 of 6
    try:
        result = float(
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
    # the values of plausible mistakes, each with its whole message
    wrong = {
        0.5: _(
            "after two batches the value is {value:.4f}, the second batch alone: the update op "
            "must add each batch to running totals (section '{section}')"
        ),
        0.375: _(
            "after two batches the value is {value:.4f}, the mean of the two batches' error "
            "rates (1/4 and 1/2), which weighs the batch of 2 like the batch of 4: count wrong "
            "examples and all examples over the batches, then divide (section '{section}')"
        ),
        4 / 6: _(
            "after two batches the value is {value:.4f}, the accuracy, the fraction of "
            "examples *right* (section '{section}')"
        ),
        0.25: _(
            "after two batches the value is {value:.4f}, the first batch alone: the value must "
            "read totals that every update adds to (section '{section}')"
        ),
    }
    for value, message in wrong.items():
        if abs(result - value) < 1e-6:
            raise CheckFailed(message.format(value=result, section=pair_section()))
    if abs(result - 2 / 6) > 1e-6:
        fail(
            "after two batches with 2 of 6 classes wrong the value is {value:.4f}: compare "
            "`labels` with `classes` and count the examples where they differ",
            value=result,
        )
    correct(
        "after two batches (1 of 4 wrong, then 1 of 2) the error rate is 2/6 = 0.3333: "
        "the update op accumulates, the value reads the totals"
    )


def _first_line(error: BaseException) -> str:
    """The first line of ``error``'s text, or nothing when it has none."""
    return (str(error).strip().splitlines() or [""])[0]
