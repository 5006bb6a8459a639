"""Notebook 03's exercise checks on right answers and on a bank of plausible wrong ones:
no wrong answer passes, no right one fails, and each message names the mistake without handing
over the answer.

Exercise 1 runs the learner's train op inside a linear model_fn
(``tests.support.model_fns.variant``), as the notebook's ``linear_model_fn`` does; exercise 2 a
predictions function on fixed logits; exercise 3 a metric function on two batches.
"""

import re

import numpy as np
import pytest
import tensorflow as tf

from helpers.checks import notebook03 as checks
from helpers.checks import notebook03
from helpers.problems import CheckFailed
from tests.support.banks import bank, by_name, entry
from tests.support.checks import assert_names_the_mistake, failure, notebook_headings, zh_tw_heading
from tests.support.model_fns import variant

# The kinds that do not apply, argued (tests/support/banks.py).
NOT_APPLICABLE = {
    1: {
        "wrong unit": (
            "the answer is not a quantity (an Estimator, a train op, a hook, a config): no unit"
        ),
        "hard-coded from an output above": (
            "the prompt gives both numbers (0.1, 1); no output above shows one"
        ),
    },
    2: {
        "hard-coded from an output above": (
            "a function of logits the check makes: no output above gives its numbers"
        ),
        "forbidden API": "the prompt forbids no API",
    },
    3: {
        "hard-coded from an output above": (
            "a metric function: no output above gives a number for it"
        ),
    },
}

GD = tf.compat.v1.train.GradientDescentOptimizer


def _with_train_op(train_op_for):
    """The notebook's ``linear_model_fn(train_op_for)``:
    the TRAIN branch's train_op is ``train_op_for(loss)``."""
    return variant(
        train=lambda mode, loss: tf.estimator.EstimatorSpec(
            mode, loss=loss, train_op=train_op_for(loss)
        )
    )


def _step():
    return tf.compat.v1.train.get_global_step()


def _clipped(clip, optimizer=lambda: GD(0.1), global_step=_step):
    def train_op_for(loss):
        opt = optimizer()
        pairs = [(clip(gradient), variable) for gradient, variable in opt.compute_gradients(loss)]
        return opt.apply_gradients(pairs, global_step=global_step())

    return train_op_for


def _by_norm(gradient):
    return tf.clip_by_norm(gradient, 1.0)


def _global_norm(loss):
    optimizer = GD(0.1)
    gradients, variables = zip(*optimizer.compute_gradients(loss))
    clipped, _ = tf.clip_by_global_norm(gradients, 1.0)
    return optimizer.apply_gradients(zip(clipped, variables), global_step=_step())


def _grouped_increment(loss):
    optimizer = GD(0.1)
    pairs = [(_by_norm(g), v) for g, v in optimizer.compute_gradients(loss)]
    return tf.group(optimizer.apply_gradients(pairs), tf.compat.v1.assign_add(_step(), 1))


def _twice(loss):
    optimizer = GD(0.1)
    pairs = [(_by_norm(g), v) for g, v in optimizer.compute_gradients(loss)]
    return tf.group(
        optimizer.apply_gradients(pairs, global_step=_step()), tf.compat.v1.assign_add(_step(), 1)
    )


def _own_counter(loss):
    counter = tf.Variable(0, dtype=tf.int64, trainable=False, name="my_step")
    return _clipped(_by_norm, global_step=lambda: counter)(loss)


def _create_global_step(loss):
    return _clipped(_by_norm, global_step=tf.compat.v1.train.create_global_step)(loss)


def _no_op(loss):
    return tf.group(tf.compat.v1.assign_add(_step(), 1))


def _tf_gradients(loss):
    """tf.gradients of the trainable variables, clipped, applied by the optimizer."""
    variables = tf.compat.v1.trainable_variables()
    clipped = [_by_norm(g) for g in tf.gradients(loss, variables)]
    return GD(0.1).apply_gradients(zip(clipped, variables), global_step=_step())


def _by_hand(loss):
    """No optimizer: each variable minus 0.1 times its gradient scaled to norm at most 1."""
    variables = tf.compat.v1.trainable_variables()
    updates = [
        variable.assign_sub(0.1 * g * tf.minimum(1.0, 1.0 / tf.norm(g)))
        for g, variable in zip(tf.gradients(loss, variables), variables)
    ]
    with tf.control_dependencies(updates):
        return tf.compat.v1.assign_add(_step(), 1)


def _global_norm_one_at_a_time(loss):
    optimizer = GD(learning_rate=0.1)
    pairs = [
        (tf.clip_by_global_norm([g], clip_norm=1)[0][0], v)
        for g, v in optimizer.compute_gradients(loss, var_list=tf.compat.v1.trainable_variables())
    ]
    return optimizer.apply_gradients(pairs, global_step=tf.compat.v1.train.get_global_step())


def _by_norm_when_long(gradient):
    """Divided by its norm when that is above 1, left as it is otherwise: a clip by norm too."""
    norm = tf.norm(gradient)
    return tf.cond(norm > 1.0, lambda: gradient / norm, lambda: gradient)


def _clipped_when_the_loss_is_large(loss):
    """Clips each gradient only when the loss is above 1 (the adversary's answer): on a batch of
    small loss the large gradients go through unclipped."""
    optimizer = GD(0.1)
    pairs = [
        (tf.cond(loss > 1.0, lambda: _by_norm(g), lambda: g), v)
        for g, v in optimizer.compute_gradients(loss)
    ]
    return optimizer.apply_gradients(pairs, global_step=_step())


# --------------------------------------------------------------------------- exercise 1


@pytest.mark.parametrize(
    "train_op_for",
    [
        _clipped(_by_norm),
        _grouped_increment,
        _clipped(_by_norm, global_step=tf.compat.v1.train.get_or_create_global_step),
        pytest.param(_tf_gradients, marks=bank(1, "right, written otherwise")),
        pytest.param(_by_hand, marks=bank(1, "right, written otherwise")),
        pytest.param(_global_norm_one_at_a_time, marks=bank(1, "right, written otherwise")),
        pytest.param(_clipped(_by_norm_when_long), marks=bank(1, "right, written otherwise")),
    ],
    ids=[
        "clip_by_norm",
        "assign_add grouped",
        "get_or_create",
        "tf.gradients",
        "assign_sub by hand",
        "global norm of each",
        "tf.cond on the norm",
    ],
)
def test_exercise_1_right_answers_pass(capsys, train_op_for):
    checks.clipped_training_step(_with_train_op(train_op_for))
    assert capsys.readouterr().out.startswith(
        "Correct: one run moves the global step from 0 to 1, and each weight by at most 0.1 "
        "(the kernel's gradient had norm "
    )


def test_exercise_1_global_norm_is_refused_when_the_bias_carries_part_of_the_norm():
    """On dim pixels (0.4 at most) the bias's gradient is a larger share of the global norm:
    clipped together, the kernel moves by less than the clip norm too, and the message still
    names the clip by the global norm."""

    def dim_linear_model_fn(features, labels, mode, params):
        pixels = tf.reshape(features["image"], [-1, 28 * 28]) * 0.04
        logits = tf.keras.layers.Dense(10)(pixels)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=_global_norm(loss))

    message = failure(checks.clipped_training_step, dim_linear_model_fn)
    assert "clipped the gradients together, by their global norm" in message, message


EXERCISE_1_WRONG = {
    "blank": (None, "`fixed_model_fn` is still None"),
    "not a function": ("model_fn", "should be a model_fn"),
    "the break-it minimize": pytest.param(
        _with_train_op(lambda loss: GD(0.1).minimize(loss)),
        "leaves the global step at 0",
        marks=bank(1, "copy of a nearby cell"),
    ),
    "apply_gradients without the step": (
        _with_train_op(_clipped(_by_norm, global_step=lambda: None)),
        "does not know the global step",
    ),
    "its own counter": (_with_train_op(_own_counter), "leaves the global step at 0"),
    "create_global_step again": (
        _with_train_op(_create_global_step),
        'building the TRAIN branch raised `ValueError: "global_step" already exists`',
    ),
    # global step 2, not 1
    "advanced twice": pytest.param(
        _with_train_op(_twice), "from 0 to 2", marks=bank(1, "off by one")
    ),
    "only counts": (_with_train_op(_no_op), "changed no weight"),
    # minimize, which the prompt rules out
    "not clipped": pytest.param(
        _with_train_op(lambda loss: GD(0.1).minimize(loss, global_step=_step())),
        "used the gradients as they are",
        marks=bank(1, "forbidden API"),
    ),
    # the same as clip_by_norm on real images' small gradients; the check feeds over-bright ones
    "clipped by value": pytest.param(
        _with_train_op(_clipped(lambda g: tf.clip_by_value(g, -1.0, 1.0))),
        "each gradient *value* was clipped",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
    "Adam": (
        _with_train_op(_clipped(_by_norm, optimizer=lambda: tf.compat.v1.train.AdamOptimizer(0.1))),
        "moved dense/kernel in another direction than its gradient's: clipping only shortens a "
        "gradient, and gradient descent at learning rate 0.1 moves each variable straight "
        "against it (which optimizer?)",
    ),
    "learning rate 1": (
        _with_train_op(_clipped(_by_norm, optimizer=lambda: GD(1.0))),
        "moved every variable along its clipped gradient, 10 times as far as gradient descent at "
        "learning rate 0.1 moves it: which learning rate",
    ),
    # the dim images' gradients, shorter than 1, are shortened to 0.1 too
    "clipped to 0.1": (
        _with_train_op(_clipped(lambda g: tf.clip_by_norm(g, 0.1))),
        "one run of your train_op moved dense/kernel by 0.01 against its gradient, whose norm was",
    ),
    "gradient ascent": pytest.param(
        _with_train_op(_clipped(lambda g: -tf.clip_by_norm(g, 1.0))),
        "moved dense/kernel along its gradient, which raises the loss",
        marks=bank(1, "right shape, wrong content"),
    ),
    "a typo": (
        _with_train_op(
            lambda loss: tf.compat.v1.train.GradientDescentOptimiser(0.1).minimize(loss)
        ),
        "raised `AttributeError",
    ),
    "no train_op": (
        variant(train=lambda mode, loss: tf.estimator.EstimatorSpec("eval", loss=loss)),
        "should return an EstimatorSpec with a train_op",
    ),
}


def _kernel_only(loss):
    """Clips and applies the first (gradient, variable) pair only: the bias never moves."""
    optimizer = GD(0.1)
    gradient, variable = optimizer.compute_gradients(loss)[0]
    return optimizer.apply_gradients([(_by_norm(gradient), variable)], global_step=_step())


def _applied_twice(loss):
    """apply_gradients without the step, then again with it: two clipped steps in one run."""
    optimizer = GD(0.1)
    pairs = [(_by_norm(g), v) for g, v in optimizer.compute_gradients(loss)]
    return tf.group(
        optimizer.apply_gradients(pairs), optimizer.apply_gradients(pairs, global_step=_step())
    )


def _asserts_small_gradients(loss):
    """Asserts the gradients' norm is at most 1 before clipping them: fails when the op runs."""
    gradients = [g for g, _ in GD(0.1).compute_gradients(loss)]
    with tf.control_dependencies(
        [tf.debugging.assert_less_equal(tf.linalg.global_norm(gradients), 1.0)]
    ):
        return _clipped(_by_norm)(loss)


def _constant_loss(mode, loss):
    """A TRAIN branch whose loss is a constant (the model's loss left out): nothing to clip."""
    constant = tf.constant(1.0)
    return tf.estimator.EstimatorSpec(
        mode, loss=constant, train_op=tf.compat.v1.assign_add(_step(), 1)
    )


# Wrong answers found by mutation testing (make mutation), not counted in
# the notebook's closing note (test_the_banks_are_counted counts EXERCISE_1_WRONG).
EXERCISE_1_MORE_WRONG = {
    "the bias left out": (
        _with_train_op(_kernel_only),
        "one run of your train_op left dense/bias where it was, though its gradient had norm",
    ),
    "applied twice": (
        _with_train_op(_applied_twice),
        "2 times as far as gradient descent at learning rate 0.1 moves it: which learning rate, "
        "and are the gradients applied once?",
    ),
    "fails when it runs": (
        _with_train_op(_asserts_small_gradients),
        # the error's first line that says what, not TensorFlow's "Graph execution error:"
        "running the train_op raised `InvalidArgumentError: assertion failed: [Condition x <= y "
        "did not hold element-wise:]",
    ),
    "a constant loss": (
        variant(train=_constant_loss),
        "the loss of the TRAIN branch depends on no trainable variable",
    ),
}


def _each_pair(clip_pair):
    """A train op that clips each (gradient, variable) pair with ``clip_pair``."""

    def train_op_for(loss):
        optimizer = GD(0.1)
        pairs = [clip_pair(g, v) for g, v in optimizer.compute_gradients(loss)]
        return optimizer.apply_gradients(pairs, global_step=_step())

    return train_op_for


def _bias_left_unclipped(gradient, variable):
    return (_by_norm(gradient) if "kernel" in variable.name else gradient, variable)


def _bias_only(loss):
    """The kernel's pair dropped: only the bias is trained."""
    optimizer = GD(0.1)
    pairs = [(_by_norm(g), v) for g, v in optimizer.compute_gradients(loss) if "bias" in v.name]
    return optimizer.apply_gradients(pairs, global_step=_step())


# Found by outside testers: each was answered "which optimizer, which learning rate?" though the
# optimizer and the rate were right (issue: name the variable, clipped or not, the direction).
# Not counted in the notebook's closing note either.
EXERCISE_1_TESTERS_WRONG = {
    # on MNIST's images (0-1) the bias's gradient stays below norm 1: clipped or not, the same
    "the bias left unclipped": pytest.param(
        _with_train_op(_each_pair(_bias_left_unclipped)),
        "one run of your train_op applied the gradient of dense/bias unclipped, at its full norm "
        "of ",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
    "clip_by_norm over axes=[0]": pytest.param(
        _with_train_op(
            _each_pair(lambda g, v: (tf.clip_by_norm(g, 1.0, axes=[0]), v)),
        ),
        "one run of your train_op clipped the gradient of dense/kernel in slices, the norm of "
        "each taken over axis 0 alone: the norm to clip to 1 is that of the whole gradient",
        marks=bank(1, "right shape, wrong content"),
    ),
    "the kernel dropped": (
        _with_train_op(_bias_only),
        "one run of your train_op left dense/kernel where it was, though its gradient had norm",
    ),
    "gradient ascent, a negative rate": (
        _with_train_op(_clipped(_by_norm, optimizer=lambda: GD(-0.1))),
        "moved dense/kernel along its gradient, which raises the loss",
    ),
}

# More answers tried by hand (issue: at least 8 per exercise), each with what the check says.
EXERCISE_1_TRIED_WRONG = {
    # the second step adds 0.9 of the first's clipped gradient
    "momentum": (
        _with_train_op(
            _clipped(_by_norm, optimizer=lambda: tf.compat.v1.train.MomentumOptimizer(0.1, 0.9))
        ),
        "in another direction than its gradient's",
    ),
    "clipped to 2": (
        _with_train_op(_clipped(lambda g: tf.clip_by_norm(g, 2.0))),
        "one run of your train_op moved dense/kernel by 0.2 against its gradient, whose norm was",
    ),
    # the course's cnn_model_fn's train op, copied
    "the course's Adam minimize": pytest.param(
        _with_train_op(
            lambda loss: tf.compat.v1.train.AdamOptimizer(learning_rate=0.1).minimize(
                loss, global_step=_step()
            )
        ),
        "in another direction than its gradient's",
        marks=bank(1, "copy of a nearby cell"),
    ),
    "the rows clipped, axes=[-1]": (
        _with_train_op(_each_pair(lambda g, v: (tf.clip_by_norm(g, 1.0, axes=[-1]), v))),
        "clipped the gradient of dense/kernel in slices, the norm of each taken over axis 1",
    ),
    "each value clipped, the bias by its norm": (
        _with_train_op(
            _each_pair(
                lambda g, v: (
                    tf.clip_by_value(g, -1.0, 1.0) if "kernel" in v.name else _by_norm(g),
                    v,
                )
            )
        ),
        "each gradient *value* was clipped to [-1, 1]",
    ),
}


# Found by a blind adversary: each passed the check before it ran a step of small loss and compared
# every variable's step with its own clipped gradient's. Not counted in the closing note either.
EXERCISE_1_ADVERSARY_WRONG = {
    # F1: on the bright step the bias's gradient (norm above 1) is a hundredth of the global norm
    "clip_by_global_norm": pytest.param(
        _with_train_op(_global_norm),
        "one run of your train_op clipped the gradients together, by their global norm (",
        marks=bank(1, "right shape, wrong content"),
    ),
    # F2: the dim and bright steps' losses are above 1; the third step's loss is below
    "clipped only when the loss is above 1": pytest.param(
        _with_train_op(_clipped_when_the_loss_is_large),
        "one run of your train_op applied the gradient of dense/kernel unclipped, at its full "
        "norm of ",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
}


@pytest.mark.parametrize("name", by_name(EXERCISE_1_ADVERSARY_WRONG))
def test_exercise_1_adversary_finds_are_refused_for_their_mistake(name):
    answer, words = entry(EXERCISE_1_ADVERSARY_WRONG[name])
    message = failure(checks.clipped_training_step, answer)
    assert_names_the_mistake(
        message, words, ("clip_by_norm", "tf.cond", "GradientDescentOptimizer")
    )
    assert "Correct" not in message


def test_exercise_1_a_clip_that_waits_for_a_large_loss_is_told_by_the_two_losses():
    """The message states what the runs showed: the kernel clipped on a run of large loss, not on
    one of small loss (below 1), and says to clip on every step."""
    message = failure(checks.clipped_training_step, _with_train_op(_clipped_when_the_loss_is_large))
    assert message.startswith("one run of your train_op applied the gradient of dense/kernel")
    assert "though another run clipped it: a gradient longer than 1 must be clipped on every " in (
        message
    )
    step, loss, other_step, other = re.search(
        r"started at global step (\d) with a loss of (\d+\.\d+), the one that did at global step "
        r"(\d) with a loss of (\d+\.\d+)\)$",
        message,
    ).groups()
    assert float(loss) < 1 < float(other) and (step, other_step) == ("2", "0"), message


def _apply_then(step_op):
    """A train op that applies the clipped gradients without the global step, then (after them)
    runs ``step_op(global step)`` instead."""

    def train_op_for(loss):
        optimizer = GD(0.1)
        pairs = [(_by_norm(g), v) for g, v in optimizer.compute_gradients(loss)]
        with tf.control_dependencies([optimizer.apply_gradients(pairs)]):
            return step_op(_step())

    return train_op_for


def _clipped_after_the_first_step(loss):
    """The adversary's: no clipping while the global step is 0 (the check's first run was once on
    the dim images, whose gradients need none)."""
    optimizer = GD(0.1)
    step = _step()
    pairs = [
        (tf.cond(step > 0, lambda g=g: _by_norm(g), lambda g=g: g), v)
        for g, v in optimizer.compute_gradients(loss)
    ]
    return optimizer.apply_gradients(pairs, global_step=step)


# Found by a second blind adversary: each passed when the check read the global step after its
# first run only, and ran its large gradients at global steps 1 and 2. Not counted in the note.
EXERCISE_1_ADVERSARY_2_WRONG = {
    # F1: right after one run only
    "the global step set to 1": pytest.param(
        _with_train_op(_apply_then(lambda step: tf.compat.v1.assign(step, 1))),
        "the first run of your train_op moved the global step from 0 to 1, but run 2 moved it "
        "from 1 to 1: each run must advance it by one from the value it has (is it set rather "
        "than advanced?)",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
    "the global step set to ones_like": (
        _with_train_op(_apply_then(lambda step: step.assign(tf.ones_like(step)))),
        "but run 2 moved it from 1 to 1: each run must advance it by one",
    ),
    "the global step doubled, plus 1": (
        _with_train_op(_apply_then(lambda step: step.assign(2 * step + 1))),
        "the first run of your train_op moved the global step from 0 to 1, but run 2 moved it "
        "from 1 to 3",
    ),
    # F2: the large gradients came at global steps 1 and 2 only
    "no clipping at global step 0": pytest.param(
        _with_train_op(_clipped_after_the_first_step),
        "one run of your train_op applied the gradient of dense/kernel unclipped, at its full "
        "norm of ",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
}


@pytest.mark.parametrize("name", by_name(EXERCISE_1_ADVERSARY_2_WRONG))
def test_exercise_1_second_adversary_finds_are_refused_for_their_mistake(name):
    answer, words = entry(EXERCISE_1_ADVERSARY_2_WRONG[name])
    message = failure(checks.clipped_training_step, answer)
    assert_names_the_mistake(
        message, words, ("clip_by_norm", "tf.cond", "assign_add", "global_step=")
    )
    assert "\n" not in message and "Correct" not in message


def test_exercise_1_a_clip_that_waits_for_global_step_1_is_told_the_steps():
    """The run that did not clip started at global step 0, the one that did at step 2; both
    stated, so the message does not read as being about the loss alone."""
    message = failure(checks.clipped_training_step, _with_train_op(_clipped_after_the_first_step))
    assert re.search(
        r"must be clipped on every step \(the run that did not clip started at global step 0 "
        r"with a loss of \d+\.\d\d, the one that did at global step 2 with a loss of 0\.\d\d\)$",
        message,
    ), message


def test_exercise_1_global_norm_names_the_bias_step_that_shrank():
    """Clipped together, the bias's step on the bright images is a small part of the 0.1 that its
    own gradient, clipped on its own, gives: the message names the bias and both steps."""
    message = failure(checks.clipped_training_step, _with_train_op(_global_norm))
    moved, want = re.search(
        r"moved dense/bias by (\S+), where .* moves it by (\S+):", message
    ).groups()
    assert float(moved) < 0.01 and float(want) == pytest.approx(0.1), message
    assert message.endswith("clip each variable's gradient on its own"), message


@pytest.mark.parametrize("name", by_name(EXERCISE_1_TESTERS_WRONG))
def test_exercise_1_a_clipping_mistake_is_not_blamed_on_the_optimizer(name):
    answer, words = entry(EXERCISE_1_TESTERS_WRONG[name])
    message = failure(checks.clipped_training_step, answer)
    assert "which optimizer" not in message and "which learning rate" not in message, message


@pytest.mark.parametrize(
    "name",
    by_name(
        EXERCISE_1_WRONG, EXERCISE_1_MORE_WRONG, EXERCISE_1_TESTERS_WRONG, EXERCISE_1_TRIED_WRONG
    ),
)
def test_exercise_1_wrong_answers_fail_and_say_why(name):
    answer, words = entry(
        {
            **EXERCISE_1_WRONG,
            **EXERCISE_1_MORE_WRONG,
            **EXERCISE_1_TESTERS_WRONG,
            **EXERCISE_1_TRIED_WRONG,
        }[name]
    )
    assert_names_the_mistake(
        failure(checks.clipped_training_step, answer),
        words,
        ("global_step=", "apply_gradients(", "clip_by_norm", "GradientDescentOptimizer"),
    )


def test_exercise_1_break_it_message_names_cause_and_section():
    with pytest.raises(CheckFailed) as caught:
        checks.clipped_training_step(_with_train_op(lambda loss: GD(0.1).minimize(loss)))
    assert str(caught.value) == (
        "one run of your train_op leaves the global step at 0, so Estimator never counts a step: "
        "the op that applies the gradients does not know the global step it should advance "
        "(section 'One forward pass, then three branches by `mode`', TRAIN)"
    )


def _stub(*args):
    raise NotImplementedError()


def test_exercise_1_a_stub_left_in_the_train_op_is_named_as_it_is():
    """An error without text (the student copy's ``raise NotImplementedError()``) adds nothing."""
    assert failure(checks.clipped_training_step, _with_train_op(_stub)) == (
        "building the TRAIN branch raised `NotImplementedError`"
    )


@pytest.mark.parametrize("attempt", range(3))  # the model's initial weights are drawn anew
def test_exercise_1_trains_on_large_gradients_then_on_small_ones_then_at_a_small_loss(attempt):
    """On the notebook's linear model the check's first run, at global step 0, has every gradient
    above 1, the bias's too (each must be clipped, each on its own), its second every gradient
    below norm 1, even all together (no clipping may change them), its third a loss well below 1
    with the kernel's gradient still far above 1 (a clip that waits for a large loss, or for a
    later step, lets one through); the global step is read before the first run and after each."""
    names, runs, steps = notebook03._train_steps(_with_train_op(_clipped(_by_norm)))
    assert names == ["dense/kernel", "dense/bias"] and steps == [0, 1, 2, 3]
    assert (notebook03.BRIGHT, notebook03.DIM, notebook03.CONFIDENT) == (0, 1, 2)
    (bright_loss, bright, _moves), (_dim_loss, dim, _dim_moves), (loss, confident, _) = runs
    assert np.sqrt(sum(np.sum(g**2) for g in dim)) < 0.6
    assert min(np.linalg.norm(g) for g in bright) > 1.05
    assert np.linalg.norm(bright[0]) > 100 * np.linalg.norm(bright[1])
    # the bias's share of the global norm: clipped together, its step shrinks over 50-fold
    assert np.sqrt(sum(np.sum(g**2) for g in bright)) > 50 * np.linalg.norm(bright[1])
    assert bright_loss > 1 and notebook03.CONFIDENT_LOSS[0] <= loss <= notebook03.CONFIDENT_LOSS[1]
    assert loss < 0.5 and np.linalg.norm(confident[0]) > 5
    images = notebook03.exercise_1_images()
    assert images[0].max() < 0.05 and images[1].max() > 9  # real images are 0-1


# --------------------------------------------------------------------------- exercise 2


def _top(values=lambda top: top.values[:, 0], indices=lambda top: top.indices, of=tf.nn.softmax):
    def top_predictions(logits):
        top = tf.math.top_k(of(logits), k=2)
        return {"top_2": indices(top), "confidence": values(top)}

    return top_predictions


def _argsort(logits):
    probabilities = tf.nn.softmax(logits)
    return {
        "top_2": tf.argsort(probabilities, axis=1, direction="DESCENDING")[:, :2],
        "confidence": tf.reduce_max(probabilities, axis=1),
    }


@pytest.mark.parametrize(
    "answer",
    [_top(), pytest.param(_argsort, marks=bank(2, "right, written otherwise"))],
    ids=["top_k", "argsort"],
)
def test_exercise_2_right_answers_pass(capsys, answer):
    checks.top_predictions_per_example(answer)
    assert capsys.readouterr().out.startswith(
        "Correct: 'top_2' has shape (4, 2) and 'confidence' shape (4,)"
    )


def test_exercise_2_top_k_of_the_logits_passes(capsys):
    def top_predictions(logits):  # the order of the logits is the order of the probabilities
        probabilities = tf.nn.softmax(logits)
        return {
            "top_2": tf.math.top_k(logits, k=2).indices,
            "confidence": tf.reduce_max(probabilities, axis=1),
        }

    checks.top_predictions_per_example(top_predictions)
    assert "Correct" in capsys.readouterr().out


def _probabilities(logits):
    return tf.nn.softmax(logits)


EXERCISE_2_WRONG = {
    "blank": (None, "`top_predictions` is still None"),
    "not a function": ({"top_2": 0}, "should be a function of the logits"),
    "a tuple": (lambda logits: tf.math.top_k(logits, k=2), "return the predictions dict"),
    # the PREDICT branch's classes, copied
    "other keys": pytest.param(
        lambda logits: {"classes": tf.argmax(logits, 1)},
        "use exactly 'top_2' and 'confidence'",
        marks=bank(2, "copy of a nearby cell"),
    ),
    "a typo": (
        lambda logits: {"top_2": tf.math.topk(logits, k=2).indices},
        "raised `AttributeError",
    ),
    "raises": (
        lambda logits: {"top_2": tf.math.top_k(logits, k=20).indices},
        "top_predictions(logits) raised `ValueError: input must have last dimension >= k = 20",
    ),
    "confidence over the whole batch": (
        _top(values=lambda top: tf.reduce_max(top.values)),
        "'confidence' has shape () for a batch of 4 (it reduced over the batch",
    ),
    "confidence over axis 0": (
        lambda logits: {
            "top_2": tf.math.top_k(logits, k=2).indices,
            "confidence": tf.reduce_max(_probabilities(logits), axis=0),
        },
        "'confidence' has shape (10,) for a batch of 4 (it reduced over the batch",
    ),
    "confidence of both": (
        _top(values=lambda top: top.values),
        "'confidence' has shape (4, 2) for a batch of 4: Estimator needs the batch first",
    ),
    "argmax without axis": (
        lambda logits: {
            "top_2": tf.argmax(logits),
            "confidence": tf.reduce_max(_probabilities(logits), axis=1),
        },
        "'top_2' has shape (10,) for a batch of 4 (it reduced over the batch",
    ),
    "top_2 of probabilities' values": (_top(indices=lambda top: top.values), "class ids"),
    "least probable": (
        lambda logits: {
            "top_2": tf.argsort(logits, axis=1)[:, :2],
            "confidence": tf.reduce_max(_probabilities(logits), axis=1),
        },
        "the two *least* probable",
    ),
    "second first": (
        _top(indices=lambda top: tf.reverse(top.indices, axis=[1])),
        "in the wrong order",
    ),
    "confidence as a logit": pytest.param(
        _top(of=lambda logits: logits), "highest *logit*", marks=bank(2, "wrong unit")
    ),
    # index 1 for index 0
    "confidence of the runner-up": pytest.param(
        _top(values=lambda top: top.values[:, 1]),
        "not the probability",
        marks=bank(2, "off by one"),
    ),
    "top_2 sorted by class id": pytest.param(
        _top(indices=lambda top: tf.sort(top.indices, axis=1)),
        "not the two most probable classes",
        marks=bank(2, "right shape, wrong content"),
    ),
}


# Found by mutation testing; not counted in the notebook's closing note.
EXERCISE_2_MORE_WRONG = {
    "top_2 of the batch's mean probabilities": (
        lambda logits: {
            "top_2": tf.math.top_k(tf.reduce_mean(_probabilities(logits), axis=0), k=2).indices,
            "confidence": tf.reduce_max(_probabilities(logits), axis=1),
        },
        "'top_2' has shape (2,) for a batch of 4 (it reduced over the batch, axis 0)",
    ),
}


@pytest.mark.parametrize("name", by_name(EXERCISE_2_WRONG, EXERCISE_2_MORE_WRONG))
def test_exercise_2_wrong_answers_fail_and_say_why(name):
    answer, words = entry({**EXERCISE_2_WRONG, **EXERCISE_2_MORE_WRONG}[name])
    assert_names_the_mistake(
        failure(checks.top_predictions_per_example, answer),
        words,
        ("top_k", "argsort", "axis=1", "softmax"),
    )


def test_exercise_2_errors_show_the_learners_first_line():
    # TensorFlow's first line that says what, in backticks, without the op it names after " for "
    message = failure(
        checks.top_predictions_per_example,
        lambda logits: {"top_2": tf.math.top_k(logits, k=20).indices},
    )
    assert message == (
        "top_predictions(logits) raised `ValueError: input must have last dimension >= k = 20 "
        "but is 10`"
    )
    assert failure(checks.top_predictions_per_example, _stub) == (
        "top_predictions(logits) raised `NotImplementedError`"
    )


# Worked out by hand from notebook03.EXERCISE_2_LOGITS: each example's two most probable classes
# and the probability of the first, what a right answer returns and the check compares with.
EXERCISE_2_TOP_2 = [[1, 5], [0, 4], [7, 6], [8, 3]]
EXERCISE_2_CONFIDENCE = [0.3901, 0.5397, 0.4547, 0.3613]


def test_exercise_2_logits_ask_for_these_predictions():
    logits = notebook03.EXERCISE_2_LOGITS.astype(np.float64)
    probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    ranked = np.sort(probabilities, axis=1)[:, ::-1]
    assert np.argsort(-probabilities, axis=1)[:, :2].tolist() == EXERCISE_2_TOP_2
    assert ranked[:, 0] == pytest.approx(EXERCISE_2_CONFIDENCE, abs=5e-5)
    # no ties among the three most probable: top_k, argsort and float32 agree on the order
    assert np.all(ranked[:, :2] - ranked[:, 1:3] > 0.05)


def test_exercise_2_batches_have_sizes_and_rows_a_batch_of_4_does_not():
    """After the batch of 4, a batch of 1, an odd one and a last of 4; rows whose logits are all
    negative, or all but one (zeroing the best logit makes it the runner-up there), rows of
    logits whose exp overflows float32 and a row of small ones beside them; no ties among the
    three most probable classes of any row."""
    batches = notebook03.EXERCISE_2_BATCHES
    assert batches[0] is notebook03.EXERCISE_2_LOGITS
    assert [len(batch) for batch in batches] == [4, 1, 7, 4]
    rows = np.concatenate(batches[1:]).astype(np.float64)
    positives = (rows > 0).sum(axis=1)
    assert (positives == 0).sum() >= 3 and (positives == 1).sum() >= 2
    exp = np.exp(rows - rows.max(axis=1, keepdims=True))
    probabilities = exp / exp.sum(axis=1, keepdims=True)
    ranked = np.sort(probabilities, axis=1)[:, ::-1]
    assert np.all(ranked[:, :2] - ranked[:, 1:3] > 0.02)
    last = notebook03.EXERCISE_2_BATCHES[-1]
    largest = last.max(axis=1)
    assert notebook03.LARGEST_EXP == pytest.approx(88.72, abs=0.01)
    assert (largest > notebook03.LARGEST_EXP).sum() == 3 and largest.min() < 3
    # the largest's exp is inf in float32, as inf / inf is nan
    with np.errstate(over="ignore", invalid="ignore"):
        exp = np.exp(last)
        assert np.all(np.isnan((exp / exp.sum(axis=1, keepdims=True)).max(axis=1)[largest > 89]))
    assert np.all(np.sort(np.concatenate(batches[:-1]), axis=1)[:, -1] < 4)


def _top_2_of_masked_logits(mask):
    """The best class by argmax, the second by argmax of the logits with the best ``mask``ed."""

    def top_predictions(logits):
        first = tf.argmax(logits, axis=1, output_type=tf.int32)
        second = tf.argmax(mask(logits, tf.one_hot(first, 10)), axis=1, output_type=tf.int32)
        return {
            "top_2": tf.stack([first, second], axis=1),
            "confidence": tf.reduce_max(tf.nn.softmax(logits), axis=1),
        }

    return top_predictions


def _squeezed_confidence(logits):
    top = tf.math.top_k(tf.nn.softmax(logits), k=2)
    return {"top_2": top.indices, "confidence": tf.squeeze(top.values[:, :1])}


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(
            _top_2_of_masked_logits(lambda logits, best: logits - 1e9 * best),
            marks=bank(2, "right, written otherwise"),
        ),
        pytest.param(
            _top(indices=lambda top: tf.reshape(top.indices, [-1, 2])),
            marks=bank(2, "right, written otherwise"),
        ),
    ],
    ids=["the best logit pushed down, then argmax", "reshaped to [-1, 2]"],
)
def test_exercise_2_right_answers_pass_on_every_batch(capsys, answer):
    checks.top_predictions_per_example(answer)
    assert capsys.readouterr().out.startswith("Correct: 'top_2' has shape (4, 2)")


# Found by a blind adversary: each passed, or was refused with a traceback or in other words than
# its mistake, when the check ran one batch of 4 with no negative row. Not counted in the note.
EXERCISE_2_ADVERSARY_WRONG = {
    # F3: right for the model_fn checker's batch of 4 only
    "batch size 4 hard-coded": pytest.param(
        _top(
            indices=lambda top: tf.reshape(top.indices, [4, 2]),
            values=lambda top: tf.reshape(top.values[:, 0], [4]),
        ),
        "computing 'top_2' on a batch of 1 raised `InvalidArgumentError: Input to reshape is a "
        "tensor with 2 values, but the requested shape has 8`, where a batch of 4 raised none: a "
        "prediction must follow the size of the batch it is given",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    # F4: the best logit zeroed is above every negative one
    "second class with the best logit zeroed": pytest.param(
        _top_2_of_masked_logits(lambda logits, best: logits * (1.0 - best)),
        "'top_2' names one class twice for an example whose logits are all negative, or all but "
        "one",
        marks=bank(2, "right shape, wrong content"),
    ),
    # F5: the adversary's, whose top_2 then stacks a scalar with a vector
    "squeezed without an axis": pytest.param(
        lambda logits: {
            "top_2": tf.stack(
                [
                    tf.squeeze(tf.math.top_k(logits, k=1).indices),
                    tf.math.top_k(logits, k=2).indices[:, 1],
                ],
                axis=1,
            ),
            "confidence": tf.squeeze(tf.math.top_k(tf.nn.softmax(logits), k=1).values),
        },
        "computing 'top_2' on a batch of 1 raised `InvalidArgumentError: ",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "confidence squeezed without an axis": (
        _squeezed_confidence,
        "'confidence' has shape () for a batch of 1, but shape (4,) for a batch of 4: every axis "
        "of size 1 was removed, the batch's too",
    ),
    # F6: Estimator takes no numpy array as a prediction (was a traceback from session.run)
    "numpy arrays": (
        lambda logits: {
            "top_2": np.zeros((4, 2), np.int32),
            "confidence": np.full((4,), 0.5, np.float32),
        },
        "'top_2' holds a value of type ndarray: an EstimatorSpec takes only tensors as predictions",
    ),
    "a list of tensors": (
        _top(indices=lambda top: [top.indices[:, 0], top.indices[:, 1]]),
        "'top_2' holds a value of type list: an EstimatorSpec takes only tensors",
    ),
    # F10: no "a EstimatorSpec", no "object values"
    "an EstimatorSpec": pytest.param(
        lambda logits: tf.estimator.EstimatorSpec("infer", predictions=_top()(logits)),
        "top_predictions returned a value of type EstimatorSpec: return the predictions dict",
        marks=bank(2, "copy of a nearby cell"),
    ),
    "class ids as strings": pytest.param(
        _top(indices=lambda top: tf.strings.as_string(top.indices)),
        "'top_2' holds string values: it should hold class ids",
        marks=bank(2, "wrong unit"),
    ),
}


@pytest.mark.parametrize("name", by_name(EXERCISE_2_ADVERSARY_WRONG))
def test_exercise_2_adversary_finds_are_refused_for_their_mistake(name):
    answer, words = entry(EXERCISE_2_ADVERSARY_WRONG[name])
    message = failure(checks.top_predictions_per_example, answer)
    assert_names_the_mistake(message, words, ("top_k", "argsort", "axis=1", "softmax"))
    assert "\n" not in message and " a EstimatorSpec" not in message and "object" not in message


def _softmax_by_hand(logits):
    exp = tf.exp(logits)
    return exp / tf.reduce_sum(exp, axis=1, keepdims=True)


def _softmax_minus(largest):
    """A softmax by hand that subtracts ``largest(logits)`` first."""

    def softmax(logits):
        exp = tf.exp(logits - largest(logits))
        return exp / tf.reduce_sum(exp, axis=1, keepdims=True)

    return softmax


def _softmax_by_hand_for_top_2_only(logits):
    return {
        "top_2": tf.math.top_k(_softmax_by_hand(logits), k=2).indices,
        "confidence": tf.reduce_max(tf.nn.softmax(logits), axis=1),
    }


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(
            _top(of=_softmax_minus(lambda x: tf.reduce_max(x, axis=1, keepdims=True))),
            marks=bank(2, "right, written otherwise"),
        ),
        pytest.param(
            _top(of=lambda x: tf.exp(x - tf.reduce_logsumexp(x, axis=1, keepdims=True))),
            marks=bank(2, "right, written otherwise"),
        ),
    ],
    ids=["each row's largest subtracted", "logsumexp"],
)
def test_exercise_2_a_softmax_by_hand_that_does_not_overflow_passes(capsys, answer):
    checks.top_predictions_per_example(answer)
    assert capsys.readouterr().out.startswith("Correct: 'top_2' has shape (4, 2)")


# Found by a second blind adversary: each passed when no logit was large. Not counted in the note.
EXERCISE_2_ADVERSARY_2_WRONG = {
    # F3: confidence=nan on logits of 100
    "a softmax by hand": pytest.param(
        _top(of=_softmax_by_hand),
        "'confidence' is nan for an example whose largest logit is 100, though right for every "
        "example of smaller logits: the probabilities overflow for large logits, as in a softmax "
        "written by hand without subtracting each row's largest logit first (in float32 the exp "
        "of a number above 88.7 is inf, and inf / inf is nan); the lesson's tf.nn.softmax does "
        "not overflow",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "top_2 of a softmax by hand": (
        _softmax_by_hand_for_top_2_only,
        "for an example whose largest logit is 100, though right for every example of smaller "
        "logits: the probabilities overflow for large logits",
    ),
    # the batch's largest logit subtracted (reduce_max without axis): the small row underflows
    "the batch's largest logit subtracted": pytest.param(
        _top(of=_softmax_minus(tf.reduce_max)),
        "'top_2' is not the two most probable classes of each example",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
}


@pytest.mark.parametrize("name", by_name(EXERCISE_2_ADVERSARY_2_WRONG))
def test_exercise_2_second_adversary_finds_are_refused_for_their_mistake(name):
    """The message may name tf.nn.softmax, which the lesson uses; it gives no code of the rest."""
    answer, words = entry(EXERCISE_2_ADVERSARY_2_WRONG[name])
    message = failure(checks.top_predictions_per_example, answer)
    assert_names_the_mistake(message, words, ("top_k", "argsort", "axis=1", "reduce_max"))
    assert "\n" not in message and ("overflow" in message) == ("by hand" in name), message


def test_exercise_2_an_overflow_names_the_key_that_is_wrong():
    message = failure(checks.top_predictions_per_example, _softmax_by_hand_for_top_2_only)
    assert message.startswith("'top_2' is [") and "'confidence'" not in message, message


# --------------------------------------------------------------------------- exercise 3


def _mean_of_wrong(labels, classes):
    return {
        "error_rate": tf.compat.v1.metrics.mean(tf.cast(tf.not_equal(labels, classes), tf.float32))
    }


def _one_minus_accuracy(labels, classes):
    value, update_op = tf.compat.v1.metrics.accuracy(labels=labels, predictions=classes)
    return {"error_rate": (1.0 - value, update_op)}


def _by_hand_totals(labels, classes):
    wrong, count, update = _totals(labels, classes)
    return {"error_rate": (tf.math.divide_no_nan(wrong, count), update)}


@pytest.mark.parametrize(
    "answer",
    [
        _mean_of_wrong,
        pytest.param(_one_minus_accuracy, marks=bank(3, "right, written otherwise")),
        pytest.param(_by_hand_totals, marks=bank(3, "right, written otherwise")),
        pytest.param(
            lambda labels, classes: {
                "error_rate": tf.compat.v1.metrics.mean(tf.not_equal(labels, classes))
            },
            marks=bank(3, "right, written otherwise"),
        ),
    ],
    ids=["mean", "1 - accuracy", "totals by hand", "mean of bools"],
)
def test_exercise_3_right_answers_pass(capsys, answer):
    checks.error_rate_metric_ops(answer)
    assert capsys.readouterr().out.startswith(
        "Correct: after two batches (1 of 4 wrong, then 1 of 2)"
    )


def _batch_error(labels, classes):
    return tf.reduce_mean(tf.cast(tf.not_equal(labels, classes), tf.float32))


def _keras(labels, classes):
    metric = tf.keras.metrics.Mean()
    metric.update_state(tf.cast(tf.not_equal(labels, classes), tf.float32))
    return {"error_rate": metric}


def _last_batch(labels, classes):
    """A variable that keeps only the last batch: the update assigns instead of adding."""
    value = tf.compat.v1.Variable(
        0.0, trainable=False, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES]
    )
    return {
        "error_rate": (
            tf.identity(value),
            tf.compat.v1.assign(value, _batch_error(labels, classes)),
        )
    }


def _first_batch(labels, classes):
    """The value reads a variable that only the first update sets."""
    value = tf.compat.v1.Variable(
        -1.0, trainable=False, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES]
    )
    update = tf.compat.v1.assign(value, tf.where(value < 0, _batch_error(labels, classes), value))
    return {"error_rate": (tf.identity(value), update)}


EXERCISE_3_WRONG = {
    "blank": (None, "`error_rate_ops` is still None"),
    "not a function": (0.33, "should be a function of `(labels, classes)`"),
    "bare pair": (
        lambda labels, classes: tf.compat.v1.metrics.mean(_batch_error(labels, classes)),
        "`error_rate_ops` returned a tuple: return a dict",
    ),
    "wrong key": (
        lambda labels, classes: {"error": _mean_of_wrong(labels, classes)["error_rate"]},
        "name the metric 'error_rate'",
    ),
    "keras": pytest.param(_keras, "Keras Metric object", marks=bank(3, "forbidden API")),
    "bare tensor": (
        lambda labels, classes: {"error_rate": _batch_error(labels, classes)},
        "ops['error_rate'] is a SymbolicTensor, not a",
    ),
    "batch value": (
        lambda labels, classes: {"error_rate": (_batch_error(labels, classes), tf.no_op())},
        "needs the current batch",
    ),
    # right when the batches are of one size, as the notebook's are
    "mean of batch means": pytest.param(
        lambda labels, classes: {
            "error_rate": tf.compat.v1.metrics.mean(_batch_error(labels, classes))
        },
        "the mean of the two batches' error rates",
        marks=bank(3, "right on the notebook's data, wrong in general"),
    ),
    "last batch": pytest.param(
        _last_batch, "the second batch alone", marks=bank(3, "right shape, wrong content")
    ),
    "first batch": (_first_batch, "the first batch alone"),
    # the notebook's accuracy metric
    "accuracy": pytest.param(
        lambda labels, classes: {"error_rate": tf.compat.v1.metrics.accuracy(labels, classes)},
        "the accuracy",
        marks=bank(3, "copy of a nearby cell"),
    ),
    "a typo (metric. for metrics.)": (
        lambda labels, classes: {
            "error_rate": tf.compat.v1.metric.mean(_batch_error(labels, classes))
        },
        "raised `AttributeError: module 'tensorflow.compat.v1' has no attribute 'metric'`",
    ),
    "count, not rate": pytest.param(
        lambda labels, classes: {
            "error_rate": tf.compat.v1.metrics.true_positives(
                tf.not_equal(labels, classes), tf.not_equal(labels, classes)
            )
        },
        "the value is 2.0000, the number of wrong examples",
        marks=bank(3, "wrong unit"),
    ),
}


# Found by mutation testing; not counted in the notebook's closing note.
EXERCISE_3_MORE_WRONG = {
    # "error" in its name; on the first batches (|3 - 0| + |5 - 4|) / 6 happens to equal the
    # accuracy, 4/6, which the check named; the second evaluation tells them apart
    "mean_absolute_error": (
        lambda labels, classes: {
            "error_rate": tf.compat.v1.metrics.mean_absolute_error(labels, classes)
        },
        "after 2 batches with 2 of 6 classes wrong the value is 0.6667: compare `labels` with "
        "`classes` and count the examples where they differ",
    ),
}


def _local(value):
    return tf.compat.v1.Variable(
        value, trainable=False, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES]
    )


def _totals(labels, classes, start=0.0):
    """(wrong, count, update): running totals of wrong examples and of examples, the count
    starting at ``start``."""
    wrong, count = _local(0.0), _local(start)
    update = tf.group(
        tf.compat.v1.assign_add(
            wrong, tf.reduce_sum(tf.cast(tf.not_equal(labels, classes), tf.float32))
        ),
        tf.compat.v1.assign_add(count, tf.cast(tf.size(labels), tf.float32)),
    )
    return wrong, count, update


def _percent(labels, classes):
    accuracy, update_op = tf.compat.v1.metrics.accuracy(labels=labels, predictions=classes)
    return {"error_rate": (100 * (1 - accuracy), update_op)}


def _raw_count(labels, classes):
    wrong, _count, update = _totals(labels, classes)
    return {"error_rate": (tf.identity(wrong), update)}


def _count_plus_one(labels, classes):
    """The count starts at 1, "to avoid dividing by zero"."""
    wrong, count, update = _totals(labels, classes, start=1.0)
    return {"error_rate": (wrong / count, update)}


# Found by outside testers: each was told to "compare labels with classes", which it did; the
# scale was wrong (issue: name the scale). Not counted in the notebook's closing note either.
EXERCISE_3_TESTERS_WRONG = {
    "100 * (1 - accuracy)": pytest.param(
        _percent,
        "after two batches with 2 of 6 classes wrong the value is 33.3333, the error rate in "
        "percent: an eval metric is the fraction itself, between 0 and 1",
        marks=bank(3, "wrong unit"),
    ),
    "a raw count": (
        _raw_count,
        "after two batches with 2 of 6 classes wrong the value is 2.0000, the number of wrong "
        "examples: the rate divides it by the number of examples evaluated",
    ),
    "count + 1 in the denominator": pytest.param(
        _count_plus_one,
        "after two batches with 2 of 6 classes wrong the value is 0.2857, 2 divided by 7: divide "
        "by the number of examples evaluated, 6",
        marks=bank(3, "off by one"),
    ),
}


def _constant_value(labels, classes):
    """The update op counts, the value is the 1/3 the first batches give."""
    _value, update_op = tf.compat.v1.metrics.mean(_batch_error(labels, classes))
    return {"error_rate": (tf.constant(1 / 3), update_op)}


def _percent_of_each(labels, classes):
    wrong = tf.cast(tf.not_equal(labels, classes), tf.float32)
    return {"error_rate": tf.compat.v1.metrics.mean(100.0 * wrong)}


# More answers tried by hand (issue: at least 8 per exercise), each with what the check says.
EXERCISE_3_TRIED_WRONG = {
    "mean of 100 * wrong": (_percent_of_each, "the error rate in percent"),
    "false_negatives of the matches": (
        lambda labels, classes: {
            "error_rate": tf.compat.v1.metrics.false_negatives(
                tf.ones_like(labels, tf.bool), tf.equal(labels, classes)
            )
        },
        "the number of wrong examples",
    ),
    # in a graph `!=` compares the two tensor objects: True, a constant; the update op read no
    # batch, and evaluate() never ended
    "labels != classes": (
        lambda labels, classes: {
            "error_rate": tf.compat.v1.metrics.mean(tf.cast(labels != classes, tf.float32))
        },
        "the update op reads neither `labels` nor `classes`, so it adds nothing of the batch to "
        "the totals, and evaluate() would never end: it reads a constant True or False instead, "
        "and in a graph `!=` or `==` between two tensors compares the objects",
    ),
    "the value a constant": (
        _constant_value,
        "after 4 batches with 5 of 13 classes wrong the value is 0.3333: compare `labels` with "
        "`classes`",
    ),
    "1 - the accuracy tuple": (
        lambda labels, classes: {
            "error_rate": 1 - tf.compat.v1.metrics.accuracy(labels=labels, predictions=classes)
        },
        "raised `TypeError: unsupported operand type(s) for -: 'int' and 'tuple'`",
    ),
    "totals in global variables": (
        lambda labels, classes: {
            "error_rate": (lambda wrong, count, update: (wrong / count, update))(
                *_global_totals(labels, classes)
            )
        },
        "in a real evaluate() your metric fails: it keeps its totals in global variables",
    ),
}


def _global_totals(labels, classes):
    wrong = tf.compat.v1.Variable(0.0, trainable=False)
    count = tf.compat.v1.Variable(0.0, trainable=False)
    update = tf.group(
        tf.compat.v1.assign_add(
            wrong, tf.reduce_sum(tf.cast(tf.not_equal(labels, classes), tf.float32))
        ),
        tf.compat.v1.assign_add(count, tf.cast(tf.size(labels), tf.float32)),
    )
    return wrong, count, update


@pytest.mark.parametrize("name", by_name(EXERCISE_3_TESTERS_WRONG))
def test_exercise_3_a_wrong_scale_is_named_not_the_comparison(name):
    answer, _words = entry(EXERCISE_3_TESTERS_WRONG[name])
    message = failure(checks.error_rate_metric_ops, answer)
    assert "compare `labels` with `classes`" not in message, message


def test_exercise_3_the_readings_are_told_apart_by_the_two_evaluations():
    """Each mistake the check names gives, on one evaluation at least, another value than the
    right one and than each other mistake (else one would be named for another)."""
    readings = [notebook03._error_readings(batches) for batches in notebook03.EXERCISE_3_BATCHES]
    counts = [notebook03._wrong_counts(batches) for batches in notebook03.EXERCISE_3_BATCHES]
    rights = [sum(w for w, _ in each) / sum(n for _, n in each) for each in counts]
    keys = list(readings[0])
    assert keys == list(notebook03.error_rate_messages())
    for key in keys:
        assert any(abs(seen[key] - right) > 0.01 for seen, right in zip(readings, rights)), key
        for other in keys[keys.index(key) + 1 :]:
            assert any(abs(seen[key] - seen[other]) > 0.01 for seen in readings), (key, other)
    assert [sum(n for _, n in each) for each in counts] == [6, 13]


@pytest.mark.parametrize(
    "name",
    by_name(
        EXERCISE_3_WRONG, EXERCISE_3_MORE_WRONG, EXERCISE_3_TESTERS_WRONG, EXERCISE_3_TRIED_WRONG
    ),
)
def test_exercise_3_wrong_answers_fail_and_say_why(name):
    answer, words = entry(
        {
            **EXERCISE_3_WRONG,
            **EXERCISE_3_MORE_WRONG,
            **EXERCISE_3_TESTERS_WRONG,
            **EXERCISE_3_TRIED_WRONG,
        }[name]
    )
    assert_names_the_mistake(
        failure(checks.error_rate_metric_ops, answer),
        words,
        ("metrics.mean", "not_equal", "1 - ", "1.0 -"),
    )


def _mean_of_batch_rates_by_hand(labels, classes):
    """The adversary's: each batch's error rate added up, divided by the number of batches."""
    rates, batches = _local(0.0), _local(0.0)
    update = tf.group(
        tf.compat.v1.assign_add(rates, _batch_error(labels, classes)),
        tf.compat.v1.assign_add(batches, 1.0),
    )
    return {"error_rate": (rates / batches, update)}


def _update_ops_in_a_list(labels, classes):
    """Two update ops in a list, not grouped: EstimatorSpec and evaluate() take that too."""
    wrong, count = _local(0.0), _local(0.0)
    updates = [
        tf.compat.v1.assign_add(wrong, tf.reduce_sum(_wrong_ones(labels, classes))),
        tf.compat.v1.assign_add(count, tf.cast(tf.size(labels), tf.float32)),
    ]
    return {"error_rate": (wrong / count, updates)}


def _wrong_ones(labels, classes):
    return tf.cast(tf.not_equal(labels, classes), tf.float32)


def _right_in_a_session_only(labels, classes):
    """Right after any number of updates in a session, but the value doubles when a counter that
    reads no batch is odd: evaluate() runs the update once more when the input runs out."""
    wrong, count, update = _totals(labels, classes)
    runs = _local(0.0)
    odd = tf.math.floormod(runs, 2.0)
    return {
        "error_rate": (
            wrong / count * (1.0 + odd),
            tf.group(update, tf.compat.v1.assign_add(runs, 1.0)),
        )
    }


@pytest.mark.parametrize(
    "answer",
    [pytest.param(_update_ops_in_a_list, marks=bank(3, "right, written otherwise"))],
    ids=["update ops in a list"],
)
def test_exercise_3_right_answers_written_otherwise_pass(capsys, answer):
    checks.error_rate_metric_ops(answer)
    assert capsys.readouterr().out.startswith("Correct: after two batches (1 of 4 wrong")


# Found by a blind adversary: each was refused in other words than its mistake, or blamed on the
# learner for the check's own error. Not counted in the notebook's closing note either.
EXERCISE_3_ADVERSARY_WRONG = {
    # F7: by hand, the same mistake as metrics.mean of the batch rates
    "mean of batch rates by hand": pytest.param(
        _mean_of_batch_rates_by_hand,
        "after two batches the value is 0.3750, the mean of the two batches' error rates (1/4 "
        "and 1/2)",
        marks=bank(3, "right on the notebook's data, wrong in general"),
    ),
    # F8: argmax without axis reduces the classes of the batch to one, and the update op fails
    "argmax of the classes": (
        lambda labels, classes: _one_minus_accuracy(labels, tf.argmax(classes)),
        "running the update op on a batch of 4 raised `InvalidArgumentError: Can not squeeze "
        "dim[0], expected a dimension of 1, got 4`",
    ),
    # F9: what the pair must hold, not an AttributeError of the check's
    "two floats": (
        lambda labels, classes: {"error_rate": (0.0, 0.0)},
        "ops['error_rate'] holds a pair of float and float: its value must be a tensor, and its "
        "update op an op or a tensor",
    ),
    "no update op": (
        lambda labels, classes: {
            "error_rate": (_one_minus_accuracy(labels, classes)["error_rate"][0], None)
        },
        "ops['error_rate'] holds a pair of SymbolicTensor and NoneType: its value must be a "
        "tensor, and its update op an op or a tensor",
    ),
    # F10: no `!=` in it, so none in the message
    "a constant and no_op": (
        lambda labels, classes: {"error_rate": (tf.constant(0.25), tf.no_op())},
        "the update op reads neither `labels` nor `classes`, so it adds nothing of the batch to "
        "the totals, and evaluate() would never end (section",
    ),
}


@pytest.mark.parametrize("name", by_name(EXERCISE_3_ADVERSARY_WRONG))
def test_exercise_3_adversary_finds_are_refused_for_their_mistake(name):
    answer, words = entry(EXERCISE_3_ADVERSARY_WRONG[name])
    message = failure(checks.error_rate_metric_ops, answer)
    assert_names_the_mistake(message, words, ("metrics.mean", "not_equal", "1 - ", "1.0 -"))
    assert "`!=`" not in message or "!=" in name, message
    assert "error_rate_ops(labels, classes) on two batches raised" not in message, message


def test_exercise_3_the_mean_of_batch_rates_is_named_alike_by_hand_or_by_metrics_mean():
    """The same mistake gets the same message, and the value it states is the one the pair gives
    in a session after the two batches (1/4 and 1/2: 0.375)."""
    by_hand = failure(checks.error_rate_metric_ops, _mean_of_batch_rates_by_hand)
    assert by_hand == failure(
        checks.error_rate_metric_ops, EXERCISE_3_WRONG["mean of batch means"].values[0]
    )
    with tf.Graph().as_default():
        labels = tf.compat.v1.placeholder(tf.int32, [None])
        classes = tf.compat.v1.placeholder(tf.int32, [None])
        value, update = _mean_of_batch_rates_by_hand(labels, classes)["error_rate"]
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.local_variables_initializer())
            for batch_labels, batch_classes in notebook03.EXERCISE_3_BATCHES[0]:
                session.run(update, {labels: batch_labels, classes: batch_classes})
            assert f"the value is {session.run(value):.4f}," in by_hand


def test_exercise_3_a_value_of_ten_numbers_is_named_not_blamed_on_the_function():
    """A mean per class: ten numbers, where the check once raised a TypeError of its own."""

    def per_class(labels, classes):
        wrong = tf.one_hot(labels, 10) * _wrong_ones(labels, classes)[:, None]
        return {"error_rate": tf.compat.v1.metrics.mean_tensor(tf.reduce_mean(wrong, axis=0))}

    assert failure(checks.error_rate_metric_ops, per_class) == (
        "after 2 batches the value has shape (10,) and type float32: an error rate is one number"
    )


def test_exercise_3_a_value_right_in_a_session_but_not_in_evaluate_is_told_apart():
    message = failure(checks.error_rate_metric_ops, _right_in_a_session_only)
    assert message.startswith(
        "run in a session, an update on each batch then the value, your metric is right, but a "
        "real evaluate() reports 0.6667 after 2 batches with 2 of 6 classes wrong: evaluate() "
        "runs the update op once more when the input runs out"
    ), message


def test_exercise_3_a_stub_is_named_as_it_is():
    assert failure(checks.error_rate_metric_ops, _stub) == (
        "running error_rate_ops(labels, classes) on two batches raised `NotImplementedError`"
    )


def test_exercise_3_messages_cite_a_section_of_the_notebook():
    message = failure(checks.error_rate_metric_ops, _last_batch)
    assert message.endswith("(section 'What a `(value, update_op)` pair does')"), message
    headings = notebook_headings("03_model_fn_and_estimatorspec")
    assert "What a `(value, update_op)` pair does" in headings
    assert "One forward pass, then three branches by `mode`" in headings


# --------------------------------------------------------------------------- quoted errors


def _returns_the_pairs(loss):
    """The clipped (gradient, variable) pairs returned, not applied."""
    return [(_by_norm(g), v) for g, v in GD(0.1).compute_gradients(loss)]


def _clips_the_pairs(loss):
    """tf.clip_by_norm of the list of pairs itself."""
    optimizer = GD(0.1)
    pairs = tf.clip_by_norm(optimizer.compute_gradients(loss), 1.0)
    return optimizer.apply_gradients(pairs, global_step=_step())


def _numpy_in_the_graph(logits):
    return {"top_2": tf.math.top_k(logits, k=2).indices.numpy(), "confidence": logits[:, 0]}


def _static_batch_size(logits):
    top = tf.math.top_k(tf.nn.softmax(logits), k=2)
    return {"top_2": tf.reshape(top.indices, [logits.shape[0], 2]), "confidence": top.values[:, 0]}


def clipped_train_op(loss):
    """The notebook's answer's train op, given as the model_fn itself."""
    return _clipped(_by_norm)(loss)


# Found by a second blind adversary (F4): Python's and TensorFlow's text, quoted bare, was English
# inside the zh-TW sentences, and a list of pairs quoted each tensor's shape and type
QUOTED_ERRORS = {
    "the train op's function as the model_fn": (
        checks.clipped_training_step,
        clipped_train_op,
        "building the TRAIN branch raised `TypeError: clipped_train_op() got an unexpected "
        "keyword argument 'features'`",
    ),
    "the pairs returned": (
        checks.clipped_training_step,
        _with_train_op(_returns_the_pairs),
        "building the TRAIN branch raised `TypeError: train_op must be Operation or Tensor, given: "
        "[(<tf.Tensor 'clip_by_norm:0'>, <tf.Variable 'dense/kernel:0'>), (<tf.Tensor "
        "'clip_by_norm_1:0'>, <tf.Variable 'dense/bias:0'>)]`",
    ),
    "clip_by_norm of the pairs": (
        checks.clipped_training_step,
        _with_train_op(_clips_the_pairs),
        "building the TRAIN branch raised `ValueError: Shapes must be equal rank, but are 3 and 2`",
    ),
    ".numpy() in the graph": (
        checks.top_predictions_per_example,
        _numpy_in_the_graph,
        "top_predictions(logits) raised `AttributeError: 'SymbolicTensor' object has no attribute "
        "'numpy'`",
    ),
    "the static batch size": (
        checks.top_predictions_per_example,
        _static_batch_size,
        "top_predictions(logits) raised `TypeError: Failed to convert elements of [None, 2] to "
        "Tensor. Consider casting elements to a supported type`",
    ),
}


@pytest.mark.parametrize("name", sorted(QUOTED_ERRORS))
def test_a_quoted_error_is_in_backticks_without_reprs(name):
    check, answer, expected = QUOTED_ERRORS[name]
    message = failure(check, answer)
    assert message == expected
    assert not re.search(r"shape=|dtype=|0x[0-9a-f]|https?:", message), message


def test_a_zh_tw_learner_reads_the_quoted_error_in_backticks(zh_tw):
    """TensorFlow's text stays English, in backticks, in the zh-TW sentence around it: with the
    committed catalogue, and with a catalogue that translates the new sentences."""
    zh_tw()
    message = failure(
        checks.top_predictions_per_example,
        EXERCISE_2_ADVERSARY_WRONG["batch size 4 hard-coded"].values[0],
    )
    quoted = "`InvalidArgumentError: Input to reshape is a tensor with 2 values, but the requested "
    assert quoted in message, message
    outside = re.sub(r"`[^`]*`", "", message)
    assert "Error" not in outside and "reshape" not in outside, message
    sentences = zh_tw(
        {"building the TRAIN branch raised {error}": "建立 TRAIN 分支時引發了 {error}"}
    )
    assert failure(checks.clipped_training_step, clipped_train_op) == sentences[
        "building the TRAIN branch raised {error}"
    ].format(error=QUOTED_ERRORS["the train op's function as the model_fn"][2].split(" raised ")[1])


def test_the_banks_are_counted():
    """The closing note of notebook 03 counts these banks: keep it in step."""
    assert (len(EXERCISE_1_WRONG), len(EXERCISE_2_WRONG), len(EXERCISE_3_WRONG)) == (16, 16, 13)


def test_a_zh_tw_learner_reads_the_message_in_chinese(zh_tw):
    """The message, and the section it cites under the heading of the zh-TW notebook 03."""
    template = (
        "after two batches the value is {value:.4f}, the second batch alone: the update op must "
        "add each batch to running totals (section '{section}')"
    )
    heading = "What a `(value, update_op)` pair does"
    zh_heading = zh_tw_heading("03_model_fn_and_estimatorspec", f"### {heading}")
    sentences = zh_tw()
    assert notebook03.pair_section() == sentences[heading] == zh_heading
    message = failure(checks.error_rate_metric_ops, _last_batch)
    assert message == sentences[template].format(value=0.5, section=zh_heading)
