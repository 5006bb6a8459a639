"""The local cluster launcher of notebook 09 (helpers.cluster).

The pure part (TF_CONFIG for every task) is tested directly. The launcher is
tested with a tiny CNN on real processes: success returns the final
evaluation; a failing task raises one line naming it; an interrupt is
re-raised; in every case no process it started is left. The slow tests start
TensorFlow in several processes (about 15–45 s each).

The fast tests below them (`make unit`, about 1.5 s in all) train nothing: the
launcher starts cluster_fake_task.py, a task that prints, fails or hangs as
its job says, and the task's own code (run_task, task_main) runs in this
process with train_and_evaluate replaced.
"""

import _thread
import importlib.util
import inspect
import io
import json
import logging
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest

from helpers import cluster, course_setup, paths, settings
from helpers.problems import UsageProblem
from tests import ROOT
from tests.support.events import write_eval_events
from tools.notebook_code import definitions

TINY = {"filters": (4, 8), "dense_units": 16}
# fails on purpose where the job says
FAULTY_TASK = (str(ROOT / "tests" / "helpers" / "cluster_fault_task.py"),)
NOTEBOOK_09 = "09_more_than_one_machine.ipynb"  # defines row() and kubernetes_env()


def started_pids(model_dir) -> dict:
    """Role -> pid, from the "[launcher] started chief (pid 12), worker 0 (pid 13), ..." line of the
    launch's logs/launcher.log (the notebook's output names the roles without their process ids)."""
    out = (Path(model_dir) / "logs" / "launcher.log").read_text()
    line = next(line for line in out.splitlines() if line.startswith("[launcher] started "))
    return {role: int(pid) for role, pid in re.findall(r"([a-z]+(?: \d+)?) \(pid (\d+)\)", line)}


def gone(pid, wait=15.0) -> bool:
    """True when the process ``pid`` no longer exists (zombies of our own children are reaped)."""
    deadline = time.time() + wait
    while time.time() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a child of this test process: reap it if it exited
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        try:
            with open(f"/proc/{pid}/status") as status:
                if "State:\tZ" in status.read():
                    return True
        except OSError:
            return True
        time.sleep(0.2)
    return False


# --------------------------------------------------------------------------- tf_configs


def test_tf_configs_default_cluster_leaves_the_evaluator_out():
    configs = cluster.tf_configs(ports=[1001, 1002, 1003])
    assert list(configs) == ["chief:0", "worker:0", "ps:0", "evaluator:0"]
    expected_cluster = {
        "chief": ["127.0.0.1:1001"],
        "worker": ["127.0.0.1:1002"],
        "ps": ["127.0.0.1:1003"],
    }
    for name, config in configs.items():
        assert config["cluster"] == expected_cluster
        assert config["task"] == {"type": name.split(":")[0], "index": 0}
    json.dumps(configs)  # JSON-able, as TF_CONFIG must be


def test_tf_configs_several_workers_no_ps_no_evaluator():
    configs = cluster.tf_configs(workers=2, ps=0, evaluator=False, ports=[1, 2, 3])
    assert list(configs) == ["chief:0", "worker:0", "worker:1"]
    assert configs["worker:1"]["task"] == {"type": "worker", "index": 1}
    assert configs["chief:0"]["cluster"] == {
        "chief": ["127.0.0.1:1"],
        "worker": ["127.0.0.1:2", "127.0.0.1:3"],
    }


def test_tf_configs_equal_the_configs_written_by_hand():
    """What notebook 09 shows first: the four TF_CONFIGs written out, then the generator's."""
    spec = {"chief": ["127.0.0.1:2222"], "worker": ["127.0.0.1:2223"], "ps": ["127.0.0.1:2224"]}
    by_hand = {
        f"{kind}:0": {"cluster": spec, "task": {"type": kind, "index": 0}}
        for kind in ("chief", "worker", "ps", "evaluator")
    }
    assert cluster.tf_configs(ports=[2222, 2223, 2224]) == by_hand


def test_tf_configs_for_a_real_cluster_one_port_many_hosts():
    configs = cluster.tf_configs(
        workers=2,
        ps=1,
        evaluator=False,
        host=lambda kind, index: f"trainer-{kind}-{index}.trainer",
        ports=2222,
    )
    assert configs["ps:0"]["cluster"]["worker"] == [
        "trainer-worker-0.trainer:2222",
        "trainer-worker-1.trainer:2222",
    ]
    assert "evaluator:0" not in configs
    text = definitions(NOTEBOOK_09)["kubernetes_env"](configs)
    assert text.count("- name: TF_CONFIG") == 4
    assert "# pod trainer-worker-1" in text
    assert '"task": {"type": "worker", "index": 1}' in text


def test_tf_configs_free_ports_are_distinct():
    configs = cluster.tf_configs(workers=2, ps=2)
    addresses = [a for tasks in configs["chief:0"]["cluster"].values() for a in tasks]
    assert len(addresses) == len(set(addresses)) == 5


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"ports": 2222}, "share a host and port"),
        ({"ports": [1, 2]}, "3 tasks in the cluster need 3 ports, got 2"),
        ({"workers": -1}, "0 or more"),
    ],
)
def test_tf_configs_refuses_bad_settings(kwargs, message):
    with pytest.raises(UsageProblem, match=message):
        cluster.tf_configs(**kwargs)


def test_run_config_reads_each_tf_config(monkeypatch):
    import tensorflow as tf

    configs = cluster.tf_configs(workers=2, ps=1, ports=[1, 2, 3, 4])
    seen = {}
    for name, config in configs.items():
        monkeypatch.setenv("TF_CONFIG", json.dumps(config))
        run_config = tf.estimator.RunConfig()
        seen[name] = (
            run_config.task_type,
            run_config.task_id,
            run_config.is_chief,
            run_config.num_ps_replicas,
        )
    assert seen["chief:0"] == ("chief", 0, True, 1)
    assert seen["worker:1"] == ("worker", 1, False, 1)
    assert seen["evaluator:0"] == ("evaluator", 0, False, 0)  # not in the training cluster


def test_role_labels():
    assert [
        cluster.role_label(n) for n in ["chief:0", "worker:1", "ps:0", "evaluator:0", "local:0"]
    ] == ["chief", "worker 1", "ps 0", "evaluator", "local"]


# --------------------------------------------------------------------------- the launcher


@pytest.fixture
def in_notebooks(monkeypatch):
    """Run where the notebooks run (cwd notebooks/), as nbval does."""
    monkeypatch.chdir(ROOT / "notebooks")
    monkeypatch.setenv(settings.FAST_ENV, "1")


@pytest.fixture
def model_dir(in_notebooks, request):
    """A fresh ``models/test_cluster_<test>`` folder, removed after the test."""
    name = "test_cluster_" + request.node.name.removeprefix("test_")[:40]
    path = settings.fresh_model_dir(name)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _tiny_job(**extra):
    return dict(params=TINY, eval_count=500, log_step_count_steps=20, shuffle_buffer=500, **extra)


@pytest.mark.slow(reason="trains in four processes")
def test_cluster_trains_evaluates_and_leaves_nothing(model_dir, capsys):
    result = cluster.run_cluster(model_dir, 60, save_checkpoints_steps=30, **_tiny_job())
    out = capsys.readouterr().out
    pids = started_pids(model_dir)
    assert set(pids) == {"chief", "worker 0", "ps 0", "evaluator"}
    assert all(gone(pid) for pid in pids.values())
    assert result.metrics["global_step"] >= 60 and 0 <= result.metrics["accuracy"] <= 1
    assert result.exit_codes == {
        "chief:0": 0,
        "worker:0": 0,
        "evaluator:0": 0,
        "ps:0": "ended by launcher",
    }
    assert (
        set(result.peak_memory_mb) == set(result.exit_codes)
        and min(result.peak_memory_mb.values()) > 100
    )
    assert "[worker 0] Waiting 5 secs before starting training." in out
    assert "[launcher] training is over: ended ps 0" in out
    assert "/work/" not in out and "deprecated" not in out
    assert "[chief] steps run by this process: " in out
    # every step of either trainer adds one to the global step;
    # a trainer may add one after the last checkpoint
    steps = {task: figures["steps run"] for task, figures in result.trainers.items()}
    assert (
        list(steps) == ["chief:0", "worker:0"] and steps["chief:0"] >= 1 and steps["worker:0"] >= 0
    )
    assert 0 <= sum(steps.values()) - result.metrics["global_step"] <= 2
    first, last = (
        result.trainers["chief:0"]["first logged step"],
        result.trainers["chief:0"]["last logged step"],
    )
    assert first == 0 and last >= first
    row = definitions(NOTEBOOK_09)["row"](result)
    assert row["processes"] == 4 and row["steps/s"] > 0
    assert row["steps run by each trainer"] == f"{steps['chief:0']} + {steps['worker:0']}"


@pytest.mark.slow(reason="starts TensorFlow in several processes")
def test_a_failing_task_ends_them_all_and_names_itself(model_dir, monkeypatch, capsys):
    monkeypatch.setattr(cluster, "TASK_PROGRAM", FAULTY_TASK)
    with pytest.raises(cluster.ClusterProblem) as raised:
        cluster.run_cluster(model_dir, 200, fail={"task": "worker:0"}, **_tiny_job())
    pids = started_pids(model_dir)
    message = str(raised.value)
    assert message.startswith(
        "worker 0 failed (exit code 1): RuntimeError: injected failure before training"
    )
    assert "\n" not in message
    assert len(pids) == 4 and all(gone(pid) for pid in pids.values())


@pytest.mark.slow(reason="starts TensorFlow in several processes")
def test_an_interrupt_ends_them_all_and_is_raised_again(model_dir, capsys):
    # an interrupt of the kernel while the cluster runs (see the next test for the SIGINT handler)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(5.0, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            cluster.run_cluster(model_dir, 200_000, **_tiny_job())
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    pids = started_pids(model_dir)
    assert len(pids) == 4 and all(gone(pid) for pid in pids.values())


@pytest.mark.slow(reason="starts TensorFlow in several processes")
def test_sigint_to_the_launcher_ends_its_process(model_dir, capsys):
    """What Jupyter's "interrupt kernel" (and nbval's timeout) does: SIGINT to the kernel."""

    # A kernel turns SIGINT into KeyboardInterrupt. Python does so only when SIGINT was not
    # ignored at its start, and a shell ignores it in commands it starts in the background
    # (a CI job may be one): install the handler a kernel has, for the length of the test.
    # More steps than the tiny model can train in the 3 s before the interrupt.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Timer(3.0, os.kill, (os.getpid(), signal.SIGINT)).start()
    try:
        with pytest.raises(KeyboardInterrupt):
            cluster.run_single(model_dir, 200_000, timeout=120, **_tiny_job())
    finally:
        signal.signal(signal.SIGINT, previous)
    pids = started_pids(model_dir)
    assert list(pids) == ["local"] and gone(pids["local"])


@pytest.mark.slow(reason="starts TensorFlow in several processes")
def test_children_die_with_a_killed_launcher(tmp_path):
    """If the kernel itself is killed (no finally runs), the tasks end with it."""
    script = (
        "from helpers import cluster, settings\n"
        "cluster.run_single(settings.fresh_model_dir('test_cluster_orphan'), 2000,\n"
        "                   params={'filters': (4, 8), 'dense_units': 16})\n"
    )
    launcher = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT / "notebooks", stdout=subprocess.PIPE, text=True
    )
    first = launcher.stdout.readline()
    assert first == "[launcher] started local\n"
    child = started_pids(paths.MODELS_DIR / "test_cluster_orphan")["local"]
    time.sleep(1.0)
    launcher.kill()
    launcher.wait()
    assert gone(child)
    shutil.rmtree(paths.MODELS_DIR / "test_cluster_orphan", ignore_errors=True)


def test_trainer_figures_from_the_log_lines():
    lines = [
        (
            0.0,
            "Waiting for model to be ready.  Ready_for_local_init_op:  None, ready: "
            "Variables not initialized",
        ),
        (1.0, "loss = 0.33298287, step = 800"),
        (1.1, "Loss for final step: 0.33298287."),
        (1.2, "steps run by this process: 1"),
    ]
    assert cluster._trainer_figures(lines) == {
        "first logged step": 800,
        "last logged step": 800,
        "steps run": 1,
    }
    assert cluster._trainer_figures([]) == {
        "first logged step": None,
        "last logged step": None,
        "steps run": None,
    }
    skipped = [(0.0, "Skipping training since max_steps has already saved.")]
    assert cluster._trainer_figures(skipped)["steps run"] == 0


def test_training_rate_between_a_trainers_first_and_last_loss_lines():
    lines = [
        (10.0, "loss = 2.3, step = 0"),
        (11.0, "loss = 0.5, step = 41"),
        (12.5, "loss = 0.4, step = 160"),
        (12.7, "Loss for final step: 0.4."),
    ]
    assert cluster._training_rate(lines) == (2.5, 160)
    seconds, steps = cluster._training_rate(lines[:1])
    assert steps == 0 and seconds != seconds  # NaN: one line gives no rate


def test_training_rate_counts_the_global_steps_between_the_first_and_last_loss_lines():
    # two lines are enough for a rate; a trainer that joins late starts from a later global step
    lines = [(5.0, "loss = 1.0, step = 40"), (7.0, "loss = 0.8, step = 90")]
    assert cluster._training_rate(lines) == (2.0, 50)


# --------------------------------------------------------------------------- fast: job and task
# Below, the launcher and the task without TensorFlow training: the launcher starts
# cluster_fake_task.py (a task that starts in milliseconds) on a clock 20 times as fast, and the
# task's own code runs in this process with train_and_evaluate replaced.

FAKE_TASK = (str(ROOT / "tests" / "helpers" / "cluster_fake_task.py"),)
SPEED = 20  # the launcher's clock, in the launch tests: it checks its tasks every 12.5 ms


@pytest.fixture
def fake_tasks(monkeypatch):
    """The launcher starts cluster_fake_task.py (the job's ``fake`` entry says what each task
    does), and its seconds (sleep, timeout, evaluator grace, wall time) last 0.05 s."""
    monkeypatch.setattr(cluster, "TASK_PROGRAM", FAKE_TASK)
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)  # the launcher must set it
    monkeypatch.setattr(
        cluster,
        "time",
        SimpleNamespace(
            sleep=lambda seconds: time.sleep(seconds / SPEED),
            perf_counter=lambda: time.perf_counter() * SPEED,
        ),
    )


class FinishedProcess:
    """What a ``_Task`` reads of a process that has printed ``text`` (None: still running)."""

    def __init__(self, text: str = "", returncode: int | None = 0, pid: int = 0):
        self.stdout = io.StringIO(text)
        self.returncode = returncode
        self.pid = pid or os.getpid()

    def poll(self):
        return self.returncode


def read_task(name, text, log_path, returncode=0) -> cluster._Task:
    """A ``_Task`` that has read all of ``text``."""
    task = cluster._Task(name, FinishedProcess(text, returncode), log_path)
    task.reader.join(timeout=5.0)
    assert not task.reader.is_alive(), "the reader did not stop at the end of the output"
    return task


def log_env(log_file) -> dict:
    """What a fake task received (its ``env: {...}`` line)."""
    text = Path(log_file).read_text()
    return json.loads(next(line for line in text.splitlines() if line.startswith("env: "))[5:])


def stamp(log_file, word) -> float:
    return float(re.search(rf"^{word} at ([\d.]+)$", Path(log_file).read_text(), re.M).group(1))


def test_the_result_has_the_rate_of_the_trainer_that_logged_most(tmp_path):
    def task(name, lines, returncode=0, ended=False, peak=0.0):
        done = read_task(name, "", tmp_path / f"{name}.log", returncode)
        done.lines, done.ended, done.peak = lines, ended, peak
        return done

    tasks = [
        task(
            "chief:0",
            [
                (10.0, "loss = 2.3, step = 0"),
                (11.0, "loss = 1.0, step = 50"),
                (12.0, "loss = 0.5, step = 100"),
            ],
            peak=812.4,
        ),
        task(
            "worker:0",
            [(10.5, "loss = 2.0, step = 10"), (14.5, "loss = 0.4, step = 90")],
            peak=790.6,
        ),
        task("ps:0", [], returncode=-15, ended=True, peak=400.2),
        task("evaluator:0", [(13.0, "Saving dict for global step 100: accuracy = 0.9")]),
    ]
    result = cluster._result(tasks, tmp_path, 12.5)
    assert result.steps_per_second == 50.0  # the chief's 100 global steps in 2 s (worker: 20/s)
    assert result.wall_seconds == 12.5
    assert list(result.exit_codes.items()) == [
        ("chief:0", 0),
        ("worker:0", 0),
        ("evaluator:0", 0),
        ("ps:0", "ended by launcher"),
    ]
    assert result.peak_memory_mb == {"chief:0": 812, "worker:0": 791, "ps:0": 400}
    assert list(result.trainers) == ["chief:0", "worker:0"]
    assert result.metrics == {} and result.evaluations == []  # no evaluation written
    at_once = [task("local:0", [(3.0, "loss = 1.0, step = 0"), (3.0, "loss = 0.9, step = 1")])]
    assert math.isnan(cluster._result(at_once, tmp_path, 1.0).steps_per_second)


def test_the_job_description_a_notebook_prints():
    job = cluster.job_description(Path("models") / "09_x", 800.0)
    assert job == {
        "model_dir": str(Path("models") / "09_x"),
        "max_steps": 800,
        "params": {},
        "strategy": None,
        "save_checkpoints_steps": 400,  # a checkpoint halfway, one at the end
        "eval_count": None,
        "throttle_secs": 2,
        "log_step_count_steps": 100,
        "start_delay_secs": 0,
    }
    assert type(job["max_steps"]) is int
    json.dumps(job)  # every task receives it as JSON
    assert cluster.job_description("m", 1)["save_checkpoints_steps"] == 1  # never 0
    assert cluster.job_description("m", 801)["save_checkpoints_steps"] == 400  # a whole number
    assert cluster.job_description("m", 7, save_checkpoints_steps=5, batch_size=50) == {
        **cluster.job_description("m", 7),
        "save_checkpoints_steps": 5,
        "batch_size": 50,
    }


def test_tf_configs_allow_no_workers_and_refuse_negative_ps():
    assert list(cluster.tf_configs(workers=0, ps=0, ports=[7])) == ["chief:0", "evaluator:0"]
    with pytest.raises(UsageProblem, match="0 or more"):
        cluster.tf_configs(ps=-1, ports=[1, 2])
    configs = cluster.tf_configs(workers=1, ps=0, host="10.0.0.5", ports=[1, 2])
    assert configs["evaluator:0"]["cluster"] == {"chief": ["10.0.0.5:1"], "worker": ["10.0.0.5:2"]}


def test_every_task_runs_this_module_as_a_script():
    option, module = cluster.TASK_PROGRAM
    assert option == "-m" and importlib.util.find_spec(module).origin == cluster.__file__


def test_a_task_logs_every_line_and_shows_the_chosen_ones_flushed(tmp_path, monkeypatch):
    class Stream(io.StringIO):  # a notebook's output: what has been flushed shows
        flushed = ""

        def flush(self):
            self.flushed = self.getvalue()

    monkeypatch.setattr(sys, "stdout", Stream())
    exactly = "ERROR: " + "x" * (160 - 7)  # the longest line shown whole
    longer = exactly + "yz"
    lines = ["loss = 0.5, step = 3", "an INFO line that is not shown", exactly, longer]
    task = read_task("worker:0", "".join(line + "\n" for line in lines), tmp_path / "w.log")
    assert (tmp_path / "w.log").read_text() == "".join(line + "\n" for line in lines)
    assert [line for _, line in task.lines] == lines
    stamps = [stamp for stamp, _ in task.lines]
    assert stamps == sorted(stamps) and stamps[0] <= time.perf_counter()
    shown = f"[worker 0] loss = 0.5, step = 3\n[worker 0] {exactly}\n[worker 0] {exactly[:-1]}x …\n"
    assert sys.stdout.getvalue() == shown and sys.stdout.flushed == shown
    assert task.reader.daemon  # a reader never keeps the launcher's interpreter alive


TRACEBACK = """loss = 2.3, step = 0
Traceback (most recent call last):
  File "/x/estimator.py", line 1, in train
ValueError: an earlier error, while handling which
  File "/x/estimator.py", line 2, in train
tensorflow.python.framework.errors_impl.InvalidArgumentError: logits and labels must match
  [[node loss]]
"""


@pytest.mark.parametrize(
    "text, returncode, says",
    [
        (
            TRACEBACK,
            1,
            "tensorflow.python.framework.errors_impl.InvalidArgumentError: logits and "
            "labels must match",
        ),
        ("loss = 2.3, step = 0\n  Killed by the system  \n", -9, "Killed by the system"),
        ("", 2, "no output"),
    ],
)
def test_a_failed_task_is_named_with_the_line_that_says_why(tmp_path, text, returncode, says):
    task = read_task("worker:0", text, tmp_path / "worker_0.log", returncode)
    with pytest.raises(cluster.ClusterProblem) as raised:
        task.check()
    assert str(raised.value) == (
        f"worker 0 failed (exit code {returncode}): {says} -- full log: {tmp_path / 'worker_0.log'}"
    )


def test_an_error_line_alone_names_a_failure(tmp_path):
    text = "loss = 2.3, step = 0\nMemoryError\nexiting\n"
    task = read_task("chief:0", text, tmp_path / "c", 1)
    with pytest.raises(
        cluster.ClusterProblem, match=r"^chief failed \(exit code 1\): MemoryError -"
    ):
        task.check()


def test_a_task_that_succeeded_or_was_ended_by_the_launcher_is_no_failure(tmp_path):
    read_task("chief:0", "ValueError: logged, not raised\n", tmp_path / "c", 0).check()
    ended = read_task("ps:0", "", tmp_path / "p", -15)
    ended.ended = True
    ended.check()
    assert ended.peak == 0.0  # no memory read of a process that has exited


def test_a_running_task_notes_its_peak_memory_in_mb(tmp_path):
    def vm_hwm_kb() -> int:
        status = Path(f"/proc/{os.getpid()}/status").read_text()
        return int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.M).group(1))

    task = read_task("ps:0", "", tmp_path / "p", None)  # this process, still running
    before = vm_hwm_kb()
    task.check()
    assert before / 1024 <= task.peak <= vm_hwm_kb() / 1024
    task.peak = 1e9  # the peak so far stays the peak
    task.check()
    assert task.peak == 1e9


def test_ending_a_task_asks_then_kills(tmp_path):
    def started(code):
        process = subprocess.Popen(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, start_new_session=True
        )
        task = cluster._Task("ps:0", process, tmp_path / f"{process.pid}.log")
        deadline = time.time() + 10
        while not task.lines and time.time() < deadline:
            time.sleep(0.01)
        return task

    polite = started("import time; print('ready', flush=True); time.sleep(60)")
    deaf = started(
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print('ready', flush=True); time.sleep(60)"
    )
    try:
        polite.end()
        deaf.end(grace=0.05)
        assert (polite.process.returncode, deaf.process.returncode) == (
            -signal.SIGTERM,
            -signal.SIGKILL,
        )
    finally:
        for task in (polite, deaf):
            if task.process.poll() is None:
                os.killpg(task.process.pid, signal.SIGKILL)


def test_a_cluster_run_ends_the_ps_after_training_and_reads_the_results(
    fake_tasks, tmp_path, capsys
):
    model_dir = tmp_path / "model"
    write_eval_events(
        model_dir / "eval",
        {30: {"accuracy": 0.5, "loss": 1.0}, 60: {"accuracy": 0.75, "loss": 0.5}},
    )
    (model_dir / "logs").mkdir()
    (model_dir / "logs" / "chief_0.log").write_text("a line of an earlier run\n")
    fake = {
        "chief:0": {
            "wait_for": ["ps ready"],
            "pause": 0.01,
            "done": "chief done",
            "stamp": True,
            "lines": [
                "loss = 2.3, step = 0",
                "loss = 0.9, step = 40",
                "Loss for final step: 0.9.",
                "steps run by this process: 41",
                "an INFO line that is not shown",
            ],
        },
        "worker:0": {
            "wait_for": ["ps ready"],
            "done": "worker done",
            "stamp": True,
            "lines": [
                "Waiting 5 secs before starting training.",
                "loss = 1.1, step = 20",
                "steps run by this process: 19",
            ],
        },
        "ps:0": {"ready": "ps ready", "then": "hang", "stamp": True},
        # still waiting when training is over, then done within the grace
        "evaluator:0": {
            "wait_for": ["chief done", "worker done"],
            "pause": 0.05,
            "lines": ["Saving dict for global step 60: accuracy = 0.75"],
        },
    }
    result = cluster.run_cluster(model_dir, 60, timeout=100, fake=fake)
    out = capsys.readouterr().out.splitlines()
    logs = model_dir / "logs"
    names = ["chief:0", "worker:0", "ps:0", "evaluator:0"]
    assert result.exit_codes == {
        "chief:0": 0,
        "worker:0": 0,
        "evaluator:0": 0,
        "ps:0": "ended by launcher",
    }
    assert list(result.exit_codes) == ["chief:0", "worker:0", "evaluator:0", "ps:0"]
    assert result.metrics == {"accuracy": 0.75, "loss": 0.5, "global_step": 60}
    assert result.evaluations == [30, 60]
    assert result.trainers == {
        "chief:0": {"first logged step": 0, "last logged step": 40, "steps run": 41},
        "worker:0": {"first logged step": 20, "last logged step": 20, "steps run": 19},
    }
    assert 0 < result.steps_per_second < float("inf")
    assert result.model_dir == str(model_dir)
    assert result.log_files == {name: str(logs / f"{name.replace(':', '_')}.log") for name in names}
    assert 1 <= result.peak_memory_mb["ps:0"] < 2000  # a Python process, in MB
    # what each task received
    envs = {name: log_env(result.log_files[name]) for name in names}
    spec = json.loads(envs["chief:0"]["TF_CONFIG"])["cluster"]
    assert list(spec) == ["chief", "worker", "ps"]
    for name, env in envs.items():
        kind, index = name.split(":")
        assert json.loads(env["TF_CONFIG"]) == {
            "cluster": spec,
            "task": {"type": kind, "index": int(index)},
        }
        assert env["job"] == cluster.job_description(model_dir, 60, fake=fake)
        assert env["parent"] == str(os.getpid()) and env["argv"] == []
        assert env["own session"]  # so that ending its group ends all it started
    # the ps is ended once both trainers have exited
    ps_log = result.log_files["ps:0"]
    assert stamp(ps_log, "ended") >= max(
        stamp(result.log_files[t], "exited") for t in ("chief:0", "worker:0")
    )
    assert "earlier run" not in Path(result.log_files["chief:0"]).read_text()
    # what the notebook shows (the launcher's line first there: a real task takes seconds to import
    # TensorFlow; these stand-ins may print before it)
    for line in [
        "[launcher] started chief, worker 0, ps 0, evaluator",
        "[chief] loss = 2.3, step = 0",
        "[chief] steps run by this process: 41",
        "[worker 0] Waiting 5 secs before starting training.",
        "[launcher] training is over: ended ps 0 (a parameter server never exits)",
        "[evaluator] Saving dict for global step 60: accuracy = 0.75",
    ]:
        assert line in out
    assert not [line for line in out if "INFO" in line or "env: " in line or "waiting" in line]
    wall = re.fullmatch(r"\[launcher\] all 4 processes have exited; wall time (\d+) s", out[-1])
    assert wall and abs(int(wall.group(1)) - result.wall_seconds) <= 1
    assert 0 < result.wall_seconds < 100
    launcher_log = (logs / "launcher.log").read_text()
    assert re.fullmatch(
        r"\[launcher\] started chief \(pid \d+\), worker 0 \(pid \d+\), "
        r"ps 0 \(pid \d+\), evaluator \(pid \d+\)\n",
        launcher_log,
    )
    assert all(gone(pid, wait=2.0) for pid in started_pids(model_dir).values())


def test_an_evaluator_still_waiting_after_the_grace_is_ended(fake_tasks, tmp_path, capsys):
    fake = {"evaluator:0": {"then": "hang"}}
    result = cluster.run_cluster(
        tmp_path, 10, workers=0, ps=0, timeout=100, evaluator_grace=2, fake=fake
    )
    out = capsys.readouterr().out.splitlines()
    assert result.exit_codes == {"chief:0": 0, "evaluator:0": "ended by launcher"}
    assert out[1:] == [
        "[launcher] the evaluator was still waiting for checkpoints 2 s after training ended: "
        "ended it",
        out[-1],
    ]
    assert result.metrics == {} and result.evaluations == []  # it evaluated nothing


def test_one_process_without_tf_config(fake_tasks, tmp_path, monkeypatch, capsys):
    stale = cluster.tf_configs(ports=[1, 2, 3])["worker:0"]  # left in the launcher's environment
    monkeypatch.setenv("TF_CONFIG", json.dumps(stale))
    fake = {"local:0": {"lines": ["loss = 2.3, step = 0", "steps run by this process: 10"]}}
    result = cluster.run_single(tmp_path / "single", 10, fake=fake)
    assert result.exit_codes == {"local:0": 0}
    assert log_env(result.log_files["local:0"])["TF_CONFIG"] is None
    assert result.trainers["local:0"]["steps run"] == 10
    assert capsys.readouterr().out.splitlines()[:2] == [
        "[launcher] started local",
        "[local] loss = 2.3, step = 0",
    ]


def test_a_failing_task_ends_the_others_with_one_line_naming_it(fake_tasks, tmp_path, capsys):
    model_dir = tmp_path / "new" / "model"  # no folder yet
    fake = {
        "chief:0": {"ready": "chief ready", "then": "hang"},  # training, killed by SIGTERM
        "worker:0": {
            "wait_for": ["chief ready"],
            "lines": ["loss = 2.3, step = 0"],
            "then": "raise",
        },
        "ps:0": {"then": "hang"},
    }
    with pytest.raises(cluster.ClusterProblem) as raised:
        cluster.run_cluster(model_dir, 60, evaluator=False, timeout=100, fake=fake)
    logs = model_dir / "logs"
    assert str(raised.value) == (
        "worker 0 failed (exit code 1): RuntimeError: injected failure "
        f"(worker:0) -- full log: {logs / 'worker_0.log'}"
    )
    pids = started_pids(model_dir)
    assert list(pids) == ["chief", "worker 0", "ps 0"]
    assert all(gone(pid, wait=2.0) for pid in pids.values())
    # the chief's lines came while it ran: nothing was waiting in a buffer when it was killed
    assert log_env(logs / "chief_0.log")["TF_CONFIG"]


def test_a_cluster_that_does_not_finish_in_time_is_ended(fake_tasks, tmp_path, capsys):
    with pytest.raises(cluster.ClusterProblem) as raised:
        cluster.run_single(tmp_path, 10, timeout=2, fake={"local:0": {"then": "hang"}})
    assert str(raised.value) == (
        "the cluster did not finish within 2 s: all its processes were "
        f"ended -- logs in {tmp_path / 'logs'}"
    )
    assert gone(started_pids(tmp_path)["local"], wait=2.0)


def test_strategies_by_name():
    assert cluster.make_strategy(None, tf=None) is None
    assert cluster.make_strategy("none", tf=None) is None
    with pytest.raises(UsageProblem, match="^unknown strategy 'dp': use none, ps_v1 or ps_v2$"):
        cluster.make_strategy("dp", tf=None)
    v1 = SimpleNamespace(ParameterServerStrategy=lambda: "the v1 strategy")
    fake_tf = SimpleNamespace(
        compat=SimpleNamespace(v1=SimpleNamespace(distribute=SimpleNamespace(experimental=v1)))
    )
    assert cluster.make_strategy("ps_v1", fake_tf) == "the v1 strategy"


def test_the_v2_strategy_starts_a_worker_and_a_ps_in_the_task():
    import tensorflow as tf

    servers = []

    def server(spec, job_name, task_index, protocol, start):
        spec.task_address(job_name, task_index)  # as tf.distribute.Server: a task of the spec
        servers.append((job_name, task_index, protocol, start))

    fake_tf = SimpleNamespace(
        train=tf.train,
        distribute=SimpleNamespace(
            Server=server,
            cluster_resolver=SimpleNamespace(
                SimpleClusterResolver=lambda spec, rpc_layer: (spec, rpc_layer)
            ),
            experimental=SimpleNamespace(ParameterServerStrategy=lambda resolver: ("v2", resolver)),
        ),
    )
    kind, (spec, rpc_layer) = cluster.make_strategy("ps_v2", fake_tf)
    assert kind == "v2" and rpc_layer == "grpc"
    assert servers == [("worker", 0, "grpc", True), ("ps", 0, "grpc", True)]
    addresses = spec.as_dict()
    assert sorted(addresses) == ["ps", "worker"]
    assert addresses["ps"][0] != addresses["worker"][0]
    assert all(a[0].startswith("127.0.0.1:") for a in addresses.values())


def test_the_steps_run_hook_logs_a_line_the_launcher_reads_back(monkeypatch):
    import tensorflow as tf

    logged = []
    monkeypatch.setattr(
        tf.compat.v1.logging, "info", lambda message, *args: logged.append(message % args)
    )
    hook = cluster.steps_run_hook(tf)
    assert isinstance(hook, tf.compat.v1.train.SessionRunHook)
    for _ in range(3):
        hook.after_run(None, None)
    hook.end(None)
    assert logged == ["steps run by this process: 3"]
    assert cluster._trainer_figures([(0.0, logged[0])])["steps run"] == 3


@pytest.fixture
def run_task_parts(monkeypatch):
    """``run_task`` with ``train_and_evaluate``, the strategy and the input functions replaced:
    what it built and passed, by name."""
    import tensorflow as tf

    from helpers import inputs

    seen = {
        "defaults": inspect.signature(inputs.make_train_input_fn).parameters,
        "early-stopping hook": tf.compat.v1.train.SessionRunHook(),
    }

    def record(name, result=None):
        return lambda *args, **kwargs: (seen.__setitem__(name, (args, kwargs)), result)[1]

    tf.estimator.experimental.stop_if_higher_hook  # noqa: B018 -- load the lazy modules first
    monkeypatch.setattr(
        sys.modules[tf.estimator.__name__], "train_and_evaluate", record("train_and_evaluate")
    )
    monkeypatch.setattr(
        sys.modules[tf.estimator.experimental.__name__],
        "stop_if_higher_hook",
        record("early stop", seen["early-stopping hook"]),
    )
    monkeypatch.setattr(cluster, "make_strategy", record("strategy"))
    monkeypatch.setattr(inputs, "make_train_input_fn", record("train input", lambda: None))
    monkeypatch.setattr(inputs, "make_eval_input_fn", record("eval input", lambda: None))
    return seen


def test_a_task_trains_and_evaluates_as_its_job_says(run_task_parts, tmp_path, monkeypatch):
    monkeypatch.setenv(
        "TF_CONFIG", json.dumps(cluster.tf_configs(workers=2, ports=[1, 2, 3, 4])["worker:1"])
    )
    early = {"metric": "accuracy", "threshold": 0.9, "every": 20}
    cluster.run_task(
        cluster.job_description(
            tmp_path,
            60,
            params=TINY,
            strategy="ps_v1",
            save_checkpoints_steps=30,
            eval_count=500,
            throttle_secs=3,
            log_step_count_steps=20,
            start_delay_secs=5,
            keep_checkpoint_max=2,
            batch_size=50,
            shuffle_buffer=500,
            early_stop=early,
        )
    )
    seen = run_task_parts
    assert seen["strategy"][0][0] == "ps_v1"
    (estimator, train_spec, eval_spec), _ = seen["train_and_evaluate"]
    config = estimator.config
    assert (estimator.model_dir, estimator.params) == (str(tmp_path), TINY)
    assert (config.task_type, config.task_id, config.tf_random_seed) == ("worker", 1, settings.SEED)
    assert (
        config.save_checkpoints_steps,
        config.keep_checkpoint_max,
        config.log_step_count_steps,
    ) == (30, 2, 20)
    assert train_spec.max_steps == 60
    assert train_spec.hooks[1:] == (seen["early-stopping hook"],)
    assert seen["early stop"] == (
        (estimator, "accuracy", 0.9),
        {"run_every_secs": None, "run_every_steps": 20},
    )
    # each trainer shuffles with its own seed
    assert seen["train input"][1] == {
        "batch_size": 50,
        "seed": settings.SEED + 2,
        "shuffle_buffer": 500,
    }
    assert seen["eval input"][1] == {"count": 500}
    assert (eval_spec.steps, eval_spec.start_delay_secs, eval_spec.throttle_secs) == (None, 5, 3)


@pytest.mark.parametrize("task", ["chief:0", None])
def test_a_task_given_the_least_job_uses_the_defaults(run_task_parts, tmp_path, monkeypatch, task):
    import tensorflow as tf

    if task:
        monkeypatch.setenv("TF_CONFIG", json.dumps(cluster.tf_configs(ports=[1, 2, 3])[task]))
    else:
        monkeypatch.delenv("TF_CONFIG", raising=False)
    cluster.run_task({"model_dir": str(tmp_path), "max_steps": 10})
    seen = run_task_parts
    (estimator, train_spec, eval_spec), _ = seen["train_and_evaluate"]
    assert seen["strategy"][0][0] is None and estimator.params == {}
    default = tf.estimator.RunConfig()
    assert (estimator.config.keep_checkpoint_max, estimator.config.log_step_count_steps) == (
        default.keep_checkpoint_max,
        default.log_step_count_steps,
    )
    [hook] = train_spec.hooks  # steps run by this process
    assert hook.__class__.__name__ == "StepsRun" and "early stop" not in seen
    course = seen["defaults"]  # of inputs.make_train_input_fn
    assert seen["train input"][1] == {
        "batch_size": course["batch_size"].default,
        "seed": settings.SEED,  # the first trainer: the course seed
        "shuffle_buffer": course["shuffle_buffer"].default,
    }
    assert seen["eval input"][1] == {"count": None}
    assert (eval_spec.start_delay_secs, eval_spec.throttle_secs) == (0, 0)  # evaluate at once


def test_a_task_logs_plain_lines_with_the_level_of_warnings_and_errors():
    plain = cluster._Plain()
    levels = [logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR]
    records = [
        logging.LogRecord("tensorflow", level, __file__, 1, "loss = %.1f", (0.5,), None)
        for level in levels
    ]
    assert [plain.format(record) for record in records] == [
        "loss = 0.5",
        "loss = 0.5",
        "WARNING: loss = 0.5",
        "ERROR: loss = 0.5",
    ]


@pytest.fixture
def task_main_parts(monkeypatch):
    """``task_main`` in this process, what it starts and changes recorded or put back: the job
    it runs, the watchdog (run at once, on a fake clock and fake parent pids), TF's logger, the
    SIGTERM handler, the warnings filters. Returns ``run(environ, parent_pids)``."""
    import tensorflow as tf

    logger = tf.get_logger()
    before = list(logger.handlers), list(logger.filters), logger.propagate, logger.level
    handler = signal.getsignal(signal.SIGTERM)
    seen = SimpleNamespace(jobs=[], temp_dirs=[], threads=[], exits=[], sleeps=[], logger=logger)

    class Thread:
        def __init__(self, target, daemon):
            self.target, self.daemon = target, daemon
            seen.threads.append(self)

        def start(self):
            self.target()

    monkeypatch.setattr(cluster, "run_task", seen.jobs.append)
    monkeypatch.setattr(course_setup, "use_course_temp_dir", lambda: seen.temp_dirs.append(1))
    monkeypatch.setattr(cluster, "threading", SimpleNamespace(Thread=Thread))
    monkeypatch.setattr(cluster, "time", SimpleNamespace(sleep=seen.sleeps.append))

    def run(environ, parent_pids=()):
        pids = iter(parent_pids)
        monkeypatch.setattr(
            cluster,
            "os",
            SimpleNamespace(environ=environ, getppid=lambda: next(pids), _exit=seen.exits.append),
        )
        cluster.task_main()
        return seen

    try:
        with warnings.catch_warnings():
            yield run
    finally:
        signal.signal(signal.SIGTERM, handler)
        logger.handlers, logger.filters, logger.propagate = before[:3]
        logger.setLevel(before[3])


def test_a_task_logs_plain_lines_to_its_output_and_exits_through_python(
    task_main_parts, capsys, caplog
):
    job = {"model_dir": "m", "max_steps": 1}
    seen = task_main_parts({cluster.JOB_ENV: json.dumps(job)})  # started by hand: no launcher
    assert seen.jobs == [job] and seen.temp_dirs == [1]
    assert seen.threads == [] and seen.exits == []  # no watchdog
    assert ("ignore", None, Warning, None, 0) in warnings.filters  # no warning in the log
    [handler] = seen.logger.handlers
    assert isinstance(handler.formatter, cluster._Plain)
    seen.logger.warning("a %s", "warning")
    assert capsys.readouterr().out == "WARNING: a warning\n" and not caplog.records  # once
    with pytest.raises(SystemExit) as exited:  # the launcher's SIGTERM
        signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)
    assert exited.value.code == 128 + signal.SIGTERM


def test_a_task_ends_when_its_launcher_is_gone(task_main_parts):
    environ = {cluster.JOB_ENV: "{}", cluster.PARENT_ENV: "4242"}
    seen = task_main_parts(environ, [4242, 4242, 1])  # then init adopted it: the launcher died
    [watchdog] = seen.threads
    assert watchdog.daemon
    assert len(seen.sleeps) == 2 and max(seen.sleeps) <= 1.0  # it looks every second at most
    assert seen.exits == [3]
