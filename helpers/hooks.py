"""Hooks for ``Estimator.train`` / ``evaluate``: checked names, progress, collecting values.

Introduced in notebook 05.

* ``CheckedLoggingTensorHook`` takes the same arguments as
  ``tf.estimator.LoggingTensorHook`` and logs the same lines, but a tensor name
  that is not in the graph raises ``MissingTensor`` with one line that names it
  and the graph's most similar names ("no tensor named 'sofmax_tensor' in the
  graph; similar names: softmax_tensor") instead of TensorFlow's ``KeyError``;
  a variable's name (``global_step``, whose ``:0`` tensor is a handle that a
  hook would print as bytes) raises ``VariableHandle`` naming its value tensor.
  A name that the ``model_fn`` builds only in another mode (a metric's tensor,
  given to ``train()``) is reported as such: on a missing name, the hook builds
  the ``model_fn``'s graph in each mode (Estimator and inputs are read from the
  call stack) to tell. One string instead of a dict or a list raises
  ``BareName`` when the hook is made. ``resolve_tensors`` is the check it makes.
* ``ProgressBar(steps=N)`` or ``ProgressBar(max_steps=M)`` draws a plain-text
  ``tqdm`` bar (``tqdm.std``, never a widget) of the global step. It ends at
  exactly N/N: it does not show the global step fetched together with
  ``train_op`` (read before that run's update, so a bar built on it ends at
  N-1 of N; and nothing in the graph even orders that read before the update).
  It counts one step per run from the step read when the session starts, and
  ``end()`` reads the real global step once more.
* ``Collector(tensors, every_n_steps)`` fetches named tensors every N global
  steps into a list of dicts; ``frame()`` turns it into a pandas DataFrame.
  It counts steps the same way, from the step read when the session starts.
* ``HookList`` records every hook of the session it runs in, and ``table()``
  says what each one does and who added it. A hook is not meant to see the
  other hooks: ``HookList`` reads them from the TF 2.15 session object that
  calls its ``begin()`` (an internal, for teaching, not for production code).
* ``build_graph`` builds a ``model_fn``'s graph on placeholders (nothing runs),
  and ``tensor_table`` lists the tensors in it that a hook can name.
* ``quiet_log()`` (from ``logs``) raises TensorFlow's logger to WARNING inside
  a ``with`` block, so that a progress bar is not interleaved with the training log.
"""

from __future__ import annotations

import difflib
import inspect
import re
import sys
from typing import NamedTuple

import numpy as np
import pandas as pd
import tensorflow as tf
from tqdm.std import tqdm

from .logs import quiet_log
from .model_fn_checker import build_graph
from .problems import NotReady, UsageProblem, WorkbookProblem

ModeKeys = tf.estimator.ModeKeys

# Op-name prefixes that a hook never wants; left out of the "similar names".
_NOT_SUGGESTED = ("gradients/", "save/", "report_uninitialized", "init")


class TensorNameProblem(WorkbookProblem, LookupError):
    """A name given to a hook does not lead to a tensor it can log (notebook 05)."""


class MissingTensor(TensorNameProblem):
    """A hook asked for a tensor name that is not in the graph."""


class VariableHandle(TensorNameProblem):
    """A hook asked for a variable by name: ``name:0`` is its handle, not its value."""


class BareName(WorkbookProblem, TypeError):
    """A hook was given one string where it takes a dict or a list of tensor names."""


# --- names ------------------------------------------------------------------


def _suggestible_names(graph) -> list:
    return [op.name for op in graph.get_operations()
            if op.outputs and not op.name.startswith(_NOT_SUGGESTED)]


def _similar(name: str, candidates: list) -> list:
    """Up to 3 candidates close to ``name``: difflib's matches within 0.1 of the best one."""
    scored = []
    for match in difflib.get_close_matches(name, candidates, n=10, cutoff=0.6):
        scored.append((difflib.SequenceMatcher(None, match, name).ratio(), match))
    if not scored:
        return []
    best = max(score for score, _ in scored)
    return [match for score, match in scored if score >= best - 0.1][:3]


def _problem(name: str, graph, candidates: list, mode_graphs: dict, running: str | None) -> str:
    op_name, _, index = name.partition(":")
    try:
        op = graph.get_operation_by_name(op_name)
    except (KeyError, ValueError):
        op = None
    if op is not None:
        outputs = len(op.outputs)
        return (f"the operation '{op_name}' has {outputs} output{'s' if outputs != 1 else ''}, "
                f"so there is no tensor '{op_name}:{index or 0}'")
    modes = [mode for mode, other in mode_graphs.items() if _has_tensor(other, name)]
    complete = len(mode_graphs) == len(_MODE_NAMES)
    # The running mode's own graph must be there to lack the name too (a name uniquified differently in
    # the real graph is not "in another mode"); without the running mode, all three must be there.
    if modes and (running in mode_graphs if running else complete) and running not in modes and (
            len(modes) < len(_MODE_NAMES)):
        return _other_mode_problem(name, modes, running, complete)
    similar = _similar(op_name, candidates)
    if similar:
        return f"no tensor named '{name}' in the graph; similar names: {', '.join(similar)}"
    return (f"no tensor named '{name}' in the graph, and no similar name: name it in the "
            f"model_fn, e.g. tf.identity(x, name='{op_name}')")


def _has_tensor(graph, name: str) -> bool:
    try:
        graph.as_graph_element(name if ":" in name else name + ":0")
    except (KeyError, ValueError):
        return False
    return True


_MODE_NAMES = {ModeKeys.TRAIN: "TRAIN", ModeKeys.EVAL: "EVAL", ModeKeys.PREDICT: "PREDICT"}
_MODE_CALLS = {ModeKeys.TRAIN: "train", ModeKeys.EVAL: "evaluate", ModeKeys.PREDICT: "predict"}


def _other_mode_problem(name: str, modes: list, running: str | None, complete: bool) -> str:
    where = " and ".join(_MODE_NAMES[mode] for mode in modes) + (" graph" if len(modes) == 1 else " graphs")
    here = (f"the {_MODE_NAMES[running]} graph this hook runs in ({_MODE_CALLS[running]}())" if running
            else "the graph this hook runs in")
    give = " or ".join(f"{_MODE_CALLS[mode]}(hooks=[...])" for mode in modes)
    exists = "exists only in" if complete else "exists in"  # a mode whose graph could not be built may have it
    return (f"'{name}' {exists} the {where} of the model_fn, not in {here}: give the hook to {give}, "
            "or build the tensor before the model_fn branches on mode")


def refuse_bare_name(tensors) -> None:
    """Raise ``BareName`` for one string given where a hook takes a dict or a list of names.

    ``LoggingTensorHook("softmax_tensor", …)`` iterates the string and looks up
    one tensor per character.
    """
    if isinstance(tensors, str):
        letters = ", ".join(repr(letter) for letter in tensors[:3]) + (", …" if len(tensors) > 3 else "")
        raise BareName(f"tensors={tensors!r} is one string, which LoggingTensorHook reads as {len(tensors)} "
                       f"tensor names of one character each ({letters}): give a dict {{tag: name}}, "
                       f"e.g. {{{tensors!r}: {tensors!r}}}, or a list [{tensors!r}]")


# --- where a hook runs: the Estimator call on the stack, and its other modes ----------


class _EstimatorCall(NamedTuple):
    estimator: object
    mode: str | None
    features: object
    labels: object
    input_fn: object


_ENTRY_POINTS = {"train": ModeKeys.TRAIN, "evaluate": ModeKeys.EVAL, "predict": ModeKeys.PREDICT}


def _estimator_call():
    """``_EstimatorCall(estimator, mode, features, labels, input_fn)`` of the Estimator call running now, or None.

    Read from the call stack, as ``HookList`` reads the session's hooks: the
    innermost ``train`` / ``evaluate`` / ``predict`` of an Estimator gives the
    mode (an evaluation inside ``train_and_evaluate`` runs within ``train``);
    the innermost Estimator frames that hold ``features`` (``train``,
    ``predict``) and ``input_fn`` give the inputs.
    """
    estimator = mode = inputs = input_fn = None
    frame = inspect.currentframe()
    while frame is not None:
        local = frame.f_locals
        if isinstance(local.get("self"), tf.compat.v1.estimator.Estimator):
            estimator = estimator or local["self"]
            mode = mode or _ENTRY_POINTS.get(frame.f_code.co_name)
            if inputs is None and "features" in local:
                inputs = (local["features"], local.get("labels"))
            input_fn = input_fn or local.get("input_fn")
        frame = frame.f_back
    if estimator is None:
        return None
    return _EstimatorCall(estimator, mode, *(inputs or (None, None)), input_fn)


def _inputs_like(call: _EstimatorCall):
    """``(features, labels)`` whose structure, dtypes and shapes the model_fn is given, or ``(None, None)``.

    The ones on the stack, or else those of ``input_fn`` called in a graph of
    its own (under ``evaluate`` the features are no longer on the stack).
    """
    if call.features is not None or call.input_fn is None:
        return call.features, call.labels
    try:
        with tf.Graph().as_default(), quiet_log():
            features, labels, _ = call.estimator._get_features_and_labels_from_input_fn(
                call.input_fn, call.mode or ModeKeys.EVAL)
    except Exception:  # noqa: BLE001 - then the course's input shapes are tried
        return None, None
    return features, labels


def _mode_graphs(call: _EstimatorCall, names: list) -> dict:
    """``{mode: graph}`` that the estimator's ``model_fn`` builds in each mode, to look ``names`` up in.

    On placeholders shaped like the call's inputs (the course's input when they
    cannot be found). A mode whose graph cannot be built so is left out. The
    running mode's graph is built only when another mode's graph has one of
    ``names`` (to confirm that it lacks it too).
    """
    features, labels = _inputs_like(call)
    graphs = {}
    others = [mode for mode in _MODE_NAMES if mode != call.mode]
    for mode in others + [call.mode]:
        if mode is None or (mode == call.mode and not any(
                _has_tensor(graph, name) for graph in graphs.values() for name in names)):
            continue
        try:
            with quiet_log():  # "Calling model_fn." belongs to the real calls
                graphs[mode] = build_graph(call.estimator.model_fn, None, mode, features, labels)
        except Exception:  # noqa: BLE001 - the learner's model_fn may need inputs these placeholders lack
            continue
    return graphs


def _handle_problem(name: str, graph) -> str:
    op_name = name.partition(":")[0]
    read = f"{op_name}/Read/ReadVariableOp"
    try:
        graph.get_operation_by_name(read)
        instead = f"log '{read}', its value"
    except (KeyError, ValueError):
        instead = f"log tf.identity({op_name}) named in the model_fn"
    return (f"'{name}' is a variable, and the tensor '{op_name}:0' is its handle (dtype resource), "
            f"not its value: {instead}")


def resolve_tensors(tensors, graph=None) -> dict:
    """``{tag: Tensor}`` for a dict ``{tag: name or Tensor}`` (or a list of names), as hooks resolve them.

    A name is looked up as ``name:0`` unless it has an output index (``name:1``);
    name scopes are part of the name (``scope/name``). Every name that is not in
    ``graph`` (default: the current default graph) is reported in one
    ``MissingTensor`` that lists the most similar names in the graph; when no
    ``graph`` is given and an Estimator call is running (a hook's ``begin()``),
    the ``model_fn``'s graph in each mode is built to tell a name that exists
    only in another mode (a metric's tensor, given to ``train()``). A
    name that leads to a variable's handle (``global_step``: dtype
    ``resource``; a hook would print its bytes) raises ``VariableHandle``
    naming the tensor that holds the variable's value. One string instead of
    a dict or a list raises ``BareName``.
    """
    refuse_bare_name(tensors)
    in_session = graph is None
    graph = graph if graph is not None else tf.compat.v1.get_default_graph()
    if not isinstance(tensors, dict):
        tensors = {item: item for item in tensors}
    found, missing, handles = {}, [], []
    for tag, name in tensors.items():
        if not isinstance(name, str):
            found[tag] = name
            continue
        try:
            element = graph.as_graph_element(name if ":" in name else name + ":0")
        except (KeyError, ValueError):
            missing.append(name)
            continue
        if getattr(element, "dtype", None) == tf.resource:
            handles.append(_handle_problem(name, graph))
            continue
        found[tag] = element
    if missing:
        call = _estimator_call() if in_session else None
        mode_graphs = _mode_graphs(call, missing) if call else {}
        running = call.mode if call else None
        candidates = _suggestible_names(graph)
        raise MissingTensor(" | ".join(_problem(name, graph, candidates, mode_graphs, running) for name in missing))
    if handles:
        raise VariableHandle(" | ".join(handles))
    return found


class CheckedLoggingTensorHook(tf.estimator.LoggingTensorHook):
    """``tf.estimator.LoggingTensorHook`` whose ``begin()`` first checks every name.

    Same arguments and the same log lines; a missing name raises
    ``MissingTensor`` (one line, with similar names, or the mode whose graph
    has it) instead of ``KeyError``, a variable's name raises ``VariableHandle``
    instead of logging bytes, and one string instead of a dict or a list
    raises ``BareName`` instead of a ``KeyError`` per character.
    """

    def __init__(self, tensors, *args, **kwargs):
        refuse_bare_name(tensors)
        super().__init__(tensors, *args, **kwargs)

    def begin(self):
        resolve_tensors(self._tensors)
        super().begin()


def tensor_table(graph, pattern: str = "") -> pd.DataFrame:
    """The tensors of ``graph`` whose name matches the regular expression ``pattern``.

    One row per tensor: its name as a hook takes it (``op`` for an op's first
    output, ``op:1`` for the next), the tensor's full name, shape, dtype and
    the kind of op that makes it. A ``resource`` dtype is a variable's handle,
    not a value to log. Gradient and saver ops are left out.
    """
    rows = []
    wanted = re.compile(pattern)
    for op in graph.get_operations():
        if op.name.startswith(_NOT_SUGGESTED) or not wanted.search(op.name):
            continue
        for tensor in op.outputs:
            rows.append({
                "name": op.name if tensor.value_index == 0 else tensor.name,
                "tensor": tensor.name,
                "shape": str(tensor.shape),
                "dtype": tensor.dtype.name,
                "op type": op.type,
            })
    return pd.DataFrame(rows, columns=["name", "tensor", "shape", "dtype", "op type"])


# --- progress bar -------------------------------------------------------------


def _global_step_or_fail(hook_name: str):
    global_step = tf.compat.v1.train.get_global_step()
    if global_step is None:
        raise NotReady(f"{hook_name} needs a global step in the graph (Estimator creates one)")
    return global_step


class ProgressBar(tf.estimator.SessionRunHook):
    """A plain-text progress bar of the global step, for ``train(..., hooks=[...])``.

    Give it what you give ``train``: ``steps=N`` (N more steps: the bar goes
    from the restored global step to that step + N) or ``max_steps=M`` (the bar
    goes up to global step M). It writes to ``sys.stdout`` with ``tqdm.std``, so
    it is text in a notebook, a terminal or a log file. After training,
    ``start``, ``target`` and ``last_step`` say what it showed.
    """

    def __init__(self, steps: int | None = None, max_steps: int | None = None,
                 description: str = "training", file=None, mininterval: float = 0.5):
        if (steps is None) == (max_steps is None):
            raise UsageProblem("give ProgressBar exactly one of steps= or max_steps=, as you give train()")
        if (steps if steps is not None else max_steps) < 1:
            raise UsageProblem("steps and max_steps must be at least 1")
        self.steps, self.max_steps = steps, max_steps
        self.description, self.file, self.mininterval = description, file, mininterval
        self.bar = None
        self.start = self.target = self.last_step = None

    def begin(self):
        self._global_step = _global_step_or_fail("ProgressBar")

    def after_create_session(self, session, coord):
        self.start = int(session.run(self._global_step))
        self.target = self.start + self.steps if self.steps is not None else self.max_steps
        self.last_step = self.start
        self.bar = tqdm(total=self.target, initial=self.start, desc=self.description, unit="step",
                        file=self.file if self.file is not None else sys.stdout,
                        mininterval=self.mininterval, dynamic_ncols=False, leave=True)

    def after_run(self, run_context, run_values):
        # One training step per run: count it. (A global step fetched in this
        # run would be the value before the run's update.)
        self._show(self.last_step + 1)

    def end(self, session):
        # Whatever was counted, the real global step has the last word.
        self._show(int(session.run(self._global_step)))
        self._close()

    def _show(self, step: int) -> None:
        if self.bar is None or self.bar.disable:
            return
        self.bar.update(step - self.bar.n)
        self.last_step = step
        if step >= self.target:
            self._close()

    def _close(self) -> None:
        if self.bar is not None and not self.bar.disable:
            self.bar.close()  # a closed tqdm bar is disabled; it keeps its n and total


# --- collector ----------------------------------------------------------------


def _plain(value):
    value = np.asarray(value)
    if value.ndim == 0:
        return value.item()
    return value


class Collector(tf.estimator.SessionRunHook):
    """Fetch named tensors every ``every_n_steps`` global steps into ``rows``.

    ``tensors`` is ``{column: tensor name or Tensor}``; names are checked as
    ``CheckedLoggingTensorHook`` checks them. Each row is ``{"step": s,
    column: value, ...}`` where ``s`` is the global step when that run started
    (``s`` updates were done before it, like ``step`` in the training log's
    ``loss = …, step = …`` lines), a multiple of ``every_n_steps``. The hook
    reads the global step when the session starts and counts one step per run.
    Rows accumulate over ``train()`` calls; ``frame()`` returns them as a
    DataFrame indexed by step.
    """

    def __init__(self, tensors: dict, every_n_steps: int):
        if not isinstance(tensors, dict) or not tensors:
            raise UsageProblem("give Collector a dict {column: tensor name}")
        if int(every_n_steps) < 1:
            raise UsageProblem(f"every_n_steps={every_n_steps}: it must be at least 1")
        self.tensors = dict(tensors)
        self.every_n_steps = int(every_n_steps)
        self.rows = []

    def begin(self):
        self._global_step = _global_step_or_fail("Collector")
        self._fetches = resolve_tensors(self.tensors)

    def after_create_session(self, session, coord):
        self._next_step = int(session.run(self._global_step))

    def before_run(self, run_context):
        self._collect = self._next_step % self.every_n_steps == 0
        return tf.estimator.SessionRunArgs(self._fetches) if self._collect else None

    def after_run(self, run_context, run_values):
        if self._collect:
            row = {"step": self._next_step}
            row.update({column: _plain(value) for column, value in run_values.results.items()})
            self.rows.append(row)
        self._next_step += 1

    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame indexed by global step (columns in the order given)."""
        return pd.DataFrame(self.rows, columns=["step", *self.tensors]).set_index("step")


# --- the hooks of a session -----------------------------------------------------


def _timer_text(timer, unit: str = "steps") -> str:
    every_steps = getattr(timer, "_every_steps", None)
    every_secs = getattr(timer, "_every_secs", None)
    if every_steps:
        return f"every {every_steps} {unit}"
    if every_secs:
        return f"every {every_secs:g} s"
    return "never on a schedule"


def describe_hook(hook, me=None) -> dict:
    """``{"hook", "what it does", "added by"}`` for one hook of a training session."""
    train = tf.compat.v1.train
    name = type(hook).__name__
    if hook is me:
        return {"hook": name, "what it does": "this hook: records the session's hooks",
                "added by": "you: train(hooks=[...])"}
    if isinstance(hook, train.CheckpointSaverHook):
        return {"hook": name, "what it does": f"saves a checkpoint at the start, {_timer_text(hook._timer)} and at the end",
                "added by": "Estimator: RunConfig save_checkpoints_secs / _steps"}
    if isinstance(hook, train.StepCounterHook):
        return {"hook": name, "what it does": f"logs global_step/sec and writes it to the events file {_timer_text(hook._timer)}",
                "added by": "Estimator: RunConfig log_step_count_steps"}
    if isinstance(hook, train.SummarySaverHook):
        return {"hook": name, "what it does": f"writes the graph's summaries (loss, …) to the events file {_timer_text(hook._timer)}",
                "added by": "Estimator: RunConfig save_summary_steps"}
    if isinstance(hook, train.StopAtStepHook):
        if hook._num_steps is not None:
            what = f"stops after {hook._num_steps} more steps (num_steps={hook._num_steps})"
        else:
            what = f"stops at global step {hook._last_step} (last_step={hook._last_step})"
        return {"hook": name, "what it does": what, "added by": "train(steps=...) or train(max_steps=...), or you"}
    if isinstance(hook, train.NanTensorHook):
        what = ("raises NanLossDuringTrainingError when the loss is NaN" if hook._fail_on_nan_loss
                else "stops training when the loss is NaN")
        return {"hook": name, "what it does": what, "added by": "Estimator: always"}
    if isinstance(hook, train.LoggingTensorHook):
        tags = ", ".join(str(tag) for tag in hook._tag_order)
        if isinstance(hook._timer, tf.estimator.SecondOrStepTimer):
            when = _timer_text(hook._timer, "of its runs") + (" and at the end" if hook._log_at_end else "")
        else:
            when = "at the end"
        is_estimators = sorted(map(str, hook._tensors)) == ["loss", "step"]
        return {"hook": name, "what it does": f"logs {tags} {when}",
                "added by": "Estimator: RunConfig log_step_count_steps" if is_estimators else "you"}
    if name == "_DatasetInitializerHook":
        return {"hook": name, "what it does": "initialises the iterator of the input_fn's dataset",
                "added by": "Estimator: input_fn returned a Dataset"}
    return {"hook": name, "what it does": (inspect.getdoc(hook) or "").split("\n")[0], "added by": "you"}


class HookList(tf.estimator.SessionRunHook):
    """Records every hook of the session it is given to; ``table()`` describes them.

    In TF 2.15 the monitored session calls ``begin()`` on each hook from its
    ``__init__``, where its list ``_hooks`` holds all of them, in the order in
    which they are called. This hook reads that list: a look at an internal,
    for teaching; it raises ``RuntimeError`` if a TensorFlow version hides it.
    """

    def __init__(self):
        self.hooks = None

    def begin(self):
        frame = inspect.currentframe().f_back
        for _ in range(4):  # the session's __init__ is the caller; allow a wrapper or two
            owner = frame.f_locals.get("self") if frame is not None else None
            found = getattr(owner, "_hooks", None)
            if isinstance(found, (list, tuple)) and any(hook is self for hook in found):
                self.hooks = list(found)
                return
            frame = frame.f_back if frame is not None else None
        raise NotReady("HookList could not find the session's hooks (this TensorFlow is not 2.15?)")

    def table(self) -> pd.DataFrame:
        """One row per hook, in the order the session calls them."""
        if self.hooks is None:
            raise NotReady("HookList has not run yet: pass it to train(..., hooks=[...]) first")
        rows = [describe_hook(hook, me=self) for hook in self.hooks]
        frame = pd.DataFrame(rows, columns=["hook", "what it does", "added by"])
        frame.index = pd.RangeIndex(1, len(frame) + 1, name="order")
        return frame

