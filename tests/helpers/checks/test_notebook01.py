"""Unit tests for the exercise checks of notebook 01 (``helpers.checks.notebook01``).

Every message a check can give is produced here once: a blank answer (the
student copy), each kind of wrong answer, and the right one. No TensorFlow:
exercise 1 gets a hand-written log (and a bank of wrong sums), exercise 2 a stand-in for an
Estimator that answers ``latest_checkpoint()`` and ``get_variable_value("global_step")``.
"""

from __future__ import annotations

import logging
import re

import numpy as np
import pytest
import tensorflow as tf

from helpers import inputs, logs
from helpers.checks import notebook01 as checks
from tests.support.banks import bank
from tests.support.checks import failure
from tests.support.models import tiny_estimator

# The kinds that do not apply, argued (tests/support/banks.py).
NOT_APPLICABLE = {
    1: {
        "forbidden API": "the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "a value: the check sees no code it could run on other data"
        ),
    },
    2: {
        "wrong unit": (
            "the answer is not a quantity (an Estimator, a train op, a hook, a config): no unit"
        ),
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
    (300 / 60.0, r"is about 51 % more than the sum of the '\(… sec\)' times on the loss lines"),
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


# ---- exercise 2: fixed_input_fn --------------------------------------------------
# The check reads the training graph each train() call writes (graph.pbtxt): which files the
# input pipeline read. The one-variable model stands in for the notebook's DNNClassifier; each
# input function below feeds it the course's data or something else, as a learner's might.

STEPS = 5


def _tiny_batches(dataset):
    """Any dataset of (features, label) or (image, label) pairs, as the one-variable model's
    batches: what was read, not how, is what the check looks at."""
    return dataset.map(lambda *pair: ({"x": [1.0]}, [2.0]))


def _right():  # a small shuffle buffer: the check reads which files, not how they are shuffled
    return _tiny_batches(inputs.make_train_input_fn(shuffle_buffer=100)())


def _right_written_otherwise():  # the training split read by hand, batched differently
    return _tiny_batches(inputs.image_dataset("mnist", "train").batch(32).repeat())


def _test_set():
    return _tiny_batches(inputs.make_eval_input_fn()().repeat())


def _one_batch_again_and_again():
    return _tiny_batches(inputs.make_train_input_fn(shuffle_buffer=100)().take(1).repeat())


def _zeros():  # made up in the cell: all-zero images
    return tf.data.Dataset.from_tensors(({"x": [0.0]}, [2.0])).repeat()


def trained(tmp_path, input_fn, steps=STEPS, name="fixed"):
    estimator = tiny_estimator(tmp_path / name)
    return estimator.train(input_fn, steps=steps)


@pytest.fixture()
def broken(tmp_path, monkeypatch):
    """`broken` in the exercise's folder (here tmp_path/fixed, the folder `trained` uses too)."""
    monkeypatch.setattr(checks, "_exercise_model_dir", lambda: tmp_path / "fixed")
    return tiny_estimator(tmp_path / "fixed")


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


def test_another_kind_of_estimator_is_not_the_exercise(broken, tmp_path):
    # a LinearClassifier trained right is another model: the exercise fixes broken's training
    linear = tf.estimator.LinearClassifier(
        [tf.feature_column.numeric_column("x")], model_dir=str(tmp_path / "fixed")
    )
    _fails(
        checks.fixed_input_fn,
        linear,
        broken,
        STEPS,
        match=r"is another model \(LinearClassifier\) than `broken` \(Estimator\)",
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


def test_fixed_trained_twice(broken, tmp_path):
    model = trained(tmp_path, _right)
    model.train(_right, steps=STEPS)
    _fails(
        checks.fixed_input_fn, model, broken, STEPS, match=r"global step 10, not 5: steps add up"
    )


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


def test_fixed_without_its_training_graph(broken, tmp_path):
    model = trained(tmp_path, _right)
    (tmp_path / "fixed" / "graph.pbtxt").unlink()
    _fails(checks.fixed_input_fn, model, broken, STEPS, match=r"has no graph.pbtxt")


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
            r"did not train on the MNIST training files \(its training graph reads none",
            marks=bank(2, "right shape, wrong content"),
        ),
        (_one_batch_again_and_again, r"keeps only part of the training set \(a take\(\)"),
    ],
)
def test_fixed_trained_on_other_data(broken, tmp_path, input_fn, match):
    model = trained(tmp_path, input_fn)
    message = _fails(checks.fixed_input_fn, model, broken, STEPS, match=match)
    assert "make_train_input_fn" not in message


@pytest.mark.parametrize(
    "input_fn",
    [_right, pytest.param(_right_written_otherwise, marks=bank(2, "right, written otherwise"))],
)
def test_fixed_correct(broken, tmp_path, input_fn, capsys):
    checks.fixed_input_fn(trained(tmp_path, input_fn), broken, STEPS)
    out = capsys.readouterr().out
    assert out.startswith("Correct: trained to global step 5 on the MNIST training files")
    assert out.count("\n") == 1


def test_broken_itself_trained_is_correct(broken, capsys):
    checks.fixed_input_fn(broken.train(_right, steps=STEPS), broken, STEPS)
    assert capsys.readouterr().out.startswith("Correct:")


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
    _fails(checks.logged_seconds, TOTAL + 0.07, LINES, match=r"is about 2 % more than the sum")


@pytest.mark.parametrize(
    "answer, match",
    [
        # close, but no rounding of the sum: not called rounded
        (TOTAL + 0.002, r"is within 1 % of the sum of the '\(… sec\)' times on the loss lines"),
        (1.01 * TOTAL, r"is within 1 % of the sum"),
        (1.03 * TOTAL, r"is about 3 % more than the sum"),
        # the times worked out from the rates: LOG_EVERY / rate, summed
        (100 / 63.2565 + 100 / 57.6665, r"is within 1 % of the sum"),
        # steps over the mean rate
        (300 / ((63.2565 + 57.6665) / 2), r"is about 49 % more than the sum"),
        (0.17, r"is about 95 % less than the sum"),  # typed in
    ],
)
def test_seconds_near_misses_are_not_called_rounded(answer, match):
    message = _fails(checks.logged_seconds, answer, LINES, match=match)
    assert "but rounded" not in message and str(round(TOTAL, 3)) not in message


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


def test_estimator_that_is_no_class_gets_no_class_note(broken):
    message = _fails(checks.fixed_input_fn, 42, broken, 300, match="should be the Estimator")
    assert message.endswith("not int")


def test_a_zh_tw_learner_reads_the_message_in_chinese(zh_tw):
    template = "{answer} is a count of lines: add the seconds they show"
    sentences = zh_tw()
    message = failure(checks.logged_seconds, 2.0, LINES)
    assert message == sentences[template].format(answer=2.0)


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


def _fashion():  # the right pipeline over Fashion-MNIST, whose files have the same names
    return _tiny_batches(inputs.make_train_input_fn("fashion-mnist", shuffle_buffer=100)())


def _skipped():
    return _tiny_batches(inputs.image_dataset("mnist", "train").skip(59_000).repeat().batch(100))


def _filtered():
    dataset = inputs.image_dataset("mnist", "train").filter(lambda image, label: label < 5)
    return _tiny_batches(dataset.repeat().batch(100))


@pytest.mark.parametrize(
    "input_fn, match",
    [
        (_fashion, r"did not train on the MNIST training files"),
        (_skipped, r"keeps only part of the training set \(a take\(\), skip\(\), filter\(\)"),
        (_filtered, r"keeps only part of the training set"),
    ],
)
def test_fixed_trained_on_other_data_read_otherwise(broken, tmp_path, input_fn, match):
    _fails(checks.fixed_input_fn, trained(tmp_path, input_fn), broken, STEPS, match=match)


def test_fixed_one_step_too_many_is_named_so(broken, tmp_path):
    message = _fails(
        checks.fixed_input_fn,
        trained(tmp_path, _right, steps=STEPS + 1),
        broken,
        STEPS,
        match=rf"global step {STEPS + 1}, one step past {STEPS}: train\(\) makes exactly",
    )
    assert "typed in" not in message


def test_fixed_input_that_runs_out_is_named_so(broken, tmp_path):
    # the evaluation input function over 200 training images: 2 batches, then the data ends
    def finite():
        return _tiny_batches(inputs.make_eval_input_fn(split="train", count=200, batch_size=100)())

    message = _fails(
        checks.fixed_input_fn,
        trained(tmp_path, finite),
        broken,
        STEPS,
        match=rf"global step 2, not {STEPS}: its input function ran out of batches after 2 steps",
    )
    assert "train it with steps" not in message
