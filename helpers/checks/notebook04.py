"""Exercise checks of notebook 04 (training, checkpoints, resuming)."""

from __future__ import annotations

import os

from ..language import all_of
from .common import correct, fail, is_whole_number, reporting_learner_errors, require_answer

__all__ = ["global_steps_after", "steps_after_rerun", "fixed_estimator"]

# Exercise 1: the train() calls, in order, on a fresh model_dir (the notebook lists the same).
EXERCISE_1_CALLS = (("steps", 200), ("max_steps", 500), ("max_steps", 400), ("steps", 100))
# a crash, the same call again
EXERCISE_2 = {"save_checkpoints_steps": 100, "crash_at": 750, "count": 1000}


def train_ranges(calls) -> list[range]:
    """The global steps that each ``(kind, count)`` call, train(kind=count), runs on a fresh model
    (also 05)."""
    ranges, step = [], 0
    for kind, count in calls:
        ranges.append(range(step, step + count if kind == "steps" else max(step, count)))
        step = ranges[-1].stop
    return ranges


@reporting_learner_errors
def global_steps_after(answer, calls=EXERCISE_1_CALLS) -> None:
    """Notebook 04, exercise 1: the global step after each train() call of ``calls``."""
    require_answer(answer, "global_steps")
    if not isinstance(answer, (list, tuple)) or not all(is_whole_number(v) for v in answer):
        fail(
            "`global_steps` should be a list of {calls} whole numbers, one per train() call",
            calls=len(calls),
        )
    if len(answer) != len(calls):
        fail(
            "`global_steps` has {given} numbers: give one per train() call, {calls} in all",
            given=len(answer),
            calls=len(calls),
        )
    ranges = train_ranges(calls)
    for index, ((kind, count), got, run) in enumerate(zip(calls, map(int, answer), ranges)):
        if got == run.stop:
            continue
        call = dict(number=index + 1, kind=kind, count=count, got=got, before=run.start)
        if kind == "max_steps" and got == run.start + count:
            fail(
                "call {number}, train(..., {kind}={count}): max_steps is not a number of steps "
                "to add but the global step to stop at; the model was at {before}",
                **call,
            )
        if kind == "max_steps" and count < run.start and got == count:
            fail(
                "call {number}, train(..., {kind}={count}): training never goes back; with the "
                "model already at {before}, max_steps={count} does nothing",
                **call,
            )
        if kind == "steps" and got == count:
            fail(
                "call {number}, train(..., {kind}={count}): steps counts from where the model "
                "is ({before}), not from 0",
                **call,
            )
        fail(
            "call {number}, train(..., {kind}={count}): {got} is not it; the model was at "
            "{before} before this call",
            **call,
        )
    correct(
        "the global steps are {steps}: `steps` adds, `max_steps` stops at a global step and "
        "never goes back",
        steps=[run.stop for run in ranges],
    )


@reporting_learner_errors
def steps_after_rerun(answer, scenario: dict | None = None) -> None:
    """Notebook 04, exercise 2: the final global step after a crash and a re-run, for steps and
    max_steps."""
    require_answer(answer, "after_rerun")
    scenario = dict(EXERCISE_2, **(scenario or {}))
    every, crash_at, count = (
        scenario["save_checkpoints_steps"],
        scenario["crash_at"],
        scenario["count"],
    )
    if not isinstance(answer, dict) or set(answer) != {"steps", "max_steps"}:
        fail("`after_rerun` should be a dict with the two keys 'steps' and 'max_steps'")
    for key, value in answer.items():
        if not is_whole_number(value):
            fail(
                "after_rerun[{key!r}] should be a whole number (a global step), not {value!r}",
                key=key,
                value=value,
            )
    restored = (crash_at // every) * every  # the scenario never crashes on a saving step
    with_steps, with_max = int(answer["steps"]), int(answer["max_steps"])
    values = dict(
        crash_at=crash_at,
        count=count,
        restored=restored,
        ended=restored + count,
        with_steps=with_steps,
        with_max=with_max,
    )
    if with_steps != restored + count:
        if with_steps == crash_at + count:
            fail(
                "after_rerun['steps']: the re-run does not start at {crash_at}, where it "
                "crashed: it starts from the last checkpoint",
                **values,
            )
        if with_steps == count:
            fail(
                "after_rerun['steps']: steps={count} adds {count} steps to the restored model; "
                "where does the re-run start?",
                **values,
            )
        fail(
            "after_rerun['steps']: {with_steps} is not it; find the last checkpoint written "
            "before the crash, then add {count}",
            **values,
        )
    if with_max != count:
        fail(
            "after_rerun['max_steps']: {with_max} is not it; max_steps={count} is the global "
            "step where training stops, wherever it restarts",
            **values,
        )
    correct(
        "the re-run restores step {restored} (the last checkpoint before the crash at "
        "{crash_at}); steps={count} ends at {ended}, max_steps={count} at {count}",
        **values,
    )


@reporting_learner_errors
def fixed_estimator(answer, old_model_dir, params: dict, steps: int) -> None:
    """Notebook 04, exercise 3: the widened model, trained in a fresh model_dir, every variable
    whose shape the change kept warm-started from the old one.

    Where each variable started is read off what the training did, whichever checkpoints its
    RunConfig kept: the first train() call in the model_dir recorded its graph, whose
    initializers, run again, give every starting value and name the checkpoint each warm-started
    variable was read from (the learner's Estimator's own warm start when nothing was recorded);
    the step-0 checkpoint, where kept, must agree."""
    require_answer(answer, "fixed_estimator")
    import tensorflow as tf

    if not isinstance(answer, tf.estimator.Estimator):
        fail(
            "`fixed_estimator` should be a tf.estimator.Estimator, not {kind}",
            kind=type(answer).__name__,
        )
    _require_own_model_dir(answer, old_model_dir, steps)
    _require_params(answer, params)
    settings = getattr(answer, "_warm_start_settings", None)  # what warm_start_from became
    built = _built(answer, settings)
    _require_trained_checkpoints(answer, settings, built, steps)
    start = _recorded_start(str(answer.model_dir)) or _start_of(built["graph"], built["error"])
    _require_start_runs(start)
    source = tf.train.latest_checkpoint(str(old_model_dir))
    origins = _origins(start, source)
    _require_step_0_agrees(answer, start, old_model_dir)
    # the layers kept, of the model that trained (a new Estimator on its model_dir may differ)
    kept = [name for name in _kept_weights(old_model_dir, built["shapes"]) if name in origins]
    _require_origins_from_source({name: origins[name] for name in kept}, source)
    _require_kept_warm(settings, built, kept, origins)
    correct(
        "the changed model trained to step {steps} in its own model_dir, and the variables "
        "of the layers it kept ({kept}) started from the old model's values",
        steps=steps,
        kept=all_of(kept),
    )


def _require_own_model_dir(answer, old_model_dir, steps: int) -> None:
    """Fail when the learner's Estimator uses the old model's model_dir (and say whether it
    already trained there, wiping the old model), or when the old model is gone."""
    import tensorflow as tf

    trained = tf.train.latest_checkpoint(str(old_model_dir))
    if os.path.realpath(str(answer.model_dir)) == os.path.realpath(str(old_model_dir)):
        if trained is None:
            fail(
                "`fixed_estimator`'s model_dir is the old model's folder, which holds no "
                "checkpoint any more: the old model is gone (`settings.fresh_model_dir(...)` of "
                "that name empties the folder); run the cells that train it again, then give "
                "`fixed_estimator` a model_dir of its own"
            )
        # the old model's run ends far beyond `steps`: a run of `steps` there started afresh
        if int(tf.train.load_variable(trained, "global_step")) == steps:
            fail(
                "`fixed_estimator` trained in the old model's folder, which "
                "settings.fresh_model_dir(...) of that name emptied first: the old model is "
                "gone; run the cells that train it again, then give fixed_estimator a "
                "model_dir of its own"
            )
        fail(
            "`fixed_estimator` still uses the old model_dir, so it restores the old "
            "checkpoint: give it a fresh one with settings.fresh_model_dir(...)"
        )
    if trained is None:
        fail(
            "the old model's folder, {folder}, holds no checkpoint any more: the old model is "
            "gone (`settings.fresh_model_dir(...)` of that name empties the folder), so there is "
            "nothing to warm-start from; run the cells that train it again, then your cell",
            folder="`{}`".format(os.path.basename(os.path.normpath(str(old_model_dir)))),
        )


def _require_params(answer, params: dict) -> None:
    """Fail when the learner's Estimator does not build the changed model's ``params`` (others,
    such as a learning rate, change no variable and are the learner's to choose)."""
    import numpy as np

    given = answer.params or {}
    for key, value in params.items():
        if key not in given:
            fail(
                "`fixed_estimator` builds {key}=the default, not the changed model's "
                "{key}={value}: pass params=widened",
                key=key,
                value=value,
            )
        if tuple(np.ravel(given[key])) != tuple(np.ravel(value)):
            fail(
                "`fixed_estimator` builds {key}={built}, not the changed model's "
                "{key}={value}: pass params=widened",
                key=key,
                built=given[key],
                value=value,
            )


def _built(answer, settings) -> dict:
    """The learner's Estimator's model as its ``train()`` builds it in an empty model_dir: its
    graph, built as Estimator builds it, with its warm start applied as Estimator applies it
    (``tf.compat.v1.train.warm_start(*settings)`` right after the model_fn). ``graph``;
    ``shapes``: ``{name: shape}`` of every variable; ``selected``: of the variables its
    ``vars_to_warm_start`` selects; ``error``: what the warm start raised."""
    import tensorflow as tf

    from ..logs import logger_level
    from ..model_graph import build_graph

    with logger_level("ERROR"):  # "Calling model_fn.", "Warm-starting with ...": not the check's
        graph = build_graph(answer.model_fn)
        variables = graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
        built = {"graph": graph, "selected": {}, "error": None}
        built["shapes"] = {variable.op.name: variable.shape.as_list() for variable in variables}
        if settings is not None:
            with graph.as_default():
                built["selected"] = _selected(settings.vars_to_warm_start)
                try:
                    tf.compat.v1.train.warm_start(*settings)
                except Exception as raised:  # train() raised it too, before its first step
                    built["error"] = raised
    return built


def _selected(vars_to_warm_start) -> dict:
    """``{name: shape}`` of the variables that ``vars_to_warm_start`` selects in the default graph,
    as the warm start selects them."""
    from tensorflow.python.training import warm_starting_util

    try:
        grouped = warm_starting_util._get_grouped_variables(vars_to_warm_start)
    except ValueError:
        grouped = {}
    return {name: variables[0].shape.as_list() for name, variables in grouped.items() if variables}


def _require_trained_checkpoints(answer, settings, built: dict, steps: int) -> None:
    """Fail unless the learner's model_dir holds checkpoints of the changed model, trained once
    for ``steps`` steps."""
    import tensorflow as tf

    state = tf.train.get_checkpoint_state(str(answer.model_dir))
    if state is None or not state.all_model_checkpoint_paths:
        if settings is not None:
            _judge_warm_start_run(built, settings)
        fail(
            "`fixed_estimator` has no checkpoint yet: it has not trained the {steps} steps the "
            "exercise asks for",
            steps=steps,
        )
    restored = _other_shapes(built["shapes"], state.model_checkpoint_path)
    if restored:
        fail(
            "`fixed_estimator`'s checkpoints hold {variables} in other shapes than the changed "
            "model's: its model_dir was not empty, so `train()` restored the checkpoint there "
            "instead of warm-starting, which happens only in an empty model_dir (section 'A "
            "changed model meets an old `model_dir`')",
            variables=all_of(restored),
        )
    reached = int(answer.get_variable_value("global_step"))
    if reached != steps:
        fail(
            "`fixed_estimator` is at global step {reached}, expected {steps}: train it once "
            "with steps={steps} (a warm start begins at global step 0)",
            reached=reached,
            steps=steps,
        )


def _recorded_start(model_dir: str) -> dict | None:
    """How the first ``train()`` call in ``model_dir`` started its model (``_start_of``), from the
    graph it recorded; None when it recorded none (``RunConfig(checkpoint_save_graph_def=False)``).
    """
    import tensorflow as tf

    from ..logs import logger_level

    recorded = _first_recorded_graph(model_dir)
    if recorded is None:
        return None
    graph = tf.Graph()
    # importing logs "Cannot identify data type for collection savers" as an error, harmlessly
    with graph.as_default(), logger_level("CRITICAL"):
        try:
            tf.compat.v1.train.import_meta_graph(recorded, clear_devices=True)
        except (ValueError, KeyError, tf.errors.OpError):  # a graph this TensorFlow cannot load
            return None
    return _start_of(graph)


def _first_recorded_graph(model_dir: str):
    """The graph of the first ``train()`` call in ``model_dir``: each call writes its own into the
    folder's events file (a MetaGraphDef), a later call's without the warm start, which only a
    call in an empty model_dir runs; else the graph beside the oldest checkpoint kept (a path)."""
    import tensorflow as tf
    from tensorflow.core.protobuf import meta_graph_pb2

    cached = getattr(tf.compat.v1.summary.FileWriterCache, "_cache", {})
    for folder, writer in list(cached.items()):  # the training's writer may still hold events
        if os.path.realpath(folder) == os.path.realpath(model_dir):
            try:
                writer.flush()
            except (OSError, tf.errors.OpError):  # what it has written is read all the same
                pass
    for path in sorted(tf.io.gfile.glob(os.path.join(model_dir, "events.out.tfevents.*"))):
        try:
            for event in tf.compat.v1.train.summary_iterator(path):
                if event.HasField("meta_graph_def"):
                    return meta_graph_pb2.MetaGraphDef.FromString(event.meta_graph_def)
        except tf.errors.OpError:  # a record cut short
            continue
    state = tf.train.get_checkpoint_state(model_dir)
    oldest = f"{state.all_model_checkpoint_paths[0]}.meta"
    return oldest if tf.io.gfile.exists(oldest) else None


def _start_of(graph, error=None) -> dict:
    """The model of ``graph`` at step 0: ``values``, each weight's value once initialised (a warm
    start's initializer reads its checkpoint as it is now, a random one draws with its recorded
    seed); ``sources``, ``{name: (checkpoint, tensor name)}`` of the weights whose initializer
    reads a checkpoint; ``error``, what initialising raised (then no values)."""
    import tensorflow as tf

    start = {"values": {}, "sources": {}, "error": error}
    if error is not None:
        return start
    variables = graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
    weights = {variable.op.name: variable for variable in variables if _is_weight(variable.op.name)}
    for name, variable in weights.items():
        read = _restored_from(variable.initializer)
        if read is not None:
            start["sources"][name] = read
    with graph.as_default():
        initialise = tf.compat.v1.global_variables_initializer()
    try:
        with tf.compat.v1.Session(graph=graph) as session:
            session.run(initialise)
            start["values"] = session.run(weights)
    except tf.errors.OpError as raised:  # a checkpoint it reads is gone, or another one now
        start["error"] = raised
    return start


def _restored_from(initializer) -> tuple | None:
    """``(checkpoint, tensor name)`` that a variable's ``initializer`` reads, as a warm start
    makes it (a ``RestoreV2`` op), or None (new random values, zeros)."""
    import tensorflow as tf

    seen, ops = set(), [initializer]
    while ops:
        op = ops.pop()
        if op.type == "RestoreV2":  # a warm start's: its checkpoint and name are constants
            prefix, names = (tf.get_static_value(tensor) for tensor in op.inputs[:2])
            if prefix is None or names is None:
                return None
            return os.path.abspath(tf.compat.as_str(prefix.item())), tf.compat.as_str(names[0])
        if op.name not in seen:
            seen.add(op.name)
            ops.extend(tensor.op for tensor in op.inputs)
    return None


def _require_start_runs(start: dict) -> None:
    """Fail when the warm start of a model that trained fails when run again."""
    error = start["error"]
    if error is not None:  # it ran when the learner trained: what it reads changed since
        fail(
            "`fixed_estimator` trained, but its warm start now stops with `{kind}` when the "
            "check runs it again: {first_line}; run its cell again",
            kind=type(error).__name__,
            first_line=_first_line(error),
        )


def _kept_weights(old_model_dir, shapes: dict) -> list:
    """The weights of the learner's model (``{name: shape}``) in the layers the change kept, sorted:
    a layer is kept when every variable of it has the shape of the old model's latest
    checkpoint."""
    import tensorflow as tf

    # dense/bias keeps its shape when dense/kernel grows: that layer changed
    old_shapes = dict(tf.train.list_variables(str(old_model_dir)))
    weights = {name: shape for name, shape in shapes.items() if _is_weight(name)}
    changed = {
        name.rpartition("/")[0] for name, shape in weights.items() if old_shapes.get(name) != shape
    }
    return sorted(name for name in weights if name.rpartition("/")[0] not in changed)


# the origin of a weight that the warm start gave another variable's values
_ELSEWHERE = "another variable"


def _origins(start: dict, source: str) -> dict:
    """Where each weight started: None from its model's own initial values (new random values,
    zeros); ``source`` (the old model's latest checkpoint) when it holds the very same values for
    it; else the checkpoint its initializer read, as ``(_ELSEWHERE, checkpoint)`` when that read
    another variable."""
    import tensorflow as tf

    reader = tf.train.load_checkpoint(source)
    source = os.path.abspath(source)
    origins = {}
    for name, value in start["values"].items():
        read = start["sources"].get(name)
        if read is None:
            origins[name] = None
        elif _holds(reader, name, value):
            origins[name] = source
        else:
            origins[name] = read[0] if read[1] == name else (_ELSEWHERE, read[0])
    return origins


def _require_step_0_agrees(answer, start: dict, old_model_dir) -> None:
    """Fail when the learner's step-0 checkpoint, where its RunConfig kept it, holds other
    starting values than the training's start, run again: the same values where a checkpoint gave
    them; where none did, values that are none of the old model's checkpoints'."""
    import numpy as np
    import tensorflow as tf

    first = os.path.join(str(answer.model_dir), "model.ckpt-0")
    if not tf.io.gfile.exists(f"{first}.index"):
        return
    reader = tf.train.load_checkpoint(first)
    old = _readers(tf.train.get_checkpoint_state(str(old_model_dir)).all_model_checkpoint_paths)
    differ = []
    for name, value in start["values"].items():
        saved = reader.get_tensor(name) if reader.has_tensor(name) else None
        if saved is None or name in start["sources"]:
            agrees = saved is not None and np.array_equal(saved, value)
        else:
            agrees = not _varies(saved) or not any(_holds(other, name, saved) for other in old)
        if not agrees:
            differ.append(name)
    if differ:
        fail(
            "`fixed_estimator`'s step-0 checkpoint, {checkpoint}, holds other values of "
            "{variables} than the check gets by running its warm start again: the checkpoint it "
            "warm-started from changed after it trained, or its model_dir holds another run's "
            "checkpoints; train it again in a fresh model_dir",
            checkpoint=_shown(first),
            variables=all_of(sorted(differ)),
        )


def _readers(checkpoints) -> list:
    """A reader of each of the ``checkpoints`` whose files are there."""
    import tensorflow as tf

    readers = []
    for checkpoint in checkpoints:
        try:
            readers.append(tf.train.load_checkpoint(checkpoint))
        except (tf.errors.NotFoundError, ValueError):  # listed, but its files are gone
            continue
    return readers


def _holds(reader, name: str, value) -> bool:
    """Whether a checkpoint (its reader) holds exactly ``value`` as ``name``."""
    import numpy as np

    return reader.has_tensor(name) and np.array_equal(reader.get_tensor(name), value)


def _varies(value) -> bool:
    """Not one value repeated: random values, or trained ones."""
    import numpy as np

    return bool(np.size(value)) and bool(np.ptp(value) > 0)


def _require_origins_from_source(origins: dict, source: str) -> None:
    """Fail when some kept variables started from a checkpoint other than the source, or from
    another variable's values."""
    elsewhere: dict = {}
    for name in sorted(origins):
        if origins[name] not in (None, os.path.abspath(source)):
            elsewhere.setdefault(origins[name], []).append(name)
    for origin, names in elsewhere.items():
        if isinstance(origin, tuple):
            fail(
                "`fixed_estimator`'s warm start gave {variables} other variables' values from "
                "{checkpoint}: each variable of a layer the change kept should start from its "
                "own values in the old model's latest checkpoint, {source} (section \"Warm "
                "start: begin with another model's weights\")",
                variables=all_of(names),
                checkpoint=_shown(origin[1]),
                source=_shown(source),
            )
        fail(
            "`fixed_estimator` started {variables} from {given}, not from the old model's "
            "latest checkpoint, {source} (section \"Warm start: begin with another model's "
            'weights")',
            variables=all_of(names),
            given=_shown(origin),
            source=_shown(source),
        )


def _require_kept_warm(settings, built: dict, kept: list, origins: dict) -> None:
    """Fail when some (or all) of the kept variables started from new random values."""
    cold = [name for name in kept if origins[name] is None]
    if not cold:
        return
    if cold == kept and settings is not None and not built["selected"]:
        fail(
            "`fixed_estimator`'s `vars_to_warm_start`, {pattern!r}, matches no trainable "
            "variable of the changed model, so nothing was warm-started: a regular "
            "expression there must match a variable's name from its start (section "
            '"Warm start: begin with another model\'s weights")',
            pattern=settings.vars_to_warm_start,
        )
    if all(origin is None for origin in origins.values()):
        fail(
            "`fixed_estimator` started every variable from new random values, so nothing was "
            "warm-started from the old model: only layers whose shapes did not change can be "
            '(section "Warm start: begin with another model\'s weights")'
        )
    fail(
        "`fixed_estimator` started {cold} from new random values, although their layers "
        "did not change: every layer the old model can give its weights to should start "
        "from them",
        cold=all_of(cold),
    )


def _is_weight(name: str) -> bool:
    """A layer's variable, not the global step or an optimizer's (``…/Adam``, ``beta1_power``)."""
    return name != "global_step" and "/Adam" not in name and not name.startswith("beta")


def _other_shapes(built: dict, checkpoint: str) -> list:
    """The weights of the learner's model (``{name: shape}`` of its graph, built as train() builds
    it) that ``checkpoint`` holds in another shape: a checkpoint of another model, restored."""
    import tensorflow as tf

    saved = dict(tf.train.list_variables(checkpoint))
    return sorted(
        name
        for name, shape in built.items()
        if _is_weight(name) and name in saved and saved[name] != shape
    )


def _checkpoint_of(path) -> str | None:
    """The checkpoint that ``path`` (a folder or a checkpoint's prefix) gives a warm start, if
    there is one."""
    import tensorflow as tf

    path = str(path)
    if tf.io.gfile.isdir(path):
        return tf.train.latest_checkpoint(path)
    return path if tf.io.gfile.exists(f"{path}.index") else None


def _shown(checkpoint: str) -> str:
    """``04_checkpoints/model.ckpt-450``: a checkpoint by its folder's name and its own."""
    folder, name = os.path.split(os.path.normpath(checkpoint))
    return f"`{os.path.basename(folder)}/{name}`"


def _first_line(error: BaseException) -> str:
    """The first line of an error's message."""
    return (str(error).strip().splitlines() or [""])[0]


def _judge_warm_start_run(built: dict, settings) -> None:
    """The learner's Estimator has no checkpoint: when its warm start fails (applied again to its
    model's graph), say why in one line (its train() stopped before the first step with a long
    traceback)."""
    import tensorflow as tf

    error = built["error"]
    if error is None:
        return
    checkpoint = _checkpoint_of(settings.ckpt_to_initialize_from)
    saved = dict(tf.train.list_variables(checkpoint)) if checkpoint else {}
    selected = built["selected"]
    clashing = sorted(name for name, shape in selected.items() if saved.get(name, shape) != shape)
    if clashing:
        fail(
            "`fixed_estimator`'s warm start asks for {variables}, whose shapes differ between "
            "the changed model and {checkpoint}, so its `train()` stops with a `ValueError` "
            "before the first step: a warm start checks shapes (section 'A changed model meets "
            "an old `model_dir`')",
            variables=all_of(clashing),
            checkpoint=_shown(checkpoint),
        )
    fail(
        "`fixed_estimator` has no checkpoint: its `train()` stops at the warm start, before the "
        "first step, with `{kind}`: {first_line}",
        kind=type(error).__name__,
        first_line=_first_line(error),
    )
