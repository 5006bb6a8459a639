"""Exercise checks of notebook 10 (migrating to Keras)."""

from __future__ import annotations

import contextlib
import functools
import inspect
import numbers

import numpy as np

from ..language import _, listed
from ..learner_code import error_text, learner_line
from ..problems import CheckFailed
from . import calls, forbidden
from .common import correct, fail, reporting_learner_errors, require_answer

__all__ = ["keras_macro_precision", "piecewise_schedule"]

# exercise 1: Keras's float32 counts against scikit-learn's (a float32 precision is within 1e-7),
# tight enough to tell the macro F1 from the macro precision of a well-trained model (1e-4 apart)
PRECISION_TOLERANCE = 1e-5
# exercise 2: float32 schedules against TensorFlow's own piecewise_constant
RATE_RELATIVE_TOLERANCE = 1e-5
EXERCISE_2 = {"boundaries": (500, 1000), "values": (2e-3, 1e-3, 5e-4)}  # the colleague's schedule
CALL = "precision_macro(labels, probabilities)"
# exercise 1: what the prompt's "with keras.metrics" rules out, watched while the function runs
NOT_KERAS = forbidden.SCIKIT_LEARN_PRECISION + forbidden.COURSE_METRICS
# exercise 1: a number typed from the notebook's output (4 decimals) is this near its value
PRINTED_TOLERANCE = 5e-5


@functools.cache
def check_data() -> tuple:
    """Exercise 1's own (labels, float32 probabilities): 300 digits of a poor model, the labels
    unbalanced, the wrong guesses drawn to the low digits, some most-probable classes below 0.5.
    Its macro precision and macro F1 are 0.15 apart, and every number ``_readings`` names (and
    each class's precision) is at least 0.004 from the others (tests/helpers/checks)."""
    rng = np.random.default_rng(19)
    count = 300
    labels = rng.choice(10, count, p=np.array([14, 12, 11, 10, 10, 9, 9, 9, 8, 8]) / 100)
    chance_right = np.array([0.95, 0.9, 0.85, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    guesses = np.where(rng.random(count) < chance_right[labels], labels, -1)
    wrong = guesses < 0
    guesses[wrong] = rng.choice(
        10, wrong.sum(), p=np.array([30, 22, 16, 10, 8, 5, 4, 3, 2, 0]) / 100
    )
    logits = rng.normal(0, 0.5, (count, 10))
    logits[np.arange(count), guesses] += rng.uniform(0.5, 4.0, count) + 1.5
    probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return labels, probabilities.astype(np.float32)


def _macro_precision(labels, probabilities) -> float:
    """scikit-learn's macro precision, a digit counting for its most probable class."""
    from sklearn.metrics import precision_score

    return float(
        precision_score(
            labels,
            np.asarray(probabilities).argmax(axis=1),
            average="macro",
            labels=list(range(np.shape(probabilities)[1])),
            zero_division=0,
        )
    )


def _per_class_precision(one_hot, predicted) -> np.ndarray:
    """Precision of each class, ``predicted`` a 0/1 matrix like ``one_hot`` (0 where a class is
    never predicted)."""
    true_positives = (predicted * one_hot).sum(axis=0)
    return np.divide(
        true_positives,
        predicted.sum(axis=0),
        out=np.zeros(one_hot.shape[1]),
        where=predicted.sum(axis=0) > 0,
    )


def readings() -> dict:
    """What the learner's number is when it is not the macro precision: each a whole message in the
    learner's language, formatted with the named values {value} (and {k} for one class alone)."""
    return {
        "micro": _(
            "`precision_macro(labels, probabilities)` returned {value:.4f} on the check's data, "
            "which is the precision of all classes counted together (the micro average, which "
            "equals the accuracy when each digit has one label): compute one precision per class, "
            "then average them"
        ),
        "above_half_flat": _(
            "`precision_macro(labels, probabilities)` returned {value:.4f} on the check's data, "
            "which is a precision that counts every probability above 0.5 as a prediction, over "
            "all ten columns at once: a digit is predicted as its most probable class, and the "
            "macro average is taken over the classes"
        ),
        "above_half_macro": _(
            "`precision_macro(labels, probabilities)` returned {value:.4f} on the check's data, "
            "which is the average of per-class precisions that count a class as predicted when "
            "its probability passes 0.5 (the metrics' default threshold), not when it is the "
            "largest of the ten"
        ),
        "recall": _(
            "`precision_macro(labels, probabilities)` returned {value:.4f} on the check's data, "
            "which is the macro recall: precision divides by the times a class was predicted, "
            "recall by the times it was the true class"
        ),
        "weighted": _(
            "`precision_macro(labels, probabilities)` returned {value:.4f} on the check's data, "
            "which is the weighted average of the per-class precisions: the macro average gives "
            "every class the same weight"
        ),
        "f1": _(
            "`precision_macro(labels, probabilities)` returned {value:.4f} on the check's data, "
            "which is the macro F1, the harmonic mean of each class's precision and recall, "
            "averaged: the exercise asks for the precision alone, which on this data lies far "
            "from the F1"
        ),
        "one_class": _(
            "`precision_macro(labels, probabilities)` returned {value:.4f} on the check's data, "
            "which is the precision of class {k} alone: the macro precision averages all ten"
        ),
        "percent": _(
            "`precision_macro(labels, probabilities)` returned {value:.4f} on the check's data, "
            "which is the macro precision in percent: return the fraction, between 0 and 1, as "
            "Keras's metrics and precision_score give it"
        ),
    }


def _readings(labels, probabilities) -> list:
    """(key in ``readings()``, the number that mistake gives, the class it concerns or None)."""
    from sklearn.metrics import f1_score, precision_score, recall_score

    classes = probabilities.argmax(axis=1)
    one_hot = np.eye(probabilities.shape[1])[labels]
    kept = dict(labels=list(range(probabilities.shape[1])), zero_division=0)
    above_half = (probabilities > 0.5).astype(float)
    readings = [
        ("micro", precision_score(labels, classes, average="micro", **kept), None),
        ("above_half_flat", (above_half * one_hot).sum() / max(above_half.sum(), 1), None),
        ("above_half_macro", _per_class_precision(one_hot, above_half).mean(), None),
        ("recall", recall_score(labels, classes, average="macro", **kept), None),
        ("weighted", precision_score(labels, classes, average="weighted", **kept), None),
        ("f1", f1_score(labels, classes, average="macro", **kept), None),
    ]
    for k, value in enumerate(precision_score(labels, classes, average=None, **kept)):
        readings.append(("one_class", value, k))
    readings.append(
        ("percent", 100 * precision_score(labels, classes, average="macro", **kept), None)
    )
    return readings


def _one_number(answer, call: str) -> float:
    """What ``call`` returned, as a float, or a one-line failure naming what it is instead."""
    if hasattr(answer, "update_state") and hasattr(answer, "result"):
        fail("`{call}` returned a metric object: return the number, its `result()`", call=call)
    if answer is None:
        fail(
            "`{call}` returned None: it should return one number (print shows it, return gives it)",
            call=call,
        )
    try:
        if isinstance(answer, (str, bytes)):
            raise TypeError(answer)
        array = np.asarray(answer, dtype=np.float64)
    except (TypeError, ValueError):
        raise CheckFailed(
            _("`{call}` returned a {kind}: it should return one number").format(
                call=call, kind=type(answer).__name__
            )
        ) from None
    if array.size == 10:
        fail(
            "`{call}` returned {count} values, one per class: the macro precision is one "
            "number, their average",
            call=call,
            count=array.size,
        )
    if array.size != 1:
        fail(
            "`{call}` returned an array of shape {shape}: it should return one number",
            call=call,
            shape=array.shape,
        )
    value = float(array.reshape(()))
    if not np.isfinite(value):
        fail("`{call}` returned {value}: the metric got no valid data", call=call, value=value)
    return value


@reporting_learner_errors
def keras_macro_precision(answer, labels, probabilities) -> None:
    """Notebook 10, exercise 1: a function that computes the macro precision of ``probabilities``
    on integer ``labels`` with Keras, tried on the check's own data (where the macro F1 lies far
    from the macro precision) and on the notebook's."""
    require_answer(answer, "precision_macro")
    if hasattr(answer, "update_state") and hasattr(answer, "result"):
        fail(
            "`precision_macro` is a metric object, but the exercise asks for a function, "
            "`def precision_macro(labels, probabilities):`, that returns the number"
        )
    if not callable(answer):
        fail(
            "`precision_macro` is a {kind}, but the exercise asks for a function, "
            "`def precision_macro(labels, probabilities):`, which the check runs on data of "
            "its own as well as on test_labels and probabilities",
            kind=type(answer).__name__,
        )
    labels, probabilities = np.asarray(labels), np.asarray(probabilities)
    own_labels, own_probabilities = check_data()
    calls.bound(answer, "precision_macro", CALL, own_labels, own_probabilities)
    returned, counted = _keras_only(answer, own_labels.copy(), own_probabilities.copy())
    value = _one_number(returned, CALL)
    if abs(value - _macro_precision(own_labels, own_probabilities)) > PRECISION_TOLERANCE:
        if abs(value - _macro_precision(labels, probabilities)) <= PRINTED_TOLERANCE:
            fail(
                "`precision_macro(labels, probabilities)` returned, on the check's data, the "
                "macro precision of test_labels and probabilities, the number printed above: "
                "your function must compute it from the labels and probabilities it is given, "
                "not return a number typed in"
            )
        for key, reading, k in _readings(own_labels, own_probabilities.astype(np.float64)):
            if abs(value - reading) <= PRECISION_TOLERANCE * max(1.0, abs(reading)):
                raise CheckFailed(readings()[key].format(value=value, k=k))
        fail(
            "`precision_macro(labels, probabilities)` returned {value:.4f} on the check's "
            "data, which is not the macro precision of its predictions: one precision per "
            "class, where a digit counts for the class with its largest probability, averaged "
            "(section 'Metrics: from `eval_metric_ops` to `keras.metrics`')",
            value=value,
        )
    returned, counted_too = _keras_only(answer, labels, probabilities)
    yours = _one_number(returned, "precision_macro(test_labels, probabilities)")
    if abs(yours - _macro_precision(labels, probabilities)) > PRECISION_TOLERANCE:
        fail(
            "`precision_macro(test_labels, probabilities)` returned {value:.4f}, which is not "
            "the macro precision of those predictions, though your function found it on the "
            "check's data: compute it from the labels and probabilities it is given",
            value=yours,
        )
    if not (counted and counted_too):
        fail(
            "`precision_macro` returns the macro precision, but no Keras metric counted "
            "anything while it ran: the exercise asks for the number computed with "
            "keras.metrics, a metric that counts the predictions in its `update_state` and "
            "gives the precision as its `result()`"
        )
    correct(
        "your function gives the Estimator's predictions a macro precision of {yours:.6f}, as "
        "scikit-learn's precision_score(average='macro') does to within {tolerance:g}, and on "
        "the check's data, where the macro F1 lies far from it, your function gave the "
        "precision too",
        yours=yours,
        tolerance=PRECISION_TOLERANCE,
    )


def _keras_only(answer, labels, probabilities) -> tuple:
    """(what ``answer(labels, probabilities)`` returns, whether a Keras metric counted something
    during the call); a failure when it called a function the exercise rules out (scikit-learn's
    precision, the course's metrics): the prompt asks for keras.metrics."""
    with forbidden.watching(answer, NOT_KERAS) as called, _keras_metrics_watched(answer) as counted:
        try:
            returned = answer(labels, probabilities)
        except Exception:
            if not called:
                raise
    if called:
        fail(
            "`precision_macro` calls {function}, which is not keras.metrics: the exercise asks "
            "for the macro precision computed with keras.metrics",
            function=called[0],
        )
    return returned, counted()


@contextlib.contextmanager
def _keras_metrics_watched(answer):
    """While it lasts, every Keras metric object made is kept; it gives a function that says
    whether one of them, or one the learner's function holds (its globals, its closure), counted
    something: a metric made during the call holds a count other than 0, one made before it holds
    other counts than before it. Judged by the metrics' own state, whatever the code looks like."""
    import tensorflow as tf

    metric_class = tf.keras.metrics.Metric
    made: list = []
    original = metric_class.__init__

    @functools.wraps(original)
    def keeping(self, *args, **kwargs):
        made.append(self)
        original(self, *args, **kwargs)

    held = [
        metric for metric in _metrics_held_by(answer, metric_class) if _counts(metric) is not None
    ]
    before = [_counts(metric) for metric in held]

    def counted() -> bool:
        if any(np.any(count != 0) for metric in made for count in _counts(metric) or ()):
            return True
        return any(
            len(old) != len(new) or any(np.any(a != b) for a, b in zip(old, new))
            for old, new in zip(before, (_counts(metric) for metric in held))
        )

    metric_class.__init__ = keeping
    try:
        yield counted
    finally:
        metric_class.__init__ = original


def _counts(metric):
    """The values of a Keras metric's state variables (its counts); None for one whose variables
    cannot be read here (made in a graph)."""
    try:
        return [np.asarray(variable.numpy()) for variable in metric.variables]
    except Exception:  # noqa: BLE001 - a graph's variable has no value outside its session
        return None


def _metrics_held_by(answer, metric_class) -> list:
    """The Keras metric objects a learner's function reaches without making them: among its
    globals and its closure, and in the lists, tuples and dicts they hold."""
    function = getattr(answer, "__func__", answer)
    values = list(getattr(function, "__globals__", {}).values())
    values += [cell.cell_contents for cell in getattr(function, "__closure__", None) or ()]
    held = []
    for value in values:
        inner = value.values() if isinstance(value, dict) else value
        for item in inner if isinstance(inner, (list, tuple, type({}.values()))) else [value]:
            if isinstance(item, metric_class) and all(item is not m for m in held):
                held.append(item)
    return held


def _what_adam_gets(answer) -> None:
    """Refuse a callable that is not a schedule, saying what Keras's Adam gets from it: Adam
    (``tf.Variable``) calls it once, with no argument, when it is built."""
    from tensorflow import keras

    schedules = keras.optimizers.schedules.LearningRateSchedule
    kind = type(answer).__name__
    if isinstance(answer, type) and issubclass(answer, schedules):
        fail(
            "`schedule` is the class {name} itself, not a schedule: Adam needs an object of "
            "it, made with the class's arguments",
            name=answer.__name__,
        )
    try:
        inspect.signature(answer).bind()
    except TypeError:  # it needs an argument: Adam's call fails
        fail(
            "`schedule` is a {kind}, not a Keras schedule: Keras's Adam calls any other "
            "function given as its learning_rate with no argument, never with the step; use "
            "a class of keras.optimizers.schedules",
            kind=kind,
        )
    except ValueError:  # no signature to read: call it and see
        pass
    returned = answer()
    if isinstance(returned, schedules):
        fail(
            "`schedule` is a {kind} that returns a {returned} object when called: Keras's Adam "
            "calls it once, with no argument, and gets that schedule where it needs a rate; "
            "store the {returned} itself in `schedule`",
            kind=kind,
            returned=type(returned).__name__,
        )
    rate = _as_number(returned)
    if rate is not None:
        fail(
            "`schedule` is a {kind}, not a Keras schedule: Keras's Adam calls it once, with no "
            "argument, when it is built, and keeps the {rate:.3g} it returned at every step; "
            "use a class of keras.optimizers.schedules, which Adam calls with the step",
            kind=kind,
            rate=rate,
        )
    fail(
        "`schedule` is a {kind}, not a Keras schedule: Keras's Adam calls it once, with no "
        "argument, and it returned a {returned}, not a rate; use a class of "
        "keras.optimizers.schedules, which Adam calls with the step",
        kind=kind,
        returned=type(returned).__name__,
    )


def _as_number(value):
    """``value`` as a float when it is one number (a Python or NumPy number, a tensor holding
    one), else None."""
    if hasattr(value, "numpy") and callable(value.numpy):
        value = value.numpy()
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        return float(value)
    return None


def _piecewise(step: int, boundaries, values) -> float:
    """What ``tf.compat.v1.train.piecewise_constant`` gives at ``step`` (run by TensorFlow)."""
    import tensorflow as tf

    rate = tf.compat.v1.train.piecewise_constant(
        tf.constant(step, tf.int64), list(boundaries), list(values)
    )
    return float(rate() if callable(rate) else rate)


@reporting_learner_errors
def piecewise_schedule(
    answer, boundaries=EXERCISE_2["boundaries"], values=EXERCISE_2["values"]
) -> None:
    """Notebook 10, exercise 2: a Keras schedule equal to tf.compat.v1.train.piecewise_constant."""
    require_answer(answer, "schedule")
    import tensorflow as tf
    from tensorflow import keras

    if not isinstance(answer, keras.optimizers.schedules.LearningRateSchedule):
        if callable(answer):
            _what_adam_gets(answer)
        fail(
            "`schedule` should be a learning-rate schedule, an object of a class of "
            "keras.optimizers.schedules, not a {kind}",
            kind=type(answer).__name__,
        )
    near_boundaries = [b + d for b in boundaries for d in (-1, 0, 1)]
    steps = sorted({0, 1, *near_boundaries, 2 * boundaries[-1], 10 * boundaries[-1]})
    try:  # as the lesson's model uses it; Adam reads the schedule's rate at step 0 here
        optimizer = keras.optimizers.Adam(learning_rate=answer)
    except Exception as error:  # noqa: BLE001 - the learner's schedule: one sentence
        if learner_line(error) is not None:
            raise  # the learner's own line failed: reporting_learner_errors names it
        raise CheckFailed(
            _("Adam, training at step {step} with `schedule`, raised {error}").format(
                step=0, error=error_text(error)
            )
        ) from None
    weight, got = tf.Variable(0.0), {}
    for step in steps:
        optimizer.iterations.assign(step)
        try:
            optimizer.apply_gradients([(tf.constant(0.0), weight)])
            got[step] = float(optimizer.learning_rate)
        except Exception as error:  # noqa: BLE001 - the learner's schedule: one sentence
            raise CheckFailed(
                _("Adam, training at step {step} with `schedule`, raised {error}").format(
                    step=step, error=error_text(error)
                )
            ) from None
    want = {step: _piecewise(step, boundaries, values) for step in steps}

    def same(a, b):
        return abs(a - b) <= RATE_RELATIVE_TOLERANCE * abs(b)

    wrong = [step for step in steps if not same(got[step], want[step])]
    if not wrong:
        return correct(
            _(
                "{first:g} up to step {boundary}, then {later}: the same rate as "
                "piecewise_constant at every step checked"
            ).format(
                first=got[0],
                boundary=boundaries[0],
                later=listed(f"{value:g}" for value in values[1:]),
            )
        )
    step = wrong[0]
    if not same(got[0], values[0]):
        fail(
            "at step 0 the rate is {rate:.3g}, not the first value, {first:g}",
            rate=got[0],
            first=values[0],
        )
    if not same(got[1], got[0]):
        fail(
            "the rate moves from {start:.3g} at step 0 to {next:.3g} at step 1: it should "
            "stay constant between two boundaries",
            start=got[0],
            next=got[1],
        )
    if any(same(got[b], want[b + 1]) and not same(got[b], want[b]) for b in boundaries):
        fail(
            "at step {step} the rate has already changed to {rate:.3g}: piecewise_constant "
            "keeps a value up to and including its boundary",
            step=step,
            rate=got[step],
        )
    if step > boundaries[-1]:
        fail(
            "at step {step} the rate is {rate:.3g}: after the last boundary it should stay at "
            "the last value, {last:g}",
            step=step,
            rate=got[step],
            last=values[-1],
        )
    fail(
        "at step {step} the rate is {rate:.3g}, not {want:g}",
        step=step,
        rate=got[step],
        want=want[step],
    )
