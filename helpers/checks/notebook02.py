"""Exercise checks of notebook 02 (input_fn)."""

from __future__ import annotations

import math
import numbers

from ..problems import CheckFailed
from .common import correct, require_answer

__all__ = ["steps_in_one_epoch", "dict_input_fn", "int_labels_input_fn"]


def steps_in_one_epoch(answer, examples: int = 60000, batch_size: int = 128) -> None:
    """Notebook 02, exercise 1: steps in one epoch of ``examples`` at ``batch_size``."""
    require_answer(answer, "steps_in_one_epoch")
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        raise CheckFailed(f"`steps_in_one_epoch` should be a number, not {type(answer).__name__}")
    expected = math.ceil(examples / batch_size)
    remainder = examples % batch_size
    if not float(answer).is_integer():
        raise CheckFailed(f"{float(answer):.2f} is not a whole number of steps: each step trains one batch, "
                          "and the last, shorter batch is a step too, so round up")
    answer = int(answer)
    if answer == expected:
        tail = f", the last one with {remainder} examples" if remainder else ""
        correct(f"{examples} examples in batches of {batch_size} make {expected} steps{tail}")
    elif remainder and answer == examples // batch_size:
        raise CheckFailed(f"{answer} leaves out the last, shorter batch of {remainder} examples: without "
                          "drop_remainder=True it is a step too, so round up")
    elif answer == examples:
        raise CheckFailed(f"{answer} is the number of examples: one step trains a whole batch of {batch_size}")
    else:
        raise CheckFailed(f"{answer} is not it: divide the number of training examples by the batch size and round up")


def dict_input_fn(answer, name: str = "dict_input_fn") -> None:
    """Notebook 02, exercise 2: call the fixed input_fn as the Estimator would and check its dataset against what
    ``cnn_model_fn`` reads; only the first batch is read, nothing is trained."""
    require_answer(answer, name)
    import tensorflow as tf
    if isinstance(answer, tf.data.Dataset):
        raise CheckFailed(f"`{name}` is a Dataset: give the function that returns it (`def {name}(): ...`), "
                          "because the Estimator calls the input_fn itself, inside its own graph")
    if not callable(answer):
        raise CheckFailed(f"`{name}` should be a function that returns a tf.data.Dataset, not {type(answer).__name__}")
    try:
        dataset = answer()
    except Exception as error:  # the learner's code: report it in one line
        raise CheckFailed(f"calling `{name}()` raised {type(error).__name__}: {_first_line(error)}") from None
    if not isinstance(dataset, tf.data.Dataset):
        raise CheckFailed(f"`{name}()` returned a {type(dataset).__name__}: return a tf.data.Dataset")
    _check_element_spec(dataset.element_spec, name)
    try:
        batch_features, batch_labels = next(iter(dataset))
    except StopIteration:
        raise CheckFailed(f"`{name}()` returned an empty dataset: it yields no batch at all") from None
    except Exception as error:  # reading the files or a map function failed
        raise CheckFailed(f"reading the first batch of `{name}()` raised {type(error).__name__}: "
                          f"{_first_line(error)}") from None
    pixels = batch_features["image"].numpy()
    classes = batch_labels.numpy()
    if len(pixels) != len(classes):
        raise CheckFailed(f"the first batch has {len(pixels)} images but {len(classes)} labels: zip them one to one")
    if pixels.max() > 1.0:
        raise CheckFailed(f"the pixels go up to {pixels.max():.0f}: divide by 255 so that they lie between 0 and 1")
    if pixels.min() < 0.0:
        raise CheckFailed(f"some pixels are negative ({pixels.min():.2f}): the model wants pixels between 0 and 1")
    if classes.min() < 0 or classes.max() > 9:
        raise CheckFailed(f"the labels range from {classes.min()} to {classes.max()}: class ids are 0 to 9")
    correct(f"`{name}()` yields batches of {len(classes)} (features, labels): features['image'] float32 "
            f"[batch, 28, 28] in 0–1 and {classes.dtype.name} class ids, what cnn_model_fn reads")


def int_labels_input_fn(answer) -> None:
    """Notebook 02, exercise 3: the same check, of the input_fn fixed to yield integer class ids as labels."""
    dict_input_fn(answer, "int_labels_input_fn")


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _check_element_spec(spec, name: str) -> None:
    """Features a dict holding ``image`` float32 [batch, 28, 28], labels integer class ids [batch]."""
    import tensorflow as tf
    if isinstance(spec, dict):
        raise CheckFailed(f"each element of `{name}()` is a dict only, with no labels beside it: yield "
                          "(features, labels) pairs, because cnn_model_fn takes the labels as its own argument")
    if not isinstance(spec, tuple) or len(spec) != 2:
        raise CheckFailed(f"each element of `{name}()` should be a pair (features, labels), not {spec}")
    features, labels = spec
    if isinstance(features, tf.TensorSpec):
        raise CheckFailed("the features are a bare tensor, but the model_fn reads features['image'] from a dict "
                          "(section 'What an input function returns')")
    if not isinstance(features, dict):
        raise CheckFailed(f"the features should be a dict {{'image': images}}, not {features}")
    if "image" not in features:
        raise CheckFailed(f"the features dict has the keys {sorted(features)}: the model_fn reads features['image']")
    image = features["image"]
    if not isinstance(image, tf.TensorSpec):
        raise CheckFailed(f"features['image'] should be one tensor, not {image}")
    if image.dtype != tf.float32:
        raise CheckFailed(f"features['image'] is {image.dtype.name}: the model wants float32 pixels "
                          "(cast, then divide by 255)")
    if image.shape.rank == 2 and image.shape[-2:] == (28, 28):
        raise CheckFailed("the elements are single images of shape (28, 28): batch them (for example "
                          ".batch(100)), because the Estimator runs one training step per element")
    if image.shape.rank != 3 or image.shape[1:] != (28, 28):
        raise CheckFailed(f"features['image'] has shape {image.shape}: the model wants [batch, 28, 28]")
    if not isinstance(labels, tf.TensorSpec):
        raise CheckFailed(f"the labels should be one tensor of class ids, not {labels}")
    if labels.shape.rank == 2 and labels.shape[-1] == 10:
        raise CheckFailed(f"the labels are one-hot, shape {labels.shape} {labels.dtype.name}, but the model's loss "
                          "wants one integer class id per image, shape [batch] (section 'What an input function "
                          "returns')")
    if not labels.dtype.is_integer:
        raise CheckFailed(f"the labels are {labels.dtype.name}: the model wants integer class ids (tf.int32)")
    if labels.shape.rank != 1:
        raise CheckFailed(f"the labels have shape {labels.shape}: the model wants one class id per image, "
                          "shape [batch]")
