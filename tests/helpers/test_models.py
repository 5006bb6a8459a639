"""helpers.models: the course CNN's graph, as its parameters shape it (built, not trained)."""

import numpy as np
import tensorflow as tf

from helpers import cnn_params, model_graph, models


def variable_shapes(params) -> dict:
    graph = model_graph.build_graph(models.cnn_model_fn, params)
    variables = graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
    return {var.op.name: tuple(var.shape.as_list()) for var in variables}


def test_the_params_shape_the_layers():
    shapes = variable_shapes({"filters": (8, 16), "dense_units": 64})
    assert shapes["conv2d/kernel"] == (3, 3, 1, 8)
    assert shapes["conv2d_1/kernel"] == (3, 3, 8, 16)
    assert shapes["dense/kernel"] == (784, 64)
    assert shapes["dense_1/kernel"] == (64, 10)
    assert shapes["global_step"] == ()
    assert "dense/kernel/Adam" in shapes


def test_missing_params_are_the_defaults_of_cnn_params():
    first, second = cnn_params.DEFAULT_PARAMS["filters"]
    shapes = variable_shapes(None)
    assert shapes["conv2d/kernel"] == (3, 3, 1, first)
    assert shapes["conv2d_1/kernel"] == (3, 3, first, second)
    assert shapes["dense_1/kernel"] == (cnn_params.DEFAULT_PARAMS["dense_units"], 10)


TINY = {"filters": (2, 2), "dense_units": 4}
DROPPING = {**TINY, "dense_units": 32, "dropout": 0.5}  # two runs differ when it is on


def spec_in_a_graph(mode, params=TINY, batch=3):
    """The EstimatorSpec of ``mode`` built in a new graph, on a batch of random images."""
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(0)
        tf.compat.v1.train.create_global_step()
        images = tf.constant(np.random.default_rng(0).random((batch, 28, 28), np.float32))
        labels = tf.constant([0, 1, 2][:batch], tf.int32)
        spec = models.cnn_model_fn({"image": images}, labels, mode, params)
    return graph, spec


def run(graph, fetches, times=1):
    """``fetches`` run ``times`` times in one session (a list of results when more than once)."""
    with graph.as_default(), tf.compat.v1.Session() as session:
        session.run(
            [
                tf.compat.v1.global_variables_initializer(),
                tf.compat.v1.local_variables_initializer(),
            ]
        )
        results = [session.run(fetches) for _ in range(times)]
    return results[0] if times == 1 else results


def test_predict_mode_serves_classes_and_probabilities_under_their_names():
    graph, spec = spec_in_a_graph(tf.estimator.ModeKeys.PREDICT)
    assert set(spec.predictions) == {"classes", "probabilities"}
    assert list(spec.export_outputs) == ["serving_default"]
    # notebook 05's logging hook and the model_fn checker find them by these names
    assert spec.predictions["probabilities"].name == "softmax_tensor:0"
    assert spec.predictions["classes"].name == "classes:0"
    got = run(graph, spec.predictions)
    assert got["probabilities"].shape == (3, 10)
    assert (got["probabilities"].sum(axis=1) - 1 < 1e-5).all()
    assert (got["classes"] == got["probabilities"].argmax(axis=1)).all()


def test_eval_mode_measures_accuracy_and_dropout_is_off():
    graph, spec = spec_in_a_graph(tf.estimator.ModeKeys.EVAL, DROPPING)
    assert list(spec.eval_metric_ops) == ["accuracy"]
    assert set(spec.predictions) == {"classes", "probabilities"}
    first, second = run(graph, spec.predictions["probabilities"], times=2)
    assert (first == second).all()  # with dropout on, two runs would differ


def test_train_mode_has_dropout_on():
    graph, spec = spec_in_a_graph(tf.estimator.ModeKeys.TRAIN, DROPPING)
    with graph.as_default():
        probabilities = graph.get_tensor_by_name("softmax_tensor:0")
    first, second = run(graph, probabilities, times=2)
    assert not (first == second).all()


def test_decay_steps_divide_the_learning_rate_by_10_every_decay_steps():
    graph, spec = spec_in_a_graph(tf.estimator.ModeKeys.TRAIN, {**TINY, "decay_steps": 10})
    assert spec.train_op is not None
    with graph.as_default():
        decayed = graph.get_tensor_by_name("ExponentialDecay:0")
        step = tf.compat.v1.train.get_global_step()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(step.assign(20))
            assert abs(session.run(decayed) - 1e-5) < 1e-9  # 1e-3 * 0.1 ** 2
