"""Exercise checks of notebook 10 (migrating to Keras)."""

from __future__ import annotations

import contextlib
import functools
import inspect
import numbers
import re
from typing import NoReturn

import numpy as np

from ..language import _, all_of, listed
from ..learner_code import error_text, learner_line, where
from ..problems import CheckFailed, WorkbookProblem
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
# exercise 1: a float32 computation of the notebook's own number is this near scikit-learn's
FLOAT32_TOLERANCE = 1e-6


@functools.cache
def check_data() -> tuple:
    """Exercise 1's own (labels, float32 probabilities): 300 digits of a poor model, the labels
    unbalanced, the wrong guesses drawn to the low digits, some most-probable classes below 0.5.
    Its macro precision and macro F1 are 0.15 apart, and every number ``_readings`` names (and
    each class's precision) is at least 0.004 from the others (tests/helpers/checks); no class's
    precision is 1, which every class gets when the labels are compared with themselves."""
    rng = np.random.default_rng(19)
    count = 300
    labels = rng.choice(10, count, p=np.array([14, 12, 11, 10, 10, 9, 9, 9, 8, 8]) / 100)
    chance_right = np.array([0.95, 0.9, 0.85, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    guesses = np.where(rng.random(count) < chance_right[labels], labels, -1)
    wrong = guesses < 0
    guesses[wrong] = rng.choice(
        10, wrong.sum(), p=np.array([30, 22, 16, 10, 8, 5, 4, 3, 2, 0]) / 100
    )
    guesses[np.flatnonzero(guesses != labels)[0]] = 9  # one wrong 9: its precision is not 1
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
        "all_right": _(
            "`precision_macro(labels, probabilities)` returned {value:.4f} on the check's data, "
            "which is a precision of 1 for every class, as if every prediction were right, though "
            "on this data some are wrong: the predictions compared with the labels are each "
            "digit's most probable class, from `probabilities`"
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
    readings.append(("all_right", 1.0, None))  # each class's own labels as its predictions
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


# reprs in an error's text that change between runs, and what is kept of them
_CHANGING = (
    (r"<(?:[\w.]+\.)?([\w]+) object at 0x[0-9a-fA-F]+>", r"<\1 object>"),
    (r"<(function|bound method|built-in function) ([^<>\s]+) at 0x[0-9a-fA-F]+>", r"<\1 \2>"),
    (r"<tf\.Variable '([^']*)'[^<>]*>", r"<tf.Variable '\1'>"),
    (r"\{\{function_node [^}]*\}\}\s*", ""),  # the eager op's name and device
    (r" at 0x[0-9a-fA-F]+", ""),
    (r"0x[0-9a-fA-F]{6,}", "0x…"),
)


def _quoted(error: BaseException) -> str:
    """What Python or TensorFlow said, as a message quotes it: ``error_text``'s type and first
    line in backticks (their words, English in every edition), without the memory addresses and the
    variables' values that change from run to run (``<… object at 0x7f…>``, a tf.Variable's
    ``numpy=…``), a KeyError's key without its quotes."""
    text = str(getattr(error, "message", None) or error)
    for pattern, kept in _CHANGING:
        text = re.sub(pattern, kept, text)
    if isinstance(error, KeyError) and len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    stand_in = type(type(error).__name__, (Exception,), {})(text)  # error_text reads its name
    return "`{}`".format(error_text(stand_in).replace("`", "'"))


def _raised(error: BaseException) -> str:
    """The quoted error, and the learner's line it came from when there is one."""
    line = learner_line(error)
    if line is None:
        return _quoted(error)
    return _("{error}, at {line}").format(error=_quoted(error), line=where(line))


def _quoting_learner_errors(check):
    """``check``, reporting an error raised in the learner's code in one line that quotes it in
    backticks (``reporting_learner_errors`` does so without them)."""

    @functools.wraps(check)
    def checked(*args, **kwargs):
        try:
            return check(*args, **kwargs)
        except WorkbookProblem:
            raise
        except (Exception, SystemExit) as error:  # sys.exit() in an answer is the learner's too
            if learner_line(error) is None:
                raise
            raise CheckFailed(
                _("your code raised {error}: fix it and run its cell again").format(
                    error=_raised(error)
                )
            ) from None

    return checked


@reporting_learner_errors
@_quoting_learner_errors
def keras_macro_precision(answer, labels, probabilities) -> None:
    """Notebook 10, exercise 1: a function that computes the macro precision of ``probabilities``
    on integer ``labels`` with Keras, tried on the check's own data (where the macro F1 lies far
    from the macro precision), on data where a digit is never the label and two are never
    predicted, and on the notebook's; then once more on the check's data with Keras's counts
    changed, to see that the number comes from them."""
    _require_function(answer)
    labels, probabilities = np.asarray(labels), np.asarray(probabilities)
    own_labels, own_probabilities = check_data()
    calls.bound(answer, "precision_macro", CALL, own_labels, own_probabilities)
    returned, watch = _keras_only(answer, own_labels.copy(), own_probabilities.copy())
    value = _one_number(returned, CALL)
    if not _near(value, _macro_precision(own_labels, own_probabilities)):
        _judge_own_data(value, watch, labels, probabilities)
    _judge_gaps(answer)
    returned, watch_too = _keras_only(answer, labels, probabilities)
    call = "precision_macro(test_labels, probabilities)"
    yours = _one_number(returned, call)
    if not _near(yours, _macro_precision(labels, probabilities)):
        _refuse_carried(watch_too, call, yours)
        fail(
            "`precision_macro(test_labels, probabilities)` returned {value:.4f}, which is not "
            "the macro precision of those predictions, though your function found it on the "
            "check's data: compute it from the labels and probabilities it is given",
            value=yours,
        )
    _judge_keras(answer, watch, own_labels, own_probabilities)
    correct(
        "your function gives the Estimator's predictions a macro precision of {yours:.6f}, as "
        "scikit-learn's precision_score(average='macro') does to within {tolerance:g}, and on "
        "the check's data, where the macro F1 lies far from it, your function gave the "
        "precision too",
        yours=yours,
        tolerance=PRECISION_TOLERANCE,
    )


def _near(value: float, reference: float) -> bool:
    return abs(value - reference) <= PRECISION_TOLERANCE


def _require_function(answer) -> None:
    """Refuse in one line an answer that is missing or not a function."""
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


def _judge_own_data(value: float, watch, labels, probabilities) -> None:
    """Refuse ``value``, not the macro precision of ``check_data()``, naming what it is: the
    notebook's number (``labels`` and ``probabilities`` are the notebook's), a mistake's number,
    or else just not the macro precision."""
    own_labels, own_probabilities = check_data()
    _refuse_carried(watch, CALL, value)
    notebooks = _macro_precision(labels, probabilities)
    if abs(value - notebooks) <= FLOAT32_TOLERANCE:
        fail(
            "`precision_macro(labels, probabilities)` returned, on the check's data, the "
            "macro precision of test_labels and probabilities, the number printed above: given "
            "other labels and probabilities it still gives the notebook's number, so it reads "
            "something other than its arguments"
        )
    if abs(value - notebooks) <= PRINTED_TOLERANCE:
        fail(
            "`precision_macro(labels, probabilities)` returned, on the check's data, the "
            "macro precision of test_labels and probabilities to the decimals printed above: "
            "your function must compute it from the labels and probabilities it is given, not "
            "return a number typed in"
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


def _refuse_carried(watch, call: str, value: float) -> None:
    """Refuse a wrong ``value`` that ``call`` returned when a Keras metric it updated already
    held counts as the call began: kept from before it."""
    if watch.carried:
        fail(
            "`{call}` returned {value:.4f}, not the macro precision of its data: the Keras "
            "metrics it updated already held counts when it began, and the metrics keep their "
            "counts between calls: create them inside the function",
            call=call,
            value=value,
        )


@functools.cache
def gap_data() -> tuple:
    """Exercise 1's second data (labels, float32 probabilities): 400 digits of which
    ``GAPS["absent"]`` is never the label but is predicted (always wrongly), and the digits
    ``GAPS["unpredicted"]`` are labels never predicted; nine digits appear among the labels.
    Averaged over the classes among the labels, over those predicted or over those both, the
    per-class precisions give three numbers apart from the macro precision (tests)."""
    rng = np.random.default_rng(23)
    count = 400
    labels = rng.choice(9, count)  # every digit but 9
    chance_right = np.array([0.9, 0.8, 0.75, 0.0, 0.7, 0.65, 0.6, 0.55, 0.0])
    guesses = np.where(rng.random(count) < chance_right[labels], labels, -1)
    wrong = guesses < 0
    guesses[wrong] = rng.choice(
        10, wrong.sum(), p=np.array([20, 15, 10, 0, 10, 10, 10, 10, 0, 15]) / 100
    )
    logits = rng.normal(0, 0.5, (count, 10))
    logits[np.arange(count), guesses] += rng.uniform(0.5, 4.0, count) + 1.5
    probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return labels, probabilities.astype(np.float32)


# what gap_data() leaves out: the digit never the label (but predicted), those never predicted
GAPS = {"absent": 9, "unpredicted": (3, 8)}


def gap_readings() -> dict:
    """What the learner's number is on ``gap_data()`` when it averages fewer than ten classes:
    each a whole message, formatted with {value}, {absent} and {unpredicted}."""
    return {
        "labelled": _(
            "`precision_macro(labels, probabilities)` returned {value:.4f} on the check's data "
            "where digit {absent} is predicted but never the label, which is the average over "
            "the classes among the labels only: a class predicted but never right has a "
            "precision of 0, and the macro average counts all ten classes"
        ),
        "predicted": _(
            "`precision_macro(labels, probabilities)` returned {value:.4f} on the check's data "
            "where digits {unpredicted} are never predicted, which is the average over the "
            "predicted classes only: a class never predicted has a precision of 0, as Keras's "
            "Precision gives it, and the macro average counts all ten classes"
        ),
        "both": _(
            "`precision_macro(labels, probabilities)` returned {value:.4f} on the check's data "
            "where digit {absent} is never the label and digits {unpredicted} are never "
            "predicted, which is the average over the classes both among the labels and "
            "predicted: the macro average counts all ten classes, with a precision of 0 for a "
            "class never predicted or never right"
        ),
    }


def _gap_readings(labels, probabilities) -> list:
    """(key in ``gap_readings()``, the number that mistake gives) on these data."""
    from sklearn.metrics import precision_score

    classes = probabilities.argmax(axis=1)
    each = precision_score(labels, classes, average=None, labels=range(10), zero_division=0)
    labelled, predicted = np.isin(range(10), labels), np.isin(range(10), classes)
    return [
        ("labelled", each[labelled].mean()),
        ("predicted", each[predicted].mean()),
        ("both", each[labelled & predicted].mean()),
    ]


def _judge_gaps(answer) -> None:
    """Run the learner's function on ``gap_data()`` and refuse a number other than its macro
    precision, naming the classes it averaged when that is what it did, or an error it raised
    there (having run on the check's first data)."""
    labels, probabilities = gap_data()
    absent, unpredicted = GAPS["absent"], all_of(GAPS["unpredicted"])
    try:
        returned, watch = _keras_only(answer, labels.copy(), probabilities.copy())
    except WorkbookProblem:
        raise
    except Exception as error:
        if learner_line(error) is None:
            raise
        fail(
            "on the check's data where digit {absent} is never the label, `precision_macro"
            "(labels, probabilities)` raised {error}, though it ran on data where every digit "
            "is a label: fix it and run its cell again",
            absent=absent,
            error=_raised(error),
        )
    value = _one_number(returned, CALL)
    if _near(value, _macro_precision(labels, probabilities)):
        return
    _refuse_carried(watch, CALL, value)
    for key, reading in _gap_readings(labels, probabilities.astype(np.float64)):
        if _near(value, reading):
            raise CheckFailed(
                gap_readings()[key].format(value=value, absent=absent, unpredicted=unpredicted)
            )
    fail(
        "`precision_macro(labels, probabilities)` returned {value:.4f} on the check's data "
        "where digit {absent} is never the label and digits {unpredicted} are never "
        "predicted, which is not the macro precision of its predictions, though your function "
        "found it where every digit is a label and predicted: the macro average counts all ten "
        "classes, whichever appear",
        value=value,
        absent=absent,
        unpredicted=unpredicted,
    )


def _judge_keras(answer, watch, labels, probabilities) -> None:
    """Refuse a right number that Keras's metrics did not give (the prompt says "with
    keras.metrics"), judged by what the metrics did, not by the code's text.

    The rule: during the call on ``labels`` (its first, ``watch``), a Keras metric that counts
    predictions by their outcome (true and false positives: Precision, TruePositives and
    FalsePositives, F1Score, Recall, an IoU's confusion matrix ...) must have been updated; and
    when the call is made again with every such metric's counts changed after each of its
    updates — the true positives set to 0, one more false positive and false negative (an IoU's
    confusion matrix: its diagonal 0, one more elsewhere) — every precision those counts give is 0,
    so a macro precision computed from them is 0 too: the call must then return 0 (or fail). A
    number that does not move (NumPy beside an unused metric, an Accuracy updated) or moves only in
    part (one class from Keras, the rest by hand) is refused. A count kept in a graph the check
    cannot reach (a TF1 session) is taken as counted, unchanged."""
    counting = [metric for metric in watch.updated if _changes(metric)]
    if not counting:
        others = sorted({type(metric).__name__ for metric in watch.updated})
        if others:
            fail(
                "`precision_macro` returns the macro precision, but the Keras metrics that "
                "counted while it ran ({names}) count no true or false positives: the exercise "
                "asks for the number computed with keras.metrics, the precision that metrics "
                "such as Precision count in their `update_state`",
                names=all_of(others),
            )
        fail(
            "`precision_macro` returns the macro precision, but no Keras metric counted "
            "anything while it ran: the exercise asks for the number computed with "
            "keras.metrics, a metric that counts the predictions in its `update_state` and "
            "gives the precision as its `result()`"
        )
    try:
        returned, tampered = _keras_only(answer, labels.copy(), probabilities.copy(), True)
        value = float(np.asarray(returned, dtype=np.float64).reshape(()))
    except Exception:  # noqa: BLE001 - it failed on the changed counts: it reads them
        return
    if tampered.unreachable or not np.isfinite(value) or abs(value) <= PRECISION_TOLERANCE:
        return
    fail(
        "`precision_macro` returns the macro precision, but not wholly from what its Keras "
        "metrics counted: when the check set to 0 the true positives they counted, which makes "
        "every precision they give 0, it still returned a number other than 0; the exercise "
        "asks for the number computed with keras.metrics"
    )


def _keras_only(answer, labels, probabilities, tamper: bool = False) -> tuple:
    """(what ``answer(labels, probabilities)`` returns, the ``_Watch`` of the Keras metrics it
    made or reached); a failure when it called a function the exercise rules out (scikit-learn's
    precision, the course's metrics): the prompt asks for keras.metrics. ``tamper``: change the
    counts of the metrics after each update (``_judge_keras``)."""
    with forbidden.watching(answer, NOT_KERAS) as called, _watching(answer, tamper) as watch:
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
    return returned, watch


class _Watch:
    """What the Keras metrics did during one call of the learner's function: those it updated
    (in order), whether one it held from before the call (a global, its closure) already had
    counts at its first update (``carried``), whether a count was kept in a graph the check
    cannot change (``unreachable``). With ``tamper``, each update of a metric that counts
    outcomes is followed by ``_change``."""

    def __init__(self, tamper: bool):
        self.tamper = tamper
        self.updated: list = []
        self.held: list = []
        self.carried = False
        self.unreachable = False
        self.undo: list = []  # (metric, its own update_state)

    def watch(self, metric) -> None:
        """Watch ``metric``'s updates (its ``update_state``, which its ``__call__`` uses too)."""
        original = vars(metric).get("update_state")
        if original is None or any(metric is seen for seen, _own in self.undo):
            return

        def update_state(*args, **kwargs):
            self._before(metric)
            done = original(*args, **kwargs)
            if all(metric is not seen for seen in self.updated):
                self.updated.append(metric)
            if self.tamper or not _eager():
                self.unreachable |= not _change(metric, self.tamper)
            return done

        self.undo.append((metric, original))
        metric.update_state = update_state

    def _before(self, metric) -> None:
        """Note a held metric's counts at its first update in this call."""
        first = all(metric is not seen for seen in self.updated)
        if first and any(metric is held for held in self.held) and _eager():
            counts = _counts(metric) or ()
            self.carried |= any(np.any(count != 0) for count in counts)

    def restore(self) -> None:
        for metric, original in reversed(self.undo):
            metric.update_state = original

    def moved_unseen(self, before: list) -> None:
        """Count as updated, out of the check's reach, a held metric whose counts moved though
        no update was seen (a learner's tf.function traced before the check, and not again)."""
        for metric, old in zip(self.held, before):
            new = _counts(metric)
            if any(metric is seen for seen in self.updated) or old is None or new is None:
                continue
            if len(old) != len(new) or any(np.any(a != b) for a, b in zip(old, new)):
                self.updated.append(metric)
                self.unreachable = True


def _eager() -> bool:
    import tensorflow as tf

    return tf.executing_eagerly()


@functools.cache
def _tamper_flag():
    """The variable that turns the change of counts on in a learner's tf.function, traced once
    with it (off outside ``_judge_keras``'s call)."""
    import tensorflow as tf

    with tf.init_scope():
        return tf.Variable(False, trainable=False, name="check_tamper")


def _count_kinds(metric) -> list:
    """(variable, how the check changes it) for each count of ``metric`` that a precision is made
    of: a true-positive count to 0 ("zero"), a false-positive or false-negative count one more
    ("more"), an IoU's confusion matrix 0 on its diagonal and one more elsewhere ("matrix"). Empty
    for a metric that counts no outcome (Accuracy, a mean). Read from the variables' names."""
    from tensorflow import keras

    by_class = {keras.metrics.TruePositives: "true_positives"}
    by_class[keras.metrics.FalsePositives] = by_class[keras.metrics.FalseNegatives] = "more"
    kinds = []
    for variable in metric.variables:
        name = variable.name.split("/")[-1].split(":")[0]
        if name == "accumulator":
            name = next((n for c, n in by_class.items() if isinstance(metric, c)), name)
        if name == "true_positives":
            kinds.append((variable, "zero"))
        elif name in ("false_positives", "false_negatives", "more"):
            kinds.append((variable, "more"))
        elif name == "total_confusion_matrix" and len(variable.shape) == 2:
            kinds.append((variable, "matrix"))
    return kinds


def _changed(variable, kind: str):
    """``variable``'s value changed as ``_count_kinds`` says."""
    import tensorflow as tf

    if kind == "zero":
        return tf.zeros_like(variable)
    if kind == "more":
        return variable + tf.ones_like(variable)
    off = 1 - tf.eye(variable.shape[0], variable.shape[1], dtype=variable.dtype)
    return variable * off + off


def _changes(metric) -> bool:
    """Whether ``metric`` counts outcomes that a precision is made of."""
    return bool(_count_kinds(metric))


def _change(metric, now: bool) -> bool:
    """Change ``metric``'s counts (``_count_kinds``): at once when eager and ``now``, else in
    the learner's tf.function where ``_tamper_flag`` is on; False when they are in a graph the
    check cannot reach."""
    import tensorflow as tf

    if not tf.executing_eagerly() and not tf.inside_function():
        return False
    flag = _tamper_flag()
    eager = tf.executing_eagerly()
    for variable, kind in _count_kinds(metric):
        if not eager:
            variable.assign(tf.where(flag, _changed(variable, kind), variable))
        elif now:
            variable.assign(_changed(variable, kind))
    return True


@contextlib.contextmanager
def _watching(answer, tamper: bool):
    """While it lasts, every Keras metric object made, and every one the learner's function holds
    (its globals, its closure), is watched (``_Watch``); with ``tamper``, their counts are changed
    after each update, in eager code and in a tf.function alike."""
    import tensorflow as tf

    metric_class = tf.keras.metrics.Metric
    watch = _Watch(tamper)
    original = metric_class.__init__

    @functools.wraps(original)
    def keeping(self, *args, **kwargs):
        original(self, *args, **kwargs)
        watch.watch(self)

    watch.held = _metrics_held_by(answer, metric_class)
    for metric in watch.held:
        watch.watch(metric)
    before = [_counts(metric) for metric in watch.held]
    flag = _tamper_flag()
    flag.assign(tamper)
    metric_class.__init__ = keeping
    try:
        yield watch
    finally:
        metric_class.__init__ = original
        flag.assign(False)
        watch.restore()
        watch.moved_unseen(before)


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


def _refuse_raised(answer, step: int, error: BaseException) -> NoReturn:
    """Refuse a schedule with which Adam, training at ``step``, raised ``error``: the error quoted,
    and its cause when the check can establish it (``_cause``)."""
    cause, values = _cause(answer, step)
    values.update(step=step, error=_quoted(error))
    if cause == "no_step":
        fail(
            "Adam, training at step {step} with `schedule`, raised {error}: its `__call__` "
            "takes no parameter but self, and Adam calls it with the step, `schedule(step)`",
            **values,
        )
    if cause == "arguments":
        fail(
            "Adam, training at step {step} with `schedule`, raised {error}: its `__call__` "
            "takes the parameters ({parameters}), but Adam calls it with the step alone, "
            "`schedule(step)`",
            **values,
        )
    if cause == "none":
        fail(
            "Adam, training at step {step} with `schedule`, raised {error}: `schedule(step)` "
            "returned None, not a rate: its `__call__` must return the rate",
            **values,
        )
    if cause == "tf1":
        fail(
            "Adam, training at step {step} with `schedule`, raised {error}: `schedule(step)` "
            "returned a function, not a rate: in eager mode, where the check reads the rate, "
            "tf.compat.v1.train.piecewise_constant and TF1's other schedule functions return a "
            "function instead of a tensor",
            **values,
        )
    if cause == "callable":
        fail(
            "Adam, training at step {step} with `schedule`, raised {error}: `schedule(step)` "
            "returned a {kind}, which is not a rate: its `__call__` must return the rate itself",
            **values,
        )
    if cause == "arrays":
        fail(
            "Adam, training at step {step} with `schedule`, raised {error}: the schedule's "
            "boundaries or values are a NumPy array, which PiecewiseConstantDecay takes as a "
            "single boundary or value",
            **values,
        )
    if cause == "boundaries":
        fail(
            "Adam, training at step {step} with `schedule`, raised {error}: the schedule's "
            "boundaries, `{boundaries}`, do not increase, and a piecewise-constant schedule needs "
            "each larger than the one before",
            **values,
        )
    raise CheckFailed(
        _("Adam, training at step {step} with `schedule`, raised {error}").format(**values)
    ) from None


def _cause(answer, step: int) -> tuple:
    """Why Adam's call of the schedule at ``step`` failed, when the check can tell: (the cause,
    its values) — a ``__call__`` that does not take the step alone ("arguments"), one that returns
    None ("none"), TF1's eager function ("tf1") or another function ("callable"), boundaries that
    do not increase ("boundaries"); else (None, {})."""
    import tensorflow as tf

    try:
        signature = inspect.signature(answer.__call__)
        signature.bind(step)
    except TypeError:
        if not signature.parameters:
            return "no_step", {}
        return "arguments", {"parameters": ", ".join(signature.parameters)}
    except ValueError:  # no signature to read
        pass
    try:
        returned = answer(tf.constant(step, tf.int64))
    except Exception:  # noqa: BLE001 - it fails as Adam's call did: look at its boundaries
        returned = 0.0
    if returned is None:
        return "none", {}
    if callable(returned):
        inner = type(getattr(returned, "func", None)).__module__
        if isinstance(returned, functools.partial) and inner.startswith("tensorflow.python.keras"):
            return "tf1", {}
        return "callable", {"kind": type(returned).__name__}
    given = _piecewise_config(answer)
    if any(isinstance(given.get(key), np.ndarray) for key in ("boundaries", "values")):
        return "arrays", {}
    try:
        boundaries = [float(np.asarray(b)) for b in given["boundaries"]]
    except (KeyError, TypeError, ValueError):
        return None, {}
    if any(b <= a for a, b in zip(boundaries, boundaries[1:])):
        return "boundaries", {"boundaries": [_plain(b) for b in boundaries]}
    return None, {}


def _piecewise_config(answer) -> dict:
    """The boundaries and values of a piecewise schedule as it was given them, from its config or
    its attributes (those it has)."""
    try:
        config = dict(answer.get_config())
    except Exception:  # noqa: BLE001 - a schedule of the learner's without a config
        config = {
            key: getattr(answer, key) for key in ("boundaries", "values") if hasattr(answer, key)
        }
    return config


def _plain(number: float):
    """500.0 as 500, 500.5 as it is."""
    return int(number) if float(number).is_integer() else number


def _piecewise(step: int, boundaries, values) -> float:
    """What ``tf.compat.v1.train.piecewise_constant`` gives at ``step`` (run by TensorFlow)."""
    import tensorflow as tf

    rate = tf.compat.v1.train.piecewise_constant(
        tf.constant(step, tf.int64), list(boundaries), list(values)
    )
    return float(rate() if callable(rate) else rate)


@reporting_learner_errors
@_quoting_learner_errors
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
            raise  # the learner's own line failed: _quoting_learner_errors names it
        _refuse_raised(answer, 0, error)
    weight, got = tf.Variable(0.0), {}
    for step in steps:
        optimizer.iterations.assign(step)
        try:
            optimizer.apply_gradients([(tf.constant(0.0), weight)])
            got[step] = float(optimizer.learning_rate)
        except Exception as error:  # noqa: BLE001 - the learner's schedule: one sentence
            _refuse_raised(answer, step, error)
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
