"""Plumbing for exporting the course CNN and running it outside the Estimator.

Introduced in notebook 08. The notebook writes the serving input receivers and
the conversion calls itself; this module holds the loops and tables around
them:

* ``image_receiver_fn(key)``: a serving input receiver that takes raw images
  float32 [batch, 28, 28] under ``key`` (the notebook shows the same code);
* ``serialize_examples(images)``: images as serialized ``tf.Example`` protos,
  the input of a parsing receiver;
* ``estimator_predictions``: every prediction of ``Estimator.predict`` as arrays;
* ``signature_table``: what ``saved_model_cli show`` prints, as a DataFrame;
* ``saved_model_predictions`` and ``tflite_predictions``: a signature or a
  TF Lite model run over many images in batches;
* ``directory_bytes`` and ``agreement``: sizes and comparisons for the tables.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas is imported where it is used
    import pandas as pd

FEATURE = "image"


def as_text_path(path: str | bytes | os.PathLike) -> str:
    """``export_saved_model`` returns bytes; give the path as text relative to here."""
    from .settings import display_path

    if isinstance(path, bytes):
        path = path.decode()
    return display_path(path)


def image_receiver_fn(key: str = FEATURE) -> Callable[[], object]:
    """A serving input receiver fn: a placeholder float32 [None, 28, 28] fed to the model as ``key``."""
    import tensorflow as tf

    def serving_input_receiver_fn():
        images = tf.compat.v1.placeholder(tf.float32, [None, 28, 28], name=key)
        return tf.estimator.export.ServingInputReceiver({key: images}, {key: images})

    return serving_input_receiver_fn


def scaled(images: np.ndarray) -> np.ndarray:
    """uint8 images (as ``data.load`` gives them) as float32 in 0–1, like the input functions."""
    return np.asarray(images, dtype=np.float32) / np.float32(255.0)


def serialize_examples(images: np.ndarray, key: str = FEATURE) -> list[bytes]:
    """One serialized ``tf.Example`` per image: a float list of 784 pixels under ``key``."""
    import tensorflow as tf

    serialized = []
    for image in np.asarray(images, dtype=np.float32):
        feature = tf.train.Feature(float_list=tf.train.FloatList(value=image.ravel()))
        example = tf.train.Example(features=tf.train.Features(feature={key: feature}))
        serialized.append(example.SerializeToString())
    return serialized


def estimator_predictions(estimator, input_fn, predict_keys=None) -> dict:
    """All predictions of ``estimator.predict`` as ``{key: array}``, batch by batch.

    ``yield_single_examples=False`` yields one dict of arrays per batch; they
    are concatenated here. The generator is read to the end, so it closes
    its graph.
    """
    batches = list(estimator.predict(input_fn, predict_keys=predict_keys, yield_single_examples=False))
    return {key: np.concatenate([batch[key] for batch in batches]) for key in batches[0]}


def _spec_text(spec) -> str:
    shape = spec.shape.as_list() if spec.shape.rank is not None else "unknown"
    shape = "[" + ", ".join("None" if d is None else str(d) for d in shape) + "]" if shape != "unknown" else shape
    return f"{spec.dtype.name} {shape}"


def signature_table(loaded) -> pd.DataFrame:
    """The signatures of a loaded SavedModel: one row per input and per output."""
    import pandas as pd

    rows = []
    for name, function in loaded.signatures.items():
        _, keyword_inputs = function.structured_input_signature
        for key, spec in sorted(keyword_inputs.items()):
            rows.append({"signature": name, "kind": "input", "key": key, "tensor": _spec_text(spec)})
        for key, spec in sorted(function.structured_outputs.items()):
            rows.append({"signature": name, "kind": "output", "key": key, "tensor": _spec_text(spec)})
    return pd.DataFrame(rows)


def saved_model_predictions(signature, images, key: str = FEATURE, batch_size: int = 1000) -> dict:
    """Call a SavedModel signature on ``images`` in batches; return ``{output: array}``."""
    import tensorflow as tf

    outputs = {}
    for start in range(0, len(images), batch_size):
        batch = tf.constant(images[start:start + batch_size])
        for name, value in signature(**{key: batch}).items():
            outputs.setdefault(name, []).append(value.numpy())
    return {name: np.concatenate(parts) for name, parts in outputs.items()}


def tflite_predictions(model_content: bytes, images, batch_size: int = 1000) -> dict:
    """Run a TF Lite model (one float input of shape [batch, 28, 28]) over ``images`` in batches.

    The interpreter's input is built for one batch size; it is resized to
    ``batch_size`` once (and to the last, shorter batch), then
    ``set_tensor`` / ``invoke`` / ``get_tensor`` run each batch. The outputs
    are named by the model's ``serving_default`` signature.
    """
    import tensorflow as tf

    interpreter = tf.lite.Interpreter(model_content=model_content)
    output_indices = {name: details["index"] for name, details in
                      interpreter.get_signature_runner("serving_default").get_output_details().items()}
    input_index = interpreter.get_input_details()[0]["index"]
    outputs, current = {}, None
    for start in range(0, len(images), batch_size):
        batch = np.asarray(images[start:start + batch_size], dtype=np.float32)
        if current != len(batch):
            interpreter.resize_tensor_input(input_index, list(batch.shape))
            interpreter.allocate_tensors()
            current = len(batch)
        interpreter.set_tensor(input_index, batch)
        interpreter.invoke()
        for name, index in output_indices.items():
            outputs.setdefault(name, []).append(interpreter.get_tensor(index).copy())
    return {name: np.concatenate(parts) for name, parts in outputs.items()}


def directory_bytes(path: str | os.PathLike) -> int:
    """The total size of the files under ``path`` (or of the file ``path``)."""
    path = Path(path)
    if path.is_file():
        return path.stat().st_size
    return sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(path) for name in names)


def agreement(reference: dict, other: dict) -> dict:
    """How far ``other``'s predictions are from ``reference``'s: same class share and largest probability gap."""
    same = float(np.mean(reference["classes"] == other["classes"]))
    gap = float(np.max(np.abs(reference["probabilities"] - other["probabilities"])))
    return {"same class": same, "differing": int(np.sum(reference["classes"] != other["classes"])),
            "max |Δ probability|": gap}


@contextlib.contextmanager
def quiet_native_stderr() -> Iterator[None]:
    """Send what C++ code writes to the process's stderr (file descriptor 2) to nowhere, for a block.

    The TF Lite converter prints a "Summary on the non-converted ops" there,
    which Jupyter shows as cell output. Python exceptions (a failed
    conversion's ``ConverterError`` and its message) are not affected.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(devnull)
        os.close(saved)
