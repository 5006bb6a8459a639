"""Exercise checks of notebook 08 (predict, export, TF Lite)."""

from __future__ import annotations

import ast
import inspect
import os
import types
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..language import N_, _, listed
from ..learner_code import error_text
from ..problems import CheckFailed
from .common import correct, fail, reporting_learner_errors, require_answer

# the checks (watch_predict, which exercise 2's cell calls before the answer, is not one)
__all__ = ["fixed_serving_export", "first_wrong_digit"]


# The images the check serves (exercise 1), drawn anew at every run: a slice of Fashion-MNIST's
# test images, of which the MNIST model is unsure (its top probability is about 0.6 on average),
# so that any change of the pixels moves its probabilities, and MNIST test digits, which it
# knows; each from a random offset, read with the course's pipeline (helpers/inputs.py).
UNSEEN = {"fashion-mnist": 160, "mnist": 80}
PREDICT_BATCH = 100  # estimator.predict's batches: neither 1, nor the odd size, nor all at once

# How far the SavedModel's probabilities may be from the Estimator's. Both run the same graph on
# the same float32 weights; only the kernels differ, chosen per batch size (predict reads batches
# of 100, the check serves over a thousand at once, an odd size and each size from 1 to 32).
# Measured on the right answer when the check served 240 at once, an odd size and one at a
# time, three or four draws each: the notebook's model (1,500 steps) with oneDNN on AVX-512 (0,
# 0 and at most 7.2e-7 one at a time), AVX2 or SSE4.1 (ONEDNN_MAX_CPU_ISA: at most 6.6e-7 and
# 1.1e-6) and without oneDNN (at most 4.8e-7); its fast and grading models (200 and 30 steps) at
# most 7e-7 and 1.2e-6; a receiver mistake undone ((x / 255) * 255, 1 - (1 - x)) at most 9.2e-7.
# Changes of the pixels move them far more: rounded to float16 3e-4, times 1.001 6.5e-4, one grey
# level more (+1/255) 7e-3, clipped at 0.99 9e-3, times 255 0.79 or more. 5e-5 is forty times the
# largest difference measured and six times below the smallest change.
TOLERANCE = 5e-5


@reporting_learner_errors
def fixed_serving_export(answer, estimator, trained_steps: int, client_key: str = "pixels") -> None:
    """Notebook 08, exercise 1: a SavedModel whose serving signature takes raw images under
    ``client_key`` (what the clients send) and gives the probabilities and classes of the
    ``estimator`` the notebook trained ``trained_steps`` steps: on images the notebook never
    showed (``UNSEEN``), served in batches of many sizes, compared in full with what
    ``estimator.predict`` gives."""
    require_answer(answer, "fixed_export_dir")
    _require_trained(estimator, trained_steps)
    loaded = _loaded_export(answer)
    signature, key = _serving_signature(loaded, client_key)
    images, reference = _unseen_reference(estimator)
    rounds = _rounds(images, reference)
    for size, sent, expected in rounds:
        wrong, gap = _differing(_served(signature, key, sent, size), expected)
        if not wrong.any():
            continue
        values = dict(size=size, count=int(wrong.sum()), sent=len(sent), gap=gap)
        if _other_weights(loaded, estimator):
            fail(
                "sent {size} at a time, the SavedModel's probabilities differ from the "
                "Estimator's on {count} of the {sent} images sent (by up to {gap:.2g}), and its "
                "weights are not those of the trained `estimator`'s latest checkpoint: export "
                "the trained `estimator` itself, from its latest checkpoint",
                **values,
            )
        _judge_receiver(signature, key, sent, expected, size)
        fail(
            "sent {size} at a time, the SavedModel's probabilities differ from the Estimator's "
            "on {count} of the {sent} images sent (by up to {gap:.2g}) although it holds the "
            "trained weights: the receiver changes the images on their way to the model; give "
            "them to its feature unchanged",
            **values,
        )
    correct(
        "the serving input {key!r} feeds the model's feature 'image': on {total} test images "
        "drawn at random ({fashion} of Fashion-MNIST, {digits} of MNIST, each dimmed at "
        "random), sent as one batch of {many} (drawn from them with repeats), {odd} at a time "
        "and two batches of each size from 1 to {smallest}, the SavedModel's probabilities "
        "equal the Estimator's within {tolerance:.0e}, and its classes too",
        key=key,
        total=len(images),
        fashion=UNSEEN["fashion-mnist"],
        digits=UNSEEN["mnist"],
        many=rounds[0][0],
        odd=rounds[1][0],
        smallest=SMALL_BATCHES,
        tolerance=TOLERANCE,
    )


def _require_trained(estimator, trained_steps: int) -> None:
    """Refuse an ``estimator`` that is not the notebook's trained one: not an Estimator, without
    a checkpoint, or at another step than the ``trained_steps`` the notebook trained."""
    import tensorflow as tf

    if not isinstance(estimator, tf.estimator.Estimator):
        fail(
            "`estimator` should be the notebook's trained Estimator, not a {kind}: run the cell "
            "that trains it again (section 'A trained CNN to export')",
            kind=type(estimator).__name__,
        )
    if estimator.latest_checkpoint() is None:
        fail(
            "`estimator` has no checkpoint in its model_dir, so it was never trained: export the "
            "notebook's trained `estimator` (run the cell that trains it again if your cell "
            "replaced it)"
        )
    step = int(tf.train.load_checkpoint(estimator.latest_checkpoint()).get_tensor("global_step"))
    if step != trained_steps:
        fail(
            "`estimator` is at global step {step}, but the notebook trained it for {trained} "
            "steps: export the notebook's trained `estimator` as it is (run the cell that trains "
            "it again if your cell replaced or trained it)",
            step=step,
            trained=trained_steps,
        )


SMALL_BATCHES = 32  # served twice each in batches of 1, 2, … 32 (a receiver may misbehave on one)


def _rounds(images, reference) -> list:
    """``[(batch size, images, their reference)]``: the check's images sent at once as one batch
    of over a thousand (drawn from them anew, so that a receiver keeping the first hundreds of
    a batch fails), then all of them an odd number at a time (a short last batch too), then two
    batches of each size from 1 to ``SMALL_BATCHES``, from random offsets (two, so that no
    message speaks of one image sent)."""
    rng = np.random.default_rng()
    many = rng.integers(0, len(images), int(rng.integers(1_100, 2_049)))
    odd = 0
    while odd == 0 or len(images) % odd == 0:
        odd = int(rng.integers(8, 31)) * 2 + 1
    rounds = [
        (len(many), images[many], {name: value[many] for name, value in reference.items()}),
        (odd, images, reference),
    ]
    for size in range(1, SMALL_BATCHES + 1):
        start = int(rng.integers(0, len(images) - 2 * size + 1))
        part = slice(start, start + 2 * size)
        rounds.append(
            (size, images[part], {name: value[part] for name, value in reference.items()})
        )
    return rounds


EXERCISE_FOLDER = "08_exercise_1"  # settings.fresh_model_dir("08_exercise_1"), as the prompt asks


def _export_folder(answer) -> str:
    """``answer`` as text, after refusing what is not the text of an export directory that
    ``export_saved_model`` made in the exercise's folder; one line for each way it is not."""
    if isinstance(answer, bytes):
        fail(
            "`fixed_export_dir` is bytes, as export_saved_model returns the path: set it as text, "
            "with `export.as_text_path(...)`"
        )
    if not isinstance(answer, (str, os.PathLike)):
        fail(
            "`fixed_export_dir` should be the export directory (the path export_saved_model "
            "returns), not a {kind}",
            kind=type(answer).__name__,
        )
    folder = os.fspath(answer)
    if not isinstance(folder, str) or not folder.strip():
        fail(
            "`fixed_export_dir` is empty: set it to the export directory, as text "
            "(`export.as_text_path` of what export_saved_model returns)"
        )
    if not any(
        os.path.isfile(os.path.join(folder, name))
        for name in ("saved_model.pb", "saved_model.pbtxt")
    ):
        fail(
            "there is no saved_model.pb in {folder}: give the path that export_saved_model "
            "returned",
            folder=folder,
        )
    _require_exercise_folder(folder)
    return folder


def _require_exercise_folder(folder: str) -> None:
    """Refuse an export that is not in ``models/08_exercise_1``, where the exercise asks for it
    (``export_saved_model`` makes its timestamped directory right in the folder it is given)."""
    from .. import paths

    expected = (paths.MODELS_DIR / EXERCISE_FOLDER).resolve()
    parent = Path(folder).resolve().parent
    if parent == expected:
        return
    project = paths.MODELS_DIR.resolve().parent  # models/ is in it: paths are named from there
    inside = parent == project or project in parent.parents
    where = _("a folder outside the project")
    if inside:
        where = "`{}`".format(parent.relative_to(project).as_posix())
    fail(
        "the export is in {folder}, but the exercise asks for it in `models/{name}`: export the "
        'trained `estimator` into `settings.fresh_model_dir("{name}")`',
        folder=where,
        name=EXERCISE_FOLDER,
    )


def _loaded_export(answer):
    """The SavedModel at ``answer``, loaded; one line for each way it is not one."""
    import tensorflow as tf

    answer = _export_folder(answer)
    try:
        return tf.saved_model.load(str(answer))
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
    except (tf.errors.OpError, OSError, ValueError) as error:  # a file of the export is missing
        fail(
            "tf.saved_model.load could not load {folder}: {error}",
            folder=str(answer),
            error=error_text(error),
        )


def _serving_signature(loaded, client_key: str):
    """``(serving_default, its one input's key)``, after refusing a signature that does not take
    the clients' float32 images under ``client_key`` or does not return the CNN's predictions."""
    import tensorflow as tf

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
    shape = spec.shape  # of unknown rank, or [None, 28, 28] and looser: takes the clients' batches
    batches = shape.rank is None or (
        shape.rank == 3 and shape[0] is None and shape.is_compatible_with([None, 28, 28])
    )
    if spec.dtype != tf.float32 or not batches:
        fail(
            "the serving input {key!r} is {dtype} {shape}: it should take raw images, float32 "
            "[None, 28, 28]",
            key=key,
            dtype=spec.dtype.name,
            shape=_("of unknown rank") if shape.rank is None else str(shape.as_list()),
        )
    if key != client_key:
        fail(
            "the serving input is called {key!r}, but the clients send {client_key!r} and "
            "must not have to change: the name the caller uses and the feature the model "
            "reads are two things",
            key=key,
            client_key=client_key,
        )
    for output in ("classes", "probabilities"):
        if output not in signature.structured_outputs:
            fail(
                "the signature returns {names}, not {output!r}: export the course CNN",
                names=sorted(signature.structured_outputs),
                output=output,
            )
    return signature, key


def _unseen_reference(estimator):
    """``(images, {"classes": …, "probabilities": …})``: the images of ``UNSEEN``, each slice
    from a random offset, read as the course's input functions read them (float32 [N, 28, 28] in
    0–1) and each dimmed by a random factor (so that its pixels fall between the 256 grey levels,
    and a receiver that rounds them to those levels changes them), and what
    ``estimator.predict`` gives for them in batches of ``PREDICT_BATCH``, asked of the class's
    own method (exercise 2's watch wraps the instance's)."""
    import tensorflow as tf

    from .. import inputs
    from ..logs import logger_level

    rng = np.random.default_rng()
    slices = [
        inputs.image_dataset(name, "test")
        .skip(int(rng.integers(0, 10_000 - count + 1)))
        .take(count)
        .map(lambda image, label: image)
        for name, count in UNSEEN.items()
    ]
    both = slices[0].concatenate(slices[1]).batch(sum(UNSEEN.values()))
    images = next(both.as_numpy_iterator())  # read once: the offsets cost most of the reading
    images = images * rng.uniform(0.7, 1.0, (len(images), 1, 1)).astype(np.float32)
    with logger_level("ERROR"):
        batches = list(
            type(estimator).predict(
                estimator,
                lambda: tf.data.Dataset.from_tensor_slices({"image": images}).batch(PREDICT_BATCH),
                yield_single_examples=False,
            )
        )
    return images, {
        key: np.concatenate([batch[key] for batch in batches])
        for key in ("classes", "probabilities")
    }


def _served(signature, key, images, size: int) -> dict:
    """The signature's classes and probabilities for ``images``, sent ``size`` at a time; one
    line if it raises or returns another number of rows than it was sent."""
    import tensorflow as tf

    parts = {"classes": [], "probabilities": []}
    for start in range(0, len(images), size):
        batch = images[start : start + size]
        try:
            outputs = signature(**{key: tf.constant(batch)})
        except (tf.errors.OpError, ValueError, TypeError) as error:
            fail(
                "on a batch of {size} images, float32 [{size}, 28, 28] as the clients send "
                "them, the SavedModel raised {error}",
                error=error_text(error),
                size=len(batch),
            )
        for name, row in (("classes", ()), ("probabilities", (10,))):
            value = outputs[name].numpy()
            if value.shape != (len(batch), *row):
                fail(
                    "for a batch of {size} images the SavedModel returns {output} of shape "
                    "{shape}: the receiver should give the model each image the clients send, "
                    "as it is",
                    size=len(batch),
                    output=name,
                    shape=list(value.shape),
                )
            parts[name].append(value)
    return {name: np.concatenate(values) for name, values in parts.items()}


def _differing(served: dict, reference: dict):
    """``(which images differ, the largest probability difference)``: probabilities beyond
    ``TOLERANCE``, or another class where the Estimator's two top probabilities are not tied
    within it (there float rounding may pick either)."""
    gaps = np.abs(served["probabilities"] - reference["probabilities"]).max(axis=1)
    top = np.sort(reference["probabilities"], axis=1)
    tied = top[:, -1] - top[:, -2] <= 2 * TOLERANCE
    wrong = (gaps > TOLERANCE) | ((served["classes"] != reference["classes"]) & ~tied)
    return wrong, float(gaps.max())


def _other_weights(loaded, estimator) -> bool:
    """Whether the SavedModel holds no variables, or one (the global step aside) that the
    ``estimator``'s latest checkpoint lacks or holds with other values."""
    import tensorflow as tf

    checkpoint = tf.train.load_checkpoint(estimator.latest_checkpoint())
    known = checkpoint.get_variable_to_shape_map()
    weights = [
        variable
        for variable in getattr(loaded, "variables", ())
        if variable.name.split(":")[0] != "global_step"
    ]
    return not weights or any(
        variable.name.split(":")[0] not in known
        or not np.array_equal(variable.numpy(), checkpoint.get_tensor(variable.name.split(":")[0]))
        for variable in weights
    )


# what a receiver may do to the clients' images, undone: if the SavedModel, which holds the trained
# weights, gives the Estimator's probabilities on the images so changed, the receiver changed them
RECEIVER_MISTAKES = (
    (
        lambda x: x * 255.0,
        N_(
            "the receiver divides the images by 255 before the model sees them: the model was "
            "trained on the images as the clients send them, so give them to its feature unchanged"
        ),
    ),
    (
        lambda x: x / 255.0,
        N_(
            "the receiver multiplies the images by 255 before the model sees them: the model was "
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


def _judge_receiver(signature, key, images, reference, size: int) -> None:
    """Refuse a receiver that changes the images in one of the ``RECEIVER_MISTAKES``: with the
    change undone on the images sent ``size`` at a time (where they differed), the SavedModel
    gives the Estimator's probabilities."""
    for undo, mistake in RECEIVER_MISTAKES:
        undone = undo(images).astype(np.float32)
        if not _differing(_served(signature, key, undone, size), reference)[0].any():
            raise CheckFailed(_(mistake))


# The largest batch of the input function the answer's predict may read: predict computes a whole
# batch before it yields one of its predictions, so a larger one predicts far past the first
# wrong digit (notebook 08's prompt says so; inputs.make_predict_input_fn() batches 500).
LARGEST_BATCH = 500
ANSWER = "first_wrong"  # the name exercise 2's answer cell assigns


@dataclass
class PredictCall:
    """One call of a watched ``estimator.predict``: its input function, the keys asked for, one
    example at a time or whole batches, how many examples were read from it and the IPython cell
    that began reading it (its number in ``In``; None outside IPython)."""

    input_fn: object
    keys: object
    single: bool
    cell: int | None = None
    read: int = 0


@dataclass
class PredictWatch:
    """What the cells after ``watch_predict`` read from ``estimator.predict``, call by call; the
    watched ``estimator`` and the IPython cell that made the watch."""

    estimator: object = None
    cell: int | None = None
    calls: list = field(default_factory=list)


def _input_history() -> list | None:
    """IPython's input history ``In``, the cell running now last (IPython stores a cell's source
    before running it), or None outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    history = getattr(shell, "user_ns", {}).get("In") if shell is not None else None
    return history if isinstance(history, list) and history else None


def _running_cell() -> int | None:
    """The number in ``In`` of the cell running now, or None outside IPython."""
    history = _input_history()
    return None if history is None else len(history) - 1


def watch_predict(estimator) -> PredictWatch:
    """Count what each ``estimator.predict`` call yields from now on (exercise 2), and keep its
    input function and the cell that read it: the method of this estimator is wrapped, its
    predictions are unchanged, and closing the generator closes the Estimator's."""
    watch, original = PredictWatch(estimator, _running_cell()), type(estimator).predict

    def predict(*args, **kwargs):
        arguments = inspect.signature(original).bind(estimator, *args, **kwargs)
        arguments.apply_defaults()
        single = bool(arguments.arguments["yield_single_examples"])
        call = PredictCall(
            arguments.arguments["input_fn"],
            arguments.arguments["predict_keys"],
            single,
            _running_cell(),
        )
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


def _assigns(source: str, name: str) -> bool:
    """Whether the code of a cell assigns ``name`` (a cell that does not parse never ran)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return any(
        isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
        for node in ast.walk(tree)
    )


def _answer_cell() -> int | None:
    """The number in ``In`` of the latest cell run before this check's whose code assigns
    ``first_wrong``; None outside IPython or when no cell does."""
    history = _input_history() or [""]
    for number in range(len(history) - 2, 0, -1):
        if isinstance(history[number], str) and _assigns(history[number], ANSWER):
            return number
    return None


def _answer_calls(watch: PredictWatch) -> list:
    """The watched calls the answer came from: in IPython, those of the latest run of the cell
    that assigns ``first_wrong`` (so that a cell run again with another answer is judged on what
    it read itself, and running this check again judges the same cell); outside IPython, or when
    no cell assigns it, every call since the watch."""
    cell = _answer_cell()
    if cell is None:
        return watch.calls
    if watch.cell is not None and watch.cell > cell:
        fail(
            "the cell `watch = checks.watch_predict(estimator)` ran after your cell that sets "
            "`first_wrong`, so it saw none of its predictions: run your cell again, then this "
            "check"
        )
    return [call for call in watch.calls if call.cell == cell]


def _judge_reading(calls: list, first: int) -> PredictCall:
    """The call the answer came from, after refusing a reading other than ``estimator.predict``
    one example at a time, only the classes, up to the first wrong digit and no further."""
    if not calls:
        fail(
            "the position is right, but your cell never read `estimator.predict`: the exercise "
            "is to read the model's predictions and stop at its first mistake, not to look it up "
            "in a table the notebook computed"
        )
    call = calls[-1]
    if not call.single:
        fail(
            "your cell read whole batches (yield_single_examples=False): read one example at a "
            "time, so that reading stops at the mistake"
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
    if call.read <= first:
        fail(
            "the position is right, but your cell stopped reading `estimator.predict` after "
            "{read} of its predictions, before the first wrong digit: find the position by "
            "reading the predictions up to the first mistake",
            read=call.read,
        )
    return call


def _test_images():
    """MNIST's test images as the notebook's ``test_images`` holds them: float32, in 0–1."""
    from .. import data

    spec = data.spec_for("mnist")
    path = data.ensure("mnist", progress=False)["test_images"]
    return data.read_verified(path, spec.files["test_images"]).astype(np.float32) / 255


def _judge_input(call: PredictCall, estimator) -> int:
    """The rows of the first batch of the call's input function, after refusing one that does
    not give the test digits in order, all of them, or gives batches of over ``LARGEST_BATCH``:
    the function is run again, in a graph of its own, as Estimator runs it."""
    expected = _test_images()
    size, images = _input_batches(call.input_fn, estimator, len(expected) + 1)
    if len(images) > len(expected):
        fail(
            "your input function gives more digits than the test set's {total} (it repeats "
            "them, or reads others): read the test set once, in order",
            total=len(expected),
        )
    if len(images) < len(expected):
        fail(
            "the test set holds {total} digits, but your input function gives {count}: read "
            "the whole test set, in order",
            count=len(images),
            total=len(expected),
        )
    if not np.allclose(images, expected, rtol=0, atol=1e-6):
        fail(
            "your input function does not give the test digits in order (its images differ "
            "from `test_images`): read the test set in order, so that a prediction's position "
            "is its digit's"
        )
    if size > LARGEST_BATCH:
        fail(
            "your input function gives batches of {size} digits, and predict computes a whole "
            "batch before it yields the first of its predictions: give it batches of at most "
            "{largest} (as `inputs.make_predict_input_fn()` does), so that it predicts little "
            "past the first wrong digit",
            size=size,
            largest=LARGEST_BATCH,
        )
    return size


def _input_fn_arguments(input_fn, estimator) -> dict:
    """What Estimator passes an input function for predict: ``mode``, ``params`` and ``config``,
    each if it takes it."""
    import tensorflow as tf

    try:
        names = inspect.signature(input_fn).parameters
    except (TypeError, ValueError):  # a callable whose signature Python cannot read
        names = {}
    values = {
        "mode": tf.estimator.ModeKeys.PREDICT,
        "params": getattr(estimator, "params", {}),
        "config": getattr(estimator, "config", None),
    }
    return {name: value for name, value in values.items() if name in names}


def _image_rows(features, *labels):
    """The images of a batch of features (the 'image' feature of a dict, else the features), as
    float32 rows [N, 28, 28]."""
    import tensorflow as tf

    images = features["image"] if isinstance(features, dict) else features
    return tf.reshape(tf.cast(images, tf.float32), [-1, 28, 28])


def _input_batches(input_fn, estimator, most: int) -> tuple:
    """``(rows of the first batch, the images in order, ``most`` at most)`` that ``input_fn``
    gives predict, called in a graph of its own with what Estimator would pass it: a dataset's
    images are rebatched in one run, tensors (queues) are read batch by batch."""
    import tensorflow as tf

    from ..logs import logger_level

    rows = tf.autograph.experimental.do_not_convert(_image_rows)
    with tf.Graph().as_default(), logger_level("ERROR"):
        result = input_fn(**_input_fn_arguments(input_fn, estimator))
        if isinstance(result, tf.data.Dataset):
            return _dataset_batches(result.map(rows), most)
        return _tensor_batches(rows(*result) if isinstance(result, tuple) else rows(result), most)


def _dataset_batches(images, most: int) -> tuple:
    """``(rows of the first batch, the images in order, ``most`` at most)`` of a dataset of
    batches of images [N, 28, 28], in the default graph."""
    import tensorflow as tf

    iterators = [
        tf.compat.v1.data.make_initializable_iterator(dataset)
        for dataset in (images.take(1), images.unbatch().take(most).batch(most))
    ]
    found = []
    with tf.compat.v1.Session() as session:
        session.run([tf.compat.v1.tables_initializer()] + [i.initializer for i in iterators])
        for tensor in [iterator.get_next() for iterator in iterators]:
            try:
                found.append(session.run(tensor))
            except tf.errors.OutOfRangeError:  # an input that gives nothing
                found.append(np.zeros((0, 28, 28), np.float32))
    return len(found[0]), found[1]


def _tensor_batches(batch, most: int) -> tuple:
    """``(rows of the first batch, the images in order, ``most`` at most)`` of a tensor of
    images [N, 28, 28] an input function read from queues, run to their end (or ``most``)."""
    import tensorflow as tf

    batches, count = [], 0
    with tf.compat.v1.train.MonitoredSession() as session:  # starts the queues' runners
        while count < most and not session.should_stop():
            batches.append(session.run(batch))
            count += len(batches[-1])
    if not batches:
        return 0, np.zeros((0, 28, 28), np.float32)
    return len(batches[0]), np.concatenate(batches)[:most]


@reporting_learner_errors
def first_wrong_digit(answer, labels, classes, watch: PredictWatch) -> None:
    """Notebook 08, exercise 2: the position of the first test digit the Estimator classifies
    wrongly (``classes`` are its predictions), read one example at a time from a generator that
    was then closed, over the test digits in order from batches of at most ``LARGEST_BATCH``
    (``watch``: what the learner's cell read)."""
    require_answer(answer, ANSWER)
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
    call = _judge_reading(_answer_calls(watch), first)
    size = _judge_input(call, watch.estimator)
    if tf.compat.v1.get_default_graph().finalized:
        fail(
            "the position is right, but the prediction graph is still TensorFlow's default "
            "graph, finalized: a generator you stopped reading is still open (section "
            '"`predict` is a generator")'
        )
    correct(
        "test digit {first} is the first the model gets wrong (a {label} read as a "
        "{predicted}), found by reading the predictions of the test digits in order, one at a "
        "time, from batches of {size}, up to it and no further, and no prediction graph was "
        "left open",
        first=first,
        label=int(labels[first]),
        predicted=int(classes[first]),
        size=size,
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
