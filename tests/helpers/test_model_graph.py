"""helpers.model_graph: a model_fn's graph built as Estimator builds it (TensorFlow's graph error
messages without their file lines: ``test_learner_code.py``)."""

import numpy as np
import tensorflow as tf

from helpers import model_graph, models

ModeKeys = tf.estimator.ModeKeys
SMALL = {"filters": (8, 16), "dense_units": 32}


def test_estimator_graph_is_fresh_with_a_global_step_and_the_same_weights_each_time():
    outside = tf.compat.v1.get_default_graph()
    kernels = []
    for _ in range(2):
        with model_graph.estimator_graph() as graph:
            assert tf.compat.v1.get_default_graph() is graph is not outside
            assert tf.compat.v1.train.get_global_step() is not None
            dense = tf.keras.layers.Dense(3)
            dense(tf.zeros([1, 4]))
            with tf.compat.v1.Session() as session:
                session.run(tf.compat.v1.global_variables_initializer())
                kernels.append(session.run(dense.kernel))
    assert np.array_equal(kernels[0], kernels[1])


def test_call_like_estimator_passes_only_the_arguments_the_model_fn_takes():
    seen = {}

    def three(features, labels, mode):
        seen["three"] = (features, labels, mode)

    def with_params_and_config(features, labels, mode, params, config):
        seen["five"] = (params, config.tf_random_seed)

    model_graph.call_like_estimator(three, "f", "l", ModeKeys.EVAL, {"a": 1})
    model_graph.call_like_estimator(with_params_and_config, "f", "l", ModeKeys.TRAIN, None)
    assert seen["three"] == ("f", "l", ModeKeys.EVAL)
    params, seed = seen["five"]
    assert params == {} and seed is not None


def test_build_graph_of_the_course_cnn_on_placeholders():
    graph = model_graph.build_graph(models.cnn_model_fn, SMALL)
    image = graph.get_tensor_by_name("image:0")
    assert image.op.type == "Placeholder" and image.shape.as_list() == [None, 28, 28]
    assert graph.get_tensor_by_name("labels:0").dtype == tf.int32
    assert graph.get_tensor_by_name("softmax_tensor:0").shape.as_list() == [None, 10]


def test_build_graph_in_predict_mode_has_no_labels():
    graph = model_graph.build_graph(models.cnn_model_fn, {}, mode=ModeKeys.PREDICT)
    assert "labels" not in [op.name for op in graph.get_operations()]


def test_build_graph_like_other_inputs():
    def model_fn(features, labels, mode):
        seen.update(features=features, labels=labels)
        return None

    seen = {}
    like = {"x": tf.TensorSpec([None, 2], tf.float32, name="x")}
    model_graph.build_graph(model_fn, None, ModeKeys.EVAL, like, tf.TensorSpec([None], tf.int64))
    assert seen["features"]["x"].op.type == "Placeholder" and seen["labels"].dtype == tf.int64


def test_tiny_batch_delivers_what_the_course_inputs_deliver():
    with model_graph.estimator_graph():
        features, labels = model_graph.tiny_batch(5)
        _, no_labels = model_graph.tiny_batch(with_labels=False)
        with tf.compat.v1.Session() as session:
            images, ids = session.run([features["image"], labels])
    assert features["image"].shape.as_list() == [None, 28, 28] and no_labels is None
    assert images.shape == (5, 28, 28) and 0.0 <= images.min() and images.max() <= 1.0
    # noise over the whole range of the course's scaled pixels, not one grey
    assert images.min() < 0.01 and images.max() > 0.99
    assert ids.tolist() == [0, 1, 2, 3, 4]


def test_tiny_batch_defaults_to_4_labelled_images():
    with model_graph.estimator_graph():
        features, labels = model_graph.tiny_batch()
        assert features["image"].name == "image:0" and labels.name == "labels:0"
        with tf.compat.v1.Session() as session:
            images, ids = session.run([features["image"], labels])
    assert images.shape == (4, 28, 28) and ids.tolist() == [0, 1, 2, 3]
    with model_graph.estimator_graph():
        features, _ = model_graph.tiny_batch(12, with_labels=False)
        assert features["image"].name == "image:0"
        _, labels = model_graph.tiny_batch(12)
        with tf.compat.v1.Session() as session:
            assert session.run(labels).tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1]
