"""Exercise checks of notebook 02 (input_fn)."""

from __future__ import annotations

import math
import numbers

from ..problems import CheckFailed
from .common import correct, reporting_learner_errors, require_answer

__all__ = ["steps_for_epochs", "eval_input_fn", "class_id_input_fn"]


@reporting_learner_errors
def steps_for_epochs(answer, examples: int = 60000, batch_size: int = 256, epochs: int = 3) -> None:
    """Notebook 02, exercise 1: the steps of ``epochs`` epochs of ``examples``, repeated before
    batching."""
    require_answer(answer, "steps_for_three_epochs")
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        raise CheckFailed(
            f"`steps_for_three_epochs` should be a number, not {type(answer).__name__}"
        )
    total = epochs * examples
    expected = math.ceil(total / batch_size)
    if not float(answer).is_integer():
        raise CheckFailed(
            f"{float(answer):.3f} is not a whole number of steps: each step trains "
            "one batch, and a last, shorter batch is a step too, so round up"
        )
    answer = int(answer)
    per_epoch = math.ceil(examples / batch_size)
    if answer == expected:
        left = total % batch_size
        tail = f"; only the very last batch is short ({left} examples)" if left else ""
        correct(
            f"{epochs} × {examples} examples, repeated and then "
            f"batched by {batch_size}, make {expected} steps{tail}"
        )
    elif answer == epochs * per_epoch:
        raise CheckFailed(
            f"{answer} counts a short batch at the end of every "
            "epoch, which is what batch-then-repeat gives; this "
            "input function repeats first (section '`repeat`')"
        )
    elif answer == total // batch_size:
        raise CheckFailed(
            f"{answer} leaves out the last, shorter batch: without "
            "drop_remainder=True it is a step too, so round up"
        )
    elif answer in (per_epoch, examples // batch_size):
        raise CheckFailed(
            f"{answer} is about one epoch: the input function goes through the data {epochs} times"
        )
    elif answer in (examples, total):
        raise CheckFailed(
            f"{answer} is a number of examples: one step trains a whole batch of {batch_size}"
        )
    else:
        raise CheckFailed(
            f"{answer} is not it: count the examples all the epochs hold together, "
            "then the batches they make"
        )


def _dataset_of(answer, name: str):
    """Call the learner's input function as the Estimator would; one line per way it can fail."""
    require_answer(answer, name)
    import tensorflow as tf

    if isinstance(answer, tf.data.Dataset):
        raise CheckFailed(
            f"`{name}` is a Dataset: give the function that returns "
            f"it (`def {name}(): ...`), because the Estimator calls "
            "the input_fn itself, inside its own graph"
        )
    if not callable(answer):
        raise CheckFailed(
            f"`{name}` should be a function that returns a "
            f"tf.data.Dataset, not {type(answer).__name__}"
        )
    try:
        dataset = answer()
    except Exception as error:  # the learner's code: report it in one line
        raise CheckFailed(
            f"calling `{name}()` raised {type(error).__name__}: {_first_line(error)}"
        ) from None
    if not isinstance(dataset, tf.data.Dataset):
        raise CheckFailed(
            f"`{name}()` returned a {type(dataset).__name__}: return a tf.data.Dataset"
        )
    _check_element_spec(dataset.element_spec, name)
    return dataset


def _batches(dataset, name: str, limit: int):
    """(pixels, labels) of the dataset's batches, at most ``limit`` examples and one batch more."""
    read, count = [], 0
    try:
        for features, labels in dataset:
            read.append((features["image"].numpy(), labels.numpy()))
            count += len(read[-1][1])
            if count > limit:
                break
    except Exception as error:  # reading the files or a map function failed
        raise CheckFailed(
            f"reading the batches of `{name}()` raised {type(error).__name__}: {_first_line(error)}"
        ) from None
    if not read:
        raise CheckFailed(f"`{name}()` returned an empty dataset: it yields no batch at all")
    for pixels, classes in read[:1]:
        if len(pixels) != len(classes):
            raise CheckFailed(
                f"the first batch has {len(pixels)} images but {len(classes)} "
                "labels: zip them one to one"
            )
        if pixels.max() > 1.0:
            raise CheckFailed(
                f"the pixels go up to {pixels.max():.0f}: the model wants them between 0 and 1"
            )
        if pixels.min() < 0.0:
            raise CheckFailed(
                f"some pixels are negative ({pixels.min():.2f}): "
                "the model wants them between 0 and 1"
            )
    return read


@reporting_learner_errors
def eval_input_fn(
    answer, dataset, other, batch_size: int = 300, name: str = "fashion_eval_input_fn"
) -> None:
    """Notebook 02, exercise 2: an evaluation input over ``dataset``'s test split: every image once,
    in order, in batches of ``batch_size``; ``other`` is the dataset a learner may have read by
    mistake."""
    import numpy as np

    data = _dataset_of(answer, name)
    expected = np.asarray(dataset.test_labels)
    read = _batches(data, name, limit=len(expected))
    labels = np.concatenate([classes for _, classes in read])
    sizes = [len(classes) for _, classes in read]
    if len(labels) > len(expected):
        split = (
            "the training split"
            if np.array_equal(labels[: len(expected)], dataset.train_labels[: len(expected)])
            else "it repeats"
        )
        raise CheckFailed(
            f"`{name}()` yields more than the {len(expected)} test "
            f"images ({split}): an evaluation input makes one pass "
            "over the test split, or evaluate() never returns"
        )
    if sizes[0] != batch_size:
        raise CheckFailed(
            f"the first batch holds {sizes[0]} images: the "
            f"exercise asks for batches of {batch_size}"
        )
    if len(labels) < len(expected):
        raise CheckFailed(
            f"`{name}()` yields {len(labels)} of the {len(expected)} "
            "test images: an evaluation that leaves out images "
            "(drop_remainder=True, take) measures less than the test set"
        )
    if np.array_equal(labels, expected):
        correct(
            f"{len(sizes)} batches of {batch_size} (the last of {sizes[-1]}), every test image "
            "once and in order: evaluate() returns after one pass"
        )
    elif np.array_equal(labels, np.asarray(other.test_labels)[: len(labels)]):
        raise CheckFailed(
            f"these are the labels of {other.name}'s test split: read {dataset.name}'s"
        )
    elif np.array_equal(np.sort(labels), np.sort(expected)):
        raise CheckFailed(
            "every test image is there but in another order: an "
            "evaluation input does not shuffle (section 'Train, "
            "evaluate and predict: three input functions')"
        )
    else:
        raise CheckFailed(
            f"the labels are not those of {dataset.name}'s test split: read its test "
            "split, in the order of its files"
        )


@reporting_learner_errors
def class_id_input_fn(answer, one_hot_input_fn, name: str = "class_id_input_fn") -> None:
    """Notebook 02, exercise 3: ``one_hot_input_fn``'s batches with each one-hot label turned back
    into its class id."""
    import numpy as np

    data = _dataset_of(answer, name)
    features, labels = data.element_spec
    if labels.shape.rank == 1 and labels.shape[0] == 10 and features["image"].shape[0] != 10:
        raise CheckFailed(
            "the labels are 10 numbers whatever the batch size: tf.argmax reduced "
            "over the batch (its default axis 0), not over each label's ten classes"
        )
    pixels, classes = _batches(data, name, limit=1)[0]
    reference = next(iter(one_hot_input_fn()))[1].numpy()
    if len(classes) != len(reference):
        raise CheckFailed(
            f"the first batch holds {len(classes)} labels, one_hot_input_fn()'s "
            f"{len(reference)}: keep its batches as they are"
        )
    if not np.array_equal(classes, reference.argmax(axis=1)):
        raise CheckFailed(
            "the labels of the first batch are not the classes of "
            "one_hot_input_fn()'s first batch: convert its labels, in its order"
        )
    correct(
        f"`{name}()` yields the same batches with {classes.dtype.name} class ids, shape "
        "[batch]: what the model's loss reads"
    )


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _check_element_spec(spec, name: str) -> None:
    """Features a dict holding ``image`` float32 [batch, 28, 28], labels int class ids [batch]."""
    import tensorflow as tf

    if isinstance(spec, dict):
        raise CheckFailed(
            f"each element of `{name}()` is a dict only, with no "
            "labels beside it: yield (features, labels) pairs, "
            "because cnn_model_fn takes the labels as its own argument"
        )
    if not isinstance(spec, tuple) or len(spec) != 2:
        raise CheckFailed(
            f"each element of `{name}()` should be a pair (features, labels), not {spec}"
        )
    features, labels = spec
    if isinstance(features, tf.TensorSpec):
        raise CheckFailed(
            "the features are a bare tensor, but the "
            "model_fn reads features['image'] from a dict "
            "(section 'What an input function returns')"
        )
    if not isinstance(features, dict):
        raise CheckFailed(f"the features should be a dict {{'image': images}}, not {features}")
    if "image" not in features:
        raise CheckFailed(
            f"the features dict has the keys {sorted(features)}: "
            "the model_fn reads features['image']"
        )
    image = features["image"]
    if not isinstance(image, tf.TensorSpec):
        raise CheckFailed(f"features['image'] should be one tensor, not {image}")
    if image.dtype != tf.float32:
        raise CheckFailed(
            f"features['image'] is {image.dtype.name}: the model wants float32 "
            "pixels (cast, then divide by 255)"
        )
    if image.shape.rank == 2 and image.shape[-2:] == (28, 28):
        raise CheckFailed(
            "the elements are single images of shape (28, 28): "
            "batch them (for example .batch(100)), because the "
            "Estimator runs one training step per element"
        )
    if image.shape.rank != 3 or image.shape[1:] != (28, 28):
        raise CheckFailed(
            f"features['image'] has shape {image.shape}: the model wants [batch, 28, 28]"
        )
    if not isinstance(labels, tf.TensorSpec):
        raise CheckFailed(f"the labels should be one tensor of class ids, not {labels}")
    if labels.shape.rank == 2 and labels.shape[-1] == 10:
        raise CheckFailed(
            f"the labels are one-hot, shape {labels.shape} {labels.dtype.name}, but "
            "the model's loss wants one integer class id per image, shape [batch] "
            "(section 'What an input function returns')"
        )
    if not labels.dtype.is_integer:
        raise CheckFailed(
            f"the labels are {labels.dtype.name}: the model wants integer class ids (tf.int32)"
        )
    if labels.shape.rank != 1:
        raise CheckFailed(
            f"the labels have shape {labels.shape}: the model "
            "wants one class id per image, shape [batch]"
        )
