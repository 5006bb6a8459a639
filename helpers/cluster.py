"""A cluster of Estimator processes on this machine, started from a notebook.

Introduced in notebook 09. ``tf_configs`` builds the ``TF_CONFIG`` of every
task of a cluster (a pure function: the notebook also uses it to write the
settings of a real cluster). ``run_cluster`` starts a chief, workers,
parameter servers and an evaluator as separate local processes on free
loopback ports, each with its own ``TF_CONFIG``, all running
``helpers.cluster_task`` (the course's ``cnn_model_fn`` and input functions in
``tf.estimator.train_and_evaluate``). It streams selected log lines with a
role prefix (every line goes to ``model_dir/logs/<task>.log``), ends the
parameter servers once training is over (they never exit on their own), and
reads the final evaluation from the evaluator's event files.

Whatever happens -- success, a task failing, a timeout, the cell interrupted
-- every process it started is gone when it returns or raises: each child
runs in its own process group, which is killed and waited for in a
``finally`` block, and each child also dies with the launcher's process.
``run_single`` runs the same job in one process with no ``TF_CONFIG``.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .cluster_task import JOB_ENV, PARENT_ENV, PEAK_PREFIX, peak_memory_mb
from .problems import WorkbookProblem

TRAINER_TYPES = ("chief", "worker")

# The lines shown in the notebook by default (every line goes to the log files).
SHOWN = re.compile(
    r"^(loss = |Loss for final step|Saving checkpoints for|Saving dict for global step"
    r"|Waiting \d+ secs before starting training|Exiting evaluation|Requesting early stopping"
    r"|Early stopping requested|No increase in metric|ERROR)"
)
ERROR_LINE = re.compile(r"^[A-Za-z_.]*(Error|Exception|Interrupt)\b.*:|^[A-Za-z_.]*Error$")


class ClusterProblem(WorkbookProblem):
    """A task of the local cluster failed, or the cluster did not finish in time."""


# --------------------------------------------------------------------------- TF_CONFIG


def free_ports(count: int, host: str = "127.0.0.1") -> list:
    """``count`` distinct free TCP ports on ``host`` (bound to port 0, read back, closed)."""
    sockets, ports = [], []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((host, 0))
            sockets.append(sock)
            ports.append(sock.getsockname()[1])
    finally:
        for sock in sockets:
            sock.close()
    return ports


def task_names(workers: int = 1, ps: int = 1, evaluator: bool = True) -> list:
    """The tasks of a cluster as ``"type:index"``, chief first, evaluator last."""
    names = ["chief:0"] + [f"worker:{i}" for i in range(workers)] + [f"ps:{i}" for i in range(ps)]
    return names + (["evaluator:0"] if evaluator else [])


def tf_configs(workers: int = 1, ps: int = 1, evaluator: bool = True, evaluator_in_cluster: bool = False,
               host="127.0.0.1", ports=None) -> dict:
    """The ``TF_CONFIG`` of every task: ``{"chief:0": {"cluster": …, "task": …}, …}``.

    ``host`` is one host name for all tasks, or a function ``(type, index) ->
    host``; ``ports`` is one port for all tasks (each on its own machine), a
    list with one port per task in ``task_names`` order, or None for free
    local ports. The evaluator is not listed in the cluster unless
    ``evaluator_in_cluster`` (which ``MultiWorkerMirroredStrategy`` needs).
    """
    if workers < 0 or ps < 0:
        raise ValueError("workers and ps must be 0 or more")
    names = task_names(workers, ps, evaluator)
    if ports is None:
        ports = free_ports(len(names))
    elif isinstance(ports, int):
        ports = [ports] * len(names)
    ports = list(ports)
    if len(ports) != len(names):
        raise ValueError(f"{len(names)} tasks need {len(names)} ports, got {len(ports)}")
    addresses = {}
    for name, port in zip(names, ports):
        task_type, index = name.split(":")
        hostname = host(task_type, int(index)) if callable(host) else host
        addresses[name] = f"{hostname}:{port}"
    if len(set(addresses.values())) != len(addresses):
        raise ValueError("two tasks share a host and port: give each task its own port or host")
    cluster = {}
    for name, address in addresses.items():
        task_type = name.split(":")[0]
        if task_type == "evaluator" and not evaluator_in_cluster:
            continue
        cluster.setdefault(task_type, []).append(address)
    return {
        name: {"cluster": cluster, "task": {"type": name.split(":")[0], "index": int(name.split(":")[1])}}
        for name in names
    }


def kubernetes_env(configs: dict, service: str = "trainer") -> str:
    """The ``env:`` entry of each task's pod spec, as YAML text (for a real cluster; not run)."""
    lines = []
    for name, config in configs.items():
        task_type, index = name.split(":")
        lines.append(f"# pod {service}-{task_type}-{index}")
        lines.append("env:")
        lines.append("- name: TF_CONFIG")
        lines.append(f"  value: '{json.dumps(config)}'")
    return "\n".join(lines)


def role_label(name: str) -> str:
    """``"worker:0"`` -> ``"worker 0"``; the single chief and evaluator have no number."""
    task_type, index = name.split(":")
    return task_type if task_type in ("chief", "evaluator", "local") else f"{task_type} {index}"


# --------------------------------------------------------------------------- launcher


@dataclass
class ClusterResult:
    """What ``run_cluster`` / ``run_single`` return."""

    metrics: dict  # the final evaluation: accuracy, loss, global_step
    wall_seconds: float  # from the first process started to the last one gone
    train_seconds: float  # between the chief's first and last "loss = …, step = …" lines
    train_steps: int  # the global steps between those two lines
    exit_codes: dict  # task -> exit code, or "ended by launcher"
    peak_memory_mb: dict  # task -> peak resident memory (VmHWM), MB
    model_dir: str = ""
    log_files: dict = field(default_factory=dict)
    evaluations: list = field(default_factory=list)  # the global steps the evaluator evaluated

    @property
    def steps_per_second(self) -> float:
        """Global steps per second while training (all trainers together), from the chief's log."""
        return self.train_steps / self.train_seconds if self.train_seconds else float("nan")

    def row(self) -> dict:
        """One row of a comparison table."""
        trainers = [task for task in self.exit_codes if task.split(":")[0] in TRAINER_TYPES + ("local",)]
        return {
            "processes": len(self.exit_codes),
            "trainers": len(trainers),
            "final global step": int(self.metrics.get("global_step", -1)),
            "test accuracy": round(float(self.metrics.get("accuracy", float("nan"))), 4),
            "steps/s": round(self.steps_per_second, 1),
            "wall time s": round(self.wall_seconds, 1),
            "peak MB, largest process": round(max(self.peak_memory_mb.values() or [0])),
            "peak MB, all processes": round(sum(self.peak_memory_mb.values())),
        }


def job_description(model_dir, max_steps: int, params: dict | None = None, strategy: str | None = None,
                    save_checkpoints_steps: int | None = None, eval_count: int | None = None,
                    throttle_secs: int = 2, log_step_count_steps: int = 100, **extra) -> dict:
    """The JSON-able job every task receives (see ``helpers.cluster_task.run``)."""
    job = {
        "model_dir": str(model_dir), "max_steps": int(max_steps), "params": params or {},
        "strategy": strategy, "save_checkpoints_steps": save_checkpoints_steps or max(1, max_steps // 2),
        "eval_count": eval_count, "throttle_secs": throttle_secs,
        "log_step_count_steps": log_step_count_steps, "start_delay_secs": 0,
    }
    job.update(extra)
    return job


def _reader(name, stream, lines):
    for line in iter(stream.readline, ""):
        lines.put((name, time.perf_counter(), line.rstrip("\n")))
    stream.close()
    lines.put((name, time.perf_counter(), None))


def _end(process, grace: float = 5.0) -> None:
    """SIGTERM the process group, then SIGKILL after ``grace`` seconds; wait for it."""
    if process.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 30.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _final_evaluation(model_dir) -> tuple:
    from . import events

    timeline = events.timeline(model_dir, "eval")
    if timeline.empty:
        return {}, []
    last = timeline.iloc[-1]
    metrics = {name: float(value) for name, value in last.items()}
    metrics["global_step"] = int(timeline.index[-1])
    return metrics, [int(step) for step in timeline.index]


def launch(configs: dict, job: dict, show=SHOWN, timeout: float = 900.0, evaluator_grace: float = 120.0,
           on_line=None, on_start=None, quiet: bool = False) -> ClusterResult:
    """Start one process per task in ``configs`` (None: one local process), wait, clean up.

    ``show``: a regex (the lines printed with their role prefix), ``"all"``, or
    None (print nothing). ``on_line(task, line)`` is called for every line,
    ``on_start(task, pid)`` for every process started (the tests use both).
    """
    model_dir = Path(job["model_dir"])
    log_dir = model_dir / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    if configs is None:
        configs = {"local:0": None}
    lines: queue.Queue = queue.Queue()
    processes, files, peaks, exit_codes, times = {}, {}, {}, {}, {}
    ended_by_launcher = set()
    trainers_done_at = None
    started = time.perf_counter()

    def say(text):
        if not quiet:
            print(f"[launcher] {text}", flush=True)

    try:
        for name, config in configs.items():
            env = dict(os.environ)
            env.pop("TF_CONFIG", None)
            if config is not None:
                env["TF_CONFIG"] = json.dumps(config)
            env[JOB_ENV] = json.dumps(job)
            env[PARENT_ENV] = str(os.getpid())
            env["PYTHONUNBUFFERED"] = "1"
            process = subprocess.Popen(
                [sys.executable, "-m", "helpers.cluster_task"], env=env, cwd=os.getcwd(),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True, bufsize=1, start_new_session=True,
            )
            processes[name] = process
            if on_start is not None:
                on_start(name, process.pid)
            files[name] = open(log_dir / f"{name.replace(':', '_')}.log", "w")
            threading.Thread(target=_reader, args=(name, process.stdout, lines), daemon=True).start()
        say("started " + ", ".join(f"{role_label(n)} (pid {p.pid})" for n, p in processes.items()))
        open_streams = set(processes)
        last_lines = {name: [] for name in processes}
        while True:
            try:
                name, stamp, line = lines.get(timeout=0.25)
            except queue.Empty:
                name = None
            if name is not None:
                if line is None:
                    open_streams.discard(name)
                else:
                    files[name].write(line + "\n")
                    last_lines[name] = (last_lines[name] + [line])[-30:]
                    if line.startswith(PEAK_PREFIX):
                        peaks[name] = max(peaks.get(name, 0), float(line[len(PEAK_PREFIX):].split()[0]))
                    else:
                        times.setdefault(name, []).append((stamp, line))
                        if on_line is not None:
                            on_line(name, line)
                        if show == "all" or (show is not None and show != "all" and re.search(show, line)):
                            print(f"[{role_label(name)}] {line}", flush=True)
            for task, process in processes.items():
                if process.poll() is None:
                    peak = peak_memory_mb(process.pid)
                    if peak:
                        peaks[task] = max(peaks.get(task, 0), peak)
                elif task not in exit_codes and task not in open_streams:
                    exit_codes[task] = process.returncode
                    if process.returncode != 0 and task not in ended_by_launcher:
                        error = next((l for l in reversed(last_lines[task]) if ERROR_LINE.search(l)),
                                     last_lines[task][-1] if last_lines[task] else "no output")
                        raise ClusterProblem(
                            f"{role_label(task)} failed (exit code {process.returncode}): {error.strip()}"
                            f" -- full log: {log_dir / (task.replace(':', '_') + '.log')}")
            trainers = [t for t in processes if t.split(":")[0] in TRAINER_TYPES + ("local",)]
            if trainers_done_at is None and all(t in exit_codes for t in trainers):
                trainers_done_at = time.perf_counter()
                for task in processes:
                    if task.startswith("ps:") and processes[task].poll() is None:
                        ended_by_launcher.add(task)
                        _end(processes[task])
                        say(f"training is over: ended {role_label(task)} (a parameter server never exits)")
            if (trainers_done_at is not None and "evaluator:0" in processes
                    and processes["evaluator:0"].poll() is None
                    and time.perf_counter() - trainers_done_at > evaluator_grace):
                ended_by_launcher.add("evaluator:0")
                _end(processes["evaluator:0"])
                say(f"the evaluator was still waiting for checkpoints {evaluator_grace:.0f} s after "
                    "training ended: ended it")
            if all(t in exit_codes for t in processes):
                break
            if time.perf_counter() - started > timeout:
                raise ClusterProblem(
                    f"the cluster did not finish within {timeout:.0f} s: all its processes were ended"
                    f" -- logs in {log_dir}")
    finally:
        for process in processes.values():
            _end(process, grace=2.0)
        for handle in files.values():
            handle.close()
    wall = time.perf_counter() - started
    for task in ended_by_launcher:
        exit_codes[task] = "ended by launcher"
    metrics, evaluations = _final_evaluation(model_dir)
    train_seconds, train_steps = _training_rate(times.get("chief:0") or times.get("local:0") or [])
    say(f"all {len(processes)} processes have exited; wall time {wall:.0f} s")
    return ClusterResult(metrics=metrics, wall_seconds=wall, train_seconds=train_seconds, train_steps=train_steps,
                         exit_codes=exit_codes, peak_memory_mb={t: round(p) for t, p in peaks.items()},
                         model_dir=str(model_dir), log_files={t: str(log_dir / (t.replace(":", "_") + ".log")) for t in processes},
                         evaluations=evaluations)


LOSS_LINE = re.compile(r"^loss = [-+.\deE]+, step = (\d+)")


def _training_rate(lines) -> tuple:
    """(seconds, global steps) between the trainer's first and last ``loss = …, step = N`` lines."""
    logged = [(stamp, int(match.group(1))) for stamp, line in lines for match in [LOSS_LINE.match(line)] if match]
    if len(logged) < 2:
        return float("nan"), 0
    (first_time, first_step), (last_time, last_step) = logged[0], logged[-1]
    return last_time - first_time, last_step - first_step


def run_cluster(model_dir, max_steps: int, workers: int = 1, ps: int = 1, evaluator: bool = True,
                evaluator_in_cluster: bool = False, strategy: str | None = None, show=SHOWN,
                timeout: float = 900.0, evaluator_grace: float = 120.0, on_line=None, on_start=None,
                quiet: bool = False, **job) -> ClusterResult:
    """Train and evaluate the course CNN with a local cluster; return the final evaluation and figures.

    ``job`` holds the rest of the job description (``params``,
    ``save_checkpoints_steps``, ``eval_count``, ``throttle_secs``, …; see
    ``job_description``).
    """
    configs = tf_configs(workers=workers, ps=ps, evaluator=evaluator, evaluator_in_cluster=evaluator_in_cluster)
    description = job_description(model_dir, max_steps, strategy=strategy, **job)
    return launch(configs, description, show=show, timeout=timeout, evaluator_grace=evaluator_grace,
                  on_line=on_line, on_start=on_start, quiet=quiet)


def run_single(model_dir, max_steps: int, show=SHOWN, timeout: float = 900.0, on_line=None,
               on_start=None, quiet: bool = False, **job) -> ClusterResult:
    """The same job in one process without ``TF_CONFIG``: local ``train_and_evaluate``."""
    description = job_description(model_dir, max_steps, **job)
    return launch(None, description, show=show, timeout=timeout, on_line=on_line, on_start=on_start,
                  quiet=quiet)
