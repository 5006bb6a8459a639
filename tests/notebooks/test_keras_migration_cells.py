"""Notebook 10's Keras code: its own cells' ``build_cnn``, callbacks, data and export functions.

``build_cnn``, the callbacks, ``test_arrays``, ``small_train_dataset`` and the export
functions are defined in the notebook's cells tagged ``keras-latest``;
``tools.notebook_code.definitions`` executes those cells' imports, definitions and
constants (nothing that trains), so these tests run the notebook's code itself. Each
test builds its own Keras models: in TensorFlow 2.15 an Estimator graph built by another
test switches Keras's layer classes to graph mode, which breaks Keras models built
before it.
"""

import types

import keras
import numpy as np
import pytest
import tensorflow as tf

from helpers import cnn_params, inputs, models
from tools.notebook_code import definitions

# Keras 2.15 (not Keras 3) draws each Dropout layer's seed with random.randint(1, 1e9) once
# keras.utils.set_random_seed has run (keras/src/backend.py:2030):
# Python 3.11 warns about the float.
pytestmark = pytest.mark.filterwarnings(
    "ignore:non-integer arguments to randrange:DeprecationWarning"
)

TINY = {"filters": (4, 8), "dense_units": 16}


@pytest.fixture(scope="module")
def notebook():
    """The notebook's definitions, as a namespace: ``notebook.build_cnn``,
    ``notebook.ProbabilityLogger``, ..."""
    return types.SimpleNamespace(**definitions("10_migrating_to_keras.ipynb", tag="keras-latest"))


def random_batch(count=50, seed=0):
    rng = np.random.default_rng(seed)
    images = rng.random((count, 28, 28), dtype=np.float32)
    return images, rng.integers(0, 10, count).astype(np.int32)


def learnable_batch(count=50, seed=0):
    """Noise with a bright band of rows at a place given by the label: easy to learn."""
    images, labels = random_batch(count, seed)
    images *= 0.2
    for image, label in zip(images, labels):
        image[2 * label + 4 : 2 * label + 6, :] = 1.0
    return images, labels


def repeated_dataset(count=50, batch_size=10):
    images, labels = learnable_batch(count)
    return (
        tf.data.Dataset.from_tensor_slices(({"image": images}, labels)).batch(batch_size).repeat()
    )


def estimator_trainable_count(params):
    with tf.Graph().as_default():
        tf.compat.v1.train.create_global_step()
        models.cnn_model_fn(
            {"image": tf.zeros([1, 28, 28])},
            tf.zeros([1], tf.int32),
            tf.estimator.ModeKeys.TRAIN,
            params,
        )
        return sum(int(np.prod(v.shape)) for v in tf.compat.v1.trainable_variables())


# --- the notebook's build_cnn and callbacks ---------------------------------------------


def test_the_notebook_uses_the_estimators_default_params(notebook):
    assert notebook.DEFAULT_PARAMS is cnn_params.DEFAULT_PARAMS


@pytest.mark.parametrize("params", [{}, TINY, {"filters": (16,), "dense_units": 64}])
def test_same_parameter_count_as_the_estimator_cnn(notebook, params):
    expected = estimator_trainable_count(params)
    assert notebook.build_cnn(params).count_params() == expected
    assert expected == (421_642 if not params else expected)


def test_input_output_and_compilation(notebook):
    model = notebook.build_cnn(TINY)
    images, _ = random_batch(3)
    probabilities = np.asarray(model({"image": images}, training=False))
    assert probabilities.shape == (3, 10)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-5)
    assert model.optimizer.epsilon == pytest.approx(1e-8)


def test_learning_rate_decays_like_the_estimator(notebook):
    steps = [0, 1, 250, 750, 1500, 3000]
    with tf.Graph().as_default():
        step = tf.compat.v1.placeholder(tf.int64, [])
        decayed = tf.compat.v1.train.exponential_decay(2e-3, step, decay_steps=1500, decay_rate=0.1)
        with tf.compat.v1.Session() as session:
            expected = [session.run(decayed, {step: s}) for s in steps]
    schedule = notebook.learning_rate({"learning_rate": 2e-3, "decay_steps": 1500})
    np.testing.assert_allclose([float(schedule(s)) for s in steps], expected, rtol=1e-6)
    assert notebook.learning_rate({"learning_rate": 1e-3, "decay_steps": None}) == 1e-3


def test_a_few_steps_of_fit_decrease_the_loss(notebook):
    keras.utils.set_random_seed(1)
    model = notebook.build_cnn({**TINY, "learning_rate": 1e-2})
    history = model.fit(repeated_dataset(), steps_per_epoch=5, epochs=6, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < 0.8 * losses[0]


def test_probability_logger_fires_every_n_batches(notebook, capsys):
    images, labels = random_batch(3, seed=5)
    logger = notebook.ProbabilityLogger(images, labels, every_n_batches=7)
    model = notebook.build_cnn(TINY)
    model.fit(repeated_dataset(), steps_per_epoch=10, epochs=3, callbacks=[logger], verbose=0)
    assert [batch for batch, _ in logger.records] == [7, 14, 21, 28]
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and lines[0].startswith("batch     7  P(true digit): ")
    assert logger.records[0][1].shape == (3, 10)
    # Each fit counts from 1 again.
    model.fit(repeated_dataset(), steps_per_epoch=7, epochs=1, callbacks=[logger], verbose=0)
    assert logger.records[-1][0] == 7


def test_crash_and_epoch_recorder(notebook):
    model = notebook.build_cnn(TINY)
    recorder = notebook.EpochRecorder()
    with pytest.raises(notebook.SimulatedCrash, match="start of epoch 2"):
        model.fit(
            repeated_dataset(),
            steps_per_epoch=3,
            epochs=4,
            verbose=0,
            callbacks=[recorder, notebook.CrashAtEpoch(1)],
        )
    assert recorder.epochs == [1, 2] and recorder.start_steps == [0, 3]


# --- the notebook's data and export functions ------------------------------------------------


def test_export_reload_predicts_the_same(notebook, tmp_path):
    model = notebook.build_cnn(TINY)
    images, _ = random_batch(25, seed=2)
    path = notebook.export_model(model, tmp_path / "cnn")
    loaded = tf.saved_model.load(path)
    spec = notebook.serve_signature(loaded)
    spec = spec["image"] if isinstance(spec, dict) else spec
    assert spec.shape.as_list() == [None, 28, 28]
    predicted = notebook.exported_predictions(loaded, images, batch_size=10)
    expected = np.asarray(model({"image": images}, training=False))
    np.testing.assert_allclose(predicted["probabilities"], expected, atol=1e-6)
    assert np.array_equal(predicted["classes"], expected.argmax(axis=1))


def test_export_prints_nothing(notebook, tmp_path, capsys):
    notebook.export_model(notebook.build_cnn(TINY), tmp_path / "cnn")
    assert capsys.readouterr().out == ""


def test_serve_input_follows_the_signature(notebook):
    images = np.zeros((2, 28, 28), np.float32)

    def fake(spec):
        concrete = types.SimpleNamespace(structured_input_signature=((spec,), {}))
        return types.SimpleNamespace(serve=types.SimpleNamespace(concrete_functions=[concrete]))

    as_dict = notebook.serve_input(fake({"image": tf.TensorSpec([None, 28, 28])}), images)
    assert isinstance(as_dict, dict) and as_dict["image"].shape == (2, 28, 28)
    as_tensor = notebook.serve_input(fake(tf.TensorSpec([None, 28, 28])), images)
    assert tuple(as_tensor.shape) == (2, 28, 28)


def test_test_arrays_read_the_test_digits_through_inputs(notebook):
    images, labels = notebook.test_arrays(count=1500)
    assert images.shape == (1500, 28, 28) and images.dtype == np.float32 and labels.shape == (1500,)
    assert 0.0 <= images.min() and images.max() <= 1.0
    features, first_labels = next(iter(inputs.make_eval_input_fn(count=10, batch_size=10)()))
    np.testing.assert_array_equal(images[:10], features["image"].numpy())
    np.testing.assert_array_equal(labels[:10], first_labels.numpy())


def test_small_train_dataset_is_one_reshuffled_pass_per_epoch(notebook):
    dataset = notebook.small_train_dataset(count=250, batch_size=100)
    assert int(dataset.cardinality()) == 3  # fit knows the epoch's length
    first = [labels.numpy() for _, labels in dataset]
    second = [labels.numpy() for _, labels in dataset]
    assert [len(batch) for batch in first] == [100, 100, 50]
    assert sorted(np.concatenate(first)) == sorted(np.concatenate(second))
    assert not np.array_equal(np.concatenate(first), np.concatenate(second))
    features, _ = next(iter(dataset))
    assert set(features) == {"image"} and features["image"].shape == (100, 28, 28)


def test_what_eval_metric_ops_keeps_of_a_keras_metric():
    """Notebook 10's `as_in_eval_metric_ops`: an EstimatorSpec keeps (result(), updates[0]), and
    Keras 2.15 registers the last op `update_state` built as the one update. F1Score's last op adds
    to `intermediate_weights` only, so its F1 stays 0.0;
    Precision groups its additions, so it is counted in full."""
    run = definitions("10_migrating_to_keras.ipynb", names=("as_in_eval_metric_ops",))[
        "as_in_eval_metric_ops"
    ]
    one_hot = np.eye(3, dtype=np.float32)[[0, 1, 2, 1]]
    probabilities = np.eye(3, dtype=np.float32)[[0, 1, 2, 2]] * 0.8 + 0.2 / 3
    f1 = run(lambda: keras.metrics.F1Score(average="macro"), one_hot, probabilities)
    assert f1 == {
        "update ops": 1,
        "result": 0.0,
        "variables updated": "1 of 4: intermediate_weights",
    }
    precision = run(lambda: keras.metrics.Precision(top_k=1), one_hot, probabilities)
    assert precision["result"] == pytest.approx(0.75)
    assert precision["variables updated"] == "2 of 2: true_positives, false_positives"
