"""``helpers.metrics`` against a learner's mistakes, and the AUC where softmax saturates.

What is tested:

* Labels outside ``0 .. num_classes-1`` (10, or -1 for ten classes) stop
  ``auc_ovr`` used on its own, and ``classification_metrics``, with one
  sentence naming the label and what to do (before: ``auc_ovr`` counted them
  as negatives of every class and returned a number).
* NaN probabilities, logits (outside [0, 1]: below 0, or only above 1 after a
  ReLU) and rows that do not sum to 1
  each get their own sentence (before: all "probabilities below 0"). A row's
  sum may be off 1 by up to 1e-3 in float32 and up to 3e-2 in float16, no more
  (checked just inside and just outside each limit).
* A wrong ``num_classes`` (3-column probabilities, ``num_classes=10``) and
  one-hot labels or predictions: one line each, a ``MetricsProblem`` while
  the graph is built when the shapes are known, an assertion when the batch
  shows it; several values per example that are not one-hot are not called so.
* A very confident model (logit margin 40, the true class second on the
  wrong examples, 2,000 examples): the streaming AUC of ``tf.nn.softmax``
  output agrees with the exact AUC (scikit-learn on float64 log-odds from the
  logits) to 1e-5 and within its bound (before: off by 3e-2); so does a softmax
  behind ``tf.identity`` (a name given for a logging hook). Scores 0.0041 apart
  in log-odds are ordered (the bins are 0.004 wide).
* A class with no examples, or with every example, has AUC NaN and is left
  out of the macro mean (before: 0.0 in the mean).
A failed assertion is TensorFlow's ``InvalidArgumentError``; what the learner
reads is its line ``assertion failed: [<sentence>]``, checked here to be one
line holding the whole sentence.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import tensorflow as tf
from sklearn.metrics import roc_auc_score

from helpers import metrics
from helpers.problems import WorkbookProblem


def run_update(build, feeds):
    """Build metrics with ``build(placeholders…)`` in a fresh graph,
    run their update ops on ``feeds``."""
    with tf.Graph().as_default():
        placeholders = [tf.compat.v1.placeholder(dtype, shape) for dtype, shape, _ in feeds]
        pairs = build(*placeholders)
        updates = list({update.name: update for _, update in pairs.values()}.values())
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.local_variables_initializer())
            session.run(updates, {p: value for p, (_, _, value) in zip(placeholders, feeds)})
            return session.run({key: value for key, (value, _) in pairs.items()})


def assertion_line(error) -> str:
    """The one line of a failed graph assertion that the learner reads."""
    lines = [
        line for line in str(error.value).splitlines() if line.startswith("assertion failed: [")
    ]
    assert len(lines) == 1, str(error.value)
    assert lines[0].endswith("]"), lines[0]  # the whole sentence is on the line
    return lines[0]


def failed_check(error) -> str:
    """The failing assertion's node as TensorFlow names it to the learner, without ``/Assert``:
    ``<the metric's scope>/<the check>``."""
    return re.search(r"Detected at node '(.+)/Assert'", str(error.value)).group(1)


PROBABILITIES_3 = [[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]]


def auc_alone(labels, probabilities):
    return metrics.auc_ovr(labels, probabilities, num_classes=3)


def three_class_metrics(labels, probabilities):
    classes = tf.argmax(probabilities, axis=1, output_type=tf.int32)
    return metrics.classification_metrics(labels, classes, probabilities, num_classes=3)


# --- labels outside 0 .. num_classes-1 -----------------------------------------


@pytest.mark.parametrize(
    "build", [auc_alone, three_class_metrics], ids=["auc_ovr", "classification_metrics"]
)
@pytest.mark.parametrize(
    "bad_label, expected",
    [
        (
            3,
            "labels must be class ids 0..2 but one is 3: pass num_classes=(the largest id + 1) "
            "if there are more than 3 classes, or fix the labels",
        ),
        (
            -1,
            "labels must be class ids 0..2 but one is -1: class ids start at 0; "
            "remove or renumber the examples with negative labels",
        ),
    ],
    ids=["label-3", "label-minus-1"],
)
def test_labels_outside_the_classes_are_refused(build, bad_label, expected):
    feeds = [(tf.int32, [None], [0, 1, bad_label]), (tf.float32, [None, 3], PROBABILITIES_3)]
    with pytest.raises(tf.errors.InvalidArgumentError) as error:
        run_update(build, feeds)
    assert assertion_line(error) == f"assertion failed: [{expected}]"
    check = "labels_below_num_classes" if bad_label == 3 else "labels_not_negative"
    assert failed_check(error).endswith(f"/{check}")


def test_predictions_outside_the_classes_are_refused():
    def build(labels, classes):
        return metrics.precision_recall_f1(labels, classes, num_classes=3)

    with pytest.raises(tf.errors.InvalidArgumentError) as error:
        run_update(build, [(tf.int32, [None], [0, 1, 2]), (tf.int32, [None], [0, 1, 7])])
    assert assertion_line(error).startswith(
        "assertion failed: [predictions must be class ids 0..2 but one is 7"
    )
    # TensorFlow names the failing node: the metric's scope, then the check
    assert failed_check(error) == "precision_recall_f1/predictions_below_num_classes"


# --- NaN, logits, rows that do not sum to 1 ------------------------------------


@pytest.mark.parametrize(
    "probabilities, expected, check",
    [
        (
            [[np.nan, 0.5, 0.5], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]],
            "probabilities contain NaN (1 of them): the outputs of the model are not numbers; "
            "look for a NaN loss in training (lower the learning rate) or NaN in the input",
            "probabilities_not_nan",
        ),
        (
            [[2.0, -1.0, 0.5]] * 3,
            "probabilities must be in [0, 1] but range from -1 to 2: "
            "did you pass logits? pass tf.nn.softmax(logits)",
            "probabilities_in_0_1",
        ),
        (
            [[1.5, 0.0, 0.5]] * 3,  # a ReLU before the output: no value below 0
            "probabilities must be in [0, 1] but range from 0 to 1.5: "
            "did you pass logits? pass tf.nn.softmax(logits)",
            "probabilities_in_0_1",
        ),
        (
            [[0.9, 0.8, 0.1]] * 3,
            "each row of probabilities must sum to 1 but rows sum from 1.8 to 1.8: "
            "did you pass logits, or one sigmoid per class? pass tf.nn.softmax(logits)",
            "probabilities_rows_sum_to_1",
        ),
    ],
    ids=["nan", "logits", "relu-logits", "rows-not-summing-to-1"],
)
def test_bad_probabilities_are_named_by_their_cause(probabilities, expected, check):
    feeds = [(tf.int32, [None], [0, 1, 2]), (tf.float32, [None, 3], probabilities)]
    with pytest.raises(tf.errors.InvalidArgumentError) as error:
        run_update(auc_alone, feeds)
    assert assertion_line(error) == f"assertion failed: [{expected}]"
    assert failed_check(error) == f"auc_ovr/{check}"


def test_probabilities_are_checked_also_when_the_auc_is_scored_from_their_logits():
    def build(labels, logits):
        return metrics.auc_ovr(labels, tf.nn.softmax(logits), num_classes=3)

    logits = [[np.nan, 1.0, 2.0], [0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]
    with pytest.raises(tf.errors.InvalidArgumentError) as error:
        run_update(build, [(tf.int32, [None], [0, 1, 2]), (tf.float32, [None, 3], logits)])
    assert assertion_line(error).startswith("assertion failed: [probabilities contain NaN (")
    assert failed_check(error) == "auc_ovr/probabilities_not_nan"


def test_softmax_rounding_is_not_refused():
    """float32 and float16 softmax rows sum to 1 only up to rounding: that must pass."""
    logits = np.random.default_rng(0).normal(0.0, 5.0, (64, 10))
    for dtype in (tf.float32, tf.float16):

        def build(labels, raw):
            return metrics.auc_ovr(labels, tf.nn.softmax(tf.cast(raw, dtype)), num_classes=10)

        got = run_update(
            build, [(tf.int32, [None], np.arange(64) % 10), (tf.float32, [None, 10], logits)]
        )
        assert 0.0 <= got["auc_ovr_macro"] <= 1.0


ROW_SUM_LIMITS = {tf.float32: 1e-3, tf.float16: 3e-2}


@pytest.mark.parametrize("dtype", list(ROW_SUM_LIMITS), ids=lambda dtype: dtype.name)
@pytest.mark.parametrize("off", [0.9, -0.9, 1.1, -1.1], ids=lambda off: f"{off:+}xlimit")
def test_row_sums_are_refused_just_beyond_the_dtypes_limit_only(dtype, off):
    limit = ROW_SUM_LIMITS[dtype]
    rows = np.array([[0.5, 0.5 + off * limit, 0.0]] * 3, dtype=dtype.as_numpy_dtype)
    error_of_sum = abs(rows.astype(np.float64).sum(axis=1)[0] - 1.0)
    # what is fed is off by more (or less) than the limit once rounded to the dtype
    assert (error_of_sum > limit) == (abs(off) > 1) and abs(error_of_sum - limit) > limit / 20

    def build(labels, probabilities):
        return metrics.auc_ovr(labels, probabilities, num_classes=3)

    feeds = [(tf.int32, [None], [0, 1, 2]), (dtype, [None, 3], rows)]
    if abs(off) < 1:
        assert 0.0 <= run_update(build, feeds)["auc_ovr_macro"] <= 1.0
        return
    with pytest.raises(tf.errors.InvalidArgumentError) as error:
        run_update(build, feeds)
    assert assertion_line(error).startswith(
        "assertion failed: [each row of probabilities must sum to 1 but rows sum from "
    )


# --- wrong num_classes, one-hot labels ------------------------------------------


def test_wrong_num_classes_is_one_line_while_building():
    with tf.Graph().as_default():
        labels = tf.compat.v1.placeholder(tf.int32, [None])
        probabilities = tf.compat.v1.placeholder(tf.float32, [None, 3])
        classes = tf.argmax(probabilities, axis=1)
        with pytest.raises(metrics.MetricsProblem) as problem:
            # num_classes defaults to 10
            metrics.classification_metrics(labels, classes, probabilities)
    assert isinstance(problem.value, WorkbookProblem)
    assert str(problem.value) == (
        "probabilities have 3 columns (classes) but num_classes=10: "
        "pass num_classes=3, the number of the model's outputs"
    )


def test_wrong_num_classes_is_one_line_when_the_shape_is_known_only_at_run_time():
    def build(labels, probabilities):
        return metrics.auc_ovr(labels, probabilities, num_classes=10)

    feeds = [(tf.int32, [None], [0, 1, 2]), (tf.float32, [None, None], PROBABILITIES_3)]
    with pytest.raises(tf.errors.InvalidArgumentError) as error:
        run_update(build, feeds)
    assert assertion_line(error) == (
        "assertion failed: [probabilities have 3 columns (classes) but "
        "num_classes=10: pass num_classes equal to the number of outputs of the model]"
    )
    assert failed_check(error) == "auc_ovr/probabilities_num_classes"


@pytest.mark.parametrize(
    "build",
    [
        lambda labels, probabilities: metrics.auc_ovr(labels, probabilities, num_classes=3),
        lambda labels, probabilities: metrics.precision_recall_f1(
            labels, tf.argmax(probabilities, 1), num_classes=3
        ),
        three_class_metrics,
    ],
    ids=["auc_ovr", "precision_recall_f1", "classification_metrics"],
)
def test_one_hot_labels_are_one_line_while_building(build):
    with tf.Graph().as_default():
        labels = tf.compat.v1.placeholder(tf.float32, [None, 3])
        probabilities = tf.compat.v1.placeholder(tf.float32, [None, 3])
        with pytest.raises(metrics.MetricsProblem) as problem:
            build(labels, probabilities)
    assert str(problem.value) == (
        "labels have shape (None, 3) (one-hot) but the metrics take one class id per example, "
        "shape [batch]: pass tf.argmax(labels, axis=1), "
        "or labels as class ids from the input function"
    )


def test_probabilities_as_predictions_are_one_line_while_building():
    with tf.Graph().as_default():
        labels = tf.compat.v1.placeholder(tf.int32, [None])
        probabilities = tf.compat.v1.placeholder(tf.float32, [None, 3])
        with pytest.raises(
            metrics.MetricsProblem,
            match=r"^predictions have shape \(None, 3\) \(one-hot\) "
            r".*pass tf.argmax\(predictions, axis=1\)$",
        ):
            metrics.precision_recall_f1(labels, probabilities, num_classes=3)


@pytest.mark.parametrize("shape", [[None, 5], [None, 3, 2]], ids=["5-columns", "rank-3"])
def test_several_values_per_example_that_are_not_one_hot_are_named_so(shape):
    with tf.Graph().as_default():
        labels = tf.compat.v1.placeholder(tf.int32, shape)
        with pytest.raises(metrics.MetricsProblem) as problem:
            metrics.precision_recall_f1(labels, tf.zeros([2], tf.int32), num_classes=3)
    assert str(problem.value).startswith(
        f"labels have shape {tf.TensorShape(shape)} (more than one value per example) but the "
        "metrics take one class id per example"
    )


def test_labels_of_shape_batch_by_1_are_accepted():
    def build(labels, probabilities):
        return metrics.auc_ovr(labels, probabilities, num_classes=3)

    got = run_update(
        build, [(tf.int32, [None, 1], [[0], [1], [2]]), (tf.float32, [None, 3], PROBABILITIES_3)]
    )
    assert got["auc_ovr_macro"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "build, other",
    [
        (auc_alone, "rows of probabilities"),
        (
            lambda labels, probabilities: metrics.precision_recall_f1(
                labels, tf.argmax(probabilities, 1), 3
            ),
            "predictions",
        ),
    ],
    ids=["auc_ovr", "precision_recall_f1"],
)
def test_one_hot_labels_of_unknown_shape_are_one_line_at_run_time(build, other):
    feeds = [(tf.int32, None, np.eye(3, dtype=np.int32)), (tf.float32, [None, 3], PROBABILITIES_3)]
    with pytest.raises(tf.errors.InvalidArgumentError) as error:
        run_update(build, feeds)
    assert assertion_line(error) == (
        f"assertion failed: [labels give 9 values for 3 {other}: the metrics take "
        "one class id per example; one-hot labels? pass tf.argmax(labels, axis=1)]"
    )
    assert failed_check(error).endswith("/labels_one_per_example")


# --- the AUC where softmax saturates; classes without an AUC --------------------


def confident_model(seed=0, n=2000, margin=40.0, second=20.0):
    """Logits with a margin of 40 for the top class; 10 % wrong,
    their true class ``second`` above the rest."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n).astype(np.int32)
    wrong = rng.random(n) < 0.1
    top = np.where(wrong, (labels + rng.integers(1, 10, n)) % 10, labels)
    logits = rng.normal(0.0, 1.0, (n, 10))
    logits[np.arange(n), top] += margin
    logits[np.flatnonzero(wrong), labels[wrong]] += second
    return labels, logits.astype(np.float32)


def exact_auc_per_class(labels, logits):
    """scikit-learn's AUC of each class on its float64 log-odds from the logits (no saturation)."""
    z = logits.astype(np.float64)
    aucs = []
    for k in range(z.shape[1]):
        others = np.delete(z, k, axis=1)
        top = others.max(axis=1)
        log_odds = z[:, k] - (top + np.log(np.exp(others - top[:, None]).sum(axis=1)))
        aucs.append(roc_auc_score(labels == k, log_odds))
    return np.array(aucs)


def test_auc_of_a_saturated_softmax_is_near_exact():
    labels, logits = confident_model()
    probabilities = tf.nn.softmax(logits).numpy()
    # float32 softmax saturates: the top class's exact probability is 1 - ~1e-17, and float32's
    # spacing just below 1.0 is 6e-8, so every top probability lands within a few such steps of
    # 1.0 (1.0 itself with oneDNN's exp, 0.99999994 without: the CPU's rounding decides). Within
    # 1e-6 of 1.0 float32 has 17 values, so 2,000 different logits give ties, whatever the CPU.
    top = probabilities.max(axis=1)
    assert np.all(1.0 - top <= 1e-6)

    def build(labels, raw_logits):
        return auc_alone_10(labels, tf.nn.softmax(raw_logits, name="softmax_tensor"))

    got = run_update(build, [(tf.int32, [None], labels), (tf.float32, [None, 10], logits)])
    exact = exact_auc_per_class(labels, logits)
    gap = abs(got["auc_ovr_macro"] - exact.mean())
    print(
        f"\nsaturated softmax: AUC {got['auc_ovr_macro']:.7f}, exact {exact.mean():.7f}, gap "
        f"{gap:.1e}, bound {got['auc_ovr_macro_error_bound']:.1e}"
    )
    assert gap <= 1e-5
    assert gap <= got["auc_ovr_macro_error_bound"] + 1e-12
    assert np.max(np.abs(got["auc_ovr"] - exact)) <= 1e-4


def test_auc_of_saturated_probabilities_ties_as_sklearn_and_says_so():
    """Given only float32 probabilities rounded to 1.0,
    nobody can order them: ties, within the bound."""
    labels, logits = confident_model()
    probabilities = tf.nn.softmax(logits).numpy()
    got = run_update(
        auc_alone_10, [(tf.int32, [None], labels), (tf.float32, [None, 10], probabilities)]
    )
    exact = exact_auc_per_class(labels, logits).mean()
    sklearn = roc_auc_score(labels, probabilities, multi_class="ovr", average="macro")
    print(
        f"\nsaturated float32 probabilities: AUC {got['auc_ovr_macro']:.7f}, scikit-learn "
        f"{sklearn:.7f}, exact {exact:.7f}, bound {got['auc_ovr_macro_error_bound']:.1e}"
    )
    assert got["auc_ovr_macro"] == pytest.approx(sklearn, abs=1e-9)
    assert abs(got["auc_ovr_macro"] - exact) <= got["auc_ovr_macro_error_bound"] + 1e-12
    # the bound tells the learner the value is uncertain
    assert got["auc_ovr_macro_error_bound"] > 1e-3


def auc_alone_10(labels, probabilities):
    return metrics.auc_ovr(labels, probabilities, num_classes=10)


def test_auc_from_logits_is_streamed_like_one_batch():
    labels, logits = confident_model(seed=1, n=600)

    def stream(batch_ends):
        with tf.Graph().as_default(), tf.compat.v1.Session() as session:
            label_feed = tf.compat.v1.placeholder(tf.int32, [None])
            logit_feed = tf.compat.v1.placeholder(tf.float32, [None, 10])
            pairs = metrics.auc_ovr(label_feed, tf.nn.softmax(logit_feed), num_classes=10)
            session.run(tf.compat.v1.local_variables_initializer())
            start = 0
            for end in batch_ends:
                session.run(
                    pairs["auc_ovr_macro"][1],
                    {label_feed: labels[start:end], logit_feed: logits[start:end]},
                )
                start = end
            return session.run(pairs["auc_ovr"][0])

    np.testing.assert_array_equal(stream([600]), stream([0, 7, 250, 251, 600]))


def test_class_without_positives_or_negatives_has_no_auc():
    labels = [0, 1, 0, 1]  # class 2 never occurs
    probabilities = [[0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.3, 0.6, 0.1], [0.5, 0.4, 0.1]]
    got = run_update(
        auc_alone, [(tf.int32, [None], labels), (tf.float32, [None, 3], probabilities)]
    )
    expected = [roc_auc_score(np.equal(labels, k), np.array(probabilities)[:, k]) for k in (0, 1)]
    assert np.isnan(got["auc_ovr"][2])
    np.testing.assert_allclose(got["auc_ovr"][:2], expected, atol=1e-9)
    # not dragged down by a 0.0
    assert got["auc_ovr_macro"] == pytest.approx(np.mean(expected), abs=1e-9)

    every_label_0 = run_update(
        auc_alone, [(tf.int32, [None], [0, 0]), (tf.float32, [None, 3], PROBABILITIES_3[:2])]
    )
    # class 0 has no negatives, 1 and 2 no positives
    assert np.all(np.isnan(every_label_0["auc_ovr"]))
    assert np.isnan(every_label_0["auc_ovr_macro"]) and np.isnan(
        every_label_0["auc_ovr_macro_error_bound"]
    )


def test_the_auc_reads_the_logits_through_identity_ops():
    """A softmax renamed with ``tf.identity`` (a name for a logging hook) is still scored from its
    logits: float32 rounds both confident rows to 1.0 for class 0, the logits order them."""
    labels = [0, 1, 2]
    logits = [[50.0, 0.0, 0.0], [40.0, 0.0, 0.0], [0.0, 0.0, 5.0]]
    assert tf.nn.softmax(np.float32(logits)).numpy()[:2, 0].tolist() == [1.0, 1.0]

    def build(labels, raw):
        named = tf.identity(tf.identity(tf.nn.softmax(raw)), name="probabilities")
        return auc_alone(labels, named)

    got = run_update(build, [(tf.int32, [None], labels), (tf.float32, [None, 3], logits)])
    # class 0: its positive (margin 50) above both negatives; without the logits, a tie: 0.75
    np.testing.assert_allclose(got["auc_ovr"], [1.0, 0.5, 1.0])
    assert got["auc_ovr_macro_error_bound"] == 0.0


@pytest.mark.parametrize("above, below", [(0.0046, 0.0005), (0.0082, 0.0041)])
def test_scores_more_than_a_bin_apart_are_ordered(above, below):
    """The AUC's bins are 0.004 wide in log-odds: two scores 0.0041 apart are told apart, with
    an error bound of 0, wherever they fall between the bins' edges."""
    logits = [[0.0, above], [0.0, below]]  # class 1's log-odds: above (a 1), below (a 0)

    def build(labels, raw):
        return metrics.auc_ovr(labels, tf.nn.softmax(raw), num_classes=2)

    got = run_update(build, [(tf.int32, [None], [1, 0]), (tf.float32, [None, 2], logits)])
    assert got["auc_ovr"].tolist() == [1.0, 1.0] and got["auc_ovr_macro_error_bound"] == 0.0
