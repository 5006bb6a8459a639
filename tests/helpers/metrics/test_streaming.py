"""Unit tests for ``helpers.metrics``: streaming multi-class metrics, checked against scikit-learn.

What is tested:

* On 200 random cases (2–12 classes, 1–600 examples, imbalanced, some classes
  never in the labels and some never predicted, scores spread out, peaked like
  a trained model's softmax, or with exact ties), fed through the update ops
  in several batches of random sizes (some empty): precision, recall and F1
  per class and macro / micro / weighted agree with scikit-learn
  (``zero_division=0``, ``labels=range(num_classes)``) to 1e-6; the
  one-vs-rest macro AUC agrees with scikit-learn's exact value within
  ``metrics.AUC_TOLERANCE`` and within the error bound the metric reports;
  a class without positives or negatives has AUC NaN and is left out of the
  macro mean (NaN when no class has an AUC); on 5,000 examples of a confident
  model it agrees to 1e-5.
  One graph (one set of metrics per class count) serves all the cases; the
  largest disagreements are printed (``pytest -s``).
* For single-label data, micro precision = recall = F1 = accuracy.
* ``course_metrics`` (notebook 06's metric_fn) on a known batch of ten
  classes: its keys, and values equal to scikit-learn's.
* ``auc_ovr_macro_error_bound`` on a small case with ties: exactly ½ × the
  share of (positive, negative) pairs in one bin, averaged over the classes
  that have an AUC.
* ``classification_metrics`` gives scalar metrics under the documented keys
  (with the AUC's error bound), P/R/F1 0 and the AUC NaN (undefined) before
  any batch, and rejects class ids or logits given as probabilities.
  The learner's other mistakes, and the AUC of a saturated softmax, are in
  ``test_metrics_mistakes.py``.
* Added to ``helpers.models.cnn_model_fn`` with ``tf.estimator.add_metrics``,
  the metrics come out of ``Estimator.evaluate`` as Python floats equal to
  scikit-learn's on the Estimator's own predictions (the AUC: equal to the
  same metric computed outside the Estimator, and within its error bound of
  scikit-learn's, which is loose here: an untrained model's outputs are
  nearly equal).
* The trap: ``tf.compat.v1.metrics.precision`` on ten classes measures "is not
  class 0", far from the multi-class precision.
* The counters' names, which notebook 06 prints: ``precision_recall_f1/total``,
  ``auc_ovr/positives`` and ``auc_ovr/negatives``.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from sklearn.metrics import precision_recall_fscore_support, precision_score, roc_auc_score

from helpers import metrics, models, settings

CASES = 200
CLASS_COUNTS = range(2, 13)
PRF_TOLERANCE = 1e-6
PRF_KEYS = [
    f"{m}{suffix}"
    for m in ("precision", "recall", "f1")
    for suffix in ("", "_macro", "_micro", "_weighted")
]


# --- one graph for all the random cases ------------------------------------------------


class StreamingGraph:
    """One graph holding a set of metrics per class count, run in one session."""

    def __init__(self):
        self.graph = tf.Graph()
        self.sets = {}
        with self.graph.as_default():
            for num_classes in CLASS_COUNTS:
                self.sets[num_classes] = self._metric_set(num_classes)
        one_thread = tf.compat.v1.ConfigProto(
            intra_op_parallelism_threads=1, inter_op_parallelism_threads=1
        )
        self.session = tf.compat.v1.Session(graph=self.graph, config=one_thread)

    @staticmethod
    def _metric_set(num_classes):
        before = set(tf.compat.v1.local_variables())
        labels = tf.compat.v1.placeholder(tf.int32, [None])
        predictions = tf.compat.v1.placeholder(tf.int32, [None])
        probabilities = tf.compat.v1.placeholder(tf.float32, [None, num_classes])
        pairs = {
            **metrics.precision_recall_f1(labels, predictions, num_classes),
            **metrics.auc_ovr(labels, probabilities, num_classes),
        }
        new_variables = [v for v in tf.compat.v1.local_variables() if v not in before]
        return {
            "feeds": (labels, predictions, probabilities),
            "values": {key: value for key, (value, _) in pairs.items()},
            "updates": list({update.name: update for _, update in pairs.values()}.values()),
            "reset": tf.compat.v1.variables_initializer(new_variables),
        }

    def stream(self, labels, predictions, probabilities, batch_ends):
        """Reset, feed the examples in batches ending at ``batch_ends``, return the values."""
        metric_set = self.sets[probabilities.shape[1]]
        self.session.run(metric_set["reset"])
        start = 0
        for end in batch_ends:
            feed = dict(
                zip(
                    metric_set["feeds"],
                    (labels[start:end], predictions[start:end], probabilities[start:end]),
                )
            )
            self.session.run(metric_set["updates"], feed)
            start = end
        return self.session.run(metric_set["values"])


@pytest.fixture(scope="module")
def streaming():
    graph = StreamingGraph()
    yield graph
    graph.session.close()


# --- random cases ----------------------------------------------------------------------


def random_subset(rng, num_classes):
    """All classes half the time, otherwise a random non-empty subset (the rest go missing)."""
    if rng.random() < 0.5:
        return np.arange(num_classes)
    size = rng.integers(1, num_classes + 1)
    return np.sort(rng.choice(num_classes, size=size, replace=False))


def random_probabilities(rng, labels, num_classes):
    """Scores spread out, peaked like a trained model's softmax, or drawn from a few rows (ties)."""
    n = len(labels)
    kind = rng.choice(["spread", "peaked", "ties"])
    if kind == "ties":
        pool = rng.dirichlet(np.ones(num_classes), size=rng.integers(1, 6))
        return pool[rng.integers(0, len(pool), n)].astype(np.float32)
    spread = rng.uniform(0.5, 1.5) if kind == "spread" else rng.uniform(1.0, 4.0)
    boost = rng.uniform(0.0, 2.0) if kind == "spread" else rng.uniform(3.0, 12.0)
    logits = rng.normal(0.0, spread, (n, num_classes))
    logits[np.arange(n), labels] += boost
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (exp / exp.sum(axis=1, keepdims=True)).astype(np.float32)


def random_case(rng):
    num_classes = int(rng.integers(2, 13))
    n = int(rng.integers(1, 601))
    present = random_subset(rng, num_classes)
    labels = rng.choice(present, size=n, p=rng.dirichlet(np.full(len(present), 0.7)))
    predictable = random_subset(rng, num_classes)
    guesses = rng.choice(predictable, size=n)
    correct = (rng.random(n) < rng.uniform(0, 1)) & np.isin(labels, predictable)
    predictions = np.where(correct, labels, guesses)
    probabilities = random_probabilities(rng, labels, num_classes)
    batch_ends = np.sort(rng.integers(0, n + 1, size=rng.integers(1, 6)))
    batch_ends = np.append(batch_ends, n)  # several batches of random sizes, some may be empty
    return labels.astype(np.int32), predictions.astype(np.int32), probabilities, batch_ends


def sklearn_prf(labels, predictions, num_classes):
    """scikit-learn's precision, recall and F1 under the keys of ``metrics.precision_recall_f1``."""
    expected = {}
    for average in (None, "macro", "micro", "weighted"):
        scores = precision_recall_fscore_support(
            labels, predictions, labels=range(num_classes), average=average, zero_division=0
        )
        suffix = f"_{average}" if average else ""
        for metric, score in zip(("precision", "recall", "f1"), scores[:3]):
            expected[metric + suffix] = np.asarray(score, dtype=np.float64)
    return expected


def sklearn_auc_per_class(labels, probabilities):
    """Exact one-vs-rest AUC of each class that has positives and negatives (the others: None)."""
    return [
        roc_auc_score(labels == k, probabilities[:, k])
        if 0 < np.sum(labels == k) < len(labels)
        else None
        for k in range(probabilities.shape[1])
    ]


# --- the tests ---------------------------------------------------------------------------


@pytest.mark.slow(reason="streams hundreds of random cases through the graph metrics (about 20 s)")
def test_agrees_with_sklearn_on_random_streamed_cases(streaming):
    rng = np.random.default_rng(settings.SEED)
    worst_prf, worst_auc, absent_cases = 0.0, 0.0, 0
    for case in range(CASES):
        labels, predictions, probabilities, batch_ends = random_case(rng)
        num_classes = probabilities.shape[1]
        got = streaming.stream(labels, predictions, probabilities, batch_ends)

        expected = sklearn_prf(labels, predictions, num_classes)
        for key in PRF_KEYS:
            gap = float(np.max(np.abs(got[key] - expected[key])))
            assert gap <= PRF_TOLERANCE, (
                f"case {case}, {key}: {got[key]} vs sklearn {expected[key]}"
            )
            worst_prf = max(worst_prf, gap)

        per_class = sklearn_auc_per_class(labels, probabilities)
        defined = [k for k, auc in enumerate(per_class) if auc is not None]
        absent_cases += len(defined) < num_classes
        expected_macro = np.mean([per_class[k] for k in defined]) if defined else np.nan
        assert [k for k in range(num_classes) if np.isnan(got["auc_ovr"][k])] == [
            k for k in range(num_classes) if k not in defined
        ], f"case {case}: undefined AUCs must be NaN"
        if not defined:
            assert np.isnan(got["auc_ovr_macro"]), case
            assert np.isnan(got["auc_ovr_macro_error_bound"]), case
            continue
        if len(defined) == num_classes > 2:  # all present: the reference is sklearn's own OVR macro
            assert expected_macro == pytest.approx(
                roc_auc_score(
                    labels,
                    probabilities,
                    multi_class="ovr",
                    average="macro",
                    labels=range(num_classes),
                )
            )
        gap = abs(got["auc_ovr_macro"] - expected_macro)
        assert gap <= got["auc_ovr_macro_error_bound"] + 1e-12, (
            f"case {case}: beyond the reported bound"
        )
        assert gap <= metrics.AUC_TOLERANCE, (
            f"case {case}: AUC {got['auc_ovr_macro']} vs {expected_macro}"
        )
        for k in defined:  # each class's bound is at most len(defined) times their mean
            class_gap = abs(got["auc_ovr"][k] - per_class[k])
            assert class_gap <= len(defined) * got["auc_ovr_macro_error_bound"] + 1e-12, (case, k)
        worst_auc = max(worst_auc, gap)

    report = (
        f"{CASES} cases ({absent_cases} with a class lacking an AUC): largest disagreement with "
        f"scikit-learn: P/R/F1 {worst_prf:.1e}, AUC {worst_auc:.1e} "
        f"(tolerances {PRF_TOLERANCE:.0e}, {metrics.AUC_TOLERANCE:.0e})"
    )
    print("\n" + report)
    assert worst_prf <= PRF_TOLERANCE and worst_auc <= metrics.AUC_TOLERANCE, report
    assert absent_cases > 0, report


def test_auc_on_a_large_confident_model_is_near_exact(streaming):
    """5,000 examples, ten classes, softmax outputs peaked like a trained CNN's."""
    rng = np.random.default_rng(settings.SEED + 2)
    labels = rng.integers(0, 10, 5000).astype(np.int32)
    logits = rng.normal(0.0, 3.0, (5000, 10))
    logits[np.arange(5000), labels] += 10.0
    probabilities = (np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)).astype(np.float32)
    got = streaming.stream(labels, labels, probabilities, batch_ends=np.arange(100, 5001, 100))
    exact = roc_auc_score(labels, probabilities, multi_class="ovr", average="macro")
    gap = abs(got["auc_ovr_macro"] - exact)
    print(
        f"\nlarge confident case: AUC {got['auc_ovr_macro']:.7f}, "
        f"sklearn {exact:.7f}, gap {gap:.1e}"
    )
    assert gap <= 1e-5, (got["auc_ovr_macro"], exact)


def test_micro_precision_recall_f1_equal_accuracy(streaming):
    rng = np.random.default_rng(settings.SEED + 1)
    for _ in range(5):
        labels, predictions, probabilities, batch_ends = random_case(rng)
        got = streaming.stream(labels, predictions, probabilities, batch_ends)
        accuracy = np.mean(labels == predictions)
        for metric in ("precision", "recall", "f1"):
            assert got[f"{metric}_micro"] == pytest.approx(accuracy, abs=1e-12)


def test_classification_metrics_keys_scalars_and_empty_value():
    with tf.Graph().as_default():
        labels = tf.compat.v1.placeholder(tf.int32, [None])
        probabilities = tf.compat.v1.placeholder(tf.float32, [None, 4])
        classes = tf.argmax(probabilities, axis=1, output_type=tf.int32)
        ops = metrics.classification_metrics(
            labels, classes, probabilities, num_classes=4, prefix="val_"
        )
        expected = {f"val_{m}_{a}" for m in ("precision", "recall", "f1") for a in metrics.AVERAGES}
        expected |= {f"val_f1_class_{k}" for k in range(4)} | {
            "val_auc_ovr_macro",
            "val_auc_ovr_macro_error_bound",
        }
        assert set(ops) == expected
        assert all(value.shape.rank == 0 for value, _ in ops.values())
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.local_variables_initializer())
            before_any_batch = session.run({key: value for key, (value, _) in ops.items()})
        auc_keys = {"val_auc_ovr_macro", "val_auc_ovr_macro_error_bound"}
        assert all(value == 0.0 for key, value in before_any_batch.items() if key not in auc_keys)
        assert all(np.isnan(before_any_batch[key]) for key in auc_keys)  # no AUC without examples


def run_metrics(build, labels, probabilities):
    """``build(labels, probabilities)`` in a fresh graph, updated once on the batch: the values."""
    with tf.Graph().as_default():
        label_feed = tf.compat.v1.placeholder(tf.int32, [None])
        probability_feed = tf.compat.v1.placeholder(tf.float32, [None, probabilities.shape[1]])
        pairs = build(label_feed, probability_feed)
        updates = list({update.name: update for _, update in pairs.values()}.values())
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.local_variables_initializer())
            session.run(updates, {label_feed: labels, probability_feed: probabilities})
            return session.run({key: value for key, (value, _) in pairs.items()})


def test_course_metrics_keys_and_values_equal_sklearn_on_a_known_batch():
    rng = np.random.default_rng(settings.SEED)
    labels = np.array([0, 1, 2, 3, 0, 1, 2, 3, 0, 0, 1, 2], dtype=np.int32)  # 4 of 10 classes
    probabilities = rng.dirichlet(np.ones(10), size=len(labels)).astype(np.float32)
    classes = np.argmax(probabilities, axis=1).astype(np.int32)
    assert 0 < np.mean(classes == labels) < 1  # some right, some wrong

    def build(label_feed, probability_feed):
        predictions = {
            "classes": tf.argmax(probability_feed, axis=1, output_type=tf.int32),
            "probabilities": probability_feed,
        }
        return metrics.course_metrics(label_feed, predictions)

    got = run_metrics(build, labels, probabilities)

    keys = {f"{m}_{a}" for m in ("precision", "recall", "f1") for a in metrics.AVERAGES}
    keys |= {f"f1_class_{k}" for k in range(10)} | {"auc_ovr_macro", "auc_ovr_macro_error_bound"}
    assert set(got) == keys
    expected = sklearn_prf(labels, classes, 10)
    for metric in ("precision", "recall", "f1"):
        for average in metrics.AVERAGES:
            key = f"{metric}_{average}"
            assert got[key] == pytest.approx(expected[key], abs=1e-12), key
    for k in range(10):
        assert got[f"f1_class_{k}"] == pytest.approx(expected["f1"][k], abs=1e-12), k
    # classes 4..9 have no positives: no AUC, left out of the mean; no two scores share a bin
    per_class = [auc for auc in sklearn_auc_per_class(labels, probabilities) if auc is not None]
    assert len(per_class) == 4
    assert got["auc_ovr_macro_error_bound"] == 0.0
    assert got["auc_ovr_macro"] == pytest.approx(np.mean(per_class), abs=1e-12)


def test_auc_error_bound_is_half_the_share_of_pairs_in_one_bin():
    labels = np.array([0, 1, 0, 1, 0], dtype=np.int32)
    probabilities = np.array(
        [
            [0.5, 0.3, 0.2],
            [0.5, 0.3, 0.2],  # the same row as the first: tied in every class
            [0.2, 0.6, 0.2],
            [0.1, 0.1, 0.8],
            [0.7, 0.1, 0.2],  # class 1's 0.1 ties the fourth row's
        ],
        dtype=np.float32,
    )
    got = run_metrics(lambda y, p: metrics.auc_ovr(y, p, num_classes=3), labels, probabilities)
    # class 0: positives score 0.5, 0.2, 0.7, negatives 0.5, 0.1: 1 of 6 pairs tied, bound 1/12;
    # class 1: positives 0.3, 0.1, negatives 0.3, 0.6, 0.1: 2 of 6 pairs tied, bound 1/6;
    # class 2: no positives, no AUC, left out. Mean: (1/12 + 1/6) / 2 = 1/8.
    assert got["auc_ovr_macro_error_bound"] == pytest.approx(1 / 8, abs=1e-12)
    # scikit-learn counts a tied pair ½ too: the AUC is exact here
    per_class = sklearn_auc_per_class(labels, probabilities)
    assert per_class[2] is None and np.isnan(got["auc_ovr"][2])
    assert got["auc_ovr"][:2] == pytest.approx(per_class[:2], abs=1e-12)
    assert got["auc_ovr_macro"] == pytest.approx(np.mean(per_class[:2]), abs=1e-12)


def test_auc_rejects_class_ids_and_logits():
    with tf.Graph().as_default():
        labels = tf.constant([0, 1, 2])
        with pytest.raises(ValueError, match="not the predicted class ids"):
            metrics.auc_ovr(labels, tf.constant([0.0, 1.0, 2.0]), num_classes=3)
        logits = tf.compat.v1.placeholder(tf.float32, [None, 3])
        _, update_op = metrics.auc_ovr(labels, logits, num_classes=3)["auc_ovr_macro"]
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.local_variables_initializer())
            with pytest.raises(tf.errors.InvalidArgumentError, match="logits"):
                session.run(update_op, {logits: [[2.0, -1.0, 0.5]] * 3})


@pytest.mark.slow(reason="trains and evaluates the course CNN")
def test_metrics_plug_into_cnn_model_fn_and_evaluate(tmp_path, streaming):
    rng = np.random.default_rng(settings.SEED)
    images = rng.random((48, 28, 28), dtype=np.float32)
    labels = rng.integers(0, 10, 48).astype(np.int32)

    def input_fn(repeat=False):
        dataset = tf.data.Dataset.from_tensor_slices(({"image": images}, labels))
        return (dataset.repeat() if repeat else dataset).batch(16)

    estimator = tf.estimator.Estimator(
        models.cnn_model_fn,
        model_dir=str(tmp_path / "model"),
        params={"filters": (4, 4), "dense_units": 8},
        config=tf.estimator.RunConfig(tf_random_seed=settings.SEED),
    )
    estimator = tf.estimator.add_metrics(estimator, metrics.course_metrics)
    estimator.train(lambda: input_fn(repeat=True), steps=3)
    results = estimator.evaluate(input_fn)

    ours = {f"{m}_{a}" for m in ("precision", "recall", "f1") for a in metrics.AVERAGES}
    ours |= {f"f1_class_{k}" for k in range(10)} | {"auc_ovr_macro", "auc_ovr_macro_error_bound"}
    assert set(results) == ours | {"accuracy", "loss", "global_step"}
    assert all(isinstance(results[key], float) for key in ours), {k: type(results[k]) for k in ours}

    predicted = list(
        estimator.predict(lambda: tf.data.Dataset.from_tensor_slices({"image": images}).batch(16))
    )
    classes = np.array([p["classes"] for p in predicted])
    probabilities = np.array([p["probabilities"] for p in predicted])
    expected = sklearn_prf(labels, classes, 10)
    for key in ours - {"auc_ovr_macro", "auc_ovr_macro_error_bound"}:
        metric, _, which = key.partition("_class_") if "_class_" in key else (key, "", "")
        want = expected[metric][int(which)] if which else expected[metric]
        assert results[key] == pytest.approx(want, abs=PRF_TOLERANCE), key
    assert results["f1_micro"] == pytest.approx(results["accuracy"], abs=1e-6)
    # An untrained model's outputs are nearly equal, so many scores share a bin: the AUC must
    # be within the bound evaluate() returns with it. Inside the Estimator the scores come from
    # the logits, outside from the float32 probabilities: the two agree within their bounds.
    direct = streaming.stream(labels, classes, probabilities, batch_ends=[len(labels)])
    exact = roc_auc_score(labels, probabilities, multi_class="ovr", average="macro")
    gap, bound = abs(results["auc_ovr_macro"] - exact), results["auc_ovr_macro_error_bound"]
    assert bound == pytest.approx(direct["auc_ovr_macro_error_bound"], rel=0.05)
    assert (
        abs(results["auc_ovr_macro"] - direct["auc_ovr_macro"])
        <= bound + direct["auc_ovr_macro_error_bound"]
    )
    print(
        f"\nuntrained CNN: AUC {results['auc_ovr_macro']:.5f}, sklearn {exact:.5f}, gap {gap:.1e}, "
        f"bound {bound:.1e}"
    )
    assert gap <= bound + 1e-12


def test_trap_binary_precision_on_ten_classes():
    """tf.compat.v1.metrics.precision casts to bool: on ten classes it measures "is not class 0"."""
    rng = np.random.default_rng(settings.SEED)
    labels = rng.integers(0, 10, 1000)
    predictions = np.where(rng.random(1000) < 0.2, labels, rng.integers(0, 10, 1000))
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        binary, binary_update = tf.compat.v1.metrics.precision(labels, predictions)
        macro, macro_update = metrics.precision_recall_f1(labels, predictions, 10)[
            "precision_macro"
        ]
        session.run(tf.compat.v1.local_variables_initializer())
        session.run([binary_update, macro_update])
        binary, macro = session.run([binary, macro])

    is_not_zero = precision_score(labels != 0, predictions != 0)
    sklearn_macro = precision_score(labels, predictions, average="macro", zero_division=0)
    assert binary == pytest.approx(is_not_zero, abs=1e-6)  # what it really measures: about 0.9
    assert macro == pytest.approx(sklearn_macro, abs=1e-6)  # the multi-class precision: about 0.3
    print(
        f"\ntrap: tf.compat.v1.metrics.precision {binary:.3f}, "
        f"multi-class macro precision {macro:.3f}"
    )
    assert binary - sklearn_macro > 0.5


def test_the_counters_are_named_like_tf_metrics_own():
    """Notebook 06 lists the local variables next to tf.compat.v1.metrics.accuracy's
    ``accuracy/total`` and ``accuracy/count``: the course's counters read as plainly."""
    with tf.Graph().as_default():
        labels = tf.compat.v1.placeholder(tf.int32, [None])
        metrics.precision_recall_f1(labels, labels, num_classes=3)
        probabilities = tf.compat.v1.placeholder(tf.float32, [None, 3])
        metrics.auc_ovr(labels, probabilities, num_classes=3, num_bins=10)
        names = [variable.op.name for variable in tf.compat.v1.local_variables()]
    assert names == ["precision_recall_f1/total", "auc_ovr/positives", "auc_ovr/negatives"]
