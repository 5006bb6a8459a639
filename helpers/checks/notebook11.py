"""Exercise checks of notebook 11 (training speed)."""

from __future__ import annotations

import numbers

import numpy as np

from ..language import _, listed
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
    # a mistake is named only when the number is that reading and no other: on some profiles two
    # readings fall within the tolerance of each other, and naming one could give a wrong reason
    mistakes = [
        mistake
        for reading, mistake in _share_readings(timelines)
        if np.isfinite(reading) and abs(value - reading) <= SHARE_TOLERANCE
    ]
    if len(mistakes) == 1:
        raise CheckFailed(mistakes[0].format(value=value))
    fail(
        "{value:.4f} is not the backward pass's share: sum the durations of the ops whose name "
        "starts with `gradients/`, over every traced step, and divide by the sum of all the "
        "ops' durations (section '{section}')",
        value=value,
        section=profile_section(),
    )


HIDDEN_UNITS = 256
# the exercise's network, Flatten -> Dense(256, relu) -> Dense(10): its weights' shapes
NETWORK_SHAPES = [(784, HIDDEN_UNITS), (HIDDEN_UNITS,), (HIDDEN_UNITS, 10), (10,)]
# logits within 5 % of those computed in float32 from the answer's own weights: bfloat16's 8 bits
# give about 0.3 % on random images; softmax, sigmoid or no ReLU are 50 % and more away
VALUES_TOLERANCE = 0.05


def _graph_of(answer):
    """Build ``answer`` on a float32 batch of images in a graph of its own, watching for
    set_global_policy; return (graph, the images placeholder, logits, the global policy before,
    the global policy after, whether set_global_policy was called)."""
    from unittest import mock

    import tensorflow as tf

    policies = tf.keras.mixed_precision
    before = policies.global_policy()
    sentinel = policies.Policy(
        before.name
    )  # a set_global_policy, even setting it back, replaces it
    policies.set_global_policy(sentinel)
    calls = []
    real = policies.set_global_policy

    def watched(policy):
        calls.append(policy)
        return real(policy)

    graph = tf.Graph()
    with graph.as_default(), mock.patch.object(policies, "set_global_policy", watched):
        images = tf.compat.v1.placeholder(tf.float32, [None, 28, 28], name="images")
        try:
            logits = answer(images)
        except ValueError as error:
            # layers made eagerly in the kernel ("invalid state") or in another graph
            if not any(t in str(error) for t in ("invalid state", "must be from the same graph")):
                raise
            fail(
                "`mixed_logits` uses layers made outside it: the check builds it in a graph of "
                "its own, as Estimator calls a model_fn in a new graph each time, so make its "
                "layers inside the function"
            )
        finally:
            after = policies.global_policy()
            real(before)
    touched = bool(calls) or after is not sentinel
    return graph, images, logits, before.name, after.name, touched


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


def _judge_layers(graph, logits) -> None:
    """The layers' matrix products, weights and logits: bfloat16 where the exercise computes,
    float32 where it stores and returns, the exercise's shapes."""
    import tensorflow as tf

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
            dtypes=listed(stored),
        )
    if "bfloat16" not in dtypes:
        fail(
            "every matrix product computes in float32: the policy must be set before the "
            "layers are created, because a layer takes the policy in force when it is made "
            "(section '{section}')",
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
    hidden = [op for op in matmuls if op.outputs[0].shape[-1] == HIDDEN_UNITS]
    if any(op.get_attr("T") != tf.bfloat16 for op in hidden):
        fail(
            "the hidden layer computes in float32 and only the last one in bfloat16: the "
            "256-unit layer does nearly all the arithmetic, so it is the one the exercise asks "
            "to compute in bfloat16"
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


def _judge_values(graph, images, logits) -> None:
    """Run the network on random images the notebook never showed and compare its logits with
    Flatten -> Dense(256, relu) -> Dense(10) computed from its own weights in float32."""
    import tensorflow as tf

    variables = graph.get_collection(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES)
    batch = np.random.default_rng(11).random((32, 28, 28), dtype=np.float32)
    with tf.compat.v1.Session(graph=graph) as session:
        session.run(tf.compat.v1.initializers.variables(variables))
        got, weights = session.run([logits, variables], {images: batch})
    by_shape = {tuple(w.shape): w.astype(np.float64) for w in weights}
    kernel, bias, out_kernel, out_bias = (by_shape[shape] for shape in NETWORK_SHAPES)
    hidden = batch.reshape(len(batch), -1) @ kernel + bias
    readings = {  # what the logits are when they are not right: the likely mistakes first
        "right": np.maximum(hidden, 0) @ out_kernel + out_bias,
        "softmax": _softmax(np.maximum(hidden, 0) @ out_kernel + out_bias),
        "linear": hidden @ out_kernel + out_bias,
        "sigmoid": 1 / (1 + np.exp(-hidden)) @ out_kernel + out_bias,
    }
    near = {k: np.linalg.norm(got - r) / np.linalg.norm(r) for k, r in readings.items()}
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
    fail(
        "on random images the logits are {off:.0%} away from those of Flatten → Dense(256, ReLU) "
        "→ Dense(10) with the function's own weights: return the last dense layer's output, "
        "unchanged",
        off=near["right"],
    )


def _softmax(x):
    shifted = np.exp(x - x.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


@reporting_learner_errors
def mixed_logits(answer) -> None:
    """Notebook 11, exercise 2: ``mixed_logits(images)`` builds Flatten -> Dense(256, relu) ->
    Dense(10) whose hidden layer computes in bfloat16 with float32 weights (the layers' own
    ``mixed_bfloat16`` policy, never the global one), and returns float32 logits [batch, 10]; the
    check watches set_global_policy and runs the network on random images."""
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
            "the global policy is {found!r} before the check even runs: a set_global_policy "
            "in your cell changed it for every model the kernel builds from now on, which the "
            "exercise rules out; set it back to 'float32' and give the layers their policy "
            "instead (section '{section}')",
            found=found,
            section=mixed_section(),
        )
    graph, images, logits, before, after, touched = _graph_of(answer)
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
    if touched:
        fail(
            "`mixed_logits` calls set_global_policy, which the exercise rules out: the process "
            "builds other models, and one built meanwhile (another thread's) would take the "
            "policy; give each layer its policy instead (section '{section}')",
            section=mixed_section(),
        )
    _judge_layers(graph, logits)
    _judge_values(graph, images, logits)
    correct(
        "the hidden layer computes in bfloat16 with float32 weights, the logits are float32 "
        "{shape} and, on random images, those of Flatten → Dense(256, ReLU) → Dense(10); the "
        "global policy stayed {after!r}",
        shape=logits.shape,
        after=after,
    )
