"""Exercise checks of notebook 05 (hooks): the names of unnamed tensors, a stopping hook trained on
a one-variable model, the steps a hook logs."""

from __future__ import annotations

import copy
import inspect
import re
import tempfile
import traceback
from typing import NoReturn

from ..language import _, all_of
from ..learner_code import error_text, is_learners
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
# the second output of an op of two, tiny/pair (its first is the gap), named as LoggingTensorHook
# takes it: a level 0.5 - t/16 at global step t, exact in float32, negative from t = 9
TINY_LEVEL = "tiny/pair:1"
# the values of the tiny model's tensors at global step t, by their full names
TINY_VALUES = {
    "tiny/loss:0": lambda step: 0.98 ** (2 * step),
    "tiny/gap:0": lambda step: 0.98**step,
    "tiny/pair:0": lambda step: 0.98**step,
    "tiny/pair:1": lambda step: 0.5 - step / 16,
}
OTHER_THRESHOLD = 0.3  # one the notebook never uses: a hook must compare with the one it is given
# the level is -0.5 exactly at t = 16 ("below" is strict: first below at t = 17), negative (an
# absolute value is not the value), and its first value below, -0.5625, truncates to it (tenths)
LEVEL_THRESHOLD = -0.5
HIGH_THRESHOLD = 2.0  # above every value of the tiny model's loss: the first step is below it
# the trainings after the first, each with a new instance (state an instance leaves in its class
# shows in the next): another threshold with the name written with its index, another tensor, an
# op's second output with a negative threshold that one of its values equals
ELSEWHERE = (
    (TINY_LOSS + ":0", OTHER_THRESHOLD),
    (TINY_GAP, STOP_THRESHOLD),
    (TINY_LEVEL, LEVEL_THRESHOLD),
)
# the functions that look a tensor up by its name: an error raised through them is a lookup's
_LOOKUPS = {"get_tensor_by_name", "get_operation_by_name", "as_graph_element", "resolve_tensors"}
# the packages whose hook classes are not the learner's
_LIBRARIES = ("tensorflow", "tensorflow_estimator", "keras", "tf_keras")


def _full(name: str) -> str:
    """``name`` as a tensor's full name: ``op`` is ``op:0``."""
    return name if ":" in name else f"{name}:0"


def _value(name: str, step: int) -> float:
    """The value of the tiny model's tensor ``name`` fetched in the run at global step ``step``."""
    return TINY_VALUES[_full(name)](step)


class _Trace:
    """What the learner's hook did in a training: for each run (one per global step, from 0),
    what it fetched (``{tensor name: value}``), whether its results were one number, and in which
    method it asked to stop; the exception by which it ended the run, if the session took one for
    the end of the input; how the training ended."""

    def __init__(self):
        self.runs: list = []
        self.raised = None
        self.own_reads: set = set()  # what it read with session.run calls of its own, by name
        self.last = None  # the global step where training ended, when it ended without an error
        self.error = None  # what making the hook, or training with it, raised
        self.made = True  # False when making the hook raised
        self.error_in = None  # (method, global step of its run) of the hook's method that raised
        self.closed = False  # whether the hook closed the session its run context gave it

    def failed(self, method: str, step: int) -> None:
        """Note that the learner's ``method`` raised, in the run at global step ``step``."""
        if self.error_in is None:
            self.error_in = (method, step)

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
    with it, and whether it closes it."""

    def __init__(self, session, graph, trace: _Trace):
        self._session, self._graph, self._trace = session, graph, trace

    def run(self, fetches, *args, **kwargs):
        import tensorflow as tf

        self._trace.own_reads.update(
            _fetch_name(self._graph, fetch) for fetch in tf.nest.flatten(fetches)
        )
        return self._session.run(fetches, *args, **kwargs)

    def close(self):
        self._trace.closed = True
        return self._session.close()

    def __getattr__(self, name):
        return getattr(self._session, name)


def _recording(trace: _Trace, hook, method: str, step: int, graph, run_context, *args):
    """Call the learner's ``hook.method`` (of the run at global step ``step``) with a run context
    whose session notes what it reads; whether it asked to stop."""
    import tensorflow as tf

    own = tf.estimator.SessionRunContext(
        original_args=run_context.original_args,
        session=_RecordingSession(run_context.session, graph, trace),
    )
    try:
        result = getattr(hook, method)(own, *args)
    except (StopIteration, tf.errors.OutOfRangeError) as error:
        trace.raised = type(error).__name__  # the session ends the run quietly on these
        raise
    except Exception:
        trace.failed(method, step)
        raise
    if own.stop_requested:
        run_context.request_stop()
    return result, own.stop_requested


def _is_number(results) -> bool:
    """Whether ``results`` is one number (a NumPy scalar or a 0-d array), as one tensor's value."""
    import numbers

    import numpy as np

    if isinstance(results, np.ndarray):
        return results.ndim == 0
    return isinstance(results, (numbers.Number, np.generic))


class _Watched:
    """The methods of the hook ``_watching`` makes around the learner's ``hook`` (mixed, when it
    is made, into TensorFlow's ``SessionRunHook``, which is imported only then)."""

    def __init__(self, hook, trace: _Trace):
        self._hook, self._trace = hook, trace

    def begin(self):
        import tensorflow as tf

        self.graph = tf.compat.v1.get_default_graph()
        self.global_step = tf.compat.v1.train.get_global_step()
        self.names: list = []
        self._call("begin")

    def after_create_session(self, session, coord):
        self._call("after_create_session", session, coord)

    def before_run(self, run_context):
        import tensorflow as tf

        step = len(self._trace.runs)
        args, stopped = _recording(
            self._trace, self._hook, "before_run", step, self.graph, run_context
        )
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
        run["number"] = _is_number(run_values.results)
        values = tf.nest.flatten(run_values.results) if self.names else []
        for name, value in zip(self.names, values):
            if name is None:
                continue
            value = np.asarray(value)
            run["fetched"][name] = (
                float(value.ravel()[0]) if value.size == 1 and value.dtype.kind in "fiub" else None
            )
        step = len(self._trace.runs) - 1
        _unused, stopped = _recording(
            self._trace, self._hook, "after_run", step, self.graph, run_context, run_values
        )
        if stopped and not run["stop"]:
            run["stop"] = "after_run"

    def end(self, session):
        self._trace.last = int(session.run(self.global_step))
        self._call("end", session)

    def _call(self, method: str, *args):
        """The learner's ``method``, noting in the trace when it raises."""
        try:
            return getattr(self._hook, method)(*args)
        except Exception:
            self._trace.failed(method, len(self._trace.runs))
            raise

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


def _tiny_model_fn(features, labels, mode):
    """A one-variable model: loss 0.98**(2t) and gap 0.98**t at global step t, and the pair of
    the gap and a level 0.5 - t/16 (``TINY_VALUES``)."""
    import tensorflow as tf

    # gradient descent: w_t = 2 - 0.98**t; the loss and the gap come from the same read of w,
    # which the update waits for: both are the values before the update
    weight = tf.compat.v1.get_variable("w", initializer=1.0)
    error = features["x"] * weight - labels
    loss = tf.identity(tf.reduce_mean(error**2), name=TINY_LOSS)
    gap = tf.identity(tf.reduce_mean(tf.abs(error)), name=TINY_GAP)
    # a fetched global step comes from this read, and so does the level: the update waits for it
    graph = tf.compat.v1.get_default_graph()
    read = graph.get_tensor_by_name("global_step/Read/ReadVariableOp:0")
    level = 0.5 - tf.cast(read, tf.float32) / 16.0
    tf.unstack(tf.stack([gap, level]), name=TINY_LEVEL.partition(":")[0])
    with tf.control_dependencies([read]):
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _train_tiny(hook, steps: int, trace: _Trace) -> _Trace:
    """Train the one-variable model with the learner's hook for at most ``steps`` steps, noting
    in ``trace`` what it did, where training ended, or what it raised."""
    import tensorflow as tf
    from ..logs import logger_level

    # no checkpoints: the global step where training ended is read in the watching hook's end()
    config = tf.estimator.RunConfig(
        tf_random_seed=1,
        log_step_count_steps=None,
        save_summary_steps=None,
        save_checkpoints_steps=None,
        save_checkpoints_secs=None,
    )
    with tempfile.TemporaryDirectory() as model_dir:
        estimator = tf.estimator.Estimator(_tiny_model_fn, model_dir=model_dir, config=config)
        with logger_level("ERROR"):
            try:
                estimator.train(
                    lambda: tf.data.Dataset.from_tensors(({"x": [1.0]}, [2.0])).repeat(),
                    hooks=[_watching(hook, trace)],
                    steps=steps,
                )
            except CheckFailed:
                raise
            except Exception as error:  # the learner's hook failed: the caller says how
                trace.error = error
    if trace.raised and trace.error is None:
        fail(
            "your hook ended the run by raising `{kind}`, which the session takes for the end of "
            "the input: the exercise asks for an end without an error, as `StopAtStepHook`'s "
            "(the table of the five methods says how a hook ends it)",
            kind=trace.raised,
        )
    return trace


def _run(answer, arguments: tuple, steps: int) -> _Trace:
    """Make the learner's hook, ``answer(*arguments)``, and train with it: the ``_Trace``, whose
    ``error`` is what making it or training with it raised."""
    trace = _Trace()
    try:
        hook = answer(*arguments)
    except Exception as error:  # judged by the caller, in one line
        trace.error, trace.made = error, False
        return trace
    return _train_tiny(hook, steps, trace)


def _first_line(error: BaseException) -> str:
    """The first line of ``error``'s text, or nothing when it has none."""
    return (str(error).strip().splitlines() or [""])[0]


def _error_words(error: BaseException) -> str:
    """The error as a message quotes it: TensorFlow's or Python's type and first line in
    backticks (their words, in English in every edition), a course problem's own sentence alone
    (already in the learner's language)."""
    from ..problems import WorkbookProblem

    if isinstance(error, WorkbookProblem):
        return _first_line(error)
    kind, colon, text = error_text(error).partition(": ")
    if isinstance(error, KeyError) and len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1].rstrip(".")  # a KeyError's text is its message's repr
    return "`{}`".format(f"{kind}{colon}{text}".replace("`", "'"))


def _looked_up(error: BaseException) -> bool:
    """Whether ``error`` came from looking a tensor up by its name."""
    from ..tensor_names import TensorNameProblem

    return isinstance(error, TensorNameProblem) or any(
        frame.f_code.co_name in _LOOKUPS for frame, _line in traceback.walk_tb(error.__traceback__)
    )


def _raised_on_purpose(error: BaseException) -> bool:
    """Whether the learner's own ``raise`` statement raised ``error``."""
    frames = traceback.extract_tb(error.__traceback__)
    return (
        bool(frames)
        and is_learners(frames[-1].filename)
        and bool(re.match(r"raise\b", frames[-1].line or ""))
    )


def _judge_order(answer, name: str, threshold: float, steps: int, words: dict) -> None:
    """Fail when the hook, which raised, works made with its two arguments the other way round."""
    try:
        swapped = _run(answer, (threshold, name), steps)
    except CheckFailed:
        return  # a mistake of its own, made that way round: not the one to report
    if swapped.error is None and swapped.last == _first_below(name, threshold, steps) + 1:
        fail(
            "`StopBelow({name!r}, {threshold})` raised {error}, and made as "
            "`StopBelow({threshold}, {name!r})` the hook works: its __init__ takes the two "
            "arguments the other way round; the exercise makes it as "
            "`StopBelow(tensor_name, threshold)`",
            **words,
        )


def _judge_making(error: BaseException, words: dict) -> NoReturn:
    """One line for an error raised in making the hook."""
    if _looked_up(error):
        fail(
            "`StopBelow({name!r}, {threshold})` raised {error}: its __init__ looks the tensor up "
            "when the hook is made, before train() has built the graph it trains; look it up in "
            "begin(), called once that graph is built (section '{section}')",
            **{**words, "section": hook_section()},
        )
    if isinstance(error, TypeError):
        fail(
            "`StopBelow({name!r}, {threshold})` raised {error}: it should take the tensor's name "
            "and the threshold",
            **words,
        )
    fail("`StopBelow({name!r}, {threshold})` raised {error}", **words)


def _judge_lookup(error: BaseException, words: dict) -> None:
    """Fail when ``error`` says which name the hook looked up: a way of writing the one it is
    given that it does not take, or another name."""
    looked = re.findall(r"'([^'\s]+)'", str(error))
    if any(found.partition(":")[0] == words["name"].partition(":")[0] for found in looked):
        fail(
            "`StopBelow({name!r}, {threshold})` raised {error} looking its tensor up: a hook is "
            "given a tensor's name as LoggingTensorHook takes it, the op's name alone or followed "
            "by the index of one of its outputs (':0', ':1'): find the tensor whichever way its "
            "name is written (section '{section}')",
            **words,
        )
    if looked:
        fail(
            "your hook looked up {looked!r}, which this model's graph does not have, not "
            "{name!r}, the name `StopBelow({name!r}, {threshold})` is given: look that tensor up "
            "by the name it is given (section '{section}')",
            looked=looked[0],
            **words,
        )


def _judge_error(answer, name: str, threshold: float, steps: int, trace: _Trace, first: bool):
    """One line for what making the hook, or training with it, raised, with the cause when the
    check can tell it: arguments the other way round (tried on the ``first`` training only: a
    later one had the order right), a lookup in __init__, by a name written otherwise or by
    another name, a closed session, an error raised to stop, results indexed as a list."""
    error = trace.error
    words = dict(
        name=name, threshold=threshold, error=_error_words(error), section=naming_section()
    )
    if first:
        _judge_order(answer, name, threshold, steps, words)
    if not trace.made:
        _judge_making(error, words)
    if trace.closed:
        fail(
            "in training with `StopBelow({name!r}, {threshold})`, your hook closed the session, "
            "and the training failed with {error}: the exercise asks for an end without an "
            "error, as `StopAtStepHook`'s (the table of the five methods says how a hook ends it)",
            **words,
        )
    method, step = trace.error_in or ("", -1)
    first_below = _first_below(name, threshold, steps)
    decided = step - (method == "before_run")  # the run whose value its method had seen
    if method in ("before_run", "after_run") and decided == first_below:
        if _raised_on_purpose(error):
            fail(
                "in training with `StopBelow({name!r}, {threshold})`, your hook's `{method}()` "
                "raised {error} right after the step that starts at global step {first_below}, "
                "the first in which the value is below {threshold}: training then ends with that "
                "error, and the exercise asks for an end without one, as `StopAtStepHook`'s (the "
                "table of the five methods says how a hook ends it)",
                method=method,
                first_below=first_below,
                **words,
            )
    if _looked_up(error):
        _judge_lookup(error, words)
    indexed = isinstance(error, IndexError) or "subscriptable" in str(error)
    if method == "after_run" and indexed and trace.runs[step].get("number"):
        fail(
            "in training with `StopBelow({name!r}, {threshold})`, your hook's `after_run()` raised "
            "{error}: `run_values.results` holds what before_run() asked for, here one tensor, "
            "so it is that tensor's value, a single number, not a list to index",
            **words,
        )
    if method:
        fail(
            "in training with `StopBelow({name!r}, {threshold})`, your hook's `{method}()` raised "
            "{error}",
            method=method,
            **words,
        )
    fail("training with `StopBelow({name!r}, {threshold})` raised {error}", **words)


def _is_tensor(name: str, values: dict, fetched_name: str) -> bool:
    """Whether what the hook fetched as ``fetched_name`` (``{global step: value}``) is the tensor
    ``name``: by its name, or by its value in every run (the same tensor under another name)."""
    import numpy as np

    if fetched_name == _full(name):
        return True
    return all(
        value is not None and np.isclose(value, _value(name, step), rtol=1e-4)
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
    if stop is None or stop[1] != "after_run" or _value(name, stop[0]) < threshold:
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


def _judge_late(name: str, threshold: float, trace: _Trace, first_below: int) -> None:
    """Fail when the hook asked to stop after the first step below the threshold and the trace
    says why: it did not fetch the value in that step (it looks at it only in some runs), or it
    fetched it and did not stop then."""
    stop = trace.stop()
    if stop is None or stop[0] <= first_below:
        return
    fetched = trace.fetched()
    asked = [found for found, values in fetched.items() if _is_tensor(name, values, found)]
    looked = sorted({step for found in asked for step in fetched[found]})
    words = dict(
        name=name,
        threshold=threshold,
        first_below=first_below,
        last=trace.last,
        expected=first_below + 1,
        stop=stop[0],
    )
    if looked and first_below not in looked:
        gaps = {later - earlier for earlier, later in zip(looked, looked[1:])}
        if len(gaps) == 1 and min(gaps) > 1:
            fail(
                "your hook fetched {name!r} only every {every} runs, from the one at global step "
                "{start}: not in the step that starts at global step {first_below}, the first in "
                "which it is below {threshold}, so training ended at global step {last}, not "
                "{expected}; look at the value in every step",
                every=min(gaps),
                start=looked[0],
                **words,
            )
        fail(
            "your hook did not fetch {name!r} in the step that starts at global step "
            "{first_below}, the first in which it is below {threshold} (it fetched it in {count} "
            "of the {runs} steps), so training ended at global step {last}, not {expected}; look "
            "at the value in every step",
            count=len(looked),
            runs=len(trace.runs),
            **words,
        )
    if stop == (first_below + 1, "before_run"):
        return  # it asked in the next step's before_run: the caller says one step late
    seen = [fetched[found].get(first_below) for found in asked]
    if seen and seen[0] is not None and seen[0] < threshold:
        fail(
            "in the step that starts at global step {first_below}, your hook fetched {value:g} "
            "for {name!r}, below {threshold}, but asked to stop only in the step that starts at "
            "global step {stop}, so training ended at global step {last}, not {expected}: end it "
            "after the first step whose value is below the threshold",
            value=seen[0],
            **words,
        )


def _judge_early(name: str, threshold: float, trace: _Trace, first_below: int) -> None:
    """Fail when the hook asked to stop after a value that is not below the threshold, and the
    value says why: it is the threshold itself, or above a negative threshold."""
    stop = trace.stop()
    if stop is None:
        return
    decided = stop[0] - (stop[1] == "before_run")  # the run whose value it had seen
    if not 0 <= decided < first_below:
        return
    words = dict(
        name=name,
        threshold=threshold,
        step=decided,
        value=_value(name, decided),
        last=trace.last,
        expected=first_below + 1,
    )
    if words["value"] == threshold:
        fail(
            "with `StopBelow({name!r}, {threshold})`, your hook asked to stop after the step "
            "that starts at global step {step}, whose value is {threshold} exactly, so training "
            "ended at global step {last}, not {expected}: a value equal to the threshold is not "
            "below it",
            **words,
        )
    if threshold < 0:
        fail(
            "with `StopBelow({name!r}, {threshold})`, a negative threshold, your hook asked to "
            "stop after the step that starts at global step {step}, whose value {value:g} is not "
            "below it, so training ended at global step {last}, not {expected}: compare the "
            "value itself with the threshold, whatever their signs",
            **words,
        )


def _own_classes(cls) -> list:
    """The classes of ``cls``'s hierarchy that are the learner's (not TensorFlow's, not
    ``object``)."""
    return [klass for klass in cls.__mro__ if klass is not object and not _is_library(klass)]


def _is_library(cls) -> bool:
    """Whether the class ``cls`` is TensorFlow's, not the learner's."""
    return str(getattr(cls, "__module__", "")).partition(".")[0] in _LIBRARIES


def _class_state(cls) -> dict:
    """``{(class, name): copy of the value}`` of the data the learner's classes hold (their
    attributes that are not methods): what instances share through the class."""
    state = {}
    for klass in _own_classes(cls):
        for name, value in vars(klass).items():
            method = callable(value) or isinstance(value, (classmethod, staticmethod, property))
            if name.startswith(("__", "_abc")) or method:
                continue
            try:
                state[klass, name] = copy.deepcopy(value)
            except Exception:  # noqa: BLE001 - a value that cannot be copied is not compared
                continue
    return state


def _same(first, second) -> bool:
    """Whether two values of a class attribute are equal (arrays too)."""
    import numpy as np

    try:
        return bool(np.all(first == second))
    except Exception:  # noqa: BLE001 - values that cannot be compared count as changed
        return first is second


def _changed(cls, state: dict) -> list:
    """The names of the data of the learner's classes that differ from ``state``: added, gone
    or changed since."""
    now = _class_state(cls)
    return sorted(
        {key[1] for key in {*now, *state} if key not in now or key not in state}
        | {key[1] for key, value in state.items() if key in now and not _same(value, now[key])}
    )


def _restore(cls, state: dict) -> None:
    """Set the data of the learner's classes back to ``state``: the check leaves them as it
    found them."""
    added = set(_class_state(cls)) - set(state)
    for klass, name in added:
        try:
            delattr(klass, name)
        except Exception:  # noqa: BLE001 - a class that refuses it keeps what it has
            continue
    for (klass, name), value in state.items():
        try:
            setattr(klass, name, copy.deepcopy(value))
        except Exception:  # noqa: BLE001 - a class that refuses it keeps what it has
            continue


def _judge_shared(answer, arguments: tuple, steps: int, state: dict) -> None:
    """Fail when the hook made with ``arguments``, which did not end training where it should,
    does once its classes' data is set back to ``state``, as it was before the first instance:
    the instances share state through the class."""
    changed = _changed(answer, state)
    if not changed:
        return
    _restore(answer, state)
    name, threshold = arguments
    again = _run(answer, arguments, steps)
    expected = _first_below(name, threshold, steps) + 1
    if again.error is None and again.last == expected:
        fail(
            "`StopBelow({name!r}, {threshold})`, made after other instances had trained, did not "
            "end training at global step {expected}, but does once the check sets the state its "
            "class holds ({attributes}) back to what it was before the first instance: a class "
            "attribute is shared by all the instances, so what one leaves there carries over to "
            "the next; keep a hook's state on the instance (section '{section}')",
            name=name,
            threshold=threshold,
            expected=expected,
            attributes=all_of(f"`{attribute}`" for attribute in changed),
            section=hook_section(),
        )


def _first_below(name: str, threshold: float, steps: int) -> int:
    """The global step whose run first computes a value of ``name`` below ``threshold``."""
    return next(step for step in range(steps + 1) if _value(name, step) < threshold)


def _judge_elsewhere(answer, name: str, threshold: float, steps: int, state: dict) -> None:
    """The hook stops at the right step for a threshold or a tensor the notebook never showed."""
    first_below = _first_below(name, threshold, steps)
    trace = _run(answer, (name, threshold), steps)
    if trace.error is None and trace.last == first_below + 1:
        return
    _judge_shared(answer, (name, threshold), steps, state)
    if trace.error is not None:
        _judge_error(answer, name, threshold, steps, trace, first=False)
    _judge_fetches(name, threshold, trace)
    _judge_early(name, threshold, trace, first_below)
    _judge_late(name, threshold, trace, first_below)
    values = dict(
        name=name,
        other=threshold,
        first_below=first_below,
        last=trace.last,
        expected=first_below + 1,
    )
    if _full(name) == _full(TINY_LOSS):
        fail(
            "with the threshold {other}, below which the loss falls in the step that starts at "
            "global step {first_below}, training ended at global step {last}, not {expected}: "
            "the hook should compare with the threshold it is given, not a number of its own",
            **values,
        )
    if threshold >= 0:
        fail(
            "with `StopBelow({name!r}, {other})`, whose tensor falls below {other} in the step "
            "that starts at global step {first_below}, training ended at global step {last}, not "
            "{expected}: the hook should watch the tensor it is given",
            **values,
        )
    fail(
        "with `StopBelow({name!r}, {other})`, whose tensor falls below {other}, a negative "
        "threshold, in the step that starts at global step {first_below}, training ended at "
        "global step {last}, not {expected}: the hook should end training after the first step "
        "whose value is below the threshold, negative ones too",
        **values,
    )


def _judge_not_below(threshold: float, trace: _Trace, values: dict) -> None:
    """Fail when the hook asked to stop after a step whose value of the loss, which it fetched in
    that step, is not below the threshold."""
    stop = trace.stop()
    decided = stop[0] - (stop[1] == "before_run") if stop else -1  # the run whose value it saw
    fetched = trace.fetched()
    seen = [
        values_by_step[decided]
        for found, values_by_step in fetched.items()
        if _is_tensor(TINY_LOSS, values_by_step, found) and values_by_step.get(decided) is not None
    ]
    if seen and seen[0] >= threshold:
        fail(
            "your hook asked to stop after the step that starts at global step {step}, whose "
            "loss {value:g}, which it fetched in that step, is not below {threshold}, so training "
            "ended at global step {last}, not {expected}: stop only once the value is below the "
            "threshold",
            step=decided,
            value=seen[0],
            **values,
        )


def _judge_first(answer, threshold: float, steps: int, trace: _Trace, values: dict) -> NoReturn:
    """One line for a hook that did not end the first training, on the loss, where it should."""
    last, first_below, expected = trace.last, values["first_below"], values["expected"]
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
        high = _run(answer, (TINY_LOSS, HIGH_THRESHOLD), steps)
        if high.error is None and high.last == steps:
            fail(
                "training ended after the first step, whose loss {first_loss:g} is above "
                "{threshold}: the comparison is the wrong way round",
                **values,
            )
        if high.error is None and high.last == 1:
            fail(
                "training ended after the first step, whose loss {first_loss:g} is above "
                "{threshold}, and it ends there whatever the threshold: your hook asks to stop "
                "whatever value it fetched",
                **values,
            )
    _judge_late(TINY_LOSS, threshold, trace, first_below)
    if last == expected + 1:
        fail(
            "training ended at global step {last}, one step late: on a model whose loss falls "
            "below {threshold} in the step that starts at global step {first_below}, training "
            "should end at global step {expected}; ask to stop in the run that computed the "
            "value, when its result arrives",
            **values,
        )
    if last < expected:
        _judge_not_below(threshold, trace, values)
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


def _judge_hook(answer, threshold: float, steps: int, state: dict) -> None:
    """Train with the learner's hook on the loss, then on the cases of ``ELSEWHERE``, one new
    instance after another; one line for the first that does not end where it should."""
    first_below = _first_below(TINY_LOSS, threshold, steps)
    expected = first_below + 1  # that step's update is done when the hook asks to stop
    trace = _run(answer, (TINY_LOSS, threshold), steps)
    if trace.error is not None:
        _judge_error(answer, TINY_LOSS, threshold, steps, trace, first=True)
    values = dict(
        threshold=threshold,
        first_below=first_below,
        expected=expected,
        last=trace.last,
        steps=steps,
        first_loss=_value(TINY_LOSS, 0),
    )
    if trace.last != expected:
        _judge_first(answer, threshold, steps, trace, values)
    if {TINY_LOSS, f"{TINY_LOSS}:0"} & trace.own_reads:
        fail(
            "your hook reads {name!r} with a `session.run` of its own, which computes it again "
            "(in a real training on the next batch of the input, which the training then skips): "
            "compare the value that the training step itself computed (section '{section}')",
            name=TINY_LOSS,
            section=hook_section(),
        )
    for name, other in ELSEWHERE:
        _judge_elsewhere(answer, name, other, steps, state)
    correct(
        "on a model whose loss falls below {threshold} in the step that starts at global "
        "step {first_below}, training should end at global step {expected}, and it did: "
        "the run ended without an error after the first step below the threshold",
        **values,
    )


@reporting_learner_errors
def stop_below_hook(answer, threshold: float = STOP_THRESHOLD, steps: int = 100) -> None:
    """Notebook 05, exercise 2: a hook class ``StopBelow(tensor_name, threshold)`` that ends
    training after the first step whose value of the tensor is below ``threshold``, on names,
    tensors and thresholds the notebook never showed too."""
    require_answer(answer, "StopBelow")
    import tensorflow as tf

    if isinstance(answer, tf.estimator.SessionRunHook):
        fail(
            "`StopBelow` should be the class itself, not an instance of it (the check makes "
            "its own)"
        )
    if not inspect.isclass(answer) or not issubclass(answer, tf.estimator.SessionRunHook):
        fail("`StopBelow` should be a class that subclasses tf.estimator.SessionRunHook")
    if _is_library(answer):
        fail(
            "`StopBelow` is TensorFlow's own `{name}`, not a class of yours: the exercise asks "
            "you to write your own subclass of tf.estimator.SessionRunHook",
            name=answer.__name__,
        )
    state = _class_state(answer)  # what its instances share, before the first is made
    try:
        _judge_hook(answer, threshold, steps, state)
    finally:
        _restore(answer, state)  # as the check found it: a second run of the check starts there


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
