"""Exercise checks of notebook 09 (more than one machine: TF_CONFIG and the roles)."""

from __future__ import annotations

import json
import math
import os
import re
from unittest import mock

from ..language import N_, _
from ..learner_code import error_text
from ..logs import logger_level
from ..problems import CheckFailed
from .common import (
    correct,
    fail,
    is_whole_number,
    reporting_learner_errors,
    require_answer,
    said,
)

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
            "`fixed_config` cannot be written as JSON, the text TF_CONFIG holds (`{error}`): use "
            "dicts, lists, strings and numbers",
            error=error_text(error),
        )
    return answer


# the workers of the exercise's cluster, as the check's own copy lists them
_EXERCISE_1_WORKERS = tuple(json.loads(_EXERCISE_1_CLUSTER)["worker"])


def _check_cluster(cluster) -> None:
    """Refuse a 'cluster' that is not the exercise's, as the check's own copy holds it."""
    read = _cluster_read(cluster)
    if read == _cluster_read(json.loads(_EXERCISE_1_CLUSTER)):
        return
    if read is not None and read == _cluster_read(EXERCISE_1_CLUSTER):
        # the notebook's dict, which `broken_config` holds, was changed in place
        fail(
            "your 'cluster' is `checks.EXERCISE_1_CLUSTER` as changed since the exercise began "
            "(`broken_config` holds that very dict, so changing its 'cluster' changed it); the "
            "cluster was right as the exercise gave it: change only the 'task' part"
        )
    fail(
        "your 'cluster' differs from the broken config's, which was right: every task of a "
        "job gets the same 'cluster'; change only the 'task' part"
    )


def _wrong_type(kind) -> str:
    """The line that refuses the task type ``kind`` (never 'worker'), saying what it names."""
    name = kind.strip().lower() if isinstance(kind, str) else None
    if name in ("chief", "chiefs", "master"):
        return N_(
            "the task type should be 'worker', not {kind!r}: the chief is its own job type, "
            "and the second worker is a 'worker'"
        )
    if name is not None and name.startswith("worker"):
        return N_(
            "the task type should be exactly 'worker', not {kind!r}: RunConfig looks the type "
            "up in 'cluster' as it is written, character for character"
        )
    if name == "ps":
        return N_(
            "the task type should be 'worker', not {kind!r}: a 'ps' task is a parameter server, "
            "which holds the variables and trains nothing"
        )
    if name == "evaluator":
        return N_(
            "the task type should be 'worker', not {kind!r}: an evaluator has no place in the "
            "cluster and only evaluates checkpoints"
        )
    return N_(
        "the task type should be 'worker', not {kind!r}: the type names one of the job lists "
        "of 'cluster', and the second worker is in the 'worker' list"
    )


def _wrong_index(index: int) -> str:
    """The line that refuses the worker index ``index`` (never the second worker's)."""
    if index == 0:
        return N_("index 0 names the first worker (trainer-worker-0), not the second")
    if index == len(_EXERCISE_1_WORKERS):
        # one past the list: counted from 1, or with the chief counted as the first task
        return N_(
            "index {index} is not the second worker: indexes count from 0 within the "
            "'worker' list, and the chief is not in that list"
        )
    if index < 0:
        return N_(
            "index {index} is not in the 'worker' list, whose indexes run from 0 to {last}: "
            "TF_CONFIG does not count from the end as Python does"
        )
    return N_("index {index} is not in the 'worker' list, whose indexes run from 0 to {last}")


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
    _check_cluster(answer["cluster"])
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
    if isinstance(config, Exception) or config.task_type != expected.task_type:
        if task["type"] != expected.task_type:
            raise CheckFailed(said(_wrong_type(task["type"]), kind=task["type"]))
    if isinstance(config, Exception) or config.task_id != expected.task_id:
        if index != expected.task_id:
            raise CheckFailed(
                said(_wrong_index(index), index=index, last=len(_EXERCISE_1_WORKERS) - 1)
            )
    if isinstance(config, Exception):
        fail(
            "RunConfig refuses `fixed_config`: `{error}`",
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
# tests/helpers/checks/test_notebook09.py); seconds that are not whole catch seconds rounded (44.5
# up; 44.6 and 4.9 to the nearest) and waits compared in other steps than 5 s (4.9, 5.0001)
LATE_CASES = (
    (13, 40),
    (3, 5),
    (3, 4),
    (20, 59),
    (20, 60),
    (14, 60),
    (1, 0),
    (4, 12.5),
    (12, 55),
    (13, 44.5),
    (13, 44.6),
    (3, 4.9),
    (3, 5.0001),
)


def _call_text(workers, seconds) -> str:
    """``late_workers(13, 40)``: the call as a message quotes it."""
    return f"late_workers({workers}, {seconds})"


def _items(value):
    """(``value`` as a message shows it, its items as a list); the items are None when it is not a
    collection (text, a dict, a number, a 0-d array)."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        return value, None
    if getattr(value, "ndim", None) == 0:
        return value, None
    once = iter(value) is value  # a generator or another iterator: shown by what it gave
    items = list(value)
    return (items if once else value), items


def _call(answer, workers: int, seconds) -> list:
    """The indexes ``answer(workers, seconds)`` returns, sorted; one line when it raises or
    returns something else than whole numbers."""
    call = _call_text(workers, seconds)
    try:
        shown, items = _items(answer(workers, seconds))
    except Exception as error:  # the learner's function failed: say on which call
        raise CheckFailed(
            _("{call} raised `{error}`").format(call=call, error=error_text(error))
        ) from None
    if items is None or not all(is_whole_number(item) for item in items):
        fail(
            "{call} returned {value}: return the indexes of the late workers, whole numbers in "
            "a collection such as a list, a tuple or a set",
            call=call,
            value=re.sub(r"\s*\n\s*", " ", repr(shown)),  # one line: NumPy and pandas wrap theirs
        )
    return sorted(int(item) for item in items)


def _kept(case: tuple, got: list, again: list) -> None:
    """Refuse an answer that returned ``got`` for ``case``, then ``again`` when called again."""
    if again != got:
        fail(
            "{call} returned {got}, then {again} when called again: your function keeps results "
            "between calls; each call must depend on its arguments alone",
            call=_call_text(*case),
            got=got,
            again=again,
        )


def _results(answer) -> dict:
    """``{case: the sorted indexes answer returned}`` of every case, each called again at once and
    once more after all the others, in reverse order: an answer that keeps results between calls
    returns other indexes then."""
    results = {}
    for case in LATE_CASES:
        results[case] = _call(answer, *case)
        _kept(case, results[case], _call(answer, *case))
    later = {case: _call(answer, *case) for case in reversed(LATE_CASES)}
    for case in LATE_CASES:
        _kept(case, results[case], later[case])
    return results


@reporting_learner_errors
def late_workers_rule(answer) -> None:
    """Notebook 09, exercise 2: the workers of a no-strategy cluster that have not started
    ``seconds`` after launch, judged on every case of LATE_CASES."""
    require_answer(answer, "late_workers")
    if not callable(answer):
        fail(
            "`late_workers` should be a function of (workers, seconds), such as "
            "`def late_workers(workers, seconds): ...`"
        )
    results = _results(answer)
    for case in LATE_CASES:
        if results[case] != _late(*case):
            raise CheckFailed(_wrong_workers(results, case))
    per_worker, most = _delays()
    correct(
        "a worker with index i starts after min({most}, (i + 1) × {per_worker}) s: after 40 "
        "s, {late} of 13 workers are still waiting, and after {most} s none is",
        most=most,
        per_worker=per_worker,
        late=len(_late(13, 40)),
    )


def _delays() -> tuple:
    """(seconds each worker index adds, the longest wait): train_and_evaluate's own constants."""
    from tensorflow_estimator.python.estimator import training

    return training._DELAY_SECS_PER_WORKER, training._MAX_DELAY_SECS


def _waits(index: int) -> float:
    """How long the worker of ``index`` waits before it starts."""
    per_worker, most = _delays()
    return min(most, (index + 1) * per_worker)


def _late(workers: int, seconds, wait=_waits) -> list:
    """The indexes of the workers still waiting after ``seconds``, each waiting ``wait(index)``."""
    return [index for index in range(workers) if wait(index) > seconds]


def _mistakes():
    """``(rule, message, values)`` of each slip the check names: what an answer with that slip
    returns for (workers, seconds), the line that names it, and the values the line says besides
    the call's. A slip is named only when its rule gives what the answer gave in every case."""
    per, most = _delays()
    yield (
        lambda w, s: _late(w, s, lambda i: min(most, i * per)),
        N_(
            "{call} returned {got}: the first worker (index 0) already waits: each wait is one "
            "step longer than the index says"
        ),
        {},
    )
    yield (
        lambda w, s: _late(w, s, lambda i: min(most, (i + 2) * per)),
        N_(
            "{call} returned {got}: each wait is one step too long, as if the chief were task 0: "
            "a worker's wait goes by its own index, counted among the workers only"
        ),
        {},
    )
    yield (
        lambda w, s: _late(w, s, lambda i: (i + 1) * per),
        N_("{call} returned {got}: no worker waits more than {most} s, however high its index"),
        {},
    )
    # a cap above the longest wait is no cap for seconds up to it, as in LATE_CASES: only lower
    for cap in range(per, most):
        yield (
            lambda w, s, cap=cap: _late(w, s, lambda i: min(cap, (i + 1) * per)),
            N_("{call} returned {got}: your longest wait is shorter than the table's {most} s"),
            {},
        )
    yield from _other_mistakes()


def _other_mistakes():
    """The slips of ``_mistakes`` besides the wait of each index."""
    yield (
        lambda w, s: [i for i in range(w) if _waits(i) >= s],
        N_(
            "{call} returned {got}: a worker whose wait is exactly {seconds} s has started at "
            "{seconds} s: only a longer wait makes it late"
        ),
        {},
    )
    yield (
        lambda w, s: [i for i in range(w) if _waits(i) <= s],
        N_(
            "{call} returned {got}: those are the workers that have started; the question is "
            "which have not"
        ),
        {},
    )
    yield (
        lambda w, s: [i + 1 for i in _late(w, s)],
        N_(
            "{call} returned {got}: every index is one too high: worker indexes run from 0 to "
            "{last}, counted from the first worker, not from 1 nor from the chief"
        ),
        {},
    )
    yield (
        lambda w, s: sorted(_waits(i) for i in _late(w, s)),
        N_(
            "{call} returned {got}: those are the waits, in seconds, of the late workers, not "
            "their indexes"
        ),
        {},
    )
    for rounded in (math.ceil, round):
        yield (
            lambda w, s, rounded=rounded: _late(w, rounded(s)),
            N_(
                "{call} returned {got}: as if {seconds} s were rounded to whole seconds: compare "
                "the waits with the time as it is given"
            ),
            {},
        )
    for fixed in range(1, 101):
        yield (
            lambda w, s, fixed=fixed: _late(fixed, s),
            N_(
                "{call} returned {got}: those are the late workers of {fixed} workers, whatever "
                "`workers` is"
            ),
            {"fixed": fixed},
        )


def _wrong_workers(results: dict, case: tuple) -> str:
    """What is wrong with ``results`` (``{case: indexes}``), which differ from the rule's first at
    ``case``: the slip that gives them all, else what differs at ``case``."""
    workers, seconds = case
    got = results[case]
    values = {
        "call": _call_text(workers, seconds),
        "got": got,
        "seconds": seconds,
        "last": workers - 1,
        "most": _delays()[1],
    }
    for rule, message, more in _mistakes():
        if all(rule(*each) == results[each] for each in LATE_CASES):
            return said(message, **values, **more)
    want = _late(workers, seconds)
    missing, extra = len(set(want) - set(got)), len(set(got) - set(want))
    if len(set(got)) < len(got):
        message = N_("{call} returned {got}: some indexes appear in it more than once")
    elif got and (min(got) < 0 or max(got) >= workers):
        message = N_("{call} returned {got}: worker indexes run from 0 to {last}, one per worker")
    elif not extra:
        message = N_("{call} returned {got}: it lacks {missing} of the late workers")
    elif not missing:
        message = N_(
            "{call} returned {got}: it holds {extra} of the workers that have already started"
        )
    else:
        message = N_(
            "{call} returned {got}: it lacks {missing} of the late workers and holds {extra} of "
            "the workers that have already started"
        )
    return said(message, **values, missing=missing, extra=extra)
