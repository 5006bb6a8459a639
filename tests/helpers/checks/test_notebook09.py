"""Every message of notebook 09's exercise checks (no training: RunConfig and arithmetic)."""

import copy
import json
import math
import os

import numpy as np
import pytest
import tensorflow as tf

from helpers.checks import notebook09 as checks
from helpers.problems import CheckFailed
from tests.support.banks import bank
from tests.support.checks import assert_names_the_mistake, failure

# The kinds that do not apply, argued (tests/support/banks.py).
NOT_APPLICABLE = {
    1: {
        "wrong unit": (
            "the answer is not a quantity (an Estimator, a train op, a hook, a config): no unit"
        ),
        "forbidden API": "the prompt forbids no API",
        "right on the notebook's data, wrong in general": (
            "a value: the check sees no code it could run on other data"
        ),
    },
    2: {
        "hard-coded from an output above": (
            "the numbers above (5 s, 60 s) are the rule itself: using them is right"
        ),
        "copy of a nearby cell": "no cell above computes a wait: the rule is in the roles table",
        "forbidden API": "the prompt forbids no API",
    },
}

CLUSTER = checks.EXERCISE_1_CLUSTER


def config(task_type="worker", index=1, cluster=None):
    return {
        "cluster": copy.deepcopy(cluster or CLUSTER),
        "task": {"type": task_type, "index": index},
    }


# --- exercise 1: the second worker's TF_CONFIG --------------------------------------


def test_exercise_1_correct(capsys):
    checks.second_worker_config(config())
    out = capsys.readouterr().out
    assert out.startswith(
        "Correct: RunConfig reads task_type='worker', task_id=1, is_chief=False, "
        "num_worker_replicas=3"
    )
    assert "TF_CONFIG" not in os.environ


def test_exercise_1_refuses_the_json_string():
    """Adversary's find: the JSON text of the right config passed, though the prompt asks for a
    dict; any text gets one line (it passed, and text not JSON got another)."""
    for text in (json.dumps(config()), "not json", json.dumps(config()).encode()):
        assert failure(checks.second_worker_config, text) == (
            "`fixed_config` is text: give the dict itself, as the exercise asks (a launcher "
            "writes it into TF_CONFIG with json.dumps)"
        )


# Right TF_CONFIGs written otherwise than the solution: RunConfig reads from each what it reads from
# the solution's (keys it does not read, or that change nothing for a worker, included).
RIGHT_CONFIGS = {
    "a cloud environment": {**config(), "environment": "cloud"},
    "the RPC layer": {**config(), "rpc_layer": "grpc"},
    "both": {**config(), "environment": "cloud", "rpc_layer": "grpc"},
    "the cluster's lists as tuples": config(
        cluster={job: tuple(hosts) for job, hosts in CLUSTER.items()}
    ),
    "the task's keys in another order": {
        "task": {"index": 1, "type": "worker"},
        "cluster": CLUSTER,
    },
    # Cloud ML Engine's TF_CONFIG: a trial in the task, a job, the environment
    "Cloud ML Engine's keys": {
        "cluster": CLUSTER,
        "task": {"type": "worker", "index": 1, "trial": "1"},
        "job": {"job_name": "trainer"},
        "environment": "cloud",
    },
    # only an evaluator reads eval_session_master; session_master, the worker's own address
    "an evaluator's master": {**config(), "eval_session_master": "grpc://elsewhere:2222"},
    "the worker's own master": {
        **config(),
        "session_master": "grpc://trainer-worker-1.trainer:2222",
    },
}


@bank(1, "right, written otherwise")
@pytest.mark.parametrize("case", sorted(RIGHT_CONFIGS))
def test_exercise_1_right_configs_written_otherwise_pass(case, capsys):
    checks.second_worker_config(RIGHT_CONFIGS[case])
    assert capsys.readouterr().out.startswith(
        "Correct: RunConfig reads task_type='worker', task_id=1, is_chief=False, "
        "num_worker_replicas=3"
    )


def test_exercise_1_leaves_an_existing_tf_config_alone(monkeypatch, capsys):
    monkeypatch.setenv("TF_CONFIG", "{}")
    checks.second_worker_config(config())
    assert os.environ["TF_CONFIG"] == "{}"


@pytest.mark.parametrize(
    "answer, message",
    [
        (None, "`fixed_config` is still None"),
        ({"task": {"type": "worker", "index": 1}}, "`fixed_config` has no 'cluster'"),
        (
            [CLUSTER, {"type": "worker", "index": 1}],
            "should be a dict with the keys 'cluster' and 'task', not list",
        ),
        # another cluster, as copying the local cluster printed above gives
        pytest.param(
            config(cluster={"chief": ["a:1"], "worker": ["b:1", "c:1"], "ps": ["d:1"]}),
            "change only the 'task' part",
            marks=bank(1, "hard-coded from an output above"),
        ),
        ({"cluster": CLUSTER, "task": ["worker", 1]}, "keys 'type' and 'index'"),
        pytest.param(
            config(task_type="chief", index=0),
            "the task type should be 'worker', not 'chief'",
            marks=bank(1, "right shape, wrong content"),
        ),
        pytest.param(
            config(index=0),
            "index 0 names the first worker (trainer-worker-0), not the second",
            marks=bank(1, "off by one"),
        ),
        # the broken cell's config
        pytest.param(
            config(index=2),
            "index 2 is not the second worker: indexes count from 0",
            marks=bank(1, "copy of a nearby cell"),
        ),
        (
            config(index="one"),
            "the task index should be an int, as in the broken config, not 'one'",
        ),
        # RunConfig reads int(True), int(1.5), int("1 ") as 1; adversary's find: "1", "1 " and 1.0
        # passed while True and 1.5 were refused; one rule now, an int
        (config(index=True), "the task index should be an int, as in the broken config, not True"),
        (config(index=1.5), "the task index should be an int, as in the broken config, not 1.5"),
        (config(index=1.0), "the task index should be an int, as in the broken config, not 1.0"),
        (config(index="1"), "the task index should be an int, as in the broken config, not '1'"),
        (config(index="1 "), "the task index should be an int, as in the broken config, not '1 '"),
        (config(index=-1), "index -1 is not the second worker"),
        (config(task_type="Worker"), "the task type should be 'worker', not 'Worker'"),
        # RunConfig takes it for an evaluator, outside the cluster
        (config(task_type="evaluator"), "the task type should be 'worker', not 'evaluator'"),
        # the chief counted among the workers (trap 2): RunConfig refuses a cluster without a chief
        (
            config(cluster={"worker": CLUSTER["chief"] + CLUSTER["worker"], "ps": CLUSTER["ps"]}),
            "your 'cluster' differs from the broken config's, which was right",
        ),
        (
            config(cluster={**CLUSTER, "evaluator": ["trainer-evaluator-0.trainer:2222"]}),
            "your 'cluster' differs from the broken config's, which was right",
        ),
        # what a process reads is JSON text: a ClusterSpec cannot be written as one
        (
            {"cluster": tf.train.ClusterSpec(CLUSTER), "task": {"type": "worker", "index": 1}},
            "`fixed_config` cannot be written as JSON",
        ),
        # keys RunConfig reads, which change what the worker does
        (
            {**config(), "model_dir": "gs://bucket/model"},
            "under `fixed_config` RunConfig reads model_dir='gs://bucket/model', where the second "
            "worker's TF_CONFIG gives None: its key 'model_dir' changes what the process does",
        ),
        (
            {**config(), "environment": "cloud", "session_master": ""},
            "RunConfig reads master='', where the second worker's TF_CONFIG gives "
            "'grpc://trainer-worker-1.trainer:2222': its key 'session_master' changes",
        ),
        (
            {**config(), "service": "trainer"},
            'RunConfig refuses `fixed_config`: If "service" is set in TF_CONFIG, it must be a dict',
        ),
    ],
)
def test_exercise_1_messages(answer, message):
    with pytest.raises(CheckFailed, match=message.replace("(", r"\(").replace(")", r"\)")):
        checks.second_worker_config(answer)


def test_exercise_1_the_broken_config_is_refused_by_run_config():
    """What the notebook shows before the exercise: index 2 is out of range."""
    with pytest.raises(ValueError, match="2 is not a valid task_id for task_type worker"):
        checks._run_config_under(config(index=2))


# --- exercise 2: which workers are still waiting -------------------------------------


def right(workers, seconds):
    return [index for index in range(workers) if min(60, (index + 1) * 5) > seconds]


RIGHT_ANSWERS = {
    "list comprehension": right,
    "NumPy (np.minimum gives NumPy integers)": pytest.param(
        lambda w, s: np.flatnonzero(np.minimum(60, (np.arange(w) + 1) * 5) > s),
        marks=bank(2, "right, written otherwise"),
    ),
    "NumPy integers in a list": lambda w, s: [
        np.int64(i) for i in range(w) if np.minimum(60, (i + 1) * 5) > s
    ],
    "a tuple": lambda w, s: tuple(right(w, s)),
    "a set": lambda w, s: set(right(w, s)),
    "a generator": lambda w, s: (i for i in range(w) if min(60, 5 + 5 * i) > s),
    "float waits": lambda w, s: [i for i in range(w) if min(60.0, (i + 1) * 5.0) > s],
}


@pytest.mark.parametrize("answer", RIGHT_ANSWERS.values(), ids=RIGHT_ANSWERS)
def test_exercise_2_right_answers_pass(answer, capsys):
    checks.late_workers_rule(answer)
    out = capsys.readouterr().out
    assert out.startswith(
        "Correct: a worker with index i starts after min(60, (i + 1) × 5) s: after 40 s, 5 of 13"
    )


# (wrong answer, what the message must say); none may pass, none may give the rule away
WRONG_ANSWERS = {
    "unanswered": (None, "`late_workers` is still None"),
    "a number, not a function": (5, "should be a function of \\(workers, seconds\\)"),
    "waits counted from index 0": pytest.param(
        lambda w, s: [i for i in range(w) if min(60, i * 5) > s],
        "the first worker \\(index 0\\) already waits",
        marks=bank(2, "off by one"),
    ),
    "no cap": (
        lambda w, s: [i for i in range(w) if (i + 1) * 5 > s],
        "no worker waits more than 60 s",
    ),
    "late or just starting (>=)": (
        lambda w, s: [i for i in range(w) if min(60, (i + 1) * 5) >= s],
        "has started at 40 s: only a longer wait",
    ),
    "the workers that have started": (
        lambda w, s: [i for i in range(w) if min(60, (i + 1) * 5) <= s],
        "those are the workers that have started",
    ),
    "indexes counted from 1": (
        lambda w, s: [i + 1 for i in range(w) if min(60, (i + 1) * 5) > s],
        r"worker indexes run from 0 to 12: the chief is not among them$",
    ),
    "the chief counted as index 0": (
        lambda w, s: [i for i in range(w + 1) if i and min(60, i * 5) > s],
        "worker indexes run from 0 to",
    ),
    "a cap of 50 s": (
        lambda w, s: [i for i in range(w) if min(50, (i + 1) * 5) > s],
        "a worker is missing",
    ),
    "ten seconds per worker": (
        lambda w, s: [i for i in range(w) if min(60, (i + 1) * 10) > s],
        "some of those workers have already started",
    ),
    "how many, not which": (
        lambda w, s: len(right(w, s)),
        "return the indexes of the late workers",
    ),
    "a mask": (
        lambda w, s: [min(60, (i + 1) * 5) > s for i in range(w)],
        "return the indexes of the late workers",
    ),
    # 'worker:i' where indexes are asked
    "role names": pytest.param(
        lambda w, s: [f"worker:{i}" for i in right(w, s)],
        "return the indexes of the late workers",
        marks=bank(2, "wrong unit"),
    ),
    "the waits, not the indexes": (
        lambda w, s: [min(60, (i + 1) * 5) for i in right(w, s)],
        "some of those workers have already started|worker indexes run",
    ),
    "raises": (lambda w, s: 1 / 0, "late_workers\\(13, 40\\) raised ZeroDivisionError"),
    "one argument": (lambda w: right(w, 40), "raised TypeError"),
}


@pytest.mark.parametrize("answer, message", WRONG_ANSWERS.values(), ids=WRONG_ANSWERS)
def test_exercise_2_wrong_answers_fail_and_say_why(answer, message):
    with pytest.raises(CheckFailed, match=message) as raised:
        checks.late_workers_rule(answer)
    # the rule is not handed over
    assert "min(60" not in str(raised.value) and "(i + 1)" not in str(raised.value)


@bank(2, "right shape, wrong content")
def test_exercise_2_as_many_workers_but_not_the_late_ones():
    """The right count, the wrong workers: not "a worker is missing"."""

    def shifted(workers, seconds):
        late = [i for i in range(workers) if min(60, (i + 1) * 5) > seconds]
        return [i - 1 for i in late]

    with pytest.raises(CheckFailed, match="some of those workers have already started$"):
        checks.late_workers_rule(shifted)


def test_exercise_1_a_task_that_is_not_a_dict_of_type_and_index():
    for task in ({"type": "worker"}, ["worker", 1]):
        answer = {"cluster": checks.EXERCISE_1_CLUSTER, "task": task}
        with pytest.raises(CheckFailed, match="'task' should be a dict with the keys"):
            checks.second_worker_config(answer)


# (wrong answer, how its message starts): the call that shows the slip, what it returned and why.
# Each slip shows at its own kind of case, and the message quotes that case: a small one a learner
# can redo by hand (3 workers), a float number of seconds, a time on either side of the cap.
FIRST_CALL_THAT_SHOWS_IT = {
    "the 13 workers of the question hard-coded": pytest.param(
        lambda w, s: [i for i in range(13) if min(60, (i + 1) * 5) > s],
        "late_workers(3, 5) returned [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]: worker indexes run "
        "from 0 to 2",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "a closed form that rounds seconds / 5 up": (
        lambda w, s: list(range(math.ceil(s / 5), w)) if s < 60 else [],
        "late_workers(3, 4) returned [1, 2]: the first worker (index 0) already waits",
    ),
    "a closed form that takes whole seconds only": (
        lambda w, s: list(range(s // 5, w)) if s < 60 else [],
        "late_workers(4, 12.5) raised TypeError",
    ),
    "no cap": (
        WRONG_ANSWERS["no cap"][0],
        "late_workers(20, 60) returned [12, 13, 14, 15, 16, 17, 18, 19]: no worker waits more "
        "than 60 s",
    ),
    "a cap of 50 s": (
        WRONG_ANSWERS["a cap of 50 s"][0],
        "late_workers(20, 59) returned []: a worker is missing",
    ),
}


@pytest.mark.parametrize(
    "answer, start", FIRST_CALL_THAT_SHOWS_IT.values(), ids=FIRST_CALL_THAT_SHOWS_IT
)
def test_exercise_2_the_message_quotes_the_call_that_shows_the_slip(answer, start):
    message = failure(checks.late_workers_rule, answer)
    assert message.startswith(start), message
    assert_names_the_mistake(message, start, answer_code=("min(60", "(i + 1)"))


@bank(1, "right shape, wrong content")
def test_a_changed_exercise_cluster_changes_nothing_the_check_judges():
    """A blind adversary changed `checks.EXERCISE_1_CLUSTER` in the answer cell: a wrong answer
    passed, a right one was refused. The check judges against its own copy."""
    right = {
        "cluster": json.loads(json.dumps(checks.EXERCISE_1_CLUSTER)),
        "task": {"type": "worker", "index": 1},
    }
    workers = checks.EXERCISE_1_CLUSTER["worker"]
    workers.reverse()
    try:
        with pytest.raises(CheckFailed, match="your 'cluster' differs from the broken config's"):
            checks.second_worker_config(
                {"cluster": checks.EXERCISE_1_CLUSTER, "task": {"type": "worker", "index": 1}}
            )
        checks.second_worker_config(right)
    finally:
        workers.reverse()
