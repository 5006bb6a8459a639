"""Exercise checks of notebook 05 (hooks): the names of unnamed tensors, a stopping hook trained on
a one-variable model, the steps a hook logs."""

from __future__ import annotations

import inspect
import tempfile

from ..language import _, all_of
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


def hook_section() -> str:
    """The heading of notebook 05's section on a hook's methods, as the learner's edition of the
    notebook writes it."""
    return _("What a hook is, and when it is called")


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
# another tensor of the tiny model, |x * w - y| = 0.98**t at global step t (first below 0.5 at
# t = 35): a hook must watch the tensor it is given, not the loss whatever its name
TINY_GAP = "tiny/gap"
TINY_VALUES = {TINY_LOSS: lambda step: 0.98 ** (2 * step), TINY_GAP: lambda step: 0.98**step}
OTHER_THRESHOLD = 0.3  # one the notebook never uses: a hook must compare with the one it is given
HIGH_THRESHOLD = 2.0  # above every value of the tiny model's loss: the first step is below it


class _Trace:
    """What the learner's hook did in a training: for each run (one per global step, from 0),
    what it fetched (``{tensor name: value}``) and in which method it asked to stop; and the
    exception by which it ended the run, if the session took one for the end of the input."""

    def __init__(self):
        self.runs: list = []
        self.raised = None
        self.own_reads: set = set()  # what it read with session.run calls of its own, by name

    def stop(self):
        """``(global step, method)`` of the run in which the hook first asked to stop, or None."""
        return next(
            ((step, run["stop"]) for step, run in enumerate(self.runs) if run["stop"]), None
        )

    def fetched(self) -> dict:
        """``{tensor name: {global step: value}}`` of everything the hook fetched."""
        found: dict = {}
        for step, run in enumerate(self.runs):
            for name, value in run["fetched"].items():
                found.setdefault(name, {})[step] = value
        return found


class _RecordingSession:
    """The session a hook's ``run_context`` gives it, noting in ``trace`` what the hook reads
    with it."""

    def __init__(self, session, graph, trace: _Trace):
        self._session, self._graph, self._trace = session, graph, trace

    def run(self, fetches, *args, **kwargs):
        import tensorflow as tf

        self._trace.own_reads.update(
            _fetch_name(self._graph, fetch) for fetch in tf.nest.flatten(fetches)
        )
        return self._session.run(fetches, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._session, name)


def _recording(trace: _Trace, method, graph, run_context, *args):
    """Call the learner's ``method`` with a run context whose session notes what it reads;
    whether it asked to stop."""
    import tensorflow as tf

    own = tf.estimator.SessionRunContext(
        original_args=run_context.original_args,
        session=_RecordingSession(run_context.session, graph, trace),
    )
    try:
        result = method(own, *args)
    except (StopIteration, tf.errors.OutOfRangeError) as error:
        trace.raised = type(error).__name__  # the session ends the run quietly on these
        raise
    if own.stop_requested:
        run_context.request_stop()
    return result, own.stop_requested


class _Watched:
    """The methods of the hook ``_watching`` makes around the learner's ``hook`` (mixed, when it
    is made, into TensorFlow's ``SessionRunHook``, which is imported only then)."""

    def __init__(self, hook, trace: _Trace):
        self._hook, self._trace = hook, trace

    def begin(self):
        import tensorflow as tf

        self.graph = tf.compat.v1.get_default_graph()
        self.names: list = []
        self._hook.begin()

    def after_create_session(self, session, coord):
        self._hook.after_create_session(session, coord)

    def before_run(self, run_context):
        import tensorflow as tf

        args, stopped = _recording(self._trace, self._hook.before_run, self.graph, run_context)
        fetches = tf.nest.flatten(args.fetches) if args is not None else []
        for fetch in fetches:
            self._refuse_an_operation(fetch)
        # None fetches nothing (SessionRunArgs(None)): no name
        self.names = [
            None if fetch is None else _fetch_name(self.graph, fetch) for fetch in fetches
        ]
        self._trace.runs.append({"fetched": {}, "stop": "before_run" if stopped else None})
        return args

    def after_run(self, run_context, run_values):
        import numpy as np
        import tensorflow as tf

        run = self._trace.runs[-1]
        values = tf.nest.flatten(run_values.results) if self.names else []
        for name, value in zip(self.names, values):
            if name is None:
                continue
            value = np.asarray(value)
            run["fetched"][name] = (
                float(value.ravel()[0]) if value.size == 1 and value.dtype.kind in "fiub" else None
            )
        _unused, stopped = _recording(
            self._trace, self._hook.after_run, self.graph, run_context, run_values
        )
        if stopped and not run["stop"]:
            run["stop"] = "after_run"

    def end(self, session):
        self._hook.end(session)

    def _refuse_an_operation(self, fetch):
        """Fail, before the session runs, if ``fetch`` names an operation rather than a tensor."""
        import tensorflow as tf

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

    def _names_an_op(self, name):
        import tensorflow as tf

        try:
            return isinstance(self.graph.as_graph_element(name), tf.Operation)
        except (KeyError, ValueError, TypeError):
            return False  # no such op: the session says so itself


def _watching(hook, trace: _Trace):
    """``hook``, inside a hook that records into ``trace`` what it fetches and when it asks to stop,
    and refuses, before the session runs, a fetch that names an operation rather than a tensor:
    ``session.run`` gives None for an operation, and the learner's comparison would fail with a
    TypeError that does not say why."""
    import tensorflow as tf

    class Watched(_Watched, tf.estimator.SessionRunHook):
        """A ``SessionRunHook`` (the type the estimator requires of its hooks) that watches."""

    return Watched(hook, trace)


def _fetch_name(graph, fetch) -> str:
    """The name of the tensor (or variable) that ``fetch`` gives."""
    if isinstance(fetch, str):
        try:
            return graph.as_graph_element(fetch).name
        except (KeyError, ValueError, TypeError):
            return fetch
    return str(getattr(fetch, "name", fetch))


def _train_tiny(hook, steps: int) -> tuple:
    """Train a one-variable model (loss 0.98**(2t) at global step t) with the learner's hook for
    at most ``steps`` steps: the last global step and the ``_Trace`` of what the hook did."""
    import tensorflow as tf
    from ..logs import logger_level

    def tiny_model_fn(features, labels, mode):
        # gradient descent: w_t = 2 - 0.98**t; the loss and the gap come from the same read of w,
        # which the update waits for: both are the values before the update
        weight = tf.compat.v1.get_variable("w", initializer=1.0)
        error = features["x"] * weight - labels
        loss = tf.identity(tf.reduce_mean(error**2), name=TINY_LOSS)
        tf.identity(tf.reduce_mean(tf.abs(error)), name=TINY_GAP)
        # a fetched global step comes from this read: the update waits for it too
        graph = tf.compat.v1.get_default_graph()
        read = graph.get_tensor_by_name("global_step/Read/ReadVariableOp:0")
        with tf.control_dependencies([read]):
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(
                loss, global_step=tf.compat.v1.train.get_global_step()
            )
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    config = tf.estimator.RunConfig(
        tf_random_seed=1, log_step_count_steps=None, save_summary_steps=None
    )
    trace = _Trace()
    with tempfile.TemporaryDirectory() as model_dir:
        estimator = tf.estimator.Estimator(tiny_model_fn, model_dir=model_dir, config=config)
        with logger_level("ERROR"):
            try:
                estimator.train(
                    lambda: tf.data.Dataset.from_tensors(({"x": [1.0]}, [2.0])).repeat(),
                    hooks=[_watching(hook, trace)],
                    steps=steps,
                )
            except CheckFailed:
                raise
            except Exception as error:  # the learner's hook failed: say so in one line
                raise CheckFailed(
                    _("training with your hook raised {kind}: {first_line}").format(
                        kind=type(error).__name__, first_line=_first_line(error)
                    )
                ) from None
        last = int(estimator.get_variable_value("global_step"))
    if trace.raised:
        fail(
            "your hook ended the run by raising `{kind}`, which the session takes for the end of "
            "the input: the exercise asks for an end without an error, as `StopAtStepHook`'s "
            "(the table of the five methods says how a hook ends it)",
            kind=trace.raised,
        )
    return last, trace


def _first_line(error: BaseException) -> str:
    """The first line of ``error``'s text, or nothing when it has none."""
    return (str(error).strip().splitlines() or [""])[0]


def _make(answer, name: str, threshold: float):
    """The learner's hook, ``answer(name, threshold)``; one line when that fails."""
    try:
        return answer(name, threshold)
    except TypeError as error:
        raise CheckFailed(
            _(
                "StopBelow({name!r}, {threshold}) failed ({error}): it should take the tensor's "
                "name and the threshold"
            ).format(name=name, threshold=threshold, error=error)
        ) from None
    # a typo in the learner's __init__: one line, not a traceback through here
    except Exception as error:
        raise CheckFailed(
            _("StopBelow({name!r}, {threshold}) raised {kind}: {first_line}").format(
                name=name,
                threshold=threshold,
                kind=type(error).__name__,
                first_line=_first_line(error),
            )
        ) from None


def _is_tensor(name: str, values: dict, fetched_name: str) -> bool:
    """Whether what the hook fetched as ``fetched_name`` (``{global step: value}``) is the tensor
    ``name``: by its name, or by its value in every run (the same tensor under another name)."""
    import numpy as np

    if fetched_name in (name, f"{name}:0"):
        return True
    return all(
        value is not None and np.isclose(value, TINY_VALUES[name](step), rtol=1e-4)
        for step, value in values.items()
    )


def _judge_fetches(name: str, threshold: float, trace: _Trace) -> None:
    """Fail when the hook fetched tensors but never the one it is given, or asked to stop when
    another of its fetches fell below the threshold (it compared that one)."""
    fetched = trace.fetched()
    asked = [found for found, values in fetched.items() if _is_tensor(name, values, found)]
    if fetched and not asked:
        fail(
            "`StopBelow({name!r}, {threshold})` fetched {fetched}, not the tensor named {name!r} "
            "that it is given, so it compared another value with the threshold: look that "
            "tensor up by the name it is given (section '{section}')",
            name=name,
            threshold=threshold,
            fetched=all_of(repr(found) for found in sorted(fetched)),
            section=naming_section(),
        )
    stop = trace.stop()
    if stop is None or stop[1] != "after_run" or TINY_VALUES[name](stop[0]) < threshold:
        return
    for other, values in sorted(fetched.items()):
        below = [
            step
            for step, value in sorted(values.items())
            if value is not None and value < threshold
        ]
        if other not in asked and below and below[0] == stop[0]:
            fail(
                "your hook asked to stop in the step that starts at global step {step}, the "
                "first in which {other!r}, which it fetches beside {name!r}, is below "
                "{threshold}: it compared {other!r}, not the tensor it is given, with the "
                "threshold",
                step=stop[0],
                other=other,
                name=name,
                threshold=threshold,
            )


def _first_below(name: str, threshold: float, steps: int) -> int:
    """The global step whose run first computes a value of ``name`` below ``threshold``."""
    return next(step for step in range(steps + 1) if TINY_VALUES[name](step) < threshold)


def _judge_elsewhere(answer, name: str, threshold: float, steps: int) -> None:
    """The hook stops at the right step for a threshold or a tensor the notebook never showed."""
    first_below = _first_below(name, threshold, steps)
    last, trace = _train_tiny(_make(answer, name, threshold), steps)
    if last == first_below + 1:
        return
    _judge_fetches(name, threshold, trace)
    values = dict(
        name=name, other=threshold, first_below=first_below, last=last, expected=first_below + 1
    )
    if name != TINY_LOSS:
        fail(
            "with `StopBelow({name!r}, {other})`, whose tensor falls below {other} in the step "
            "that starts at global step {first_below}, training ended at global step {last}, not "
            "{expected}: the hook should watch the tensor it is given",
            **values,
        )
    fail(
        "with the threshold {other}, below which the loss falls in the step that starts at "
        "global step {first_below}, training ended at global step {last}, not {expected}: "
        "the hook should compare with the threshold it is given, not a number of its own",
        **values,
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
    hook = _make(answer, TINY_LOSS, threshold)
    first_below = _first_below(TINY_LOSS, threshold, steps)
    expected = first_below + 1  # that step's update is done when the hook asks to stop
    last, trace = _train_tiny(hook, steps)
    values = dict(
        threshold=threshold,
        first_below=first_below,
        expected=expected,
        last=last,
        steps=steps,
        first_loss=TINY_VALUES[TINY_LOSS](0),
    )
    if last == expected and {TINY_LOSS, f"{TINY_LOSS}:0"} & trace.own_reads:
        fail(
            "your hook reads {name!r} with a `session.run` of its own, which computes it again "
            "(in a real training on the next batch of the input, which the training then skips): "
            "compare the value that the training step itself computed (section '{section}')",
            name=TINY_LOSS,
            section=hook_section(),
        )
    if last == expected:
        _judge_elsewhere(answer, TINY_LOSS, OTHER_THRESHOLD, steps)
        _judge_elsewhere(answer, TINY_GAP, threshold, steps)
        correct(
            "on a model whose loss falls below {threshold} in the step that starts at global "
            "step {first_below}, training should end at global step {expected}, and it did: "
            "the run ended without an error after the first step below the threshold",
            **values,
        )
        return
    _judge_fetches(TINY_LOSS, threshold, trace)
    if last == steps:
        fail(
            "training ran all {steps} steps: on a model whose loss falls below {threshold} in "
            "the step that starts at global step {first_below}, training should end at global "
            "step {expected}; the hook never ended the run (the table of the five methods says "
            "how a hook ends it)",
            **values,
        )
    if last == 1:
        # below HIGH_THRESHOLD from the first step on: a hook that compares the right way round
        # stops after it too, one that compares the wrong way round never stops
        high, _trace = _train_tiny(_make(answer, TINY_LOSS, HIGH_THRESHOLD), steps)
        if high == steps:
            fail(
                "training ended after the first step, whose loss {first_loss:g} is above "
                "{threshold}: the comparison is the wrong way round",
                **values,
            )
        fail(
            "training ended after the first step, whose loss {first_loss:g} is above "
            "{threshold}, and it ends there whatever the threshold: your hook asks to stop "
            "whatever value it fetched",
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
    if (
        isinstance(answer, (list, tuple))
        and len(answer) > 1
        and all(
            getattr(part, "ndim", None) == 1 or isinstance(part, (list, tuple)) for part in answer
        )
    ):
        fail(
            "`logged_steps` is a list of {count} lists: the exercise asks for one flat list of "
            "numbers, the steps of all the calls in the order their lines appear in the log",
            count=len(answer),
        )
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
    if answer == [step for run in runs for step in run[every_n_iter - 1 :: every_n_iter]]:
        fail(
            "the hook logs on its first run and then every {every} runs, not first on its "
            "{every}th run: it counts its runs from 0 in every `train()` call",
            every=every_n_iter,
        )
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
