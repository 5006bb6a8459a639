"""Every message of notebook 08's exercise checks.

Exercise 1's check loads a real SavedModel: the tiny CNN of
``tests/helpers/conftest.py`` (``trained_cnn``) is exported here, once with a
raw-image receiver and once with a parsing receiver, in a few seconds.
"""

import numpy as np
import pytest
import tensorflow as tf

from helpers import export
from helpers.checks import notebook08 as checks
from helpers.problems import CheckFailed
from tests.support.banks import bank

# The kinds that do not apply, argued (tests/support/banks.py).
NOT_APPLICABLE = {
    1: {
        "off by one": "an export directory: no count",
        "forbidden API": "the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "an export of the notebook's one model: no other model it must work for"
        ),
    },
    2: {
        "wrong unit": "a position: no unit",
        "right on the notebook's data, wrong in general": (
            "a position in the notebook's one test set: no other data"
        ),
    },
}


@pytest.fixture(scope="module")
def exports(trained_cnn, tmp_path_factory):
    root = tmp_path_factory.mktemp("checks08")
    estimator = trained_cnn

    def pixels_receiver_fn():
        images = tf.compat.v1.placeholder(tf.float32, [None, 28, 28], name="pixels")
        return tf.estimator.export.ServingInputReceiver({"image": images}, {"pixels": images})

    raw = estimator.export_saved_model(str(root / "raw"), pixels_receiver_fn).decode()
    spec = {"image": tf.io.FixedLenFeature([28, 28], tf.float32)}
    parsing = estimator.export_saved_model(
        str(root / "parsing"), tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)
    ).decode()
    renamed = estimator.export_saved_model(
        str(root / "renamed"), export.serving_input_receiver_fn
    ).decode()
    images = np.random.default_rng(3).random((6, 28, 28), dtype=np.float32)
    classes = (
        tf.saved_model.load(raw)
        .signatures["serving_default"](pixels=tf.constant(images))["classes"]
        .numpy()
    )
    return {
        "raw": raw,
        "parsing": parsing,
        "renamed": renamed,
        "images": images,
        "classes": classes,
        "root": root,
    }


# --- exercise 1: the fixed serving receiver ------------------------------------


def test_exercise_1_correct(exports, capsys):
    checks.fixed_serving_export(exports["raw"], exports["images"], exports["classes"])
    out = capsys.readouterr().out
    assert out.startswith("Correct: the serving input 'pixels' feeds the model's feature 'image'")
    assert "on all 6 digits" in out


@bank(1, "right, written otherwise")  # what export_saved_model returns, not as text
def test_exercise_1_accepts_bytes(exports, capsys):
    checks.fixed_serving_export(exports["raw"].encode(), exports["images"], exports["classes"])
    assert "Correct" in capsys.readouterr().out


def test_exercise_1_blank(exports):
    with pytest.raises(CheckFailed, match="`fixed_export_dir` is still None"):
        checks.fixed_serving_export(None, exports["images"], exports["classes"])


def test_exercise_1_not_a_path(exports):
    with pytest.raises(CheckFailed, match="should be the export directory .* not a dict"):
        checks.fixed_serving_export({}, exports["images"], exports["classes"])


# a folder typed in ('../models/08_export', printed above) that holds no export itself
@bank(1, "hard-coded from an output above")
def test_exercise_1_no_saved_model(exports):
    with pytest.raises(CheckFailed, match="there is no saved_model.pb in"):
        checks.fixed_serving_export(str(exports["root"]), exports["images"], exports["classes"])


def test_exercise_1_parsing_receiver(exports):
    with pytest.raises(
        CheckFailed, match=r"the serving input 'examples' is string .* float32 \[None, 28, 28\]"
    ):
        checks.fixed_serving_export(exports["parsing"], exports["images"], exports["classes"])


@bank(1, "copy of a nearby cell")  # the section's receiver, with 'image'
def test_exercise_1_clients_must_not_change(exports):
    """Everything renamed to 'image': it exports, but the clients that send 'pixels' break."""
    with pytest.raises(
        CheckFailed, match="the serving input is called 'image', but the clients send 'pixels'"
    ):
        checks.fixed_serving_export(exports["renamed"], exports["images"], exports["classes"])


def test_exercise_1_other_predictions(exports):
    wrong = (exports["classes"] + 1) % 10
    with pytest.raises(CheckFailed, match="predicts a different class for 6 of 6 test digits"):
        checks.fixed_serving_export(exports["raw"], exports["images"], wrong)


RECEIVER_CHANGES = {  # a receiver that changes the images: the model is right, the receiver not
    "divided by 255": pytest.param(
        lambda x: x / 255.0, "the receiver divides the images by 255", marks=bank(1, "wrong unit")
    ),
    "transposed": pytest.param(
        lambda x: tf.transpose(x, [0, 2, 1]),
        "the receiver transposes the images",
        marks=bank(1, "right shape, wrong content"),
    ),
    "inverted": (lambda x: 1.0 - x, "the receiver inverts the images (1 - x)"),
}


def _random_linear_model_fn(features, labels, mode):
    """Random weights and biases, one step of learning rate 0: classes that change with any change
    of the images (the tiny CNN, trained one step on noise, gives one class to most images)."""
    flat = tf.reshape(features["image"], [-1, 784])
    dense = tf.keras.layers.Dense(
        10,
        kernel_initializer=tf.keras.initializers.RandomNormal(stddev=1.0, seed=1),
        bias_initializer=tf.keras.initializers.RandomNormal(stddev=30.0, seed=2),
    )
    classes = tf.argmax(dense(flat), axis=1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        output = tf.estimator.export.PredictOutput({"classes": classes})
        return tf.estimator.EstimatorSpec(
            mode, predictions={"classes": classes}, export_outputs={"serving_default": output}
        )
    loss = tf.reduce_mean(tf.cast(classes, tf.float32)) * 0.0 + tf.reduce_sum(dense.kernel) * 0.0
    step = tf.compat.v1.assign_add(tf.compat.v1.train.get_global_step(), 1)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=step)


@pytest.fixture(scope="module")
def varied(tmp_path_factory):
    """(an Estimator whose classes vary with the images, its images, its classes)."""
    estimator = tf.estimator.Estimator(
        _random_linear_model_fn, model_dir=str(tmp_path_factory.mktemp("varied"))
    )
    images = np.random.default_rng(4).random((50, 28, 28), dtype=np.float32)
    estimator.train(
        lambda: tf.data.Dataset.from_tensors(({"image": images}, np.zeros(50, np.int32))), steps=1
    )
    classes = np.array(
        [
            p["classes"]
            for p in estimator.predict(
                lambda: tf.data.Dataset.from_tensor_slices({"image": images}).batch(25)
            )
        ]
    )
    assert len(set(classes.tolist())) > 3  # the test needs classes that vary
    return estimator, images, classes


@pytest.mark.parametrize("change, message", RECEIVER_CHANGES.values(), ids=RECEIVER_CHANGES)
def test_exercise_1_a_receiver_that_changes_the_images(varied, tmp_path, change, message):
    estimator, images, classes = varied

    def changing_receiver_fn():
        pixels = tf.compat.v1.placeholder(tf.float32, [None, 28, 28], name="pixels")
        return tf.estimator.export.ServingInputReceiver(
            {"image": change(pixels)}, {"pixels": pixels}
        )

    folder = estimator.export_saved_model(str(tmp_path), changing_receiver_fn)
    with pytest.raises(CheckFailed) as caught:
        checks.fixed_serving_export(folder, images, classes)
    assert str(caught.value).startswith(message), caught.value
    assert "export the trained" not in str(caught.value)  # the model is the trained one


def test_exercise_1_the_varied_model_unchanged_is_correct(varied, tmp_path, capsys):
    estimator, images, classes = varied

    def receiver_fn():
        pixels = tf.compat.v1.placeholder(tf.float32, [None, 28, 28], name="pixels")
        return tf.estimator.export.ServingInputReceiver({"image": pixels}, {"pixels": pixels})

    checks.fixed_serving_export(
        estimator.export_saved_model(str(tmp_path), receiver_fn), images, classes
    )
    assert capsys.readouterr().out.startswith("Correct:")


def test_exercise_1_one_placeholder_under_two_names(trained_cnn, exports, tmp_path):
    """TensorFlow exports it, then cannot load it: one line, not its traceback."""

    def twice_receiver_fn():
        pixels = tf.compat.v1.placeholder(tf.float32, [None, 28, 28], name="pixels")
        return tf.estimator.export.ServingInputReceiver(
            {"image": pixels}, {"pixels": pixels, "image": pixels}
        )

    folder = trained_cnn.export_saved_model(str(tmp_path), twice_receiver_fn)
    with pytest.raises(CheckFailed, match="gives one placeholder two names in receiver_tensors"):
        checks.fixed_serving_export(folder, exports["images"], exports["classes"])


def test_exercise_1_two_serving_inputs(trained_cnn, exports, tmp_path):
    def two_inputs_receiver_fn():
        images = tf.compat.v1.placeholder(tf.float32, [None, 28, 28], name="pixels")
        ids = tf.compat.v1.placeholder(tf.int64, [None], name="ids")
        return tf.estimator.export.ServingInputReceiver(
            {"image": images}, {"pixels": images, "ids": ids}
        )

    path = trained_cnn.export_saved_model(str(tmp_path), two_inputs_receiver_fn).decode()
    with pytest.raises(CheckFailed, match=r"takes 2 inputs \(\['ids', 'pixels'\]\): give it one"):
        checks.fixed_serving_export(path, exports["images"], exports["classes"])


def test_exercise_1_no_serving_signature(exports, tmp_path):
    """A SavedModel of something else than an Estimator, saved without signatures."""
    tf.saved_model.save(tf.Module(), str(tmp_path))
    with pytest.raises(
        CheckFailed,
        match=r"^the SavedModel has no serving_default signature: export the course CNN's "
        r"model_fn$",
    ):
        checks.fixed_serving_export(str(tmp_path), exports["images"], exports["classes"])


def saved_signature(path, shape, output: str) -> str:
    """A SavedModel of a plain ``tf.Module`` (no Estimator: fast) whose serving_default takes
    float32 ``shape`` as 'pixels' and returns zeros under ``output``."""

    @tf.function(input_signature=[tf.TensorSpec(shape, tf.float32, name="pixels")])
    def serve(pixels):
        return {output: tf.zeros(tf.shape(pixels)[:1], tf.int64)}

    module = tf.Module()
    module.serve = serve
    tf.saved_model.save(module, str(path), signatures={"serving_default": serve})
    return str(path)


def test_exercise_1_flat_float_images(exports, tmp_path):
    """The right dtype, the wrong shape: clients would have to flatten their images."""
    with pytest.raises(
        CheckFailed,
        match=r"^the serving input 'pixels' is float32 \(None, 784\): it should take raw images, "
        r"float32 \[None, 28, 28\]$",
    ):
        checks.fixed_serving_export(
            saved_signature(tmp_path, [None, 784], "classes"), exports["images"], exports["classes"]
        )


def test_exercise_1_no_classes_output(exports, tmp_path):
    with pytest.raises(
        CheckFailed, match=r"^the signature returns \['class_ids'\], not 'classes': export the "
    ):
        checks.fixed_serving_export(
            saved_signature(tmp_path, [None, 28, 28], "class_ids"),
            exports["images"],
            exports["classes"],
        )


# --- exercise 2: the first digit the model gets wrong --------------------------

LABELS = np.array([7, 2, 1, 0, 4, 1, 4, 9, 5, 9, 0, 6, 9, 0, 1, 5])
CLASSES = LABELS.copy()
CLASSES[[12, 14]] = [4, 7]  # digit 12 (a 9 read as a 4) is the first mistake, digit 14 the last


class StandIn:
    """An Estimator's predict, as far as the watch sees it: a generator of CLASSES, one example
    at a time or in batches of 5, with every key or the ones asked for."""

    def predict(
        self,
        input_fn,
        predict_keys=None,
        hooks=None,
        checkpoint_path=None,
        yield_single_examples=True,
    ):
        keys = ["classes", "probabilities"] if predict_keys is None else predict_keys
        keys = [keys] if isinstance(keys, str) else keys
        rows = {"classes": CLASSES, "probabilities": np.eye(10)[CLASSES]}
        if yield_single_examples:
            for position in range(len(CLASSES)):
                yield {key: rows[key][position] for key in keys}
        else:
            for start in range(0, len(CLASSES), 5):
                yield {key: rows[key][start : start + 5] for key in keys}


def _solution(estimator):  # the notebook's
    predictions = estimator.predict(None, predict_keys=["classes"])
    answer = None
    for position, (prediction, label) in enumerate(zip(predictions, LABELS)):
        if prediction["classes"] != label:
            answer = position
            break
    predictions.close()
    return answer


def read():
    """The notebook's solution, run on the stand-in: (its answer, the watch)."""
    return watched(_solution)


def watched(reading):
    """(the answer, the watch) of a cell that reads the stand-in's predict with ``reading``."""
    estimator = StandIn()
    watch = checks.watch_predict(estimator)
    return reading(estimator), watch


RIGHT_READINGS = {
    "the solution": _solution,
    "the key as a string, next() in a loop": pytest.param(
        lambda e: _next_until_wrong(e.predict(None, predict_keys="classes")),
        marks=bank(2, "right, written otherwise"),
    ),
}


def _next_until_wrong(predictions):
    position = 0
    while next(predictions)["classes"] == LABELS[position]:
        position += 1
    predictions.close()
    return position


@pytest.mark.parametrize("reading", RIGHT_READINGS.values(), ids=RIGHT_READINGS)
def test_exercise_2_right_readings_pass(reading, capsys):
    answer, watch = watched(reading)
    checks.first_wrong_digit(answer, LABELS, CLASSES, watch)
    assert "found by reading 13 predictions" in capsys.readouterr().out


def _all_of_them(estimator):
    classes = [p["classes"] for p in estimator.predict(None, predict_keys=["classes"])]
    return int(np.argmax(np.array(classes) != LABELS))


def _batches(estimator):
    for start, batch in zip(
        range(0, 99, 5),
        estimator.predict(None, predict_keys=["classes"], yield_single_examples=False),
    ):
        wrong = np.flatnonzero(batch["classes"] != LABELS[start : start + 5])
        if len(wrong):
            return start + int(wrong[0])


def _every_key(estimator):
    predictions = estimator.predict(None)
    for position, prediction in enumerate(predictions):
        if prediction["classes"] != LABELS[position]:
            predictions.close()
            return position


def _one_too_many(estimator):  # reads the next one before it stops: off by one in the reading
    predictions = estimator.predict(None, predict_keys=["classes"])
    found = None
    for position, prediction in enumerate(predictions):
        if found is not None:
            break
        if prediction["classes"] != LABELS[position]:
            found = position
    predictions.close()
    return found


# what a cell read that gives the right position for the wrong reason
WRONG_READINGS = {
    # the reference table of a cell above
    "from the reference table, no predict at all": pytest.param(
        lambda e: int(np.argmax(CLASSES != LABELS)),
        "your cell never read `estimator.predict`",
        marks=bank(2, "copy of a nearby cell"),
    ),
    "hard-coded from an output above": pytest.param(
        lambda e: 12,
        "your cell never read `estimator.predict`",
        marks=bank(2, "hard-coded from an output above"),
    ),
    "every prediction, listed": (_all_of_them, "your cell read 16 predictions, 3 past the first"),
    # the prompt asks for one example at a time
    "whole batches": pytest.param(
        _batches,
        "your cell read whole batches (yield_single_examples=False)",
        marks=bank(2, "forbidden API"),
    ),
    "every key": (_every_key, "your cell asked predict for all the keys"),
    "one more read before stopping": (_one_too_many, "read 14 predictions, 1 past the first"),
}


@pytest.mark.parametrize("reading, message", WRONG_READINGS.values(), ids=WRONG_READINGS)
def test_exercise_2_right_position_read_the_wrong_way(reading, message):
    answer, watch = watched(reading)
    assert answer == 12
    with pytest.raises(CheckFailed) as caught:
        checks.first_wrong_digit(answer, LABELS, CLASSES, watch)
    assert message in str(caught.value)
    assert "predict_keys=[" not in str(caught.value)  # the cause, not the code


def test_the_watch_leaves_the_predictions_as_they_are():
    plain = list(StandIn().predict(None, predict_keys=["classes"]))
    estimator = StandIn()
    checks.watch_predict(estimator)
    assert [p["classes"] for p in estimator.predict(None, predict_keys=["classes"])] == [
        p["classes"] for p in plain
    ]


def test_exercise_2_correct(capsys):
    answer, watch = read()
    checks.first_wrong_digit(answer, LABELS, CLASSES, watch)
    assert capsys.readouterr().out.startswith(
        "Correct: test digit 12 is the first the model gets wrong (a 9 read "
        "as a 4), found by reading 13 predictions, and no prediction graph was left open"
    )


@pytest.mark.parametrize(
    "answer", [np.int64(12), np.array(12), np.array([12])], ids=["np.int64", "0-d", "1 item"]
)
def test_exercise_2_accepts_numpy_numbers(answer, capsys):
    checks.first_wrong_digit(answer, LABELS, CLASSES, read()[1])
    assert "Correct" in capsys.readouterr().out


def _generator():
    yield {"classes": 7}


# (a wrong answer a learner gives, what the message must say);
# the position itself is never in the message
WRONG_ANSWERS = {
    "unanswered": (None, "`first_wrong` is still None"),
    "the generator itself": (_generator(), "is a generator: predict only runs when you read it"),
    "the prediction dict": ({"classes": 4}, "is a prediction (a dict with the keys ['classes'])"),
    "a float position": (12.0, "should be a whole number"),
    "a string": ("12", "should be a whole number"),
    "True for 'there is one'": (True, "should be a whole number"),
    "counted from 1": pytest.param(
        13, "one past it: positions count from 0", marks=bank(2, "off by one")
    ),
    "how many are wrong": (2, "is 2, which is how many test digits are wrong"),
    "the last wrong digit": pytest.param(
        14,
        "is 14, the last digit the model gets wrong: stop at the first",
        marks=bank(2, "right shape, wrong content"),
    ),
    "the true label of that digit": (
        9,
        "the model gets test digit 9 right; a class or a label is not a position",
    ),
    "the predicted class": (
        4,
        "the model gets test digit 4 right; a class or a label is not a position",
    ),
    "a right digit": (3, "the model classifies test digit 3 correctly"),
    "the first position": (0, "the model classifies test digit 0 correctly"),
    "past the end": (16, "there is no test digit 16: positions run from 0 to 15"),
    "minus one (not found)": (-1, "there is no test digit -1: positions run from 0 to 15"),
}


@pytest.mark.parametrize("answer, message", WRONG_ANSWERS.values(), ids=WRONG_ANSWERS)
def test_exercise_2_wrong_answers(answer, message):
    with pytest.raises(CheckFailed) as caught:
        checks.first_wrong_digit(answer, LABELS, CLASSES, read()[1])
    assert message in str(caught.value)
    assert "12" not in str(caught.value).replace(repr(answer), "")


def test_exercise_2_a_generator_left_open():
    """The right position, read from a predict generator that was never closed:
    its graph is still the default."""
    with tf.Graph().as_default() as graph:
        graph.finalize()
        with pytest.raises(
            CheckFailed, match="the position is right, but the prediction graph is still"
        ):
            checks.first_wrong_digit(12, LABELS, CLASSES, read()[1])
