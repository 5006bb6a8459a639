"""The Keras side of the course: the course CNN as a ``keras.Model``, and its callbacks.

Introduced in notebook 10, which trains the same network as an Estimator and
with ``model.fit`` on the same input pipeline and compares the two. The module
runs unchanged on TensorFlow 2.15 (``keras`` is Keras 2.15, the same as
``tf.keras``) and on the newest TensorFlow (``keras`` is Keras 3):
``tools/keras_latest.py`` (``make keras-latest``) runs ``run_keras_part`` there.
For that reason it imports neither ``tf.estimator`` nor ``helpers.models`` /
``helpers.setup`` (they need TensorFlow 2.15).

* ``build_cnn(params)``: the network of ``helpers.models.cnn_logits`` (same
  layers, sizes, dropout and ``params`` keys), with a softmax output, compiled
  with Adam and the Estimator's learning-rate decay (rate × 0.1^(step /
  decay_steps)), sparse categorical cross-entropy and accuracy. Its input is
  the dict ``{"image": float32 [batch, 28, 28]}`` that ``helpers.inputs``
  produces, so ``model.fit(inputs.make_train_input_fn(batch_size=100)(), ...)``
  trains on the Estimator's pipeline.
* ``ProbabilityLogger``: a callback that prints the probabilities of a few
  probe digits every N batches (the Keras ``LoggingTensorHook``).
* ``CrashAtEpoch`` / ``EpochRecorder``: a simulated crash and a record of the
  epochs a ``fit`` ran, for the ``BackupAndRestore`` demonstration.
* ``export_model`` / ``exported_predictions``: ``model.export`` and the
  reloaded SavedModel's predictions.
* ``macro_f1``: the macro F1 of class predictions, with NumPy (the reference
  the Keras ``F1Score`` metric is compared with when scikit-learn is absent).
* ``run_keras_part``: everything above end to end, returning a plain dict.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import time
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

from . import inputs
from .cnn_params import DEFAULT_PARAMS
from .settings import SEED, fresh_model_dir


#: ``tf.compat.v1.train.AdamOptimizer``'s epsilon (Keras's default is 1e-7).
ADAM_EPSILON = 1e-8


def versions() -> dict:
    """The TensorFlow and Keras versions this module runs on."""
    return {"tensorflow": tf.__version__, "keras": keras.__version__}


def learning_rate(params: dict):
    """A constant rate, or the Estimator's smooth decay: rate × 0.1^(step / decay_steps)."""
    if params.get("decay_steps"):
        return keras.optimizers.schedules.ExponentialDecay(
            params["learning_rate"], decay_steps=params["decay_steps"], decay_rate=0.1)
    return params["learning_rate"]


def build_cnn(params: dict | None = None) -> keras.Model:
    """The course CNN as a compiled ``keras.Model`` with input ``{"image": [batch, 28, 28]}``.

    Output: the ten class probabilities (softmax). ``params`` as in
    ``helpers.models.cnn_model_fn``: learning_rate, decay_steps, filters,
    dense_units, dropout.
    """
    params = {**DEFAULT_PARAMS, **(params or {})}
    image = keras.Input(shape=(28, 28), name="image")
    x = keras.layers.Reshape((28, 28, 1))(image)
    for filters in params["filters"]:
        x = keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
        x = keras.layers.MaxPooling2D(2)(x)
    x = keras.layers.Flatten()(x)
    x = keras.layers.Dense(params["dense_units"], activation="relu")(x)
    x = keras.layers.Dropout(params["dropout"])(x)  # active in fit, off in evaluate / predict
    logits = keras.layers.Dense(10, name="logits")(x)
    probabilities = keras.layers.Softmax(name="probabilities")(logits)
    model = keras.Model(inputs={"image": image}, outputs=probabilities, name="course_cnn")
    model.compile(
        optimizer=keras.optimizers.Adam(learning_rate(params), epsilon=ADAM_EPSILON),
        loss=keras.losses.SparseCategoricalCrossentropy(),
        metrics=["accuracy"],
    )
    return model


def current_learning_rate(model: keras.Model) -> float:
    """The rate the optimizer uses at its current step (schedule or constant)."""
    optimizer = model.optimizer
    rate = getattr(optimizer, "_learning_rate", None)
    if isinstance(rate, keras.optimizers.schedules.LearningRateSchedule):
        return float(rate(optimizer.iterations))
    return float(keras.ops.convert_to_numpy(optimizer.learning_rate)) if hasattr(keras, "ops") \
        else float(tf.keras.backend.get_value(optimizer.learning_rate))


class ProbabilityLogger(keras.callbacks.Callback):
    """Every ``every_n_batches`` training batches, print the probabilities of a few probe digits.

    The Keras counterpart of ``LoggingTensorHook({"probabilities": "softmax_tensor"},
    every_n_iter=50)``: a callback cannot see the tensors of the batch being
    trained, so it runs the model (dropout off) on fixed probe images. It counts
    the batches of each ``fit`` from 1 and fires at N, 2N, ...; every record
    (batch, probabilities) is kept in ``records``.
    """

    def __init__(self, images, labels, every_n_batches: int = 50, print_fn=print):
        super().__init__()
        self.images = np.asarray(images, dtype=np.float32)
        self.labels = np.asarray(labels)
        self.every_n_batches = every_n_batches
        self.print_fn = print_fn
        self.records: list = []
        self.batches = 0

    def on_train_begin(self, logs=None):
        self.batches = 0

    def on_train_batch_end(self, batch, logs=None):
        self.batches += 1
        if self.batches % self.every_n_batches:
            return
        probabilities = np.asarray(self.model({"image": self.images}, training=False))
        self.records.append({"batch": self.batches, "probabilities": probabilities})
        if self.print_fn is not None:
            right = probabilities[np.arange(len(self.labels)), self.labels]
            self.print_fn(f"batch {self.batches:5d}  P(true digit): " + "  ".join(f"{p:.3f}" for p in right))

    def header(self) -> str:
        """What the printed columns are."""
        return "probe digits (true labels): " + "  ".join(str(int(label)) for label in self.labels)


class SimulatedCrash(RuntimeError):
    """Raised by ``CrashAtEpoch``: training stopped by an error, on purpose."""


class CrashAtEpoch(keras.callbacks.Callback):
    """Raise ``SimulatedCrash`` when epoch ``epoch`` (0-based) is about to start."""

    def __init__(self, epoch: int):
        super().__init__()
        self.epoch = epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.epoch:
            raise SimulatedCrash(f"simulated crash at the start of epoch {epoch + 1}")


class EpochRecorder(keras.callbacks.Callback):
    """Record the (1-based) epochs a ``fit`` runs and the optimizer step at each start."""

    def __init__(self):
        super().__init__()
        self.epochs: list = []
        self.start_steps: list = []

    def on_epoch_begin(self, epoch, logs=None):
        self.epochs.append(epoch + 1)
        self.start_steps.append(int(self.model.optimizer.iterations))


def small_train_dataset(count: int = 1_000, batch_size: int = 100, dataset: str = "mnist") -> tf.data.Dataset:
    """The first ``count`` training digits, shuffled each epoch, one pass per epoch (for early stopping)."""
    pairs = inputs.image_dataset(dataset, "train").take(count).cache()
    pairs = pairs.apply(tf.data.experimental.assert_cardinality(count))  # so that fit knows the epoch's length
    return (pairs.shuffle(count, seed=SEED, reshuffle_each_iteration=True).batch(batch_size)
            .map(lambda image, label: ({inputs.FEATURE: image}, label)))


def test_arrays(dataset: str = "mnist", count: int | None = None):
    """The test images (float32 in 0–1) and labels as NumPy arrays, read through ``helpers.inputs``."""
    images, labels = [], []
    for features, batch_labels in inputs.make_eval_input_fn(dataset, count=count, batch_size=1000)():
        images.append(features[inputs.FEATURE].numpy())
        labels.append(batch_labels.numpy())
    return np.concatenate(images), np.concatenate(labels)


def export_model(model: keras.Model, path) -> str:
    """``model.export(path)``: a SavedModel with a ``serve`` endpoint (Keras 2.15 and Keras 3).

    Both print a summary of the endpoint and of its captured variables (with
    ids that change from run to run): Keras 3 is told not to, Keras 2.15's
    print is caught.
    """
    path = str(path)
    if "verbose" in inspect.signature(model.export).parameters:
        model.export(path, verbose=False)
    else:
        with contextlib.redirect_stdout(io.StringIO()):
            model.export(path)
    return path


def serve_input(loaded, images):
    """What the ``serve`` endpoint takes: a tensor (Keras 2.15), or the dict ``{"image": …}`` (Keras 3)."""
    images = tf.constant(images)
    return {inputs.FEATURE: images} if isinstance(serve_signature(loaded), dict) else images


def serve_signature(loaded):
    """The input spec of a reloaded ``serve`` endpoint: a ``TensorSpec``, or a dict of them."""
    function = loaded.serve
    if not hasattr(function, "structured_input_signature"):  # TF 2.15 restores it as a RestoredFunction
        function = function.concrete_functions[0]
    return function.structured_input_signature[0][0]


def exported_predictions(loaded, images, batch_size: int = 1000) -> dict:
    """Classes and probabilities of a reloaded ``model.export`` SavedModel (its ``serve`` endpoint)."""
    chunks = [np.asarray(loaded.serve(serve_input(loaded, images[start:start + batch_size])))
              for start in range(0, len(images), batch_size)]
    probabilities = np.concatenate(chunks)
    return {"classes": probabilities.argmax(axis=1).astype(np.int32), "probabilities": probabilities}


def macro_f1(labels, classes, num_classes: int = 10) -> float:
    """Macro F1 of class predictions (scikit-learn's ``f1_score(average="macro", zero_division=0)``)."""
    labels, classes = np.asarray(labels), np.asarray(classes)
    scores = []
    for k in range(num_classes):
        tp = np.sum((classes == k) & (labels == k))
        fp = np.sum((classes == k) & (labels != k))
        fn = np.sum((classes != k) & (labels == k))
        scores.append(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn))
    return float(np.mean(scores))


def keras_f1(labels, probabilities, average: str = "macro", num_classes: int = 10) -> float:
    """``keras.metrics.F1Score(average=…)`` on integer labels (one-hot encoded here) and probabilities."""
    metric = keras.metrics.F1Score(average=average)
    one_hot = np.eye(num_classes, dtype=np.float32)[np.asarray(labels)]
    metric.update_state(one_hot, np.asarray(probabilities, dtype=np.float32))
    return float(np.asarray(metric.result()))


def run_keras_part(train_steps: int = 1500, steps_per_epoch: int = 100, log_every: int = 50,
                   patience: int = 3, max_epochs: int = 40, dataset: str = "mnist",
                   name: str = "10_keras_part", print_fn=print) -> dict:
    """The Keras part of notebook 10, end to end; returns its results as a plain dict.

    1. ``build_cnn`` trained with ``fit`` on ``inputs.make_train_input_fn(batch_size=100)``
       for ``train_steps`` steps (learning rate 2e-3 decaying tenfold over the run),
       with a ``ProbabilityLogger`` every ``log_every`` batches; evaluated on the test set.
    2. ``EarlyStopping(monitor="val_loss", patience, restore_best_weights=True)`` on a
       run that overfits 1,000 training digits, validated on the first 2,000 test digits.
    3. ``BackupAndRestore``: a fit that crashes at the start of epoch 3 of 4, then resumes.
    4. ``model.export``, reloaded with ``tf.saved_model.load``; its predictions on the test
       set against the model's own, and ``keras.metrics.F1Score`` against NumPy's macro F1.
    """
    say = print_fn or (lambda *args: None)
    results: dict = {"versions": versions()}
    test_images, test_labels = test_arrays(dataset)

    # 1. The same CNN, the same pipeline, the same number of steps.
    keras.utils.set_random_seed(SEED)
    model = build_cnn({"learning_rate": 2e-3, "decay_steps": train_steps})
    logger = ProbabilityLogger(test_images[:5], test_labels[:5], every_n_batches=log_every, print_fn=say)
    say(logger.header())
    started = time.perf_counter()
    model.fit(inputs.make_train_input_fn(dataset, batch_size=100)(), steps_per_epoch=steps_per_epoch,
              epochs=train_steps // steps_per_epoch, callbacks=[logger], verbose=0)
    seconds = time.perf_counter() - started
    loss, accuracy = model.evaluate(inputs.make_eval_input_fn(dataset)(), verbose=0)
    results.update(train_steps=int(model.optimizer.iterations), train_seconds=seconds,
                   steps_per_second=int(model.optimizer.iterations) / seconds,
                   test_loss=float(loss), test_accuracy=float(accuracy),
                   logged_batches=[record["batch"] for record in logger.records])

    # 2. Early stopping that fires.
    keras.utils.set_random_seed(SEED)
    small = build_cnn({"learning_rate": 1e-3})
    early_stop = keras.callbacks.EarlyStopping(monitor="val_loss", patience=patience, restore_best_weights=True)
    history = small.fit(small_train_dataset(dataset=dataset), validation_data=inputs.make_eval_input_fn(dataset, count=2000)(),
                        epochs=max_epochs, callbacks=[early_stop], verbose=0)
    val_losses = history.history["val_loss"]
    restored_val_loss = small.evaluate(inputs.make_eval_input_fn(dataset, count=2000)(), verbose=0)[0]
    results.update(max_epochs=max_epochs, epochs_run=len(val_losses), stopped_epoch=int(early_stop.stopped_epoch),
                   best_epoch=int(np.argmin(val_losses)) + 1, best_val_loss=float(min(val_losses)),
                   last_val_loss=float(val_losses[-1]), restored_val_loss=float(restored_val_loss))

    # 3. BackupAndRestore: crash, then resume where the backup left off.
    folder = fresh_model_dir(f"{name}_resume")
    keras.utils.set_random_seed(SEED)
    crashing = build_cnn()
    try:
        crashing.fit(inputs.make_train_input_fn(dataset, batch_size=100)(), steps_per_epoch=20, epochs=4, verbose=0,
                     callbacks=[keras.callbacks.BackupAndRestore(f"{folder}/backup"), CrashAtEpoch(2)])
    except SimulatedCrash:
        pass
    resumed = build_cnn()
    recorder = EpochRecorder()
    resumed.fit(inputs.make_train_input_fn(dataset, batch_size=100)(), steps_per_epoch=20, epochs=4, verbose=0,
                callbacks=[keras.callbacks.BackupAndRestore(f"{folder}/backup"), recorder])
    results.update(resumed_epochs=recorder.epochs, resumed_start_steps=recorder.start_steps)

    # 4. Export, reload, predict; metrics.
    predicted = model.predict({inputs.FEATURE: test_images}, batch_size=1000, verbose=0)
    export_dir = export_model(model, f"{fresh_model_dir(f'{name}_export')}/cnn")
    reloaded = exported_predictions(tf.saved_model.load(export_dir), test_images)
    results.update(
        exported_accuracy=float(np.mean(reloaded["classes"] == test_labels)),
        export_same_class=float(np.mean(reloaded["classes"] == predicted.argmax(axis=1))),
        export_max_probability_gap=float(np.max(np.abs(reloaded["probabilities"] - predicted))),
        keras_f1_macro=keras_f1(test_labels, predicted), numpy_f1_macro=macro_f1(test_labels, predicted.argmax(axis=1)),
    )
    return results


def check_results(results: dict, min_accuracy: float) -> list:
    """What is wrong with ``run_keras_part``'s results (an empty list when all holds)."""
    problems = []
    if results["test_accuracy"] < min_accuracy:
        problems.append(f"test accuracy {results['test_accuracy']:.4f} < {min_accuracy}")
    if not (results["stopped_epoch"] > 0 and results["epochs_run"] < results["max_epochs"]):
        problems.append(f"early stopping did not fire ({results['epochs_run']} of {results['max_epochs']} epochs)")
    if abs(results["restored_val_loss"] - results["best_val_loss"]) > 1e-3 * max(1.0, results["best_val_loss"]):
        problems.append(f"restored val_loss {results['restored_val_loss']:.4f} != best {results['best_val_loss']:.4f}")
    if results["resumed_epochs"] != [3, 4]:
        problems.append(f"the resumed fit ran epochs {results['resumed_epochs']}, not [3, 4]")
    if results["export_same_class"] != 1.0 or results["export_max_probability_gap"] > 1e-5:
        problems.append("the exported model does not predict what the model predicts")
    if abs(results["keras_f1_macro"] - results["numpy_f1_macro"]) > 1e-4:
        problems.append(f"F1Score {results['keras_f1_macro']:.5f} != macro F1 {results['numpy_f1_macro']:.5f}")
    return problems
