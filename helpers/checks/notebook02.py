"""Exercise checks of notebook 02 (input_fn)."""

from __future__ import annotations

import math
import numbers
import sys

from ..language import _
from ..problems import CheckFailed
from .common import correct, fail, reporting_learner_errors, require_answer

__all__ = ["steps_for_epochs", "eval_input_fn", "class_id_input_fn"]


@reporting_learner_errors
def steps_for_epochs(answer, examples: int = 60000, batch_size: int = 256, epochs: int = 3) -> None:
    """Notebook 02, exercise 1: the steps of ``epochs`` epochs of ``examples``, repeated before
    batching."""
    require_answer(answer, "steps_for_three_epochs")
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        fail("`steps_for_three_epochs` should be a number, not {kind}", kind=type(answer).__name__)
    total = epochs * examples
    expected = math.ceil(total / batch_size)
    if not float(answer).is_integer():
        fail(
            "{answer:.3f} is not a whole number of steps: each step trains one batch, and a "
            "last, shorter batch is a step too, so round up",
            answer=float(answer),
        )
    answer = int(answer)
    per_epoch = math.ceil(examples / batch_size)
    values = dict(
        answer=answer, epochs=epochs, examples=examples, batch_size=batch_size, steps=expected
    )
    if answer == expected and total % batch_size:
        correct(
            "{epochs} × {examples} examples, repeated and then batched by {batch_size}, make "
            "{steps} steps; only the very last batch is short ({short} examples)",
            short=total % batch_size,
            **values,
        )
    elif answer == expected:
        correct(
            "{epochs} × {examples} examples, repeated and then batched by {batch_size}, make "
            "{steps} steps",
            **values,
        )
    elif answer == epochs * per_epoch:
        fail(
            "{answer} counts a short batch at the end of every epoch, which is what "
            "batch-then-repeat gives; this input function repeats first (section "
            "'`repeat`')",
            **values,
        )
    elif answer == total // batch_size:
        fail(
            "{answer} leaves out the last, shorter batch: without drop_remainder=True it is a "
            "step too, so round up",
            **values,
        )
    elif answer in (per_epoch, examples // batch_size):
        fail(
            "{answer} is about one epoch: the input function goes through the data {epochs} times",
            **values,
        )
    elif answer in (examples, total):
        fail(
            "{answer} is a number of examples: one step trains a whole batch of {batch_size}",
            **values,
        )
    else:
        fail(
            "{answer} is not it: count the examples all the epochs hold together, then the "
            "batches they make",
            **values,
        )


def _dataset_of(answer, name: str, watched=frozenset()):
    """Call the learner's input function as the Estimator would: its dataset, and whether any of the
    ``watched`` code objects ran during the call; one line per way the call can fail."""
    require_answer(answer, name)
    import tensorflow as tf

    if isinstance(answer, tf.data.Dataset):
        fail(
            "`{name}` is a Dataset: give the function that returns it (`def {name}(): ...`), "
            "because the Estimator calls the input_fn itself, inside its own graph",
            name=name,
        )
    if not callable(answer):
        fail(
            "`{name}` should be a function that returns a tf.data.Dataset, not {kind}",
            name=name,
            kind=type(answer).__name__,
        )
    ran = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in watched:
            ran.append(frame.f_code)

    previous = sys.getprofile()
    sys.setprofile(profile if watched else previous)
    try:
        dataset = answer()
    except Exception as error:  # the learner's code: report it in one line
        raise CheckFailed(
            _("calling `{name}()` raised {kind}: {first_line}").format(
                name=name, kind=type(error).__name__, first_line=_first_line(error)
            )
        ) from None
    finally:
        sys.setprofile(previous)
    if not isinstance(dataset, tf.data.Dataset):
        fail(
            "`{name}()` returned a {kind}: return a tf.data.Dataset",
            name=name,
            kind=type(dataset).__name__,
        )
    return dataset, bool(ran)


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
            _("reading the batches of `{name}()` raised {kind}: {first_line}").format(
                name=name, kind=type(error).__name__, first_line=_first_line(error)
            )
        ) from None
    if not read:
        fail("`{name}()` returned an empty dataset: it yields no batch at all", name=name)
    for pixels, classes in read[:1]:
        if len(pixels) != len(classes):
            fail(
                "the first batch has {images} images but {labels} labels: zip them one to one",
                images=len(pixels),
                labels=len(classes),
            )
        if pixels.max() > 1.0:
            fail(
                "the pixels go up to {highest:.4g}: the model wants them between 0 and 1",
                highest=float(pixels.max()),
            )
        if pixels.min() < 0.0:
            fail(
                "some pixels are negative ({lowest:.2f}): the model wants them between 0 and 1",
                lowest=float(pixels.min()),
            )
    return read


@reporting_learner_errors
def eval_input_fn(
    answer, dataset, other, batch_size: int = 300, name: str = "fashion_eval_input_fn"
) -> None:
    """Notebook 02, exercise 2: an evaluation input over ``dataset``'s test split: every image once,
    in order, in batches of ``batch_size``, built without ``inputs.make_eval_input_fn`` (the
    exercise asks for it from ``inputs.image_dataset``); ``other`` is the dataset a learner may
    have read by mistake."""
    import numpy as np

    from .. import inputs

    # the course's helper, and the input function it returns, are what the exercise rules out
    helper = {inputs.make_eval_input_fn.__code__, inputs.make_eval_input_fn().__code__}
    data, used_helper = _dataset_of(answer, name, helper)
    if used_helper:
        fail(
            "`{name}()` gets its batches from inputs.make_eval_input_fn, which the exercise "
            "asks you to do without: build them yourself from inputs.image_dataset and the "
            "steps this notebook took on it "
            "(section 'The course's input functions are exactly this')",
            name=name,
        )
    _check_element_spec(data.element_spec, name)
    expected = np.asarray(dataset.test_labels)
    read = _batches(data, name, limit=len(expected))
    labels = np.concatenate([classes for _pixels, classes in read])
    sizes = [len(classes) for _pixels, classes in read]
    values = dict(
        name=name,
        test_images=len(expected),
        yielded=len(labels),
        first=sizes[0],
        last=sizes[-1],
        batches=len(sizes),
        batch_size=batch_size,
        dataset=dataset.name,
        other=other.name,
    )
    if len(labels) > len(expected) and np.array_equal(
        labels[: len(expected)], dataset.train_labels[: len(expected)]
    ):
        fail(
            "`{name}()` yields more than the {test_images} test images (the training split): "
            "an evaluation input makes one pass over the test split, or evaluate() never "
            "returns",
            **values,
        )
    if len(labels) > len(expected):
        fail(
            "`{name}()` yields more than the {test_images} test images (it repeats): an "
            "evaluation input makes one pass over the test split, or evaluate() never "
            "returns",
            **values,
        )
    if sizes[0] != batch_size:
        fail(
            "the first batch holds {first} images: the exercise asks for batches of {batch_size}",
            **values,
        )
    if len(labels) < len(expected):
        fail(
            "`{name}()` yields {yielded} of the {test_images} test images: an evaluation that "
            "leaves out images (drop_remainder=True, take) measures less than the whole "
            "test set",
            **values,
        )
    if np.array_equal(labels, expected):
        correct(
            "{batches} batches of {batch_size} (the last of {last}), every test image once and "
            "in order: evaluate() returns after one pass",
            **values,
        )
    elif np.array_equal(labels, np.asarray(other.test_labels)[: len(labels)]):
        fail("these are the labels of {other}'s test split: read {dataset}'s", **values)
    elif np.array_equal(np.sort(labels), np.sort(expected)):
        fail(
            "every test image is there but in another order: an evaluation input does not "
            "shuffle (section 'Train, evaluate and predict: three input functions')"
        )
    else:
        fail(
            "the labels are not those of {dataset}'s test split: read its test split, in the "
            "order of its files",
            **values,
        )


@reporting_learner_errors
def class_id_input_fn(answer, one_hot_input_fn, name: str = "class_id_input_fn") -> None:
    """Notebook 02, exercise 3: ``one_hot_input_fn``'s batches with each one-hot label turned back
    into its class id; the answer must call ``one_hot_input_fn`` (the exercise converts its
    batches, it does not read the data again)."""
    import numpy as np

    given = getattr(one_hot_input_fn, "__code__", None)
    data, used_given = _dataset_of(answer, name, {given} if given else frozenset())
    if given and not used_given:
        fail(
            "`{name}()` never calls one_hot_input_fn(): the exercise asks for its batches as "
            "they are, read inside your function, with each one-hot label turned back into its "
            "class id",
            name=name,
        )
    _check_element_spec(data.element_spec, name)
    features, labels = data.element_spec
    if labels.shape.rank == 1 and labels.shape[0] == 10 and features["image"].shape[0] != 10:
        fail(
            "the labels are 10 numbers whatever the batch size: tf.argmax reduced over the "
            "batch (its default axis 0), not over each label's ten classes"
        )
    pixels, classes = _batches(data, name, limit=1)[0]
    reference = next(iter(one_hot_input_fn()))[1].numpy()
    if len(classes) != len(reference):
        fail(
            "the first batch holds {labels} labels, one_hot_input_fn()'s {given}: keep its "
            "batches as they are",
            labels=len(classes),
            given=len(reference),
        )
    if not np.array_equal(classes, reference.argmax(axis=1)):
        fail(
            "the labels of the first batch are not the classes of one_hot_input_fn()'s first "
            "batch: convert its labels, in its order"
        )
    rolled = _classes_with_rolled_labels(answer, one_hot_input_fn, name)
    if rolled is not None and not np.array_equal(rolled, (reference.argmax(axis=1) + 1) % 10):
        fail(
            "`{name}()` calls one_hot_input_fn() but its labels do not come from it: the check "
            "gave it batches whose one-hot labels were changed, and your class ids did not "
            "change; build the dataset you return from the batches one_hot_input_fn() returns",
            name=name,
        )
    correct(
        "`{name}()` yields the same batches with {dtype} class ids, shape [batch]: what the "
        "model's loss reads",
        name=name,
        dtype=classes.dtype.name,
    )


def _classes_with_rolled_labels(answer, one_hot_input_fn, name: str):
    """The class ids of the answer's first batch when the ``one_hot_input_fn`` it reads by name
    gives each one-hot label rolled by one class; None when it reads it by no global name."""
    import tensorflow as tf

    namespace = getattr(answer, "__globals__", {})
    code, read = getattr(answer, "__code__", None), set()
    pending = [code] if code else []
    while pending:  # the global names the answer's code and the functions inside it read
        code = pending.pop()
        read.update(code.co_names)
        pending.extend(const for const in code.co_consts if hasattr(const, "co_names"))
    names = [key for key in read if namespace.get(key) is one_hot_input_fn]
    if not names:  # reached through a closure or another function: not swapped, not judged
        return None

    def rolled(*args, **kwargs):
        return one_hot_input_fn(*args, **kwargs).map(
            lambda features, labels: (features, tf.roll(labels, 1, axis=1))
        )

    try:
        namespace.update(dict.fromkeys(names, rolled))
        return _batches(answer(), name, limit=1)[0][1]
    finally:
        namespace.update(dict.fromkeys(names, one_hot_input_fn))


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _check_element_spec(spec, name: str) -> None:
    """Features a dict holding ``image`` float32 [batch, 28, 28], labels int class ids [batch]."""
    import tensorflow as tf

    if isinstance(spec, dict):
        fail(
            "each element of `{name}()` is a dict only, with no labels beside it: yield "
            "(features, labels) pairs, because cnn_model_fn takes the labels as its own "
            "argument",
            name=name,
        )
    if not isinstance(spec, tuple) or len(spec) != 2:
        fail(
            "each element of `{name}()` should be a pair (features, labels), not {spec}",
            name=name,
            spec=spec,
        )
    features, labels = spec
    if isinstance(features, tf.TensorSpec):
        fail(
            "the features are a bare tensor, but the model_fn reads features['image'] from a "
            "dict (section 'What an input function returns')"
        )
    if not isinstance(features, dict):
        fail("the features should be a dict {{'image': images}}, not {features}", features=features)
    if "image" not in features:
        fail(
            "the features dict has the keys {keys}: the model_fn reads features['image']",
            keys=sorted(features),
        )
    image = features["image"]
    if not isinstance(image, tf.TensorSpec):
        fail("features['image'] should be one tensor, not {image}", image=image)
    if image.dtype != tf.float32:
        fail(
            "features['image'] is {dtype}: the model wants float32 pixels (cast, then divide "
            "by 255)",
            dtype=image.dtype.name,
        )
    if image.shape.rank == 2 and image.shape[-2:] == (28, 28):
        fail(
            "the elements are single images of shape (28, 28): batch them (for example "
            ".batch(100)), because the Estimator runs one training step per element"
        )
    if image.shape.rank != 3 or image.shape[1:] != (28, 28):
        fail(
            "features['image'] has shape {shape}: the model wants [batch, 28, 28]",
            shape=image.shape,
        )
    if not isinstance(labels, tf.TensorSpec):
        fail("the labels should be one tensor of class ids, not {labels}", labels=labels)
    if labels.shape.rank == 2 and labels.shape[-1] == 10:
        fail(
            "the labels are one-hot, shape {shape} {dtype}, but the model's loss wants one "
            "integer class id per image, shape [batch] (section 'What an input function "
            "returns')",
            shape=labels.shape,
            dtype=labels.dtype.name,
        )
    if not labels.dtype.is_integer:
        fail(
            "the labels are {dtype}: the model wants integer class ids (tf.int32)",
            dtype=labels.dtype.name,
        )
    if labels.shape.rank != 1:
        fail(
            "the labels have shape {shape}: the model wants one class id per image, shape [batch]",
            shape=labels.shape,
        )
