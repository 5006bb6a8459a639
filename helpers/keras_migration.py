"""Plumbing for notebook 10's Keras side: the test digits as arrays, a small training set, ``model.export``.

Introduced in notebook 10, which writes the lesson itself — the course CNN as
a ``keras.Model``, the callbacks, ``EarlyStopping``, ``BackupAndRestore`` — in
its cells. Those cells (tagged ``keras-latest``) also run on the newest
TensorFlow, where ``keras`` is Keras 3 (``make keras-latest``), and so does
this module: it imports neither ``tf.estimator`` nor ``helpers.models`` /
``helpers.course_setup`` (they need TensorFlow 2.15).

* ``test_arrays``: the test images and labels as NumPy arrays, read through
  ``helpers.inputs``;
* ``small_train_dataset``: the first training digits, one pass per epoch (the
  run that overfits, for ``EarlyStopping``);
* ``export_model``, ``serve_signature``, ``exported_predictions``:
  ``model.export`` and the reloaded SavedModel's ``serve`` endpoint, which
  Keras 2.15 and Keras 3 print and call differently.
"""

from __future__ import annotations

import contextlib
import inspect
import io

import numpy as np
import tensorflow as tf

from . import inputs
from .settings import SEED


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


def export_model(model, path) -> str:
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
