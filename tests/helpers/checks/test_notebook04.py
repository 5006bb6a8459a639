"""Every message of notebook 04's exercise checks.

Exercises 1 and 2 are arithmetic. Exercise 3's check reads real Estimators
whose checkpoints are written here by hand (no training), so every branch is
reached in a second or two.
"""

import numpy as np
import pytest
import tensorflow as tf

from helpers import models
from helpers.checks import notebook04 as checks
from helpers.checks import notebook04
from helpers.problems import CheckFailed
from tests.support.banks import bank
from tests.support.checks import assert_names_the_mistake, failure, notebook_headings
from tests.support.models import SMALL_CNN

# The kinds that do not apply, argued (tests/support/banks.py).
NOT_APPLICABLE = {
    1: {
        "wrong unit": "global steps: counts, with no other unit",
        "hard-coded from an output above": "no output above shows these four calls",
        "copy of a nearby cell": "no cell above runs these four calls",
        "forbidden API": (
            "a value: the check cannot see how it was found (the prompt asks to work it out "
            "without running)"
        ),
        "right on the notebook's data, wrong in general": (
            "a value: the check sees no code it could run on other data"
        ),
    },
    2: {
        "wrong unit": "global steps: counts, with no other unit",
        "hard-coded from an output above": "no output above shows this scenario",
        "forbidden API": "the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "a value: the check sees no code it could run on other data"
        ),
    },
    3: {
        "off by one": "the step count is given (EXERCISE_STEPS): nothing to count",
        "wrong unit": (
            "the answer is not a quantity (an Estimator, a train op, a hook, a config): no unit"
        ),
        "forbidden API": "the prompt forbids no API",
    },
}

# --- exercise 1: global steps after a sequence of calls -----------------------


def test_exercise_1_correct(capsys):
    checks.global_steps_after([200, 500, 500, 600])
    assert capsys.readouterr().out.startswith("Correct: the global steps are [200, 500, 500, 600]")


@bank(1, "right, written otherwise")
def test_exercise_1_accepts_whole_floats(capsys):
    checks.global_steps_after((200.0, 500, 500, 600))
    assert "Correct" in capsys.readouterr().out


@pytest.mark.parametrize(
    "answer, message",
    [
        (None, "`global_steps` is still None"),
        ("200, 500", "should be a list of 4 whole numbers"),
        ([200, 500, True, 600], "should be a list of 4 whole numbers"),
        ([200, 500.5, 500, 600], "should be a list of 4 whole numbers"),
        # one call left out
        pytest.param(
            [200, 500, 500],
            "has 3 numbers: give one per train() call, 4 in all",
            marks=bank(1, "off by one"),
        ),
        (
            [200, 700, 1100, 1200],
            "call 2, train(..., max_steps=500): max_steps is not a number of steps to add",
        ),
        ([200, 500, 400, 500], "call 3, train(..., max_steps=400): training never goes back"),
        (
            [200, 500, 500, 100],
            "call 4, train(..., steps=100): steps counts from where the model is (500)",
        ),
        pytest.param(
            [200, 500, 500, 700],
            "call 4, train(..., steps=100): 700 is not it; the model was at 500",
            marks=bank(1, "right shape, wrong content"),
        ),
        ([100, 500, 500, 600], "call 1, train(..., steps=200): 100 is not it; the model was at 0"),
    ],
)
def test_exercise_1_messages(answer, message):
    with pytest.raises(CheckFailed) as caught:
        checks.global_steps_after(answer)
    assert message in str(caught.value)


def test_exercise_1_other_calls(capsys):
    checks.global_steps_after([50, 50], calls=[("max_steps", 50), ("max_steps", 50)])
    assert "[50, 50]" in capsys.readouterr().out


# --- exercise 2: the global step after a crash and a re-run -------------------


def test_exercise_2_correct(capsys):
    checks.steps_after_rerun({"steps": 1700, "max_steps": 1000})
    out = capsys.readouterr().out
    assert out.startswith("Correct: the re-run restores step 700")
    assert "steps=1000 ends at 1700, max_steps=1000 at 1000" in out


@pytest.mark.parametrize(
    "answer, message",
    [
        (None, "`after_rerun` is still None"),
        ([1700, 1000], "should be a dict with the two keys 'steps' and 'max_steps'"),
        ({"steps": 1700}, "should be a dict with the two keys"),
        ({"steps": "1700", "max_steps": 1000}, "after_rerun['steps'] should be a whole number"),
        ({"steps": 1750, "max_steps": 1000}, "does not start at 750, where it crashed"),
        # the resume cell's max_steps outcome, taken for steps too
        pytest.param(
            {"steps": 1000, "max_steps": 1000},
            "steps=1000 adds 1000 steps to the restored model",
            marks=bank(2, "copy of a nearby cell"),
        ),
        ({"steps": 2000, "max_steps": 1000}, "2000 is not it; find the last checkpoint"),
        # off by one checkpoint: restored from the one before 700, or the one after it
        pytest.param(
            {"steps": 1600, "max_steps": 1000},
            "1600 is not it; find the last checkpoint",
            marks=bank(2, "off by one"),
        ),
        ({"steps": 1800, "max_steps": 1000}, "1800 is not it; find the last checkpoint"),
        pytest.param(
            {"steps": 1700, "max_steps": 1700},
            "after_rerun['max_steps']: 1700 is not it",
            marks=bank(2, "right shape, wrong content"),
        ),
    ],
)
def test_exercise_2_messages(answer, message):
    with pytest.raises(CheckFailed) as caught:
        checks.steps_after_rerun(answer)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    "answer",
    [
        {"max_steps": 1000, "steps": 1700},  # the keys in the other order
        pytest.param(  # read off a NumPy array
            {"steps": np.int64(1700), "max_steps": np.int64(1000)},
            marks=bank(2, "right, written otherwise"),
        ),
        {"steps": 1700.0, "max_steps": 1000.0},  # whole floats
    ],
    ids=["keys in the other order", "numpy integers", "whole floats"],
)
def test_exercise_2_right_written_otherwise(answer, capsys):
    checks.steps_after_rerun(answer)
    assert capsys.readouterr().out.startswith("Correct: the re-run restores step 700")


def test_exercise_2_other_scenario(capsys):
    checks.steps_after_rerun(
        {"steps": 90, "max_steps": 50},
        scenario={"save_checkpoints_steps": 20, "crash_at": 55, "count": 50},
    )
    assert "restores step 40" in capsys.readouterr().out


# --- exercise 3: the changed model, fixed ------------------------------------

WIDENED = {"filters": (8, 32), "dense_units": 32}
STEPS = 10


def write_checkpoints(model_dir, snapshots):
    """Checkpoints of ``{name: array}`` at the given global steps, one Saver so all are listed."""
    names = list(snapshots[0][1])
    with tf.Graph().as_default():
        variables = {
            name: tf.compat.v1.get_variable(name, initializer=tf.constant(snapshots[0][1][name]))
            for name in names
        }
        global_step = tf.compat.v1.train.create_global_step()
        saver = tf.compat.v1.train.Saver(max_to_keep=10)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            for step, values in snapshots:
                for name, value in values.items():
                    variables[name].load(value, session)
                global_step.load(step, session)
                saver.save(session, str(model_dir / "model.ckpt"), global_step=step)


@pytest.fixture()
def dirs(tmp_path):
    rng = np.random.default_rng(0)
    old_kernel = rng.uniform(-0.3, 0.3, (3, 3, 1, 8)).astype(np.float32)
    old = tmp_path / "old"
    old.mkdir()
    write_checkpoints(old, [(70, {"conv2d/kernel": old_kernel})])
    return {"old": old, "old_kernel": old_kernel, "root": tmp_path, "rng": rng}


def estimator_with(dirs, name, snapshots, params=WIDENED):
    model_dir = dirs["root"] / name
    model_dir.mkdir()
    if snapshots:
        write_checkpoints(model_dir, snapshots)
    return tf.estimator.Estimator(models.cnn_model_fn, model_dir=str(model_dir), params=params)


def run_check(estimator, dirs):
    checks.fixed_estimator(estimator, old_model_dir=str(dirs["old"]), params=WIDENED, steps=STEPS)


def test_exercise_3_correct_with_a_step_0_checkpoint(dirs, capsys):
    kernel = dirs["old_kernel"]
    estimator = estimator_with(
        dirs, "fixed", [(0, {"conv2d/kernel": kernel}), (STEPS, {"conv2d/kernel": kernel + 0.01})]
    )
    run_check(estimator, dirs)
    assert capsys.readouterr().out.startswith(
        f"Correct: the changed model trained to step {STEPS} in its own model_dir, "
        "and the variables of the layers it kept (conv2d/kernel) started"
    )


@bank(3, "right, written otherwise")
def test_exercise_3_correct_without_a_step_0_checkpoint(dirs, capsys):
    estimator = estimator_with(
        dirs, "fixed", [(STEPS, {"conv2d/kernel": dirs["old_kernel"] + 0.02})]
    )
    run_check(estimator, dirs)
    assert "Correct" in capsys.readouterr().out


def test_exercise_3_blank(dirs):
    with pytest.raises(CheckFailed, match="`fixed_estimator` is still None"):
        run_check(None, dirs)


def test_exercise_3_not_an_estimator(dirs):
    with pytest.raises(CheckFailed, match="should be a tf.estimator.Estimator, not str"):
        run_check("../models/04_exercise", dirs)


@bank(3, "copy of a nearby cell")  # the broken cell's model_dir kept
def test_exercise_3_old_model_dir(dirs):
    estimator = tf.estimator.Estimator(
        models.cnn_model_fn, model_dir=str(dirs["old"]), params=WIDENED
    )
    with pytest.raises(CheckFailed, match="still uses the old model_dir"):
        run_check(estimator, dirs)


def test_exercise_3_old_params(dirs):
    estimator = estimator_with(
        dirs, "fixed", [(STEPS, {"conv2d/kernel": dirs["old_kernel"]})], params=SMALL_CNN
    )
    with pytest.raises(
        CheckFailed, match=r"builds filters=\(8, 16\), not the changed model's filters=\(8, 32\)"
    ):
        run_check(estimator, dirs)


def test_exercise_3_no_params(dirs):
    estimator = estimator_with(
        dirs, "fixed", [(STEPS, {"conv2d/kernel": dirs["old_kernel"]})], params=None
    )
    with pytest.raises(CheckFailed, match="builds filters=the default"):
        run_check(estimator, dirs)


def test_exercise_3_not_trained(dirs):
    estimator = estimator_with(dirs, "fixed", [])
    with pytest.raises(
        CheckFailed,
        match=r"has no checkpoint yet: it has not trained the 10 steps the exercise asks for",
    ):
        run_check(estimator, dirs)


def test_exercise_3_wrong_global_step(dirs):
    estimator = estimator_with(dirs, "fixed", [(2 * STEPS, {"conv2d/kernel": dirs["old_kernel"]})])
    with pytest.raises(CheckFailed, match="is at global step 20, expected 10"):
        run_check(estimator, dirs)


@bank(3, "right shape, wrong content")  # the right model and steps, nothing warm-started
def test_exercise_3_cold_start_with_a_step_0_checkpoint(dirs):
    fresh = dirs["rng"].uniform(-0.3, 0.3, (3, 3, 1, 8)).astype(np.float32)
    estimator = estimator_with(
        dirs, "fixed", [(0, {"conv2d/kernel": fresh}), (STEPS, {"conv2d/kernel": fresh})]
    )
    with pytest.raises(
        CheckFailed,
        match="started every variable from new random values, so nothing was warm-started from "
        'the old model: only layers whose shapes did not change can be \\(section "Warm start: '
        "begin with another model's weights\"\\)",
    ):
        run_check(estimator, dirs)


def test_exercise_3_cold_start_without_a_step_0_checkpoint(dirs):
    fresh = dirs["rng"].uniform(-0.3, 0.3, (3, 3, 1, 8)).astype(np.float32)
    estimator = estimator_with(dirs, "fixed", [(STEPS, {"conv2d/kernel": fresh})])
    with pytest.raises(CheckFailed, match="from new random values"):
        run_check(estimator, dirs)


@pytest.fixture()
def layered(dirs):
    """An old model with a layer the change keeps (conv2d), one it widens (conv2d_1), one whose
    input grows (dense) and the output layer's bias it keeps (dense_1), with an Adam slot."""
    rng, root = dirs["rng"], dirs["root"]
    old = {
        "conv2d/kernel": dirs["old_kernel"],
        "conv2d_1/kernel": rng.uniform(-0.3, 0.3, (3, 3, 8, 16)).astype(np.float32),
        "dense_1/bias": rng.uniform(-0.3, 0.3, (10,)).astype(np.float32),
        "dense_1/bias/Adam": np.ones(10, np.float32),
        "dense/kernel": rng.uniform(-0.3, 0.3, (784, 32)).astype(np.float32),
        "dense/bias": rng.uniform(-0.3, 0.3, (32,)).astype(np.float32),
    }
    (root / "layered").mkdir()
    write_checkpoints(root / "layered", [(70, old)])
    fresh = {
        "conv2d/kernel": rng.uniform(-0.3, 0.3, (3, 3, 1, 8)).astype(np.float32),
        "conv2d_1/kernel": rng.uniform(-0.3, 0.3, (3, 3, 8, 32)).astype(np.float32),
        "dense_1/bias": np.zeros(10, np.float32),
        "dense_1/bias/Adam": np.zeros(10, np.float32),
        # the layer the wider convolution feeds: its kernel grows, its bias keeps its shape, and
        # the layer cannot be warm-started (the course's solution leaves it cold)
        "dense/kernel": rng.uniform(-0.3, 0.3, (1568, 32)).astype(np.float32),
        "dense/bias": np.zeros(32, np.float32),
    }
    return {"old": old, "fresh": fresh, "dir": root / "layered", "root": root}


def started(layered, name, warm):
    values = {**layered["fresh"], **{key: layered["old"][key] for key in warm}}
    model_dir = layered["root"] / name
    model_dir.mkdir()
    write_checkpoints(model_dir, [(0, values), (STEPS, values)])
    return tf.estimator.Estimator(models.cnn_model_fn, model_dir=str(model_dir), params=WIDENED)


def run_layered(estimator, layered):
    checks.fixed_estimator(
        estimator, old_model_dir=str(layered["dir"]), params=WIDENED, steps=STEPS
    )


def test_exercise_3_every_kept_layer_warm_is_correct(layered, capsys):
    run_layered(started(layered, "fixed", ["conv2d/kernel", "dense_1/bias"]), layered)
    out = capsys.readouterr().out
    assert "the variables of the layers it kept (conv2d/kernel and dense_1/bias)" in out


# right on the notebook's first layer, wrong in general: vars_to_warm_start="conv2d/kernel", or
# "conv2d/.*" (dense_1 left cold, although its shape did not change)
@pytest.mark.parametrize(
    "warm, cold",
    [
        pytest.param(
            ["conv2d/kernel"],
            "dense_1/bias",
            marks=bank(3, "right on the notebook's data, wrong in general"),
        ),
        (["dense_1/bias"], "conv2d/kernel"),
    ],
)
def test_exercise_3_a_kept_layer_left_cold_is_named(layered, warm, cold):
    with pytest.raises(CheckFailed) as failed:
        run_layered(started(layered, "fixed", warm), layered)
    assert str(failed.value) == (
        f"`fixed_estimator` started {cold} from new random values, although their layers did "
        "not change: every layer the old model can give its weights to should start from them"
    )


def test_exercise_3_the_old_model_emptied_by_fresh_model_dir(dirs):
    # settings.fresh_model_dir("04_checkpoints"): the old folder emptied, then trained afresh
    write_checkpoints(dirs["old"], [(0, {"conv2d/kernel": dirs["old_kernel"]})])
    write_checkpoints(dirs["old"], [(STEPS, {"conv2d/kernel": dirs["old_kernel"]})])
    estimator = tf.estimator.Estimator(
        models.cnn_model_fn, model_dir=str(dirs["old"]), params=WIDENED
    )
    with pytest.raises(CheckFailed, match="emptied first: the old model is gone"):
        run_check(estimator, dirs)


def test_exercise_3_tolerance_is_between_warm_and_cold():
    assert 0.02 < notebook04.WARM_TOLERANCE < 0.15


def test_a_zh_tw_learner_reads_the_message_in_chinese(zh_tw):
    template = (
        "call {number}, train(..., {kind}={count}): max_steps is not a number of steps to add but "
        "the global step to stop at; the model was at {before}"
    )
    sentences = zh_tw()
    message = failure(checks.global_steps_after, [200, 700, 700, 800])
    assert message == sentences[template].format(number=2, kind="max_steps", count=500, before=200)
    assert message.startswith("第 2 次呼叫 train(..., max_steps=500)：")


# --- exercise 3, run for real: the learner's WarmStartSettings in a real Estimator ----------------


def noise_input_fn():
    """32 images of noise in batches of 8, for ever: data the notebook never showed."""
    rng = np.random.default_rng(5)
    images = rng.uniform(0.0, 1.0, (32, 28, 28)).astype(np.float32)
    labels = (np.arange(32) % 10).astype(np.int32)
    return tf.data.Dataset.from_tensor_slices(({"image": images}, labels)).batch(8).repeat()


QUIET = dict(tf_random_seed=1, log_step_count_steps=None, save_summary_steps=None)


@pytest.fixture(scope="module")
def old_models(tmp_path_factory):
    """The old model the exercise names (04_checkpoints: checkpoints at 0, 10 and 20) and another
    one of the same shapes (04_crash, at 10), trained for real as the notebook trains them."""
    root = tmp_path_factory.mktemp("warm")
    config = tf.estimator.RunConfig(save_checkpoints_steps=10, **QUIET)
    for name, steps in (("04_checkpoints", 20), ("04_crash", 10)):
        tf.estimator.Estimator(
            models.cnn_model_fn, model_dir=str(root / name), params=SMALL_CNN, config=config
        ).train(noise_input_fn, steps=steps)
    return root


def learners_estimator(root, name, warm_start_from):
    """The learner's fixed_estimator: the widened model in a fresh folder, warm-started as given;
    its cell then trains it (the test does, and sees whether that raised)."""
    return tf.estimator.Estimator(
        models.cnn_model_fn,
        model_dir=str(root / name),
        params=WIDENED,
        config=tf.estimator.RunConfig(**QUIET),
        warm_start_from=warm_start_from,
    )


def run_real(estimator, root):
    checks.fixed_estimator(
        estimator, old_model_dir=str(root / "04_checkpoints"), params=WIDENED, steps=STEPS
    )


@pytest.mark.parametrize(
    "vars_to_warm_start",
    [
        "conv2d/|dense_1/",
        pytest.param("^conv2d/.*|^dense_1/.*", marks=bank(3, "right, written otherwise")),
        pytest.param(
            ["conv2d/kernel", "conv2d/bias", "dense_1/kernel", "dense_1/bias"],
            marks=bank(3, "right, written otherwise"),
        ),
    ],
    ids=["the solution's", "anchored", "a list of names"],
)
def test_exercise_3_a_real_warm_start_passes(old_models, tmp_path, capsys, vars_to_warm_start):
    settings = tf.estimator.WarmStartSettings(
        str(old_models / "04_checkpoints"), vars_to_warm_start=vars_to_warm_start
    )
    estimator = learners_estimator(tmp_path, "fixed", settings)
    estimator.train(noise_input_fn, steps=STEPS)
    run_real(estimator, old_models)
    assert capsys.readouterr().out.startswith(
        f"Correct: the changed model trained to step {STEPS} in its own model_dir, and the "
        "variables of the layers it kept (conv2d/bias, conv2d/kernel, dense_1/bias and "
        "dense_1/kernel) started from the old model's values"
    )


@bank(3, "right shape, wrong content")
def test_exercise_3_a_warm_start_from_another_model_names_it(old_models, tmp_path):
    """Outside testers: warm-started from the wrong model's folder, it was told "nothing was
    warm-started"; it was, from that folder's checkpoint."""
    settings = tf.estimator.WarmStartSettings(
        str(old_models / "04_crash"), vars_to_warm_start="conv2d/|dense_1/"
    )
    estimator = learners_estimator(tmp_path, "fixed", settings)
    estimator.train(noise_input_fn, steps=STEPS)
    message = failure(run_real, estimator, old_models)
    assert message == (
        "`fixed_estimator` started conv2d/bias, conv2d/kernel, dense_1/bias and dense_1/kernel "
        "from `04_crash/model.ckpt-10`, not from the old model's latest checkpoint, "
        "`04_checkpoints/model.ckpt-20` (section \"Warm start: begin with another model's "
        'weights")'
    )


# typed from the `checkpoint` file's listing above, whose first kept checkpoint is not the latest
@bank(3, "hard-coded from an output above")
def test_exercise_3_a_warm_start_from_an_older_checkpoint_names_it(old_models, tmp_path):
    settings = tf.estimator.WarmStartSettings(
        str(old_models / "04_checkpoints" / "model.ckpt-10"), vars_to_warm_start="conv2d/|dense_1/"
    )
    estimator = learners_estimator(tmp_path, "fixed", settings)
    estimator.train(noise_input_fn, steps=STEPS)
    message = failure(run_real, estimator, old_models)
    assert "from `04_checkpoints/model.ckpt-10`, not from the old model's latest checkpoint" in (
        message
    )
    assert "nothing was warm-started" not in message


# the warm-start cell above the exercise, copied: "conv2d.*" also matches conv2d_1, widened here
@bank(3, "copy of a nearby cell")
def test_exercise_3_the_cell_above_copied_is_one_line_not_a_step_count(old_models, tmp_path):
    """Outside testers: the learner's train() raised (a long traceback in the answer cell), and
    the check said the model had not trained its steps; it says why the warm start failed."""
    settings = tf.estimator.WarmStartSettings(
        str(old_models / "04_checkpoints"), vars_to_warm_start="conv2d.*"
    )
    estimator = learners_estimator(tmp_path, "fixed", settings)
    with pytest.raises(ValueError, match="Shape of variable conv2d_1/"):
        estimator.train(noise_input_fn, steps=STEPS)
    message = failure(run_real, estimator, old_models)
    assert message == (
        "`fixed_estimator`'s warm start asks for conv2d_1/bias and conv2d_1/kernel, whose shapes "
        "differ between the changed model and `04_checkpoints/model.ckpt-20`, so its `train()` "
        "stops with a `ValueError` before the first step: a warm start checks shapes (section "
        "'A changed model meets an old `model_dir`')"
    )


# the section's cell above, model_dir=old_dir kept: another model's folder, not an empty one
@bank(3, "copy of a nearby cell")
def test_exercise_3_a_model_dir_that_held_a_checkpoint_is_named(old_models, tmp_path):
    """A warm start happens only in an empty model_dir: here train() restored the other model's
    checkpoint (and its first step failed), and the check had blamed the steps or the values."""
    import shutil

    shutil.copytree(old_models / "04_crash", tmp_path / "reused")
    settings = tf.estimator.WarmStartSettings(
        str(old_models / "04_checkpoints"), vars_to_warm_start="conv2d/|dense_1/"
    )
    estimator = learners_estimator(tmp_path, "reused", settings)
    with pytest.raises(tf.errors.InvalidArgumentError):
        estimator.train(noise_input_fn, steps=STEPS)
    assert failure(run_real, estimator, old_models) == (
        "`fixed_estimator`'s checkpoints hold conv2d_1/bias, conv2d_1/kernel and dense/kernel in "
        "other shapes than the changed model's: its model_dir was not empty, so `train()` "
        "restored the checkpoint there instead of warm-starting, which happens only in an empty "
        "model_dir (section 'A changed model meets an old `model_dir`')"
    )


def test_exercise_3_a_warm_start_that_finds_no_checkpoint_is_one_line(old_models, tmp_path):
    """The variable's name in quotes, "checkpointed_dir": a folder that is not there."""
    settings = tf.estimator.WarmStartSettings(
        "checkpointed_dir", vars_to_warm_start="conv2d/|dense_1/"
    )
    estimator = learners_estimator(tmp_path, "fixed", settings)
    with pytest.raises(tf.errors.NotFoundError):
        estimator.train(noise_input_fn, steps=STEPS)
    assert_names_the_mistake(
        failure(run_real, estimator, old_models),
        "`fixed_estimator` has no checkpoint: its `train()` stops at the warm start, before the "
        "first step, with `NotFoundError`: Unsuccessful TensorSliceReader constructor: Failed to "
        "find any matching files for checkpointed_dir",
    )


def test_exercise_3_every_variable_warm_started_names_each_that_changed(old_models, tmp_path):
    """warm_start_from=the folder: every trainable variable, three of which changed shape."""
    estimator = learners_estimator(tmp_path, "fixed", str(old_models / "04_checkpoints"))
    with pytest.raises(ValueError, match="Shape of variable"):
        estimator.train(noise_input_fn, steps=STEPS)
    assert_names_the_mistake(
        failure(run_real, estimator, old_models),
        "warm start asks for conv2d_1/bias, conv2d_1/kernel and dense/kernel, whose shapes differ",
    )


def test_exercise_3_a_pattern_that_matches_nothing_is_named(old_models, tmp_path):
    """ "kernel" is matched from the start of each name, as get_collection's scope: no variable."""
    settings = tf.estimator.WarmStartSettings(
        str(old_models / "04_checkpoints"), vars_to_warm_start="kernel"
    )
    estimator = learners_estimator(tmp_path, "fixed", settings)
    estimator.train(noise_input_fn, steps=STEPS)
    assert_names_the_mistake(
        failure(run_real, estimator, old_models),
        "`fixed_estimator`'s `vars_to_warm_start`, 'kernel', matches no trainable variable of the "
        "changed model, so nothing was warm-started",
    )


def test_exercise_3_the_sections_cited_are_headings_of_notebook_04():
    cited = {
        "Warm start: begin with another model's weights",
        "A changed model meets an old `model_dir`",
    }
    assert cited <= notebook_headings("04_training_and_checkpoints")
