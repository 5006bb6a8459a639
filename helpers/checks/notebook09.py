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


def _run_config_under(tf_config: dict):
    """The RunConfig a process with this TF_CONFIG builds (quietly: it logs the TF_CONFIG read)."""
    import tensorflow as tf

    with mock.patch.dict(os.environ, {"TF_CONFIG": json.dumps(tf_config)}), logger_level("WARNING"):
        return tf.estimator.RunConfig()


@reporting_learner_errors
def second_worker_config(answer) -> None:
    """Notebook 09, exercise 1: the TF_CONFIG of the second worker of EXERCISE_1_CLUSTER."""
    require_answer(answer, "fixed_config")
    try:
        answer = json.loads(answer) if isinstance(answer, str) else answer
    except ValueError:
        raise CheckFailed(
            _("`fixed_config` is a string but not JSON: give the dict itself")
        ) from None
    if not isinstance(answer, dict) or set(answer) != {"cluster", "task"}:
        fail("`fixed_config` should be a dict with the two keys 'cluster' and 'task'")
    if answer["cluster"] != EXERCISE_1_CLUSTER:
        fail(
            "the cluster was right: every task of a job gets the same 'cluster'; change only "
            "the 'task' part"
        )
    task = answer["task"]
    if not isinstance(task, dict) or set(task) != {"type", "index"}:
        fail("'task' should be a dict with the keys 'type' and 'index'")
    if task["type"] != "worker":
        fail(
            "the task type should be 'worker', not {kind!r}: the chief is its own job type, "
            "and the second worker is a 'worker'",
            kind=task["type"],
        )
    index = task["index"]
    if not is_whole_number(index):
        fail("the task index should be a whole number, not {index!r}", index=index)
    if index == 0:
        fail("index 0 is the first worker (trainer-worker-0): the second one is index 1")
    if index != 1:
        fail(
            "index {index} is not the second worker: indexes count from 0 within the "
            "'worker' list, and the chief is not in that list",
            index=index,
        )
    config = _run_config_under(answer)  # the checks above catch everything RunConfig refuses
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
