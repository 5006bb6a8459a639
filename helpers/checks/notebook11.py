"""Exercise checks of notebook 11 (training speed)."""

from __future__ import annotations

import numbers

import numpy as np

from ..language import _
from ..problems import CheckFailed
from .common import correct, fail, reporting_learner_errors, require_answer

__all__ = ["backward_share", "mixed_logits"]

SHARE_TOLERANCE = 5e-3  # exercise 1: the pooled share, or the steps' shares averaged


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


def _share(timelines, rows) -> float:
    total = timelines["duration_ms"].sum()
    return float(timelines.loc[rows, "duration_ms"].sum() / total) if total > 0 else float("nan")


def _share_readings(timelines) -> list:
    """What a learner's number may be instead of the backward pass's share, each as (that value,
    the whole sentence that names the mistake: a template of the learner's ``{value}``)."""
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
    readings = [
        (
            float(backward.mean()),
            _(
                "{value:.4f} is the share of the ops' number, not of their time: weigh each op "
                "by its duration"
            ),
        ),
        (
            1 - _share(timelines, backward),
            _(
                "{value:.4f} is the share of everything but the backward pass: take the ops "
                "under `gradients/`"
            ),
        ),
        (
            _share(timelines, backward | update),
            _(
                "{value:.4f} is the share of the backward pass and the optimizer's update "
                "together: the `Adam…` ops apply the gradients, they do not compute them"
            ),
        ),
        (
            _share(timelines, types.str.contains("Backprop")),
            _(
                "{value:.4f} is the share of the convolutions' gradients alone: the backward pass "
                "also runs the gradients of the dense layers, of ReLU, of pooling and of the loss"
            ),
        ),
        (
            _share(timelines, types.str.contains("Grad")),
            _(
                "{value:.4f} is a share that selects ops by their type (`…Grad`): the backward "
                "pass also runs ops of other types (`Conv2DBackprop…`, `MatMul`), which only the "
                "name scope `gradients/` tells apart"
            ),
        ),
        (
            float(timelines.loc[backward, "duration_ms"].sum() / busy) if busy else float("nan"),
            _(
                "{value:.4f} is the backward pass's time over the steps' busy time: ops that run "
                "side by side on two threads count twice in their durations, so divide by the sum "
                "of all durations"
            ),
        ),
    ]
    if len(steps) > 1:
        readings.append(
            (
                per_step[0],
                _(
                    "{value:.4f} is the share in the first traced step alone: pool the durations "
                    "of every traced step"
                ),
            )
        )
    return readings


@reporting_learner_errors
def backward_share(answer, timelines) -> None:
    """Notebook 11, exercise 1: the share of the traced steps' op time (durations summed) spent in
    the backward pass, the ops under the name scope ``gradients/``."""
    require_answer(answer, "backward_share")
    if hasattr(answer, "shape") and np.size(answer) != 1:
        fail(
            "`backward_share` holds {size} values: it should be one number, the backward "
            "pass's share of all the traced steps together",
            size=np.size(answer),
        )
    if hasattr(answer, "shape"):
        answer = np.asarray(answer).reshape(())[()]
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        fail(
            "`backward_share` should be a number between 0 and 1, not a {kind}",
            kind=type(answer).__name__,
        )
    value = float(answer)
    expected = _share(timelines, timelines["op_name"].astype(str).str.startswith("gradients/"))
    if abs(value - expected) <= SHARE_TOLERANCE:
        names = timelines["op_name"].astype(str)
        update = _share(timelines, names.str.startswith("Adam"))
        return correct(
            _(
                "the backward pass takes {value:.1%} of the ops' time, the optimizer's update "
                "{update:.1%}, and the forward pass with the rest {rest:.1%}"
            ).format(value=value, update=update, rest=1 - expected - update)
        )
    if 1 < value <= 100 and abs(value / 100 - expected) <= SHARE_TOLERANCE:
        fail(
            "{value:.2f} is a percentage: give the share as a fraction between 0 and 1", value=value
        )
    if not 0 <= value <= 1:
        fail(
            "{value:.4f} is outside 0 to 1: a share of the ops' time is a fraction of their "
            "summed durations",
            value=value,
        )
    for reading, mistake in _share_readings(timelines):
        if np.isfinite(reading) and abs(value - reading) <= SHARE_TOLERANCE:
            raise CheckFailed(mistake.format(value=value))
    fail(
        "{value:.4f} is not the backward pass's share: sum the durations of the ops whose name "
        "starts with `gradients/`, over every traced step, and divide by the sum of all the "
        "ops' durations (section '{section}')",
        value=value,
        section=profile_section(),
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
        fail(
            "`mixed_logits` should be a function of a batch of images, not a {kind}",
            kind=type(answer).__name__,
        )
    graph, logits, before, after = _graph_of(answer)
    if not isinstance(logits, tf.Tensor):
        fail(
            "`mixed_logits(images)` returned a {kind}: return the logits tensor",
            kind=type(logits).__name__,
        )
    if after != before:
        fail(
            "after `mixed_logits` the global policy is still {after!r}: every layer built "
            "later (the next model_fn's too) would take it, so set it back to the one you "
            "found (section '{section}')",
            after=after,
            section=mixed_section(),
        )
    matmuls = [op for op in graph.get_operations() if op.type in ("MatMul", "BatchMatMulV2")]
    dtypes = {op.get_attr("T").name for op in matmuls}
    variables = graph.get_collection(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES)
    stored = sorted({variable.dtype.base_dtype.name for variable in variables})
    if not matmuls:
        fail(
            "the function builds no dense layer (no matrix product in its graph): build the "
            "network the exercise describes"
        )
    if "float16" in dtypes:
        fail(
            "the layers compute in float16, the GPUs' half precision: a CPU speeds up "
            "bfloat16, with float32's range (the `mixed_bfloat16` policy)"
        )
    if stored and stored != ["float32"]:
        fail(
            "the weights are stored as {dtypes}: the policy `bfloat16` keeps them in "
            "bfloat16, where small updates are lost; `mixed_bfloat16` stores them in float32 "
            "and computes in bfloat16",
            dtypes=", ".join(stored),
        )
    if "bfloat16" not in dtypes:
        fail(
            "every matrix product computes in float32: the policy must be set before the "
            "layers are created, because a layer takes the policy in force when it is made "
            "(section '{section}')",
            section=mixed_section(),
        )
    if logits.dtype != tf.float32:
        fail(
            "the logits are {dtype}: the softmax and the loss need them in float32, where "
            "bfloat16's 8 bits of precision would round confident probabilities to 1",
            dtype=logits.dtype.name,
        )
    if logits.shape.rank != 2 or logits.shape[-1] != 10:
        fail(
            "the logits have shape {shape}: they should be [batch, 10], one score per class",
            shape=logits.shape,
        )
    in_bf16 = sum(op.get_attr("T") == tf.bfloat16 for op in matmuls)
    correct(
        "{count} of {total} matrix products compute in bfloat16, the weights are float32, the "
        "logits float32 {shape}, and the global policy is back to {after!r}",
        count=in_bf16,
        total=len(matmuls),
        shape=logits.shape,
        after=after,
    )
