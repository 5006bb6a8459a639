"""Exercise checks of notebook 05 (hooks): the names of unnamed tensors, a stopping hook trained on
a one-variable model, the steps a hook logs."""

from __future__ import annotations

import inspect
import tempfile

from ..language import _
from ..problems import CheckFailed
from .common import correct, fail, is_whole_number, reporting_learner_errors, require_answer
from .notebook04 import train_ranges

__all__ = ["output_layer_tensors", "stop_below_hook", "logged_steps"]

# Exercise 1: the tensors of the course CNN's output layer a hook should log, for each tag (any of
# the names).
EXERCISE_1_EXPECTED = {
    "logits": {"dense_1/BiasAdd:0"},
    "output bias": {"dense_1/bias/Read/ReadVariableOp:0", "dense_1/BiasAdd/ReadVariableOp:0"},
}
# Exercise 3: the train() calls, in order, on a fresh model_dir, and the hook's every_n_iter.
EXERCISE_3_CALLS = (("steps", 100), ("max_steps", 150))
EXERCISE_3_EVERY = 40


# the sections of notebook 05 the messages send the learner to (functions: the heading is looked
# up in the catalogue when a message is made)
def naming_section() -> str:
    """The heading of notebook 05's section on naming tensors, as the learner's edition of the
    notebook writes it."""
    return _("Naming tensors so a hook can find them")


def handle_section() -> str:
    """The heading of notebook 05's section on a variable's handle, as the learner's edition of the
    notebook writes it."""
    return _("A variable's name is not its value")


def _which_tensor(tag: str, tensor) -> str:
    """The message for ``tensor`` given for ``tag``: what is wrong with it, in words that do not
    name the right tensor."""
    op, shape = tensor.op, tuple(tensor.shape.as_list()) if tensor.shape.rank is not None else None
    found = dict(tag=tag, name=tensor.name, op=op.type, shape=shape, section=naming_section())
    if tag == "logits" and op.type == "Softmax":
        message = _(
            "output_tensors[{tag!r}]: '{name}' (a {op} op, shape {shape}) is the probabilities: "
            "the logits are what the softmax is applied to (section '{section}')"
        )
    elif tag == "logits" and shape == (None, 10) and op.type == "MatMul":
        message = _(
            "output_tensors[{tag!r}]: '{name}' (a {op} op, shape {shape}) comes before the output "
            "layer adds its bias (section '{section}')"
        )
    elif tag == "logits" and shape and len(shape) == 2 and shape[-1] != 10:
        message = _(
            "output_tensors[{tag!r}]: '{name}' (a {op} op, shape {shape}) belongs to the hidden "
            "layer: the logits are the output layer's, one per class (section '{section}')"
        )
    elif tag == "logits":
        message = _(
            "output_tensors[{tag!r}]: '{name}' (a {op} op, shape {shape}) is not the output "
            "layer's result, the ten numbers per example the softmax reads (section '{section}')"
        )
    elif shape and shape[0] is None:
        message = _(
            "output_tensors[{tag!r}]: '{name}' (a {op} op, shape {shape}) has one row per example: "
            "the bias is a variable, the same for every example (section '{section}')"
        )
    elif shape == (10,):
        message = _(
            "output_tensors[{tag!r}]: '{name}' (a {op} op, shape {shape}) has the bias's shape but "
            "is not its value as a hook reads it (section '{section}')"
        )
    elif shape and len(shape) == 2:
        message = _(
            "output_tensors[{tag!r}]: '{name}' (a {op} op, shape {shape}) is a kernel, a matrix of "
            "weights: the bias is the vector added after it (section '{section}')"
        )
    elif shape and shape[0] != 10:
        message = _(
            "output_tensors[{tag!r}]: '{name}' (a {op} op, shape {shape}) is the hidden layer's, "
            "not the output layer's (one per class) (section '{section}')"
        )
    else:
        message = _(
            "output_tensors[{tag!r}]: '{name}' (a {op} op, shape {shape}) is not the value of the "
            "output layer's bias (section '{section}')"
        )
    return message.format(**found)


@reporting_learner_errors
def output_layer_tensors(
    answer, model_fn, params: dict, expected: dict = EXERCISE_1_EXPECTED
) -> None:
    """Notebook 05, exercise 1: ``{tag: name}`` whose names resolve to the output layer's logits and
    bias value."""
    require_answer(answer, "output_tensors")
    from ..model_graph import build_graph
    from ..tensor_names import MissingTensor, VariableHandle, resolve_tensors

    if not isinstance(answer, dict):
        fail("`output_tensors` should be a dict {tag: tensor name}, like the one a hook is given")
    if set(answer) != set(expected):
        fail(
            "`output_tensors` should have the tags {tags}, not {given}: a hook logs each tag's "
            "tensor under that tag",
            tags=sorted(expected),
            given=sorted(map(str, answer)),
        )
    graph = build_graph(model_fn, params)
    for tag, name in answer.items():
        if not isinstance(name, str):
            fail(
                "output_tensors[{tag!r}] should be a tensor *name* (a string), as a hook is given",
                tag=tag,
            )
        try:
            tensor = resolve_tensors([name], graph)[name]
        except VariableHandle:
            raise CheckFailed(
                _(
                    "output_tensors[{tag!r}] = {name!r} names a variable: a hook would get its "
                    "handle (dtype resource), not its value (section '{section}')"
                ).format(tag=tag, name=name, section=handle_section())
            ) from None
        except MissingTensor:
            raise CheckFailed(
                _(
                    "output_tensors[{tag!r}] = {name!r} names no tensor in the CNN's graph, so a "
                    "hook would fail when training starts: tensor_table lists the names there "
                    "(section '{section}')"
                ).format(tag=tag, name=name, section=naming_section())
            ) from None
        if tensor.name not in expected[tag]:
            raise CheckFailed(_which_tensor(tag, tensor))
    # one "tag -> tensor" item per tag, in a list
    found = ", ".join(
        "{tag} -> {tensor}".format(
            tag=tag, tensor=resolve_tensors([answer[tag]], graph)[answer[tag]].name
        )
        for tag in expected
    )
    correct("both names are in the graph: {found}", found=found)


# exercise 2: the tiny model's loss 0.98**(2t) at global step t is first below it at t = 18
STOP_THRESHOLD = 0.5
TINY_LOSS = "tiny/loss"


def _watching(hook):
    """``hook``, inside a hook that refuses, before the session runs, a fetch that names an
    operation rather than a tensor: ``session.run`` gives None for an operation, and the learner's
    comparison would fail with a TypeError that does not say why."""
    import tensorflow as tf

    class Watched(tf.estimator.SessionRunHook):
        def begin(self):
            self.graph = tf.compat.v1.get_default_graph()
            hook.begin()

        def after_create_session(self, session, coord):
            hook.after_create_session(session, coord)

        def before_run(self, run_context):
            args = hook.before_run(run_context)
            fetches = tf.nest.flatten(args.fetches) if args is not None else []
            for fetch in fetches:
                if isinstance(fetch, tf.Operation):
                    fail(
                        "your hook's before_run asks for the operation {name!r} rather than "
                        "one of its tensors, so the value it gets back is None: fetch the op's "
                        "output, the tensor named '{name}:0' (section '{section}')",
                        name=fetch.name,
                        section=naming_section(),
                    )
                if isinstance(fetch, str) and ":" not in fetch and self._names_an_op(fetch):
                    fail(
                        "your hook's before_run asks for {name!r}, the name of an operation, "
                        "not of a tensor, so the value it gets back is None: a tensor's name "
                        "ends in the index of the op's output, '{name}:0' for its first, or "
                        "look the tensor up by the name as the notebook does (section "
                        "'{section}')",
                        name=fetch,
                        section=naming_section(),
                    )
            return args

        def after_run(self, run_context, run_values):
            hook.after_run(run_context, run_values)

        def end(self, session):
            hook.end(session)

        def _names_an_op(self, name):
            try:
                return isinstance(self.graph.as_graph_element(name), tf.Operation)
            except (KeyError, ValueError, TypeError):
                return False  # no such op: the session says so itself

    return Watched()


def _train_tiny(hook, **how_long) -> int:
    """Train a one-variable model (loss 0.98**(2t) at global step t) with the learner's hook; the
    last step."""
    import tensorflow as tf
    from ..logs import logger_level

    def tiny_model_fn(features, labels, mode):
        # gradient descent: w_t = 2 - 0.98**t
        weight = tf.compat.v1.get_variable("w", initializer=1.0)
        loss = tf.identity(tf.reduce_mean((features["x"] * weight - labels) ** 2), name=TINY_LOSS)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    config = tf.estimator.RunConfig(
        tf_random_seed=1, log_step_count_steps=None, save_summary_steps=None
    )
    with tempfile.TemporaryDirectory() as model_dir:
        estimator = tf.estimator.Estimator(tiny_model_fn, model_dir=model_dir, config=config)
        with logger_level("ERROR"):
            try:
                estimator.train(
                    lambda: tf.data.Dataset.from_tensors(({"x": [1.0]}, [2.0])).repeat(),
                    hooks=[_watching(hook)],
                    **how_long,
                )
            except CheckFailed:
                raise
            except Exception as error:  # the learner's hook failed: say so in one line
                raise CheckFailed(
                    _("training with your hook raised {kind}: {first_line}").format(
                        kind=type(error).__name__, first_line=_first_line(error)
                    )
                ) from None
        return int(estimator.get_variable_value("global_step"))


def _first_line(error: BaseException) -> str:
    """The first line of ``error``'s text, or nothing when it has none."""
    return (str(error).strip().splitlines() or [""])[0]


OTHER_THRESHOLD = 0.3  # one the notebook never uses: a hook must compare with the one it is given


def _judge_other_threshold(answer, losses, steps) -> None:
    """The hook stops at the right step for a threshold the notebook never showed too."""
    first_below = next(step for step, loss in enumerate(losses) if loss < OTHER_THRESHOLD)
    last = _train_tiny(answer(TINY_LOSS, OTHER_THRESHOLD), steps=steps)
    if last != first_below + 1:
        fail(
            "with the threshold {other}, below which the loss falls in the step that starts at "
            "global step {first_below}, training ended at global step {last}, not {expected}: "
            "the hook should compare with the threshold it is given, not a number of its own",
            other=OTHER_THRESHOLD,
            first_below=first_below,
            last=last,
            expected=first_below + 1,
        )


@reporting_learner_errors
def stop_below_hook(answer, threshold: float = STOP_THRESHOLD, steps: int = 100) -> None:
    """Notebook 05, exercise 2: a hook class ``StopBelow(tensor_name, threshold)`` that ends
    training after the first step whose value of the tensor is below ``threshold``."""
    require_answer(answer, "StopBelow")
    import tensorflow as tf

    if isinstance(answer, tf.estimator.SessionRunHook):
        fail(
            "`StopBelow` should be the class itself, not an instance of it (the check makes "
            "its own)"
        )
    if not inspect.isclass(answer) or not issubclass(answer, tf.estimator.SessionRunHook):
        fail("`StopBelow` should be a class that subclasses tf.estimator.SessionRunHook")
    try:
        hook = answer(TINY_LOSS, threshold)
    except TypeError as error:
        raise CheckFailed(
            _(
                "StopBelow({name!r}, {threshold}) failed ({error}): it should take the tensor's "
                "name and the threshold"
            ).format(name=TINY_LOSS, threshold=threshold, error=error)
        ) from None
    # a typo in the learner's __init__: one line, not a traceback through here
    except Exception as error:
        raise CheckFailed(
            _("StopBelow({name!r}, {threshold}) raised {kind}: {first_line}").format(
                name=TINY_LOSS,
                threshold=threshold,
                kind=type(error).__name__,
                first_line=_first_line(error),
            )
        ) from None
    # the loss each step computes, before its update
    losses = [0.98 ** (2 * step) for step in range(steps + 1)]
    first_below = next(step for step, loss in enumerate(losses) if loss < threshold)
    expected = first_below + 1  # that step's update is done when the hook asks to stop
    last = _train_tiny(hook, steps=steps)
    values = dict(
        threshold=threshold,
        first_below=first_below,
        expected=expected,
        last=last,
        steps=steps,
        first_loss=losses[0],
    )
    if last == expected:
        _judge_other_threshold(answer, losses, steps)
        correct(
            "on a model whose loss falls below {threshold} in the step that starts at global "
            "step {first_below}, training should end at global step {expected}, and it did: "
            "the run ended without an error after the first step below the threshold",
            **values,
        )
        return
    if last == steps:
        fail(
            "training ran all {steps} steps: on a model whose loss falls below {threshold} in "
            "the step that starts at global step {first_below}, training should end at global "
            "step {expected}; the hook never ended the run (the table of the five methods says "
            "how a hook ends it)",
            **values,
        )
    if last == 1:
        fail(
            "training ended after the first step, whose loss {first_loss:g} is above "
            "{threshold}: the comparison is the wrong way round",
            **values,
        )
    if last == expected + 1:
        fail(
            "training ended at global step {last}, one step late: on a model whose loss falls "
            "below {threshold} in the step that starts at global step {first_below}, training "
            "should end at global step {expected}; ask to stop in the run that computed the "
            "value, when its result arrives",
            **values,
        )
    if last < expected:
        fail(
            "training ended at global step {last}, too early: on a model whose loss falls "
            "below {threshold} in the step that starts at global step {first_below}, training "
            "should end at global step {expected}; compare the value that the step itself "
            "fetched, not one read in a run of its own or after the update",
            **values,
        )
    fail(
        "training ended at global step {last}: on a model whose loss falls below {threshold} "
        "in the step that starts at global step {first_below}, training should end at global "
        "step {expected}",
        **values,
    )


@reporting_learner_errors
def logged_steps(answer, calls=EXERCISE_3_CALLS, every_n_iter: int = EXERCISE_3_EVERY) -> None:
    """Notebook 05, exercise 3: the values of ``step`` a LoggingTensorHook prints over ``calls``."""
    require_answer(answer, "logged_steps")
    if getattr(answer, "ndim", None) == 1:  # a NumPy array of the steps is a list of them too
        answer = answer.tolist()
    if not isinstance(answer, (list, tuple)) or not all(is_whole_number(value) for value in answer):
        fail(
            "`logged_steps` should be a list of whole numbers: the values of `step` the hook "
            "logs, in order"
        )
    answer = [int(value) for value in answer]
    # for each call: the global steps its runs read (before their updates)
    runs = train_ranges(calls)
    logged = [run[::every_n_iter] for run in runs]  # every_n_iter counts the hook's own runs
    expected = [step for call in logged for step in call]
    if answer == expected:
        correct(
            "the hook logs at steps {expected}: every {every} of its own runs, starting with "
            "the first run of each train() call",
            expected=expected,
            every=every_n_iter,
        )
        return
    if answer == list(range(0, runs[-1].stop, every_n_iter)):
        fail(
            "every_n_iter counts the hook's own runs, and they start again from 0 in every "
            "train() call: the global step does not decide when it logs"
        )
    if answer == [step for call in logged for step in call[1:]]:
        fail("the hook also logs on its first run, the first step of every train() call")
    if answer == [step + 1 for step in expected]:
        fail(
            "`step` is read in the same run as the update, so it is the global step before it: "
            "a fresh model's first line says step = 0"
        )
    # one item per call, each a whole clause, in a list
    # TRANSLATORS: the separator of the clauses, one per train() call: a full-width semicolon
    described = _("; ").join(
        _(
            "call {number}, train(..., {kind}={count}), runs at global steps {first} to {last}"
        ).format(number=index + 1, kind=kind, count=count, first=run[0], last=run[-1])
        if run
        else _("call {number}, train(..., {kind}={count}), does not train at all").format(
            number=index + 1, kind=kind, count=count
        )
        for index, ((kind, count), run) in enumerate(zip(calls, runs))
    )
    fail("{answer} is not it: {calls}", answer=answer, calls=described)
