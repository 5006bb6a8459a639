"""helpers.export and the export code of notebook 08's cells: receivers,
SavedModel and TF Lite runners.

``signature_table``, ``serialize_examples``, ``tflite_predictions`` and
``quiet_native_stderr`` are defined in notebook 08's cells (run here without
the cells' other code). The tiny course CNN of ``tests/helpers/conftest.py``
(``trained_cnn``) is exported, so every function runs on a real SavedModel and
a real TF Lite model in a few seconds.
"""

import os
import types

import numpy as np
import pytest
import tensorflow as tf

from helpers import export
from tools.notebook_code import definitions

notebook = types.SimpleNamespace(**definitions("08_predict_export_tflite.ipynb"))


@pytest.fixture(scope="module")
def exported(trained_cnn, tmp_path_factory):
    root = tmp_path_factory.mktemp("export")
    estimator = trained_cnn
    path = estimator.export_saved_model(str(root / "export"), export.serving_input_receiver_fn)
    images = np.random.default_rng(1).random((7, 28, 28), dtype=np.float32)
    return estimator, path, images


def test_as_text_path_decodes_bytes_and_makes_relative(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir()
    assert export.as_text_path(str(tmp_path / "a").encode()) == "a"
    assert export.as_text_path(tmp_path / "a") == "a"


def test_serialize_examples_round_trip():
    images = np.random.default_rng(2).random((3, 28, 28), dtype=np.float32)
    serialized = notebook.serialize_examples(images)
    assert len(serialized) == 3 and all(isinstance(s, bytes) for s in serialized)
    parsed = tf.io.parse_example(serialized, {"image": tf.io.FixedLenFeature([28, 28], tf.float32)})
    assert np.array_equal(parsed["image"].numpy(), images)


def test_export_writes_a_saved_model(exported):
    _, path, _ = exported
    assert isinstance(path, bytes)
    assert os.path.isfile(os.path.join(path.decode(), "saved_model.pb"))


def test_signature_table(exported):
    _, path, _ = exported
    table = notebook.signature_table(tf.saved_model.load(path.decode()))
    assert table.to_dict("records") == [
        {
            "signature": "serving_default",
            "kind": "input",
            "key": "image",
            "tensor": "float32 [None, 28, 28]",
        },
        {
            "signature": "serving_default",
            "kind": "output",
            "key": "classes",
            "tensor": "int32 [None]",
        },
        {
            "signature": "serving_default",
            "kind": "output",
            "key": "probabilities",
            "tensor": "float32 [None, 10]",
        },
    ]


def test_saved_model_predictions_batches_agree_with_one_call(exported):
    estimator, path, images = exported
    signature = tf.saved_model.load(path.decode()).signatures["serving_default"]
    whole = {k: v.numpy() for k, v in signature(image=tf.constant(images)).items()}
    batched = export.saved_model_predictions(signature, images, batch_size=3)
    assert batched["probabilities"].shape == (7, 10)
    assert np.array_equal(batched["classes"], whole["classes"])
    assert np.allclose(batched["probabilities"], whole["probabilities"], atol=1e-6)


def test_estimator_predictions_concatenate_batches(exported):
    estimator, path, images = exported

    def input_fn():
        return tf.data.Dataset.from_tensor_slices({"image": images}).batch(3)

    got = export.estimator_predictions(estimator, input_fn)
    assert got["classes"].shape == (7,) and got["probabilities"].shape == (7, 10)
    only = export.estimator_predictions(estimator, input_fn, predict_keys=["probabilities"])
    assert list(only) == ["probabilities"]
    signature = tf.saved_model.load(path.decode()).signatures["serving_default"]
    served = export.saved_model_predictions(signature, images)
    assert np.array_equal(got["classes"], served["classes"])


def test_tflite_predictions_with_a_short_last_batch(exported):
    _, path, images = exported
    with notebook.quiet_native_stderr():
        model = tf.lite.TFLiteConverter.from_saved_model(path.decode()).convert()
    lite = notebook.tflite_predictions(model, images, batch_size=3)
    signature = tf.saved_model.load(path.decode()).signatures["serving_default"]
    served = export.saved_model_predictions(signature, images)
    assert sorted(lite) == ["classes", "probabilities"]
    assert lite["probabilities"].shape == (7, 10)
    assert np.array_equal(lite["classes"], served["classes"])
    assert np.allclose(lite["probabilities"], served["probabilities"], atol=1e-4)


def test_quiet_native_stderr_silences_fd_2_and_restores_it(capfd):
    with notebook.quiet_native_stderr():
        os.write(2, b"native noise\n")
    os.write(2, b"after\n")
    err = capfd.readouterr().err
    assert "native noise" not in err
    assert "after" in err


def test_quiet_native_stderr_lets_exceptions_through(capfd):
    with pytest.raises(ValueError, match="boom"):
        with notebook.quiet_native_stderr():
            raise ValueError("boom")
    os.write(2, b"still here\n")
    assert "still here" in capfd.readouterr().err


def test_agreement():
    reference = {"classes": np.array([1, 2, 3, 4]), "probabilities": np.zeros((4, 10))}
    other = {"classes": np.array([1, 2, 3, 5]), "probabilities": np.full((4, 10), 0.25)}
    got = export.agreement(reference, other)
    assert got == {"same class": 0.75, "differing": 1, "max |Δ probability|": 0.25}


def test_estimator_predictions_of_a_single_batch(exported):
    estimator, _, images = exported

    def input_fn():
        return tf.data.Dataset.from_tensor_slices({"image": images}).batch(10)

    assert export.estimator_predictions(estimator, input_fn)["classes"].shape == (7,)


def test_saved_model_predictions_call_the_signature_1000_images_at_a_time():
    sizes = []

    def signature(image):
        sizes.append(int(image.shape[0]))
        return {"classes": tf.zeros(image.shape[0], tf.int32)}

    got = export.saved_model_predictions(signature, np.zeros((2500, 28, 28), np.float32))
    assert sizes == [1000, 1000, 500]
    assert got["classes"].shape == (2500,)


def test_agreement_gap_is_the_largest_difference():
    reference = {"classes": np.array([1, 2]), "probabilities": np.full((2, 10), 0.5)}
    other = {"classes": np.array([1, 2]), "probabilities": np.full((2, 10), 0.25)}
    assert export.agreement(reference, other)["max |Δ probability|"] == 0.25


def test_the_served_input_tensor_is_named_image(exported):
    # saved_model_cli and TF Serving's logs show the graph's tensor, not the signature key
    _, path, _ = exported
    signature = tf.saved_model.load(path.decode()).signatures["serving_default"]
    assert signature.inputs[0].name == "image:0"
