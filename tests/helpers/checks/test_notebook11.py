"""Every message of notebook 11's exercise checks, tried on the answers learners plausibly give.

Exercise 1 (the backward pass's share of a profile's op time) and exercise 2 (a dense network's
layers under the mixed_bfloat16 policy): each right answer passes, each wrong one fails with a
sentence that names its mistake and gives none of the answer away.
"""

import numpy as np
import pandas as pd
import pytest
import tensorflow as tf

from helpers import profiling
from helpers.checks import notebook11 as checks
from helpers.problems import CheckFailed
from tests.support.banks import bank
from tests.support.checks import (
    assert_names_the_mistake,
    failure,
    notebook_headings,
    zh_tw_heading,
)

# The kinds that do not apply, argued (tests/support/banks.py).
NOT_APPLICABLE = {
    1: {
        "off by one": "a share of time: no count or index",
        "right shape, wrong content": "a single number: every wrong number has the right shape",
        "forbidden API": "the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "a value: the check sees no code it could run on other data"
        ),
    },
    2: {
        "hard-coded from an output above": "a network: no number in it comes from an output",
    },
}

# --- exercise 1: the backward pass's share of the ops' time ------------------------------

# (name, type, thread, start, duration) of one traced step's op runs, in ms; each step scales the
# durations a little differently, as a real profile's steps differ
OPS = [
    ("IteratorGetNext", "IteratorGetNext", 0, 0.0, 0.2),
    ("conv2d/Relu", "_MklNativeFusedConv2D", 0, 0.2, 1.4),
    ("conv2d_1/Relu", "_MklNativeFusedConv2D", 0, 1.6, 4.8),
    ("max_pooling2d/MaxPool", "_MklNativeMaxPool", 0, 6.4, 0.8),
    ("dense/Relu", "_MklNativeFusedMatMul", 0, 7.2, 0.7),
    (
        "sparse_softmax_cross_entropy_loss/xentropy",
        "SparseSoftmaxCrossEntropyWithLogits",
        0,
        7.9,
        0.1,
    ),
    ("gradients/dense/MatMul_grad/MatMul", "_MklMatMul", 0, 8.0, 0.9),
    ("gradients/dense/MatMul_grad/MatMul_1", "_MklMatMul", 1, 8.0, 1.2),
    ("gradients/conv2d_1/Relu_grad/ReluGrad", "ReluGrad", 0, 9.2, 0.5),
    ("gradients/max_pooling2d/MaxPool_grad/MaxPoolGrad", "_MklNativeMaxPoolGrad", 0, 9.7, 1.0),
    (
        "gradients/conv2d_1/Conv2D_grad/Conv2DBackpropFilter",
        "_MklNativeConv2DBackpropFilter",
        0,
        10.7,
        8.4,
    ),
    (
        "gradients/conv2d_1/Conv2D_grad/Conv2DBackpropInput",
        "_MklNativeConv2DBackpropInput",
        1,
        10.7,
        6.5,
    ),
    ("gradients/conv2d/BiasAdd_grad/BiasAddGrad", "BiasAddGrad", 1, 17.2, 0.4),
    ("Adam/update_conv2d_1/kernel/ResourceApplyAdam", "ResourceApplyAdam", 1, 17.6, 2.0),
    ("Adam/update_dense/kernel/ResourceApplyAdam", "ResourceApplyAdam", 0, 19.1, 1.0),
    ("Adam/Assign", "AssignVariableOp", 0, 20.1, 0.1),
]
STEPS = {60: 0.9, 80: 1.15, 100: 1.0}


def make_timelines():
    rows = []
    for step, scale in STEPS.items():
        for index, (name, kind, thread, start, duration) in enumerate(OPS):
            # the backward ops grow faster than the rest from step to step
            grown = duration * (scale if name.startswith("gradients/") else 1 + (scale - 1) / 3)
            rows.append((step, name, kind, thread, start, grown + 0.01 * index))
    frame = pd.DataFrame(
        rows, columns=["step", "op_name", "op_type", "thread", "start_ms", "duration_ms"]
    )
    frame["end_ms"] = frame["start_ms"] + frame["duration_ms"]
    return frame[profiling.COLUMNS]


TIMELINES = make_timelines()
BACKWARD = TIMELINES["op_name"].str.startswith("gradients/")
SHARE = TIMELINES.loc[BACKWARD, "duration_ms"].sum() / TIMELINES["duration_ms"].sum()


def per_step_shares(t):
    return t.groupby("step")[["op_name", "duration_ms"]].apply(
        lambda s: (
            s.loc[s.op_name.str.startswith("gradients/"), "duration_ms"].sum() / s.duration_ms.sum()
        )
    )


RIGHT_1 = {
    "the durations summed": lambda t: (
        t.loc[t.op_name.str.startswith("gradients/"), "duration_ms"].sum() / t.duration_ms.sum()
    ),
    "contains the scope": pytest.param(
        lambda t: t[t.op_name.str.contains("gradients/")].duration_ms.sum() / t.duration_ms.sum(),
        marks=bank(1, "right, written otherwise"),
    ),
    "by groupby over a column": lambda t: (
        t.groupby(t.op_name.str.startswith("gradients/"))["duration_ms"].sum()[True]
        / t["duration_ms"].sum()
    ),
    "a float32": lambda t: np.float32(SHARE),
    "a 0-d array": lambda t: np.array(SHARE),
    "a one-element Series": lambda t: pd.Series([SHARE]),
    "the mean of the steps' shares": lambda t: per_step_shares(t).mean(),
}


@pytest.mark.parametrize("make", RIGHT_1.values(), ids=RIGHT_1)
def test_exercise_1_right_answers_pass(make, capsys):
    checks.backward_share(make(TIMELINES), TIMELINES)
    out = capsys.readouterr().out
    assert out.startswith("Correct: the backward pass takes ") and out.count("\n") == 1


def first_step(t):
    one = t[t.step == t.step.min()]
    return one.loc[one.op_name.str.startswith("gradients/"), "duration_ms"].sum() / (
        one.duration_ms.sum()
    )


def over_busy(t):
    busy = sum(profiling.busy_ms(s) for _, s in t.groupby("step"))
    return t.loc[t.op_name.str.startswith("gradients/"), "duration_ms"].sum() / busy


WRONG_1 = {
    "unanswered": (lambda t: None, "`backward_share` is still None"),
    "a string": (lambda t: "0.6", "should be a number between 0 and 1, not a str"),
    "a bool": (lambda t: True, "not a bool"),
    "the shares per step": (per_step_shares, "holds 3 values: it should be one number"),
    "a percentage": pytest.param(
        lambda t: 100 * SHARE,
        "is a percentage: give the share as a fraction",
        marks=bank(1, "wrong unit"),
    ),
    "counted ops": (
        lambda t: t.op_name.str.startswith("gradients/").mean(),
        "the share of the ops' number, not of their time",
    ),
    "the forward pass and the update": (
        lambda t: 1 - SHARE,
        "the share of everything but the backward pass",
    ),
    "gradients and Adam": (
        lambda t: (
            t.loc[t.op_name.str.startswith(("gradients/", "Adam")), "duration_ms"].sum()
            / t.duration_ms.sum()
        ),
        "the backward pass and the optimizer's update together",
    ),
    # the Backprop rows' shares of the top-ops table above
    "the convolutions' gradients only": pytest.param(
        lambda t: (
            t.loc[t.op_type.str.contains("Backprop"), "duration_ms"].sum() / t.duration_ms.sum()
        ),
        "the convolutions' gradients alone",
        marks=bank(1, "hard-coded from an output above"),
    ),
    # selection by op type, as the top-ops cell groups
    "op types named …Grad": pytest.param(
        lambda t: t.loc[t.op_type.str.contains("Grad"), "duration_ms"].sum() / t.duration_ms.sum(),
        "selects ops by their type",
        marks=bank(1, "copy of a nearby cell"),
    ),
    "over the busy time": (over_busy, "over the steps' busy time"),
    "the first traced step": (first_step, "in the first traced step alone"),
    "something else": (lambda t: 0.1234, "is not the backward pass's share"),
    "a negative number": (lambda t: -0.5, "is outside 0 to 1"),
    "more than 1": (lambda t: 1.5, "is outside 0 to 1"),
}


@pytest.mark.parametrize("make, message", WRONG_1.values(), ids=WRONG_1)
def test_exercise_1_wrong_answers_fail_and_say_why(make, message):
    assert_names_the_mistake(
        failure(checks.backward_share, make(TIMELINES), TIMELINES),
        message,
        answer_code=(f"{SHARE:.4f}", f"{SHARE:.1%}", "startswith"),
    )


def test_exercise_1_the_readings_are_apart_from_the_share_and_from_each_other():
    readings = [reading for reading, _sentence in checks._share_readings(TIMELINES)]
    values = [SHARE, 100 * SHARE, *readings]
    gaps = np.abs(np.subtract.outer(values, values))[np.triu_indices(len(values), 1)]
    assert gaps.min() > 2 * checks.SHARE_TOLERANCE, values


def test_exercise_1_a_number_two_readings_share_gets_no_reason(monkeypatch):
    """When two mistakes give the same number on this profile, neither is named: the learner may
    have made the other one (an op_type selection once got "the first traced step alone")."""
    readings = checks._share_readings(TIMELINES)
    (first_value, first), (_second_value, second) = readings[0], readings[1]
    monkeypatch.setattr(
        checks, "_share_readings", lambda t: [(first_value, first), (first_value, second)]
    )
    message = failure(checks.backward_share, first_value, TIMELINES)
    assert message.startswith(f"{first_value:.4f} is not the backward pass's share"), message


def test_exercise_1_an_unplaced_number_points_to_the_section():
    message = failure(checks.backward_share, 0.1234, TIMELINES)
    assert message.endswith("(section 'Where a step's time goes')")


def test_exercise_1_the_tolerance_is_not_more():
    with pytest.raises(CheckFailed):
        checks.backward_share(SHARE + 1.5 * checks.SHARE_TOLERANCE, TIMELINES)


def test_exercise_1_one_traced_step_has_no_per_step_readings(capsys):
    one = TIMELINES[TIMELINES.step == 60]
    share = one.loc[one.op_name.str.startswith("gradients/"), "duration_ms"].sum() / (
        one.duration_ms.sum()
    )
    checks.backward_share(share, one)
    assert capsys.readouterr().out.startswith("Correct:")


# --- exercise 2: a dense network under the mixed_bfloat16 policy ---------------------------


def with_policy(name, build, restore=True):
    def answer(images):
        before = tf.keras.mixed_precision.global_policy()
        tf.keras.mixed_precision.set_global_policy(name)
        try:
            return build(images)
        finally:
            if restore:
                tf.keras.mixed_precision.set_global_policy(before)

    return answer


def dense(images, last_dtype=None, units=10, hidden_dtype=None, activation="relu"):
    x = tf.keras.layers.Flatten()(images)
    x = tf.keras.layers.Dense(256, activation=activation, dtype=hidden_dtype)(x)
    return tf.keras.layers.Dense(units, dtype=last_dtype)(x)


def policies(hidden, last, **kwargs):
    """The network with a policy given to each dense layer (None: the global one, float32)."""
    return lambda images: dense(images, last_dtype=last, hidden_dtype=hidden, **kwargs)


def cast(build):
    return lambda images: tf.cast(build(images), tf.float32)


def per_layer_policy(images):
    policy = tf.keras.mixed_precision.Policy("mixed_bfloat16")
    x = tf.keras.layers.Flatten(dtype=policy)(images)
    x = tf.keras.layers.Dense(256, activation="relu", dtype=policy)(x)
    return tf.cast(tf.keras.layers.Dense(10, dtype=policy)(x), tf.float32)


def sequential(images):
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(256, activation="relu", dtype="mixed_bfloat16"),
            tf.keras.layers.Dense(10, dtype="mixed_bfloat16"),
            tf.keras.layers.Activation("linear", dtype="float32"),
        ]
    )
    return model(images)


def layer_dtypes(images):  # the notebook's solution
    mixed = tf.keras.mixed_precision.Policy("mixed_bfloat16")
    x = tf.keras.layers.Flatten()(images)
    x = tf.keras.layers.Dense(256, activation="relu", dtype=mixed)(x)
    return tf.keras.layers.Dense(10, dtype="float32")(x)


RIGHT_2 = {
    "the policy as the hidden layer's dtype, a float32 last layer": layer_dtypes,
    "the policy given to each layer, then a cast": per_layer_policy,
    "the policy's name as each layer's dtype, then a cast": cast(
        policies("mixed_bfloat16", "mixed_bfloat16")
    ),
    "a Sequential model ending in a float32 layer": pytest.param(
        sequential, marks=bank(2, "right, written otherwise")
    ),
}


@pytest.mark.parametrize("answer", RIGHT_2.values(), ids=RIGHT_2)
def test_exercise_2_right_answers_pass(answer, capsys):
    checks.mixed_logits(answer)
    out = capsys.readouterr().out
    assert out.startswith("Correct: ") and "the global policy stayed 'float32'" in out
    assert tf.keras.mixed_precision.global_policy().name == "float32"


def policy_set_after(images):
    x = tf.keras.layers.Flatten()(images)
    first, last = tf.keras.layers.Dense(256, activation="relu"), tf.keras.layers.Dense(10)
    before = tf.keras.mixed_precision.global_policy()
    tf.keras.mixed_precision.set_global_policy("mixed_bfloat16")
    logits = last(first(x))
    tf.keras.mixed_precision.set_global_policy(before)
    return tf.cast(logits, tf.float32)


def images_cast_only(images):
    return dense(tf.cast(images, tf.bfloat16))


def model_not_logits(images):
    before = tf.keras.mixed_precision.global_policy()
    tf.keras.mixed_precision.set_global_policy("mixed_bfloat16")
    model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
    tf.keras.mixed_precision.set_global_policy(before)
    return model


def softmax_out(images):
    return tf.nn.softmax(layer_dtypes(images))


def global_sequential(images):
    before = tf.keras.mixed_precision.global_policy()
    tf.keras.mixed_precision.set_global_policy("mixed_bfloat16")
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(256, activation="relu"),
            tf.keras.layers.Dense(10),
        ]
    )
    tf.keras.mixed_precision.set_global_policy(before)
    return tf.cast(model(images), tf.float32)


def imported_setter(images):  # a name bound before the check looks: the policy object tells
    from tensorflow.keras.mixed_precision import set_global_policy

    set_global_policy("mixed_bfloat16")
    try:
        return cast(dense)(images)
    finally:
        set_global_policy("float32")


def extra_hidden(images):
    x = policies("mixed_bfloat16", "mixed_bfloat16", units=256)(images)
    return tf.keras.layers.Dense(10, dtype="float32")(tf.nn.relu(x))


OUTSIDE = []


def outside_layers(images):  # layers made once, in the notebook's kernel, reused by each call
    if not OUTSIDE:
        with tf.Graph().as_default():
            OUTSIDE.extend(
                [
                    tf.keras.layers.Dense(256, "relu", dtype="mixed_bfloat16"),
                    tf.keras.layers.Dense(10, dtype="float32"),
                ]
            )
            OUTSIDE[1](OUTSIDE[0](tf.zeros([1, 784])))
    return OUTSIDE[1](OUTSIDE[0](tf.keras.layers.Flatten()(images)))


def broken(images):
    return tf.keras.layers.Dense(256)(images, trainng=True)


WRONG_2 = {
    "unanswered": (None, "`mixed_logits` is still None"),
    "not a function": (3, "should be a function of a batch of images, not a int"),
    "a model, not its logits": (model_not_logits, "returned a Sequential: return the logits"),
    "no policy at all": (cast(dense), "every matrix product computes in float32"),
    "the policy set after the layers are made": (
        policy_set_after,
        "calls set_global_policy, which the exercise rules out",
    ),
    # bf16_cnn_model_fn's way, copied
    "the global policy around the layers, set back (forbidden API)": pytest.param(
        with_policy("mixed_bfloat16", cast(dense)),
        "calls set_global_policy, which the exercise rules out",
        marks=bank(2, "copy of a nearby cell"),
    ),
    "the global policy in a Sequential model, set back": (
        global_sequential,
        "calls set_global_policy, which the exercise rules out",
    ),
    "the global policy imported by name, set back": pytest.param(
        imported_setter,
        "calls set_global_policy, which the exercise rules out",
        marks=bank(2, "forbidden API"),
    ),
    "the opposite of the task: float32 hidden layer, bfloat16 last layer": (
        cast(policies(None, "mixed_bfloat16")),
        "the hidden layer computes in float32 and only the last one in bfloat16",
    ),
    "probabilities, not logits": pytest.param(
        softmax_out,
        "returns probabilities (a softmax on the last layer), not logits",
        marks=bank(2, "wrong unit"),
    ),
    "no ReLU": (
        policies("mixed_bfloat16", "float32", activation=None),
        "the hidden layer has no ReLU",
    ),
    "a sigmoid": (
        policies("mixed_bfloat16", "float32", activation="sigmoid"),
        "the hidden layer's activation is a sigmoid",
    ),
    "128 hidden units": (
        lambda images: tf.keras.layers.Dense(10)(
            tf.keras.layers.Dense(128, "relu", dtype="mixed_bfloat16")(
                tf.keras.layers.Flatten()(images)
            )
        ),
        "the network's weights have the shapes",
    ),
    "an extra hidden layer": (extra_hidden, "the network's weights have the shapes"),
    # 11 units for 10
    "11 classes, the first 10 kept (right shape, wrong content)": pytest.param(
        lambda images: policies("mixed_bfloat16", "float32", units=11)(images)[:, :10],
        "the network's weights have the shapes",
        marks=bank(2, "off by one"),
    ),
    "a scaled output (right on shapes and types, wrong values)": pytest.param(
        lambda images: 2.0 * layer_dtypes(images),
        "on random images the logits are",
        marks=bank(2, "right shape, wrong content"),
    ),
    "a second parameter": (
        lambda images, training: layer_dtypes(images),
        "should take one argument, the batch of images, as the check calls it: yours takes "
        "(images, training)",
    ),
    # right in the notebook's kernel, which made the layers once
    "layers made outside the function": pytest.param(
        outside_layers,
        "uses layers made outside it",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "the images cast, the layers float32": (
        images_cast_only,
        "every matrix product computes in float32",
    ),
    "the policy left set": (
        with_policy("mixed_bfloat16", cast(dense), restore=False),
        "the global policy is still 'mixed_bfloat16'",
    ),
    "the policy bfloat16, not mixed": (
        cast(policies("bfloat16", "bfloat16")),
        "the weights are stored as bfloat16",
    ),
    "bfloat16 logits": (policies("mixed_bfloat16", "mixed_bfloat16"), "the logits are bfloat16"),
    "float16": (cast(policies("mixed_float16", "float32")), "compute in float16"),
    "the wrong number of classes": (
        cast(policies("mixed_bfloat16", "mixed_bfloat16", units=5)),
        "the network's weights have the shapes",
    ),
    "no dense layer": (
        lambda images: tf.cast(images[:, 0, :10], tf.float32),
        "builds no dense layer",
    ),
    "an error in the learner's code": (broken, "your code raised TypeError"),
}


@pytest.mark.parametrize("answer, message", WRONG_2.values(), ids=WRONG_2)
def test_exercise_2_wrong_answers_fail_and_say_why(answer, message):
    assert_names_the_mistake(
        failure(checks.mixed_logits, answer),
        message,
        answer_code=("set_global_policy(", "tf.cast(", 'dtype="float32"'),
    )
    assert tf.keras.mixed_precision.global_policy().name == "float32"  # the check restores it


def test_the_policy_left_set_is_reset_by_the_check_too():
    with pytest.raises(CheckFailed):
        checks.mixed_logits(with_policy("mixed_bfloat16", cast(dense), restore=False))
    assert tf.keras.mixed_precision.global_policy().name == "float32"


SECTIONS = (
    (checks.profile_section, "## Where a step's time goes"),
    (checks.mixed_section, "## The Keras mixed_bfloat16 policy inside a model_fn"),
)


def test_the_sections_the_messages_cite_are_headings_of_the_notebook():
    assert {section() for section, _heading in SECTIONS} <= notebook_headings("11_training_speed")


def test_a_zh_tw_learner_reads_the_messages_in_chinese(zh_tw, capsys, monkeypatch):
    """A wrong answer's message, the success line and the sections they cite, in zh-TW: each
    sentence the catalogue's, each section the zh-TW notebook 11's heading."""
    sentences = zh_tw()
    for section, heading in SECTIONS:
        assert section() == zh_tw_heading("11_training_speed", heading)
    unplaced = (
        "{value:.4f} is not the backward pass's share: sum the durations of the ops whose name "
        "starts with `gradients/`, over every traced step, and divide by the sum of all the ops' "
        "durations (section '{section}')"
    )
    assert failure(checks.backward_share, 0.1234, TIMELINES) == sentences[unplaced].format(
        value=0.1234, section=checks.profile_section()
    )
    counted = failure(checks.backward_share, float(BACKWARD.mean()), TIMELINES)
    assert counted.startswith(f"{BACKWARD.mean():.4f} 是運算個數的比例"), counted
    checks.backward_share(SHARE, TIMELINES)
    assert capsys.readouterr().out.startswith("正確：反向傳播佔運算時間的 ")
    message = failure(checks.mixed_logits, policies("mixed_bfloat16", "mixed_bfloat16"))
    assert message.startswith("logits 是 bfloat16：") and "float32" in message, message
    monkeypatch.setenv("WORKBOOK_LANGUAGE", "en")
    assert failure(checks.backward_share, 0.1234, TIMELINES).endswith(
        "(section 'Where a step's time goes')"
    )


def test_the_counts_in_the_notebook_match_the_banks():
    """The notebook says how many wrong answers each check was tried on."""
    import json

    from tests import ROOT

    notebook = json.loads((ROOT / "notebooks" / "11_training_speed.ipynb").read_text())
    text = "".join("".join(cell["source"]) for cell in notebook["cells"])
    assert f"({len(WRONG_1)} wrong answers tried on its check" in text
    assert f"({len(WRONG_2)} wrong answers tried)" in text
