"""Unit tests for the exercise checks of notebook 01 (``helpers.checks.notebook01``).

Every message a check can give is produced here once: a blank answer (the
student copy), each kind of wrong answer, and the right one. Exercise 1 gets a hand-written log
(and a bank of wrong sums); exercise 2 the notebook's DNNClassifier, trained a few steps on the
course's data or on what a learner's input function might give instead (those tests are slow).
"""

from __future__ import annotations

import functools
import logging
import re

import numpy as np
import pytest
import tensorflow as tf

from helpers import data, inputs, logs, settings
from helpers.checks import notebook01 as checks
from tests.support.banks import bank
from tests.support.checks import failure

# The kinds that do not apply, argued (tests/support/banks.py).
NOT_APPLICABLE = {
    1: {
        "forbidden API": "the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "a value: the check sees no code it could run on other data"
        ),
    },
    2: {
        "forbidden API": "the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "an Estimator trained on the notebook's data: no code the check could run elsewhere"
        ),
    },
}

# A training log as logs.captured_log() collects it (LOG_EVERY = 100, 300 steps).
LINES = [
    "Calling model_fn.",
    "Done calling model_fn.",
    "Create CheckpointSaverHook.",
    "Graph was finalized.",
    "Running local_init_op.",
    "Done running local_init_op.",
    "Saving checkpoints for 0 into ../models/01_dnn/model.ckpt.",
    "loss = 2.2781284, step = 0",
    "global_step/sec: 63.2565",
    "loss = 0.41173, step = 100 (1.585 sec)",
    "global_step/sec: 57.6665",
    "loss = 0.2990716, step = 200 (1.736 sec)",
    "Saving checkpoints for 300 into ../models/01_dnn/model.ckpt.",
    "Loss for final step: 0.18953124.",
]
TIMES = (1.585, 1.736)
TOTAL = 1.585 + 1.736


def _log(lines):
    """``lines`` logged by TensorFlow's logger as one training logs them, which the check keeps
    its own copy of; returns the list a ``logs.captured_log()`` block collected."""
    logger = logging.getLogger("tensorflow")
    with logs.logger_level(logging.INFO), logs.captured_log(show=()) as captured:
        for line in lines:
            logger.info("%s", line)
    return captured


@pytest.fixture(autouse=True)
def _the_training_logged_lines():
    _log(LINES)


def _fails(check, *args, match):
    message = failure(check, *args)
    assert re.search(match, message), message
    assert "\n" not in message  # one plain sentence
    return message


# ---- exercise 1: logged_seconds --------------------------------------------------


def test_seconds_blank():
    _fails(checks.logged_seconds, None, LINES, match=r"`logged_seconds` is still None")


@pytest.mark.parametrize("text", ["3.321", b"3.321"])
def test_seconds_as_text(text):
    _fails(checks.logged_seconds, text, LINES, match=r"is the text .*float\(\.\.\.\)")


@pytest.mark.parametrize("wrong", [[TOTAL], True, {"seconds": TOTAL}])
def test_seconds_not_a_number(wrong):
    _fails(checks.logged_seconds, wrong, LINES, match=r"should be a number of seconds, not")


def test_seconds_without_timed_lines_in_the_log():
    _fails(
        checks.logged_seconds, TOTAL, LINES[:9], match=r"no 'loss = …, step = … \(x.xxx sec\)' line"
    )


# The bank of plausible wrong answers: each names its mistake, none hands over the code.
WRONG = [
    # the timed lines from the second on: a loop that starts one line late
    pytest.param(
        1.736,
        r"the time on one loss line: each line times only the steps since the line before",
        marks=bank(1, "off by one"),
    ),
    # the first timed line, the one the printed log shows (1.984 s in the notebook)
    pytest.param(
        1.585, r"the time on one loss line", marks=bank(1, "hard-coded from an output above")
    ),
    (TOTAL / 2, r"the mean time per line: the exercise asks for the total"),
    # steps per second where seconds are asked
    pytest.param(
        63.2565 + 57.6665,
        r"global_step/sec lines, which are rates, not times",
        marks=bank(1, "wrong unit"),
    ),
    # the mean of the rate column of the table cell that pairs rates with seconds
    pytest.param(
        (63.2565 + 57.6665) / 2,
        r"global_step/sec lines, which are rates",
        marks=bank(1, "copy of a nearby cell"),
    ),
    (2, r"a count of lines"),
    (int(TOTAL), r"is a count of lines or the total cut to whole seconds"),  # 3: both readings
    (4, r"a whole number of seconds"),  # rounded up: math.ceil
    (3.32, r"close but rounded"),
    (3.3, r"close but rounded"),  # rounded to one digit
    (3.33, r"close but rounded"),  # rounded up
    (300 / 60.0, r"is more than the sum of the '\(… sec\)' times on the loss lines"),
]


@pytest.mark.parametrize("answer, words", WRONG)
def test_seconds_wrong_answers_are_named(answer, words):
    message = _fails(checks.logged_seconds, answer, LINES, match=words)
    assert "sum(" not in message and "re." not in message  # the cause, not the code


@pytest.mark.parametrize(
    "answer",
    [
        TOTAL,
        # np.float32(total)
        pytest.param(np.float32(TOTAL), marks=bank(1, "right, written otherwise")),
        np.float64(TOTAL),
        sum(TIMES),
    ],
)
def test_seconds_correct(answer, capsys):
    checks.logged_seconds(answer, LINES)
    out = capsys.readouterr().out
    assert (
        out.startswith("Correct: the 2 timed loss lines add up to 3.321 s") and out.count("\n") == 1
    )


def test_seconds_of_a_long_run_are_compared_relative_to_their_size(capsys):
    """The tolerance grows with the total (1e-6 of it): 300.123 s summed in another order is
    still right."""
    lines = _log(
        ["Calling model_fn."] + [f"loss = 0.5, step = {100 * k} (100.041 sec)" for k in (1, 2, 3)]
    )
    checks.logged_seconds(300.123 + 5e-5, lines)
    assert capsys.readouterr().out.startswith("Correct:")


def test_seconds_counting_the_lines_with_the_step_0_line():
    _fails(checks.logged_seconds, len(TIMES) + 1, LINES, match=r"^3\.0 is a count of lines")


def test_seconds_off_by_more_than_rounding_are_not_called_rounded():
    _fails(checks.logged_seconds, TOTAL + 0.07, LINES, match=r"is more than the sum")


@pytest.mark.parametrize(
    "answer, match",
    [
        # close, but no rounding of the sum: not called rounded
        (TOTAL + 0.002, r"is within 1 % of the sum of the '\(… sec\)' times on the loss lines"),
        (1.01 * TOTAL, r"is within 1 % of the sum"),
        (1.03 * TOTAL, r"is more than the sum"),
        # the times worked out from the rates: LOG_EVERY / rate, summed
        (100 / 63.2565 + 100 / 57.6665, r"is within 1 % of the sum"),
        # steps over the mean rate
        (300 / ((63.2565 + 57.6665) / 2), r"is more than the sum"),
        (0.17, r"is less than the sum"),  # typed in
    ],
)
def test_seconds_near_misses_are_not_called_rounded(answer, match):
    message = _fails(checks.logged_seconds, answer, LINES, match=match)
    assert "but rounded" not in message and str(round(TOTAL, 3)) not in message


@pytest.mark.parametrize(
    "answer, match",
    [
        # the times in milliseconds, the sum times LOG_EVERY, a sign slip: more or less, never
        # by how much, which would let the sum be worked back (99900 % more than 266.0: 0.266)
        (1000 * TOTAL, r"is more than the sum"),
        (100 * TOTAL, r"is more than the sum"),
        (-2 * TOTAL, r"is less than the sum"),
    ],
)
def test_seconds_far_off_say_only_more_or_less(answer, match):
    message = _fails(checks.logged_seconds, answer, LINES, match=match)
    assert "%" not in message and not re.search(r"\d+ times", message)
    assert message.endswith("(section 'The training log, line by line')")


@pytest.mark.parametrize(
    "answer",
    [
        float("nan"),
        pytest.param(np.float64("nan"), marks=bank(1, "right shape, wrong content")),  # np.sum
        float("inf"),
        -float("inf"),
    ],
)
def test_seconds_nan_or_infinite_are_no_number_of_seconds(answer):
    _fails(
        checks.logged_seconds,
        answer,
        LINES,
        match=r"^`logged_seconds` is -?(nan|inf), which is no finite number of seconds",
    )


@pytest.mark.parametrize("zero", [0, 0.0])
def test_seconds_zero_is_a_sum_over_no_line(zero):
    """A pattern that matched no loss line sums to 0; a log whose times add up to less than a
    second must not call it whole seconds cut from the sum."""
    lines = _log(["Calling model_fn.", "loss = 2.3, step = 0", "loss = 1.0, step = 10 (0.133 sec)"])
    message = _fails(
        checks.logged_seconds, zero, lines, match=r"^`logged_seconds` is 0, the sum of no time"
    )
    assert "whole" not in message


class _Seconds(float):
    def __float__(self):
        return TOTAL


@bank(1, "right shape, wrong content")
def test_seconds_a_float_that_says_another_value_is_refused():
    # a float subclass holding 999 whose float() is the right sum
    _fails(
        checks.logged_seconds,
        _Seconds(999.0),
        LINES,
        match=r"should be a plain number \(a float\), not _Seconds",
    )


def _doubled(line):
    return re.sub(r"\((\S+) sec\)", lambda m: f"({2 * float(m[1]):.3f} sec)", line)


@pytest.mark.parametrize(
    "edited",
    [
        [_doubled(line) for line in LINES],  # each time doubled
        [line for line in LINES if "step = 100 " not in line],  # a timed line dropped
        LINES + ["loss = 0.1, step = 300 (1.000 sec)"],  # a line made up
        ["loss = 2.3, step = 0", "loss = 1.0, step = 10 (1.000 sec)"],  # a log made up
    ],
)
def test_seconds_of_lines_the_answer_cell_rebound_are_refused(edited):
    """The answer cell rebinds `lines` and gives the sum of its own lines: the check compares
    them with its own copy of what TensorFlow logged."""
    answer = sum(float(m[1]) for m in map(re.compile(r"\((\S+) sec\)").search, edited) if m)
    _fails(
        checks.logged_seconds,
        answer,
        edited,
        match=r"the `lines` passed to the check are not the log the training cell captured",
    )


def test_seconds_from_the_timed_lines_kept_by_the_learner_are_right(capsys):
    # `lines` narrowed to its timed lines: the same times TensorFlow logged
    checks.logged_seconds(TOTAL, [line for line in LINES if "sec)" in line])
    assert capsys.readouterr().out.startswith("Correct:")


def test_a_zh_tw_learner_reads_the_message_in_chinese(zh_tw):
    template = "{answer} is a count of lines: add the seconds they show"
    sentences = zh_tw()
    message = failure(checks.logged_seconds, 2.0, LINES)
    assert message == sentences[template].format(answer=2.0)


# ---- exercise 2: fixed_input_fn --------------------------------------------------
# The check judges what was trained: the latest checkpoint's variables against its own copy of the
# notebook's make_classifier, and the examples of the training graph's input pipeline, run again,
# against MNIST's training set (then the files that graph reads). So the tests train the notebook's
# model for a few steps, with the course's data or with something else, as a learner's input
# function might give it.

STEPS = 5
TRAINS = pytest.mark.slow(reason="trains the notebook's DNNClassifier 5 steps, about 3 s a model")
IMAGE = tf.feature_column.numeric_column("image", shape=(28, 28))


def make_classifier(model_dir, **changed):
    """The notebook's make_classifier; ``changed`` arguments make another model of it."""
    arguments = dict(
        feature_columns=[IMAGE],
        hidden_units=[128, 64],
        n_classes=10,
        optimizer="Adam",
        model_dir=str(model_dir),
        config=tf.estimator.RunConfig(tf_random_seed=settings.SEED, log_step_count_steps=10),
    )
    return tf.estimator.DNNClassifier(**{**arguments, **changed})


def trained(tmp_path, input_fn, steps=STEPS, name="fixed", **changed):
    return make_classifier(tmp_path / name, **changed).train(input_fn, steps=steps)


@pytest.fixture()
def broken(tmp_path, monkeypatch):
    """`broken` in the exercise's folder (here tmp_path/fixed, the folder `trained` uses too)."""
    monkeypatch.setattr(checks, "_exercise_model_dir", lambda: tmp_path / "fixed")
    return make_classifier(tmp_path / "fixed")


# A small shuffle buffer (100, not 10,000) where the order does not matter: quicker to fill.
_right = inputs.make_train_input_fn(shuffle_buffer=100)


def _mapped(change):
    """The factory's batches through ``change(features, labels)``: an input function that changes
    the data on its way, as a learner's ``.map(...)`` might."""
    return lambda: inputs.make_train_input_fn(shuffle_buffer=100)().map(change)


def _as_features(image, label):
    return {"image": image}, label


def _test_set():
    return inputs.make_eval_input_fn()().repeat()


def _one_batch_again_and_again():
    return inputs.make_train_input_fn(shuffle_buffer=100)().take(1).repeat()


def _zeros():  # made up in the cell: all-zero images
    return tf.data.Dataset.from_tensors(({"image": tf.zeros([1, 28, 28])}, [0])).repeat()


def _fashion():  # the right pipeline over Fashion-MNIST, whose files have the same names
    return inputs.make_train_input_fn("fashion-mnist", shuffle_buffer=100)()


def _arrays():  # MNIST's arrays as data.load gives them: constants in the training graph
    mnist = data.load("mnist")
    images = mnist.train_images[:100].astype("float32") / 255
    labels = mnist.train_labels[:100].astype("int32")
    return tf.data.Dataset.from_tensor_slices(({"image": images}, labels)).repeat().batch(100)


def _skipped():
    dataset = inputs.image_dataset("mnist", "train").skip(59_000).repeat().batch(100)
    return dataset.map(_as_features)


def _filtered():
    dataset = inputs.image_dataset("mnist", "train").filter(lambda image, label: label < 5)
    return dataset.repeat().batch(100).map(_as_features)


def test_fixed_blank(broken):
    _fails(checks.fixed_input_fn, None, broken, STEPS, match=r"`fixed_estimator` is still None")


@pytest.mark.parametrize(
    "wrong, named", [(lambda: None, "function"), (int, "a class"), (50, "int")]
)
def test_fixed_not_an_estimator(broken, wrong, named):
    message = _fails(
        checks.fixed_input_fn, wrong, broken, STEPS, match=r"should be the Estimator you trained"
    )
    assert named in message


def test_estimator_that_is_no_class_gets_no_class_note(broken):
    message = _fails(checks.fixed_input_fn, 42, broken, 300, match="should be the Estimator")
    assert message.endswith("not int")


def test_another_kind_of_estimator_is_not_the_exercise(broken, tmp_path):
    # a LinearClassifier in the exercise's folder is another model: the exercise fixes training
    linear = tf.estimator.LinearClassifier([IMAGE], n_classes=10, model_dir=str(tmp_path / "fixed"))
    _fails(
        checks.fixed_input_fn,
        linear,
        broken,
        STEPS,
        match=r"is another model \(LinearClassifier\) than `broken` \(DNNClassifier\)",
    )


@bank(2, "copy of a nearby cell")  # `broken` itself, as the cell above left it
def test_fixed_never_trained(broken):
    message = _fails(
        checks.fixed_input_fn,
        broken,
        broken,
        STEPS,
        match=r"has no checkpoint yet, so it has not "
        r"trained: train\(\) needs the input function that the factory returns, not the factory",
    )
    assert "section 'The input function'" in message
    assert "make_train_input_fn()" not in message  # the cause and the section, not the code


@TRAINS
@pytest.mark.parametrize(
    "changed, match",
    [
        # make_classifier's cell copied with smaller layers, rebinding `broken`, then trained
        # right: the check compares the checkpoint with its own copy of the model, not with `broken`
        pytest.param(
            {"hidden_units": [32]},
            r"its `hidden_units` are `\[32\]`, those of `make_classifier`'s model `\[128, 64\]`",
            marks=bank(2, "copy of a nearby cell"),
        ),
        pytest.param(  # the cell copied without its optimizer: the default one, Adagrad
            {"optimizer": "Adagrad"},
            r"it is trained by Adagrad, `make_classifier`'s model by Adam",
            marks=bank(2, "copy of a nearby cell"),
        ),
        pytest.param(
            {"optimizer": tf.keras.optimizers.legacy.Adam(0.01)},
            r"the settings of its optimizer differ from those of `make_classifier`'s model "
            r"\(`learning_rate`\)",
            marks=bank(2, "copy of a nearby cell"),
        ),
        pytest.param(
            {"n_classes": 20},
            r"its logits layer has 20 outputs, that of `make_classifier`'s model 10",
            marks=bank(2, "copy of a nearby cell"),
        ),
        pytest.param(
            {"feature_columns": [tf.feature_column.numeric_column("image", shape=(28, 28, 2))]},
            r"its first layer takes 1568 numbers per example, that of `make_classifier`'s "
            r"model 784",
            marks=bank(2, "copy of a nearby cell"),
        ),
    ],
)
def test_another_model_in_the_exercise_folder_is_named(broken, tmp_path, changed, match):
    if "feature_columns" in changed:  # two channels: the image twice
        model = trained(
            tmp_path,
            _mapped(lambda x, y: ({"image": tf.stack([x["image"]] * 2, -1)}, y)),
            **changed,
        )
    else:
        model = trained(tmp_path, _right, **changed)
    message = _fails(checks.fixed_input_fn, model, model, STEPS, match=match)
    assert message.endswith("run that cell again, then train `broken`")


@TRAINS
def test_fixed_trained_twice(broken, tmp_path):
    model = trained(tmp_path, _right)
    model.train(_right, steps=STEPS)
    _fails(
        checks.fixed_input_fn, model, broken, STEPS, match=r"global step 10, not 5: steps add up"
    )


@TRAINS
@pytest.mark.parametrize(
    "typed",
    [
        # a step count typed in, trained once (3000 or 200 in the notebook)
        pytest.param(12, marks=bank(2, "hard-coded from an output above")),  # any count
        2 * STEPS,  # one a multiple of STEPS too
    ],
)
def test_fixed_trained_once_for_a_step_count_typed_in(broken, tmp_path, typed):
    """An Estimator trained once for a count typed from the output above (3000, the run's
    'global step now 3000'; 200, the full-mode count, in fast mode), not EXERCISE_STEPS: the
    message names the count, not steps adding up over several train() calls."""
    model = trained(tmp_path, _right, steps=typed)
    message = _fails(
        checks.fixed_input_fn,
        model,
        broken,
        STEPS,
        match=rf"global step {typed}, not {STEPS}: it was trained once, for a step count typed "
        r"in or taken from the training above rather than the exercise's EXERCISE_STEPS",
    )
    assert "add up" not in message and "steps=" not in message


@TRAINS
def test_fixed_one_step_too_many_is_named_so(broken, tmp_path):
    message = _fails(
        checks.fixed_input_fn,
        trained(tmp_path, _right, steps=STEPS + 1),
        broken,
        STEPS,
        match=rf"global step {STEPS + 1}, one step past {STEPS}: train\(\) makes exactly",
    )
    assert "typed in" not in message


@TRAINS
def test_fixed_without_its_training_graph(broken, tmp_path):
    model = trained(tmp_path, _right)
    (tmp_path / "fixed" / "graph.pbtxt").unlink()
    _fails(checks.fixed_input_fn, model, broken, STEPS, match=r"has no graph.pbtxt")


@TRAINS
@pytest.mark.parametrize(
    "steps",
    [pytest.param(STEPS - 1, marks=bank(2, "off by one")), 1],  # one step short; one step
)
def test_fixed_too_few_steps(broken, tmp_path, steps):
    model = trained(tmp_path, _right, steps=steps)
    _fails(
        checks.fixed_input_fn,
        model,
        broken,
        STEPS,
        match=rf"global step {steps}, not {STEPS}: train it with steps",
    )


@TRAINS
def test_fixed_input_that_runs_out_is_named_so(broken, tmp_path):
    # the evaluation input function over 200 training images: 2 batches, then the data ends
    finite = inputs.make_eval_input_fn(split="train", count=200, batch_size=100)
    message = _fails(
        checks.fixed_input_fn,
        trained(tmp_path, finite),
        broken,
        STEPS,
        match=rf"global step 2, not {STEPS}: its input function ran out of batches after 2 steps",
    )
    assert "train it with steps" not in message


@TRAINS
def test_fixed_input_taken_after_its_repeat_runs_out(broken, tmp_path):
    # a take() after the factory's repeat(): train() was given the steps, the data ended first
    message = _fails(
        checks.fixed_input_fn,
        trained(tmp_path, lambda: _right().take(2)),
        broken,
        STEPS,
        match=rf"global step 2, not {STEPS}: its input function ran out of batches after 2 steps "
        r"\(its pipeline ends, through a take\(\)",
    )
    assert "steps=EXERCISE_STEPS" not in message


@TRAINS
def test_fixed_input_that_may_run_out_gets_both_causes(broken, tmp_path):
    # a take() whose count the graph computes: the check cannot tell whether the data ended
    count = lambda: tf.add(tf.constant(2, tf.int64), 0)  # noqa: E731
    _fails(
        checks.fixed_input_fn,
        trained(tmp_path, lambda: _right().take(count())),
        broken,
        STEPS,
        match=rf"global step 2, not {STEPS}: either train\(\) was given fewer steps than "
        r"EXERCISE_STEPS or its input function ran out of batches after 2 steps",
    )


def test_a_training_graph_holding_the_data_is_refused_unread(tmp_path):
    """MNIST's arrays given to from_tensor_slices make a graph.pbtxt of 709 MB, whose parsing
    killed the kernel: the check looks at its size first (a sparse file here, never read)."""
    with open(tmp_path / "graph.pbtxt", "wb") as graph:
        graph.write(b'node {\n  name: "Const"\n  op: "Const"\n}\n')
        graph.truncate(100 * 2**20)
    _fails(
        checks._training_graph,
        tmp_path,
        match=r"^`fixed_estimator`'s training graph holds the data itself \(100 MB\): arrays "
        r"given to `from_tensor_slices` become constants in the graph",
    )


@TRAINS
@pytest.mark.parametrize(
    "input_fn, match",
    [
        (
            _test_set,
            r"trained on the test set \(its training graph reads t10k-images-idx3-ubyte.gz and "
            r"t10k-labels-idx1-ubyte.gz\)",
        ),
        # an Estimator trained to the right step, on made-up data
        pytest.param(
            _zeros,
            r"did not train on the MNIST training files \(its training graph reads no data "
            r"file\): its data was written into the graph \(arrays\) or made up in the cell",
            marks=bank(2, "right shape, wrong content"),
        ),
        # MNIST's own images, given as arrays (100, so the graph stays small)
        pytest.param(
            _arrays,
            r"reads no data file\): its data was written into the graph \(arrays\)",
            marks=bank(2, "right shape, wrong content"),
        ),
        # the course's factory on another data set: the files named, nothing called made up
        (
            _fashion,
            r"did not train on the MNIST training files: its training graph reads "
            r"fashion-mnist/train-images-idx3-ubyte.gz and fashion-mnist/train-labels-idx1-ubyte"
            r".gz, not mnist/train-images-idx3-ubyte.gz and mnist/train-labels-idx1-ubyte.gz",
        ),
        (_one_batch_again_and_again, r"keeps only part of the training set \(a take\(\)"),
        (_skipped, r"keeps only part of the training set \(a take\(\), skip\(\), filter\(\)"),
        (_filtered, r"keeps only part of the training set"),
    ],
)
def test_fixed_trained_on_other_data(broken, tmp_path, input_fn, match):
    model = trained(tmp_path, input_fn)
    message = _fails(checks.fixed_input_fn, model, broken, STEPS, match=match)
    assert "make_train_input_fn" not in message
    if input_fn is _fashion:
        assert "made up" not in message


@TRAINS
@pytest.mark.parametrize(
    "change, match",
    [
        # the course's images in 0-255, as data.load gives them: pixels in another unit
        pytest.param(
            lambda x, y: ({"image": x["image"] * 255}, y),
            r"the pixels of the images `fixed_estimator` trained on range from 0 to 255: those "
            r"of the images the factory's input function gives are in 0–1",
            marks=bank(2, "wrong unit"),
        ),
        pytest.param(  # all-zero images
            lambda x, y: ({"image": x["image"] * 0}, y),
            rf"^{STEPS * 100} of the first {STEPS * 100} examples `fixed_estimator` trained on "
            r"are no MNIST training image",
            marks=bank(2, "right shape, wrong content"),
        ),
        pytest.param(  # in Python code of its own: the check runs it again too
            lambda x, y: (
                {"image": tf.py_function(lambda i: i * 255, [x["image"]], tf.float32)},
                y,
            ),
            r"the pixels of the images `fixed_estimator` trained on range from 0 to 255",
            marks=bank(2, "wrong unit"),
        ),
        pytest.param(  # the images upside down
            lambda x, y: ({"image": tf.reverse(x["image"], [1])}, y),
            r"^\d+ of the first 500 examples `fixed_estimator` trained on are no MNIST training",
            marks=bank(2, "right shape, wrong content"),
        ),
        pytest.param(  # each label one class on
            lambda x, y: (x, (y + 1) % 10),
            rf"the labels of {STEPS * 100} of the first {STEPS * 100} examples `fixed_estimator` "
            r"trained on differ from the training set's",
            marks=bank(2, "off by one"),
        ),
        pytest.param(  # random labels
            lambda x, y: (x, tf.random.uniform(tf.shape(y), 0, 10, tf.int32, seed=1)),
            r"the labels of \d+ of the first 500 examples `fixed_estimator` trained on differ",
            marks=bank(2, "right shape, wrong content"),
        ),
    ],
)
def test_fixed_trained_on_the_training_files_changed_on_the_way(broken, tmp_path, change, match):
    """The training files read, through a map that changes the images or the labels: the
    examples the pipeline gives, run again, are compared with the training set's."""
    message = _fails(
        checks.fixed_input_fn, trained(tmp_path, _mapped(change)), broken, STEPS, match=match
    )
    assert "make_train_input_fn" not in message and ".map" not in message


def _by_hand():  # the training split read by hand, batched differently, in order
    return inputs.image_dataset("mnist", "train").batch(32).repeat().map(_as_features)


def _wrapping_the_factory():  # a def that calls the factory, then its input function
    return inputs.make_train_input_fn(batch_size=50, shuffle_buffer=100)()


def _batches_of(size, shuffle_buffer):
    return inputs.make_train_input_fn(batch_size=size, shuffle_buffer=shuffle_buffer)()


@TRAINS
@pytest.mark.parametrize(
    "input_fn",
    [
        inputs.make_train_input_fn(),  # the solution: its 10,000-example shuffle buffer too
        _right,
        pytest.param(_by_hand, marks=bank(2, "right, written otherwise")),
        pytest.param(
            lambda: inputs.make_train_input_fn(shuffle_buffer=100)(),
            marks=bank(2, "right, written otherwise"),
        ),
        pytest.param(
            functools.partial(_batches_of, 64, shuffle_buffer=100),
            marks=bank(2, "right, written otherwise"),
        ),
        pytest.param(_wrapping_the_factory, marks=bank(2, "right, written otherwise")),
        # the evaluation input function on the training split: its skip(0).take(-1) keep all
        pytest.param(
            inputs.make_eval_input_fn(split="train", batch_size=100),
            marks=bank(2, "right, written otherwise"),
        ),
    ],
)
def test_fixed_correct(broken, tmp_path, input_fn, capsys):
    checks.fixed_input_fn(trained(tmp_path, input_fn), broken, STEPS)
    out = capsys.readouterr().out
    assert out.startswith("Correct: trained to global step 5 on the MNIST training files")
    assert out.count("\n") == 1


@TRAINS
def test_broken_itself_trained_is_correct(broken, capsys):
    checks.fixed_input_fn(broken.train(_right, steps=STEPS), broken, STEPS)
    assert capsys.readouterr().out.startswith("Correct:")


@TRAINS
def test_a_pipeline_the_check_cannot_run_again_is_judged_by_its_files(broken, tmp_path, capsys):
    """The right batches, zipped with the lines of a file removed since: the check cannot run that
    pipeline again, and judges it by the files it reads, saying nothing of it."""
    side = tmp_path / "side.txt"
    side.write_text("0\n", encoding="utf-8")

    def input_fn():
        lines = tf.data.TextLineDataset(str(side)).repeat()
        return tf.data.Dataset.zip((_right(), lines)).map(lambda batch, line: batch)

    model = trained(tmp_path, input_fn)
    side.unlink()
    assert checks._trained_examples(checks._training_graph(tmp_path / "fixed"), STEPS) is None
    checks.fixed_input_fn(model, broken, STEPS)
    assert capsys.readouterr().out.startswith("Correct:")


@TRAINS
def test_a_new_estimator_trained_while_broken_is_not(broken, tmp_path):
    # another Estimator of the same model, trained right in its own folder; `broken` untrained
    model = trained(tmp_path, _right, name="another")
    _fails(
        checks.fixed_input_fn,
        model,
        broken,
        STEPS,
        match=r"`fixed_estimator` is not `broken`: it keeps its checkpoints in another folder",
    )
