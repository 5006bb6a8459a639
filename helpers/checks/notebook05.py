"""Exercise checks of notebook 05 (hooks): tensor names, a hook class trained on a one-variable model, arithmetic."""

from __future__ import annotations

import inspect
import tempfile

from ..problems import CheckFailed
from .common import correct, is_whole_number, require_answer
from .notebook04 import train_ranges

__all__ = ["fixed_tensor_names", "fixed_step_recorder", "logged_steps"]

# Exercise 1: the tensors that monitored_model_fn names for the hook's two tags.
EXERCISE_1_EXPECTED = {"confidence": "monitor/confidence:0", "predicted": "monitor/first_classes:0"}
# Exercise 3: the train() calls, in order, on a fresh model_dir, and the hook's every_n_iter.
EXERCISE_3_CALLS = (("steps", 100), ("max_steps", 150))
EXERCISE_3_EVERY = 40
NAMING_SECTION = "section 'Naming tensors so a hook can find them'"


def fixed_tensor_names(answer, model_fn, params: dict, expected: dict = EXERCISE_1_EXPECTED) -> None:
    """Notebook 05, exercise 1: ``{tag: name}`` whose names resolve to the ``expected`` tensors."""
    require_answer(answer, "fixed_tensors")
    from ..hooks import MissingTensor, resolve_tensors
    from ..model_fn_checker import build_graph
    if not isinstance(answer, dict):
        raise CheckFailed("`fixed_tensors` should be a dict {tag: tensor name}, like the one the hook is given")
    if set(answer) != set(expected):
        raise CheckFailed(f"`fixed_tensors` should keep the tags {sorted(expected)}, not {sorted(map(str, answer))}: "
                          "fix the names, not the tags")
    graph = build_graph(model_fn, params)
    for tag, name in answer.items():
        if not isinstance(name, str):
            raise CheckFailed(f"fixed_tensors[{tag!r}] should be a tensor *name* (a string), as the hook is given")
        try:
            found = resolve_tensors([name], graph)[name].name
        except MissingTensor:
            raise CheckFailed(
                f"fixed_tensors[{tag!r}] = {name!r} names no tensor in the model_fn's graph, so a hook would fail "
                "when training starts: a tensor made inside a name scope carries the scope in its name, and "
                f"tensor_table lists the names there ({NAMING_SECTION})") from None
        if found != expected[tag]:
            raise CheckFailed(f"fixed_tensors[{tag!r}] finds the tensor {found}, which the model_fn did "
                              f"not name for {tag!r} ({NAMING_SECTION})")
    correct("every name is in the graph: " + ", ".join(f"{tag} -> {name}" for tag, name in expected.items()))


def _train_tiny(model_dir: str, hook, **how_long) -> list:
    """Train a one-variable model with the learner's ``hook``; return the ``steps`` it recorded."""
    import tensorflow as tf
    from ..logs import quiet_log

    def tiny_model_fn(features, labels, mode):
        loss = tf.reduce_mean((features["x"] * tf.compat.v1.get_variable("w", initializer=1.0) - labels) ** 2)
        # A fetched global step comes from this read op, and nothing orders it before the update in the same run: in
        # so small a model the update can win the race, so the update waits for the read (the old step, always).
        read = tf.compat.v1.get_default_graph().get_tensor_by_name("global_step/Read/ReadVariableOp:0")
        with tf.control_dependencies([read]):
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(
                loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    config = tf.estimator.RunConfig(tf_random_seed=1, log_step_count_steps=None, save_summary_steps=None)
    estimator = tf.estimator.Estimator(tiny_model_fn, model_dir=model_dir, config=config)
    with quiet_log("ERROR"):
        try:
            estimator.train(lambda: tf.data.Dataset.from_tensors(({"x": [1.0]}, [2.0])).repeat(),
                            hooks=[hook], **how_long)
        except Exception as error:  # the learner's hook failed: say so in one line
            first_line = (str(error).strip().splitlines() or [""])[0]
            raise CheckFailed(f"training with your hook raised {type(error).__name__}: {first_line}") from None
    steps = getattr(hook, "steps", None)
    if not isinstance(steps, (list, tuple)):
        raise CheckFailed("your hook should keep the global steps in a list `self.steps`, as StepRecorder does")
    try:
        return [int(step) for step in steps]
    except (TypeError, ValueError):
        raise CheckFailed("`self.steps` should hold whole numbers (global steps)") from None


def fixed_step_recorder(answer, steps: int = 5, resume_to: int = 8) -> None:
    """Notebook 05, exercise 2: a hook class whose ``steps`` list ends at the real global step."""
    require_answer(answer, "FixedStepRecorder")
    import tensorflow as tf
    if isinstance(answer, tf.estimator.SessionRunHook):
        raise CheckFailed("`FixedStepRecorder` should be the class itself, not an instance of it "
                          "(FixedStepRecorder, not FixedStepRecorder())")
    if not inspect.isclass(answer):
        raise CheckFailed("`FixedStepRecorder` should be a class that subclasses tf.estimator.SessionRunHook")
    if not issubclass(answer, tf.estimator.SessionRunHook):
        raise CheckFailed("`FixedStepRecorder` should subclass tf.estimator.SessionRunHook")
    try:
        first, second = answer(), answer()
    except TypeError as error:
        raise CheckFailed(f"FixedStepRecorder() failed ({error}): it should need no arguments") from None
    with tempfile.TemporaryDirectory() as model_dir:
        got, want = _train_tiny(model_dir, first, steps=steps), list(range(1, steps + 1))
        if got == list(range(0, steps)):
            raise CheckFailed(f"after train(steps={steps}) `steps` ends at {steps - 1}, as StepRecorder's did: the "
                              "global step fetched with train_op is the value before that step's update; record "
                              "the value after it")
        if got != want:
            raise CheckFailed(f"after train(steps={steps}) on a fresh model, `steps` should be {want}, not {got}")
        got, want = _train_tiny(model_dir, second, max_steps=resume_to), list(range(steps + 1, resume_to + 1))
        if got == list(range(1, resume_to - steps + 1)):
            raise CheckFailed(f"resumed from global step {steps}, a new recorder should record {want}, not {got}: "
                              "record the global step, do not count the hook's own runs")
        if got != want:
            raise CheckFailed(f"resumed from global step {steps} with max_steps={resume_to}, `steps` should be "
                              f"{want}, not {got}")
    correct(f"`steps` ends at the real global step: 1 … {steps} on a fresh model, then "
            f"{steps + 1} … {resume_to} when resumed")


def logged_steps(answer, calls=EXERCISE_3_CALLS, every_n_iter: int = EXERCISE_3_EVERY) -> None:
    """Notebook 05, exercise 3: the values of ``step`` a LoggingTensorHook prints over ``calls``."""
    require_answer(answer, "logged_steps")
    if not isinstance(answer, (list, tuple)) or not all(is_whole_number(value) for value in answer):
        raise CheckFailed("`logged_steps` should be a list of whole numbers: the values of `step` the hook logs, "
                          "in order")
    answer = [int(value) for value in answer]
    runs = train_ranges(calls)  # for each call: the global steps its runs read (before their updates)
    logged = [run[::every_n_iter] for run in runs]  # every_n_iter counts the hook's own runs
    expected = [step for call in logged for step in call]
    if answer == expected:
        correct(f"the hook logs at steps {expected}: every {every_n_iter} of its own runs, starting with the "
                "first run of each train() call")
        return
    if answer == list(range(0, runs[-1].stop, every_n_iter)):
        raise CheckFailed("every_n_iter counts the hook's own runs, and they start again from 0 in every train() "
                          "call: the global step does not decide when it logs")
    if answer == [step for call in logged for step in call[1:]]:
        raise CheckFailed("the hook also logs on its first run, the first step of every train() call")
    if answer == [step + 1 for step in expected]:
        raise CheckFailed("`step` is read in the same run as the update, so it is the global step before it: "
                          "a fresh model's first line says step = 0")
    described = "; ".join(
        f"call {index + 1}, train(..., {kind}={count}), runs at global steps {call[0]} to {call[-1]}"
        if call else f"call {index + 1}, train(..., {kind}={count}), does not train at all"
        for index, ((kind, count), call) in enumerate(zip(calls, runs)))
    raise CheckFailed(f"{answer} is not it: {described}")
