"""Every message of notebook 08's exercise checks.

Exercise 1's check loads a real SavedModel and compares it with a real ``Estimator.predict``: the
tiny CNN of ``tests/helpers/conftest.py`` (``trained_cnn``) is exported here with each receiver a
learner may write, in a second or two each, and checked on the check's own images. The exports are
moved into the ``models/08_exercise_1`` of a project folder of the tests' own (``paths.MODELS_DIR``
points there during each test), where the check wants them.

Exercise 2's check runs a stand-in's ``predict`` (no model) and the answer's input function, which
gives ``IMAGES``, the stand-in's test set (the check's ``_test_images`` is pointed there).
"""

import re
import shutil
from pathlib import Path

import IPython
import numpy as np
import pytest
import tensorflow as tf

from helpers import data, export, inputs, models, paths
from helpers.checks import notebook08 as checks
from helpers.problems import CheckFailed
from tests.support.banks import bank
from tests.support.checks import failure, notebook_headings, zh_tw_heading

# The kinds that do not apply, argued (tests/support/banks.py).
NOT_APPLICABLE = {
    1: {
        "off by one": "an export directory: no count",
        "forbidden API": "the prompt forbids no API",
    },
    2: {
        "wrong unit": "a position: no unit",
    },
}

SIR = tf.estimator.export.ServingInputReceiver
TRAINED = 1  # the steps of trained_cnn (tests/helpers/conftest.py)


def pixels(shape=(None, 28, 28), dtype=tf.float32):
    return tf.compat.v1.placeholder(dtype, None if shape is None else list(shape), name="pixels")


def fixed_receiver_fn():  # the notebook's solution
    images = pixels()
    return SIR(features={"image": images}, receiver_tensors={"pixels": images})


def changing(change, shape=(None, 28, 28), dtype=tf.float32):
    """A receiver that takes the clients' 'pixels' and gives the model ``change`` of them."""

    def receiver_fn():
        images = pixels(shape, dtype)
        return SIR({"image": change(images)}, {"pixels": images})

    return receiver_fn


EXERCISE_FOLDER = "08_exercise_1"  # settings.fresh_model_dir("08_exercise_1"), the prompt's


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A project folder of the tests' own, with an empty ``models/08_exercise_1``."""
    root = tmp_path_factory.mktemp("project")
    (root / "models" / EXERCISE_FOLDER).mkdir(parents=True)
    return root


@pytest.fixture(autouse=True)
def models_dir(project, monkeypatch) -> Path:
    """The check finds the exercise's folder in the tests' project, never in the real models/."""
    monkeypatch.setattr(paths, "MODELS_DIR", project / "models")
    return project / "models"


@pytest.fixture
def export_dir(project, tmp_path) -> str:
    """A folder of this test's own in the exercise's folder, as export_saved_model would make."""
    return str(project / "models" / EXERCISE_FOLDER / tmp_path.name)


@pytest.fixture(scope="module")
def exported(trained_cnn, tmp_path_factory, project):
    """``exported(receiver_fn, estimator=trained_cnn, into=EXERCISE_FOLDER, **kwargs)``: the
    export directory, as text, of ``estimator.export_saved_model`` with that receiver, moved into
    the project's ``models/<into>`` (``into=None``: left in a folder outside the project)."""

    def export_with(receiver_fn, estimator=trained_cnn, into=EXERCISE_FOLDER, **kwargs) -> str:
        base = tmp_path_factory.mktemp("export")
        folder = estimator.export_saved_model(str(base), receiver_fn, **kwargs).decode()
        if into is None:
            return folder
        (project / "models" / into).mkdir(parents=True, exist_ok=True)
        return str(shutil.move(folder, project / "models" / into / base.name))

    return export_with


@pytest.fixture(scope="module")
def exports(exported, tmp_path_factory):
    spec = {"image": tf.io.FixedLenFeature([28, 28], tf.float32)}
    return {
        "raw": exported(fixed_receiver_fn),
        "parsing": exported(tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)),
        "renamed": exported(export.serving_input_receiver_fn),
        "root": tmp_path_factory.mktemp("no_export"),
    }


# --- exercise 1: the fixed serving receiver ------------------------------------


def test_exercise_1_correct(exports, trained_cnn, capsys):
    checks.fixed_serving_export(exports["raw"], trained_cnn, TRAINED)
    out = capsys.readouterr().out
    assert out.startswith("Correct: the serving input 'pixels' feeds the model's feature 'image'")
    assert (
        "on 240 test images drawn at random (160 of Fashion-MNIST, 80 of MNIST, each dimmed" in out
    )
    assert re.search(r"sent as one batch of \d+ \(drawn from them with repeats\), \d+ at a", out)
    assert "and two batches of each size from 1 to 32" in out
    assert "probabilities equal the Estimator's within 5e-05, and its classes too" in out


def test_exercise_1_compares_probabilities_on_unseen_images_at_three_batch_sizes(
    exports, trained_cnn, monkeypatch
):
    """Defect 1: the check served 100 of the notebook's digits and compared classes only. It now
    draws its own images, Fashion-MNIST and MNIST test images at random offsets (two runs draw
    others), asks estimator.predict for them, and serves them all at once, an odd number at a
    time (a short last batch) and one at a time."""
    served, seen = [], []
    original = checks._served

    def watched(signature, key, images, size):
        served.append(size)
        seen.append(images)
        return original(signature, key, images, size)

    monkeypatch.setattr(checks, "_served", watched)
    checks.fixed_serving_export(exports["raw"], trained_cnn, TRAINED)
    rounds = len(served)
    checks.fixed_serving_export(exports["raw"], trained_cnn, TRAINED)
    many, odd, *small = served[:rounds]
    assert 1_100 <= many <= 2_048 and seen[0].shape == (many, 28, 28)
    assert odd % 2 == 1 and 240 % odd and seen[1].shape == (240, 28, 28)
    assert small == list(range(1, checks.SMALL_BATCHES + 1))
    assert [len(images) for images in seen[2:rounds]] == [2 * size for size in small]
    assert seen[1].dtype == np.float32 and 0 <= seen[1].min() and seen[1].max() <= 1
    assert not np.array_equal(seen[1], seen[rounds + 1])  # drawn anew


def test_exercise_1_images_fall_between_the_grey_levels(trained_cnn):
    """Adversary's find (08 ex 1): `tf.round(images * 255) / 255` passed, the check's images
    being the test set's grey levels; each is now dimmed by a random factor."""
    images, _ = checks._unseen_reference(trained_cnn)
    levels = images * 255
    assert np.mean(np.abs(levels - np.round(levels)) > 0.01) > 0.05


@bank(1, "wrong unit")  # what export_saved_model returns, not as text
def test_exercise_1_refuses_bytes(exports, trained_cnn):
    """Adversary's find 1 (08 ex 1): the bytes export_saved_model returns passed, though the
    prompt asks for the path as text; one line says how to make it text."""
    assert failure(checks.fixed_serving_export, exports["raw"].encode(), trained_cnn, TRAINED) == (
        "`fixed_export_dir` is bytes, as export_saved_model returns the path: set it as text, "
        "with `export.as_text_path(...)`"
    )


@bank(1, "right, written otherwise")
def test_exercise_1_accepts_a_pathlib_path(exports, trained_cnn, capsys):
    """Adversary's find 4: a `pathlib.Path` of the text path is text-like; it passes."""
    checks.fixed_serving_export(Path(exports["raw"]), trained_cnn, TRAINED)
    assert capsys.readouterr().out.startswith("Correct")


def test_exercise_1_an_empty_path(trained_cnn):
    """Adversary's find (cosmetic): "" gave 'there is no saved_model.pb in : give the path'."""
    assert failure(checks.fixed_serving_export, "", trained_cnn, TRAINED) == (
        "`fixed_export_dir` is empty: set it to the export directory, as text "
        "(`export.as_text_path` of what export_saved_model returns)"
    )


@bank(1, "copy of a nearby cell")  # the section's export, into the notebook's EXPORT_BASE
def test_exercise_1_an_export_into_another_folder_of_models(exported, trained_cnn):
    """Adversary's find 2: the right receiver, but the export saved beside the notebook's own
    (`models/08_export`) passed; the prompt asks for `models/08_exercise_1`."""
    said = failure(
        checks.fixed_serving_export, exported(fixed_receiver_fn, into="08_export"), trained_cnn, 1
    )
    assert said == (
        "the export is in `models/08_export`, but the exercise asks for it in "
        '`models/08_exercise_1`: export the trained `estimator` into `settings.fresh_model_dir("'
        '08_exercise_1")`'
    )


def test_exercise_1_an_export_outside_the_project(exported, trained_cnn):
    """Adversary's find 2: no machine path in the line, the folder only said to be outside."""
    said = failure(
        checks.fixed_serving_export, exported(fixed_receiver_fn, into=None), trained_cnn, 1
    )
    assert said.startswith(
        "the export is in a folder outside the project, but the exercise asks for it in "
        "`models/08_exercise_1`"
    )


def test_exercise_1_an_export_a_folder_deeper(exported, trained_cnn):
    """export_saved_model given a folder inside the exercise's: its export is one level too deep."""
    folder = exported(fixed_receiver_fn, into=f"{EXERCISE_FOLDER}/base")
    said = failure(checks.fixed_serving_export, folder, trained_cnn, TRAINED)
    assert said.startswith("the export is in `models/08_exercise_1/base`, but the exercise asks")


def test_exercise_1_blank(trained_cnn):
    with pytest.raises(CheckFailed, match="`fixed_export_dir` is still None"):
        checks.fixed_serving_export(None, trained_cnn, TRAINED)


def test_exercise_1_not_a_path(trained_cnn):
    with pytest.raises(CheckFailed, match="should be the export directory .* not a dict"):
        checks.fixed_serving_export({}, trained_cnn, TRAINED)


def test_exercise_1_not_an_estimator(exports):
    """The notebook's `estimator` rebound to something else (here what export_saved_model
    returns): one line, not an AttributeError from inside the check."""
    assert failure(
        checks.fixed_serving_export, exports["raw"], exports["raw"].encode(), TRAINED
    ) == (
        "`estimator` should be the notebook's trained Estimator, not a bytes: run the cell that "
        "trains it again (section 'A trained CNN to export')"
    )


# a folder typed in ('../models/08_export', printed above) that holds no export itself
@bank(1, "hard-coded from an output above")
def test_exercise_1_no_saved_model(exports, trained_cnn):
    with pytest.raises(CheckFailed, match="there is no saved_model.pb in"):
        checks.fixed_serving_export(str(exports["root"]), trained_cnn, TRAINED)


def test_exercise_1_parsing_receiver(exports, trained_cnn):
    with pytest.raises(
        CheckFailed, match=r"the serving input 'examples' is string .* float32 \[None, 28, 28\]"
    ):
        checks.fixed_serving_export(exports["parsing"], trained_cnn, TRAINED)


@bank(1, "copy of a nearby cell")  # the section's receiver, with 'image'
def test_exercise_1_clients_must_not_change(exports, trained_cnn):
    """Everything renamed to 'image': it exports, but the clients that send 'pixels' break."""
    with pytest.raises(
        CheckFailed, match="the serving input is called 'image', but the clients send 'pixels'"
    ):
        checks.fixed_serving_export(exports["renamed"], trained_cnn, TRAINED)


def _receiver_tensors_alternatives():
    images = pixels()
    return SIR({"image": images}, {"pixels": images}, {"image": {"image": images}})


def _raw_receiver_renamed():
    raw = tf.estimator.export.build_raw_serving_input_receiver_fn({"pixels": tf.zeros([1, 28, 28])})
    receiver = raw()
    return SIR({"image": receiver.receiver_tensors["pixels"]}, receiver.receiver_tensors)


def _with_default():
    images = tf.compat.v1.placeholder_with_default(tf.zeros([1, 28, 28]), [None, 28, 28], "pixels")
    return SIR({"image": images}, {"pixels": images})


def _features_under_both_keys():  # the model reads 'image'; 'pixels' is a feature it ignores
    images = pixels()
    return SIR({"image": images, "pixels": images}, {"pixels": images})


def _unnamed_placeholder():  # the signature's key is receiver_tensors', not the placeholder's
    images = tf.compat.v1.placeholder(tf.float32, [None, 28, 28])
    return SIR({"image": images}, {"pixels": images})


# receivers that give the model the clients' images as they are, written otherwise: each passes
RIGHT_RECEIVERS = {
    "tf.identity": changing(tf.identity),
    "reshaped to [-1, 28, 28]": changing(lambda x: tf.reshape(x, [-1, 28, 28])),
    "flattened to [-1, 784] (the model reshapes it)": changing(lambda x: tf.reshape(x, [-1, 784])),
    "cast to float64 and back": changing(lambda x: tf.cast(tf.cast(x, tf.float64), tf.float32)),
    # defect 2: a placeholder of unknown rank exports and serves every batch size right
    "a placeholder of unknown rank": changing(tf.identity, shape=None),
    "a placeholder [None, None, None]": changing(tf.identity, shape=(None, None, None)),
    "placeholder_with_default": _with_default,
    "an unnamed placeholder": _unnamed_placeholder,
    "build_raw_serving_input_receiver_fn, renamed": _raw_receiver_renamed,
    "receiver_tensors_alternatives besides": _receiver_tensors_alternatives,
    "features under both keys": _features_under_both_keys,
}


@bank(1, "right, written otherwise")
@pytest.mark.parametrize("receiver_fn", RIGHT_RECEIVERS.values(), ids=RIGHT_RECEIVERS)
def test_exercise_1_right_receivers_written_otherwise(exported, trained_cnn, receiver_fn, capsys):
    checks.fixed_serving_export(exported(receiver_fn), trained_cnn, TRAINED)
    assert capsys.readouterr().out.startswith("Correct: the serving input 'pixels' feeds")


def test_exercise_1_unknown_rank_is_not_a_traceback(exported, trained_cnn, capsys):
    """Defect 2: `spec.shape.as_list()` raised `ValueError: as_list() is not defined on an unknown
    TensorShape` from inside the check; such an export serves every batch size right (the model
    reshapes its feature), so it passes."""
    checks.fixed_serving_export(exported(changing(tf.identity, shape=None)), trained_cnn, TRAINED)
    assert "Correct" in capsys.readouterr().out


def test_exercise_1_unknown_rank_of_another_dtype(exported, trained_cnn):
    """A shape of unknown rank in a refusal is said in words."""
    receiver_fn = changing(lambda x: tf.cast(x, tf.float32), shape=None, dtype=tf.float64)
    assert failure(checks.fixed_serving_export, exported(receiver_fn), trained_cnn, TRAINED) == (
        "the serving input 'pixels' is float64 of unknown rank: it should take raw images, "
        "float32 [None, 28, 28]"
    )


def _bare_receiver_tensor():
    images = pixels()
    return SIR({"image": images}, images)  # one tensor: its key is 'input'


def _an_extra_receiver_tensor():
    images = pixels()
    ids = tf.compat.v1.placeholder(tf.int64, [None], name="ids")
    return SIR({"image": images}, {"pixels": images, "ids": ids})


def _first_image_only():
    images = pixels()
    return SIR({"image": images[:1]}, {"pixels": images})


def _ensure_a_batch_of_100():
    images = pixels(shape=None)
    return SIR({"image": tf.ensure_shape(images, [100, 28, 28])}, {"pixels": images})


# a receiver that changes the images: the model is the trained one, the receiver is not right
CHANGES = {
    "divided by 255": pytest.param(
        changing(lambda x: x / 255.0),
        "the receiver divides the images by 255 before the model sees them",
        marks=bank(1, "wrong unit"),
    ),
    # defect 1: it kept the classes of the old check's 100 digits
    "multiplied by 255": pytest.param(
        changing(lambda x: x * 255.0),
        "the receiver multiplies the images by 255 before the model sees them",
        marks=bank(1, "wrong unit"),
    ),
    "transposed": pytest.param(
        changing(lambda x: tf.transpose(x, [0, 2, 1])),
        "the receiver transposes the images before the model sees them",
        marks=bank(1, "right shape, wrong content"),
    ),
    "inverted": (
        changing(lambda x: 1.0 - x),
        "the receiver inverts the images (1 - x) before the model sees them",
    ),
    # defect 1: any small change that keeps the classes
    "one grey level brighter": pytest.param(
        changing(lambda x: x + 1.0 / 255),
        "at a time, the SavedModel's probabilities differ from the Estimator's on ",
        marks=bank(1, "right shape, wrong content"),
    ),
    "scaled back to 0-255 as uint8 and cast": (
        changing(lambda x: tf.cast(tf.cast(x * 255.0, tf.uint8), tf.float32)),
        "although it holds the trained weights: the receiver changes the images",
    ),
    # adversary's find: the check sent batches of 240, an odd size and 1
    "zeroed when the batch is of 8": (
        changing(lambda x: tf.cond(tf.equal(tf.shape(x)[0], 8), lambda: x * 0.0, lambda: x)),
        "sent 8 at a time, the SavedModel's probabilities differ from the Estimator's on ",
    ),
    "halved when it is one image": (  # right in batches: the sizes the check sends name it
        changing(lambda x: tf.cond(tf.shape(x)[0] > 1, lambda: x, lambda: x * 0.5)),
        "sent 1 at a time, the SavedModel's probabilities differ from the Estimator's on ",
    ),
}


@pytest.mark.parametrize("receiver_fn, message", CHANGES.values(), ids=CHANGES)
def test_exercise_1_a_receiver_that_changes_the_images(exported, trained_cnn, receiver_fn, message):
    said = failure(checks.fixed_serving_export, exported(receiver_fn), trained_cnn, TRAINED)
    assert message in said, said
    assert "export the trained" not in said  # the model is the trained one


def test_exercise_1_messages_count_the_images_sent(exported, trained_cnn):
    """Adversary's find 5: a failure said "differ … on 1101 of the check's 1101 images" while the
    success line said "on 240 test images"; each now counts the images sent in that round, and
    the success line says the big batch repeats them. Two batches of each small size are sent,
    so that no count is of one image."""
    big = changing(lambda x: tf.cond(tf.shape(x)[0] > 1000, lambda: x * 0.5, lambda: x))
    said = failure(checks.fixed_serving_export, exported(big), trained_cnn, TRAINED)
    match = re.match(
        r"sent (\d+) at a time, the SavedModel's probabilities differ from the Estimator's on "
        r"(\d+) of the (\d+) images sent \(by up to [^)]+\) although it holds",
        said,
    )
    assert match and match[1] == match[3] and int(match[2]) <= int(match[3]), said
    one = changing(lambda x: tf.cond(tf.shape(x)[0] > 1, lambda: x, lambda: x * 0.5))
    said = failure(checks.fixed_serving_export, exported(one), trained_cnn, TRAINED)
    assert re.match(r"sent 1 at a time, .* on [12] of the 2 images sent \(by up to", said), said


WRONG_RECEIVERS = {
    "a float64 placeholder": (
        changing(tf.identity, dtype=tf.float64),
        "the serving input 'pixels' is float64 [None, 28, 28]: it should take raw images, "
        "float32 [None, 28, 28]",
    ),
    "uint8 pixels, scaled in the receiver": (
        changing(lambda x: tf.cast(x, tf.float32) / 255.0, dtype=tf.uint8),
        "the serving input 'pixels' is uint8 [None, 28, 28]: it should take raw images, "
        "float32 [None, 28, 28]",
    ),
    "flat images [None, 784], reshaped in the receiver": (
        changing(lambda x: tf.reshape(x, [-1, 28, 28]), shape=(None, 784)),
        "the serving input 'pixels' is float32 [None, 784]: it should take raw images, "
        "float32 [None, 28, 28]",
    ),
    "a channel too: [None, 28, 28, 1]": (
        changing(tf.identity, shape=(None, 28, 28, 1)),
        "the serving input 'pixels' is float32 [None, 28, 28, 1]: it should take raw images, "
        "float32 [None, 28, 28]",
    ),
    # the old check sent test_images[:100]: a batch of 100 passed it
    "a batch of 100 only": pytest.param(
        changing(tf.identity, shape=(100, 28, 28)),
        "the serving input 'pixels' is float32 [100, 28, 28]: it should take raw images, "
        "float32 [None, 28, 28]",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
    "a batch of 100 ensured in the receiver": (
        _ensure_a_batch_of_100,
        r"on a batch of (\d+) images, float32 \[\1, 28, 28\] as the clients send them, the "
        r"SavedModel raised InvalidArgumentError: Shape of tensor pixels \[\1,28,28\] is not "
        r"compatible with expected shape \[100,28,28\]$",
    ),
    "the first image only": (
        _first_image_only,
        r"for a batch of \d+ images the SavedModel returns classes of shape \[1\]: the receiver "
        r"should give the model each image the clients send, as it is$",
    ),
    # adversary's find: the check sent at most 240 images at once, the notebook 1,000
    "the first 500 images only": pytest.param(
        changing(lambda x: x[:500]),
        r"for a batch of \d+ images the SavedModel returns classes of shape \[500\]: the "
        r"receiver should give the model each image the clients send, as it is$",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
    "receiver_tensors a bare tensor": (
        _bare_receiver_tensor,
        "the serving input is called 'input', but the clients send 'pixels'",
    ),
    "an extra receiver tensor": (
        _an_extra_receiver_tensor,
        "the serving signature takes 2 inputs (['ids', 'pixels']): give it one, the images",
    ),
}


@pytest.mark.parametrize("receiver_fn, message", WRONG_RECEIVERS.values(), ids=WRONG_RECEIVERS)
def test_exercise_1_wrong_receivers(exported, trained_cnn, receiver_fn, message):
    said = failure(checks.fixed_serving_export, exported(receiver_fn), trained_cnn, TRAINED)
    assert said.startswith(message) or re.match(message, said), said


def test_exercise_1_one_placeholder_under_two_names(exported, trained_cnn):
    """TensorFlow exports it, then cannot load it: one line, not its traceback."""

    def twice_receiver_fn():
        images = pixels()
        return SIR({"image": images}, {"pixels": images, "image": images})

    with pytest.raises(CheckFailed, match="gives one placeholder two names in receiver_tensors"):
        checks.fixed_serving_export(exported(twice_receiver_fn), trained_cnn, TRAINED)


WEIGHTS = (
    "and its weights are not those of the trained `estimator`'s latest checkpoint: export the "
    "trained `estimator` itself, from its latest checkpoint"
)


@bank(1, "right shape, wrong content")
def test_exercise_1_the_untrained_weights_exported(exported, trained_cnn):
    """The checkpoint of step 0, which train() writes first: the receiver is right, the weights
    are the initial ones."""
    first = tf.train.get_checkpoint_state(trained_cnn.model_dir).all_model_checkpoint_paths[0]
    assert first.endswith("-0")
    folder = exported(fixed_receiver_fn, checkpoint_path=first)
    said = failure(checks.fixed_serving_export, folder, trained_cnn, TRAINED)
    assert re.match(r"sent \d+ at a time, the SavedModel's probabilities differ", said), said
    assert said.endswith(WEIGHTS)


def test_exercise_1_a_new_estimator_exported(exported, trained_cnn, tmp_path):
    """Another Estimator of the same model_fn, trained one step with another seed."""
    other = tf.estimator.Estimator(
        models.cnn_model_fn,
        model_dir=str(tmp_path),
        params=trained_cnn.params,
        config=tf.estimator.RunConfig(tf_random_seed=2),
    )
    images = np.random.default_rng(1).random((4, 28, 28), dtype=np.float32)
    other.train(
        lambda: tf.data.Dataset.from_tensors(({"image": images}, np.zeros(4, np.int32))), steps=1
    )
    said = failure(
        checks.fixed_serving_export, exported(fixed_receiver_fn, other), trained_cnn, TRAINED
    )
    assert said.endswith(WEIGHTS)


def test_exercise_1_no_serving_signature(trained_cnn, export_dir):
    """A SavedModel of something else than an Estimator, saved without signatures."""
    tf.saved_model.save(tf.Module(), export_dir)
    with pytest.raises(
        CheckFailed,
        match=r"^the SavedModel has no serving_default signature: export the course CNN's "
        r"model_fn$",
    ):
        checks.fixed_serving_export(export_dir, trained_cnn, TRAINED)


def saved_signature(path, shape, outputs) -> str:
    """A SavedModel of a plain ``tf.Module`` (no Estimator: fast) whose serving_default takes
    float32 ``shape`` as 'pixels' and returns zeros under each of ``outputs``."""

    @tf.function(input_signature=[tf.TensorSpec(shape, tf.float32, name="pixels")])
    def serve(pixels):
        rows = tf.shape(pixels)[:1]
        return {
            name: tf.zeros(rows, tf.int32) if name != "probabilities" else tf.zeros([rows[0], 10])
            for name in outputs
        }

    module = tf.Module()
    module.serve = serve
    tf.saved_model.save(module, str(path), signatures={"serving_default": serve})
    return str(path)


def test_exercise_1_flat_float_images(trained_cnn, export_dir):
    """The right dtype, the wrong shape: clients would have to flatten their images."""
    with pytest.raises(
        CheckFailed,
        match=r"^the serving input 'pixels' is float32 \[None, 784\]: it should take raw images, "
        r"float32 \[None, 28, 28\]$",
    ):
        checks.fixed_serving_export(
            saved_signature(export_dir, [None, 784], ["classes", "probabilities"]),
            trained_cnn,
            TRAINED,
        )


@pytest.mark.parametrize(
    "outputs, missing", [(["class_ids"], "classes"), (["classes"], "probabilities")]
)
def test_exercise_1_not_the_cnn_outputs(trained_cnn, export_dir, outputs, missing):
    said = failure(
        checks.fixed_serving_export,
        saved_signature(export_dir, [None, 28, 28], outputs),
        trained_cnn,
        TRAINED,
    )
    assert said == f"the signature returns {outputs}, not {missing!r}: export the course CNN"


def test_exercise_1_a_model_without_the_estimator_weights(trained_cnn, export_dir):
    """A SavedModel with the right signature and no weights at all (zeros)."""
    folder = saved_signature(export_dir, [None, 28, 28], ["classes", "probabilities"])
    assert failure(checks.fixed_serving_export, folder, trained_cnn, TRAINED).endswith(WEIGHTS)


def test_exercise_1_a_predict_watched_for_exercise_2_is_not_read(exports, trained_cnn, capsys):
    """The check asks the class's predict, so a watch of exercise 2 set up before a rerun of
    exercise 1's check records nothing of it."""
    watch = checks.watch_predict(trained_cnn)
    try:
        checks.fixed_serving_export(exports["raw"], trained_cnn, TRAINED)
    finally:
        del trained_cnn.predict
    assert watch.calls == []
    assert "Correct" in capsys.readouterr().out


# --- exercise 2: the first digit the model gets wrong --------------------------

LABELS = np.array([7, 2, 1, 0, 4, 1, 4, 9, 5, 9, 0, 6, 9, 0, 1, 5])
CLASSES = LABELS.copy()
CLASSES[[12, 14]] = [4, 7]  # digit 12 (a 9 read as a 4) is the first mistake, digit 14 the last
# the stand-in's test set: what the check's _test_images gives during these tests
IMAGES = np.random.default_rng(8).random((len(LABELS), 28, 28), dtype=np.float32)


def images_input_fn(images=IMAGES, batch_size=5):
    """An input function for predict: ``images`` under 'image', in batches of ``batch_size``."""
    return lambda: tf.data.Dataset.from_tensor_slices({"image": images}).batch(batch_size)


INPUT_FN = images_input_fn()  # the stand-in's make_predict_input_fn()
MNIST_TEST_IMAGES = getattr(checks, "_test_images", None)  # the check's own, before the stand-in's


@pytest.fixture(autouse=True)
def stand_in_test_set(monkeypatch):
    """The check compares the answer's input with IMAGES, not with MNIST's test images."""
    monkeypatch.setattr(checks, "_test_images", lambda: IMAGES, raising=False)


class StandIn:
    """An Estimator's predict, as far as the watch sees it: a generator of ``classes`` (CLASSES),
    one example at a time or in batches of 5, with every key or the ones asked for (the input
    function is the check's to run)."""

    def __init__(self, classes=CLASSES):
        self.classes = classes

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
        rows = {"classes": self.classes, "probabilities": np.eye(10)[self.classes]}
        if yield_single_examples:
            for position in range(len(self.classes)):
                yield {key: rows[key][position] for key in keys}
        else:
            for start in range(0, len(self.classes), 5):
                yield {key: rows[key][start : start + 5] for key in keys}


def _solution(estimator, input_fn=INPUT_FN):  # the notebook's
    predictions = estimator.predict(input_fn, predict_keys=["classes"])
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


def watched(reading, estimator=None):
    """(the answer, the watch) of a cell that reads the stand-in's predict with ``reading``."""
    estimator = StandIn() if estimator is None else estimator
    watch = checks.watch_predict(estimator)
    return reading(estimator), watch


CORRECT = (
    "Correct: test digit 12 is the first the model gets wrong (a 9 read as a 4), found by "
    "reading the predictions of the test digits in order, one at a time, from batches of 5, up "
    "to it and no further, and no prediction graph was left open"
)


def _with_every_argument(params, mode, config):  # Estimator passes what an input_fn takes
    assert mode == tf.estimator.ModeKeys.PREDICT and params == {} and config is None
    return INPUT_FN()


def _as_features_and_labels():
    return tf.data.Dataset.from_tensor_slices(({"image": IMAGES}, LABELS)).batch(5)


RIGHT_READINGS = {
    "the solution": _solution,
    "the key as a string, next() in a loop": pytest.param(
        lambda e: _next_until_wrong(e.predict(INPUT_FN, predict_keys="classes")),
        marks=bank(2, "right, written otherwise"),
    ),
    "an input_fn taking params, mode and config": pytest.param(
        lambda e: _solution(e, _with_every_argument), marks=bank(2, "right, written otherwise")
    ),
    "an input_fn giving (features, labels)": lambda e: _solution(e, _as_features_and_labels),
    "numpy_input_fn, one at a time (queues, not a dataset)": pytest.param(
        lambda e: _solution(
            e,
            tf.compat.v1.estimator.inputs.numpy_input_fn(
                {"image": IMAGES}, batch_size=5, num_epochs=1, shuffle=False
            ),
        ),
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
    assert capsys.readouterr().out.strip() == CORRECT


def _all_of_them(estimator):
    classes = [p["classes"] for p in estimator.predict(INPUT_FN, predict_keys=["classes"])]
    return int(np.argmax(np.array(classes) != LABELS))


def _batches(estimator):
    for start, batch in zip(
        range(0, 99, 5),
        estimator.predict(INPUT_FN, predict_keys=["classes"], yield_single_examples=False),
    ):
        wrong = np.flatnonzero(batch["classes"] != LABELS[start : start + 5])
        if len(wrong):
            return start + int(wrong[0])


def _every_key(estimator):
    predictions = estimator.predict(INPUT_FN)
    for position, prediction in enumerate(predictions):
        if prediction["classes"] != LABELS[position]:
            predictions.close()
            return position


def _one_too_many(estimator):  # reads the next one before it stops: off by one in the reading
    predictions = estimator.predict(INPUT_FN, predict_keys=["classes"])
    found = None
    for position, prediction in enumerate(predictions):
        if found is not None:
            break
        if prediction["classes"] != LABELS[position]:
            found = position
    predictions.close()
    return found


def _one_read_then_typed(estimator):  # a look at one prediction, the answer typed from above
    predictions = estimator.predict(INPUT_FN, predict_keys=["classes"])
    next(predictions)
    predictions.close()
    return 12


def _the_first_14_digits(estimator):  # adversary's find 6: count=20, or a few_input_fn
    return _solution(estimator, images_input_fn(IMAGES[:14]))


def _repeated(estimator):  # a dataset repeated without end: the check reads 17 and stops
    return _solution(estimator, lambda: INPUT_FN().repeat())


def _queued_forever(estimator):  # numpy_input_fn's default: epochs without end, from queues
    input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        {"image": IMAGES}, batch_size=5, num_epochs=None, shuffle=False
    )
    return _solution(estimator, input_fn)


def _shuffled(estimator):  # the stand-in still predicts in order: the position comes out right
    return _solution(estimator, images_input_fn(IMAGES[::-1]))


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
    # a look at the first prediction passed: it read 1 of the 13 it needs
    "one prediction read, the position typed in": pytest.param(
        _one_read_then_typed,
        "the position is right, but your cell stopped reading `estimator.predict` after 1 of its "
        "predictions, before the first wrong digit",
        marks=bank(2, "hard-coded from an output above"),
    ),
    "every prediction, listed": (_all_of_them, "your cell read 16 predictions, 3 past the first"),
    # the prompt asks for one example at a time
    "whole batches": pytest.param(
        _batches,
        "your cell read whole batches (yield_single_examples=False): read one example at a time",
        marks=bank(2, "forbidden API"),
    ),
    "every key": (_every_key, "your cell asked predict for all the keys"),
    "one more read before stopping": (_one_too_many, "read 14 predictions, 1 past the first"),
    "the first 14 digits only": pytest.param(
        _the_first_14_digits,
        "the test set holds 16 digits, but your input function gives 14: read the whole test "
        "set, in order",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "the test set repeated without end": (
        _repeated,
        "your input function gives more digits than the test set's 16 (it repeats them, or "
        "reads others): read the test set once, in order",
    ),
    "numpy_input_fn's epochs without end": (
        _queued_forever,
        "your input function gives more digits than the test set's 16",
    ),
    "the test digits in another order": (
        _shuffled,
        "your input function does not give the test digits in order (its images differ from "
        "`test_images`)",
    ),
}


@pytest.mark.parametrize("reading, message", WRONG_READINGS.values(), ids=WRONG_READINGS)
def test_exercise_2_right_position_read_the_wrong_way(reading, message):
    answer, watch = watched(reading)
    assert answer == 12
    with pytest.raises(CheckFailed) as caught:
        checks.first_wrong_digit(answer, LABELS, CLASSES, watch)
    assert message in str(caught.value)
    assert "predict_keys=[" not in str(caught.value)  # the cause, not the code


@bank(2, "right on the notebook's data, wrong in general")
def test_exercise_2_the_test_set_in_one_batch(monkeypatch, capsys):
    """Adversary's find 7: `make_predict_input_fn(batch_size=10000)` passed, predict computing
    every digit's prediction before it yields the first; batches of more than LARGEST_BATCH are
    refused (made 8 here, the stand-in's test set being 16), and batches of 8 pass."""
    monkeypatch.setattr(checks, "LARGEST_BATCH", 8, raising=False)
    answer, watch = watched(lambda e: _solution(e, images_input_fn(batch_size=16)))
    assert failure(checks.first_wrong_digit, answer, LABELS, CLASSES, watch) == (
        "your input function gives batches of 16 digits, and predict computes a whole batch "
        "before it yields the first of its predictions: give it batches of at most 8 (as "
        "`inputs.make_predict_input_fn()` does), so that it predicts little past the first wrong "
        "digit"
    )
    answer, watch = watched(lambda e: _solution(e, images_input_fn(batch_size=8)))
    checks.first_wrong_digit(answer, LABELS, CLASSES, watch)
    assert "from batches of 8, up to it" in capsys.readouterr().out


def test_exercise_2_the_notebooks_input_is_the_test_set_as_test_images_holds_it():
    """The check's own view of the notebook's input: MNIST's test images, float32 in 0-1 as the
    notebook's `test_images`, in batches of 500, the largest allowed."""
    test_images = data.load("mnist").test_images.astype(np.float32) / 255
    size, images = checks._input_batches(inputs.make_predict_input_fn(), None, 20_000)
    assert size == 500 == checks.LARGEST_BATCH
    assert np.array_equal(images, test_images)
    assert np.array_equal(MNIST_TEST_IMAGES(), test_images)


def test_the_watch_leaves_the_predictions_as_they_are():
    plain = list(StandIn().predict(INPUT_FN, predict_keys=["classes"]))
    estimator = StandIn()
    checks.watch_predict(estimator)
    assert [p["classes"] for p in estimator.predict(INPUT_FN, predict_keys=["classes"])] == [
        p["classes"] for p in plain
    ]


def test_exercise_2_correct(capsys):
    answer, watch = read()
    checks.first_wrong_digit(answer, LABELS, CLASSES, watch)
    assert capsys.readouterr().out.strip() == CORRECT


def test_exercise_2_the_first_digit_wrong(capsys):
    """Adversary's find 8 (grammar): "found by reading 1 predictions"; no count is said now."""
    classes = CLASSES.copy()
    classes[0] = 3
    answer, watch = watched(_solution, StandIn(classes))
    assert answer == 0
    checks.first_wrong_digit(answer, LABELS, classes, watch)
    out = capsys.readouterr().out
    assert out.startswith("Correct: test digit 0 is the first the model gets wrong (a 7 read as")
    assert "1 predictions" not in out


# --- exercise 2 in a kernel: the watch judges the latest run of the answer cell --------

WATCH_CELL = "watch = checks.watch_predict(estimator)"
ANSWER_CELL = "first_wrong = None\nfor position, prediction in enumerate(predictions): ..."
CHECK_CELL = 'checks.first_wrong_digit(first_wrong, test_labels, reference["classes"], watch)'


class Kernel:
    """What the check sees of an IPython kernel: ``get_ipython().user_ns["In"]``, the input
    history, which holds each cell's code from before it runs (the running cell last)."""

    def __init__(self, monkeypatch):
        self.user_ns = {"In": [""]}
        self.estimator = StandIn()
        monkeypatch.setattr(IPython, "get_ipython", lambda: self)

    def run(self, source, action=lambda: None):
        self.user_ns["In"].append(source)
        return action()

    def watch(self):
        self.watched = self.run(WATCH_CELL, lambda: checks.watch_predict(self.estimator))

    def answer(self, reading, source=ANSWER_CELL):
        self.answered = self.run(source, lambda: reading(self.estimator))

    def check(self) -> str:
        """The check cell's line: Correct or the refusal."""
        try:
            self.run(
                CHECK_CELL,
                lambda: checks.first_wrong_digit(self.answered, LABELS, CLASSES, self.watched),
            )
        except CheckFailed as refusal:
            return str(refusal)
        return "Correct"


def test_exercise_2_an_answer_cell_run_again_is_judged_on_its_own_reading(monkeypatch):
    """Adversary's find 8: after a right attempt, the answer cell run again as `first_wrong = 8`
    (or a SavedModel loop, or a TF Lite lookup) passed on the watch's record of the earlier run;
    running only the check cell again after a right answer still passes."""
    kernel = Kernel(monkeypatch)
    kernel.watch()
    kernel.answer(_solution)
    assert kernel.check() == "Correct"
    assert kernel.check() == "Correct"  # the check cell alone, run again
    kernel.run("print(first_wrong)")
    assert kernel.check() == "Correct"
    kernel.answer(lambda e: 12, "first_wrong = 12")
    assert kernel.check().startswith("the position is right, but your cell never read")


def test_exercise_2_a_reading_of_an_earlier_run_is_not_held_against_the_answer(monkeypatch):
    """Adversary's find 8: after an attempt that read every prediction, the answer typed in was
    told "your cell read 16 predictions, 3 past", though it read none."""
    kernel = Kernel(monkeypatch)
    kernel.watch()
    kernel.answer(_all_of_them)
    assert kernel.check().startswith("your cell read 16 predictions, 3 past the first")
    kernel.answer(lambda e: 12, "first_wrong = 12")
    assert kernel.check().startswith("the position is right, but your cell never read")
    kernel.answer(_solution)
    assert kernel.check() == "Correct"


def test_exercise_2_a_cell_run_after_the_answer_is_not_judged(monkeypatch):
    """A look at predict in a cell of its own after the answer (every key) is not the answer's
    reading: the check judges the cell that sets `first_wrong`."""
    kernel = Kernel(monkeypatch)
    kernel.watch()
    kernel.answer(_solution)
    kernel.run("next(estimator.predict(input_fn))", lambda: _every_key(kernel.estimator))
    assert kernel.check() == "Correct"


def test_exercise_2_the_watch_run_again_after_the_answer(monkeypatch):
    """The watch cell run again after the answer cell saw none of its reading: one line says
    what to run, not that the cell never read predict."""
    kernel = Kernel(monkeypatch)
    kernel.watch()
    kernel.answer(_solution)
    kernel.watch()
    assert kernel.check() == (
        "the cell `watch = checks.watch_predict(estimator)` ran after your cell that sets "
        "`first_wrong`, so it saw none of its predictions: run your cell again, then this check"
    )
    kernel.answer(_solution)
    assert kernel.check() == "Correct"


@pytest.mark.parametrize(
    "source, assigns",
    [
        ("first_wrong = 3", True),
        ("first_wrong: int = 3", True),
        ("for first_wrong in range(3): pass", True),
        ("if (first_wrong := 3): pass", True),
        ("first_wrong += 1", True),
        ("print(first_wrong == 3)", False),
        (CHECK_CELL, False),
        ("first_wrong = (", False),  # a cell that does not parse never ran
    ],
)
def test_the_cells_that_set_the_answer(source, assigns):
    assert checks._assigns(source, "first_wrong") is assigns


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


# --- the sections the messages cite ---------------------------------------------

NOT_AN_ESTIMATOR = (
    "`estimator` should be the notebook's trained Estimator, not a {kind}: run the cell that "
    "trains it again (section 'A trained CNN to export')"
)


def test_the_sections_the_messages_cite_are_headings_of_notebook_08():
    import ast
    import re
    from pathlib import Path

    tree = ast.parse(Path(checks.__file__).read_text(encoding="utf-8"))
    sentences = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)]
    cited = {
        quoted[1] or quoted[2]
        for sentence in sentences
        if isinstance(sentence, str)
        for quoted in re.finditer(r"\(section (?:'([^']+)'|\"([^\"]+)\")\)", sentence)
    }
    assert cited == {"A trained CNN to export", "`predict` is a generator"}
    assert cited <= notebook_headings("08_predict_export_tflite")


def test_a_zh_tw_learner_reads_the_section_as_the_zh_tw_notebook_heads_it(zh_tw, exports):
    translated = zh_tw().get(NOT_AN_ESTIMATOR)
    if not translated:
        pytest.skip("helpers.po does not translate the sentence yet")
    heading = zh_tw_heading("08_predict_export_tflite", "## A trained CNN to export")
    assert heading in failure(checks.fixed_serving_export, exports["raw"], None, TRAINED)


# --- exercise 1: the trained `estimator`, and exports saved otherwise ------------


@bank(1, "right shape, wrong content")
def test_exercise_1_estimator_rebound_to_another_training(trained_cnn, exported, tmp_path):
    """Adversary's find: `estimator` rebound to a new Estimator trained briefly (or warm-started)
    and that one exported passed, the check trusting `estimator`: it is at another step than the
    notebook trained."""
    said = failure(checks.fixed_serving_export, exported(fixed_receiver_fn), trained_cnn, 3)
    assert said == (
        "`estimator` is at global step 1, but the notebook trained it for 3 steps: export the "
        "notebook's trained `estimator` as it is (run the cell that trains it again if your "
        "cell replaced or trained it)"
    )


def test_exercise_1_estimator_rebound_with_no_checkpoint(trained_cnn, exports, tmp_path):
    """Adversary's find: a TypeError traceback from inside the check."""
    untrained = tf.estimator.Estimator(models.cnn_model_fn, model_dir=str(tmp_path))
    said = failure(checks.fixed_serving_export, exports["raw"], untrained, TRAINED)
    assert said.startswith("`estimator` has no checkpoint in its model_dir, so it was never")


@bank(1, "right, written otherwise")
def test_exercise_1_an_export_as_text(exported, trained_cnn, capsys):
    """Adversary's find: export_saved_model(..., as_text=True) writes saved_model.pbtxt, which
    tf.saved_model.load reads; the check said there was no saved_model.pb."""
    checks.fixed_serving_export(exported(fixed_receiver_fn, as_text=True), trained_cnn, TRAINED)
    assert capsys.readouterr().out.startswith("Correct")


def test_exercise_1_an_export_without_its_variables(exported, trained_cnn):
    """Adversary's find: the export's variables/ deleted gave 'your code raised NotFoundError'
    (the check's own load failed): one line that says the export cannot be loaded."""
    import shutil
    from pathlib import Path

    folder = exported(fixed_receiver_fn)
    shutil.rmtree(Path(folder) / "variables")
    said = failure(checks.fixed_serving_export, folder, trained_cnn, TRAINED)
    assert said.startswith(f"tf.saved_model.load could not load {folder}: "), said
    assert "\n" not in said


def test_exercise_1_a_receiver_rounding_to_the_grey_levels(exported, trained_cnn, monkeypatch):
    """Adversary's find: `tf.round(x * 255) / 255` passed, the check's images being the test
    set's grey levels. The tiny one-step CNN of these tests moves its probabilities by only 4e-5
    to 2.4e-4 for half a grey level (its weights differ from process to process), against 5e-5 for
    the notebook's model; so the tolerance here is that of float rounding between the export and
    predict on this model (below 1e-6 measured; 1e-5 here), which the right answer meets."""
    monkeypatch.setattr(checks, "TOLERANCE", 1e-5)
    checks.fixed_serving_export(exported(fixed_receiver_fn), trained_cnn, TRAINED)
    receiver_fn = changing(lambda x: tf.round(x * 255.0) / 255.0)
    said = failure(checks.fixed_serving_export, exported(receiver_fn), trained_cnn, TRAINED)
    assert "although it holds the trained weights: the receiver changes the images" in said, said
