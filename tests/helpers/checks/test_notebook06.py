"""Every message of notebook 06's exercise checks, on a bank of plausible wrong answers.

Exercise 1 builds real metric functions (right ones, and each mistake a learner can
make) and runs them through the check's two batches; the expected numbers are
checked against scikit-learn. Exercises 2 and 3 use a small event table and a
small confusion matrix made here. No wrong answer passes, no right one fails, and
no message hands over the answer.
"""

import re

import numpy as np
import pandas as pd
import pytest
import tensorflow as tf
from sklearn.metrics import precision_score, recall_score

from helpers import language, metrics
from helpers.checks import notebook06 as checks
from helpers.checks import notebook06, notebook07, notebook08, notebook09, notebook10
from helpers.problems import CheckFailed
from tests import ROOT
from tests.support.banks import bank
from tests.support.checks import failure, notebook_headings
from tools.notebook_code import definitions

# The kinds that do not apply, argued (tests/support/banks.py).
NOT_APPLICABLE = {
    1: {
        "wrong unit": "a fraction (a precision, an F1): no other unit",
        "hard-coded from an output above": (
            "a streaming metric function: a number from an output cannot stand in for one"
        ),
    },
    2: {
        "wrong unit": "a fraction (a precision, an F1): no other unit",
        "forbidden API": "the prompt forbids no API",
    },
    3: {
        "off by one": "digits are the matrix's own indices: nothing to count",
        "wrong unit": "digits: no unit",
        "forbidden API": "the prompt forbids no API",
    },
}

# --- exercise 1: macro precision as a (value, update_op) pair -----------------

LABELS = np.concatenate([b[0] for b in notebook06.BATCHES])
CLASSES = np.concatenate([b[1] for b in notebook06.BATCHES])


def test_the_batches_tell_every_mistake_apart():
    ours = notebook06.precisions(LABELS, CLASSES)
    for average in ("macro", "micro", "weighted"):
        assert ours[average] == pytest.approx(
            precision_score(LABELS, CLASSES, labels=range(10), average=average, zero_division=0)
        )
    assert ours["is_not_0"] == pytest.approx(precision_score(LABELS != 0, CLASSES != 0))
    assert ours["recall"] == pytest.approx(recall_score(LABELS, CLASSES, average="macro"))
    per_batch = [notebook06.precisions(*batch)["macro"] for batch in notebook06.BATCHES]
    values = list(ours.values()) + per_batch + [np.mean(per_batch)]
    assert min(abs(a - b) for i, a in enumerate(values) for b in values[i + 1 :]) > 0.01


def test_some_digits_are_never_predicted_but_all_are_labels():
    assert set(LABELS) == set(range(10))
    assert set(range(10)) - set(CLASSES)  # a mean over predicted digits only is told apart


def _per_digit(swap=False, digits=range(10)):
    """The intended answer: binary precision of "is digit k", averaged;
    swap trades labels and classes."""

    def metric_fn(labels, predictions):
        classes = predictions["classes"]
        if swap:
            labels, classes = classes, labels
        pairs = [
            tf.compat.v1.metrics.precision(
                labels=tf.equal(labels, k), predictions=tf.equal(classes, k)
            )
            for k in digits
        ]
        values, updates = zip(*pairs)
        return {"precision": (tf.reduce_mean(tf.stack(values)), tf.group(*updates))}

    return metric_fn


def _helpers_macro(labels, predictions):
    return {
        "precision": metrics.precision_recall_f1(labels, predictions["classes"], num_classes=10)[
            "precision_macro"
        ]
    }


def _streamed_counts(labels, predictions):
    """True and false positives per digit, streamed: (tp, fp, their update op)."""
    tps, fps = [], []
    for k in range(10):
        is_label, is_class = tf.equal(labels, k), tf.equal(predictions["classes"], k)
        tps.append(tf.compat.v1.metrics.true_positives(is_label, is_class))
        fps.append(tf.compat.v1.metrics.false_positives(is_label, is_class))
    update = tf.group([u for _, u in tps + fps])
    return tf.stack([v for v, _ in tps]), tf.stack([v for v, _ in fps]), update


def _by_hand(labels, classes) -> dict:
    """What precision_recall_f1 gives, from a confusion matrix streamed by hand (the course's
    metrics are ruled out): per-class "precision" and "f1", and "precision_<average>", each a
    (value, update_op) pair."""
    total = tf.compat.v1.Variable(
        tf.zeros([10, 10]), trainable=False, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES]
    )
    update = total.assign_add(tf.math.confusion_matrix(labels, classes, 10, dtype=tf.float32))
    matrix = tf.identity(total)
    true_positives = tf.linalg.diag_part(matrix)
    predicted, support = tf.reduce_sum(matrix, axis=0), tf.reduce_sum(matrix, axis=1)
    precision = tf.math.divide_no_nan(true_positives, predicted)
    f1 = tf.math.divide_no_nan(2 * true_positives, predicted + support)
    values = {
        "precision": precision,
        "precision_macro": tf.reduce_mean(precision),
        "precision_micro": tf.reduce_sum(true_positives) / tf.reduce_sum(support),
        "precision_weighted": tf.reduce_sum(precision * support) / tf.reduce_sum(support),
        "f1_macro": tf.reduce_mean(f1),
    }
    return {key: (value, update) for key, value in values.items()}


def _from_counts(labels, predictions):
    """Another right answer: streaming true and false positives per digit."""
    tp, fp, update = _streamed_counts(labels, predictions)
    return {"precision": (tf.reduce_mean(tf.math.divide_no_nan(tp, tp + fp)), update)}


def _one_hot_columns(labels, predictions):
    """Another right answer: binary precision of each one-hot column, summed, over ten."""
    truth = tf.cast(tf.one_hot(labels, 10), tf.bool)
    predicted = tf.cast(tf.one_hot(tf.argmax(predictions["probabilities"], axis=1), 10), tf.bool)
    pairs = [
        tf.compat.v1.metrics.precision(labels=truth[:, k], predictions=predicted[:, k])
        for k in range(10)
    ]
    return {"precision": (tf.add_n([v for v, _ in pairs]) / 10.0, tf.group([u for _, u in pairs]))}


@pytest.mark.parametrize(
    "answer",
    [_per_digit(), pytest.param(_one_hot_columns, marks=bank(1, "right, written otherwise"))],
    ids=["binary per digit", "one-hot columns, argmax of the probabilities"],
)
def test_macro_precision_correct(answer, capsys):
    checks.macro_precision_metric(answer)
    out = capsys.readouterr().out
    assert out.startswith(
        "Correct: on two batches of ten-class labels your precision is "
        f"{notebook06.precisions(LABELS, CLASSES)['macro']:.4f}"
    )


def _binary(labels, predictions):
    return {
        "precision": tf.compat.v1.metrics.precision(
            labels=labels, predictions=predictions["classes"]
        )
    }


def _named(key, average):
    def metric_fn(labels, predictions):
        return {key: _by_hand(labels, predictions["classes"])[f"precision_{average}"]}

    return metric_fn


def _keras(labels, predictions):
    metric = tf.keras.metrics.Precision()
    metric.update_state(tf.one_hot(labels, 10), predictions["probabilities"])
    return {"precision": metric}


def _batch_precision(labels, classes):
    matrix = tf.math.confusion_matrix(labels, classes, num_classes=10, dtype=tf.float32)
    return tf.reduce_mean(
        tf.math.divide_no_nan(tf.linalg.diag_part(matrix), tf.reduce_sum(matrix, axis=0))
    )


def _last_batch(labels, predictions):
    value = tf.compat.v1.Variable(
        0.0, trainable=False, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES]
    )
    return {
        "precision": (
            tf.identity(value),
            tf.compat.v1.assign(value, _batch_precision(labels, predictions["classes"])),
        )
    }


def _first_batch(labels, predictions):
    """Reads the first batch only: the update assigns once, the value never moves again."""
    value = tf.compat.v1.Variable(
        -1.0, trainable=False, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES]
    )
    batch = _batch_precision(labels, predictions["classes"])
    update = tf.compat.v1.assign(value, tf.where(value < 0, batch, value))
    return {"precision": (tf.identity(value), update)}


def _mean_of_batches(labels, predictions):
    return {
        "precision": tf.compat.v1.metrics.mean(_batch_precision(labels, predictions["classes"]))
    }


def _mean_per_class_accuracy(labels, predictions):
    return {
        "precision": tf.compat.v1.metrics.mean_per_class_accuracy(
            labels, predictions["classes"], 10
        )
    }


def _predicted_only(labels, predictions):
    """Precision per digit from counts,
    averaged over the digits that were predicted at least once."""
    tp, fp, update = _streamed_counts(labels, predictions)
    predicted = tp + fp
    seen = predicted > 0
    value = tf.reduce_mean(tf.boolean_mask(tp / tf.where(seen, predicted, 1.0), seen))
    return {"precision": (value, update)}


def _per_class(labels, predictions):
    return {"precision": _by_hand(labels, predictions["classes"])["precision"]}


def _swapped(labels, predictions):
    return {"precision": _by_hand(predictions["classes"], labels)["precision_macro"]}


def _f1(labels, predictions):
    return {"precision": _by_hand(labels, predictions["classes"])["f1_macro"]}


def _course_through_classification_metrics(labels, predictions):
    """The course's metrics reached through classification_metrics, which calls
    precision_recall_f1."""
    ops = metrics.classification_metrics(
        labels, predictions["classes"], predictions["probabilities"]
    )
    return {"precision": ops["precision_macro"]}


# The notebook's own tf_metrics (its reproduction of the package) and a learner's function that
# calls it, as the notebook's namespace holds them: the check finds the class among the
# function's globals.
NOTEBOOK_NAMESPACE = definitions("06_metrics_and_tensorboard.ipynb", names=("tf_metrics",))
exec(  # noqa: S102 - a learner's cell, run in the notebook's namespace
    "def tf_metrics_macro(labels, predictions):\n"
    "    return {'precision': tf_metrics.precision(labels, predictions['classes'], 10,\n"
    "                                              average='macro')}\n",
    NOTEBOOK_NAMESPACE,
)


def _only_last_update(labels, predictions):
    """Ten binary precisions averaged, but the update op of the last digit only."""
    pairs = [
        tf.compat.v1.metrics.precision(
            labels=tf.equal(labels, k), predictions=tf.equal(predictions["classes"], k)
        )
        for k in range(10)
    ]
    return {"precision": (tf.reduce_mean(tf.stack([v for v, _ in pairs])), pairs[-1][1])}


def _only_update_of(digit):
    """Ten binary precisions averaged, with the update op of one digit only."""

    def metric_fn(labels, predictions):
        pairs = [
            tf.compat.v1.metrics.precision(
                labels=tf.equal(labels, k), predictions=tf.equal(predictions["classes"], k)
            )
            for k in range(10)
        ]
        return {"precision": (tf.reduce_mean(tf.stack([v for v, _ in pairs])), pairs[digit][1])}

    return metric_fn


def test_one_update_op_is_named_and_points_to_tf_group():
    """Issue 32: returning the last of the ten update ops passed as "none of the usual slips"."""
    message = failure(checks.macro_precision_metric, _only_update_of(0))
    assert message == (
        "on two batches of ten-class labels your precision is 0.1000 where the macro precision is "
        "0.5767, and 0.1000 is the mean of ten per-digit precisions of which only one digit's "
        "counts were ever updated: the update op you return must run the updates of all ten "
        "digits, grouped into one op with tf.group (section 'A metric is a `(value, update_op)` "
        "pair')"
    )


def _from_probabilities(predicted):
    """Ten binary precisions on ``predicted(probabilities[:, k])``: right only if the
    probabilities were one-hot."""

    def metric_fn(labels, predictions):
        pairs = [
            tf.compat.v1.metrics.precision(
                labels=tf.equal(labels, k),
                predictions=predicted(predictions["probabilities"][:, k]),
            )
            for k in range(10)
        ]
        return {
            "precision": (
                tf.reduce_mean(tf.stack([v for v, _ in pairs])),
                tf.group(*[u for _, u in pairs]),
            )
        }

    return metric_fn


def _with_update(update):
    """The right ten precisions, with another update op."""

    def metric_fn(labels, predictions):
        value, _ = _per_digit()(labels, predictions)["precision"]
        return {"precision": (value, update(labels, predictions))}

    return metric_fn


def _python_equals(labels, predictions):
    """``==`` on graph tensors: Python's identity, no element-wise comparison."""
    pairs = [
        tf.compat.v1.metrics.precision(
            labels=tf.cast(labels, tf.int32) == k, predictions=predictions["classes"] == k
        )
        for k in range(10)
    ]
    return {
        "precision": (
            tf.reduce_mean(tf.stack([v for v, _ in pairs])),
            tf.group(*[u for _, u in pairs]),
        )
    }


def _over_digits_among_labels(labels, predictions):
    """Ten binary precisions summed, over the number of digits seen among the labels."""
    pairs = [
        tf.compat.v1.metrics.precision(
            labels=tf.equal(labels, k), predictions=tf.equal(predictions["classes"], k)
        )
        for k in range(10)
    ]
    seen = [
        tf.compat.v1.metrics.true_positives(tf.equal(labels, k), tf.equal(labels, k))
        for k in range(10)
    ]
    count = tf.add_n([tf.cast(v > 0, tf.float32) for v, _ in seen])
    value = tf.add_n([v for v, _ in pairs]) / count
    return {"precision": (value, tf.group([u for _, u in pairs + seen]))}


def _right_on_the_first_call_only():
    """Digits 0 to 9 on the first call, 1 to 9 after (over ten)."""
    made = []

    def metric_fn(labels, predictions):
        made.append(1)
        digits = range(10) if len(made) == 1 else range(1, 10)
        pairs = [
            tf.compat.v1.metrics.precision(
                labels=tf.equal(labels, k), predictions=tf.equal(predictions["classes"], k)
            )
            for k in digits
        ]
        value = tf.add_n([v for v, _ in pairs]) / 10.0
        return {"precision": (value, tf.group([u for _, u in pairs]))}

    return metric_fn


def _raising(labels, predictions):
    raise ValueError("a learner's own bug")


WRONG_EX1 = [
    (None, "`macro_precision` is still None"),
    ("precision", "should be a function"),
    (lambda labels: {}, "must take two arguments"),
    (
        lambda labels, predictions: _binary(labels, predictions)["precision"],
        "`macro_precision` returned a tuple: return a dict",
    ),
    (_named("prec", "macro"), "name the metric 'precision'"),
    (_keras, "Keras Metric object"),
    (
        lambda labels, predictions: {"precision": tf.constant(1.0)},
        "not a `\\(value, update_op\\)` pair",
    ),
    # the article_precision cell
    pytest.param(
        _binary, "is the precision of 'the digit is not 0'", marks=bank(1, "copy of a nearby cell")
    ),
    (
        _named("precision", "micro"),
        "micro precision, which equals the accuracy"
        + re.escape(
            " on single-label data: the exercise asks for the plain mean of the ten "
            "per-digit precisions (section 'Every metric of the trained model')"
        ),
    ),
    pytest.param(
        _named("precision", "weighted"),
        "the weighted average",
        marks=bank(1, "right shape, wrong content"),
    ),
    (
        _last_batch,
        re.escape(
            "the second batch alone: the update op must add each batch to running totals "
            "(section 'A metric is a `(value, update_op)` pair')"
        ),
    ),
    (_first_batch, "the first batch alone"),
    (_mean_of_batches, "the mean of the two batches' own precisions"),
    (_per_class, "one number per class"),
    (_swapped, "is the macro recall"),
    (_per_digit(swap=True), "is the macro recall"),
    (_mean_per_class_accuracy, "is the macro recall"),
    # right when every digit is predicted, as on the notebook's test set
    pytest.param(
        _predicted_only,
        "a mean over the digits that were predicted",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
    # range(1, 10)
    pytest.param(
        _per_digit(digits=range(1, 10)), "none of the usual slips", marks=bank(1, "off by one")
    ),
    (_f1, "none of the usual slips"),
    # the last digit, 9, is never predicted: its precision alone is 0
    (_only_last_update, "does not run the updates of all ten digits"),
    (_only_update_of(0), "of which only one digit's counts were ever updated"),
    pytest.param(
        _helpers_macro,
        re.escape(
            "`macro_precision` calls helpers.metrics.precision_recall_f1, which the exercise "
            "rules out: its point is to make the ten-class precision yourself from "
            "TensorFlow's binary `tf.compat.v1.metrics.precision`"
        ),
        marks=bank(1, "forbidden API"),
    ),
    (
        _course_through_classification_metrics,
        "calls helpers.metrics.precision_recall_f1, which the exercise rules out",
    ),
    (NOTEBOOK_NAMESPACE["tf_metrics_macro"], "calls tf_metrics, which the exercise rules out"),
    # right, but not from tf.compat.v1.metrics.precision, which the prompt asks for
    pytest.param(
        _from_counts,
        re.escape("but its value reads 0 of the ten `tf.compat.v1.metrics.precision`"),
        marks=bank(1, "forbidden API"),
    ),
    (_named("precision", "macro"), "but its value reads 0 of the ten"),
    # the probabilities of a real softmax: no column is one-hot, none above 0.5
    pytest.param(
        _from_probabilities(lambda column: column > 0.5),
        "no digit's precision counted a single true positive",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
    (_from_probabilities(lambda column: column), "none of the usual slips"),
    # a hang before the check's loss read the batch
    (_with_update(lambda labels, predictions: tf.no_op()), "counted a single true positive"),
    (
        lambda labels, predictions: {"precision": (tf.constant(0.5), tf.no_op())},
        "none of the usual slips",
    ),
    (_python_equals, "counted a single true positive"),
    # a second evaluate() on other batches, with digits in no label
    pytest.param(
        _over_digits_among_labels,
        "in a second evaluation, on two other batches where digits 1, 7 are in no label, your "
        "precision is 0.5417 where the macro precision is 0.4333, and 0.5417 is a mean over the "
        "digits among the labels only",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
    (
        _right_on_the_first_call_only(),
        re.escape(
            "in a second evaluation, on two other batches (digits 1, 7 in no label, digits 1, "
            "4, 8 never predicted), your precision is 0.3333 where the macro precision is "
            "0.4333, though on the first two batches it was right"
        ),
    ),
]
IDS_EX1 = [
    "blank",
    "not callable",
    "one argument",
    "bare pair",
    "wrong key",
    "keras",
    "bare tensor",
    "binary",
    "micro",
    "weighted",
    "last batch",
    "first batch",
    "mean of batches",
    "per class",
    "swapped, by hand",
    "swapped binary",
    "mean_per_class_accuracy",
    "predicted only",
    "nine digits",
    "f1",
    "last update only",
    "first update only",
    "course",
    "course through classification_metrics",
    "the notebook's tf_metrics",
    "counts, not precision",
    "hand-made confusion matrix",
    "probabilities above 0.5",
    "probabilities as predictions",
    "right values, no update",
    "constant, no update",
    "python ==",
    "over the digits among the labels",
    "right on the first call only",
]


@pytest.mark.parametrize("answer, words", WRONG_EX1, ids=IDS_EX1)
def test_macro_precision_explains_mistakes(answer, words):
    with pytest.raises(CheckFailed, match=words) as caught:
        checks.macro_precision_metric(answer)
    message = str(caught.value)
    assert "precision_macro" not in message and "tf.equal" not in message  # nothing to paste
    assert "passed in this order" not in message  # the old hint that fitted none of the mistakes


def test_a_solution_that_raises_shows_the_learners_error():
    # the learner's error, never "still None"
    with pytest.raises(Exception, match="a learner's own bug"):
        checks.macro_precision_metric(_raising)


def test_macro_precision_binary_names_the_cause_and_the_section():
    """The break-it cell's message, as the learner reads it."""
    assert failure(checks.macro_precision_metric, _binary) == (
        "on two batches of ten-class labels your precision is 0.9444 where the macro precision is "
        "0.5767, and 0.9444 is the precision of 'the digit is not 0': "
        "tf.compat.v1.metrics.precision casts labels and predictions to bool, so on the class ids "
        "themselves it sees two classes, not ten (section \"The source article's metrics dict, "
        'run on this model"); give it one digit at a time'
    )


def test_every_mistake_is_one_whole_template():
    """Each message is one template with named values, formatted once (no glued fragments)."""
    for key, template in notebook06.mistakes().items():
        message = template.format(result=0.25, expected=0.5)
        assert message.startswith("on two batches of ten-class labels your precision is 0.2500")
        assert "{" not in message and "\n" not in message, key


def test_the_sections_the_messages_cite_are_in_the_notebook():
    headings = notebook_headings("06_metrics_and_tensorboard")
    for section in (
        "A metric is a `(value, update_op)` pair",
        "Every metric of the trained model",
        "The source article's metrics dict, run on this model",
        "Event files as a pandas table",
    ):
        assert section in headings


# What each average gives on the check's two batches, as the messages print it (4 decimals):
# every value differs, so each message names one mistake.
BATCH_VALUES = {
    "macro": 0.5767,
    "micro": 0.75,
    "weighted": 0.69,
    "is_not_0": 0.9444,
    "recall": 0.6333,
    "predicted_only": 0.8238,
}
PER_BATCH_MACRO = [0.325, 0.4667]


def test_the_batches_give_these_values():
    assert notebook06.precisions(LABELS, CLASSES) == pytest.approx(BATCH_VALUES, abs=5e-5)
    per_batch = [notebook06.precisions(*batch)["macro"] for batch in notebook06.BATCHES]
    assert per_batch == pytest.approx(PER_BATCH_MACRO, abs=5e-5)


def test_a_type_error_of_the_learners_own_is_shown_as_it_is():
    """Only a TypeError about the arguments means the wrong signature."""

    def macro_precision(labels, predictions):
        return {"precision": [None] * len(labels)}

    message = failure(checks.macro_precision_metric, macro_precision)
    assert message.startswith("your code raised TypeError: len is not well defined"), message


# --- exercise 2: the training sample's F1 at the test set's best step ----------

# A table like the notebook's, where both runs peak at the last step (as the notebook's training
# does): on it alone, "the training sample's best" and the right answer are the same number.
TABLE = pd.DataFrame(
    [
        (".", "loss", 1, 2.3),
        (".", "loss", 101, 0.4),
        ("eval", "accuracy", 100, 0.91),
        ("eval", "accuracy", 200, 0.95),
        ("eval", "f1_macro", 100, 0.905),
        ("eval", "f1_macro", 200, 0.948),
        ("eval_training_sample", "accuracy", 200, 0.963),
        ("eval_training_sample", "f1_macro", 100, 0.912),
        ("eval_training_sample", "f1_macro", 200, 0.96),
    ],
    columns=["run", "tag", "step", "value"],
)


def _f1(table, run):
    rows = table[(table["run"] == run) & (table["tag"] == "f1_macro")]
    return rows.set_index("step")["value"].sort_index()


def right_pivot(table):
    """The notebook's solution."""
    f1_rows = table[table["tag"] == "f1_macro"]
    by_run = f1_rows.pivot(index="step", columns="run", values="value")
    return by_run.loc[by_run["eval"].idxmax(), "eval_training_sample"]


def right_filters(table):
    return _f1(table, "eval_training_sample")[_f1(table, "eval").idxmax()]


def right_float(table):
    return float(right_pivot(table))


@pytest.mark.parametrize("seed", range(200))
def test_the_checks_tables_separate_the_best_steps(seed):
    """Issue 32 and the blind adversary: on each of the check's tables the test set peaks at one
    step, neither run's first nor last nor the sample's best; the runs were evaluated at
    different steps; another F1 tag of run 'eval' is higher, elsewhere; no value repeats."""
    table = notebook06.f1_table(np.random.default_rng(seed))
    test, sample = _f1(table, "eval"), _f1(table, "eval_training_sample")
    best = test.idxmax()
    assert (test == test.max()).sum() == 1 and best in sample.index
    assert best not in (test.index[0], test.index[-1], sample.index[0], sample.index[-1])
    assert sample.idxmax() != best and set(test.index) != set(sample.index)
    after = sample.index[sample.index > best][0]
    assert sample.idxmax() not in (sample.index[0], sample.index[-1], after)
    # a position in one run is not the same step in the other, up to the best
    assert list(sample.index).index(best) != list(test.index).index(best)
    other_f1 = table[(table["run"] == "eval") & table["tag"].str.startswith("f1")]
    assert other_f1["value"].max() > test.max()
    assert other_f1.loc[other_f1["value"].idxmax(), "step"] not in (
        best,
        *set(test.index) - set(sample.index),
    )
    assert table["value"].is_unique and table.loc[table["run"] != ".", "value"].max() < 0.9
    assert list(table.columns) == ["run", "tag", "step", "value"]


def test_the_checks_tables_are_drawn_anew():
    """The blind adversary read the one fixed table off (`if table["step"].max() == 500`)."""
    drawn = [notebook06.f1_tables() for _ in range(3)]
    assert all(len(tables) == notebook06.F1_TABLES >= 3 for tables in drawn)
    firsts = {tuple(tables[0]["value"].round(6)) for tables in drawn}
    assert len(firsts) == 3


@pytest.mark.parametrize(
    "answer",
    [
        right_pivot,
        pytest.param(right_filters, marks=bank(2, "right, written otherwise")),
        right_float,
        pytest.param(lambda table: np.float32(right_pivot(table)), id="as np.float32"),
    ],
)
def test_sample_f1_correct(answer, capsys):
    # as events.scalars reads them
    table = TABLE.assign(value=TABLE["value"].astype(np.float32).astype(float))
    checks.sample_f1_at_best_test_step(answer, table)
    assert capsys.readouterr().out == (
        "Correct: the test set's macro F1 was highest at step 200 (0.9480), the training "
        "sample's was 0.9600 there, and on 3 tables of the check's, where the two runs peak at "
        "different steps, your function read the right row too\n"
    )


def test_sample_f1_a_tie_accepts_either_step(capsys):
    tied = pd.concat(
        [
            TABLE,
            pd.DataFrame(
                [("eval", "f1_macro", 300, 0.948), ("eval_training_sample", "f1_macro", 300, 0.97)],
                columns=TABLE.columns,
            ),
        ]
    )

    def last_of_the_best(table):
        test, sample = _f1(table, "eval"), _f1(table, "eval_training_sample")
        return sample[test[test == test.max()].index.max()]

    checks.sample_f1_at_best_test_step(last_of_the_best, tied)
    assert "highest at step 300 (0.9480), the training sample's was 0.9700" in (
        capsys.readouterr().out
    )


def _next_evaluation(table):
    """The training sample's evaluation after the test set's best step."""
    sample = _f1(table, "eval_training_sample")
    return sample[sample.index > _f1(table, "eval").idxmax()].iloc[0]


def sample_best(table):
    """Issue 32: the training sample's own best, right on the notebook's data."""
    return _f1(table, "eval_training_sample").max()


def from_run(run, tag="f1_macro", where="best"):
    def answer(table):
        rows = table[(table["run"] == run) & (table["tag"] == tag)].set_index("step")["value"]
        steps = {"best": _f1(table, "eval").idxmax(), "first": rows.index.min()}
        return rows[steps[where]] if where in steps else rows[rows.index.max()]

    return answer


WRONG_EX2 = [
    (None, "`sample_f1` is still None"),
    (
        0.96,
        "`sample_f1` is a number, but the exercise asks for a function of the event table, "
        "`def sample_f1(table):`",
    ),
    (np.float32(0.96), "`sample_f1` is a number"),
    (pd.Series([0.96]), "`sample_f1` is a number"),
    ("0.96", "should be a function of the event table, `def sample_f1(table):`, not a str"),
    (
        lambda table: pd.Series([right_pivot(table)]),
        "`sample_f1(table)` returned a Series holding one value: return the number itself",
    ),
    (lambda table: str(right_pivot(table)), "`sample_f1(table)` returned a str"),
    pytest.param(
        sample_best,
        re.compile(
            r"returned 0\.\d{4}, tag 'f1_macro' of run 'eval_training_sample' at step \d+, the "
            r"training sample's own best: on this table the two runs peak at different steps, "
            r"and the right step is the one where run 'eval', the test set, has its highest "
            r"'f1_macro'"
        ),
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    # one run read, as the cells above read it
    pytest.param(
        lambda table: _f1(table, "eval").max(),
        re.compile(
            r"returned 0\.\d{4}, tag 'f1_macro' of run 'eval' at step \d+, the test set's: take "
            r"the step from run 'eval', then read the value of run 'eval_training_sample' at that "
            r"step"
        ),
        marks=bank(2, "copy of a nearby cell"),
    ),
    (from_run("eval", where="first"), re.compile(r"of run 'eval' at step \d+, the test set's")),
    (
        from_run("eval_training_sample", where="last"),
        re.compile(
            r"returned 0\.\d{4}, tag 'f1_macro' of run 'eval_training_sample' at step \d+, the "
            r"last evaluation: the right step"
        ),
    ),
    (
        from_run("eval_training_sample", where="first"),
        re.compile(r"at step \d+, the first evaluation: the right step"),
    ),
    # the next evaluation
    pytest.param(
        _next_evaluation,
        re.compile(
            r"tag 'f1_macro' of run 'eval_training_sample' at step \d+(, the last evaluation)?: "
            r"the right step is the one where run 'eval', the test set, has its highest 'f1_macro'"
        ),
        marks=bank(2, "off by one"),
    ),
    pytest.param(
        from_run("eval_training_sample", "accuracy"),
        re.compile(
            r"tag 'accuracy' of run 'eval_training_sample' at step \d+: the macro F1's tag is "
            r"'f1_macro'"
        ),
        marks=bank(2, "right shape, wrong content"),
    ),
    (
        from_run("eval", "accuracy"),
        re.compile(r"tag 'accuracy' of run 'eval' at step \d+: the macro F1's tag"),
    ),
    (
        from_run("eval_article_metrics"),
        re.compile(
            r"tag 'f1_macro' of run 'eval_article_metrics' at step \d+: the training sample's "
            r"evaluations are run 'eval_training_sample'"
        ),
    ),
    (lambda table: table.loc[table["tag"] == "loss", "value"].iloc[0], "tag 'loss' of run '"),
    (lambda table: 0.5, "returned 0.5000, which is no value in the table: the table has one row"),
    pytest.param(
        lambda table: 0.96,
        "returned 0.9600, which is no value in the table",
        marks=bank(2, "hard-coded from an output above"),
    ),
]


@pytest.mark.parametrize(
    "answer, words",
    WRONG_EX2,
    ids=[
        "blank",
        "the number",
        "a numpy number",
        "a series",
        "string",
        "returns a series",
        "returns a string",
        "sample best",
        "test best",
        "test first",
        "sample last",
        "sample first",
        "one step late",
        "sample accuracy",
        "test accuracy",
        "the article's run",
        "loss",
        "unknown",
        "hard-coded",
    ],
)
def test_sample_f1_explains_mistakes(answer, words, monkeypatch):
    drawn = []

    def recorded():
        drawn.extend(notebook06.f1_tables.__wrapped__())
        return drawn

    recorded.__wrapped__ = notebook06.f1_tables
    monkeypatch.setattr(notebook06, "f1_tables", recorded)
    message = failure(checks.sample_f1_at_best_test_step, answer, TABLE)
    assert words.search(message) if isinstance(words, re.Pattern) else words in message, message
    assert "0.9600" not in message or "returned 0.9600" in str(words)  # never the answer
    for table in drawn:  # nor the answer on the check's tables
        assert f"{right_pivot(table):.4f}" not in message


def test_sample_f1_messages_never_contradict_themselves():
    """The old check said "is tag 'f1_macro' of run 'eval' ...:
    the tag of the macro F1 is 'f1_macro'"."""
    for entry in WRONG_EX2[7:]:
        answer, _ = getattr(entry, "values", entry)  # a pair, or a pytest.param with its bank mark
        message = failure(checks.sample_f1_at_best_test_step, answer, TABLE)
        tag = message.split("tag '")[1].split("'")[0] if "tag '" in message else None
        assert not (tag == "f1_macro" and "tag is 'f1_macro'" in message)


def test_sample_f1_the_notebooks_table_alone_cannot_tell_the_sample_best():
    """Why the check has a table of its own: on the learner's table the wrong answer is right."""
    assert sample_best(TABLE) == right_pivot(TABLE)
    assert "the training sample's own best" in failure(
        checks.sample_f1_at_best_test_step, sample_best, TABLE
    )


def test_sample_f1_a_function_right_only_on_the_checks_table():
    def long_runs_only(table):
        sample = _f1(table, "eval_training_sample")
        return right_pivot(table) if len(sample) > 2 else sample.iloc[0]

    assert failure(checks.sample_f1_at_best_test_step, long_runs_only, TABLE) == (
        "`sample_f1` was right on 3 tables of the check's, but on the notebook's table it "
        "returned 0.9120, tag 'f1_macro' of run 'eval_training_sample' at step 100, which is not "
        "the training sample's 'f1_macro' at the step where run 'eval' has its highest 'f1_macro'"
    )


def test_sample_f1_the_learners_function_cannot_change_the_checks_table(capsys):
    def destructive(table):
        value = right_pivot(table)
        table.drop(table.index, inplace=True)
        return value

    checks.sample_f1_at_best_test_step(destructive, TABLE)
    assert "Correct" in capsys.readouterr().out
    assert len(TABLE) == 9


def test_sample_f1_without_the_runs():
    with pytest.raises(CheckFailed, match="has no 'f1_macro' in run 'eval'"):
        checks.sample_f1_at_best_test_step(right_pivot, TABLE[TABLE["run"] == "."])
    with pytest.raises(CheckFailed, match="has no 'f1_macro' in run 'eval_training_sample'"):
        checks.sample_f1_at_best_test_step(
            right_pivot, TABLE[TABLE["run"] != "eval_training_sample"]
        )


def test_sample_f1_a_value_found_twice_is_named_by_its_f1_row():
    """Values in the check's table are unique, so the row a function read is never ambiguous."""
    assert notebook06.f1_table()["value"].is_unique


def _write_events(folder, rows):
    """Event files as an Estimator writes them: run '.' in ``folder``, 'eval' in ``folder/eval``,
    ..., each scalar a TF1 summary with a simple_value."""
    for run in {row[0] for row in rows}:
        writer = tf.compat.v1.summary.FileWriter(str(folder / run))
        for _, tag, step, value in (row for row in rows if row[0] == run):
            summary = tf.compat.v1.Summary(
                value=[tf.compat.v1.Summary.Value(tag=tag, simple_value=value)]
            )
            writer.add_summary(summary, step)
        writer.close()


def test_sample_f1_reads_the_notebooks_table_from_its_event_files(tmp_path, capsys):
    """The blind adversary's answer cell edited `scalars` (the training sample's F1 set to 0.5)
    beside a right function: the check cell now passes `estimator.model_dir`, and the check reads
    the table again from the event files, which the answer cell did not change."""
    with tf.Graph().as_default():
        _write_events(tmp_path, list(TABLE.itertuples(index=False)))
    scalars = notebook06._notebook_table(str(tmp_path))
    scalars.loc[scalars["run"] == "eval_training_sample", "value"] = 0.5  # the answer cell's edit
    checks.sample_f1_at_best_test_step(right_pivot, str(tmp_path))
    out = capsys.readouterr().out
    assert "the training sample's was 0.9600 there" in out, out


@bank(2, "right on the notebook's data, wrong in general")
def test_sample_f1_right_on_the_first_call_only():
    made = []

    def first_call_only(table):
        made.append(1)
        return right_pivot(table) if len(made) == 1 else sample_best(table)

    assert "the training sample's own best" in failure(
        checks.sample_f1_at_best_test_step, first_call_only, TABLE
    )


@bank(2, "right on the notebook's data, wrong in general")
def test_sample_f1_by_position_in_the_two_runs():
    """The argmax of one run's values used as a position in the other's: the check's runs were
    evaluated at different steps."""

    def by_position(table):
        test, sample = _f1(table, "eval").to_numpy(), _f1(table, "eval_training_sample").to_numpy()
        return sample[int(np.argmax(test))]

    assert by_position(TABLE) == right_pivot(TABLE)
    message = failure(checks.sample_f1_at_best_test_step, by_position, TABLE)
    assert "of run 'eval_training_sample' at step" in message, message


@bank(2, "right shape, wrong content")
def test_sample_f1_every_f1_tag_is_named_by_its_row():
    """`str.contains("f1")` also keeps f1_micro, f1_weighted and f1_class_*: on the check's
    tables one of them is the highest of run 'eval', so the function reads another step, or
    another tag, and the message names that row."""

    def contains_f1(table):
        rows = table[table["tag"].str.contains("f1")]
        test = rows[rows["run"] == "eval"]
        step = test.loc[test["value"].idxmax(), "step"]
        sample = rows[(rows["run"] == "eval_training_sample") & (rows["step"] == step)]
        return sample["value"].iloc[0]

    assert contains_f1(TABLE) == right_pivot(TABLE)
    message = failure(checks.sample_f1_at_best_test_step, contains_f1, TABLE)
    assert message.startswith("on a table of the check's"), message
    assert "the macro F1's tag is 'f1_macro'" in message or (
        "tag 'f1_macro' of run 'eval_training_sample'" in message
        and "the right step is the one where run 'eval'" in message
    ), message
    assert "though your function found it" not in message


# --- exercise 3: the most common mistake in a confusion matrix ------------------

MATRIX = np.array([[50, 1, 0], [7, 40, 2], [0, 3, 45]])


def right_confused(matrix):
    """The notebook's solution."""
    mistakes = np.array(matrix, copy=True)
    np.fill_diagonal(mistakes, 0)
    true_digit, predicted_digit = np.unravel_index(mistakes.argmax(), mistakes.shape)
    return (int(true_digit), int(predicted_digit))


def confused_by_masking(matrix):
    off = np.where(np.eye(len(matrix), dtype=bool), -1, matrix)
    return tuple(np.argwhere(off == off.max())[0])  # a tuple of numpy ints


@pytest.mark.parametrize(
    "answer",
    [
        right_confused,
        pytest.param(confused_by_masking, marks=bank(3, "right, written otherwise")),
    ],
    ids=["solution", "masked, numpy ints"],
)
def test_most_confused_pair_correct(answer, capsys):
    checks.most_confused_pair(answer, MATRIX)
    assert capsys.readouterr().out == (
        "Correct: on 3 confusion matrices of the check's your function found the largest count "
        "off the diagonal, as `(true, predicted)`; on `matrix` it returns `(1, 0)`, a 1 read as a "
        "0\n"
    )


@pytest.mark.parametrize("seed", range(100))
def test_the_checks_matrices_tell_the_mistakes_apart(seed):
    matrix = notebook06.confusion_matrix(np.random.default_rng(seed))
    assert matrix.shape == (10, 10)
    true, predicted = right_confused(matrix)
    off = matrix.astype(float)
    np.fill_diagonal(off, -np.inf)
    assert (off == off.max()).sum() == 1  # one largest mistake
    assert np.sort(off.ravel())[-2] == matrix[predicted, true]  # its mirror second
    assert matrix.diagonal().min() > off.max()
    recall = matrix.diagonal() / matrix.sum(axis=1)
    assert recall.argmin() not in (true, predicted) and matrix.sum(axis=1).argmax() != true


def _lowest_recall_row(matrix):
    """The largest mistake of the digit recognised least often."""
    matrix = np.asarray(matrix)
    row = int(np.argmin(matrix.diagonal() / matrix.sum(axis=1)))
    counts = matrix[row].copy()
    counts[row] = -1
    return (row, int(counts.argmax()))


WRONG_EX3 = [
    (None, "`most_confused` is still None"),
    # the old exercise's answer: the pair read off the printed matrix
    pytest.param(
        (1, 0),
        "`most_confused` is a pair, but the exercise asks for a function of the confusion "
        "matrix, `def most_confused(matrix):`",
        marks=bank(3, "hard-coded from an output above"),
    ),
    (7, "should be a function of the confusion matrix, `def most_confused(matrix):`, not a int"),
    pytest.param(
        lambda matrix: (1, 0),
        "on a matrix of the check's, `most_confused(matrix)` returned `(1, 0)`",
        marks=bank(3, "right on the notebook's data, wrong in general"),
    ),
    (
        lambda matrix: list(right_confused(matrix)),
        "`most_confused(matrix)` returned a list: return a tuple, `(true, predicted)`",
    ),
    (
        lambda matrix: tuple(float(x) for x in right_confused(matrix)),
        "should return a pair of two class numbers",
    ),
    (lambda matrix: (True, False), "should return a pair of two class numbers"),
    (lambda matrix: right_confused(matrix) + (7,), "should return a pair of two class numbers"),
    (lambda matrix: (1, 10), "but classes run from 0 to 9"),
    # the whole matrix's largest count, as the recall cell reads the diagonal
    pytest.param(
        lambda matrix: tuple(int(x) for x in np.unravel_index(np.argmax(matrix), matrix.shape)),
        "which is on the diagonal",
        marks=bank(3, "copy of a nearby cell"),
    ),
    (
        lambda matrix: right_confused(np.asarray(matrix).T),
        "but the most common mistake there is the other way round: the pair is (true digit, "
        "predicted digit)",
    ),
    pytest.param(
        _lowest_recall_row,
        "which is not the most common mistake there: look for the largest count off the "
        "diagonal, over the whole matrix",
        marks=bank(3, "right shape, wrong content"),
    ),
]


@pytest.mark.parametrize(
    "answer, words",
    WRONG_EX3,
    ids=[
        "blank",
        "the pair itself",
        "number",
        "a constant pair",
        "list",
        "floats",
        "bools",
        "triple",
        "outside",
        "diagonal",
        "swapped",
        "the lowest recall's row",
    ],
)
def test_most_confused_pair_explains_mistakes(answer, words):
    message = failure(checks.most_confused_pair, answer, MATRIX)
    assert words in message, message
    assert " times" not in message  # no count, the largest least of all


def test_most_confused_pair_does_not_trust_matrix(capsys):
    """The blind adversary's answer cells rebound or edited `matrix` (`matrix[:] = 0;
    matrix[2, 7] = 5`, its transpose, a slice of the test set) beside a constant or a right
    pair: the check now judges a function on matrices of its own; `matrix` only names the pair
    the learner's function finds there, with no count."""
    edited = np.zeros((10, 10), int)
    edited[2, 7] = 5
    assert "`most_confused(matrix)` returned `(2, 7)`" in failure(
        checks.most_confused_pair, lambda matrix: (2, 7), edited
    )
    checks.most_confused_pair(right_confused, edited)
    out = capsys.readouterr().out
    assert "on `matrix` it returns `(2, 7)`" in out and "5" not in out, out


def test_the_bank_is_counted_in_the_closing_note():
    import json

    notebook = ROOT / "notebooks" / "06_metrics_and_tensorboard.ipynb"
    text = "".join("".join(cell["source"]) for cell in json.loads(notebook.read_text())["cells"])
    count = len(WRONG_EX1) + len(WRONG_EX2) + len(WRONG_EX3)
    assert f"tried on {count} wrong answers" in text


# --- the checks of notebooks 06 to 10 in the learner's language -------------------------------

# one wrong answer per notebook, and the start of its English message
WRONG_PER_NOTEBOOK = {
    "06": (
        lambda: notebook06.sample_f1_at_best_test_step("0.96", TABLE),
        "`sample_f1` should be a function of the event table, `def sample_f1(table):`, not a str",
    ),
    "07": (
        lambda: notebook07.hook_decision({"best_step": 1.5, "stops_after": None}),
        "decision['best_step'] should be a global step (a whole number), not 1.5",
    ),
    "08": (
        lambda: notebook08.first_wrong_digit(2, [0, 1, 2], [0, 2, 2], notebook08.PredictWatch()),
        "`first_wrong` is 2, one past it",
    ),
    "09": (
        lambda: notebook09.second_worker_config(
            {"cluster": notebook09.EXERCISE_1_CLUSTER, "task": {"type": "chief", "index": 1}}
        ),
        "the task type should be 'worker', not 'chief'",
    ),
    "10": (
        lambda: notebook10.keras_macro_precision("precision", None, None),
        "`precision_macro` is a str, but the exercise asks for a function",
    ),
}


@pytest.mark.parametrize("notebook", sorted(WRONG_PER_NOTEBOOK))
def test_a_wrong_answer_is_told_in_chinese_in_zh_tw(notebook, zh_tw, monkeypatch):
    check, english = WRONG_PER_NOTEBOOK[notebook]
    zh_tw()
    message = failure(check)
    assert re.search("[\u4e00-\u9fff]", message) and english not in message, message
    monkeypatch.setenv(language.LANGUAGE_ENV, "en")
    assert failure(check).startswith(english)


def test_sample_f1_a_wrong_number_of_parameters_is_one_line():
    """Issue 46: 28 lines through checks/common.py."""
    message = failure(checks.sample_f1_at_best_test_step, lambda table, run: 0.5, TABLE)
    assert message.startswith("`sample_f1` takes the parameters (table, run), but"), message


@bank(1, "right shape, wrong content")
def test_macro_precision_on_global_variables_fails_as_in_a_real_evaluate():
    """Issue 46: a metric whose totals are tf.Variable (TF2's ignores collections=: global) was
    accepted; a real Estimator.evaluate fails restoring them from the checkpoint."""

    def answer(labels, predictions):
        total = tf.Variable(
            tf.zeros([10, 10]),
            trainable=False,
            collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES],
        )
        update = total.assign_add(
            tf.math.confusion_matrix(labels, predictions["classes"], 10, dtype=tf.float32)
        )
        precision = tf.math.divide_no_nan(tf.linalg.diag_part(total), tf.reduce_sum(total, axis=0))
        return {"precision": (tf.reduce_mean(precision), update)}

    message = failure(checks.macro_precision_metric, answer)
    assert "keeps its totals in global variables" in message, message


def test_macro_precision_through_scikit_learn_in_a_py_function_is_refused():
    """Issue 46: precision_score inside tf.py_function ran on TensorFlow's threads, after the
    watch had ended; the watch now lasts the whole evaluate()."""
    from sklearn.metrics import precision_score

    def answer(labels, predictions):
        value = tf.compat.v1.Variable(0.0, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES])
        score = tf.py_function(
            lambda y, p: precision_score(y, p, average="macro", zero_division=0),
            [labels, predictions["classes"]],
            tf.float64,
        )
        return {"precision": (tf.identity(value), value.assign(tf.cast(score, tf.float32)))}

    message = failure(checks.macro_precision_metric, answer)
    assert "precision_score" in message or "rules out" in message, message


def test_a_metric_whose_update_reads_no_batch_ends():
    """A metric whose update op reads neither labels nor classes: evaluate() used to run forever
    (nothing consumed the input). The check's loss now reads the batch; it ends, and refuses."""
    import threading

    def reads_nothing(labels, predictions):
        total = tf.compat.v1.Variable(
            0.0, trainable=False, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES]
        )
        return {"precision": (tf.identity(total), tf.compat.v1.assign_add(total, 1.0))}

    outcome = []
    thread = threading.Thread(
        target=lambda: outcome.append(failure(checks.macro_precision_metric, reads_nothing)),
        daemon=True,
    )
    thread.start()
    thread.join(60)
    assert outcome, "the check did not end within 60 s"


def test_macro_precision_from_the_binary_metric_under_another_name_is_correct(capsys):
    """The check sees every call of tf.compat.v1.metrics.precision, by whatever name the answer
    reaches it (here the function object itself, imported before the check)."""
    from tensorflow.python.ops.metrics_impl import precision as binary

    def answer(labels, predictions):
        pairs = [
            binary(tf.equal(labels, k), tf.equal(predictions["classes"], k)) for k in range(10)
        ]
        return {
            "precision": (tf.reduce_mean([v for v, _ in pairs]), tf.group([u for _, u in pairs]))
        }

    checks.macro_precision_metric(answer)
    assert capsys.readouterr().out.startswith("Correct:")
