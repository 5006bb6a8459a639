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
        (config(index=-1), "index -1 is not in the 'worker' list, whose indexes run from 0 to 1"),
        (config(task_type="Worker"), "the task type should be exactly 'worker', not 'Worker'"),
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
            'RunConfig refuses `fixed_config`: `If "service" is set in TF_CONFIG, it must be a '
            "dict",
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
        r"every index is one too high: worker indexes run from 0 to 12, counted from the first "
        r"worker, not from 1 nor from the chief$",
    ),
    "the chief counted as index 0": (
        lambda w, s: [i for i in range(w + 1) if i and min(60, i * 5) > s],
        "every index is one too high: worker indexes run from 0 to",
    ),
    "a cap of 50 s": (
        lambda w, s: [i for i in range(w) if min(50, (i + 1) * 5) > s],
        "your longest wait is shorter than the table's 60 s$",
    ),
    "ten seconds per worker": (
        lambda w, s: [i for i in range(w) if min(60, (i + 1) * 10) > s],
        "it holds 4 of the workers that have already started$",
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
        "those are the waits, in seconds, of the late workers, not their indexes$",
    ),
    "raises": (
        lambda w, s: 1 / 0,
        "late_workers\\(13, 40\\) raised `ZeroDivisionError: division by zero`$",
    ),
    "one argument": (lambda w: right(w, 40), "raised `TypeError: "),
}


@pytest.mark.parametrize("answer, message", WRONG_ANSWERS.values(), ids=WRONG_ANSWERS)
def test_exercise_2_wrong_answers_fail_and_say_why(answer, message):
    with pytest.raises(CheckFailed, match=message) as raised:
        checks.late_workers_rule(answer)
    # the rule is not handed over
    assert "min(60" not in str(raised.value) and "(i + 1)" not in str(raised.value)


@bank(2, "right shape, wrong content")
def test_exercise_2_as_many_workers_but_not_the_late_ones():
    """The right count, the wrong workers: what differs, both ways, with its counts."""

    def shifted(workers, seconds):
        late = [i for i in range(workers) if min(60, (i + 1) * 5) > seconds]
        return [i - 1 for i in late]

    assert failure(checks.late_workers_rule, shifted) == (
        "late_workers(13, 40) returned [7, 8, 9, 10, 11]: it lacks 1 of the late workers and "
        "holds 1 of the workers that have already started"
    )


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
        "late_workers(3, 5) returned [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]: those are the late "
        "workers of 13 workers, whatever `workers` is",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
    "a closed form that rounds seconds / 5 up": (
        lambda w, s: list(range(math.ceil(s / 5), w)) if s < 60 else [],
        # right where seconds / 5 is whole (40 s): not the +1 forgotten, which would be wrong there
        "late_workers(3, 4) returned [1, 2]: it lacks 1 of the late workers",
    ),
    "a closed form that takes whole seconds only": (
        lambda w, s: list(range(s // 5, w)) if s < 60 else [],
        "late_workers(4, 12.5) raised `TypeError: ",
    ),
    "no cap": (
        WRONG_ANSWERS["no cap"][0],
        "late_workers(20, 60) returned [12, 13, 14, 15, 16, 17, 18, 19]: no worker waits more "
        "than 60 s",
    ),
    "a cap of 50 s": (
        WRONG_ANSWERS["a cap of 50 s"][0],
        "late_workers(20, 59) returned []: your longest wait is shorter than the table's 60 s",
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
        # the changed dict is told apart from another cluster (the adversary's note, round 2)
        with pytest.raises(
            CheckFailed, match="your 'cluster' is `checks.EXERCISE_1_CLUSTER` as ch"
        ):
            checks.second_worker_config(
                {"cluster": checks.EXERCISE_1_CLUSTER, "task": {"type": "worker", "index": 1}}
            )
        checks.second_worker_config(right)
    finally:
        workers.reverse()


# --- a blind adversary's finds on the zh-TW student copy (the round after stop 51) ----

# F1: each wrong task type gets the line of what it names; the chief only where it is named
WRONG_TYPES = {
    "chief": "the chief is its own job type, and the second worker is a 'worker'",
    "Chief": "the chief is its own job type",
    # TensorFlow 1's name of the chief
    "master": "the chief is its own job type",
    "Worker": "exactly 'worker', not 'Worker': RunConfig looks the type up in 'cluster' as it is "
    "written, character for character",
    "worker ": "exactly 'worker', not 'worker '",
    "workers": "exactly 'worker', not 'workers'",
    "ps": "not 'ps': a 'ps' task is a parameter server, which holds the variables and trains "
    "nothing",
    "evaluator": "not 'evaluator': an evaluator has no place in the cluster and only evaluates "
    "checkpoints",
    "trainer": "not 'trainer': the type names one of the job lists of 'cluster', and the second "
    "worker is in the 'worker' list",
}


@bank(1, "right shape, wrong content")
@pytest.mark.parametrize("task_type", sorted(WRONG_TYPES))
def test_exercise_1_a_wrong_type_is_told_what_it_names(task_type):
    """Adversary's find: every wrong type was told "the chief is its own job type", also 'worker '
    (a space), 'workers', 'ps' and 'evaluator', where the chief has nothing to do with it."""
    for index in (1, 0):
        message = failure(checks.second_worker_config, config(task_type=task_type, index=index))
        assert message.startswith("the task type should be "), message
        assert WRONG_TYPES[task_type] in message, message
        assert ("chief" in message) == (task_type.lower() in ("chief", "master")), message


@pytest.mark.parametrize(
    "index, message",
    [
        (
            -1,
            "index -1 is not in the 'worker' list, whose indexes run from 0 to 1: TF_CONFIG does "
            "not count from the end as Python does",
        ),
        pytest.param(
            3,
            "index 3 is not in the 'worker' list, whose indexes run from 0 to 1",
            marks=bank(1, "off by one"),
        ),
        (7, "index 7 is not in the 'worker' list, whose indexes run from 0 to 1"),
        # one past the list: the chief counted as task 0, or indexes counted from 1
        (
            2,
            "index 2 is not the second worker: indexes count from 0 within the 'worker' list, and "
            "the chief is not in that list",
        ),
    ],
)
def test_exercise_1_an_index_out_of_the_list_is_told_the_range(index, message):
    """Adversary's find: index -1 and index 3 were told "the chief is not in that list", which
    explains neither; only 2, one past the list, can come from counting the chief."""
    assert failure(checks.second_worker_config, config(index=index)) == message


def test_exercise_1_quoted_python_errors_are_in_backticks():
    """Adversary's find (F2, the part in this module): a NumPy index's JSON error was quoted bare,
    English inside a zh-TW sentence; quoted errors are code, in backticks (kept ASCII)."""
    assert failure(checks.second_worker_config, config(index=np.int64(1))) == (
        "`fixed_config` cannot be written as JSON, the text TF_CONFIG holds (`TypeError: Object "
        "of type int64 is not JSON serializable`): use dicts, lists, strings and numbers"
    )
    assert failure(checks.second_worker_config, {**config(), "service": "x"}).startswith(
        'RunConfig refuses `fixed_config`: `If "service" is set in TF_CONFIG, it must be a dict'
    )


def test_exercise_1_a_cluster_changed_in_place_is_told_so():
    """Adversary's note: `broken_config["cluster"]["worker"].append(...)` changes
    `checks.EXERCISE_1_CLUSTER` itself (the broken config holds that dict); the answer
    `broken_config` was told its cluster differs from the broken config's, its own."""
    broken = {"cluster": checks.EXERCISE_1_CLUSTER, "task": {"type": "worker", "index": 2}}
    broken["cluster"]["worker"].append("trainer-worker-2.trainer:2222")
    try:
        assert failure(checks.second_worker_config, broken) == (
            "your 'cluster' is `checks.EXERCISE_1_CLUSTER` as changed since the exercise began "
            "(`broken_config` holds that very dict, so changing its 'cluster' changed it); the "
            "cluster was right as the exercise gave it: change only the 'task' part"
        )
    finally:
        broken["cluster"]["worker"].pop()
    checks.second_worker_config(config())


# F3, F4: seconds that are not whole; the rule compares them as given
@bank(2, "right on the notebook's data, wrong in general")
@pytest.mark.parametrize(
    "rounded, message",
    [
        (
            math.ceil,
            "late_workers(13, 44.5) returned [9, 10, 11, 12]: as if 44.5 s were rounded to whole "
            "seconds: compare the waits with the time as it is given",
        ),
        (
            round,
            "late_workers(13, 44.6) returned [9, 10, 11, 12]: as if 44.6 s were rounded to whole "
            "seconds: compare the waits with the time as it is given",
        ),
    ],
    ids=["ceil", "round"],
)
def test_exercise_2_seconds_rounded_fail(rounded, message):
    """Adversary's finds: comparing the waits with math.ceil(seconds) or round(seconds) passed:
    every case had whole seconds or 12.5, where neither changes which workers wait."""

    def answer(workers, seconds):
        return [i for i in range(workers) if min(60, (i + 1) * 5) > rounded(seconds)]

    assert failure(checks.late_workers_rule, answer) == message


def test_exercise_2_seconds_as_given_and_whole_seconds_pass(capsys):
    """The cases that are not whole refuse no right answer: int(seconds) (the waits are whole) and
    whole 5-second ticks give the rule's workers."""
    for answer in (
        lambda w, s: [i for i in range(w) if min(60, (i + 1) * 5) > int(s)],
        lambda w, s: [i for i in range(w) if min(12, i + 1) > s // 5],
        lambda w, s: list(range(math.floor(s / 5), w)) if s < 60 else [],
    ):
        checks.late_workers_rule(answer)
        assert capsys.readouterr().out.startswith("Correct: ")


# F5, F7: a mistake is named only when it gives what the answer gave in every case; otherwise what
# differs in the first wrong case, with its counts
NEUTRAL = {
    # F5: two late workers missing, not "a worker is missing"
    "hard-coded from index 8 below 60 s": (
        lambda w, s: [] if s >= 60 else list(range(8, w)),
        "late_workers(3, 5) returned []: it lacks 2 of the late workers",
    ),
    # F7: each of these is right at 40 s, where the +1 forgotten is wrong
    "int(seconds) + 1": (
        lambda w, s: [i for i in range(w) if min(60, (i + 1) * 5) > int(s) + 1],
        "late_workers(3, 4) returned [1, 2]: it lacks 1 of the late workers",
    ),
    "round(seconds / 5)": (
        lambda w, s: [] if s >= 60 else list(range(round(s / 5), w)),
        "late_workers(3, 4) returned [1, 2]: it lacks 1 of the late workers",
    ),
    "i >= seconds / 5": (
        lambda w, s: [i for i in range(w) if i >= s / 5 and s < 60],
        "late_workers(3, 4) returned [1, 2]: it lacks 1 of the late workers",
    ),
    "at most 12 workers wait": (
        lambda w, s: [i for i in range(min(w, 12)) if (i + 1) * 5 > s],
        "late_workers(13, 40) returned [8, 9, 10, 11]: it lacks 1 of the late workers",
    ),
    "five seconds per worker of the cluster": (
        lambda w, s: [i for i in range(w) if min(60, 5 * w) > s],
        "late_workers(13, 40) returned [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]: it holds 8 of "
        "the workers that have already started",
    ),
    # F8: out of range, and nothing about the chief explains it
    "the last five": (
        lambda w, s: list(range(w - 5, w)),
        "late_workers(3, 5) returned [-2, -1, 0, 1, 2]: worker indexes run from 0 to 2, one per "
        "worker",
    ),
    "one worker too many": (
        lambda w, s: [i for i in range(w + 1) if min(60, (i + 1) * 5) > s],
        "late_workers(13, 40) returned [8, 9, 10, 11, 12, 13]: worker indexes run from 0 to 12, "
        "one per worker",
    ),
    "the list of 40 s typed in": pytest.param(
        lambda w, s: [8, 9, 10, 11, 12],
        "late_workers(3, 5) returned [8, 9, 10, 11, 12]: worker indexes run from 0 to 2, one per "
        "worker",
        marks=bank(2, "right on the notebook's data, wrong in general"),
    ),
}


@pytest.mark.parametrize("answer, message", NEUTRAL.values(), ids=NEUTRAL)
def test_exercise_2_what_no_single_mistake_explains_gets_what_differs(answer, message):
    """Adversary's finds: `range(8, workers)` below 60 s was told "a worker is missing" where two
    were; answers using (i + 1) * 5 were told they forgot the + 1 (they were right at 40 s); an
    index out of range always blamed the chief."""
    got = failure(checks.late_workers_rule, answer)
    assert got == message
    assert "chief" not in got and "index 0) already waits" not in got


NAMED = {
    # F5: capped at 55 s: nine workers missing at 59 s, not "a worker"
    "a cap of 55 s": (
        lambda w, s: [i for i in range(w) if min(55, (i + 1) * 5) > s],
        "late_workers(20, 59) returned []: your longest wait is shorter than the table's 60 s",
    ),
    # F6: the chief counted as task 0 with a strict >: not the >= slip
    "the chief counted as task 0": pytest.param(
        lambda w, s: [i for i in range(w) if min(60, (i + 2) * 5) > s],
        "late_workers(13, 40) returned [7, 8, 9, 10, 11, 12]: each wait is one step too long, as "
        "if the chief were task 0: a worker's wait goes by its own index, counted among the "
        "workers only",
        marks=bank(2, "off by one"),
    ),
    # F8: the waits, not the indexes
    "the waits": (
        lambda w, s: [min(60, (i + 1) * 5) for i in range(w) if min(60, (i + 1) * 5) > s],
        "late_workers(13, 40) returned [45, 50, 55, 60, 60]: those are the waits, in seconds, of "
        "the late workers, not their indexes",
    ),
    # F8: a hard-coded range(13)
    "13 workers whatever `workers` is": (
        lambda w, s: [i for i in range(13) if min(60, (i + 1) * 5) > s],
        "late_workers(3, 5) returned [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]: those are the late "
        "workers of 13 workers, whatever `workers` is",
    ),
}


@pytest.mark.parametrize("answer, message", NAMED.values(), ids=NAMED)
def test_exercise_2_a_mistake_that_explains_every_case_is_named(answer, message):
    assert failure(checks.late_workers_rule, answer) == message


def test_exercise_2_each_named_mistake_is_told_apart_on_the_cases():
    """A mistake is named when it gives the answer's indexes in every case: two mistakes named
    differently must differ in some case, and none may give the rule's indexes in all."""
    rule = [checks._late(*case) for case in checks.LATE_CASES]
    named = {}
    for slip, message, values in checks._mistakes():
        given = tuple(tuple(slip(*case)) for case in checks.LATE_CASES)
        assert list(map(list, given)) != rule, message
        line = (message, tuple(sorted(values.items())))
        assert named.setdefault(given, line) == line or named[given][0] == message == (
            "{call} returned {got}: your longest wait is shorter than the table's {most} s"
        ), (message, named[given])


# F8: results kept between calls
def _kept_in_a_global():
    late = []

    def late_workers(workers, seconds):
        for i in range(workers):
            if min(60, (i + 1) * 5) > seconds:
                late.append(i)
        return late

    return late_workers


def _kept_in_a_default(workers, seconds, late=[]):  # noqa: B006 (the learner's slip)
    for i in range(workers):
        if min(60, (i + 1) * 5) > seconds and i not in late:
            late.append(i)
    return late


def _keeps_the_most_workers_seen():
    most = [0]

    def late_workers(workers, seconds):
        most[0] = max(most[0], workers)
        return [i for i in range(most[0]) if min(60, (i + 1) * 5) > seconds]

    return late_workers


@pytest.mark.parametrize(
    "make, message",
    [
        (
            _kept_in_a_global,
            "late_workers(13, 40) returned [8, 9, 10, 11, 12], then [8, 8, 9, 9, 10, 10, 11, 11, "
            "12, 12] when called again: your function keeps results between calls; each call must "
            "depend on its arguments alone",
        ),
        (
            lambda: _kept_in_a_default,
            "late_workers(13, 40) returned [8, 9, 10, 11, 12], then [0, 1, 2, 3, 8, 9, 10, 11, 12, "
            "13, 14, 15, 16, 17, 18, 19] when called again: your function keeps results between "
            "calls",
        ),
        # the same twice in a row; the calls again in reverse order show it
        (
            _keeps_the_most_workers_seen,
            "late_workers(13, 40) returned [8, 9, 10, 11, 12], then [8, 9, 10, 11, 12, 13, 14, 15, "
            "16, 17, 18, 19] when called again: your function keeps results between calls",
        ),
    ],
    ids=["a global list", "a default list", "the most workers seen"],
)
def test_exercise_2_results_kept_between_calls_are_told_so(make, message):
    """Adversary's find: a list kept at module level (or as a default argument), appended to on
    each call, was told "the chief is not among them". Each case is called again at once, and all
    once more in reverse order."""
    _kept_in_a_default.__defaults__[0].clear()
    got = failure(checks.late_workers_rule, make())
    assert got.startswith(message) and "chief" not in got, got


def test_exercise_2_takes_any_collection_and_says_no_list_is_required():
    """Adversary's find (F9): a generator passed while the messages asked for "a list of whole
    numbers". The prompt asks for the indexes and fixes no type: any collection of whole numbers
    passes, a generator too (see RIGHT_ANSWERS), and no message asks for a list."""
    assert failure(checks.late_workers_rule, lambda w, s: len(right(w, s))) == (
        "late_workers(13, 40) returned 5: return the indexes of the late workers, whole numbers "
        "in a collection such as a list, a tuple or a set"
    )
    # a generator is shown by what it gave, not as <generator object ...>
    assert failure(checks.late_workers_rule, lambda w, s: (f"w{i}" for i in right(w, s))) == (
        "late_workers(13, 40) returned ['w8', 'w9', 'w10', 'w11', 'w12']: return the indexes of "
        "the late workers, whole numbers in a collection such as a list, a tuple or a set"
    )
    checks.late_workers_rule(lambda w, s: range(math.floor(s / 5), w) if s < 60 else range(0))


@pytest.mark.parametrize(
    "answer, message",
    [
        (
            lambda w, s: [i for i, _ in enumerate(w) if min(60, (i + 1) * 5) > s],
            "late_workers(13, 40) raised `TypeError: 'int' object is not iterable`",
        ),
        (
            lambda w, s: list(range(min(i for i in range(w) if min(60, (i + 1) * 5) > s), w)),
            "late_workers(20, 60) raised `ValueError: min() arg is an empty sequence`",
        ),
    ],
    ids=["workers taken for a list", "min() of nothing"],
)
def test_exercise_2_the_error_a_call_raised_is_quoted_in_backticks(answer, message):
    """Adversary's find (F10): "raised TypeError: 'int' object is not iterable" quoted Python's
    English bare inside the zh-TW sentence; it is code, in backticks, which the zh-TW keeps."""
    assert failure(checks.late_workers_rule, answer) == message


def test_exercise_2_a_numpy_answer_that_is_no_indexes_is_quoted_on_one_line():
    """NumPy wraps the repr of a long array over lines; the message stays one line."""
    message = failure(
        checks.late_workers_rule, lambda w, s: np.minimum(60, (np.arange(w) + 1) * 5) > s
    )
    assert "\n" not in message
    assert message.startswith("late_workers(13, 40) returned array([False, False, "), message
