"""The sentences the model_fn checker writes for a learner's mistake: the signature, an exception
while a branch is built, an error while it runs, a string compared with ``mode``, and where the
learner's line is.

The errors are raised by small functions of this file (so they carry a real traceback with the
learner's line), or by EstimatorSpec itself in a graph; no model is checked end to end here.
"""

import functools
import traceback

import numpy as np
import pytest
import tensorflow as tf

from helpers.model_fn_checker import (
    ModelFnReport,
    check_model_fn,
    check_signature,
    explain_build_error,
    explain_run_error,
    features_as_tensor,
    wrong_mode_comparisons,
)
from helpers.model_graph import estimator_graph, tiny_batch
from helpers.paths import PROJECT_ROOT

ModeKeys = tf.estimator.ModeKeys
HERE = "tests/helpers/model_fn_checker/test_messages.py"
COURSE_INPUTS = (
    'the course\'s input functions deliver features {"image": float32 [batch, 28, 28]} and labels '
    "int32 [batch] (class ids, not one-hot): make that line accept them"
)


def _raised(function, features=None, labels=None, params=None):
    """What ``function`` raises as a model_fn in PREDICT, and the line of this file it raised at."""
    with pytest.raises(Exception) as caught:
        function(features if features is not None else {}, labels, ModeKeys.PREDICT, params)
    lines = [
        f.lineno for f in traceback.extract_tb(caught.value.__traceback__) if f.filename == __file__
    ]
    return caught.value, lines[-1]


# --------------------------------------------------------------------------- the signature


def test_a_renamed_features_parameter_quotes_estimator_once_and_names_the_function():
    def my_model_fn(inputs, labels, mode):
        return None

    report = check_model_fn(my_model_fn)
    assert report.name == "my_model_fn" and report.branches == {}  # Estimator would refuse it
    assert [f.sentence for f in report.findings] == [
        "the model_fn has no parameter named `features`: Estimator passes the features by that "
        "name, so call the first parameter `features` (Estimator raises `ValueError: model_fn "
        f"(<function {my_model_fn.__qualname__}>) must include features argument.`)",
        "Estimator does not pass `inputs`: it accepts only the parameter names features, labels, "
        "mode, params, config, so rename `inputs`",
    ]
    assert check_model_fn(functools.partial(my_model_fn)).name == "partial"  # no __name__


def test_several_unexpected_names_are_listed_and_the_params_finding_stands_alone():
    def model_fn(features, labels, mode, hparams, batch_size):
        return None

    report = ModelFnReport("model_fn", 4)
    assert not check_signature(model_fn, {"learning_rate": 0.1}, report)
    unexpected, no_params = (f.sentence for f in report.findings)
    assert unexpected == (
        "Estimator does not pass `hparams` and `batch_size`: it accepts only the parameter names "
        "features, labels, mode, params, config, so rename `hparams` and `batch_size`"
    )
    # Estimator checks params before the other names: its error is about params
    assert no_params.startswith(
        "params are given but the model_fn has no `params` parameter: add `params` to its "
        "signature to receive them (Estimator raises `ValueError: model_fn (<function "
    )
    assert no_params.endswith(
        "does not include params argument, but params ({'learning_rate': 0.1}) is passed to "
        "Estimator.`)"
    )


def test_config_and_a_methods_self_are_parameters_estimator_accepts():
    def model_fn(self, features, labels, mode, params, config):  # a method, copied out
        return None

    report = ModelFnReport("model_fn", 4)
    assert check_signature(model_fn, None, report)
    assert report.findings == [] and report.warnings == []


# --------------------------------------------------------------------------- strings compared with
# mode


def _compares_with_evaluate(features, labels, mode, params):
    return mode == "evaluate"


def _compares_with_a_list(features, labels, mode, params):
    return mode in ["inference", "training"] or "predict" == mode


def _compares_right_or_not_with_mode(features, labels, mode, params):
    split = "training"
    return mode == "eval" or mode == ModeKeys.TRAIN or mode == "debug" or split == "training"


def test_each_mode_name_a_learner_may_write_is_read_as_its_mode():
    assert wrong_mode_comparisons(_compares_with_evaluate) == {"EVAL": "evaluate"}
    assert wrong_mode_comparisons(_compares_with_a_list) == {
        "PREDICT": "inference",
        "TRAIN": "training",
    }
    assert wrong_mode_comparisons(lambda mode: mode != "predict") == {"PREDICT": "predict"}


def test_right_keys_other_strings_and_other_names_are_no_wrong_comparison():
    assert wrong_mode_comparisons(_compares_right_or_not_with_mode) == {}
    # no source to read: nothing to say
    assert wrong_mode_comparisons(functools.partial(_compares_with_evaluate)) == {}


# --------------------------------------------------------------------------- building a branch


def _not_written_yet(features, labels, mode, params):
    raise NotImplementedError


def _reads_a_file(features, labels, mode, params):
    raise ValueError(f"cannot read {PROJECT_ROOT}/data/weights.npz: no such file")


def _stacks_labels_on_images(features, labels, mode, params):
    return np.concatenate([features["image"], labels])


def _typo_of_a_builtin(features, labels, mode, params):
    return flaot(params["scale"])  # noqa: F821


def _undefined_name(features, labels, mode, params):
    return warmup_steps * 2  # noqa: F821


def _missing_prediction(features, labels, mode, params):
    predictions = {"classes": 0}
    return predictions["probabilities"]


def _reads_learning_rate(features, labels, mode, params):
    return params["learning_rate"]


def test_an_error_without_a_message_still_names_the_line():
    error, line = _raised(_not_written_yet)
    sentence = explain_build_error("PREDICT", error, None, False)
    assert sentence.startswith("building the PREDICT branch raised NotImplementedError (line ")
    assert sentence.endswith(
        f"(line {line} of `_not_written_yet` in {HERE}: `raise NotImplementedError`): fix that line"
    )


def test_the_project_folder_is_left_out_of_an_error_message():
    error, line = _raised(_reads_a_file)
    assert explain_build_error("EVAL", error, None, False).startswith(
        f"building the EVAL branch raised ValueError: cannot read data/weights.npz: no such file "
        f"(line {line} of `_reads_a_file` in {HERE}: "
    )


def test_an_error_at_a_line_without_features_or_labels_does_not_describe_the_inputs():
    sentence = explain_build_error("EVAL", _raised(_reads_a_file)[0], None, False)
    assert sentence.endswith("): fix that line") and "input functions" not in sentence


def test_a_line_that_uses_features_and_labels_gets_both_described():
    error, _ = _raised(_stacks_labels_on_images, {"image": np.zeros((4, 28, 28))}, np.zeros(4))
    assert isinstance(error, ValueError)
    assert explain_build_error("EVAL", error, None, False).endswith("; " + COURSE_INPUTS)


def test_a_typo_of_a_builtin_names_the_builtin():
    error, line = _raised(_typo_of_a_builtin, params={"scale": 2})
    sentence = explain_build_error("TRAIN", error, None, False)
    assert sentence.startswith(f"the name `flaot` (line {line} of `_typo_of_a_builtin` in {HERE}")
    assert sentence.endswith(
        "is not defined, a typo for `float`?: correct the spelling at that line"
    )


def test_a_name_like_no_other_is_reported_as_not_defined():
    error, line = _raised(_undefined_name)
    assert explain_build_error("TRAIN", error, None, False) == (
        f"the name `warmup_steps` (line {line} of `_undefined_name` in {HERE}: "
        "`return warmup_steps * 2  # noqa: F821`) is not defined: define it before that line, or "
        "correct its spelling"
    )


def test_a_missing_key_of_another_dict_is_named_with_its_line():
    error, line = _raised(_missing_prediction)
    assert explain_build_error("PREDICT", error, None, False) == (
        f"building the PREDICT branch raised KeyError: 'probabilities' (line {line} of "
        f'`_missing_prediction` in {HERE}: `return predictions["probabilities"]`): that key is '
        "missing there"
    )


@pytest.mark.parametrize(
    "params, keys",
    [(None, "none"), ({"dense_units": 8, "filters": (4, 8)}, "'dense_units', 'filters'")],
)
def test_a_missing_params_key_lists_the_keys_given(params, keys):
    error, _ = _raised(_reads_learning_rate, params=dict(params or {}))
    sentence = explain_build_error("TRAIN", error, params, False)
    assert f"but the params given have no such key (keys: {keys}): pass it" in sentence


def _spec_error(mode: str, part: str) -> Exception:
    """The exception EstimatorSpec raises for ``mode`` when ``part`` is given wrong."""
    with tf.Graph().as_default(), pytest.raises(Exception) as caught:
        loss = tf.constant(1.0)
        accuracy = tf.compat.v1.metrics.accuracy(tf.constant([1]), tf.constant([1]))
        wrong = {
            "metrics in a list": {"loss": loss, "eval_metric_ops": [accuracy]},
            "a float loss": {"loss": 0.5},
            "a list prediction": {"predictions": {"classes": [1, 2]}},
        }[part]
        tf.estimator.EstimatorSpec(mode, **wrong)
    return caught.value


@pytest.mark.parametrize(
    "mode_name, part, sentence",
    [
        (
            "EVAL",
            "metrics in a list",
            "eval_metric_ops is not a dict: give `{name: (value, update_op)}`",
        ),
        (
            "EVAL",
            "a float loss",
            "`loss` is not a TensorFlow tensor: return the tensor or op the model built, not a "
            "Python or NumPy value",
        ),
        (
            "PREDICT",
            "a list prediction",
            "`predictions[classes]` is not a TensorFlow tensor: return the tensor or op the model "
            "built, not a Python or NumPy value",
        ),
    ],
    ids=["metrics in a list", "a float loss", "a list prediction"],
)
def test_estimator_spec_refusing_a_part_is_explained(mode_name, part, sentence):
    error = _spec_error(getattr(ModeKeys, mode_name), part)
    assert explain_build_error(mode_name, error, None, False) == sentence


def _network(images, units):
    return images


def _adds_units(features, labels, mode, params):
    return _network(features, params["units"] + "1")


def test_an_error_at_a_line_that_passes_the_features_on_is_not_blamed_on_the_dict():
    features, params = {"image": tf.zeros([4, 28, 28])}, {"units": 10}
    error, _ = _raised(_adds_units, features, params=params)
    assert "dict" not in str(error)  # int + str: nothing to do with the features
    assert features_as_tensor(_adds_units, error, features, ModeKeys.PREDICT, params) is None


def _wraps_the_image(features, labels, mode, params):
    return tf.reshape({"pixels": features["image"]}, [-1, 28 * 28])


def _dense_on_the_dict(features, labels, mode, params):
    logits = tf.keras.layers.Dense(10)(
        features,  # the dict: features["image"] is the tensor
    )
    return tf.estimator.EstimatorSpec(mode, predictions={"classes": tf.argmax(logits, axis=1)})


def _reshaped_dict_with_a_loss(features, labels, mode, params):
    pixels = tf.reshape(
        features,  # the dict
        [-1, 28 * 28],
    )
    logits = tf.keras.layers.Dense(10)(pixels)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    return tf.estimator.EstimatorSpec(mode, loss=loss)


def _dict_error(model_fn, mode=ModeKeys.PREDICT):
    """The sentence on the dict for what ``model_fn`` raises in ``mode`` on the course's batch."""
    with estimator_graph():
        features, labels = tiny_batch(4, with_labels=mode != ModeKeys.PREDICT)
        with pytest.raises(Exception) as caught:
            model_fn(features, labels, mode, None)
        line = [
            f.lineno
            for f in traceback.extract_tb(caught.value.__traceback__)
            if f.filename == __file__
        ][-1]
        return features_as_tensor(model_fn, caught.value, features, mode, None), line


def test_a_dict_the_learner_builds_from_the_image_is_not_blamed_on_features():
    sentence, _ = _dict_error(_wraps_the_image)
    assert sentence is None  # the error names a dict, but features is used as a dict there


def test_features_used_as_a_tensor_in_a_statement_over_lines_quotes_the_first_sentence():
    sentence, line = _dict_error(_dense_on_the_dict)
    assert sentence.startswith(
        f"`features` is used as a tensor (line {line} of `_dense_on_the_dict` in {HERE}: `logits"
    )
    assert sentence.endswith(
        "(TensorFlow raised `TypeError: Failed to convert '{'image': TensorShape([None, 28, 28])}' "
        "to a shape: ''image''could not be converted to a dimension.`)"
    )


def test_features_used_as_a_tensor_in_eval_is_found_by_building_with_the_labels():
    sentence, line = _dict_error(_reshaped_dict_with_a_loss, ModeKeys.EVAL)
    assert sentence.startswith(
        f"`features` is used as a tensor (line {line} of `_reshaped_dict_with_a_loss` in {HERE}: "
        "`pixels = tf.reshape(`), but Estimator passes"
    )


# --------------------------------------------------------------------------- running a branch


def test_a_run_error_without_an_op_keeps_its_cause_without_the_final_period():
    error = tf.errors.InvalidArgumentError(
        None,
        None,
        "Graph execution error:\n\nNode: 'x'\nThe tensor is not ready.\n\t [[{{node x}}]]",
    )
    assert explain_run_error("TRAIN", error, 4) == (
        "running the TRAIN branch on a batch of 4 raised InvalidArgumentError: The tensor is not "
        "ready, and TensorFlow did not record which line built the op that failed: look for the "
        "line of the model_fn that builds it"
    )


def test_an_argmax_over_the_batch_compared_with_the_labels_is_named_when_the_run_fails():
    with estimator_graph() as graph:
        features, labels = tiny_batch(4)
        logits = tf.keras.layers.Dense(10)(tf.reshape(features["image"], [-1, 28 * 28]))
        correct = tf.equal(tf.cast(labels, tf.int64), tf.argmax(logits))  # [4] and [10]
        with tf.compat.v1.Session(graph=graph) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            with pytest.raises(tf.errors.OpError) as caught:
                session.run(correct)
    sentence = explain_run_error("EVAL", caught.value, 4)
    assert "raised InvalidArgumentError: Incompatible shapes: [10] vs. [4]" in sentence
    assert sentence.endswith(
        "; it uses `tf.argmax(logits)` without `axis`, which reduces over axis 0, the batch: write "
        "`tf.argmax(logits, axis=1)`"
    )


def test_a_run_error_leaves_the_project_folder_out():
    error = tf.errors.NotFoundError(
        None, None, f"{PROJECT_ROOT}/data/missing.bin; No such file or directory"
    )
    assert explain_run_error("EVAL", error, 3).startswith(
        "running the EVAL branch on a batch of 3 raised NotFoundError: data/missing.bin; No such "
        "file or directory, and TensorFlow"
    )


# --------------------------------------------------------------------------- the learner's line
