"""Exercise checks of notebook 02 (input_fn)."""

from __future__ import annotations

import contextlib
import math
import re
import sys

import numpy as np

from ..language import N_, _
from ..learner_code import error_text
from ..problems import CheckFailed
from . import calls
from .checkpoint import scratch_model_dir
from .common import correct, fail, reporting_learner_errors, require_answer, said

__all__ = ["steps_for_epochs", "eval_input_fn", "class_id_input_fn"]


STEPS_CALL = "steps_for_epochs(examples, batch_size, epochs)"
# (examples, batch size, epochs) of the check's own: a remainder only across epochs, none at all,
# a batch larger than the data, and one batch per epoch exactly
STEP_CASES = ((1000, 300, 3), (1000, 250, 2), (100, 1000, 1), (7, 3, 5), (600, 600, 4))
# where a float division rounds up past a whole number (examples / batch_size * epochs), and a
# batch larger than the data over several epochs
EXACT_CASES = ((60000, 225, 15), (50000, 3, 15), (10, 32, 3))


def _step_cases(rng) -> list:
    """The fixed cases, then six drawn anew at every run (none to learn by heart)."""
    drawn = [
        (int(rng.integers(1, 70000)), int(rng.integers(1, 1000)), int(rng.integers(1, 20)))
        for _ in range(6)
    ]
    return [*STEP_CASES, *EXACT_CASES, *drawn]


def _steps_tf_runs(examples: int, batch_size: int, epochs: int) -> int:
    """The steps ``train`` runs on ``examples`` repeated ``epochs`` times, then batched: the
    number of batches tf.data itself counts for such a dataset."""
    import tensorflow as tf

    dataset = tf.data.Dataset.range(examples).repeat(epochs).batch(batch_size)
    return int(dataset.cardinality())


STEPS_MISTAKES = {
    "batch then repeat": N_(
        "`{call}` counts a short batch at the end of every epoch, which batch-then-repeat gives; "
        "the input function repeats first (section '`repeat`')"
    ),
    "rounded down": N_(
        "`{call}` leaves out the last, shorter batch: without drop_remainder=True it is a step "
        "too, so round up"
    ),
    "one epoch": N_(
        "`{call}` counts one epoch: the input function goes through the data epochs times"
    ),
    "examples": N_("`{call}` counts examples: one step trains a whole batch"),
    "not whole": N_(
        "`{call}` returned a fraction of a step: each step trains one batch, and a last, shorter "
        "batch is a step too, so round up"
    ),
}


def _steps_variants(examples: int, batch_size: int, epochs: int) -> dict:
    total = examples * epochs
    return {
        "batch then repeat": epochs * math.ceil(examples / batch_size),
        "rounded down": total // batch_size,
        "one epoch": math.ceil(examples / batch_size),
        "examples": total,
        "not whole": total / batch_size,
    }


@reporting_learner_errors
def steps_for_epochs(answer, examples: int = 60000, batch_size: int = 256, epochs: int = 3) -> None:
    """Notebook 02, exercise 1: ``answer(examples, batch_size, epochs)``, the steps ``train`` runs
    on data repeated, then batched; tried on the check's own sizes against the batches tf.data
    makes, then on the notebook's (``examples``, ``batch_size``, ``epochs``)."""
    calls.function(answer, "steps_for_epochs", STEPS_CALL)
    cases = (*_step_cases(np.random.default_rng()), (examples, batch_size, epochs))
    values = []
    for case in cases:
        calls.bound(answer, "steps_for_epochs", STEPS_CALL, *case)
        values.append(calls.number(answer(*case), "steps_for_epochs", STEPS_CALL))
    expected = [_steps_tf_runs(*case) for case in cases]
    for case, value, want in zip(cases, values, expected):
        if value == want:
            continue
        if not value.is_integer():
            raise CheckFailed(said(STEPS_MISTAKES["not whole"], call=STEPS_CALL))
        # a mistake is named only when it gives the answer's number on every case it got wrong
        wrong = [
            (got, _steps_variants(*other))
            for other, got, right in zip(cases, values, expected)
            if got != right
        ]
        named = [
            mistake
            for mistake in STEPS_MISTAKES
            if all(got == variant[mistake] for got, variant in wrong)
        ]
        if len(named) == 1:
            raise CheckFailed(said(STEPS_MISTAKES[named[0]], call=STEPS_CALL))
        fail(
            "`steps_for_epochs({examples}, {batch_size}, {epochs})` returned {value}, but "
            "train() runs another number of steps on {examples} examples repeated {epochs} "
            "times, then batched by {batch_size}: count the examples all the epochs hold "
            "together, then the batches they make",
            examples=case[0],
            batch_size=case[1],
            epochs=case[2],
            value=int(value),
        )
    total = epochs * examples
    correct(
        "{epochs} × {examples} examples, repeated and then batched by {batch_size}, make "
        "{steps} steps (only the very last batch is short, {short} examples), and your function "
        "agreed with tf.data on {cases} other sizes",
        epochs=epochs,
        examples=examples,
        batch_size=batch_size,
        steps=math.ceil(total / batch_size),
        short=total % batch_size or batch_size,
        cases=len(cases) - 1,
    )


class _Comparer:
    """Each batch the model_fn receives, compared as it arrives with ``images`` (uint8, the
    reference's pixels times 255) and ``labels``, in order, in batches of ``sizes``: the first
    difference is kept with the batch it is in, and a little of what it looks like."""

    def __init__(self, images, labels, sizes):
        self.images, self.labels, self.sizes = images, labels, list(sizes)
        self.batches, self.offset, self.first = [], 0, None
        self.error, self.classes, self.sums = None, [], []

    def __call__(self, pixels, classes) -> int:
        try:
            self._compare(pixels, classes)
        except Exception as error:  # noqa: BLE001 - the check's own comparison, reported later
            self.error = self.error or error
        return 0

    def _compare(self, pixels, classes) -> None:
        import numpy as np

        index, start = len(self.batches), self.offset
        self.batches.append(len(classes))
        self.classes.append(np.asarray(classes))
        self.sums.append(_keys(np.rint(np.asarray(pixels, dtype=np.float64) * 255)))
        self.offset += len(classes)
        if self.first is not None:
            return
        if len(pixels) != len(classes):
            self.first = ("unzipped", index, len(pixels), len(classes))
            return
        if index >= len(self.sizes) or len(classes) != self.sizes[index]:
            self.first = ("size", index, len(classes))
            return
        want_pixels = self.images[start : self.offset].astype(np.float32)
        want_labels = self.labels[start : self.offset]
        got = np.asarray(pixels, dtype=np.float64) * 255
        if not np.array_equal(np.asarray(classes), want_labels):
            self.first = ("labels", index, np.asarray(classes), want_labels, start)
        elif np.abs(got - want_pixels).max() > 1e-3:
            self.first = ("pixels", index, got, want_pixels, start)


# An input function's pixels are k / 255 for a byte k, in float32 however the division is written:
# times 255, within 1e-4 of k; the comparison allows 1e-3 and refuses any other image.
PIXEL_MISTAKES = (
    (
        lambda got, want: np.allclose(got / 255, want, atol=1e-3),
        N_("the pixels of batch {batch} go up to 255: the model wants them between 0 and 1"),
    ),
    (
        lambda got, want: np.allclose(got, 255 - want, atol=1e-3),
        N_("the images of batch {batch} are inverted (1 - x): keep each pixel's value"),
    ),
    (
        lambda got, want: np.allclose(got, np.transpose(want, (0, 2, 1)), atol=1e-3),
        N_("the images of batch {batch} are transposed: keep each image's rows and columns"),
    ),
    (
        lambda got, want: not got.any(),
        N_("the images of batch {batch} are all zeros: keep each pixel's value"),
    ),
    (
        lambda got, want: got.min() < -1e-3 or got.max() > 255 + 1e-3,
        N_(
            "the pixels of batch {batch} are not between 0 and 1: the model wants the bytes "
            "divided by 255, "
            "nothing else"
        ),
    ),
)


def _run_estimator(
    answer, name: str, mode: str, comparer: _Comparer, watched=frozenset(), steps=None
):
    """Give ``answer`` to a real Estimator, as the lesson does: ``evaluate`` (``mode`` "eval",
    from a checkpoint of the check's) or ``train``, in the Estimator's own graph, with a
    model_fn that hands each batch to ``comparer``; at most one batch more than the reference
    holds is read (``steps``, when given: that many). Returns whether any of the ``watched``
    code objects ran. One line for each way the call fails: the element's form, data embedded in
    the graph, an error in the answer."""
    import tensorflow as tf

    from ..logs import logger_level

    ran = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in watched:
            ran.append(frame.f_code)

    input_fn = _as_estimator_calls_it(answer, name)
    steps = len(comparer.sizes) + 1 if steps is None else steps
    with scratch_model_dir(checkpoint=mode == "eval") as folder, logger_level("ERROR"):
        config = tf.estimator.RunConfig(model_dir=folder, log_step_count_steps=10**9)
        estimator = tf.estimator.Estimator(_recording_model_fn(name, comparer), config=config)
        previous = sys.getprofile()
        sys.setprofile(profile if watched else previous)
        try:
            if mode == "eval":
                estimator.evaluate(input_fn, steps=steps)
            else:
                estimator.train(input_fn, steps=steps)
        except CheckFailed:
            raise
        except Exception as error:  # the learner's code, run by the Estimator
            if re.search("is different from the graph|capture an EagerTensor", str(error)):
                fail(
                    "`{name}()` returns a dataset built outside the function: the Estimator "
                    "calls the input function inside its own graph, so build the dataset there",
                    name=name,
                )
            call = "evaluate" if mode == "eval" else "train"
            raise CheckFailed(
                _("`{call}({name})` raised {error}").format(
                    call=call, name=name, error=error_text(error)
                )
            ) from None
        finally:
            sys.setprofile(previous)
    if comparer.error is not None:
        raise comparer.error
    return bool(ran)


def _recording_model_fn(name: str, comparer: _Comparer):
    """A model_fn that hands each batch to ``comparer`` (its loss 0, its train op a step), after
    refusing in one line an element of the wrong form and data embedded in the graph."""
    import tensorflow as tf

    def model_fn(features, labels, mode):
        _check_element_spec(_spec_of(features, labels), name)
        embedded = _embedded_bytes(tf.compat.v1.get_default_graph())
        if embedded > 10_000:  # the images or the labels of a split: 40 KB at least
            fail(
                "`{name}()` puts {kilobytes:,.0f} KB of data in the graph as constants "
                "(from_tensor_slices of arrays, the trap this notebook measured): read the "
                "files with inputs.image_dataset",
                name=name,
                kilobytes=embedded / 1e3,
            )
        seen = tf.py_function(comparer, [features["image"], labels], tf.int64)
        loss = tf.cast(seen, tf.float32) * 0.0
        step = tf.compat.v1.train.get_global_step()
        with tf.control_dependencies([seen]):
            train_op = tf.compat.v1.assign_add(step, 1)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


ESTIMATOR_ARGUMENTS = ("mode", "params", "config", "input_context")


def _as_estimator_calls_it(answer, name: str):
    """``answer`` as the Estimator calls an input function: with no arguments, or with those of
    ``mode``, ``params``, ``config`` (and ``input_context``) it declares; one line for another
    parameter without a default, and for a result that is not a Dataset."""
    import inspect

    import tensorflow as tf

    try:
        parameters = inspect.signature(answer).parameters.values()
    except (TypeError, ValueError):
        parameters = []
    declared = {p.name for p in parameters if p.name in ESTIMATOR_ARGUMENTS}
    other = [
        p.name
        for p in parameters
        if p.name not in ESTIMATOR_ARGUMENTS
        and p.default is p.empty
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if other:
        fail(
            "`{name}` has the parameter {parameter}: the Estimator calls an input function with "
            "no arguments, or with those of mode, params and config it declares",
            name=name,
            parameter=other[0],
        )

    def input_fn(mode, params, config):
        given = {"mode": mode, "params": params, "config": config}
        result = answer(**{key: value for key, value in given.items() if key in declared})
        if not isinstance(result, tf.data.Dataset):
            fail(
                "`{name}()` returned a {kind}: return a tf.data.Dataset",
                name=name,
                kind=type(result).__name__,
            )
        return result

    return input_fn


def _spec_of(features, labels):
    """The element spec of what the model_fn received (labels None: no labels)."""
    import tensorflow as tf

    as_spec = tf.type_spec_from_value  # a RaggedTensor's or SparseTensor's spec is its own
    if labels is None:
        return tf.nest.map_structure(as_spec, features)
    return (tf.nest.map_structure(as_spec, features), as_spec(labels))


def _embedded_bytes(graph) -> int:
    """The bytes of data the graph holds in its constants."""
    total = 0
    for op in graph.get_operations():
        if op.type == "Const":
            value = op.get_attr("value")
            total += len(value.tensor_content) or 4 * len(value.float_val) + len(value.int_val)
    return total


def _judge_order(comparer: _Comparer, values: dict, mode: str) -> None:
    """Refuse in one line the reference's examples in another order, as ``mode``'s input."""
    if not _reordered(comparer):
        return
    if mode == "train":
        fail(
            "from batch {batch} on, the examples come in another order than in {whole}: "
            "take the batches as they are, without shuffling them",
            **values,
        )
    fail(
        "from batch {batch} on, the examples come in another order than in {whole}: "
        "keep their order (an input for evaluate() or for a check does not shuffle)",
        **values,
    )


def _judge_labels(
    comparer: _Comparer, got, want, others: dict, start: int, values: dict, mode: str
) -> None:
    """Refuse in one line labels that differ from the reference's at ``start`` (``got`` and
    ``want``): another dataset's, the same examples reordered, one class, shifted by one."""
    stop = start + len(got)
    for other, (_images, labels) in others.items():
        if np.array_equal(got, labels[start:stop]):
            fail(
                "the labels of batch {batch} are those of {other}: read {whole}",
                other=other,
                **values,
            )
    _judge_order(comparer, values, mode)
    if len(set(got.tolist())) == 1:
        fail("the labels of batch {batch} are all the same class", **values)
    shift = got.astype(np.int64) - want
    if len(set(shift.tolist())) == 1 and abs(int(shift[0])) == 1:
        fail("the labels of batch {batch} are each one class off", **values)
    fail("the labels of batch {batch} are not those of {whole}", **values)


def _reordered(comparer: _Comparer) -> bool:
    """Whether every example came, each with its label, but in another order (each known by its
    label and ``_keys``)."""
    if sum(comparer.batches) != len(comparer.labels):
        return False
    got = list(
        zip(np.concatenate(comparer.classes).tolist(), np.concatenate(comparer.sums).tolist())
    )
    want = list(zip(comparer.labels.tolist(), _keys(comparer.images).tolist()))
    return got != want and sorted(got) == sorted(want)


def _keys(images) -> np.ndarray:
    """One number per image that tells it from the others and from its own transposed,
    flipped or shifted copies: its bytes weighted by their position."""
    flat = np.asarray(images, dtype=np.int64).reshape(len(images), -1)
    return flat @ (np.arange(flat.shape[1], dtype=np.int64) + 1)


REPEATS = {
    "eval": N_(
        "`{name}()` yields more than the {count} examples of {whole} (it repeats or reads more): "
        "make one pass, or evaluate() never returns"
    ),
    "train": N_(
        "`{name}()` yields more than the {count} examples of {whole} (it repeats or reads more): "
        "keep its batches as they are"
    ),
}


def _judge(comparer: _Comparer, name: str, others: dict, whole: str, mode: str = "eval") -> None:
    """Refuse in one line the first difference ``comparer`` found: ``others`` maps a dataset's
    name to its (images, labels), the data a learner may have read by mistake; ``whole`` says
    which data the reference is; ``mode`` which call read it ("eval" or "train")."""
    import numpy as np

    count, repeats = len(comparer.labels), REPEATS[mode]
    yielded = sum(comparer.batches)
    values = dict(name=name, whole=whole, count=count, yielded=yielded)
    if comparer.first is None and yielded == count:
        return
    if not comparer.batches:
        fail("`{name}()` yields no batch at all", **values)
    if comparer.first is None:
        fail(
            "`{name}()` yields {yielded} of the {count} examples of {whole}: the last, shorter "
            "batch or some examples are left out (drop_remainder=True, take)",
            **values,
        )
    kind, index, *rest = comparer.first
    values.update(batch=index + 1)
    if kind == "unzipped" and rest[1] == 10 and rest[0] != 10:
        fail(
            "the labels are 10 numbers whatever the batch size: tf.argmax reduced over the "
            "batch (its default axis 0), not over each label's ten classes"
        )
    if kind == "labels":  # another split's labels first: it may be longer than this one
        for other, (_images, labels) in others.items():
            if np.array_equal(rest[0], labels[rest[2] : rest[2] + len(rest[0])]):
                fail(
                    "the labels of batch {batch} are those of {other}: read {whole}",
                    other=other,
                    **values,
                )
    if yielded > count or kind == "size" and index >= len(comparer.sizes):
        raise CheckFailed(said(repeats, **values))
    if kind == "unzipped":
        fail(
            "batch {batch} has {images} images but {labels} labels: zip them one to one",
            images=rest[0],
            labels=rest[1],
            **values,
        )
    if kind == "size":
        fail(
            "batch {batch} holds {size} examples where {expected} were expected",
            size=rest[0],
            expected=comparer.sizes[index],
            **values,
        )
    got, want, start = rest
    if kind == "labels":
        _judge_labels(comparer, got, want, others, start, values, mode)
    for other, (images, _labels) in others.items():
        if np.allclose(got, images[start : start + len(got)], atol=1e-3):
            fail("the images are those of {other}: read {whole}", other=other, **values)
    _judge_order(comparer, values, mode)
    for test, message in PIXEL_MISTAKES:
        if test(got, want):
            raise CheckFailed(said(message, batch=index + 1))
    difference = float(np.abs(got - want).max()) / 255
    if mode == "train":
        fail(
            "the images of batch {batch} are not those of {whole} (largest difference "
            "{difference:.2g} on a 0–1 scale): pass each image on as it comes",
            difference=difference,
            **values,
        )
    fail(
        "the images of batch {batch} are not those of {whole} (largest difference "
        "{difference:.2g} on a 0–1 scale): give each image as the file holds it, scaled to 0–1",
        difference=difference,
        **values,
    )


@reporting_learner_errors
def eval_input_fn(
    answer, dataset, other, batch_size: int = 300, name: str = "fashion_eval_input_fn"
) -> None:
    """Notebook 02, exercise 2: an evaluation input over ``dataset``'s test split, given to a
    real ``Estimator.evaluate``: every image and label once, in order, in batches of
    ``batch_size``, compared in full with the files' (``other``: the dataset a learner may have
    read by mistake); built without ``inputs.make_eval_input_fn``."""
    from .. import inputs

    require_answer(answer, name)
    _callable_input_fn(answer, name)
    helper = {inputs.make_eval_input_fn.__code__, inputs.make_eval_input_fn().__code__}
    labels = np.asarray(dataset.test_labels)
    sizes = [min(batch_size, len(labels) - at) for at in range(0, len(labels), batch_size)]
    comparer = _Comparer(dataset.test_images, labels, sizes)
    if _run_estimator(answer, name, "eval", comparer, helper):
        fail(
            "`{name}()` gets its batches from inputs.make_eval_input_fn, which the exercise "
            "asks you to do without: build them yourself from inputs.image_dataset and the "
            "steps this notebook took on it "
            "(section 'The course's input functions are exactly this')",
            name=name,
        )
    whole = said(N_("{dataset}'s test split"), dataset=dataset.name)
    others = {
        said(N_("{dataset}'s training split"), dataset=dataset.name): (
            dataset.train_images,
            dataset.train_labels,
        ),
        said(N_("{dataset}'s test split"), dataset=other.name): (
            other.test_images,
            other.test_labels,
        ),
    }
    _judge(comparer, name, others, whole)
    # evaluate() calls the input function anew each time: a second call gives the same batches
    again = _Comparer(dataset.test_images, labels[: 2 * batch_size], sizes[:2])
    _run_estimator(answer, name, "eval", again, steps=2)
    if again.first is not None or sum(again.batches) != len(again.labels):
        fail(
            "a second evaluate() with `{name}` read other batches than the first: the Estimator "
            "calls the input function anew at each evaluate(), and each call must give the "
            "same data in the same order",
            name=name,
        )
    correct(
        "evaluate() read {batches} batches of {batch_size} (the last of {last}): every test "
        "image and label once, in order, each pixel as the files hold it",
        batches=len(sizes),
        batch_size=batch_size,
        last=sizes[-1],
    )


@reporting_learner_errors
def class_id_input_fn(answer, one_hot_input_fn, name: str = "class_id_input_fn") -> None:
    """Notebook 02, exercise 3: ``one_hot_input_fn``'s batches with each one-hot label turned back
    into its class id. The answer is given to a real ``Estimator.train`` while
    ``one_hot_input_fn`` itself (the function object, however the answer reaches it) yields
    one-hot batches over data the notebook never showed, drawn anew at every run: a slice of
    Fashion-MNIST's training images at a random offset, in batches of a random size; what the
    model_fn receives is compared in full, batch by batch, with those batches."""
    import tensorflow as tf

    from .. import data, inputs

    require_answer(answer, name)
    _callable_input_fn(answer, name)
    rng = np.random.default_rng()
    # more batches than the notebook's 600, of 2 or 3 examples, and a short last one
    skip, count = int(rng.integers(0, 5000)), int(rng.integers(1900, 2500))
    batch_size = int(rng.integers(2, 4))
    count += count % batch_size == 0
    arrays = data.load("fashion-mnist")
    called = []

    def stand_in(*args, **kwargs):
        called.append(True)
        return (
            inputs.image_dataset("fashion-mnist", "train")
            .skip(skip)
            .take(count)
            .batch(batch_size)
            .map(lambda image, label: ({"image": image}, tf.one_hot(label, 10)))
        )

    sizes = [min(batch_size, count - at) for at in range(0, count, batch_size)]
    images = arrays.train_images[skip : skip + count]
    comparer = _Comparer(images, arrays.train_labels[skip : skip + count], sizes)
    with _standing_in(one_hot_input_fn, stand_in):
        _run_estimator(answer, name, "train", comparer)
    if not called:
        fail(
            "`{name}()` never calls one_hot_input_fn(): the exercise asks for its batches as "
            "they are, read inside your function, with each one-hot label turned back into its "
            "class id",
            name=name,
        )
    _judge(comparer, name, {}, said(N_("the batches of one_hot_input_fn()")), mode="train")
    # and with the notebook's own one_hot_input_fn, so that an answer that tells the stand-in
    # from it gains nothing: its first batches of MNIST, 100 each, compared the same way
    steps, arrays = 12, data.load("mnist")
    real = _Comparer(
        arrays.train_images[: 100 * steps], arrays.train_labels[: 100 * steps], [100] * steps
    )
    _run_estimator(answer, name, "train", real, steps=steps)
    _judge(real, name, {}, said(N_("the batches of one_hot_input_fn()")), mode="train")
    correct(
        "train() read every batch of a one-hot input of the check's (Fashion-MNIST images, a "
        "slice and a batch size drawn at each run), each as it was with its class ids, shape "
        "[batch]: what the model's loss reads"
    )


STAND_IN_NAME = "_workbook_check_stand_in"


@contextlib.contextmanager
def _standing_in(function, stand_in):
    """While it lasts, ``function`` (a plain Python function) calls ``stand_in`` with its
    arguments instead of running its own code: every reference to it, a global, a default
    argument, a ``partial``, an object holding it, reaches the stand-in. Its globals hold the
    stand-in under ``STAND_IN_NAME`` meanwhile."""
    namespace, code = function.__globals__, function.__code__
    relay = compile(
        f"def relay(*args, **kwargs):\n    return {STAND_IN_NAME}(*args, **kwargs)\n",
        "<check>",
        "exec",
    )
    relay_code = next(c for c in relay.co_consts if hasattr(c, "co_code"))
    namespace[STAND_IN_NAME] = stand_in
    function.__code__ = relay_code.replace(co_name=code.co_name)
    try:
        yield
    finally:
        function.__code__ = code
        namespace.pop(STAND_IN_NAME, None)


def _callable_input_fn(answer, name: str) -> None:
    """Refuse in one line an answer that is not an input function."""
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


def _check_element_spec(spec, name: str) -> None:
    """Features a dict holding ``image`` float32 [batch, 28, 28], labels int class ids [batch]."""
    import tensorflow as tf

    if isinstance(spec, dict):
        fail(
            "each element of `{name}()` is a dict only, with no labels beside it: yield "
            "`(features, labels)` pairs, because cnn_model_fn takes the labels as its own "
            "argument",
            name=name,
        )
    if not isinstance(spec, tuple) or len(spec) != 2:
        fail(
            "each element of `{name}()` should be a pair `(features, labels)`, not {spec}",
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
            "the elements are single images of shape `(28, 28)`: batch them (for example "
            "`.batch(100)`), because the Estimator runs one training step per element"
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
    if labels.dtype not in (tf.int32, tf.int64):  # what the model's loss takes
        fail(
            "the labels are {dtype}: the model wants integer class ids (tf.int32)",
            dtype=labels.dtype.name,
        )
    if labels.shape.rank != 1:
        fail(
            "the labels have shape {shape}: the model wants one class id per image, shape [batch]",
            shape=labels.shape,
        )
