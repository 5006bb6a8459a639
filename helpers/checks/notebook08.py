"""Exercise checks of notebook 08 (predict, export, TF Lite)."""

from __future__ import annotations

import os
import types

import numpy as np

from ..problems import CheckFailed
from .common import correct, require_answer

__all__ = ["fixed_serving_export", "batch_probabilities"]

PROBABILITY_TOLERANCE = 1e-5  # exercise 2: how far the answer's probabilities may be from the Estimator's


def fixed_serving_export(answer, images, classes) -> None:
    """Notebook 08, exercise 1: a SavedModel whose serving signature takes raw images and predicts ``classes``."""
    require_answer(answer, "fixed_export_dir")
    import tensorflow as tf

    answer = answer.decode() if isinstance(answer, bytes) else answer
    if not isinstance(answer, (str, os.PathLike)):
        raise CheckFailed(f"`fixed_export_dir` should be the export directory (the path export_saved_model returns), "
                          f"not a {type(answer).__name__}")
    if not os.path.isfile(os.path.join(answer, "saved_model.pb")):
        raise CheckFailed(f"there is no saved_model.pb in {answer!s}: give the path that export_saved_model returned")
    loaded = tf.saved_model.load(str(answer))
    if "serving_default" not in loaded.signatures:
        raise CheckFailed("the SavedModel has no serving_default signature: export the course CNN's model_fn")
    signature = loaded.signatures["serving_default"]
    _, keyword_inputs = signature.structured_input_signature
    if len(keyword_inputs) != 1:
        raise CheckFailed(f"the serving signature takes {len(keyword_inputs)} inputs ({sorted(keyword_inputs)}): "
                          "give it one, the images")
    (key, spec), = keyword_inputs.items()
    if spec.dtype != tf.float32 or spec.shape.as_list()[1:] != [28, 28]:
        raise CheckFailed(f"the serving input {key!r} is {spec.dtype.name} {spec.shape}: it should take raw images, "
                          "float32 [None, 28, 28]")
    outputs = signature(**{key: tf.constant(np.asarray(images, dtype=np.float32))})
    if "classes" not in outputs:
        raise CheckFailed(f"the signature returns {sorted(outputs)}, not 'classes': export the course CNN")
    got, classes = outputs["classes"].numpy(), np.asarray(classes)
    if not np.array_equal(got, classes):
        raise CheckFailed(f"the SavedModel predicts a different class for {int(np.sum(got != classes))} of "
                          f"{len(got)} test digits: export the trained `estimator` (not a new one)")
    correct(f"the serving input {key!r} feeds the model's feature 'image'; the SavedModel predicts the "
            f"Estimator's classes on all {len(got)} digits")


def batch_probabilities(answer, reference) -> None:
    """Notebook 08, exercise 2: the probabilities of the first N test digits as one array [N, 10]."""
    require_answer(answer, "first_probabilities")
    reference = np.asarray(reference)
    count = len(reference)
    if isinstance(answer, types.GeneratorType):
        raise CheckFailed("`first_probabilities` is still a generator: predict only runs when you read it; "
                          "read all its batches and np.concatenate them")
    if isinstance(answer, dict):
        raise CheckFailed(f"`first_probabilities` is a dict (keys {sorted(answer)}): "
                          "keep only its 'probabilities' array")
    if isinstance(answer, (list, tuple)) and answer and isinstance(answer[0], dict):
        raise CheckFailed(f"`first_probabilities` is a list of {len(answer)} dicts: put their 'probabilities' together "
                          "into one array (np.concatenate for batches, np.stack for single digits)")
    try:
        array = np.asarray(answer, dtype=np.float64)
    except (TypeError, ValueError):
        raise CheckFailed(f"`first_probabilities` should be a NumPy array of shape ({count}, 10), "
                          f"not a {type(answer).__name__}") from None
    if array.shape != (count, 10):
        raise CheckFailed(f"`first_probabilities` has shape {array.shape}, expected ({count}, 10): "
                          "one row of ten per digit")
    gap = float(np.max(np.abs(array - reference)))
    if gap > PROBABILITY_TOLERANCE:
        raise CheckFailed(f"`first_probabilities` differs from the Estimator's probabilities by up to {gap:.3g}: "
                          f"predict the first {count} test digits, in order, with the trained `estimator`")
    correct(f"one array of shape ({count}, 10), equal to the Estimator's probabilities "
            f"(within {PROBABILITY_TOLERANCE:g})")
