"""Exercise checks of notebook 09 (more than one machine: TF_CONFIG and the roles)."""

from __future__ import annotations

import json
import os
from unittest import mock

from ..logs import logger_level
from ..problems import CheckFailed
from .common import correct, is_whole_number, require_answer

__all__ = ["second_worker_config", "start_delay_rule", "EXERCISE_1_CLUSTER"]

# Exercise 1: the cluster of a real deployment (as notebook 09's last section writes it).
EXERCISE_1_CLUSTER = {
    "chief": ["trainer-chief-0.trainer:2222"],
    "worker": ["trainer-worker-0.trainer:2222", "trainer-worker-1.trainer:2222"],
    "ps": ["trainer-ps-0.trainer:2222"],
}


def _run_config_under(tf_config: dict):
    """The RunConfig a process with this TF_CONFIG builds (quietly: it logs the TF_CONFIG it read)."""
    import tensorflow as tf

    with mock.patch.dict(os.environ, {"TF_CONFIG": json.dumps(tf_config)}), logger_level("WARNING"):
        return tf.estimator.RunConfig()


def second_worker_config(answer) -> None:
    """Notebook 09, exercise 1: the TF_CONFIG of the second worker of EXERCISE_1_CLUSTER."""
    require_answer(answer, "fixed_config")
    try:
        answer = json.loads(answer) if isinstance(answer, str) else answer
    except ValueError:
        raise CheckFailed("`fixed_config` is a string but not JSON: give the dict itself") from None
    if not isinstance(answer, dict) or set(answer) != {"cluster", "task"}:
        raise CheckFailed("`fixed_config` should be a dict with the two keys 'cluster' and 'task'")
    if answer["cluster"] != EXERCISE_1_CLUSTER:
        raise CheckFailed("the cluster was right: every task of a job gets the same 'cluster'; "
                          "change only the 'task' part")
    task = answer["task"]
    if not isinstance(task, dict) or set(task) != {"type", "index"}:
        raise CheckFailed("'task' should be a dict with the keys 'type' and 'index'")
    if task["type"] != "worker":
        raise CheckFailed(f"the task type should be 'worker', not {task['type']!r}: the chief is its own "
                          "job type, and the second worker is a 'worker'")
    index = task["index"]
    if not is_whole_number(index):
        raise CheckFailed(f"the task index should be a whole number, not {index!r}")
    if index == 0:
        raise CheckFailed("index 0 is the first worker (trainer-worker-0): the second one is index 1")
    if index != 1:
        raise CheckFailed(f"index {index} is not the second worker: indexes count from 0 within the "
                          "'worker' list, and the chief is not in that list")
    config = _run_config_under(answer)  # the checks above catch everything RunConfig refuses
    correct(f"RunConfig reads task_type={config.task_type!r}, task_id={config.task_id}, "
            f"is_chief={config.is_chief}, num_worker_replicas={config.num_worker_replicas} "
            "(the chief counts as a worker replica)")


def start_delay_rule(answer) -> None:
    """Notebook 09, exercise 2: a function (task_type, index) -> seconds a trainer waits to start."""
    require_answer(answer, "start_delay")
    if not callable(answer):
        raise CheckFailed("`start_delay` should be a function of (task_type, index), such as "
                          "`def start_delay(task_type, index): ...`")
    from tensorflow_estimator.python.estimator import training

    per_worker, most = training._DELAY_SECS_PER_WORKER, training._MAX_DELAY_SECS
    for task_type, index in [("chief", 0)] + [("worker", index) for index in range(20)]:
        try:
            value = answer(task_type, index)
        except Exception as error:  # the learner's function failed: say where
            raise CheckFailed(f"start_delay({task_type!r}, {index}) raised {type(error).__name__}: {error}") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise CheckFailed(f"start_delay({task_type!r}, {index}) should be a number of seconds, not {value!r}")
        want = 0 if task_type == "chief" else min(most, (index + 1) * per_worker)
        if value != want:
            if task_type == "chief":
                hint = "the chief starts training at once"
            elif index == 0:
                hint = "the first worker (index 0) already waits: the rule is (index + 1) times the step"
            elif want == most:
                hint = f"the wait is capped: no worker waits more than {most} s"
            else:
                hint = "each worker waits one step longer than the one before it"
            raise CheckFailed(f"start_delay({task_type!r}, {index}) returned {value!r}, but that task waits "
                              f"{want} s: {hint}")
    correct(f"a worker with index i waits min({most}, (i + 1) × {per_worker}) s; the chief does not wait "
            f"(worker 0: {per_worker} s, worker 11 and after: {most} s)")
