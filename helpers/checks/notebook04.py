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
# exercise 3: how far a warm-started kernel may move from its source in the first steps
WARM_TOLERANCE = 0.08


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
    whose shape the change kept warm-started from the old one."""
    require_answer(answer, "fixed_estimator")
    import tensorflow as tf

    if not isinstance(answer, tf.estimator.Estimator):
        fail(
            "`fixed_estimator` should be a tf.estimator.Estimator, not {kind}",
            kind=type(answer).__name__,
        )
    _require_own_model_dir(answer, old_model_dir, steps)
    _require_params(answer, params)
    state = tf.train.get_checkpoint_state(str(answer.model_dir))
    settings = getattr(answer, "_warm_start_settings", None)  # what warm_start_from became
    _require_trained_checkpoints(answer, state, settings, steps)
    oldest = state.all_model_checkpoint_paths[0]
    kept = _kept_weights(old_model_dir, oldest)
    source, candidates = _warm_start_candidates(old_model_dir, settings)
    origins = {name: _origin(oldest, name, candidates) for name in kept}
    _require_origins_from_source(origins, candidates, source)
    _require_kept_warm(answer, settings, kept, origins)
    correct(
        "the changed model trained to step {steps} in its own model_dir, and the variables "
        "of the layers it kept ({kept}) started from the old model's values",
        steps=steps,
        kept=all_of(kept),
    )


def _require_own_model_dir(answer, old_model_dir, steps: int) -> None:
    """Fail when the learner's Estimator uses the old model's model_dir (and say whether it
    already trained there, wiping the old model)."""
    import tensorflow as tf

    if os.path.realpath(str(answer.model_dir)) == os.path.realpath(str(old_model_dir)):
        # the old model's run ends far beyond `steps`: a run of `steps` there started afresh
        trained = tf.train.latest_checkpoint(str(old_model_dir))
        if trained and int(tf.train.load_variable(trained, "global_step")) == steps:
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


def _require_params(answer, params: dict) -> None:
    """Fail when the learner's Estimator does not build the changed model's ``params``."""
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


def _require_trained_checkpoints(answer, state, settings, steps: int) -> None:
    """Fail unless the learner's model_dir holds checkpoints of the changed model, trained once
    for ``steps`` steps from a warm start."""
    if state is None or not state.all_model_checkpoint_paths:
        if settings is not None:
            _judge_warm_start_run(answer, settings)
        fail(
            "`fixed_estimator` has no checkpoint yet: it has not trained the {steps} steps the "
            "exercise asks for",
            steps=steps,
        )
    restored = _other_shapes(answer, state.model_checkpoint_path)
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


def _kept_weights(old_model_dir, oldest: str) -> list:
    """The weights in checkpoint ``oldest`` of the layers the change kept: a layer is kept when
    every variable of it has the old model's shape."""
    import tensorflow as tf

    # dense/bias keeps its shape when dense/kernel grows: that layer changed
    old_shapes = dict(tf.train.list_variables(str(old_model_dir)))
    weights = {name: shape for name, shape in tf.train.list_variables(oldest) if _is_weight(name)}
    changed = {
        name.rpartition("/")[0] for name, shape in weights.items() if old_shapes.get(name) != shape
    }
    return [name for name in weights if name.rpartition("/")[0] not in changed]


def _warm_start_candidates(old_model_dir, settings) -> tuple:
    """The old model's latest checkpoint (the source) and every checkpoint a kept variable may
    have started from, the source first, without repeats."""
    import tensorflow as tf

    # the old model's latest checkpoint, one of its older ones, the learner's warm start's
    source = tf.train.latest_checkpoint(str(old_model_dir))
    old_state = tf.train.get_checkpoint_state(str(old_model_dir))
    candidates = [source] + list(old_state.all_model_checkpoint_paths if old_state else [])
    if settings is not None:
        candidates.append(_checkpoint_of(settings.ckpt_to_initialize_from))
    candidates = list(dict.fromkeys(os.path.abspath(path) for path in candidates if path))
    return source, candidates


def _require_origins_from_source(origins: dict, candidates: list, source) -> None:
    """Fail when some kept variables started from a checkpoint other than the source."""
    elsewhere: dict = {}
    for name, origin in origins.items():
        if origin and origin != candidates[0]:
            elsewhere.setdefault(origin, []).append(name)
    for origin, names in elsewhere.items():
        fail(
            "`fixed_estimator` started {variables} from {given}, not from the old model's "
            "latest checkpoint, {source} (section \"Warm start: begin with another model's "
            'weights")',
            variables=all_of(names),
            given=_shown(origin),
            source=_shown(source),
        )


def _require_kept_warm(answer, settings, kept: list, origins: dict) -> None:
    """Fail when some (or all) of the kept variables started from new random values."""
    cold = [name for name in kept if origins[name] is None]
    if cold == kept:
        if settings is not None and not _warm_start_run(answer, settings)[1]:
            fail(
                "`fixed_estimator`'s `vars_to_warm_start`, {pattern!r}, matches no trainable "
                "variable of the changed model, so nothing was warm-started: a regular "
                "expression there must match a variable's name from its start (section "
                '"Warm start: begin with another model\'s weights")',
                pattern=settings.vars_to_warm_start,
            )
        fail(
            "`fixed_estimator` started every variable from new random values, so nothing was "
            "warm-started from the old model: only layers whose shapes did not change can be "
            '(section "Warm start: begin with another model\'s weights")'
        )
    if cold:
        fail(
            "`fixed_estimator` started {cold} from new random values, although their layers "
            "did not change: every layer the old model can give its weights to should start "
            "from them",
            cold=all_of(cold),
        )


def _is_weight(name: str) -> bool:
    """A layer's variable, not the global step or an optimizer's (``…/Adam``, ``beta1_power``)."""
    return name != "global_step" and "/Adam" not in name and not name.startswith("beta")


def _other_shapes(answer, checkpoint: str) -> list:
    """The variables of the learner's model (its graph, built as train() builds it) that
    ``checkpoint`` holds in another shape: a checkpoint of another model, restored."""
    import tensorflow as tf

    from ..logs import logger_level
    from ..model_graph import build_graph

    with logger_level("ERROR"):  # the Estimator's model_fn logs "Calling model_fn."
        graph = build_graph(answer.model_fn)
    built = {
        variable.op.name: variable.shape.as_list()
        for variable in graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
    }
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


def _origin(start: str, name: str, candidates: list) -> str | None:
    """Which of the ``candidates`` (checkpoints, the source first) variable ``name`` of checkpoint
    ``start`` took its values from: the same values at step 0, or the nearest within
    WARM_TOLERANCE after a few steps; None when none of them. Constant values (zeros) tell only
    whether they are the source's."""
    import numpy as np
    import tensorflow as tf

    value = tf.train.load_variable(start, name)
    distances = {}
    for index, candidate in enumerate(candidates):
        if index and np.ptp(value) == 0:
            continue  # a constant (a bias's zeros): any untrained model has it, a cold start too
        try:
            other = tf.train.load_variable(candidate, name)
        except (tf.errors.NotFoundError, ValueError):
            continue  # the candidate has no such variable
        if np.shape(other) != np.shape(value):
            continue
        if start.endswith("-0"):
            if np.array_equal(value, other):
                return candidate
            continue
        distances[candidate] = float(np.mean(np.abs(value - other)))
    near = min(distances, key=distances.get, default=None)
    return near if near is not None and distances[near] < WARM_TOLERANCE else None


def _warm_start_run(answer, settings) -> tuple:
    """Run the learner's warm start as ``train()`` does, in an Estimator of the check's own with
    the learner's model (one step on two blank images): the error it raised (or None) and
    ``{name: shape}`` of the variables its ``vars_to_warm_start`` selects in the model's graph."""
    import random

    import numpy as np
    import tensorflow as tf
    from tensorflow.python.training import warm_starting_util

    from ..logs import logger_level
    from .checkpoint import scratch_model_dir

    graphs = []

    def model_fn(features, labels, mode, config):
        graphs.append(tf.compat.v1.get_default_graph())
        return answer.model_fn(features, labels, mode, config)

    def input_fn():
        images = np.zeros((2, 28, 28), np.float32)
        return tf.data.Dataset.from_tensors(({"image": images}, np.array([0, 1], np.int32)))

    config = tf.estimator.RunConfig(
        tf_random_seed=1,
        save_checkpoints_secs=None,
        save_checkpoints_steps=None,
        save_summary_steps=None,
        log_step_count_steps=None,
    )
    python_random = random.getstate()  # Keras draws its layers' seeds from it: leave it as it was
    error = None
    try:
        with scratch_model_dir(checkpoint=False) as folder, logger_level("ERROR"):
            estimator = tf.estimator.Estimator(
                model_fn, model_dir=folder, config=config, warm_start_from=settings
            )
            try:
                estimator.train(input_fn, steps=1)
            except Exception as raised:  # the learner's warm start failed: the caller says why
                error = raised
    finally:
        random.setstate(python_random)
    selected = {}
    if graphs:
        with graphs[-1].as_default():
            try:
                grouped = warm_starting_util._get_grouped_variables(settings.vars_to_warm_start)
            except ValueError:
                grouped = {}
        selected = {
            name: variables[0].shape.as_list() for name, variables in grouped.items() if variables
        }
    return error, selected


def _judge_warm_start_run(answer, settings) -> None:
    """The learner's Estimator has no checkpoint: when its warm start fails, say why in one line
    (its train() stopped before the first step with a long traceback)."""
    import tensorflow as tf

    error, selected = _warm_start_run(answer, settings)
    if error is None:
        return
    checkpoint = _checkpoint_of(settings.ckpt_to_initialize_from)
    saved = dict(tf.train.list_variables(checkpoint)) if checkpoint else {}
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
        first_line=(str(error).strip().splitlines() or [""])[0],
    )
