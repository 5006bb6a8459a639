"""A Keras Metric object in eval_metric_ops: the checker's warning says which state variables the
one update op that EstimatorSpec keeps (``metric.updates[0]``) leaves unchanged."""

import tensorflow as tf

from helpers.model_fn_checker import check_model_fn
from tests.support.model_fns import variant


def keras_metric_warning(make_metric, one_hot: bool) -> str:
    """The checker's one warning on a model_fn whose eval_metric_ops hold a Keras metric."""

    def metrics(labels, classes):
        metric = make_metric()
        if one_hot:
            metric.update_state(tf.one_hot(labels, 10), tf.one_hot(classes, 10))
        else:
            metric.update_state(labels, classes)
        return {"keras": metric}

    report = check_model_fn(variant(metrics=metrics))
    assert report.ok and len(report.warnings) == 1 and report.warnings[0].mode == "EVAL"
    return report.warnings[0].sentence


def test_f1_score_names_the_variables_its_kept_update_op_leaves_unchanged():
    sentence = keras_metric_warning(lambda: tf.keras.metrics.F1Score(average="macro"), True)
    assert sentence.startswith("eval_metric_ops['keras'] is a Keras Metric object")
    assert "`(metric.result(), metric.updates[0])`" in sentence
    assert (
        "here it leaves `true_positives`, `false_positives`, `false_negatives` unchanged, "
        "so the value is wrong"
    ) in sentence
    assert "intermediate_weights`," not in sentence.split("(`tf.keras")[0]


def test_accuracy_updates_every_variable_and_is_still_warned_about():
    sentence = keras_metric_warning(tf.keras.metrics.Accuracy, False)
    assert "here it updates every state variable, but for another metric it may not" in sentence
    assert "first update op" not in sentence
