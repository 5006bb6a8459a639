"""helpers.tensor_names (through notebook 05's CheckedLoggingTensorHook and Collector): a name that
exists only in another mode's graph, and one string for many names.

Each training or evaluation here fails in the hook's ``begin()``, before any step runs, so the tests
cost the graph builds only.
"""

from operator import itemgetter

import pytest
import tensorflow as tf

from helpers import models, tensor_names
from tools.notebook_code import definitions

NAMES = ("CheckedLoggingTensorHook", "Collector")
CheckedLoggingTensorHook, Collector = itemgetter(*NAMES)(definitions("05_hooks.ipynb", NAMES))


def mode_model_fn(features, labels, mode):
    weight = tf.compat.v1.get_variable("w", initializer=1.0)
    prediction = features["x"] * weight
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": prediction})
    loss = tf.reduce_mean((prediction - labels) ** 2)
    if mode == tf.estimator.ModeKeys.EVAL:
        tf.identity(loss, name="monitor/eval_loss")
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, eval_metric_ops={"mse": tf.compat.v1.metrics.mean(loss)}
        )
    tf.identity(loss, name="monitor/train_loss")
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step()
    )
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    return tf.data.Dataset.from_tensors(({"x": [1.0]}, [2.0])).repeat(3)


def image_input_fn():  # the course's input: {"image": float32 [batch, 28, 28]}, int32 labels
    return (
        tf.data.Dataset.from_tensors(({"image": tf.zeros([28, 28])}, tf.constant(3)))
        .repeat(4)
        .batch(2)
    )


def quiet_estimator(folder, model_fn=mode_model_fn, **kwargs):
    config = tf.estimator.RunConfig(
        tf_random_seed=1, log_step_count_steps=None, save_summary_steps=None
    )
    return tf.estimator.Estimator(model_fn, model_dir=str(folder), config=config, **kwargs)


# --- a tensor of another mode ------------------------------------------------------------


def test_an_eval_only_tensor_given_to_train_is_said_to_be_eval_only(tmp_path):
    hook = CheckedLoggingTensorHook({"loss": "monitor/eval_loss"}, every_n_iter=1)
    with pytest.raises(tensor_names.MissingTensor) as caught:
        quiet_estimator(tmp_path).train(input_fn, steps=2, hooks=[hook])
    assert str(caught.value) == (
        "'monitor/eval_loss' exists only in the graph of the model_fn for EVAL, not in the TRAIN "
        "graph this hook runs in (train()): give the hook to evaluate(hooks=[...]), or build the "
        "tensor before the model_fn branches on mode"
    )


def test_a_train_only_tensor_given_to_evaluate_is_said_to_be_train_only(tmp_path):
    estimator = quiet_estimator(tmp_path)
    estimator.train(input_fn, steps=1)
    hook = CheckedLoggingTensorHook(["monitor/train_loss", "monitor/eval_loss"], every_n_iter=1)
    with pytest.raises(tensor_names.MissingTensor) as caught:
        estimator.evaluate(input_fn, hooks=[hook])
    assert str(caught.value).startswith(
        "'monitor/train_loss' exists only in the graph of the model_fn for TRAIN, not in the EVAL "
        "graph this hook runs in (evaluate()): give the hook to train(hooks=[...]), or build the "
        "tensor"
    )
    assert " | " not in str(caught.value)  # monitor/eval_loss is there: only one problem


def test_the_course_cnn_accuracy_given_to_train(tmp_path):
    estimator = quiet_estimator(
        tmp_path, model_fn=models.cnn_model_fn, params={"filters": (8, 16), "dense_units": 32}
    )
    hook = CheckedLoggingTensorHook(
        {"accuracy": "accuracy/value", "p": "sofmax_tensor"}, every_n_iter=1
    )
    with pytest.raises(tensor_names.MissingTensor) as caught:
        estimator.train(image_input_fn, steps=1, hooks=[hook])
    first, second = str(caught.value).split(" | ")
    assert first.startswith(
        "'accuracy/value' exists only in the graph of the model_fn for EVAL, not in the TRAIN graph"
    )
    assert second == "no tensor named 'sofmax_tensor' in the graph; similar names: softmax_tensor"


def test_without_a_predict_branch_it_does_not_say_only(tmp_path):
    def no_predict_model_fn(features, labels, mode):
        if mode == tf.estimator.ModeKeys.PREDICT:
            raise ValueError("this model_fn has no PREDICT branch")
        return mode_model_fn(features, labels, mode)

    hook = CheckedLoggingTensorHook({"loss": "monitor/eval_loss"}, every_n_iter=1)
    with pytest.raises(
        tensor_names.MissingTensor,
        match=r"^'monitor/eval_loss' exists in the graph of the model_fn for EVAL, "
        r"not in the TRAIN graph this hook runs in \(train\(\)\)",
    ):
        quiet_estimator(tmp_path, model_fn=no_predict_model_fn).train(
            input_fn, steps=2, hooks=[hook]
        )


def test_the_collector_says_so_too(tmp_path):
    collector = Collector({"loss": "monitor/eval_loss"}, every_n_steps=1)
    with pytest.raises(
        tensor_names.MissingTensor,
        match=r"^'monitor/eval_loss' exists only in the graph of the model_fn for EVAL,",
    ):
        quiet_estimator(tmp_path).train(input_fn, steps=2, hooks=[collector])


def test_outside_an_estimator_call_the_message_is_unchanged():
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(1.0, name="softmax_tensor")
        with pytest.raises(tensor_names.MissingTensor) as caught:
            tensor_names.resolve_tensors({"p": "sofmax_tensor"})
    assert (
        str(caught.value)
        == "no tensor named 'sofmax_tensor' in the graph; similar names: softmax_tensor"
    )


def test_a_name_missing_in_every_mode_keeps_the_similar_names(tmp_path):
    hook = CheckedLoggingTensorHook({"loss": "monitor/eval_los"}, every_n_iter=1)
    with pytest.raises(
        tensor_names.MissingTensor,
        match=r"^no tensor named 'monitor/eval_los' in the graph; similar names: ",
    ):
        quiet_estimator(tmp_path).train(input_fn, steps=2, hooks=[hook])


# --- one string instead of a dict or a list -----------------------------------------


def test_the_stock_hook_reads_a_string_as_one_name_per_character():
    assert tf.estimator.LoggingTensorHook("ab", every_n_iter=1)._tensors == {"a": "a", "b": "b"}


def test_one_string_is_refused_in_one_line():
    with pytest.raises(tensor_names.BareName) as caught:
        CheckedLoggingTensorHook("softmax_tensor", every_n_iter=10)
    assert str(caught.value) == (
        "tensors='softmax_tensor' is one string, which LoggingTensorHook reads as 14 tensor names "
        "of one character each ('s', 'o', 'f', …): give a dict {tag: name}, e.g. "
        "{'softmax_tensor': 'softmax_tensor'}, or a list ['softmax_tensor']"
    )
    assert isinstance(caught.value, TypeError) and caught.value._render_traceback_()[0].startswith(
        "BareName: "
    )
    with pytest.raises(tensor_names.BareName):
        tensor_names.resolve_tensors("softmax_tensor", tf.Graph())
    CheckedLoggingTensorHook(["softmax_tensor"], every_n_iter=10)  # a list is fine


def test_a_predict_only_tensor_given_to_train_is_said_to_be_predict_only(tmp_path):
    def model_fn(features, labels, mode):
        spec = mode_model_fn(features, labels, mode)
        if mode == tf.estimator.ModeKeys.PREDICT:
            tf.identity(spec.predictions["y"], name="monitor/prediction")
        return spec

    hook = CheckedLoggingTensorHook({"y": "monitor/prediction", "z": "nope"}, every_n_iter=1)
    with pytest.raises(tensor_names.MissingTensor) as caught:
        quiet_estimator(tmp_path, model_fn).train(input_fn, steps=2, hooks=[hook])
    first, second = str(caught.value).split(" | ")  # one sentence per name
    assert first == (
        "'monitor/prediction' exists only in the graph of the model_fn for PREDICT, not in the "
        "TRAIN graph this hook runs in (train()): give the hook to predict(hooks=[...]), or build "
        "the tensor before the model_fn branches on mode"
    )
    assert second.startswith("no tensor named 'nope' in the graph")


def test_three_letters_are_listed_without_an_ellipsis_four_with_one():
    with pytest.raises(tensor_names.BareName, match=r"of one character each \('a', 'b', 'c'\):"):
        tensor_names.refuse_bare_name("abc")
    with pytest.raises(tensor_names.BareName, match=r"each \('a', 'b', 'c', …\):"):
        tensor_names.refuse_bare_name("abcd")


def test_operations_without_outputs_and_gradients_are_never_suggested():
    graph = tf.Graph()
    with graph.as_default():
        tf.no_op(name="softmax_tensors")
        tf.constant(1.0, name="gradients/softmax_tensor")
    with pytest.raises(tensor_names.MissingTensor, match="and no similar name"):
        tensor_names.resolve_tensors(["softmax_tensor"], graph)


def test_a_tensor_of_two_other_modes_names_both(tmp_path):
    def model_fn(features, labels, mode):
        spec = mode_model_fn(features, labels, mode)
        if mode != tf.estimator.ModeKeys.TRAIN:
            tf.identity(features["x"], name="monitor/not_in_training")
        return spec

    hook = CheckedLoggingTensorHook({"x": "monitor/not_in_training"}, every_n_iter=1)
    with pytest.raises(tensor_names.MissingTensor) as caught:
        quiet_estimator(tmp_path, model_fn).train(input_fn, steps=2, hooks=[hook])
    assert str(caught.value) == (
        "'monitor/not_in_training' exists only in the graph of the model_fn for EVAL and PREDICT, "
        "not in the TRAIN graph this hook runs in (train()): give the hook to "
        "evaluate(hooks=[...]) or predict(hooks=[...]), or build the tensor before the model_fn "
        "branches on mode"
    )
