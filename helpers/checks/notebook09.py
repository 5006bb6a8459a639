"""Exercise checks of notebook 09 (more than one machine: TF_CONFIG and the roles)."""

from __future__ import annotations

import json
import os
from unittest import mock

from ..language import _
from ..logs import logger_level
from ..problems import CheckFailed
from .common import correct, fail, is_whole_number, reporting_learner_errors, require_answer

__all__ = ["second_worker_config", "late_workers_rule", "EXERCISE_1_CLUSTER"]

# Exercise 1: the cluster of a real deployment (as notebook 09's last section writes it).
EXERCISE_1_CLUSTER = {
    "chief": ["trainer-chief-0.trainer:2222"],
    "worker": ["trainer-worker-0.trainer:2222", "trainer-worker-1.trainer:2222"],
    "ps": ["trainer-ps-0.trainer:2222"],
}
# the check's own copy: an answer cell can change the dict the notebook reads, not this text
_EXERCISE_1_CLUSTER = json.dumps(EXERCISE_1_CLUSTER)


def _run_config_under(tf_config: dict):
    """The RunConfig a process with this TF_CONFIG builds (quietly: it logs the TF_CONFIG read)."""
    import tensorflow as tf

    with mock.patch.dict(os.environ, {"TF_CONFIG": json.dumps(tf_config)}), logger_level("WARNING"):
        return tf.estimator.RunConfig()


# What a RunConfig read from TF_CONFIG, compared with what it reads from the exercise's answer: the
# task first, then the rest in the order a message names it.
READ = (
    "task_type",
    "task_id",
    "is_chief",
    "master",
    "evaluation_master",
    "num_ps_replicas",
    "num_worker_replicas",
    "global_id_in_cluster",
    "model_dir",
    "service",
)


def _second_worker() -> dict:
    """The exercise's answer: the cluster, and the task of the second worker."""
    return {"cluster": json.loads(_EXERCISE_1_CLUSTER), "task": {"type": "worker", "index": 1}}


def _cluster_read(cluster) -> dict | None:
    """The cluster as RunConfig reads it (a ``tf.train.ClusterSpec``), as a dict; None when it
    cannot read it."""
    import tensorflow as tf

    try:
        return tf.train.ClusterSpec(cluster).as_dict()
    except (TypeError, ValueError):
        return None


def _changes(answer: dict, name: str, want):
    """The key of ``answer`` besides 'cluster' and 'task' without which RunConfig reads ``want`` as
    its ``name`` (the first, when several must go)."""
    others = sorted(set(answer) - {"cluster", "task"})
    for key in others:
        try:
            read = getattr(_run_config_under({k: v for k, v in answer.items() if k != key}), name)
        except (TypeError, ValueError):
            continue
        if read == want:
            return key
    return others[0] if others else "task"


def _as_tf_config(answer) -> dict:
    """``answer`` as a process reads it from TF_CONFIG (a dict through JSON); one line for an
    answer that cannot be such a config."""
    if isinstance(answer, (str, bytes)):
        fail(
            "`fixed_config` is text: give the dict itself, as the exercise asks (a launcher "
            "writes it into TF_CONFIG with json.dumps)"
        )
    if not isinstance(answer, dict):
        fail(
            "`fixed_config` should be a dict with the keys 'cluster' and 'task', not {kind}",
            kind=type(answer).__name__,
        )
    try:
        answer = json.loads(json.dumps(answer))  # what a process reads from its environment
    except (TypeError, ValueError) as error:
        fail(
            "`fixed_config` cannot be written as JSON, the text TF_CONFIG holds ({error}): use "
            "dicts, lists, strings and numbers",
            error=error,
        )
    return answer


@reporting_learner_errors
def second_worker_config(answer) -> None:
    """Notebook 09, exercise 1: the TF_CONFIG of the second worker of EXERCISE_1_CLUSTER, judged by
    the RunConfig a process started with it builds, against the one the exercise's gives."""
    require_answer(answer, "fixed_config")
    answer = _as_tf_config(answer)
    if "cluster" not in answer:
        fail(
            "`fixed_config` has no 'cluster': every task of a job gets the same 'cluster', the "
            "broken config's; change only the 'task' part"
        )
    if _cluster_read(answer["cluster"]) != _cluster_read(json.loads(_EXERCISE_1_CLUSTER)):
        fail(
            "your 'cluster' differs from the broken config's, which was right: every task of a "
            "job gets the same 'cluster'; change only the 'task' part"
        )
    task = answer.get("task")
    if not isinstance(task, dict) or not {"type", "index"} <= set(task):
        fail("'task' should be a dict with the keys 'type' and 'index'")
    index = task["index"]
    # one rule: an int, as the broken config writes it (RunConfig would read "1", 1.0, 1.5 and
    # True all as int() gives them, 1)
    if isinstance(index, bool) or not isinstance(index, int):
        fail("the task index should be an int, as in the broken config, not {index!r}", index=index)
    try:
        config = _run_config_under(answer)
    except (TypeError, ValueError) as error:
        config = error
    expected = _run_config_under(_second_worker())
    kind = task["type"]
    if isinstance(config, Exception) or config.task_type != expected.task_type:
        if kind != expected.task_type:
            fail(
                "the task type should be 'worker', not {kind!r}: the chief is its own job type, "
                "and the second worker is a 'worker'",
                kind=kind,
            )
    if isinstance(config, Exception) or config.task_id != expected.task_id:
        if index == 0:
            fail("index 0 names the first worker (trainer-worker-0), not the second")
        if index != expected.task_id:
            fail(
                "index {index} is not the second worker: indexes count from 0 within the "
                "'worker' list, and the chief is not in that list",
                index=index,
            )
    if isinstance(config, Exception):
        fail(
            "RunConfig refuses `fixed_config`: {error}",
            error=str(config).splitlines()[0].rstrip(":"),
        )
    for name in READ:
        got, want = getattr(config, name), getattr(expected, name)
        if got != want:
            fail(
                "under `fixed_config` RunConfig reads {name}={got!r}, where the second worker's "
                "TF_CONFIG gives {want!r}: its key {key!r} changes what the process does",
                name=name,
                got=got,
                want=want,
                key=_changes(answer, name, want),
            )
    correct(
        "RunConfig reads task_type={task_type!r}, task_id={task_id}, is_chief={is_chief}, "
        "num_worker_replicas={replicas} (the chief counts as a worker replica)",
        task_type=config.task_type,
        task_id=config.task_id,
        is_chief=config.is_chief,
        replicas=config.num_worker_replicas,
    )


# Exercise 2: (workers, seconds) cases, each catching one slip of the rule (see
# tests/helpers/checks/test_notebook09.py)
LATE_CASES = ((13, 40), (3, 5), (3, 4), (20, 59), (20, 60), (14, 60), (1, 0), (4, 12.5), (12, 55))


def _as_indexes(value):
    """The learner's answer as a sorted list of ints, or None when it is not a collection of whole
    numbers."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        return None
    items = list(value)
    if not all(is_whole_number(item) for item in items):
        return None
    return sorted(int(item) for item in items)


@reporting_learner_errors
def late_workers_rule(answer) -> None:
    """Notebook 09, exercise 2: the workers of a no-strategy cluster that have not started
    ``seconds`` after launch."""
    require_answer(answer, "late_workers")
    if not callable(answer):
        fail(
            "`late_workers` should be a function of (workers, seconds), such as "
            "`def late_workers(workers, seconds): ...`"
        )
    per_worker, most = _delays()
    for workers, seconds in LATE_CASES:
        call = f"late_workers({workers}, {seconds})"
        try:
            value = answer(workers, seconds)
        except Exception as error:  # the learner's function failed: say where
            raise CheckFailed(
                _("{call} raised {kind}: {error}").format(
                    call=call, kind=type(error).__name__, error=error
                )
            ) from None
        got = _as_indexes(value)
        if got is None:
            fail(
                "{call} returned {value!r}: return the indexes of the late workers, a list of "
                "whole numbers such as [3, 4]",
                call=call,
                value=value,
            )
        want = [index for index in range(workers) if _waits(index) > seconds]
        if got == want:
            continue
        raise CheckFailed(_wrong_workers(call, got, want, workers, seconds))
    late = len([index for index in range(13) if _waits(index) > 40])
    correct(
        "a worker with index i starts after min({most}, (i + 1) × {per_worker}) s: after 40 "
        "s, {late} of 13 workers are still waiting, and after {most} s none is",
        most=most,
        per_worker=per_worker,
        late=late,
    )


def _delays() -> tuple:
    """(seconds each worker index adds, the longest wait): train_and_evaluate's own constants."""
    from tensorflow_estimator.python.estimator import training

    return training._DELAY_SECS_PER_WORKER, training._MAX_DELAY_SECS


def _waits(index: int) -> float:
    """How long the worker of ``index`` waits before it starts."""
    per_worker, most = _delays()
    return min(most, (index + 1) * per_worker)


def _wrong_workers(call: str, got: list, want: list, workers: int, seconds) -> str:
    """What is wrong with ``got``, which ``call`` returned instead of ``want``."""
    per_worker, most = _delays()
    if got and (min(got) < 0 or max(got) >= workers):
        return _(
            "{call} returned {got}: worker indexes run from 0 to {last}: the chief is not among "
            "them"
        ).format(call=call, got=got, last=workers - 1)
    if got == [index for index in range(workers) if index * per_worker > seconds]:
        return _(
            "{call} returned {got}: the first worker (index 0) already waits: each wait is one "
            "step longer than the index says"
        ).format(call=call, got=got)
    if got == [index for index in range(workers) if (index + 1) * per_worker > seconds]:
        return _(
            "{call} returned {got}: no worker waits more than {most} s, however high its index"
        ).format(call=call, got=got, most=most)
    if got == [index for index in range(workers) if _waits(index) >= seconds]:
        return _(
            "{call} returned {got}: a worker whose wait is exactly {seconds} s has started at "
            "{seconds} s: only a longer wait makes it late"
        ).format(call=call, got=got, seconds=seconds)
    if got == [index for index in range(workers) if _waits(index) <= seconds]:
        return _(
            "{call} returned {got}: those are the workers that have started; the question is "
            "which have not"
        ).format(call=call, got=got)
    if len(got) < len(want):
        return _(
            "{call} returned {got}: a worker is missing: check the waits of the highest indexes"
        ).format(call=call, got=got)
    return _("{call} returned {got}: some of those workers have already started").format(
        call=call, got=got
    )
