"""Exercise checks of notebook 08 (predict, export, TF Lite)."""

from __future__ import annotations

import inspect
import os
import types
from dataclasses import dataclass, field

import numpy as np

from ..language import N_, _, listed
from ..problems import CheckFailed
from .common import correct, fail, reporting_learner_errors, require_answer

# the checks (watch_predict, which exercise 2's cell calls before the answer, is not one)
__all__ = ["fixed_serving_export", "first_wrong_digit"]


@reporting_learner_errors
def fixed_serving_export(answer, images, classes, client_key: str = "pixels") -> None:
    """Notebook 08, exercise 1: a SavedModel whose serving signature takes raw images under
    ``client_key`` (what the clients send) and predicts ``classes``."""
    require_answer(answer, "fixed_export_dir")
    import tensorflow as tf

    answer = answer.decode() if isinstance(answer, bytes) else answer
    if not isinstance(answer, (str, os.PathLike)):
        fail(
            "`fixed_export_dir` should be the export directory (the path export_saved_model "
            "returns), not a {kind}",
            kind=type(answer).__name__,
        )
    if not os.path.isfile(os.path.join(answer, "saved_model.pb")):
        fail(
            "there is no saved_model.pb in {folder}: give the path that export_saved_model "
            "returned",
            folder=str(answer),
        )
    try:
        loaded = tf.saved_model.load(str(answer))
    except tf.errors.InvalidArgumentError as error:  # one line, never TensorFlow's traceback
        if "appears more than once in the input list" in str(error):
            fail(
                "the SavedModel cannot be loaded: its receiver gives one placeholder two names in "
                "receiver_tensors, and a serving signature takes each input once; give the "
                "clients' images one name"
            )
        fail(
            "tf.saved_model.load could not load {folder}: {error}",
            folder=str(answer),
            error=str(error).splitlines()[0],
        )
    if "serving_default" not in loaded.signatures:
        fail("the SavedModel has no serving_default signature: export the course CNN's model_fn")
    signature = loaded.signatures["serving_default"]
    keyword_inputs = signature.structured_input_signature[1]
    if len(keyword_inputs) != 1:
        fail(
            "the serving signature takes {count} inputs ({names}): give it one, the images",
            count=len(keyword_inputs),
            names=sorted(keyword_inputs),
        )
    ((key, spec),) = keyword_inputs.items()
    if spec.dtype != tf.float32 or spec.shape.as_list()[1:] != [28, 28]:
        fail(
            "the serving input {key!r} is {dtype} {shape}: it should take raw images, float32 "
            "[None, 28, 28]",
            key=key,
            dtype=spec.dtype.name,
            shape=spec.shape,
        )
    if key != client_key:
        fail(
            "the serving input is called {key!r}, but the clients send {client_key!r} and "
            "must not have to change: the name the caller uses and the feature the model "
            "reads are two things",
            key=key,
            client_key=client_key,
        )
    outputs = signature(**{key: tf.constant(np.asarray(images, dtype=np.float32))})
    if "classes" not in outputs:
        fail(
            "the signature returns {names}, not 'classes': export the course CNN",
            names=sorted(outputs),
        )
    got, classes = outputs["classes"].numpy(), np.asarray(classes)
    if not np.array_equal(got, classes):
        _judge_receiver(
            lambda x: signature(**{key: tf.constant(x)})["classes"].numpy(), images, classes
        )
        fail(
            "the SavedModel predicts a different class for {count} of {total} test digits: "
            "export the trained `estimator` (not a new one)",
            count=int(np.sum(got != classes)),
            total=len(got),
        )
    correct(
        "the serving input {key!r} feeds the model's feature 'image'; the SavedModel predicts "
        "the Estimator's classes on all {total} digits",
        key=key,
        total=len(got),
    )


# what a receiver may do to the clients' images, undone: if the model agrees with the Estimator on
# the images so changed, the receiver changed them (the model itself is the trained one)
RECEIVER_MISTAKES = (
    (
        lambda x: x * 255.0,
        N_(
            "the receiver divides the images by 255 before the model sees them: the model was "
            "trained on the images as the clients send them, so give them to its feature unchanged"
        ),
    ),
    (
        lambda x: np.transpose(x, (0, 2, 1)),
        N_(
            "the receiver transposes the images before the model sees them: the model was trained "
            "on the images as the clients send them, so give them to its feature unchanged"
        ),
    ),
    (
        lambda x: 1.0 - x,
        N_(
            "the receiver inverts the images (1 - x) before the model sees them: the model was "
            "trained on the images as the clients send them, so give them to its feature unchanged"
        ),
    ),
)


def _judge_receiver(predict, images, classes) -> None:
    """Refuse a receiver that changes the images on their way to the model: with the change undone
    on the images sent, the SavedModel's classes agree with the Estimator's (99 %)."""
    images = np.asarray(images, dtype=np.float32)
    for undo, mistake in RECEIVER_MISTAKES:
        if np.mean(predict(undo(images).astype(np.float32)) == classes) >= 0.99:
            raise CheckFailed(_(mistake))


@dataclass
class PredictCall:
    """One call of a watched ``estimator.predict``: the keys asked for, one example at a time or
    whole batches, and how many examples were read from it."""

    keys: object
    single: bool
    read: int = 0


@dataclass
class PredictWatch:
    """What the cells after ``watch_predict`` read from ``estimator.predict``, call by call."""

    calls: list = field(default_factory=list)


def watch_predict(estimator) -> PredictWatch:
    """Count what each ``estimator.predict`` call yields from now on (exercise 2): the method of
    this estimator is wrapped, its predictions are unchanged, and closing the generator closes
    the Estimator's."""
    watch, original = PredictWatch(), type(estimator).predict

    def predict(*args, **kwargs):
        arguments = inspect.signature(original).bind(estimator, *args, **kwargs)
        arguments.apply_defaults()
        single = bool(arguments.arguments["yield_single_examples"])
        call = PredictCall(arguments.arguments["predict_keys"], single)
        watch.calls.append(call)
        generator = original(estimator, *args, **kwargs)
        try:
            for item in generator:
                call.read += 1 if single else len(next(iter(item.values())))
                yield item
        finally:
            generator.close()

    estimator.predict = predict
    return watch


def _judge_reading(watch: PredictWatch, first: int) -> None:
    """The answer came from reading ``estimator.predict`` one example at a time, only the classes,
    up to the first wrong digit and no further."""
    if not watch.calls:
        fail(
            "the position is right, but your cell never read `estimator.predict`: the exercise "
            "is to read the model's predictions and stop at its first mistake, not to look it up "
            "in a table the notebook computed"
        )
    call = watch.calls[-1]
    if not call.single:
        fail(
            "your cell read whole batches (yield_single_examples=False), {read} predictions: "
            "read one example at a time, so that reading stops at the mistake",
            read=call.read,
        )
    keys = [call.keys] if isinstance(call.keys, str) else call.keys
    if keys is None or list(keys) != ["classes"]:
        fail(
            "your cell asked predict for {keys}: ask only for the key the comparison needs "
            "(predict_keys), so that nothing else is computed and kept",
            keys=_("all the keys") if keys is None else listed(map(str, keys)),
        )
    if call.read > first + 1:
        fail(
            "your cell read {read} predictions, {extra} past the first wrong digit: stop reading "
            "as soon as you reach it",
            read=call.read,
            extra=call.read - first - 1,
        )


@reporting_learner_errors
def first_wrong_digit(answer, labels, classes, watch: PredictWatch) -> None:
    """Notebook 08, exercise 2: the position of the first test digit the Estimator classifies
    wrongly (``classes`` are its predictions), read one example at a time from a generator that
    was then closed (``watch``: what the learner's cell read)."""
    require_answer(answer, "first_wrong")
    import tensorflow as tf

    labels, classes = np.asarray(labels), np.asarray(classes)
    if isinstance(answer, types.GeneratorType):
        fail(
            "`first_wrong` is a generator: predict only runs when you read it; read it until "
            "the first mistake and keep that digit's position"
        )
    if isinstance(answer, dict):
        fail(
            "`first_wrong` is a prediction (a dict with the keys {keys}): keep the position of "
            "the digit in the test set instead",
            keys=sorted(answer),
        )
    if isinstance(answer, np.ndarray) and answer.size == 1:
        answer = answer.item()
    if isinstance(answer, bool) or not isinstance(answer, (int, np.integer)):
        fail(
            "`first_wrong` should be a whole number, the position of a test digit, not {answer!r}",
            answer=answer,
        )
    wrong = np.flatnonzero(classes != labels)
    first, answer = int(wrong[0]), int(answer)
    if answer != first:
        raise CheckFailed(_wrong_position(answer, first, wrong, labels, classes))
    _judge_reading(watch, first)
    if tf.compat.v1.get_default_graph().finalized:
        fail(
            "the position is right, but the prediction graph is still TensorFlow's default "
            "graph, finalized: a generator you stopped reading is still open (section "
            '"`predict` is a generator")'
        )
    correct(
        "test digit {first} is the first the model gets wrong (a {label} read as a "
        "{predicted}), found by reading {read} predictions, and no prediction graph was left "
        "open",
        read=watch.calls[-1].read,
        first=first,
        label=int(labels[first]),
        predicted=int(classes[first]),
    )


def _wrong_position(answer: int, first: int, wrong, labels, classes) -> str:
    """What is wrong with ``first_wrong`` = ``answer`` (``first``: the right position, ``wrong``:
    the positions the model gets wrong)."""
    if answer == first + 1:
        return _(
            "`first_wrong` is {answer}, one past it: positions count from 0, as in test_labels"
        ).format(answer=answer)
    if answer == len(wrong):
        return _(
            "`first_wrong` is {answer}, which is how many test digits are wrong; the exercise asks "
            "where the first one is"
        ).format(answer=answer)
    if not 0 <= answer < len(labels):
        return _(
            "`first_wrong` is {answer}, but there is no test digit {answer}: positions run from 0 "
            "to {last}"
        ).format(answer=answer, last=len(labels) - 1)
    if answer == int(wrong[-1]):
        return _(
            "`first_wrong` is {answer}, the last digit the model gets wrong: stop at the first"
        ).format(answer=answer)
    if classes[answer] != labels[answer]:
        return _(
            "`first_wrong` is {answer}: the model gets test digit {answer} wrong, but an earlier "
            "one too"
        ).format(answer=answer)
    if answer < 10 and answer in (int(labels[first]), int(classes[first])):
        return _(
            "`first_wrong` is {answer}, but the model gets test digit {answer} right; a class or a "
            "label is not a position in the test set"
        ).format(answer=answer)
    return _(
        "`first_wrong` is {answer}, but the model classifies test digit {answer} correctly (as a "
        "{predicted})"
    ).format(answer=answer, predicted=int(classes[answer]))
