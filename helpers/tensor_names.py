"""Tensor names a hook can log, checked: one line on what the graph has instead (notebook 05's
hooks use it)."""

from __future__ import annotations

import inspect
import logging

import tensorflow as tf

from .language import _, all_of, any_of, listed
from .logs import logger_level
from .model_graph import build_graph
from .problems import WorkbookProblem, similar_names

ModeKeys = tf.estimator.ModeKeys
_NOT_SUGGESTED = ("gradients/", "save/", "report_uninitialized", "init")  # op names never suggested
_MODE_NAMES = {ModeKeys.TRAIN: "TRAIN", ModeKeys.EVAL: "EVAL", ModeKeys.PREDICT: "PREDICT"}
_MODE_CALLS = {ModeKeys.TRAIN: "train", ModeKeys.EVAL: "evaluate", ModeKeys.PREDICT: "predict"}


class TensorNameProblem(WorkbookProblem, LookupError):
    """A name given to a hook does not lead to a tensor it can log."""


class MissingTensor(TensorNameProblem):
    """A hook asked for a tensor name that is not in the graph."""


class VariableHandle(TensorNameProblem):
    """A hook asked for a variable by name: ``name:0`` is its handle, not its value."""


class BareName(WorkbookProblem, TypeError):
    """A hook was given one string where it takes a dict or a list of tensor names."""


def resolve_tensors(tensors, graph: tf.Graph | None = None) -> dict:
    """``{tag: Tensor}`` for ``{tag: name or Tensor}`` (or a list of names), as hooks resolve them.
    Without ``graph`` (in a hook's ``begin()``) in the default graph, and a missing name is looked
    up in each mode's graph too.
    """
    refuse_bare_name(tensors)
    in_session, graph = graph is None, graph or tf.compat.v1.get_default_graph()
    if not isinstance(tensors, dict):
        tensors = {item: item for item in tensors}
    found, missing, handles = {}, [], []
    for tag, name in tensors.items():
        if not isinstance(name, str):
            found[tag] = name
        elif (element := _tensor(graph, name)) is None:
            missing.append(name)
        elif element.dtype == tf.resource:
            op_name = name.partition(":")[0]
            read = f"{op_name}/Read/ReadVariableOp"
            if _tensor(graph, read) is not None:
                handle = _(
                    "'{name}' is a variable, and the tensor '{op}:0' is its handle (dtype "
                    "resource), not its value: log '{read}', its value"
                )
            else:
                handle = _(
                    "'{name}' is a variable, and the tensor '{op}:0' is its handle (dtype "
                    "resource), not its value: log tf.identity({op}) named in the model_fn"
                )
            handles.append(handle.format(name=name, op=op_name, read=read))
        else:
            found[tag] = element
    if missing:
        running, mode_graphs = _mode_graphs(missing) if in_session else (None, {})
        candidates = [
            op.name
            for op in graph.get_operations()
            if op.outputs and not op.name.startswith(_NOT_SUGGESTED)
        ]
        raise MissingTensor(
            " | ".join(_problem(name, graph, candidates, mode_graphs, running) for name in missing)
        )
    if handles:
        raise VariableHandle(" | ".join(handles))
    return found


def refuse_bare_name(tensors) -> None:
    """Raise ``BareName`` for one string: ``LoggingTensorHook("softmax_tensor", …)`` reads one
    name per letter."""
    if isinstance(tensors, str):
        letters = ", ".join(repr(letter) for letter in tensors[:3]) + (
            ", …" if len(tensors) > 3 else ""
        )
        raise BareName(
            _(
                "tensors={tensors!r} is one string, which LoggingTensorHook reads as {count} "
                "tensor names of one character each ({letters}): give a dict {{tag: name}}, e.g. "
                "{{{tensors!r}: {tensors!r}}}, or a list [{tensors!r}]"
            ).format(tensors=tensors, count=len(tensors), letters=letters)
        )


def _tensor(graph: tf.Graph, name: str) -> tf.Tensor | None:
    try:
        return graph.as_graph_element(name if ":" in name else name + ":0")
    except (KeyError, ValueError):
        return None


def _problem(
    name: str, graph: tf.Graph, candidates: list, mode_graphs: dict, running: str | None
) -> str:
    op_name, _colon, index = name.partition(":")
    if op_name in {op.name for op in graph.get_operations()}:
        outputs = len(graph.get_operation_by_name(op_name).outputs)
        if outputs == 1:
            sentence = _("the operation '{op}' has 1 output, so there is no tensor '{op}:{index}'")
        else:
            sentence = _(
                "the operation '{op}' has {outputs} outputs, so there is no tensor '{op}:{index}'"
            )
        return sentence.format(op=op_name, outputs=outputs, index=index or 0)
    modes = [mode for mode, other in mode_graphs.items() if _tensor(other, name) is not None]
    complete = len(mode_graphs) == len(_MODE_NAMES)
    # The running mode's own graph must be there to lack the name too (a name uniquified differently
    # in the real graph is not "in another mode"); without the running mode, all three must be
    # there.
    if (
        modes
        and (running in mode_graphs if running else complete)
        and running not in modes
        and (len(modes) < len(_MODE_NAMES))
    ):
        values = {
            "name": name,
            "modes": all_of(_MODE_NAMES[mode] for mode in modes),
            "mode": _MODE_NAMES.get(running),
            "call": _MODE_CALLS.get(running),
            "calls": any_of(f"{_MODE_CALLS[mode]}(hooks=[...])" for mode in modes),
        }
        # a mode whose graph could not be built may have it: "exists in", not "only"
        if complete and running:
            sentence = _(
                "'{name}' exists only in the graph of the model_fn for {modes}, not in the {mode} "
                "graph this hook runs in ({call}()): give the hook to {calls}, or build the tensor "
                "before the model_fn branches on mode"
            )
        elif complete:
            sentence = _(
                "'{name}' exists only in the graph of the model_fn for {modes}, not in the graph "
                "this hook runs in: give the hook to {calls}, or build the tensor before the "
                "model_fn branches on mode"
            )
        elif running:
            sentence = _(
                "'{name}' exists in the graph of the model_fn for {modes}, not in the {mode} "
                "graph this hook runs in ({call}()): give the hook to {calls}, or build the tensor "
                "before the model_fn branches on mode"
            )
        else:
            sentence = _(
                "'{name}' exists in the graph of the model_fn for {modes}, not in the graph this "
                "hook runs in: give the hook to {calls}, or build the tensor before the model_fn "
                "branches on mode"
            )
        return sentence.format(**values)
    if similar := similar_names(op_name, candidates):
        return _("no tensor named '{name}' in the graph; similar names: {similar}").format(
            name=name, similar=listed(similar)
        )
    return _(
        "no tensor named '{name}' in the graph, and no similar name: name it in the model_fn, "
        "e.g. tf.identity(x, name='{op}')"
    ).format(name=name, op=op_name)


def _mode_graphs(names: list) -> tuple[str | None, dict]:
    """The mode of the Estimator call running now and its ``model_fn``'s graph in each mode, read
    from the stack: the innermost ``train``/``evaluate``/``predict`` gives the mode
    (``train_and_evaluate`` evaluates within ``train``), the innermost ``features``/``input_fn`` the
    inputs (else the course's). A mode that fails to build is left out; the running mode's is built
    only when another mode's graph has one of ``names``.
    """
    entry_points = {call: mode for mode, call in _MODE_CALLS.items()}
    estimator = running = inputs = input_fn = None
    frame = inspect.currentframe()
    while frame is not None:
        local = frame.f_locals
        if isinstance(local.get("self"), tf.compat.v1.estimator.Estimator):
            estimator = estimator or local["self"]
            running = running or entry_points.get(frame.f_code.co_name)
            if inputs is None and "features" in local:
                inputs = (local["features"], local.get("labels"))
            input_fn = input_fn or local.get("input_fn")
        frame = frame.f_back
    if estimator is None:
        return None, {}
    features, labels = inputs or (None, None)
    if features is None and input_fn is not None:
        try:
            with tf.Graph().as_default(), logger_level(logging.WARNING):
                features, labels, _hooks = estimator._get_features_and_labels_from_input_fn(
                    input_fn, running or ModeKeys.EVAL
                )
        except Exception:  # noqa: BLE001 - then the course's input shapes are tried
            features = labels = None
    graphs = {}
    for mode in [mode for mode in _MODE_NAMES if mode != running] + [running]:
        if mode is None or (
            mode == running
            and not any(
                _tensor(graph, name) is not None for graph in graphs.values() for name in names
            )
        ):
            continue
        try:
            with logger_level(logging.WARNING):  # "Calling model_fn." belongs to the real calls
                graphs[mode] = build_graph(estimator.model_fn, None, mode, features, labels)
        except Exception:  # noqa: BLE001 - the model_fn may need inputs these placeholders lack
            continue
    return running, graphs
