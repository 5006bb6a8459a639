"""Exercise checks of notebook 08 (predict, export, TF Lite)."""

from __future__ import annotations

import os
import types

import numpy as np

from ..problems import CheckFailed
from .common import correct, reporting_learner_errors, require_answer

__all__ = ["fixed_serving_export", "first_wrong_digit"]


@reporting_learner_errors
def fixed_serving_export(answer, images, classes, client_key: str = "pixels") -> None:
    """Notebook 08, exercise 1: a SavedModel whose serving signature takes raw images under
    ``client_key`` (what the clients send) and predicts ``classes``."""
    require_answer(answer, "fixed_export_dir")
    import tensorflow as tf

    answer = answer.decode() if isinstance(answer, bytes) else answer
    if not isinstance(answer, (str, os.PathLike)):
        raise CheckFailed(
            "`fixed_export_dir` should be the export directory (the path "
            f"export_saved_model returns), not a {type(answer).__name__}"
        )
    if not os.path.isfile(os.path.join(answer, "saved_model.pb")):
        raise CheckFailed(
            f"there is no saved_model.pb in {answer!s}: give the path that "
            "export_saved_model returned"
        )
    loaded = tf.saved_model.load(str(answer))
    if "serving_default" not in loaded.signatures:
        raise CheckFailed(
            "the SavedModel has no serving_default signature: export the course CNN's model_fn"
        )
    signature = loaded.signatures["serving_default"]
    _, keyword_inputs = signature.structured_input_signature
    if len(keyword_inputs) != 1:
        raise CheckFailed(
            f"the serving signature takes {len(keyword_inputs)} inputs "
            f"({sorted(keyword_inputs)}): give it one, the images"
        )
    ((key, spec),) = keyword_inputs.items()
    if spec.dtype != tf.float32 or spec.shape.as_list()[1:] != [28, 28]:
        raise CheckFailed(
            f"the serving input {key!r} is {spec.dtype.name} {spec.shape}: it should "
            "take raw images, float32 [None, 28, 28]"
        )
    if key != client_key:
        raise CheckFailed(
            f"the serving input is called {key!r}, but the clients send "
            f"{client_key!r} and must not have to change: the name the caller uses "
            "and the feature the model reads are two things"
        )
    outputs = signature(**{key: tf.constant(np.asarray(images, dtype=np.float32))})
    if "classes" not in outputs:
        raise CheckFailed(
            f"the signature returns {sorted(outputs)}, not 'classes': export the course CNN"
        )
    got, classes = outputs["classes"].numpy(), np.asarray(classes)
    if not np.array_equal(got, classes):
        raise CheckFailed(
            "the SavedModel predicts a different class for "
            f"{int(np.sum(got != classes))} of {len(got)} test digits: export the "
            "trained `estimator` (not a new one)"
        )
    correct(
        f"the serving input {key!r} feeds the model's feature 'image'; the SavedModel predicts "
        f"the Estimator's classes on all {len(got)} digits"
    )


@reporting_learner_errors
def first_wrong_digit(answer, labels, classes) -> None:
    """Notebook 08, exercise 2: the position of the first test digit the Estimator classifies
    wrongly (``classes`` are its predictions), read from a generator that was then closed."""
    require_answer(answer, "first_wrong")
    import tensorflow as tf

    labels, classes = np.asarray(labels), np.asarray(classes)
    if isinstance(answer, types.GeneratorType):
        raise CheckFailed(
            "`first_wrong` is a generator: predict only runs when you read it; read "
            "it until the first mistake and keep that digit's position"
        )
    if isinstance(answer, dict):
        raise CheckFailed(
            f"`first_wrong` is a prediction (a dict with the keys {sorted(answer)}): "
            "keep the position of the digit in the test set instead"
        )
    if isinstance(answer, np.ndarray) and answer.size == 1:
        answer = answer.item()
    if isinstance(answer, bool) or not isinstance(answer, (int, np.integer)):
        raise CheckFailed(
            f"`first_wrong` should be a whole number, the position of a test digit, not {answer!r}"
        )
    wrong = np.flatnonzero(classes != labels)
    first, answer = int(wrong[0]), int(answer)
    if answer != first:
        raise CheckFailed(_wrong_position(answer, first, wrong, labels, classes))
    if tf.compat.v1.get_default_graph().finalized:
        raise CheckFailed(
            "the position is right, but the prediction graph is still TensorFlow's "
            "default graph, finalized: a generator you stopped reading is still "
            'open (section "`predict` is a generator")'
        )
    correct(
        f"test digit {first} is the first the model gets wrong (a {int(labels[first])} read as "
        f"a {int(classes[first])}), and no prediction graph was left open"
    )


def _wrong_position(answer: int, first: int, wrong, labels, classes) -> str:
    """What is wrong with ``first_wrong`` = ``answer`` (``first``: the right position, ``wrong``:
    the positions the model gets wrong)."""
    if answer == first + 1:
        return f"`first_wrong` is {answer}, one past it: positions count from 0, as in test_labels"
    if answer == len(wrong):
        return (
            f"`first_wrong` is {answer}, which is how many test digits are wrong; the exercise "
            "asks where the first one is"
        )
    if not 0 <= answer < len(labels):
        last = len(labels) - 1
        return (
            f"`first_wrong` is {answer}, but there is no test digit {answer}: positions run from "
            f"0 to {last}"
        )
    if answer == int(wrong[-1]):
        return f"`first_wrong` is {answer}, the last digit the model gets wrong: stop at the first"
    if classes[answer] != labels[answer]:
        return (
            f"`first_wrong` is {answer}: the model gets test digit {answer} wrong, but an "
            "earlier one too"
        )
    if answer < 10 and answer in (int(labels[first]), int(classes[first])):
        return (
            f"`first_wrong` is {answer}, but the model gets test digit {answer} right; a class or "
            "a label is not a position in the test set"
        )
    predicted = int(classes[answer])
    return (
        f"`first_wrong` is {answer}, but the model classifies test digit {answer} correctly (as "
        f"a {predicted})"
    )
