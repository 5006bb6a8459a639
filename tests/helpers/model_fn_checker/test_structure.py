"""The model_fn checker names three structural mistakes in the learner's terms, with the fix.

The three: `features` used as a tensor although the input function gives
a dict (Estimator raises: a finding that names the dict's keys); a softmax
output given to the loss as logits (Estimator trains, badly: a warning); batch
normalization whose update ops the train_op never runs (Estimator trains, and
EVAL and PREDICT use moving averages still at their initial values: a warning
whose fix depends on the layer, measured here through a real Estimator).
"""

import inspect

import numpy as np
import pytest
import tensorflow as tf

from helpers import inputs, models
from helpers.model_fn_checker import FIX_KERAS_UPDATES, FIX_UPDATE_OPS, check_model_fn

from tests.support.model_fns import good_model_fn, minimize

ModeKeys = tf.estimator.ModeKeys
HERE = "tests/helpers/model_fn_checker/test_structure.py"
pytestmark = pytest.mark.filterwarnings("ignore:`tf.layers.batch_normalization` is deprecated")
TAKE_IMAGE = 'features as a dict, {"image": float32 [batch, 28, 28]}: take the tensor out of it'


def _line_of(function, text: str) -> int:
    lines, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _spec(mode, labels, logits, train_op=None, loss=None):
    """The EstimatorSpec of a right model_fn around ``logits`` (``loss`` replaces its loss)."""
    if mode == ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, axis=1)})
    if loss is None:
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op or minimize(loss))


# --------------------------------------------------------------------------- features used as a
# tensor


def reshaped_dict(features, labels, mode, params):
    pixels = tf.reshape(features, [-1, 28 * 28])
    return _spec(mode, labels, tf.keras.layers.Dense(10)(pixels))


def flattened_dict(features, labels, mode, params):
    pixels = tf.keras.layers.Flatten()(features)
    return _spec(mode, labels, tf.keras.layers.Dense(10)(pixels))


def scaled_dict(features, labels, mode, params):
    pixels = tf.reshape(features["image"], [-1, 28 * 28])
    scaled = features / 255.0
    return _spec(mode, labels, tf.keras.layers.Dense(10)(pixels + tf.reduce_sum(scaled)))


def shape_of_dict(features, labels, mode, params):
    pixels = tf.reshape(features["image"], [tf.shape(features)[0], 28 * 28])
    return _spec(mode, labels, tf.keras.layers.Dense(10)(pixels))


def _network(inputs):
    return tf.keras.layers.Dense(10)(tf.keras.layers.Flatten()(inputs))


def through_a_helper(features, labels, mode, params):
    return _spec(mode, labels, _network(features))


def over_two_lines(features, labels, mode, params):
    pixels = tf.reshape(features, [-1, 28 * 28])
    return _spec(mode, labels, tf.keras.layers.Dense(10)(pixels))


@pytest.mark.parametrize(
    "model_fn, name, text, raised",
    [
        (
            reshaped_dict,
            "features",
            "pixels = tf.reshape(features",
            "Expected any non-tensor type, but got",
        ),
        (flattened_dict, "features", "Flatten()(features)", "AttributeError: 'dict' object has no"),
        (scaled_dict, "features", "scaled = features / 255.0", "unsupported operand type(s) for /"),
        (shape_of_dict, "features", "tf.shape(features)", "Expected any non-tensor type"),
        (through_a_helper, "inputs", "Flatten()(inputs)", "AttributeError"),
    ],
    ids=["tf.reshape", "Flatten layer", "arithmetic", "tf.shape", "in a helper"],
)
def test_features_used_as_a_tensor_names_the_dict_and_its_key(model_fn, name, text, raised):
    report = check_model_fn(model_fn)
    assert [f.mode for f in report.findings] == ["PREDICT", "EVAL", "TRAIN"]
    who = "`features`" if name == "features" else f"`{name}` (the model_fn's `features`)"
    function = _network if model_fn is through_a_helper else model_fn
    line = _line_of(function, text)
    for finding in report.findings:
        assert finding.sentence.startswith(
            f"{who} is used as a tensor (line {line} of `{function.__name__}` in {HERE}: "
        )
        assert f'{TAKE_IMAGE}, `{name}["image"]` (TensorFlow raised `' in finding.sentence
        assert raised in finding.sentence and "/work/" not in finding.sentence


def test_a_statement_over_two_lines_is_recognised_by_building_it_with_the_tensor():
    sentence = check_model_fn(over_two_lines).findings[0].sentence
    assert sentence.startswith("`features` is used as a tensor (line ")
    assert f'{TAKE_IMAGE}, `features["image"]`' in sentence


def test_a_type_error_on_the_right_tensor_is_not_blamed_on_the_dict():
    def model_fn(features, labels, mode, params):
        pixels = tf.reshape(features["image"], [-1, "784"])
        return _spec(mode, labels, tf.keras.layers.Dense(10)(pixels))

    sentence = check_model_fn(model_fn).findings[0].sentence
    assert sentence.startswith("building the PREDICT branch raised")
    assert "used as a tensor" not in sentence


# --------------------------------------------------------------------------- softmax output as
# logits


def softmax_dense(features, labels, mode, params):
    pixels = tf.reshape(features["image"], [-1, 28 * 28])
    logits = tf.keras.layers.Dense(10, activation=tf.nn.softmax)(pixels)
    return _spec(mode, labels, logits)


def softmax_layer_one_hot(features, labels, mode, params):
    pixels = tf.reshape(features["image"], [-1, 28 * 28])
    probabilities = tf.keras.layers.Softmax()(tf.keras.layers.Dense(10)(pixels))
    loss = (
        None
        if mode == ModeKeys.PREDICT
        else tf.compat.v1.losses.softmax_cross_entropy(tf.one_hot(labels, 10), probabilities)
    )
    return _spec(mode, labels, probabilities, loss=loss)


@pytest.mark.parametrize(
    "model_fn, text",
    [
        (softmax_dense, "activation=tf.nn.softmax"),
        (softmax_layer_one_hot, "tf.keras.layers.Softmax()"),
    ],
    ids=["Dense(activation=softmax)", "Softmax layer, one-hot loss"],
)
def test_a_softmax_output_given_as_logits_is_a_warning(model_fn, text):
    report = check_model_fn(model_fn)
    assert report.ok, report.findings  # Estimator trains it: a warning, not a finding
    assert [w.mode for w in report.warnings] == ["TRAIN"]
    line = _line_of(model_fn, text)
    sentence = report.warnings[0].sentence
    assert sentence.startswith(
        f"the loss's logits are the output of a softmax (line {line} of "
        f"`{model_fn.__name__}` in {HERE}: "
    )
    assert "(with 10 classes, above 1.46)" in sentence
    assert "no `activation=tf.nn.softmax`" in sentence and "`tf.nn.softmax(logits)`" in sentence


def test_the_lowest_loss_on_probabilities_is_the_one_the_warning_names():
    probabilities = tf.one_hot([3], 10)  # the best a softmax output can be: all on the right class
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=[3], logits=probabilities)
    assert f"{float(loss):.2f}" == "1.46"


def test_softmax_for_the_probabilities_only_or_a_keras_loss_on_it_is_fine():
    def keras_loss(features, labels, mode, params):
        pixels = tf.reshape(features["image"], [-1, 28 * 28])
        probabilities = tf.keras.layers.Dense(10, activation="softmax")(pixels)
        loss = (
            None
            if mode == ModeKeys.PREDICT
            else tf.reduce_mean(  # Keras takes the logits back
                tf.keras.losses.sparse_categorical_crossentropy(labels, probabilities)
            )
        )
        return _spec(mode, labels, probabilities, loss=loss)

    for model_fn in (good_model_fn, keras_loss, models.cnn_model_fn):
        report = check_model_fn(model_fn)
        assert report.ok and report.warnings == [], (model_fn.__name__, report.warnings)


# --------------------------------------------------------------------------- batch-norm update ops


def batch_norm_model_fn(kind: str):
    """A dense network with batch normalization of ``kind``: "v1" or "keras", "+fix" for the
    train_op that runs the update ops, "model" for a Keras Sequential model."""

    def model_fn(features, labels, mode, params):
        training = mode == ModeKeys.TRAIN
        hidden = tf.keras.layers.Dense(32)(tf.reshape(features["image"], [-1, 28 * 28]))
        if kind.startswith("v1"):
            normalized = tf.compat.v1.layers.batch_normalization(hidden, training=training)
            updates = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
        else:
            bn = (
                tf.keras.Sequential([tf.keras.layers.BatchNormalization()])
                if "model" in kind
                else (tf.keras.layers.BatchNormalization())
            )
            normalized = bn(hidden, training=training)
            updates = bn.updates
        logits = tf.keras.layers.Dense(10)(tf.nn.relu(normalized))
        if mode != ModeKeys.TRAIN:
            return _spec(mode, labels, logits)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        with tf.control_dependencies(updates if kind.endswith("+fix") else []):
            return _spec(mode, labels, logits, train_op=minimize(loss), loss=loss)

    return model_fn


@pytest.mark.parametrize(
    "kind, fix",
    [("v1", FIX_UPDATE_OPS), ("keras", FIX_KERAS_UPDATES), ("keras model", FIX_KERAS_UPDATES)],
    ids=["v1", "keras", "keras model"],
)
def test_batch_norm_updates_the_train_op_skips_are_a_warning_with_the_layers_fix(kind, fix):
    report = check_model_fn(batch_norm_model_fn(kind))
    assert report.ok, report.findings  # Estimator trains it: a warning, not a finding
    assert [w.mode for w in report.warnings] == ["TRAIN"]
    sentence = report.warnings[0].sentence
    scope = "sequential/batch_normalization" if kind == "keras model" else "batch_normalization"
    assert sentence.startswith(
        f"the train_op does not run the update ops of `{scope}/moving_mean` and "
        f"`{scope}/moving_variance`, so these moving averages stay at their initial values "
        "(unchanged after a training step) while EVAL and PREDICT normalize with them: "
    )
    assert sentence.endswith(
        f"`{fix}`" + (" (a Keras model: `model.updates`)" if fix == FIX_KERAS_UPDATES else "")
    )
    assert ("in the UPDATE_OPS collection, and" in sentence) == (kind == "v1")


@pytest.mark.parametrize("kind", ["v1+fix", "keras+fix", "keras model+fix"])
def test_batch_norm_with_its_updates_run_is_clean(kind):
    report = check_model_fn(batch_norm_model_fn(kind))
    assert report.ok and report.warnings == [], report.warnings


@pytest.mark.parametrize("kind", ["v1", "v1+fix", "keras", "keras+fix"])
def test_estimator_leaves_the_moving_averages_where_the_checker_says(kind, tmp_path):
    """Twenty steps of real training on MNIST: the moving averages stay at 0 and 1 exactly when
    the checker warns."""
    estimator = tf.estimator.Estimator(
        batch_norm_model_fn(kind),
        model_dir=str(tmp_path),
        params={},
        config=tf.estimator.RunConfig(tf_random_seed=1),
    )
    estimator.train(inputs.make_train_input_fn(batch_size=50), steps=20)
    mean = estimator.get_variable_value("batch_normalization/moving_mean")
    variance = estimator.get_variable_value("batch_normalization/moving_variance")
    at_initial = bool(np.all(mean == 0.0) and np.all(variance == 1.0))
    warned = bool(check_model_fn(batch_norm_model_fn(kind)).warnings)
    assert at_initial == warned == (not kind.endswith("+fix"))
