"""Every message of notebook 04's exercise checks.

Exercises 1 and 2 are arithmetic. Exercise 3's check refuses some answers
before any warm start: those read checkpoints written here by hand. The rest
are real Estimators, warm-started as a learner would and trained for ten steps
on noise (a second or two each), with RunConfigs that keep or delete their
step-0 checkpoint.
"""

import random

import numpy as np
import pytest
import tensorflow as tf

from helpers import models
from helpers.checks import notebook04 as checks
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


def test_a_zh_tw_learner_reads_the_message_in_chinese(zh_tw):
    template = (
        "call {number}, train(..., {kind}={count}): max_steps is not a number of steps to add but "
        "the global step to stop at; the model was at {before}"
    )
    sentences = zh_tw()
    message = failure(checks.global_steps_after, [200, 700, 700, 800])
    assert message == sentences[template].format(number=2, kind="max_steps", count=500, before=200)
    assert message.startswith("第 2 次呼叫 train(..., max_steps=500)：")


# --- exercise 3: the changed model, fixed ------------------------------------
# The answers that stop before any warm start (no Estimator, the old model_dir, other params, no
# checkpoint or another global step) are read off checkpoints written here by hand.

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


def test_exercise_3_the_old_model_emptied_by_fresh_model_dir(dirs):
    # settings.fresh_model_dir("04_checkpoints"): the old folder emptied, then trained afresh
    write_checkpoints(dirs["old"], [(0, {"conv2d/kernel": dirs["old_kernel"]})])
    write_checkpoints(dirs["old"], [(STEPS, {"conv2d/kernel": dirs["old_kernel"]})])
    estimator = tf.estimator.Estimator(
        models.cnn_model_fn, model_dir=str(dirs["old"]), params=WIDENED
    )
    with pytest.raises(CheckFailed, match="emptied first: the old model is gone"):
        run_check(estimator, dirs)


def emptied(folder):
    """The folder as settings.fresh_model_dir(<its name>) leaves it: there, and empty."""
    import shutil

    shutil.rmtree(folder)
    folder.mkdir()


# the cell that trains the old model copied, model_dir=settings.fresh_model_dir("04_checkpoints"):
# it empties the old model's folder, and the answer cell's warm start finds nothing there
@bank(3, "copy of a nearby cell")
def test_exercise_3_a_model_dir_that_emptied_the_old_model_says_it_is_gone(dirs):
    """A blind adversary: the check said the answer "still uses the old model_dir, so it restores
    the old checkpoint"; there was nothing left to restore."""
    emptied(dirs["old"])
    estimator = tf.estimator.Estimator(
        models.cnn_model_fn,
        model_dir=str(dirs["old"]),
        params=WIDENED,
        warm_start_from=tf.estimator.WarmStartSettings(str(dirs["old"]), "conv2d/|dense_1/"),
    )
    assert failure(run_check, estimator, dirs) == (
        "`fixed_estimator`'s model_dir is the old model's folder, which holds no checkpoint any "
        "more: the old model is gone (`settings.fresh_model_dir(...)` of that name empties the "
        "folder); run the cells that train it again, then give `fixed_estimator` a model_dir of "
        "its own"
    )


def test_exercise_3_an_old_model_emptied_elsewhere_says_it_is_gone(dirs):
    """The old model's folder emptied by another cell: the answer's own folder is fine, but there
    is nothing to warm-start from."""
    emptied(dirs["old"])
    estimator = estimator_with(dirs, "fixed", [])
    assert failure(run_check, estimator, dirs) == (
        "the old model's folder, `old`, holds no checkpoint any more: the old model is gone "
        "(`settings.fresh_model_dir(...)` of that name empties the folder), so there is nothing "
        "to warm-start from; run the cells that train it again, then your cell"
    )


# --- exercise 3, run for real: the learner's WarmStartSettings in a real Estimator ----------------


def noise_input_fn():
    """32 images of noise in batches of 8, for ever: data the notebook never showed."""
    rng = np.random.default_rng(5)
    images = rng.uniform(0.0, 1.0, (32, 28, 28)).astype(np.float32)
    labels = (np.arange(32) % 10).astype(np.int32)
    return tf.data.Dataset.from_tensor_slices(({"image": images}, labels)).batch(8).repeat()


QUIET = dict(tf_random_seed=1, log_step_count_steps=None, save_summary_steps=None)
KEPT = "conv2d/bias, conv2d/kernel, dense_1/bias and dense_1/kernel"
RIGHT = "conv2d/|dense_1/"  # the solution's vars_to_warm_start
SECTION = '(section "Warm start: begin with another model\'s weights")'
# the RunConfigs of an answer: the default keeps the step-0 checkpoint, these delete it
DELETING_STEP_0 = {
    "keep_checkpoint_max=1": dict(keep_checkpoint_max=1),
    "every 5 steps, 1 kept": dict(save_checkpoints_steps=5, keep_checkpoint_max=1),
    "keep_checkpoint_max=2, every 3 steps": dict(save_checkpoints_steps=3, keep_checkpoint_max=2),
}
CONFIGS = {"default": {}, **DELETING_STEP_0}


@pytest.fixture(scope="module")
def old_models(tmp_path_factory):
    """The old model the exercise names, trained for real as the notebook's fast mode trains it
    (04_checkpoints: 70 steps, a checkpoint every 20, the last three kept: 40, 60 and 70), and
    another one of the same shapes (04_crash, at 10)."""
    root = tmp_path_factory.mktemp("warm")
    random.seed(0)  # the layers' random values: the same old models on every run of the tests
    runs = (
        ("04_checkpoints", 70, dict(save_checkpoints_steps=20, keep_checkpoint_max=3)),
        ("04_crash", 10, dict(save_checkpoints_steps=10)),
    )
    for name, steps, saving in runs:
        tf.estimator.Estimator(
            models.cnn_model_fn,
            model_dir=str(root / name),
            params=SMALL_CNN,
            config=tf.estimator.RunConfig(**saving, **QUIET),
        ).train(noise_input_fn, steps=steps)
    return root


def learners_estimator(root, name, warm_start_from, params=WIDENED, **config):
    """The learner's fixed_estimator: the widened model in a fresh folder, warm-started as given,
    with the RunConfig given; its cell then trains it (the test does, and sees whether that
    raised)."""
    return tf.estimator.Estimator(
        models.cnn_model_fn,
        model_dir=str(root / name),
        params=params,
        config=tf.estimator.RunConfig(**QUIET, **config),
        warm_start_from=warm_start_from,
    )


def warm_start(old_models, vars_to_warm_start=RIGHT, source="04_checkpoints"):
    return tf.estimator.WarmStartSettings(str(old_models / source), vars_to_warm_start)


def trained(estimator):
    estimator.train(noise_input_fn, steps=STEPS)
    return estimator


def run_real(estimator, root):
    checks.fixed_estimator(
        estimator, old_model_dir=str(root / "04_checkpoints"), params=WIDENED, steps=STEPS
    )


def passes(estimator, old_models, capsys):
    run_real(estimator, old_models)
    assert capsys.readouterr().out.startswith(
        f"Correct: the changed model trained to step {STEPS} in its own model_dir, and the "
        f"variables of the layers it kept ({KEPT}) started from the old model's values"
    )


@pytest.mark.parametrize(
    "vars_to_warm_start",
    [
        RIGHT,
        pytest.param("^conv2d/.*|^dense_1/.*", marks=bank(3, "right, written otherwise")),
        pytest.param(
            ["conv2d/kernel", "conv2d/bias", "dense_1/kernel", "dense_1/bias"],
            marks=bank(3, "right, written otherwise"),
        ),
    ],
    ids=["the solution's", "anchored", "a list of names"],
)
def test_exercise_3_a_real_warm_start_passes(old_models, tmp_path, capsys, vars_to_warm_start):
    estimator = learners_estimator(tmp_path, "fixed", warm_start(old_models, vars_to_warm_start))
    passes(trained(estimator), old_models, capsys)


# the lesson teaches keep_checkpoint_max and save_checkpoints_steps: a RunConfig that deletes the
# answer's step-0 checkpoint, its record of where each variable started
@bank(3, "right, written otherwise")
@pytest.mark.parametrize("config", list(DELETING_STEP_0))
def test_exercise_3_the_right_answer_passes_whichever_checkpoints_it_keeps(
    old_models, tmp_path, capsys, config
):
    """A blind adversary: with keep_checkpoint_max=1 the right answer was refused ("conv2d/bias
    started from model.ckpt-60") or passed, by the random values of its new layers: the check
    guessed the starting values from the trained ones. Three runs, each with its own new layers."""
    for seed in (1, 2, 3):
        random.seed(seed)  # the new layers' random values: another set each run
        estimator = learners_estimator(
            tmp_path, f"fixed_{seed}", warm_start(old_models), **DELETING_STEP_0[config]
        )
        passes(trained(estimator), old_models, capsys)


# the prompt asks for the widened model, warm-started, trained EXERCISE_STEPS steps: a learning
# rate changes no variable and is the learner's choice (it moves the weights far in 10 steps)
@bank(3, "right, written otherwise")
@pytest.mark.parametrize("config", ["default", "every 5 steps, 1 kept"])
def test_exercise_3_another_learning_rate_passes(old_models, tmp_path, capsys, config):
    """A blind adversary: with learning_rate=0.05 and no step-0 checkpoint the check said "every
    variable started from new random values, nothing warm-started"; four were."""
    estimator = learners_estimator(
        tmp_path,
        "fixed",
        warm_start(old_models),
        params={**WIDENED, "learning_rate": 0.05},
        **CONFIGS[config],
    )
    passes(trained(estimator), old_models, capsys)


COLD_START = (
    "`fixed_estimator` started every variable from new random values, so nothing was "
    "warm-started from the old model: only layers whose shapes did not change can be " + SECTION
)


def left_cold(variables):
    return (
        f"`fixed_estimator` started {variables} from new random values, although their layers "
        "did not change: every layer the old model can give its weights to should start from them"
    )


# each wrong warm start, judged alike with or without the answer's step-0 checkpoint
@pytest.mark.parametrize("config", ["default", "every 5 steps, 1 kept"])
@pytest.mark.parametrize(
    "vars_to_warm_start, message",
    [
        pytest.param(None, COLD_START, marks=bank(3, "right shape, wrong content")),
        # right on the notebook's first layers, wrong in general: dense_1 kept its shape too
        pytest.param(
            "conv2d/.*",
            left_cold("dense_1/bias and dense_1/kernel"),
            marks=bank(3, "right on the notebook's data, wrong in general"),
        ),
        ("conv2d/.*|dense_1/kernel", left_cold("dense_1/bias")),
        ("conv2d/kernel|dense_1/kernel", left_cold("conv2d/bias and dense_1/bias")),
        ("dense_1/", left_cold("conv2d/bias and conv2d/kernel")),
    ],
    ids=["a cold start", "conv2d only", "dense_1's bias cold", "kernels only", "dense_1 only"],
)
def test_exercise_3_what_started_cold_is_named_whichever_checkpoints_it_keeps(
    old_models, tmp_path, vars_to_warm_start, message, config
):
    """A blind adversary: without the step-0 checkpoint, a cold start was told "conv2d/bias and
    dense_1/bias started from model.ckpt-40", "conv2d/.*" "dense_1/bias started from
    model.ckpt-40", "conv2d/.*|dense_1/kernel" "conv2d/bias started from model.ckpt-60": each
    wrong answer rightly refused, for a false reason."""
    settings = None if vars_to_warm_start is None else warm_start(old_models, vars_to_warm_start)
    estimator = learners_estimator(tmp_path, "fixed", settings, **CONFIGS[config])
    assert failure(run_real, trained(estimator), old_models) == message


@bank(3, "right shape, wrong content")
def test_exercise_3_a_warm_start_from_another_model_names_it(old_models, tmp_path):
    """Outside testers: warm-started from the wrong model's folder, it was told "nothing was
    warm-started"; it was, from that folder's checkpoint."""
    estimator = learners_estimator(tmp_path, "fixed", warm_start(old_models, source="04_crash"))
    assert failure(run_real, trained(estimator), old_models) == (
        f"`fixed_estimator` started {KEPT} from `04_crash/model.ckpt-10`, not from the old "
        "model's latest checkpoint, `04_checkpoints/model.ckpt-70` " + SECTION
    )


# typed from the `checkpoint` file's listing above, whose first kept checkpoint is not the latest
@bank(3, "hard-coded from an output above")
@pytest.mark.parametrize(
    "step, config",
    [(40, "default"), (60, "keep_checkpoint_max=1"), (60, "every 5 steps, 1 kept")],
)
def test_exercise_3_a_warm_start_from_an_older_checkpoint_names_it(
    old_models, tmp_path, step, config
):
    """A blind adversary (from model.ckpt-60, keep_checkpoint_max=1): over six runs the message
    named "conv2d/bias and dense_1/kernel", or three variables, never dense_1/bias; it names the
    four, every time."""
    for seed in (1, 2):
        random.seed(seed)
        estimator = learners_estimator(
            tmp_path,
            f"fixed_{seed}",
            warm_start(old_models, source=f"04_checkpoints/model.ckpt-{step}"),
            **CONFIGS[config],
        )
        assert failure(run_real, trained(estimator), old_models) == (
            f"`fixed_estimator` started {KEPT} from `04_checkpoints/model.ckpt-{step}`, not from "
            "the old model's latest checkpoint, `04_checkpoints/model.ckpt-70` " + SECTION
        )


def test_exercise_3_a_warm_start_from_other_variables_names_them(old_models, tmp_path):
    """var_name_to_prev_var_name gives conv2d/bias the old Adam slot of the same shape: a warm
    start, from neither new random values nor conv2d/bias's own values."""
    settings = tf.estimator.WarmStartSettings(
        str(old_models / "04_checkpoints"),
        RIGHT,
        var_name_to_prev_var_name={"conv2d/bias": "conv2d/bias/Adam"},
    )
    estimator = learners_estimator(tmp_path, "fixed", settings, keep_checkpoint_max=1)
    assert failure(run_real, trained(estimator), old_models) == (
        "`fixed_estimator`'s warm start gave conv2d/bias other variables' values from "
        "`04_checkpoints/model.ckpt-70`: each variable of a layer the change kept should start "
        "from its own values in the old model's latest checkpoint, "
        "`04_checkpoints/model.ckpt-70` " + SECTION
    )


# the model lives in model_dir: one Estimator trains it, a new one on the same folder is handed in
@bank(3, "right, written otherwise")
@pytest.mark.parametrize("config", ["default", "every 5 steps, 1 kept"])
def test_exercise_3_a_new_estimator_on_the_trained_model_dir_passes(
    old_models, tmp_path, capsys, config
):
    """A blind adversary's right answer: `trainer` warm-starts and trains, then fixed_estimator =
    a new Estimator on its model_dir, without warm_start_from (it restores, it needs none). The
    model there is judged by how it was trained, not by the object's settings."""
    trained(learners_estimator(tmp_path, "fixed", warm_start(old_models), **CONFIGS[config]))
    passes(learners_estimator(tmp_path, "fixed", None), old_models, capsys)


@pytest.mark.parametrize("config", ["default", "every 5 steps, 1 kept"])
def test_exercise_3_a_right_estimator_on_a_model_dir_trained_cold_is_refused(
    old_models, tmp_path, config
):
    """The other way round: a cold start trained the model_dir, and fixed_estimator, built on it
    afterwards with the right warm start, never trained (it would restore, not warm-start): the
    model there started cold."""
    trained(learners_estimator(tmp_path, "fixed", None, **CONFIGS[config]))
    estimator = learners_estimator(tmp_path, "fixed", warm_start(old_models))
    assert failure(run_real, estimator, old_models) == COLD_START


@bank(3, "right, written otherwise")
def test_exercise_3_two_train_calls_pass_without_the_step_0_checkpoint(
    old_models, tmp_path, capsys
):
    """Two calls of half the steps: only the first warm-starts (the second restores), and with one
    checkpoint kept the graph beside it is the second call's; the first call's is in the events
    file."""
    estimator = learners_estimator(
        tmp_path, "fixed", warm_start(old_models), save_checkpoints_steps=2, keep_checkpoint_max=1
    )
    estimator.train(noise_input_fn, steps=STEPS // 2)
    estimator.train(noise_input_fn, steps=STEPS - STEPS // 2)
    passes(estimator, old_models, capsys)


# RunConfig(checkpoint_save_graph_def=False): no graph recorded, the Estimator's own warm start
@pytest.mark.parametrize(
    "vars_to_warm_start, message",
    [
        (RIGHT, None),
        (None, COLD_START),
        ("conv2d/.*", left_cold("dense_1/bias and dense_1/kernel")),
    ],
    ids=["right", "a cold start", "conv2d only"],
)
def test_exercise_3_without_a_recorded_graph_the_estimators_warm_start_is_run(
    old_models, tmp_path, capsys, vars_to_warm_start, message
):
    settings = None if vars_to_warm_start is None else warm_start(old_models, vars_to_warm_start)
    estimator = learners_estimator(
        tmp_path, "fixed", settings, keep_checkpoint_max=1, checkpoint_save_graph_def=False
    )
    trained(estimator)
    assert not list(tmp_path.glob("fixed/*.meta"))
    if message is None:
        passes(estimator, old_models, capsys)
    else:
        assert failure(run_real, estimator, old_models) == message


def test_exercise_3_a_source_changed_since_the_answer_trained_is_named(old_models, tmp_path):
    """The old model trained again after the answer cell (its latest checkpoint, same name, other
    values): the answer's step-0 checkpoint no longer matches what its warm start reads now."""
    import shutil

    shutil.copytree(old_models / "04_checkpoints", tmp_path / "old")
    settings = tf.estimator.WarmStartSettings(str(tmp_path / "old"), RIGHT)
    estimator = trained(learners_estimator(tmp_path, "fixed", settings))
    for path in (old_models / "04_crash").glob("model.ckpt-10.*"):  # same shapes, other values
        shutil.copy(path, tmp_path / "old" / path.name.replace("ckpt-10", "ckpt-70"))
    message = failure(
        checks.fixed_estimator,
        estimator,
        old_model_dir=str(tmp_path / "old"),
        params=WIDENED,
        steps=STEPS,
    )
    assert message == (
        "`fixed_estimator`'s step-0 checkpoint, `fixed/model.ckpt-0`, holds other values of "
        f"{KEPT} than the check gets by running its warm start again: the checkpoint it "
        "warm-started from changed after it trained, or its model_dir holds another run's "
        "checkpoints; train it again in a fresh model_dir"
    )


def test_exercise_3_a_warm_start_that_fails_since_it_trained_is_one_line(old_models, tmp_path):
    """Warm-started from a copy of the old model that is gone since: the check cannot run the warm
    start again, and says so in one line."""
    import shutil

    shutil.copytree(old_models / "04_checkpoints", tmp_path / "copy")
    settings = tf.estimator.WarmStartSettings(str(tmp_path / "copy"), RIGHT)
    estimator = trained(learners_estimator(tmp_path, "fixed", settings))
    shutil.rmtree(tmp_path / "copy")
    assert_names_the_mistake(
        failure(run_real, estimator, old_models),
        "`fixed_estimator` trained, but its warm start now stops with `NotFoundError` when the "
        "check runs it again: ",
    )


# the warm-start cell above the exercise, copied: "conv2d.*" also matches conv2d_1, widened here
@bank(3, "copy of a nearby cell")
def test_exercise_3_the_cell_above_copied_is_one_line_not_a_step_count(old_models, tmp_path):
    """Outside testers: the learner's train() raised (a long traceback in the answer cell), and
    the check said the model had not trained its steps; it says why the warm start failed."""
    estimator = learners_estimator(tmp_path, "fixed", warm_start(old_models, "conv2d.*"))
    with pytest.raises(ValueError, match="Shape of variable conv2d_1/"):
        estimator.train(noise_input_fn, steps=STEPS)
    message = failure(run_real, estimator, old_models)
    assert message == (
        "`fixed_estimator`'s warm start asks for conv2d_1/bias and conv2d_1/kernel, whose shapes "
        "differ between the changed model and `04_checkpoints/model.ckpt-70`, so its `train()` "
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
    estimator = learners_estimator(tmp_path, "reused", warm_start(old_models))
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
    settings = tf.estimator.WarmStartSettings("checkpointed_dir", vars_to_warm_start=RIGHT)
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
    estimator = learners_estimator(tmp_path, "fixed", warm_start(old_models, "kernel"))
    assert_names_the_mistake(
        failure(run_real, trained(estimator), old_models),
        "`fixed_estimator`'s `vars_to_warm_start`, 'kernel', matches no trainable variable of the "
        "changed model, so nothing was warm-started",
    )


def test_exercise_3_the_sections_cited_are_headings_of_notebook_04():
    cited = {
        "Warm start: begin with another model's weights",
        "A changed model meets an old `model_dir`",
    }
    assert cited <= notebook_headings("04_training_and_checkpoints")
