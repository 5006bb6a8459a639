"""Every message of notebook 08's exercise checks.

Exercise 1's check loads a real SavedModel: a tiny CNN is trained for one
step on random images and exported here, once with a raw-image receiver and
once with a parsing receiver, in a few seconds.
"""

import numpy as np
import pytest
import tensorflow as tf

from helpers import checks
from helpers.problems import CheckFailed
from tests.test_export import tiny_estimator


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    root = tmp_path_factory.mktemp("checks08")
    estimator = tiny_estimator(root / "model")

    def pixels_receiver_fn():
        images = tf.compat.v1.placeholder(tf.float32, [None, 28, 28], name="pixels")
        return tf.estimator.export.ServingInputReceiver({"image": images}, {"pixels": images})

    raw = estimator.export_saved_model(str(root / "raw"), pixels_receiver_fn).decode()
    spec = {"image": tf.io.FixedLenFeature([28, 28], tf.float32)}
    parsing = estimator.export_saved_model(
        str(root / "parsing"), tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)).decode()
    images = np.random.default_rng(3).random((6, 28, 28), dtype=np.float32)
    classes = tf.saved_model.load(raw).signatures["serving_default"](pixels=tf.constant(images))["classes"].numpy()
    return {"raw": raw, "parsing": parsing, "images": images, "classes": classes, "root": root}


# --- exercise 1: the fixed serving receiver ------------------------------------


def test_exercise_1_correct(exports, capsys):
    checks.fixed_serving_export(exports["raw"], exports["images"], exports["classes"])
    out = capsys.readouterr().out
    assert out.startswith("Correct: the serving input 'pixels' feeds the model's feature 'image'")
    assert "on all 6 digits" in out


def test_exercise_1_accepts_bytes(exports, capsys):
    checks.fixed_serving_export(exports["raw"].encode(), exports["images"], exports["classes"])
    assert "Correct" in capsys.readouterr().out


def test_exercise_1_blank(exports):
    with pytest.raises(CheckFailed, match="`fixed_export_dir` is still None"):
        checks.fixed_serving_export(None, exports["images"], exports["classes"])


def test_exercise_1_not_a_path(exports):
    with pytest.raises(CheckFailed, match="should be the export directory .* not a dict"):
        checks.fixed_serving_export({}, exports["images"], exports["classes"])


def test_exercise_1_no_saved_model(exports):
    with pytest.raises(CheckFailed, match="there is no saved_model.pb in"):
        checks.fixed_serving_export(str(exports["root"]), exports["images"], exports["classes"])


def test_exercise_1_parsing_receiver(exports):
    with pytest.raises(CheckFailed, match=r"the serving input 'examples' is string .* float32 \[None, 28, 28\]"):
        checks.fixed_serving_export(exports["parsing"], exports["images"], exports["classes"])


def test_exercise_1_other_predictions(exports):
    wrong = (exports["classes"] + 1) % 10
    with pytest.raises(CheckFailed, match="predicts a different class for 6 of 6 test digits"):
        checks.fixed_serving_export(exports["raw"], exports["images"], wrong)


# --- exercise 2: one array of probabilities ------------------------------------

REFERENCE = np.full((5, 10), 0.1, dtype=np.float32)


def test_exercise_2_correct(capsys):
    checks.batch_probabilities(REFERENCE.copy(), REFERENCE)
    assert capsys.readouterr().out.startswith("Correct: one array of shape (5, 10)")


def test_exercise_2_accepts_a_nested_list(capsys):
    checks.batch_probabilities(REFERENCE.tolist(), REFERENCE)
    assert "Correct" in capsys.readouterr().out


def _generator():
    yield {"probabilities": REFERENCE}


@pytest.mark.parametrize("answer, message", [
    (None, "`first_probabilities` is still None"),
    (_generator(), "is still a generator: predict only runs when you read it"),
    ({"probabilities": REFERENCE}, "is a dict (keys ['probabilities']): keep only its 'probabilities' array"),
    ([{"probabilities": REFERENCE[:3]}, {"probabilities": REFERENCE[3:]}], "is a list of 2 dicts"),
    ("probabilities", "should be a NumPy array of shape (5, 10), not a str"),
    (REFERENCE[:4], "has shape (4, 10), expected (5, 10)"),
    (REFERENCE.T, "has shape (10, 5), expected (5, 10)"),
    (REFERENCE + 0.01, "differs from the Estimator's probabilities by up to 0.01"),
])
def test_exercise_2_messages(answer, message):
    with pytest.raises(CheckFailed) as caught:
        checks.batch_probabilities(answer, REFERENCE)
    assert message in str(caught.value)
