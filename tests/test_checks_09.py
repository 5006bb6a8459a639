"""Every message of notebook 09's exercise checks (no training: RunConfig and arithmetic)."""

import copy
import json
import os

import pytest

from helpers import checks
from helpers.problems import CheckFailed

CLUSTER = checks.EXERCISE_1_CLUSTER


def config(task_type="worker", index=1, cluster=None):
    return {"cluster": copy.deepcopy(cluster or CLUSTER), "task": {"type": task_type, "index": index}}


# --- exercise 1: the second worker's TF_CONFIG --------------------------------------


def test_exercise_1_correct(capsys):
    checks.second_worker_config(config())
    out = capsys.readouterr().out
    assert out.startswith("Correct: RunConfig reads task_type='worker', task_id=1, is_chief=False, "
                          "num_worker_replicas=3")
    assert "TF_CONFIG" not in os.environ


def test_exercise_1_accepts_the_json_string(capsys):
    checks.second_worker_config(json.dumps(config()))
    assert "Correct" in capsys.readouterr().out


def test_exercise_1_leaves_an_existing_tf_config_alone(monkeypatch, capsys):
    monkeypatch.setenv("TF_CONFIG", "{}")
    checks.second_worker_config(config())
    assert os.environ["TF_CONFIG"] == "{}"


@pytest.mark.parametrize("answer, message", [
    (None, "`fixed_config` is still None"),
    ("not json", "is a string but not JSON"),
    ({"task": {"type": "worker", "index": 1}}, "two keys 'cluster' and 'task'"),
    (config(cluster={"chief": ["a:1"], "worker": ["b:1", "c:1"], "ps": ["d:1"]}), "change only the 'task' part"),
    ({"cluster": CLUSTER, "task": ["worker", 1]}, "keys 'type' and 'index'"),
    (config(task_type="chief", index=0), "the task type should be 'worker', not 'chief'"),
    (config(index=0), "index 0 is the first worker"),
    (config(index=2), "index 2 is not the second worker: indexes count from 0"),
    (config(index="1"), "should be a whole number"),
])
def test_exercise_1_messages(answer, message):
    with pytest.raises(CheckFailed, match=message.replace("(", r"\(").replace(")", r"\)")):
        checks.second_worker_config(answer)


def test_exercise_1_the_broken_config_is_refused_by_run_config():
    """What the notebook shows before the exercise: index 2 is out of range."""
    with pytest.raises(ValueError, match="2 is not a valid task_id for task_type worker"):
        checks.notebook09._run_config_under(config(index=2))


# --- exercise 2: the start delay of each trainer -----------------------------------


def right(task_type, index):
    return 0 if task_type == "chief" else min(60, (index + 1) * 5)


def test_exercise_2_correct(capsys):
    checks.start_delay_rule(right)
    assert capsys.readouterr().out.startswith("Correct: a worker with index i waits min(60, (i + 1) × 5) s")


@pytest.mark.parametrize("answer, message", [
    (None, "`start_delay` is still None"),
    (5, "should be a function of \\(task_type, index\\)"),
    (lambda t, i: 5 * (i + 1), "start_delay\\('chief', 0\\) returned 5, but that task waits 0 s: the chief starts"),
    (lambda t, i: 0 if t == "chief" else min(60, 5 * i), "start_delay\\('worker', 0\\) returned 0, but that task waits 5 s"),
    (lambda t, i: 0 if t == "chief" else 5 * (i + 1), "returned 65, but that task waits 60 s: the wait is capped"),
    (lambda t, i: 0 if t == "chief" else min(60, 5 * (i + 1) + (i == 3)), "one step longer"),
    (lambda t, i: 1 / 0, "raised ZeroDivisionError"),
    (lambda t, i: "5", "should be a number of seconds"),
])
def test_exercise_2_messages(answer, message):
    with pytest.raises(CheckFailed, match=message):
        checks.start_delay_rule(answer)
