"""Exercise checks of notebook 11 (training speed).

Exercise 1 asks for a function, ``backward_share(timelines)``: the check runs it on profiles of its
own, made anew at every run (so no number can be typed in for it) and made so that each plausible
wrong computation gives another number than the right one (ops that run in some steps only, idle
gaps between ops, ops of the backward pass's types outside its scope); a mistake is named only when
the learner's function gave what it gives on every one of those profiles. Then the function runs
on an evaluation step's profile, which has no backward op, and on the notebook's ``timelines`` for
the success line; an error it raises is one line, whatever raised it. Exercise 2 builds the
learner's network twice, each time in a graph of its own (as an Estimator calls a model_fn), and
reads what it made: the types of its matrix products, weights and logits, whether its weights are
trainable and its batch size free, the global policy before and after, and its logits on random
images, some with pixels large enough that hidden units pass 6.
"""

from __future__ import annotations

from typing import NoReturn

import numpy as np

from ..language import N_, _, all_of, listed
from ..learner_code import error_text, learner_line, where
from ..problems import CheckFailed
from . import calls
from .common import correct, fail, reporting_learner_errors, require_answer, said

__all__ = ["backward_share", "mixed_logits"]

BACKWARD_CALL = "backward_share(timelines)"
# a share computed from the same durations in another order (or in float32) is within 1e-6 of the
# exact one; a rounding to 4 decimals is up to 5e-5 away
SHARE_CLOSE = 1e-5
# the check's profiles are drawn again until each computation of _share_variants is this far from
# every other one on each of them
SHARE_APART = 10 * SHARE_CLOSE
WARMUP = 40  # the steps notebook 11 leaves out of its profile (its cell of that name)


# the sections of notebook 11 the messages send the learner to (functions: the heading is looked
# up in the catalogue when a message is made)
def profile_section() -> str:
    """The heading of notebook 11's section on profiling a step, as the learner's edition of the
    notebook writes it."""
    return _("Where a step's time goes")


def mixed_section() -> str:
    """The heading of notebook 11's section on the mixed_bfloat16 policy, as the learner's edition
    of the notebook writes it."""
    return _("The Keras mixed_bfloat16 policy inside a model_fn")


# One training step of a CNN like the course's, as ProfilerHook traces it: (op name, op type, base
# duration in ms, whether it runs beside the op before it on another thread). Names and types are
# a real profile's (TensorFlow 2.15, oneDNN); the durations are of its order, the constants' raised
# a little so that counting Grappler's `ConstantFolding/gradients/…` constants as backward ops
# changes the share by more than the check's tolerance.
PROFILE_OPS = (
    ("_SOURCE", "NoOp", 0.007, False),
    ("global_step", "VarHandleOp", 0.002, False),
    ("conv2d/kernel", "VarHandleOp", 0.002, False),
    ("conv2d/Conv2D/ReadVariableOp", "ReadVariableOp", 0.002, False),
    ("dense/kernel/Adam", "VarHandleOp", 0.002, False),
    ("Adam/learning_rate", "Const", 0.002, False),
    ("gradients/grad_ys_0", "Const", 0.006, False),
    ("IteratorGetNext", "IteratorGetNext", 0.09, True),
    ("Reshape", "Reshape", 0.005, False),
    ("ConstantFolding/gradients/conv2d/Conv2D_grad/ShapeN-matshapes-1", "Const", 0.012, False),
    ("conv2d/Relu", "_MklNativeFusedConv2D", 0.8, False),
    ("max_pooling2d/MaxPool", "_MklNativeMaxPool", 0.6, False),
    ("gradients/conv2d_1/Conv2D_grad/ShapeN", "ShapeN", 0.005, False),
    ("ConstantFolding/gradients/conv2d_1/Conv2D_grad/ShapeN-matshapes-1", "Const", 0.015, False),
    ("conv2d_1/Relu", "_MklNativeFusedConv2D", 3.8, False),
    ("max_pooling2d_1/MaxPool", "_MklNativeMaxPool", 0.36, False),
    ("flatten/Reshape", "Reshape", 0.003, False),
    ("dense/Relu", "_MklNativeFusedMatMul", 0.48, False),
    ("dropout/dropout/random_uniform/RandomUniform", "RandomUniform", 0.045, False),
    ("dropout/dropout/GreaterEqual", "GreaterEqual", 0.008, False),
    ("dropout/dropout/SelectV2", "SelectV2", 0.033, False),
    ("dense_1/BiasAdd", "_MklNativeFusedMatMul", 0.016, False),
    (
        "sparse_softmax_cross_entropy_loss/xentropy/xentropy",
        "SparseSoftmaxCrossEntropyWithLogits",
        0.028,
        False,
    ),
    ("sparse_softmax_cross_entropy_loss/Sum", "Sum", 0.002, False),
    ("sparse_softmax_cross_entropy_loss/value", "DivNoNan", 0.003, False),
    ("gradients/sparse_softmax_cross_entropy_loss/value_grad/div_no_nan", "DivNoNan", 0.002, False),
    ("gradients/sparse_softmax_cross_entropy_loss/Sum_grad/Tile", "Tile", 0.008, False),
    ("gradients/sparse_softmax_cross_entropy_loss/xentropy/xentropy_grad/mul", "Mul", 0.008, False),
    ("gradients/dense_1/BiasAdd_grad/BiasAddGrad", "BiasAddGrad", 0.008, False),
    ("gradients/dense_1/MatMul_grad/MatMul", "_MklMatMul", 0.025, False),
    ("gradients/dense_1/MatMul_grad/MatMul_1", "_MklMatMul", 0.01, True),
    ("Adam/update_dense_1/kernel/ResourceApplyAdam", "ResourceApplyAdam", 0.675, True),
    ("gradients/dropout/dropout/SelectV2_grad/SelectV2", "SelectV2", 0.016, False),
    ("gradients/dense/Relu_grad/ReluGrad", "ReluGrad", 0.005, False),
    ("gradients/dense/BiasAdd_grad/BiasAddGrad", "BiasAddGrad", 0.004, False),
    ("gradients/dense/MatMul_grad/MatMul_1", "_MklMatMul", 0.358, False),
    ("gradients/dense/MatMul_grad/MatMul", "_MklMatMul", 0.494, True),
    ("Adam/update_dense/bias/ResourceApplyAdam", "ResourceApplyAdam", 0.006, False),
    ("gradients/flatten/Reshape_grad/Reshape", "Reshape", 0.003, False),
    (
        "gradients/max_pooling2d_1/MaxPool_grad/MaxPoolGrad",
        "_MklNativeMaxPoolGrad",
        0.704,
        False,
    ),
    ("Adam/update_dense/kernel/ResourceApplyAdam", "ResourceApplyAdam", 0.643, True),
    ("gradients/conv2d_1/Relu_grad/ReluGrad", "ReluGrad", 0.199, False),
    ("gradients/conv2d_1/BiasAdd_grad/BiasAddGrad", "BiasAddGrad", 0.104, False),
    (
        "gradients/conv2d_1/Conv2D_grad/Conv2DBackpropFilter",
        "_MklNativeConv2DBackpropFilter",
        6.86,
        False,
    ),
    (
        "gradients/conv2d_1/Conv2D_grad/Conv2DBackpropInput",
        "_MklNativeConv2DBackpropInput",
        6.57,
        True,
    ),
    ("gradients/max_pooling2d/MaxPool_grad/MaxPoolGrad", "_MklNativeMaxPoolGrad", 0.745, False),
    ("Adam/update_conv2d_1/kernel/ResourceApplyAdam", "ResourceApplyAdam", 0.042, True),
    ("gradients/conv2d/Relu_grad/ReluGrad", "ReluGrad", 0.426, False),
    ("gradients/conv2d/BiasAdd_grad/BiasAddGrad", "BiasAddGrad", 0.285, False),
    (
        "gradients/conv2d/Conv2D_grad/Conv2DBackpropFilter",
        "_MklNativeConv2DBackpropFilter",
        0.552,
        False,
    ),
    ("Adam/update_conv2d/bias/ResourceApplyAdam", "ResourceApplyAdam", 0.009, False),
    ("Adam/update_conv2d/kernel/ResourceApplyAdam", "ResourceApplyAdam", 0.009, False),
    ("Adam/mul", "Mul", 0.005, False),
    ("Adam/AssignVariableOp", "AssignVariableOp", 0.002, False),
    ("Adam", "AssignAddVariableOp", 0.014, False),
)
# The summaries an inherited model_fn may add, which run only in the steps that save summaries
# (so an op's mean over the steps it ran in is no share of the steps' time): the gradients' norm
# (`gradients_norm`: a name that begins like the scope), and a saliency map, the gradients of the
# logits with respect to the images, which a second `tf.gradients` builds under `gradients_1/`
# (ops of the backward pass's types, outside its scope), under a summary scope `Gradients/`.
SUMMARY_OPS = (
    ("global_norm/L2Loss", "L2Loss", 0.03, False),
    ("global_norm/global_norm", "Sqrt", 0.004, False),
    ("gradients_norm", "ScalarSummary", 0.07, False),
    ("gradients_1/dense/Relu_grad/ReluGrad", "ReluGrad", 0.05, False),
    ("gradients_1/max_pooling2d/MaxPool_grad/MaxPoolGrad", "_MklNativeMaxPoolGrad", 0.4, False),
    ("gradients_1/conv2d/Relu_grad/ReluGrad", "ReluGrad", 0.3, False),
    (
        "gradients_1/conv2d/Conv2D_grad/Conv2DBackpropInput",
        "_MklNativeConv2DBackpropInput",
        0.5,
        False,
    ),
    ("Gradients/saliency/Abs", "Abs", 0.08, False),
    ("Gradients/saliency", "ImageSummary", 0.15, False),
)


def _part(name: str) -> str:
    """Which part of the step an op of PROFILE_OPS belongs to, for the durations' scaling."""
    if name.startswith("gradients/"):
        return "backward"
    if name.startswith("Adam"):
        return "update"
    return "forward"


def _made_up_profile(rng):
    """A profile as ``profiling.read_timelines`` gives it: 4 to 6 traced steps of PROFILE_OPS or
    more, every 10 or 20 steps (two or more at or below WARMUP, two or more above), SUMMARY_OPS
    after them in some of the steps but not all, each part of the step (forward, backward, update)
    scaled by its own factor in each step and in the profile, each op by a little noise; two
    threads, ops side by side where the tables say so, and idle gaps between some ops (so that a
    step's span, from its first op to its last, is more than its busy time)."""
    import pandas as pd

    from ..profiling import COLUMNS

    every = int(rng.choice([10, 20]))  # two steps or more at or below WARMUP: dropping the
    # first step is then no mistake of WARMUP's
    steps = every * np.arange(1, int(rng.integers(4, 7)) + 1)
    while (steps > WARMUP).sum() < 2:
        steps = np.append(steps, steps[-1] + every)
    summarized = set(rng.choice(steps, int(rng.integers(1, len(steps))), replace=False))
    in_profile = {part: rng.uniform(0.5, 1.8) for part in ("forward", "backward", "update")}
    rows = []
    for step in steps:
        in_step = {part: factor * rng.uniform(0.6, 1.5) for part, factor in in_profile.items()}
        cursor = previous = 0.0
        for name, kind, base, beside in PROFILE_OPS + SUMMARY_OPS * (step in summarized):
            duration = round(base * in_step[_part(name)] * rng.uniform(0.85, 1.15), 4)
            idle = round(rng.uniform(0.01, 0.15), 4) if cursor and rng.random() < 0.3 else 0.0
            start = previous if beside else cursor + idle
            rows.append((int(step), name, kind, int(beside), start, duration))
            previous, cursor = start, max(cursor, start + duration)
    frame = pd.DataFrame(
        rows, columns=["step", "op_name", "op_type", "thread", "start_ms", "duration_ms"]
    )
    frame["end_ms"] = frame["start_ms"] + frame["duration_ms"]
    return frame[COLUMNS]


def _share_variants(timelines) -> dict:
    """What the plausible computations give on one profile, by what they did: those SHARE_MISTAKES
    names, the right one and those of UNNAMED."""
    from ..profiling import busy_ms

    names, types = timelines["op_name"].astype(str), timelines["op_type"].astype(str)
    durations = timelines["duration_ms"].to_numpy(dtype=np.float64)
    steps = timelines["step"].to_numpy()

    def share(rows, among=None) -> float:
        among = np.ones(len(durations), bool) if among is None else among
        total = durations[among].sum()
        return float(durations[np.asarray(rows) & among].sum() / total) if total else np.nan

    backward = names.str.startswith("gradients/").to_numpy()
    update = names.str.startswith("Adam").to_numpy()
    grad_types = types.str.contains("Grad").to_numpy()
    per_step = [share(backward, steps == step) for step in sorted(set(steps))]
    busy = sum(busy_ms(timelines[steps == step]) for step in sorted(set(steps)))
    by_step = timelines.groupby("step")
    span = float((by_step["end_ms"].max() - by_step["start_ms"].min()).sum())  # first op to last
    means = timelines.groupby("op_name")["duration_ms"].mean()
    right = share(backward)
    return {
        "right": right,
        "percentage": 100 * right,
        "count": float(backward.mean()),
        "all but backward": 1 - right,
        "forward": share(~backward & ~update),
        "with update": share(backward | update),
        "update": share(update),
        "backprop": share(types.str.contains("Backprop").to_numpy()),
        "grad type": share(grad_types),
        "grad name": share(names.str.contains("Grad").to_numpy()),
        "anywhere in name": share(names.str.contains("gradients/").to_numpy()),
        "prefix": share(names.str.startswith("gradients").to_numpy()),
        "busy": float(durations[backward].sum() / busy),
        "span": float(durations[backward].sum() / span),
        "op means": float(means[means.index.str.startswith("gradients/")].sum() / means.sum()),
        "first step": per_step[0],
        "last step": per_step[-1],
        "mean of steps": float(np.mean(per_step)),
        "median of steps": float(np.median(per_step)),
        "after warm-up": share(backward, steps > WARMUP),
        "scope or grad type": share(backward | grad_types),
        "any case": share(names.str.lower().str.startswith("gradients/").to_numpy()),
    }


# computations _share_variants makes so that the check's profiles tell them from the right one,
# though no message names them: the generic one says what the share is of
UNNAMED = ("scope or grad type", "any case")


def _profiles(rng=None) -> list:
    """Three profiles of ``_made_up_profile``, each drawn again until every computation of
    ``_share_variants`` gives a number of its own on it, and a rounding of the right share to 1
    to 4 decimals is off it by more than the tolerance."""
    rng = rng or np.random.default_rng()
    profiles = []
    while len(profiles) < 3:
        for _attempt in range(1000):
            profile = _made_up_profile(rng)
            variants = _share_variants(profile)
            values, right = sorted(variants.values()), variants["right"]
            apart = all(b - a > SHARE_APART for a, b in zip(values, values[1:]))
            if apart and all(abs(right - round(right, d)) > SHARE_CLOSE for d in range(1, 5)):
                profiles.append(profile)
                break
        else:  # pragma: no cover - the profiles are drawn to differ
            raise RuntimeError("no profile found")
    return profiles


GRAD_IN_NAME_OR_TYPE = N_(
    "on profiles the check made up, `{call}` returned the share of the ops with `Grad` in "
    "their type or name: the backward pass also runs ops of other types "
    "(`Conv2DBackprop…`, `MatMul`), which only the name scope `gradients/` tells apart"
)
SHARE_MISTAKES = {
    "percentage": N_(
        "on profiles the check made up, `{call}` returned a percentage: return the share as a "
        "fraction, between 0 and 1"
    ),
    "count": N_(
        "on profiles the check made up, `{call}` returned the share of the op runs' number, not "
        "of their time: weigh each op run by its duration"
    ),
    "all but backward": N_(
        "on profiles the check made up, `{call}` returned the share of everything but the "
        "backward pass: the exercise asks for the ops under `gradients/`"
    ),
    "forward": N_(
        "on profiles the check made up, `{call}` returned the share of the ops that are neither "
        "under `gradients/` nor the optimizer's `Adam…`: the exercise asks for the backward "
        "pass, the ops under `gradients/`"
    ),
    "with update": N_(
        "on profiles the check made up, `{call}` returned the share of the backward pass and "
        "the optimizer's update together: the `Adam…` ops apply the gradients, they do not "
        "compute them"
    ),
    "update": N_(
        "on profiles the check made up, `{call}` returned the share of the optimizer's update, "
        "the `Adam…` ops: they apply the gradients; the backward pass computes them, under "
        "`gradients/`"
    ),
    "backprop": N_(
        "on profiles the check made up, `{call}` returned the share of the convolutions' "
        "gradients alone (`…Backprop…`): the backward pass also runs the gradients of the dense "
        "layers, of ReLU, of pooling and of the loss"
    ),
    "grad type": GRAD_IN_NAME_OR_TYPE,
    "grad name": GRAD_IN_NAME_OR_TYPE,
    "anywhere in name": N_(
        "on profiles the check made up, `{call}` also counted ops whose name holds `gradients/` "
        "after another scope (Grappler's `ConstantFolding/gradients/…` constants): an op is in "
        "the name scope `gradients/` when its name starts with it"
    ),
    "prefix": N_(
        "on profiles the check made up, `{call}` also counted ops outside the name scope "
        "`gradients/` whose name begins like it (a summary named `gradients_norm`): a scope's "
        "name ends at its `/`"
    ),
    "busy": N_(
        "on profiles the check made up, `{call}` divided by the steps' busy time: ops that run "
        "side by side on two threads count twice in their durations, so divide by the sum of "
        "all durations"
    ),
    "span": N_(
        "on profiles the check made up, `{call}` divided by the steps' spans, from each one's "
        "first op to its last: a span holds gaps in which no op runs and counts ops side by side "
        "once; the share is of the ops' durations, so divide by the sum of all durations"
    ),
    "op means": N_(
        "on profiles the check made up, `{call}` averaged each op's durations over the steps it "
        "ran in: an op that runs in some steps only (a summary's) then weighs as if it ran in "
        "every one; sum the durations over every traced step, then divide"
    ),
    "first step": N_(
        "on profiles the check made up, `{call}` returned the share in the first traced step "
        "alone: pool the durations of every traced step"
    ),
    "last step": N_(
        "on profiles the check made up, `{call}` returned the share in the last traced step "
        "alone: pool the durations of every traced step"
    ),
    "mean of steps": N_(
        "on profiles the check made up, `{call}` averaged the steps' own shares: that weighs a "
        "short step as much as a long one; sum the durations over every traced step, then divide"
    ),
    "median of steps": N_(
        "on profiles the check made up, `{call}` returned the median of the steps' own shares: "
        "sum the durations over every traced step, then divide"
    ),
    "after warm-up": N_(
        "on profiles the check made up, `{call}` left out the steps up to `WARMUP`: the "
        "DataFrame it is given holds the steps to count, so use all of its rows"
    ),
}


def _frames_of(answer) -> dict:
    """``{name: (frame, its fingerprint)}`` of the DataFrames among the learner's globals (the
    notebook's ``timelines`` among them), to tell whether the function changed one."""
    import pandas as pd

    namespace = getattr(answer, "__globals__", None) or {}
    return {
        name: (value, _fingerprint(value))
        for name, value in list(namespace.items())
        if isinstance(value, pd.DataFrame) and not name.startswith("_")
    }


def _fingerprint(frame) -> tuple:
    import pandas as pd

    try:
        hashed = int(pd.util.hash_pandas_object(frame, index=True).sum())
    except Exception:  # noqa: BLE001 - cells pandas cannot hash (lists): their shape alone
        hashed = None
    return (tuple(map(str, frame.columns)), frame.shape, hashed)


def _call_share(answer, given, original, frames, forward_only=False) -> float:
    """``answer(given)`` as a number; refused in one line when it raised (naming the profile when
    it is ``forward_only``), or changed ``given`` (a copy of ``original``) or one of the learner's
    global DataFrames (``frames``, which a rebinding gets back)."""
    try:
        value = answer(given)
    except Exception as error:  # noqa: BLE001 - the learner's function: one line, whatever it is
        _raised(error, forward_only)
    namespace = getattr(answer, "__globals__", None) or {}
    for name, (frame, fingerprint) in frames.items():
        if namespace.get(name) is not frame:
            namespace[name] = frame
            fail(
                "`{call}` assigns a new value to the notebook's `{name}` (a `global` statement): "
                "every cell after it would read that; compute on the DataFrame the function is "
                "given (the check put `{name}` back)",
                call=BACKWARD_CALL,
                name=name,
            )
        if _fingerprint(frame) != fingerprint:
            fail(
                "`{call}` changed the notebook's `{name}` in place: every cell after it reads the "
                "changed DataFrame; compute on the DataFrame the function is given, and run the "
                "cell that made `{name}` again (section '{section}')",
                call=BACKWARD_CALL,
                name=name,
                section=profile_section(),
            )
    added = [str(c) for c in given.columns if c not in original.columns]
    if added:
        fail(
            "`{call}` added {columns} to the DataFrame it was given: the notebook's cells read "
            "`timelines` after it, so compute without assigning to it (or on a copy)",
            call=BACKWARD_CALL,
            columns=all_of(f"`{c}`" for c in added),
        )
    if len(given) != len(original) or list(given.columns) != list(original.columns):
        fail(
            "`{call}` removed rows or columns from the DataFrame it was given (an `inplace=True` "
            "filter does): the notebook's cells read `timelines` after it, so select into a new "
            "DataFrame instead",
            call=BACKWARD_CALL,
        )
    if not given.equals(original):
        fail(
            "`{call}` changed the values or the order of the DataFrame it was given: the "
            "notebook's cells read `timelines` after it, so compute without changing it (or on a "
            "copy)",
            call=BACKWARD_CALL,
        )
    return calls.number(value, "backward_share", BACKWARD_CALL)


def _raised(error: BaseException, forward_only: bool) -> NoReturn:
    """Refuse in one line the answer that raised ``error``: with the learner's line it came from,
    when there is one (a decorator's error has none: functools.lru_cache's TypeError on a
    DataFrame), and naming the profile when it is the forward-only one."""
    line = learner_line(error)
    if line is not None:
        error = _("{error}, at {line}").format(error=error_text(error), line=where(line))
    else:
        error = error_text(error)
    if forward_only:
        fail(
            "on a profile of an evaluation step, the forward pass alone with no op under "
            "`gradients/`, `{call}` raised {error}: the function is to work on any profile",
            call=BACKWARD_CALL,
            error=error,
        )
    fail("your code raised {error}: fix it and run its cell again", error=error)


def _forward_profile(profile):
    """``profile``'s rows of the forward pass alone, as an evaluation step runs it: none of the
    backward pass, the update, the summaries or dropout; the backward pass's share there is 0."""
    names = profile["op_name"].astype(str)
    summaries = [name for name, *_ in SUMMARY_OPS]
    dropped = names.str.contains("gradients|Adam", case=False) | names.isin(summaries)
    dropped |= names.str.startswith("dropout/")
    return profile[~dropped].reset_index(drop=True)


def _on_forward_pass(answer, profile, frames) -> None:
    """Refuse in one line the answer that raises on the forward pass alone (a KeyError of a group
    that is not there), or gives it a share other than 0."""
    forward = _forward_profile(profile)
    value = _call_share(answer, forward.copy(), forward, frames, forward_only=True)
    if not abs(value) <= SHARE_CLOSE:
        fail(
            "on a profile of an evaluation step, the forward pass alone with no op under "
            "`gradients/`, `{call}` returned {value:.4f}, though no op there is in the backward "
            "pass",
            call=BACKWARD_CALL,
            value=value,
        )


@reporting_learner_errors
def backward_share(answer, timelines) -> None:
    """Notebook 11, exercise 1: ``answer(timelines)``, the share of a profile's op time (durations
    summed over all its traced steps) spent in the backward pass, the ops whose name starts with
    ``gradients/``; tried on three profiles of the check's own (``_profiles``), each given as a
    copy that must come back unchanged, then on an evaluation step's (``_forward_profile``), then on
    the notebook's ``timelines`` for the success line."""
    calls.function(answer, "backward_share", BACKWARD_CALL)
    profiles = _profiles()
    calls.bound(answer, "backward_share", BACKWARD_CALL, profiles[0])
    frames = _frames_of(answer)
    returned = [_call_share(answer, profile.copy(), profile, frames) for profile in profiles]
    variants = [_share_variants(profile) for profile in profiles]

    def gives(mistake) -> bool:
        return all(abs(value - v[mistake]) <= SHARE_CLOSE for value, v in zip(returned, variants))

    if not gives("right"):
        made = [mistake for mistake in SHARE_MISTAKES if gives(mistake)]
        if len(made) == 1:  # named only when no other mistake gives the same numbers
            raise CheckFailed(said(SHARE_MISTAKES[made[0]], call=BACKWARD_CALL))
        if all(abs(value - returned[0]) <= SHARE_CLOSE for value in returned):
            fail(
                "`{call}` returned the same number for every profile the check gave it, though "
                "their backward shares differ: compute it from the DataFrame the function is "
                "given, the backward ops' durations over all of its ops' durations",
                call=BACKWARD_CALL,
            )
        for digits in range(1, 5):
            if all(
                abs(value - round(v["right"], digits)) <= SHARE_CLOSE
                for value, v in zip(returned, variants)
            ):
                fail(
                    "`{call}` rounds the share to {digits} decimals: return it unrounded",
                    call=BACKWARD_CALL,
                    digits=digits,
                )
        value = next(
            r for r, v in zip(returned, variants) if not abs(r - v["right"]) <= SHARE_CLOSE
        )
        fail(
            "on a profile the check made up, `{call}` returned {value:.4f}: that is not the share "
            "of the ops' durations, summed over every traced step, spent in ops whose name "
            "starts with `gradients/` (section '{section}')",
            call=BACKWARD_CALL,
            value=value,
            section=profile_section(),
        )
    _on_forward_pass(answer, profiles[0], frames)
    _share_on(answer, timelines, frames)


def _share_on(answer, timelines, frames) -> None:
    """The success line, from the answer's run on the notebook's ``timelines`` (a copy)."""
    import pandas as pd

    from ..profiling import COLUMNS

    if not isinstance(timelines, pd.DataFrame) or not set(COLUMNS) <= set(timelines.columns):
        fail(
            "the `timelines` the check cell passes is a {kind} without the columns "
            "`profiling.read_timelines` gives: a cell replaced it after section '{section}' "
            "made it; run that section's cells again",
            kind=type(timelines).__name__,
            section=profile_section(),
        )
    names = timelines["op_name"].astype(str)
    backward = names.str.startswith("gradients/")
    if backward.all() or not backward.any():
        fail(
            "the `timelines` the check cell passes holds {inside} op runs under `gradients/` and "
            "{outside} others, though a training step runs both: a cell changed it after "
            "section '{section}' made it; run that section's cells again",
            inside=int(backward.sum()),
            outside=int((~backward).sum()),
            section=profile_section(),
        )
    value = _call_share(answer, timelines.copy(), timelines, frames)
    expected = _share_variants(timelines)["right"]
    if not abs(value - expected) <= SHARE_CLOSE:
        fail(
            "`{call}` is right on the check's profiles but returned {value:.4f} on the "
            "notebook's `timelines`, which is not its backward pass's share",
            call=BACKWARD_CALL,
            value=value,
        )
    update = _share_variants(timelines)["update"]
    correct(
        _(
            "the backward pass takes {value:.1%} of the ops' time, the optimizer's update "
            "{update:.1%}, and the forward pass with the rest {rest:.1%}"
        ).format(value=value, update=update, rest=1 - expected - update)
    )


HIDDEN_UNITS = 256
# the exercise's network, Flatten -> Dense(256, relu) -> Dense(10): its weights' shapes
NETWORK_SHAPES = [(784, HIDDEN_UNITS), (HIDDEN_UNITS,), (HIDDEN_UNITS, 10), (10,)]
# logits within 5 % of those computed in float64 from the answer's own weights, on each half of
# the random images: bfloat16's 8 bits give about 0.3 %; softmax, sigmoid or no ReLU are 50 % and
# more away, a ReLU6 on the scaled half too
VALUES_TOLERANCE = 0.05
IMAGES = 37  # the random images' batch size


def _graph_of(answer):
    """Build ``answer`` on a float32 batch of images in a graph of its own, watching for
    set_global_policy; return (graph, the images placeholder, logits, the global policy before,
    the global policy after, whether set_global_policy was called, the Keras layers that made
    weights).

    Every call of Keras's set_global_policy is seen, however the learner reached it (the name
    imported before the check, a private ``policy_scope``): the check watches the function's
    code being entered (``sys.setprofile``), and puts a policy object of its own in force, which
    any set_global_policy replaces, even one that sets the same policy back. The layers that
    made weights are seen the same way, entering their ``add_weight``."""
    import sys

    import tensorflow as tf

    policies = tf.keras.mixed_precision
    before = policies.global_policy()
    code = policies.set_global_policy.__code__
    policies.set_global_policy(policies.Policy(before.name))
    sentinel = policies.global_policy()
    calls, layers = [], []

    def watch(frame, event, _arg):
        if event == "call" and frame.f_code is code:
            calls.append(frame.f_locals.get("policy"))
        elif event == "call" and frame.f_code.co_name == "add_weight":  # Keras's, v1's in a graph
            layers.append(frame.f_locals.get("self"))

    graph = tf.Graph()
    profiler = sys.getprofile()
    with graph.as_default():
        images = tf.compat.v1.placeholder(tf.float32, [None, 28, 28], name="images")
        sys.setprofile(watch)
        try:
            logits = answer(images)
        except Exception as error:  # noqa: BLE001 - the learner's: one line, whatever it is
            # layers made eagerly in the kernel ("invalid state") or in another graph
            if isinstance(error, ValueError) and any(
                t in str(error) for t in ("invalid state", "must be from the same graph")
            ):
                fail(
                    "`mixed_logits` uses layers made outside it: the check builds it twice, each "
                    "time in a new graph, as an Estimator calls a model_fn in a new graph for "
                    "each of train, evaluate and predict, so make its layers inside the function"
                )
            _raised(error, forward_only=False)
        finally:
            sys.setprofile(profiler)
            after = policies.global_policy()
            policies.set_global_policy(before)
    touched = bool(calls) or after is not sentinel
    return graph, images, logits, before.name, after.name, touched, layers


def _takes_one_argument(answer) -> str | None:
    """None when ``answer(images)`` can be called; else its parameters, as written."""
    import inspect

    try:
        signature = inspect.signature(answer)
    except (TypeError, ValueError):  # a builtin: let the call say what is wrong
        return None
    try:
        signature.bind(object())
    except TypeError:
        return ", ".join(signature.parameters)
    return None


def _judge_layers(graph, logits, layers) -> None:
    """The layers' matrix products, weights and logits: bfloat16 where the exercise computes,
    float32 where it stores and returns, the exercise's shapes, weights a model_fn trains
    (``layers``: the Keras layers that made them), a batch of any size."""
    import tensorflow as tf

    matmuls = [op for op in graph.get_operations() if op.type in ("MatMul", "BatchMatMulV2")]
    dtypes = {op.get_attr("T").name for op in matmuls}
    variables = graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
    stored = sorted({variable.dtype.base_dtype.name for variable in variables})
    if not matmuls:
        fail(
            "the function builds no dense layer (no matrix product in its graph): build the "
            "network the exercise describes"
        )
    if "float16" in dtypes:
        fail(
            "a layer computes in float16, the GPUs' half precision: a CPU speeds up "
            "bfloat16, with float32's range (the `mixed_bfloat16` policy)"
        )
    if "bfloat16" in stored:
        fail(
            "weights are stored in bfloat16, as the policy `bfloat16` (not `mixed_`) stores "
            "them: small updates are lost there; `mixed_bfloat16` stores them in float32 and "
            "computes in bfloat16"
        )
    if stored and stored != ["float32"]:
        fail(
            "the weights are stored as {dtypes}: the exercise asks for float32 weights, which "
            "the `mixed_bfloat16` policy keeps while it computes in bfloat16",
            dtypes=listed(stored),
        )
    if "bfloat16" not in dtypes:
        fail(
            "no matrix product computes in bfloat16 (they compute in {dtypes}): a layer "
            "computes in the policy it has when it is made, from its `dtype` argument or else "
            "the global policy (section '{section}')",
            dtypes=listed(sorted(dtypes)),
            section=mixed_section(),
        )
    shapes = [tuple(variable.shape.as_list()) for variable in variables]
    if sorted(shapes) != sorted(NETWORK_SHAPES):
        fail(
            "the network's weights have the shapes {shapes}: the exercise's network is Flatten "
            "→ Dense(256) → Dense(10), two layers whose weights have the shapes {expected}",
            shapes=", ".join(map(str, shapes)),
            expected=", ".join(map(str, NETWORK_SHAPES)),
        )
    _judge_trainable(graph, variables, layers)
    hidden = [op for op in matmuls if op.outputs[0].shape[-1] == HIDDEN_UNITS]
    if any(op.get_attr("T") != tf.bfloat16 for op in hidden):
        fail(
            "the hidden layer computes in float32 and only the last one in bfloat16: the "
            "256-unit layer does nearly all the arithmetic, so it is the one the exercise asks "
            "to compute in bfloat16"
        )
    if logits.dtype == tf.bfloat16:
        fail(
            "the logits are {dtype}: the softmax and the loss need them in float32, where "
            "bfloat16's 8 bits of precision would round confident probabilities to 1",
            dtype=logits.dtype.name,
        )
    if logits.dtype != tf.float32:
        fail(
            "the logits are {dtype}: return them in float32, as the exercise asks, the type "
            "in which the course's `model_fn` computes the softmax, the loss and the metrics",
            dtype=logits.dtype.name,
        )
    if logits.shape.rank != 2 or logits.shape[-1] != 10:
        fail(
            "the logits have shape {shape}: they should be [batch, 10], one score per class",
            shape=logits.shape,
        )
    if logits.shape[0] is not None:
        fail(
            "`mixed_logits` fixes the batch size: on images of shape `(None, 28, 28)` its logits "
            "have shape {shape}, but an Estimator feeds batches of any size (an epoch's last "
            "batch may be smaller)",
            shape=logits.shape,
        )


def _judge_trainable(graph, variables, layers) -> None:
    """Refuse weights a model_fn's optimizer would not be asked to train: a variable outside the
    graph's trainable ones, or one among a Keras layer's non-trainable weights (a layer, or its
    model, made with ``trainable=False``)."""
    import tensorflow as tf

    trainable = {v.name for v in graph.get_collection(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES)}
    layers = [layer for layer in layers if isinstance(layer, tf.keras.layers.Layer)]
    trainable -= {w.name for layer in layers for w in layer.non_trainable_weights}
    frozen = [tuple(v.shape.as_list()) for v in variables if v.name not in trainable]
    if frozen:
        fail(
            "the weights of shapes {shapes} are not trainable (`trainable=False` on a layer, "
            "its model or a variable): the network is a `model_fn`'s, which trains every one "
            "of its layers",
            shapes=", ".join(map(str, frozen)),
        )


def _judge_values(graph, images, logits) -> None:
    """Run the network on random images the notebook never showed, a batch of a size no cell uses
    in two halves: pixels between 0 and 1, and pixels scaled up to 40 (so that hidden units pass
    6: a ReLU6 differs); compare its logits, half by half, with Flatten -> Dense(256, relu) ->
    Dense(10) computed from its own weights in float64."""
    import tensorflow as tf

    variables = graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
    rng = np.random.default_rng(11)
    scales = np.r_[np.ones(IMAGES // 2), np.geomspace(10, 40, IMAGES - IMAGES // 2)]
    batch = (scales[:, None, None] * rng.random((IMAGES, 28, 28))).astype(np.float32)
    with tf.compat.v1.Session(graph=graph) as session:
        session.run(tf.compat.v1.initializers.variables(variables))
        try:
            got, weights = session.run([logits, variables], {images: batch})
        except tf.errors.OpError as error:  # a TensorFlow error, maybe Grappler's, in one line
            _raised(error, forward_only=False)
    by_shape = {tuple(w.shape): w.astype(np.float64) for w in weights}
    kernel, bias, out_kernel, out_bias = (by_shape[shape] for shape in NETWORK_SHAPES)
    hidden = batch.reshape(len(batch), -1) @ kernel + bias
    readings = {  # what the logits are when they are not right: the likely mistakes first
        "right": np.maximum(hidden, 0) @ out_kernel + out_bias,
        "softmax": _softmax(np.maximum(hidden, 0) @ out_kernel + out_bias),
        "linear": hidden @ out_kernel + out_bias,
        "sigmoid": 1 / (1 + np.exp(-hidden)) @ out_kernel + out_bias,
        "relu6": np.clip(hidden, 0, 6) @ out_kernel + out_bias,
    }
    halves = (scales == 1, scales > 1)
    near = {
        k: max(np.linalg.norm(got[h] - r[h]) / np.linalg.norm(r[h]) for h in halves)
        for k, r in readings.items()
    }
    if near["right"] <= VALUES_TOLERANCE:
        return
    if near["softmax"] <= VALUES_TOLERANCE:
        fail(
            "`mixed_logits` returns probabilities (a softmax on the last layer), not logits: the "
            "loss applies the softmax itself, from the raw scores"
        )
    if near["linear"] <= VALUES_TOLERANCE:
        fail(
            "the hidden layer has no ReLU: without an activation two dense layers are one linear "
            "map; give the 256-unit layer the exercise's activation"
        )
    if near["sigmoid"] <= VALUES_TOLERANCE:
        fail("the hidden layer's activation is a sigmoid: the exercise's network uses ReLU")
    if near["relu6"] <= VALUES_TOLERANCE:
        fail(
            "the hidden layer's activation caps its outputs at 6 (ReLU6): on images whose "
            "hidden units pass 6 its logits differ from those of the exercise's ReLU, which has "
            "no cap"
        )
    fail(
        "on random images the logits are {off:.0%} away from those of Flatten → Dense(256, ReLU) "
        "→ Dense(10) computed with the function's own weights: build that network and nothing "
        "more, and return the last dense layer's output",
        off=near["right"],
    )


def _softmax(x):
    shifted = np.exp(x - x.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


@reporting_learner_errors
def mixed_logits(answer) -> None:
    """Notebook 11, exercise 2: ``mixed_logits(images)`` builds Flatten -> Dense(256, relu) ->
    Dense(10) whose hidden layer computes in bfloat16 with float32 weights (the layers' own
    ``mixed_bfloat16`` policy, never the global one), trainable, and returns float32 logits
    [batch, 10] for a batch of any size; the check builds it in two new graphs, watching
    set_global_policy, and runs the second on random images."""
    require_answer(answer, "mixed_logits")
    import tensorflow as tf

    if not callable(answer):
        fail(
            "`mixed_logits` should be a function of a batch of images, not a {kind}",
            kind=type(answer).__name__,
        )
    if (parameters := _takes_one_argument(answer)) is not None:
        fail(
            "`mixed_logits` should take one argument, the batch of images, as the check calls "
            "it: yours takes ({parameters})",
            parameters=parameters,
        )
    found = tf.keras.mixed_precision.global_policy().name
    if found != "float32":
        fail(
            "the global policy is {found!r} before the check calls `mixed_logits`: a "
            "set_global_policy run earlier in this kernel left it so, and every model built "
            "from now on takes it; undo it once with "
            "`tf.keras.mixed_precision.set_global_policy('float32')`, remove that call, and "
            "let `mixed_logits` give its layers their policy (section '{section}')",
            found=found,
            section=mixed_section(),
        )
    for _build in ("train", "evaluate"):  # as an Estimator calls a model_fn: a new graph each
        graph, images, logits, after = _built(answer)
    _judge_values(graph, images, logits)
    correct(
        "the hidden layer computes in bfloat16 with float32 weights, the logits are float32 "
        "{shape} and, on random images, those of Flatten → Dense(256, ReLU) → Dense(10); the "
        "global policy stayed {after!r}",
        shape=logits.shape,
        after=after,
    )


def _built(answer) -> tuple:
    """``answer`` built in a graph of its own and judged but for its values: (the graph, the
    images placeholder, the logits, the global policy after)."""
    import tensorflow as tf

    graph, images, logits, before, after, touched, layers = _graph_of(answer)
    if not isinstance(logits, tf.Tensor):
        fail(
            "`mixed_logits(images)` returned a {kind}: return the logits tensor",
            kind=type(logits).__name__,
        )
    if after != before:
        fail(
            "`mixed_logits` changes the global policy from {before!r} to {after!r} and leaves "
            "it so: every layer built later (the next model_fn's too) takes it; the exercise "
            "rules set_global_policy out of `mixed_logits`, so give each layer its policy "
            "instead (section '{section}')",
            before=before,
            after=after,
            section=mixed_section(),
        )
    if touched:
        fail(
            "`mixed_logits` calls set_global_policy, which the exercise rules out of it even "
            "when the policy is put back: the process builds other models, and one built "
            "meanwhile (in another thread) would take the policy set; give each layer its "
            "policy instead (section '{section}')",
            section=mixed_section(),
        )
    _judge_layers(graph, logits, layers)
    return graph, images, logits, after
