"""Exercise checks of notebook 11 (training speed)."""

from __future__ import annotations

import numbers

import numpy as np

from ..problems import CheckFailed
from .common import correct, reporting_learner_errors, require_answer

__all__ = ["backward_share", "mixed_logits"]

SHARE_TOLERANCE = 5e-3  # exercise 1: the pooled share, or the steps' shares averaged
PROFILE_SECTION = "section 'Where a step's time goes'"
MIXED_SECTION = "section 'The Keras mixed_bfloat16 policy inside a model_fn'"


def _share(timelines, rows) -> float:
    total = timelines["duration_ms"].sum()
    return float(timelines.loc[rows, "duration_ms"].sum() / total) if total > 0 else float("nan")


def _share_readings(timelines) -> dict:
    """What a learner's number may be instead of the backward pass's share, each with the sentence
    that names the mistake."""
    names, types = timelines["op_name"].astype(str), timelines["op_type"].astype(str)
    backward = names.str.startswith("gradients/")
    update = names.str.startswith("Adam")
    steps = sorted(timelines["step"].unique())
    per_step = [
        _share(timelines[timelines["step"] == step], backward[timelines["step"] == step])
        for step in steps
    ]
    from ..profiling import busy_ms

    busy = sum(busy_ms(timelines[timelines["step"] == step]) for step in steps)
    readings = {
        "the share of the ops' number, not of their time: weigh each op by its duration": float(
            backward.mean()
        ),
        ("the share of everything but the backward pass: take the ops under `gradients/`"): 1
        - _share(timelines, backward),
        (
            "the share of the backward pass and the optimizer's update together: the `Adam…` ops "
            "apply the gradients, they do not compute them"
        ): _share(timelines, backward | update),
        (
            "the share of the convolutions' gradients alone: the backward pass also runs the "
            "gradients of the dense layers, of ReLU, of pooling and of the loss"
        ): _share(timelines, types.str.contains("Backprop")),
        (
            "a share that selects ops by their type (`…Grad`): the backward pass also runs ops of "
            "other types (`Conv2DBackprop…`, `MatMul`), which only the name scope `gradients/` "
            "tells apart"
        ): _share(timelines, types.str.contains("Grad")),
        (
            "the backward pass's time over the steps' busy time: ops that run side by side on two "
            "threads count twice in their durations, so divide by the sum of all durations"
        ): float(timelines.loc[backward, "duration_ms"].sum() / busy) if busy else float("nan"),
    }
    if len(steps) > 1:
        readings[
            "the share in the first traced step alone: pool the durations of every traced step"
        ] = per_step[0]
    return readings


@reporting_learner_errors
def backward_share(answer, timelines) -> None:
    """Notebook 11, exercise 1: the share of the traced steps' op time (durations summed) spent in
    the backward pass, the ops under the name scope ``gradients/``."""
    require_answer(answer, "backward_share")
    if hasattr(answer, "shape") and np.size(answer) != 1:
        raise CheckFailed(
            "`backward_share` holds {size} values: it should be one number, the backward pass's "
            "share of all the traced steps together".format(size=np.size(answer))
        )
    if hasattr(answer, "shape"):
        answer = np.asarray(answer).reshape(())[()]
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        raise CheckFailed(
            "`backward_share` should be a number between 0 and 1, not a {kind}".format(
                kind=type(answer).__name__
            )
        )
    value = float(answer)
    expected = _share(timelines, timelines["op_name"].astype(str).str.startswith("gradients/"))
    if abs(value - expected) <= SHARE_TOLERANCE:
        names = timelines["op_name"].astype(str)
        update = _share(timelines, names.str.startswith("Adam"))
        return correct(
            f"the backward pass takes {value:.1%} of the ops' time, the optimizer's update "
            f"{update:.1%}, and the forward pass with the rest {1 - expected - update:.1%}"
        )
    if 1 < value <= 100 and abs(value / 100 - expected) <= SHARE_TOLERANCE:
        raise CheckFailed(
            f"{value:.2f} is a percentage: give the share as a fraction between 0 and 1"
        )
    if not 0 <= value <= 1:
        raise CheckFailed(
            f"{value:.4f} is outside 0 to 1: a share of the ops' time is a fraction of their "
            "summed durations"
        )
    for mistake, reading in _share_readings(timelines).items():
        if np.isfinite(reading) and abs(value - reading) <= SHARE_TOLERANCE:
            raise CheckFailed(f"{value:.4f} is {mistake}")
    raise CheckFailed(
        f"{value:.4f} is not the backward pass's share: sum the durations of the ops whose name "
        f"starts with `gradients/`, over every traced step, and divide by the sum of all the ops' "
        f"durations ({PROFILE_SECTION})"
    )


def _graph_of(answer):
    """Build ``answer`` on a float32 batch of images in a graph of its own; return (graph,
    logits, the global policy before, the global policy after)."""
    import tensorflow as tf

    before = tf.keras.mixed_precision.global_policy()
    graph = tf.Graph()
    with graph.as_default():
        images = tf.compat.v1.placeholder(tf.float32, [None, 28, 28], name="images")
        try:
            logits = answer(images)
        finally:
            after = tf.keras.mixed_precision.global_policy()
            tf.keras.mixed_precision.set_global_policy(before)
    return graph, logits, before.name, after.name


@reporting_learner_errors
def mixed_logits(answer) -> None:
    """Notebook 11, exercise 2: ``mixed_logits(images)`` builds a dense network whose layers compute
    in bfloat16 (the ``mixed_bfloat16`` policy), returns float32 logits [batch, 10] and leaves the
    global policy as it found it."""
    require_answer(answer, "mixed_logits")
    import tensorflow as tf

    if not callable(answer):
        raise CheckFailed(
            "`mixed_logits` should be a function of a batch of images, not a {kind}".format(
                kind=type(answer).__name__
            )
        )
    graph, logits, before, after = _graph_of(answer)
    if not isinstance(logits, tf.Tensor):
        raise CheckFailed(
            "`mixed_logits(images)` returned a {kind}: return the logits tensor".format(
                kind=type(logits).__name__
            )
        )
    if after != before:
        raise CheckFailed(
            f"after `mixed_logits` the global policy is still {after!r}: every layer built later "
            f"(the next model_fn's too) would take it, so set it back to the one you found "
            f"({MIXED_SECTION})"
        )
    matmuls = [op for op in graph.get_operations() if op.type in ("MatMul", "BatchMatMulV2")]
    dtypes = {op.get_attr("T").name for op in matmuls}
    variables = graph.get_collection(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES)
    stored = sorted({variable.dtype.base_dtype.name for variable in variables})
    if not matmuls:
        raise CheckFailed(
            "the function builds no dense layer (no matrix product in its graph): build the "
            "network the exercise describes"
        )
    if "float16" in dtypes:
        raise CheckFailed(
            "the layers compute in float16, the GPUs' half precision: a CPU speeds up bfloat16, "
            "with float32's range (the `mixed_bfloat16` policy)"
        )
    if stored and stored != ["float32"]:
        raise CheckFailed(
            f"the weights are stored as {', '.join(stored)}: the policy `bfloat16` keeps them in "
            "bfloat16, where small updates are lost; `mixed_bfloat16` stores them in float32 and "
            "computes in bfloat16"
        )
    if "bfloat16" not in dtypes:
        raise CheckFailed(
            "every matrix product computes in float32: the policy must be set before the layers "
            f"are created, because a layer takes the policy in force when it is made "
            f"({MIXED_SECTION})"
        )
    if logits.dtype != tf.float32:
        raise CheckFailed(
            f"the logits are {logits.dtype.name}: the softmax and the loss need them in float32, "
            "where bfloat16's 8 bits of precision would round confident probabilities to 1"
        )
    if logits.shape.rank != 2 or logits.shape[-1] != 10:
        raise CheckFailed(
            f"the logits have shape {logits.shape}: they should be [batch, 10], one score per class"
        )
    in_bf16 = sum(op.get_attr("T") == tf.bfloat16 for op in matmuls)
    correct(
        f"{in_bf16} of {len(matmuls)} matrix products compute in bfloat16, the weights are "
        f"float32, the logits float32 {logits.shape}, and the global policy is back to {after!r}"
    )
