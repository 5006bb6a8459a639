"""helpers.keras_migration: the course CNN in Keras, its callbacks, export and the whole Keras part.

The same file runs under TensorFlow 2.15 (these tests) and under the newest
TensorFlow (``make keras-latest``). Each test builds its own Keras models:
in TensorFlow 2.15 an Estimator graph built by another test switches Keras's
layer classes to graph mode, which breaks Keras models built before it.
"""

import io
import shutil
import types

import keras
import numpy as np
import pytest
import tensorflow as tf

from helpers import keras_migration, models, settings

TINY = {"filters": (4, 8), "dense_units": 16}


def random_batch(count=50, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((count, 28, 28), dtype=np.float32), rng.integers(0, 10, count).astype(np.int32)


def learnable_batch(count=50, seed=0):
    """Noise with a bright band of rows at a place given by the label: easy to learn."""
    images, labels = random_batch(count, seed)
    images *= 0.2
    for image, label in zip(images, labels):
        image[2 * label + 4:2 * label + 6, :] = 1.0
    return images, labels


def repeated_dataset(count=50, batch_size=10):
    images, labels = learnable_batch(count)
    return tf.data.Dataset.from_tensor_slices(({"image": images}, labels)).batch(batch_size).repeat()


def estimator_trainable_count(params):
    with tf.Graph().as_default():
        tf.compat.v1.train.create_global_step()
        models.cnn_model_fn({"image": tf.zeros([1, 28, 28])}, tf.zeros([1], tf.int32),
                            tf.estimator.ModeKeys.TRAIN, params)
        return sum(int(np.prod(v.shape)) for v in tf.compat.v1.trainable_variables())


def test_default_params_are_the_estimators():
    assert keras_migration.DEFAULT_PARAMS is models.DEFAULT_PARAMS


@pytest.mark.parametrize("params", [{}, TINY, {"filters": (16,), "dense_units": 64}])
def test_same_parameter_count_as_the_estimator_cnn(params):
    expected = estimator_trainable_count(params)
    assert keras_migration.build_cnn(params).count_params() == expected
    assert expected == (421_642 if not params else expected)


def test_input_output_and_compilation():
    model = keras_migration.build_cnn(TINY)
    images, _ = random_batch(3)
    probabilities = np.asarray(model({"image": images}, training=False))
    assert probabilities.shape == (3, 10)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-5)
    assert model.optimizer.epsilon == pytest.approx(1e-8)


def test_learning_rate_decays_like_the_estimator():
    steps = [0, 1, 250, 750, 1500, 3000]
    with tf.Graph().as_default():
        step = tf.compat.v1.placeholder(tf.int64, [])
        decayed = tf.compat.v1.train.exponential_decay(2e-3, step, decay_steps=1500, decay_rate=0.1)
        with tf.compat.v1.Session() as session:
            expected = [session.run(decayed, {step: s}) for s in steps]
    schedule = keras_migration.learning_rate({"learning_rate": 2e-3, "decay_steps": 1500})
    np.testing.assert_allclose([float(schedule(s)) for s in steps], expected, rtol=1e-6)
    assert keras_migration.learning_rate({"learning_rate": 1e-3, "decay_steps": None}) == 1e-3


def test_a_few_steps_of_fit_decrease_the_loss():
    keras.utils.set_random_seed(1)
    model = keras_migration.build_cnn({**TINY, "learning_rate": 1e-2})
    history = model.fit(repeated_dataset(), steps_per_epoch=5, epochs=6, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < 0.8 * losses[0]


def test_probability_logger_fires_every_n_batches():
    lines = []
    images, labels = random_batch(3, seed=5)
    logger = keras_migration.ProbabilityLogger(images, labels, every_n_batches=7, print_fn=lines.append)
    model = keras_migration.build_cnn(TINY)
    model.fit(repeated_dataset(), steps_per_epoch=10, epochs=3, callbacks=[logger], verbose=0)
    assert [record["batch"] for record in logger.records] == [7, 14, 21, 28]
    assert len(lines) == 4 and lines[0].startswith("batch     7  P(true digit): ")
    assert logger.records[0]["probabilities"].shape == (3, 10)
    assert logger.header() == "probe digits (true labels): " + "  ".join(str(k) for k in labels)
    # Each fit counts from 1 again.
    model.fit(repeated_dataset(), steps_per_epoch=7, epochs=1, callbacks=[logger], verbose=0)
    assert logger.records[-1]["batch"] == 7


def test_crash_and_epoch_recorder():
    model = keras_migration.build_cnn(TINY)
    recorder = keras_migration.EpochRecorder()
    with pytest.raises(keras_migration.SimulatedCrash, match="start of epoch 2"):
        model.fit(repeated_dataset(), steps_per_epoch=3, epochs=4, verbose=0,
                  callbacks=[recorder, keras_migration.CrashAtEpoch(1)])
    assert recorder.epochs == [1, 2] and recorder.start_steps == [0, 3]


def test_export_reload_predicts_the_same(tmp_path):
    model = keras_migration.build_cnn(TINY)
    images, _ = random_batch(25, seed=2)
    path = keras_migration.export_model(model, tmp_path / "cnn")
    loaded = tf.saved_model.load(path)
    spec = keras_migration.serve_signature(loaded)
    spec = spec["image"] if isinstance(spec, dict) else spec
    assert spec.shape.as_list() == [None, 28, 28]
    predicted = keras_migration.exported_predictions(loaded, images, batch_size=10)
    expected = np.asarray(model({"image": images}, training=False))
    np.testing.assert_allclose(predicted["probabilities"], expected, atol=1e-6)
    assert np.array_equal(predicted["classes"], expected.argmax(axis=1))


def test_serve_input_follows_the_signature():
    images = np.zeros((2, 28, 28), np.float32)

    def fake(spec):
        concrete = types.SimpleNamespace(structured_input_signature=((spec,), {}))
        return types.SimpleNamespace(serve=types.SimpleNamespace(concrete_functions=[concrete]))

    as_dict = keras_migration.serve_input(fake({"image": tf.TensorSpec([None, 28, 28])}), images)
    assert isinstance(as_dict, dict) and as_dict["image"].shape == (2, 28, 28)
    as_tensor = keras_migration.serve_input(fake(tf.TensorSpec([None, 28, 28])), images)
    assert tuple(as_tensor.shape) == (2, 28, 28)


def test_macro_f1_and_keras_f1_match_scikit_learn():
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(4)
    labels = rng.integers(0, 10, 300)
    probabilities = rng.dirichlet(np.ones(10), 300).astype(np.float32)
    probabilities[np.arange(150), labels[:150]] += 1.0  # half of them right
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    classes = probabilities.argmax(axis=1)
    for average in ("macro", "micro", "weighted"):
        assert keras_migration.keras_f1(labels, probabilities, average) == pytest.approx(
            f1_score(labels, classes, average=average), abs=1e-5)
    assert keras_migration.macro_f1(labels, classes) == pytest.approx(f1_score(labels, classes, average="macro"))
    # A class never predicted and never present counts as 0, as scikit-learn's zero_division=0.
    assert keras_migration.macro_f1([0, 1], [0, 1], num_classes=3) == pytest.approx(2 / 3)


@pytest.fixture
def remove_keras_part_folders():
    """Remove the ``models/test_keras_part_*`` folders that run_keras_part writes."""
    yield "test_keras_part"
    for folder in settings.MODELS_DIR.glob("test_keras_part_*"):
        shutil.rmtree(folder, ignore_errors=True)


def test_run_keras_part_returns_its_results(capsys, remove_keras_part_folders):
    results = keras_migration.run_keras_part(train_steps=40, steps_per_epoch=20, log_every=20,
                                             name=remove_keras_part_folders)
    out = capsys.readouterr().out
    assert out.count("P(true digit)") == 2
    assert results["versions"] == keras_migration.versions()
    assert results["train_steps"] == 40 and results["logged_batches"] == [20, 40]
    assert 0.0 <= results["test_accuracy"] <= 1.0
    assert keras_migration.check_results(results, min_accuracy=0.0) == []
    assert results["epochs_run"] == results["best_epoch"] + 3


def test_check_results_names_each_problem():
    good = {"test_accuracy": 0.99, "stopped_epoch": 9, "epochs_run": 10, "max_epochs": 40, "best_val_loss": 0.2,
            "restored_val_loss": 0.2, "resumed_epochs": [3, 4], "export_same_class": 1.0,
            "export_max_probability_gap": 0.0, "keras_f1_macro": 0.98, "numpy_f1_macro": 0.98}
    assert keras_migration.check_results(good, 0.985) == []
    bad = {**good, "test_accuracy": 0.5, "stopped_epoch": 0, "epochs_run": 40, "restored_val_loss": 0.3,
           "resumed_epochs": [1, 2, 3, 4], "export_same_class": 0.9, "keras_f1_macro": 0.5}
    assert len(keras_migration.check_results(bad, 0.985)) == 6
