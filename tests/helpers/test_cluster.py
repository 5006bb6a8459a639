"""The local cluster launcher of notebook 09 (helpers.cluster).

The pure part (TF_CONFIG for every task) is tested directly. The launcher is
tested with a tiny CNN on real processes: success returns the final
evaluation; a failing task raises one line naming it; an interrupt is
re-raised; in every case no process it started is left. The slow tests start
TensorFlow in several processes (about 15–45 s each).
"""

import _thread
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers import cluster, settings
from helpers.problems import UsageProblem
from tests import ROOT
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
    by_hand = {f"{kind}:0": {"cluster": spec, "task": {"type": kind, "index": 0}}
               for kind in ("chief", "worker", "ps", "evaluator")}
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


@pytest.mark.parametrize("kwargs, message", [
    ({"ports": 2222}, "share a host and port"),
    ({"ports": [1, 2]}, "3 tasks in the cluster need 3 ports, got 2"),
    ({"workers": -1}, "0 or more"),
])
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_children_die_with_a_killed_launcher(tmp_path):
    """If the kernel itself is killed (no finally runs), the tasks end with it."""
    script = (
        "from helpers import cluster, settings\n"
        "cluster.run_single(settings.fresh_model_dir('test_cluster_orphan'), 2000,\n"
        "                   params={'filters': (4, 8), 'dense_units': 16})\n"
    )
    launcher = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT / "notebooks",
                                stdout=subprocess.PIPE, text=True)
    first = launcher.stdout.readline()
    assert first == "[launcher] started local\n"
    child = started_pids(settings.MODELS_DIR / "test_cluster_orphan")["local"]
    time.sleep(1.0)
    launcher.kill()
    launcher.wait()
    assert gone(child)
    shutil.rmtree(settings.MODELS_DIR / "test_cluster_orphan", ignore_errors=True)


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
