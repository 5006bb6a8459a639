"""helpers.models: the course CNN's graph, as its parameters shape it (built, not trained)."""

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
