"""Every message of notebook 11's exercise checks, tried on the answers learners plausibly give.

Exercise 1 (``backward_share(timelines)``, the backward pass's share of a profile's op time, run on
profiles of the check's own) and exercise 2 (a dense network's layers under the mixed_bfloat16
policy): each right answer passes, each wrong one fails with a sentence that names its mistake, is
true of what the answer did and gives none of the answer away.
"""

import functools

import numpy as np
import pandas as pd
import pytest
import tensorflow as tf

from helpers import profiling
from helpers.checks import notebook11 as checks
from helpers.problems import CheckFailed
from tests.support.banks import bank, entry
from tests.support.checks import (
    assert_names_the_mistake,
    failure,
    notebook_headings,
    zh_tw_heading,
)

# The kinds that do not apply, argued (tests/support/banks.py).
NOT_APPLICABLE = {
    1: {
        "forbidden API": "the prompt forbids no API",
    },
    2: {
        "hard-coded from an output above": "a network: no number in it comes from an output",
    },
}

# --- exercise 1: the backward pass's share of the ops' time ------------------------------

# (name, type, thread, start, duration) of one traced step's op runs, in ms; each step scales the
# durations a little differently, as a real profile's steps differ: the notebook's `timelines`
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
WARMUP = 40
timelines = make_timelines()  # the notebook's global, which a learner's function may read


def solution(timelines):  # the notebook's
    in_backward = timelines["op_name"].str.startswith("gradients/")
    return timelines.loc[in_backward, "duration_ms"].sum() / timelines["duration_ms"].sum()


def shares_per_step(t):
    return t.groupby("step")[["op_name", "duration_ms"]].apply(
        lambda s: (
            s.loc[s.op_name.str.startswith("gradients/"), "duration_ms"].sum() / s.duration_ms.sum()
        )
    )


def by_groupby(t):  # the group of the backward ops read as 0 where there is none
    sums = t.groupby(t.op_name.str.startswith("gradients/"))["duration_ms"].sum()
    return sums.get(True, 0.0) / sums.sum()


def by_loop(t):
    backward = total = 0.0
    for row in t.itertuples():
        total += row.duration_ms
        if row.op_name.startswith("gradients/"):
            backward += row.duration_ms
    return backward / total


def by_steps_pooled(t):
    per_step = t.assign(backward=t.op_name.str.startswith("gradients/") * t.duration_ms)
    sums = per_step.groupby("step")[["backward", "duration_ms"]].sum()
    return sums["backward"].sum() / sums["duration_ms"].sum()


def by_copy_and_column(t):
    t = t.copy()
    t["backward"] = t["op_name"].str.startswith("gradients/")
    return t[t.backward].duration_ms.sum() / t.duration_ms.sum()


def in_tensorflow(t):
    mask = tf.constant(t.op_name.str.startswith("gradients/").to_numpy())
    durations = tf.constant(t.duration_ms.to_numpy())
    return tf.reduce_sum(tf.boolean_mask(durations, mask)) / tf.reduce_sum(durations)


def by_step_weights(t):  # each step's share weighted by its total: the pooled share
    totals = t.groupby("step")["duration_ms"].sum()
    return np.average(shares_per_step(t), weights=totals)


RIGHT_1 = {
    "the notebook's solution": solution,
    "a groupby over the scope": pytest.param(by_groupby, marks=bank(1, "right, written otherwise")),
    "weighted average of the mask": pytest.param(
        lambda t: np.average(t.op_name.str.startswith("gradients/"), weights=t.duration_ms),
        marks=bank(1, "right, written otherwise"),
    ),
    "a regular expression": lambda t: (
        t[t.op_name.str.match(r"gradients/")].duration_ms.sum() / t.duration_ms.sum()
    ),
    "the name's first scope": lambda t: (
        t.loc[t.op_name.str.split("/").str[0] == "gradients", "duration_ms"].sum()
        / t.duration_ms.sum()
    ),
    "query": lambda t: (
        t.query("op_name.str.startswith('gradients/')", engine="python").duration_ms.sum()
        / t.duration_ms.sum()
    ),
    "a loop over the rows": by_loop,
    "steps summed, then pooled": by_steps_pooled,
    "a column on a copy": by_copy_and_column,
    "in TensorFlow": in_tensorflow,
    "the steps' shares weighted by their totals": pytest.param(
        by_step_weights, marks=bank(1, "right, written otherwise")
    ),
    "a float32": lambda t: np.float32(solution(t)),
    "a 0-d array": lambda t: np.array(solution(t)),
    "rounded to 6 decimals": lambda t: round(solution(t), 6),
}


@pytest.mark.parametrize("answer", RIGHT_1.values(), ids=RIGHT_1)
def test_exercise_1_right_answers_pass(answer, capsys):
    checks.backward_share(answer, TIMELINES)
    out = capsys.readouterr().out
    assert out == (
        f"Correct: the backward pass takes {SHARE:.1%} of the ops' time, the optimizer's update "
        f"{UPDATE:.1%}, and the forward pass with the rest {1 - SHARE - UPDATE:.1%}\n"
    )


UPDATE = TIMELINES.loc[TIMELINES.op_name.str.startswith("Adam"), "duration_ms"].sum() / (
    TIMELINES.duration_ms.sum()
)


def share_of(t, rows):
    return t.loc[rows, "duration_ms"].sum() / t.duration_ms.sum()


def first_step(t):
    return solution(t[t.step == t.step.min()])


def over_busy(t):
    busy = sum(profiling.busy_ms(s) for _, s in t.groupby("step"))
    return t.loc[t.op_name.str.startswith("gradients/"), "duration_ms"].sum() / busy


def global_timelines(t):  # reads the notebook's profile, whatever it is given
    return solution(timelines)


def filter_in_place(t):
    t.drop(t.index[~t.op_name.str.startswith("gradients/")], inplace=True)
    return t.duration_ms.sum()


def query_in_place(t):
    total = t.duration_ms.sum()
    t.query("op_name.str.startswith('gradients/')", engine="python", inplace=True)
    return t.duration_ms.sum() / total


def column_added(t):
    t["backward"] = t.op_name.str.startswith("gradients/")
    return t[t.backward].duration_ms.sum() / t.duration_ms.sum()


def sorted_in_place(t):
    t.sort_values("duration_ms", inplace=True)
    return solution(t)


def durations_scaled(t):
    t["duration_ms"] *= 1000  # to microseconds, in place
    return solution(t)


def filtered_then_shared(t):  # the reported answer's computation, in a function
    t = t[t.op_name.str.startswith("gradients/")]
    return t.duration_ms.sum() / t.duration_ms.sum()


def rebinds_global(t):
    global timelines
    timelines = timelines[timelines.op_name.str.startswith("gradients/")]
    return solution(t)


WRONG_1 = {
    "unanswered": (None, "`backward_share` is still None"),
    # the exercise as it was: a number, typed after filtering the notebook's profile
    "a number": (1.0, "should be a function, called as `backward_share(timelines)`, not float"),
    "a string": (lambda t: "0.6", "returned str: return one number"),
    "a bool": (lambda t: True, "returned bool: return one number"),
    "the shares per step": (shares_per_step, "returned an array of shape"),
    "two parameters": (
        lambda t, steps: solution(t),
        "takes the parameters (t, steps), but it is called as `backward_share(timelines)`",
    ),
    "prints, returns nothing": (lambda t: print(solution(t)), "returned None: return one number"),
    "a percentage": pytest.param(
        lambda t: 100 * solution(t), "returned a percentage", marks=bank(1, "wrong unit")
    ),
    "counted ops": (
        lambda t: t.op_name.str.startswith("gradients/").mean(),
        "the share of the op runs' number, not of their time",
    ),
    "the forward pass and the update": pytest.param(
        lambda t: 1 - solution(t),
        "the share of everything but the backward pass",
        marks=bank(1, "right shape, wrong content"),
    ),
    "the forward pass": (
        lambda t: share_of(t, ~t.op_name.str.startswith(("gradients/", "Adam"))),
        "neither under `gradients/` nor the optimizer's",
    ),
    "gradients and Adam": (
        lambda t: share_of(t, t.op_name.str.startswith(("gradients/", "Adam"))),
        "the backward pass and the optimizer's update together",
    ),
    "Adam alone": (
        lambda t: share_of(t, t.op_name.str.startswith("Adam")),
        "the share of the optimizer's update",
    ),
    # the Backprop rows of the top-ops table above
    "the convolutions' gradients only": (
        lambda t: share_of(t, t.op_type.str.contains("Backprop")),
        "the convolutions' gradients alone",
    ),
    # selection by op type, as the top-ops cell groups
    "op types named …Grad": pytest.param(
        lambda t: share_of(t, t.op_type.str.contains("Grad")),
        "with `Grad` in their type or name",
        marks=bank(1, "copy of a nearby cell"),
    ),
    "op names holding Grad": (
        lambda t: share_of(t, t.op_name.str.contains("Grad")),
        "with `Grad` in their type or name",
    ),
    "the scope anywhere in the name": (
        lambda t: share_of(t, t.op_name.str.contains("gradients/")),
        "also counted ops whose name holds `gradients/` after another scope",
    ),
    "'grad' anywhere in the name": (
        lambda t: share_of(t, t.op_name.str.contains("grad")),
        "that is not the share of the ops' durations",  # two mistakes in one: neither named
    ),
    "the scope without its slash": (
        lambda t: share_of(t, t.op_name.str.startswith("gradients")),
        "also counted ops outside the name scope `gradients/` whose name begins like it",
    ),
    "'grad' as the prefix": (
        lambda t: share_of(t, t.op_name.str.startswith("grad")),
        "also counted ops outside the name scope `gradients/` whose name begins like it",
    ),
    "'gradient/', misspelt": (
        lambda t: share_of(t, t.op_name.str.startswith("gradient/")),
        "returned the same number for every profile the check gave it",
    ),
    "'_grad' in the name": (
        lambda t: share_of(t, t.op_name.str.contains("_grad")),
        "that is not the share of the ops' durations",
    ),
    "over the busy time": (over_busy, "divided by the steps' busy time"),
    "the first traced step": (first_step, "in the first traced step alone"),
    "the last traced step": (
        lambda t: solution(t[t.step == t.step.max()]),
        "in the last traced step alone",
    ),
    "the mean of the steps' shares": (
        lambda t: shares_per_step(t).mean(),
        "averaged the steps' own shares",
    ),
    "the median of the steps' shares": (
        lambda t: shares_per_step(t).median(),
        "the median of the steps' own shares",
    ),
    # the profile cell's filter, copied into the function
    "the warm-up left out again": pytest.param(
        lambda t: solution(t[t.step > WARMUP]),
        "left out the steps up to `WARMUP`",
        marks=bank(1, "copy of a nearby cell"),
    ),
    "the first traced step dropped": pytest.param(
        lambda t: solution(t[t.step > t.step.min()]),
        "that is not the share of the ops' durations",
        marks=bank(1, "off by one"),
    ),
    "typed from the notebook's output": pytest.param(
        lambda t: 0.62,
        "returned the same number for every profile the check gave it",
        marks=bank(1, "hard-coded from an output above"),
    ),
    "the notebook's timelines, not its argument": pytest.param(
        global_timelines,
        "for every profile the check gave it",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
    "the reported answer, as a function": (
        filtered_then_shared,
        "returned the same number for every profile",
    ),
    "rounded to 3 decimals": (lambda t: round(solution(t), 3), "rounds the share to 3 decimals"),
    "rounded to 2 decimals": (lambda t: round(solution(t), 2), "rounds the share to 2 decimals"),
    "a filter in place (drop)": (filter_in_place, "removed rows or columns from the DataFrame"),
    "a filter in place (query)": (query_in_place, "removed rows or columns from the DataFrame"),
    "a column added to the argument": (column_added, "added `backward` to the DataFrame"),
    "sorted in place": (sorted_in_place, "changed the values or the order of the DataFrame"),
    "durations scaled in place": (
        durations_scaled,
        "changed the values or the order of the DataFrame",
    ),
    "the notebook's timelines rebound": (
        rebinds_global,
        "assigns a new value to the notebook's `timelines`",
    ),
    "an error in the learner's code": (lambda t: t.op_nme, "your code raised AttributeError"),
}


@pytest.mark.parametrize("answer, message", WRONG_1.values(), ids=WRONG_1)
def test_exercise_1_wrong_answers_fail_and_say_why(answer, message):
    assert_names_the_mistake(
        failure(checks.backward_share, answer, TIMELINES),
        message,
        answer_code=(f"{SHARE:.4f}", f"{SHARE:.1%}", "startswith"),
    )


# What a blind adversary found the check let through, or reported as a traceback (round 1): kept
# apart from WRONG_1, whose size the notebook states.


def by_op_means(t):  # right only when every op runs in every traced step
    means = t.groupby("op_name")["duration_ms"].mean()
    return means[means.index.str.startswith("gradients/")].sum() / means.sum()


def by_op_means_of_steps(t):  # the same, each op summed in its step first
    per_step = t.groupby(["step", "op_name"])["duration_ms"].sum()
    by_name = per_step.groupby("op_name").mean()
    return by_name[by_name.index.str.startswith("gradients/")].sum() / by_name.sum()


def groupby_true_group(t):  # a KeyError where no op is under gradients/
    sums = t.groupby(t["op_name"].str.startswith("gradients/"))["duration_ms"].sum()
    return sums[True] / sums.sum()


def over_span(t):  # each step from its first op to its last, the gaps in it
    span = t.groupby("step")["end_ms"].max().sum()
    return t.loc[t.op_name.str.startswith("gradients/"), "duration_ms"].sum() / span


@functools.lru_cache(maxsize=None)
def cached(t):  # a DataFrame cannot be a key of the cache
    return solution(t)


FOUND_1 = {
    "each op's mean over the steps": pytest.param(
        by_op_means,
        "averaged each op's durations over the steps it ran in: an op that runs in some steps "
        "only (a summary's)",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
    "each op summed in its step, then its mean": (
        by_op_means_of_steps,
        "averaged each op's durations over the steps it ran in",
    ),
    "a groupby read at its True group": pytest.param(
        groupby_true_group,
        "on a profile of an evaluation step, the forward pass alone with no op under "
        "`gradients/`, `backward_share(timelines)` raised KeyError: True, at line ",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
    # right where only the backward pass runs ops of a …Grad type, and no scope is `Gradients/`
    "the scope, or a type holding Grad": pytest.param(
        lambda t: share_of(
            t, t.op_name.str.startswith("gradients/") | t.op_type.str.contains("Grad")
        ),
        "that is not the share of the ops' durations",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
    "the scope in any case": pytest.param(
        lambda t: share_of(t, t.op_name.str.lower().str.startswith("gradients/")),
        "that is not the share of the ops' durations",
        marks=bank(1, "right on the notebook's data, wrong in general"),
    ),
    "cached with functools.lru_cache": (
        cached,
        "your code raised TypeError: unhashable type: 'DataFrame': fix it and run its cell again",
    ),
    "over the steps' spans": pytest.param(
        over_span,
        "divided by the steps' spans, from each one's first op to its last",
        marks=bank(1, "right shape, wrong content"),
    ),
}


@pytest.mark.parametrize("answer, message", FOUND_1.values(), ids=FOUND_1)
def test_exercise_1_answers_found_by_the_adversary_fail_and_say_why(answer, message):
    message_got = failure(checks.backward_share, answer, TIMELINES)
    assert_names_the_mistake(
        message_got, message, answer_code=(f"{SHARE:.4f}", f"{SHARE:.1%}", "startswith")
    )
    assert "\n" not in message_got


def test_exercise_1_a_share_other_than_0_without_backward_ops_is_refused():
    def answer(t):  # right where there are backward ops
        return solution(t) if t.op_name.str.startswith("gradients/").any() else float("nan")

    message = failure(checks.backward_share, answer, TIMELINES)
    assert message.startswith("on a profile of an evaluation step"), message
    assert "returned nan, though no op there is in the backward pass" in message, message


def test_exercise_1_the_span_and_the_busy_time_are_told_apart():
    busy = failure(checks.backward_share, over_busy, TIMELINES)
    span = failure(checks.backward_share, over_span, TIMELINES)
    assert "busy time" in busy and "span" not in busy, busy
    assert "spans" in span and "busy" not in span, span


def test_exercise_1_the_evaluation_profile_has_no_backward_op():
    profile = checks._profiles(np.random.default_rng(0))[0]
    forward = checks._forward_profile(profile)
    assert len(forward) and list(forward.columns) == profiling.COLUMNS
    assert not forward.op_name.str.contains("gradients|Gradients|Adam").any()
    assert set(forward.step) == set(profile.step)


def test_exercise_1_the_reported_number_after_a_filter_fails():
    """The defect testers reported: `timelines` filtered to the backward ops in the solution cell,
    then `backward_share = 1.0`, passed with "the backward pass takes 100.0 %". A number is
    refused; the notebook's `timelines` so filtered is refused before the success line."""
    filtered = TIMELINES[BACKWARD]
    assert "should be a function" in failure(checks.backward_share, 1.0, filtered)
    message = failure(checks.backward_share, solution, filtered)
    assert f"holds {BACKWARD.sum()} op runs under `gradients/` and 0 others" in message, message


def test_exercise_1_a_notebook_timelines_replaced_is_named():
    message = failure(checks.backward_share, solution, TIMELINES["duration_ms"])
    assert message.startswith("the `timelines` the check cell passes is a Series"), message


def test_exercise_1_a_function_right_only_on_the_check_s_profiles_is_refused():
    def answer(t):  # right unless the profile has the notebook's steps
        return 0.5 if set(t.step) == set(STEPS) else solution(t)

    message = failure(checks.backward_share, answer, TIMELINES)
    assert "is right on the check's profiles but returned 0.5000" in message, message


@pytest.mark.parametrize("seed", range(10))
def test_exercise_1_the_computations_differ_on_each_profile(seed):
    for profile in checks._profiles(np.random.default_rng(seed)):
        values = sorted(checks._share_variants(profile).values())
        assert min(np.diff(values)) > checks.SHARE_APART, values
        assert set(profile.step[profile.step <= WARMUP]) and set(profile.step[profile.step > 40])
        assert list(profile.columns) == profiling.COLUMNS
        assert profile.op_name.str.startswith("ConstantFolding/gradients/").any()
        assert profile.op_name.str.match("gradients[^/]").any()
        # an op in some steps only; gaps between ops; `Grad` types and a `Gradients/` scope
        # outside the backward pass
        assert (profile.groupby("op_name").step.nunique() < profile.step.nunique()).any()
        for _step, ops in profile.groupby("step"):
            assert ops.end_ms.max() - ops.start_ms.min() > profiling.busy_ms(ops) + 0.05
        outside = ~profile.op_name.str.startswith("gradients/")
        assert profile.op_type[outside].str.contains("Grad").any()
        assert profile.op_name.str.startswith("Gradients/").any()


def test_exercise_1_every_mistake_named_is_computed():
    computed = set(checks._share_variants(TIMELINES)) - {"right"}
    assert set(checks.SHARE_MISTAKES) == computed - set(checks.UNNAMED)
    assert set(checks.UNNAMED) <= computed


def test_exercise_1_a_rebound_global_is_put_back():
    before = timelines
    with pytest.raises(CheckFailed):
        checks.backward_share(rebinds_global, TIMELINES)
    assert timelines is before


def test_exercise_1_the_profiles_are_new_at_each_run():
    first, second = checks._profiles(), checks._profiles()
    assert not first[0].equals(second[0])


def test_exercise_1_an_unplaced_number_points_to_the_section():
    message = failure(checks.backward_share, lambda t: 0.5 * solution(t), TIMELINES)
    assert message.endswith("(section 'Where a step's time goes')"), message


def test_exercise_1_the_tolerance_is_not_more():
    with pytest.raises(CheckFailed):
        checks.backward_share(lambda t: solution(t) + 3 * checks.SHARE_CLOSE, TIMELINES)


def test_exercise_1_one_traced_step_passes(capsys):
    checks.backward_share(solution, TIMELINES[TIMELINES.step == 60])
    assert capsys.readouterr().out.startswith("Correct:")


# --- exercise 2: a dense network under the mixed_bfloat16 policy ---------------------------


# the message of every way of calling set_global_policy inside the function
RULED_OUT = (
    "calls set_global_policy, which the exercise rules out of it even when the policy is put back"
)


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


def dense(images, last_dtype=None, units=10, hidden_dtype=None, activation="relu", **hidden):
    x = tf.keras.layers.Flatten()(images)
    x = tf.keras.layers.Dense(256, activation, dtype=hidden_dtype, **hidden)(x)
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


def by_hand(images):  # no Keras: variables of its own, products cast to bfloat16
    x = tf.reshape(images, [-1, 784])
    w1 = tf.compat.v1.get_variable("w1", [784, 256])
    b1 = tf.compat.v1.get_variable("b1", [256], initializer=tf.zeros_initializer())
    w2 = tf.compat.v1.get_variable("w2", [256, 10])
    b2 = tf.compat.v1.get_variable("b2", [10], initializer=tf.zeros_initializer())
    hidden = tf.matmul(tf.cast(x, tf.bfloat16), tf.cast(w1, tf.bfloat16))
    hidden = tf.nn.relu(hidden + tf.cast(b1, tf.bfloat16))
    return tf.matmul(tf.cast(hidden, tf.float32), w2) + b2


def functional(images):
    inputs = tf.keras.Input((28, 28))
    x = tf.keras.layers.Flatten()(inputs)
    x = tf.keras.layers.Dense(256, activation="relu", dtype="mixed_bfloat16")(x)
    return tf.keras.Model(inputs, tf.keras.layers.Dense(10, dtype=tf.float32)(x))(images)


def relu_layer(images):
    x = tf.keras.layers.Reshape((784,))(images)
    x = tf.keras.layers.Dense(256, dtype="mixed_bfloat16")(x)
    x = tf.keras.layers.ReLU(dtype="mixed_bfloat16")(x)
    return tf.cast(tf.keras.layers.Dense(10, dtype="mixed_bfloat16")(x), "float32")


def images_in_bfloat16(images):
    x = tf.keras.layers.Flatten(dtype="mixed_bfloat16")(tf.cast(images, tf.bfloat16))
    x = tf.keras.layers.Dense(256, "relu", dtype="mixed_bfloat16")(x)
    return tf.keras.layers.Dense(10, dtype="float32")(x)


def images_in_float64(images):
    x = tf.keras.layers.Flatten()(tf.cast(images, tf.float64))
    x = tf.keras.layers.Dense(256, "relu", dtype="mixed_bfloat16")(x)
    return tf.keras.layers.Dense(10)(x)


PER_GRAPH = {}


def per_graph(images):  # a network made once per graph, as each model_fn call has its own
    graph = tf.compat.v1.get_default_graph()
    if graph not in PER_GRAPH:
        PER_GRAPH[graph] = tf.keras.Sequential(
            [
                tf.keras.layers.Flatten(),
                tf.keras.layers.Dense(256, "relu", dtype="mixed_bfloat16"),
                tf.keras.layers.Dense(10),
            ]
        )
    return PER_GRAPH[graph](images)


RIGHT_2 = {
    "the policy as the hidden layer's dtype, a float32 last layer": layer_dtypes,
    "the policy given to each layer, then a cast": per_layer_policy,
    "the policy's name as each layer's dtype, then a cast": cast(
        policies("mixed_bfloat16", "mixed_bfloat16")
    ),
    "a Sequential model ending in a float32 layer": pytest.param(
        sequential, marks=bank(2, "right, written otherwise")
    ),
    "by hand, without Keras": pytest.param(by_hand, marks=bank(2, "right, written otherwise")),
    "a functional Model": functional,
    "a ReLU layer, a Reshape and a cast": relu_layer,
    "images cast to bfloat16 first": images_in_bfloat16,
    "images cast to float64 first": images_in_float64,
    "a network made once per graph": pytest.param(
        per_graph, marks=bank(2, "right, written otherwise")
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


def private_policy_scope(images):  # Keras's own scope, which sets the global policy and back
    from keras.src.mixed_precision.policy import policy_scope

    with policy_scope("mixed_bfloat16"):
        return cast(dense)(images)


def imported_setter_same_object(images):  # the policy found put back: the very same object
    from tensorflow.keras.mixed_precision import global_policy, set_global_policy

    found = global_policy()
    set_global_policy("mixed_bfloat16")
    try:
        return cast(dense)(images)
    finally:
        set_global_policy(found)


def float32_set_anyway(images):
    tf.keras.mixed_precision.set_global_policy("float32")
    return layer_dtypes(images)


def with_dropout(images):
    x = tf.keras.layers.Flatten()(images)
    x = tf.keras.layers.Dense(256, "relu", dtype="mixed_bfloat16")(x)
    x = tf.keras.layers.Dropout(0.4)(x, training=True)
    return tf.keras.layers.Dense(10, dtype="float32")(x)


def no_bias(images):
    x = tf.keras.layers.Flatten()(images)
    x = tf.keras.layers.Dense(256, "relu", use_bias=False, dtype="mixed_bfloat16")(x)
    return tf.keras.layers.Dense(10, dtype="float32")(x)


WRONG_2 = {
    "unanswered": (None, "`mixed_logits` is still None"),
    "not a function": (3, "should be a function of a batch of images, not a int"),
    "a model, not its logits": (model_not_logits, "returned a Sequential: return the logits"),
    "no policy at all": (
        cast(dense),
        "no matrix product computes in bfloat16 (they compute in float32)",
    ),
    "the policy set after the layers are made": (
        policy_set_after,
        RULED_OUT,
    ),
    # bf16_cnn_model_fn's way, copied
    "the global policy around the layers, set back (forbidden API)": pytest.param(
        with_policy("mixed_bfloat16", cast(dense)),
        RULED_OUT,
        marks=bank(2, "copy of a nearby cell"),
    ),
    "the global policy in a Sequential model, set back": (
        global_sequential,
        RULED_OUT,
    ),
    "the global policy imported by name, set back": pytest.param(
        imported_setter,
        RULED_OUT,
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
        "no matrix product computes in bfloat16 (they compute in float32)",
    ),
    "the policy left set": (
        with_policy("mixed_bfloat16", cast(dense), restore=False),
        "changes the global policy from 'float32' to 'mixed_bfloat16' and leaves it so",
    ),
    "the policy bfloat16, not mixed": (
        cast(policies("bfloat16", "bfloat16")),
        "weights are stored in bfloat16, as the policy `bfloat16` (not `mixed_`) stores them",
    ),
    "bfloat16 logits": (policies("mixed_bfloat16", "mixed_bfloat16"), "the logits are bfloat16"),
    "float16": (cast(policies("mixed_float16", "float32")), "a layer computes in float16"),
    "the wrong number of classes": (
        cast(policies("mixed_bfloat16", "mixed_bfloat16", units=5)),
        "the network's weights have the shapes",
    ),
    "no dense layer": (
        lambda images: tf.cast(images[:, 0, :10], tf.float32),
        "builds no dense layer",
    ),
    "an error in the learner's code": (broken, "your code raised TypeError"),
    "float64 logits": (
        lambda images: tf.cast(layer_dtypes(images), tf.float64),
        "the logits are float64: return them in float32, as the exercise asks",
    ),
    "float16 logits": (
        lambda images: tf.cast(layer_dtypes(images), tf.float16),
        "the logits are float16: return them in float32, as the exercise asks",
    ),
    "a float64 last layer": (
        policies("mixed_bfloat16", "float64"),
        "the weights are stored as float32, float64: the exercise asks for float32 weights",
    ),
    "float64 layers": (
        policies("float64", "float64"),
        "the weights are stored as float64: the exercise asks for float32 weights",
    ),
    "the policy bfloat16 on the hidden layer alone": (
        policies("bfloat16", "float32"),
        "weights are stored in bfloat16, as the policy `bfloat16` (not `mixed_`) stores them",
    ),
    "mixed_float16 on the last layer": (
        cast(policies("mixed_bfloat16", "mixed_float16")),
        "a layer computes in float16",
    ),
    "Keras's private policy_scope": pytest.param(
        private_policy_scope,
        RULED_OUT,
        marks=bank(2, "forbidden API"),
    ),
    "the policy found put back, the setter imported": (
        imported_setter_same_object,
        RULED_OUT,
    ),
    "float32 set, to be safe": (
        float32_set_anyway,
        RULED_OUT,
    ),
    "a tanh": (
        policies("mixed_bfloat16", "float32", activation="tanh"),
        "build that network and nothing more",
    ),
    "dropout between the layers": (with_dropout, "build that network and nothing more"),
    "no bias in the hidden layer": (no_bias, "the network's weights have the shapes"),
    "a softmax layer in float32": (
        lambda images: tf.keras.layers.Softmax(dtype="float32")(
            policies("mixed_bfloat16", "mixed_bfloat16")(images)
        ),
        "returns probabilities (a softmax on the last layer), not logits",
    ),
    "the images cast to bfloat16, the layers float32": (
        lambda images: cast(dense)(tf.cast(images, tf.bfloat16)),
        "no matrix product computes in bfloat16 (they compute in float32)",
    ),
}


@pytest.mark.parametrize("answer, message", WRONG_2.values(), ids=WRONG_2)
def test_exercise_2_wrong_answers_fail_and_say_why(answer, message):
    assert_names_the_mistake(
        failure(checks.mixed_logits, answer),
        message,
        answer_code=("set_global_policy(", "tf.cast(", 'dtype="float32"'),
    )
    assert tf.keras.mixed_precision.global_policy().name == "float32"  # the check restores it


# What a blind adversary found the check let through, or reported as a traceback (round 1): kept
# apart from WRONG_2, whose size the notebook states.


def fixed_batch(images):  # the notebook's BATCH_SIZE, typed in
    x = tf.reshape(images, [100, 784])
    x = tf.keras.layers.Dense(256, activation="relu", dtype="mixed_bfloat16")(x)
    return tf.keras.layers.Dense(10, dtype="float32")(x)


def batch_fixed_when_run(images):  # a shape TensorFlow knows only when the graph runs
    rows = tf.constant(100) + 0 * tf.shape(images)[0]
    x = tf.reshape(images, tf.stack([rows, 784]))
    x = tf.keras.layers.Dense(256, activation="relu", dtype="mixed_bfloat16")(x)
    return tf.keras.layers.Dense(10, dtype="float32")(x)


def frozen_model(images):
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(256, activation="relu", dtype="mixed_bfloat16"),
            tf.keras.layers.Dense(10, dtype="float32"),
        ]
    )
    model.trainable = False
    return model(images)


def by_hand_frozen(images):  # by_hand, its hidden layer's variables left out of training
    x = tf.reshape(images, [-1, 784])
    w1 = tf.compat.v1.get_variable("w1", [784, 256], trainable=False)
    b1 = tf.compat.v1.get_variable("b1", [256], initializer=tf.zeros_initializer(), trainable=False)
    w2 = tf.compat.v1.get_variable("w2", [256, 10])
    b2 = tf.compat.v1.get_variable("b2", [10], initializer=tf.zeros_initializer())
    hidden = tf.matmul(tf.cast(x, tf.bfloat16), tf.cast(w1, tf.bfloat16))
    hidden = tf.nn.relu(hidden + tf.cast(b1, tf.bfloat16))
    return tf.matmul(tf.cast(hidden, tf.float32), w2) + b2


def relu_layer_capped(images):
    x = tf.keras.layers.Flatten()(images)
    x = tf.keras.layers.Dense(256, dtype="mixed_bfloat16")(x)
    x = tf.keras.layers.ReLU(max_value=6.0, dtype="mixed_bfloat16")(x)
    return tf.keras.layers.Dense(10, dtype="float32")(x)


FROZEN = "are not trainable (`trainable=False` on a layer, its model or a variable)"
FOUND_2 = {
    "ReLU6": pytest.param(
        policies("mixed_bfloat16", "float32", activation=tf.nn.relu6),
        "the hidden layer's activation caps its outputs at 6 (ReLU6)",
        marks=bank(2, "right shape, wrong content"),
    ),
    "a ReLU layer capped at 6": (relu_layer_capped, "caps its outputs at 6 (ReLU6)"),
    "the notebook's batch size typed in": pytest.param(
        fixed_batch,
        "`mixed_logits` fixes the batch size: on images of shape `(None, 28, 28)` its logits have "
        "shape (100, 10)",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "a batch size fixed where only running the graph shows it": pytest.param(
        batch_fixed_when_run,
        "your code raised InvalidArgumentError: Input to reshape is a tensor with",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "the hidden layer not trainable": (
        policies("mixed_bfloat16", "float32", trainable=False),
        f"the weights of shapes (784, 256), (256,) {FROZEN}",
    ),
    "the model not trainable": (
        frozen_model,
        f"the weights of shapes (784, 256), (256,), (256, 10), (10,) {FROZEN}",
    ),
    "by hand, the hidden variables not trainable": (
        by_hand_frozen,
        f"the weights of shapes (784, 256), (256,) {FROZEN}",
    ),
}


@pytest.mark.parametrize("answer, message", FOUND_2.values(), ids=FOUND_2)
def test_exercise_2_answers_found_by_the_adversary_fail_and_say_why(answer, message):
    got = failure(checks.mixed_logits, answer)
    assert_names_the_mistake(
        got, message, answer_code=("set_global_policy(", "tf.cast(", 'dtype="float32"')
    )
    assert "\n" not in got and "Graph execution error" not in got, got
    assert tf.keras.mixed_precision.global_policy().name == "float32"


@bank(2, "right on the notebook's data, wrong in general")
def test_exercise_2_layers_made_before_the_call_fail_in_the_second_graph():
    """Layers made once where the function is defined, built at the first call: right in the
    check's first graph, refused in its second, as in an Estimator's evaluate after train."""
    hidden = tf.keras.layers.Dense(256, activation="relu", dtype="mixed_bfloat16")
    last = tf.keras.layers.Dense(10, dtype="float32")

    def answer(images):
        return last(hidden(tf.keras.layers.Flatten()(images)))

    message = failure(checks.mixed_logits, answer)
    assert message.startswith("`mixed_logits` uses layers made outside it"), message
    assert "make its layers inside the function" in message, message


def test_exercise_2_a_model_made_outside_as_the_answer_fails_in_the_second_graph():
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(256, activation="relu", dtype="mixed_bfloat16"),
            tf.keras.layers.Dense(10, dtype="float32"),
        ]
    )
    message = failure(checks.mixed_logits, model)
    assert message.startswith("`mixed_logits` uses layers made outside it"), message


def test_exercise_2_an_error_with_no_line_of_the_learner_s_is_one_line():
    """A library function partly applied raises from no line of the learner's code: one line,
    not a traceback, as exercise 1's functools.lru_cache."""
    answer = functools.partial(np.reshape, newshape=(-1, 784))
    message = failure(checks.mixed_logits, answer)
    assert message.startswith("your code raised NotImplementedError: Cannot convert a symbolic")
    assert "\n" not in message, message


def exercise_2_messages(answers) -> list:
    messages = []
    for answer in answers:
        try:
            checks.mixed_logits(answer)
        except CheckFailed as failed:
            messages.append(str(failed))
    return messages


def test_exercise_2_each_message_is_true_of_the_dtypes_the_answer_made():
    """Float64 logits are not told about bfloat16's rounding, nor float64 weights blamed on a
    `bfloat16` policy nobody used (testers' report)."""
    (logits,) = exercise_2_messages([lambda images: tf.cast(layer_dtypes(images), tf.float64)])
    assert "bfloat16" not in logits and "float64" in logits, logits
    (weights,) = exercise_2_messages([policies("float64", "float64")])
    assert "`bfloat16`" not in weights and "float64" in weights, weights


def test_exercise_2_no_message_says_to_set_the_policy_back():
    """The exercise rules set-then-restore out: the message for a policy left set no longer says
    to set it back, and every message about set_global_policy says it is ruled out of the
    function (testers' report: "set it back to the one you found")."""
    answers = [entry(value)[0] for value in WRONG_2.values()]
    messages = exercise_2_messages(answers)
    assert not [m for m in messages if "set it back" in m or "set back" in m]
    about_the_setter = [m for m in messages if "set_global_policy" in m]
    assert len(about_the_setter) >= 6
    assert all(
        "rules set_global_policy out of" in m or "rules out of it" in m for m in about_the_setter
    )


def test_exercise_2_the_policy_left_set_names_the_policies_before_and_after():
    (message,) = exercise_2_messages([with_policy("mixed_float16", cast(dense), restore=False)])
    assert message.startswith(
        "`mixed_logits` changes the global policy from 'float32' to 'mixed_float16' and leaves it "
        "so"
    ), message


def test_exercise_2_a_policy_set_in_the_kernel_before_the_check_is_named():
    tf.keras.mixed_precision.set_global_policy("mixed_bfloat16")
    try:
        message = failure(checks.mixed_logits, cast(dense))
    finally:
        tf.keras.mixed_precision.set_global_policy("float32")
    assert message.startswith(
        "the global policy is 'mixed_bfloat16' before the check calls `mixed_logits`"
    ), message


def test_exercise_2_a_profiler_in_use_is_put_back():
    import sys

    def profiler(frame, event, arg):
        return None

    sys.setprofile(profiler)
    try:
        checks.mixed_logits(layer_dtypes)
        assert sys.getprofile() is profiler
    finally:
        sys.setprofile(None)


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
    not_a_function = "`{name}` should be a function, called as `{call}`, not {kind}"
    assert failure(checks.backward_share, 0.62, TIMELINES) == sentences[not_a_function].format(
        name="backward_share", call=checks.BACKWARD_CALL, kind="float"
    )
    checks.backward_share(solution, TIMELINES)
    assert capsys.readouterr().out.startswith("正確：反向傳播佔運算時間的 ")
    message = failure(checks.mixed_logits, policies("mixed_bfloat16", "mixed_bfloat16"))
    assert message.startswith("logits 是 bfloat16：") and "float32" in message, message
    # a sentence that cites a section, once helpers.po translates it (make po, then translators)
    unplaced = (
        "on a profile the check made up, `{call}` returned {value:.4f}: that is not the share of "
        "the ops' durations, summed over every traced step, spent in ops whose name starts with "
        "`gradients/` (section '{section}')"
    )
    if unplaced in sentences:
        halved = failure(checks.backward_share, lambda t: 0.5 * solution(t), TIMELINES)
        assert halved.endswith(sentences[unplaced].rsplit("{section}", 1)[-1]), halved
        assert checks.profile_section() in halved, halved
    monkeypatch.setenv("WORKBOOK_LANGUAGE", "en")
    assert failure(checks.backward_share, lambda t: 0.5 * solution(t), TIMELINES).endswith(
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
