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
reads the final evaluation from the evaluator's event files and each
trainer's own step count from its log (who did the work: a process count
does not say).

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
from typing import Callable, Sequence

from .cluster_task import JOB_ENV, PARENT_ENV, PEAK_PREFIX, peak_memory_mb
from .problems import UsageProblem, WorkbookProblem

TRAINER_TYPES = ("chief", "worker")

# The lines shown in the notebook by default (every line goes to the log files).
SHOWN = re.compile(
    r"^(loss = |Loss for final step|Saving checkpoints for|Saving dict for global step"
    r"|Waiting \d+ secs before starting training|Exiting evaluation|Requesting early stopping"
    r"|Early stopping requested|No increase in metric|Waiting for model to be ready|Skipping training"
    r"|steps run by this process|ERROR)"
)
ERROR_LINE = re.compile(r"^[A-Za-z_.]*(Error|Exception|Interrupt)\b.*:|^[A-Za-z_.]*Error$")


class ClusterProblem(WorkbookProblem):
    """A task of the local cluster failed, or the cluster did not finish in time."""


# --------------------------------------------------------------------------- TF_CONFIG


def free_ports(count: int, host: str = "127.0.0.1") -> list[int]:
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


def task_names(workers: int = 1, ps: int = 1, evaluator: bool = True) -> list[str]:
    """The tasks of a cluster as ``"type:index"``, chief first, evaluator last."""
    names = ["chief:0"] + [f"worker:{i}" for i in range(workers)] + [f"ps:{i}" for i in range(ps)]
    return names + (["evaluator:0"] if evaluator else [])


def tf_configs(workers: int = 1, ps: int = 1, evaluator: bool = True,
               host: str | Callable[[str, int], str] = "127.0.0.1",
               ports: int | list[int] | None = None) -> dict[str, dict]:
    """The ``TF_CONFIG`` of every task: ``{"chief:0": {"cluster": …, "task": …}, …}``.

    ``host`` is one host name for all tasks, or a function ``(type, index) ->
    host``; ``ports`` is one port for all tasks (each on its own machine), a
    list with one port per task of the cluster (chief, workers, ps, in that
    order), or None for free local ports. The evaluator is not in the cluster:
    it gets a ``task`` and no address.
    """
    if workers < 0 or ps < 0:
        raise UsageProblem("workers and ps must be 0 or more")
    names = task_names(workers, ps, evaluator)
    members = [name for name in names if not name.startswith("evaluator")]
    if ports is None:
        ports = free_ports(len(members))
    elif isinstance(ports, int):
        ports = [ports] * len(members)
    ports = list(ports)
    if len(ports) != len(members):
        raise UsageProblem(f"{len(members)} tasks in the cluster need {len(members)} ports, got {len(ports)}")
    cluster: dict[str, list[str]] = {}
    for name, port in zip(members, ports):
        task_type, index = name.split(":")
        hostname = host(task_type, int(index)) if callable(host) else host
        cluster.setdefault(task_type, []).append(f"{hostname}:{port}")
    addresses = [address for tasks in cluster.values() for address in tasks]
    if len(set(addresses)) != len(addresses):
        raise UsageProblem("two tasks share a host and port: give each task its own port or host")
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

TASK_PROGRAM = ("-m", "helpers.cluster_task")  # what every process runs, after the Python interpreter
LOSS_LINE = re.compile(r"^loss = [-+.\deE]+, step = (\d+)")
STEPS_RUN_LINE = re.compile(r"^steps run by this process: (\d+)")
SKIPPED_LINE = "Skipping training since max_steps has already saved."  # Estimator.train ran no step
SHOWN_WIDTH = 160  # longer lines are cut when shown (the log files keep them whole)


@dataclass
class ClusterResult:
    """What ``run_cluster`` / ``run_single`` return."""

    metrics: dict  # the final evaluation: accuracy, loss, global_step
    wall_seconds: float  # from the first process started to the last one gone
    train_seconds: float  # between the first and last "loss = …, step = …" lines of the busiest trainer
    train_steps: int  # the global steps between those two lines
    exit_codes: dict  # task -> exit code, or "ended by launcher"
    peak_memory_mb: dict  # task -> peak resident memory (VmHWM), MB
    trainers: dict = field(default_factory=dict)  # trainer -> first and last logged step, steps run
    model_dir: str = ""
    log_files: dict = field(default_factory=dict)
    evaluations: list = field(default_factory=list)  # the global steps the evaluator evaluated

    @property
    def steps_per_second(self) -> float:
        """Global steps per second while training (all trainers together), from the trainers' logs."""
        return self.train_steps / self.train_seconds if self.train_seconds else float("nan")

    def row(self) -> dict:
        """One row of a comparison table."""
        steps = [figures["steps run"] for figures in self.trainers.values()]
        return {
            "processes": len(self.exit_codes),
            "steps run by each trainer": " + ".join("?" if n is None else str(n) for n in steps),
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


def _is_trainer(task: str) -> bool:
    return task.split(":")[0] in TRAINER_TYPES + ("local",)


def _reader(name: str, stream, lines: queue.Queue) -> None:
    for line in iter(stream.readline, ""):
        lines.put((name, time.perf_counter(), line.rstrip("\n")))
    stream.close()
    lines.put((name, time.perf_counter(), None))


def _end(process: subprocess.Popen, grace: float = 5.0) -> None:
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


def _final_evaluation(model_dir: Path) -> tuple[dict, list[int]]:
    from . import events

    timeline = events.timeline(model_dir, "eval")
    if timeline.empty:
        return {}, []
    last = timeline.iloc[-1]
    metrics = {name: float(value) for name, value in last.items()}
    metrics["global_step"] = int(timeline.index[-1])
    return metrics, [int(step) for step in timeline.index]


def _training_rate(lines: list[tuple[float, str]]) -> tuple[float, int]:
    """(seconds, global steps) between the first and last ``loss = …, step = N`` lines of one trainer."""
    logged = [(stamp, int(match.group(1))) for stamp, line in lines for match in [LOSS_LINE.match(line)] if match]
    if len(logged) < 2:
        return float("nan"), 0
    (first_time, first_step), (last_time, last_step) = logged[0], logged[-1]
    return last_time - first_time, last_step - first_step


def _trainer_figures(lines: list[tuple[float, str]]) -> dict:
    """A trainer's first and last logged global step, and the steps it ran itself (None: not logged)."""
    steps = [int(match.group(1)) for _, line in lines for match in [LOSS_LINE.match(line)] if match]
    counts = [0 if line == SKIPPED_LINE else int(match.group(1))
              for _, line in lines for match in [STEPS_RUN_LINE.match(line)] if match or line == SKIPPED_LINE]
    return {"first logged step": steps[0] if steps else None, "last logged step": steps[-1] if steps else None,
            "steps run": counts[-1] if counts else None}


class _Launch:
    """One launch: the processes, their output, and what is measured on the way."""

    def __init__(self, job: dict, show, on_line: Callable[[str, str], None] | None, quiet: bool):
        self.job, self.show, self.on_line, self.quiet = job, show, on_line, quiet
        self.model_dir = Path(job["model_dir"])
        self.log_dir = self.model_dir / "logs"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.lines: queue.Queue = queue.Queue()
        self.processes: dict[str, subprocess.Popen] = {}
        self.files: dict = {}
        self.tails: dict[str, list[str]] = {}  # the last lines of each task, for its error message
        self.logged: dict[str, list[tuple[float, str]]] = {}  # each task's lines with their time
        self.peaks: dict[str, float] = {}
        self.exit_codes: dict = {}
        self.open_streams: set[str] = set()
        self.ended_by_launcher: set[str] = set()
        self.trainers_done_at: float | None = None
        self.started = time.perf_counter()

    def say(self, text: str) -> None:
        if not self.quiet:
            print(f"[launcher] {text}", flush=True)

    def log_file(self, task: str) -> Path:
        return self.log_dir / f"{task.replace(':', '_')}.log"

    def start(self, configs: dict, program: Sequence[str], on_start: Callable[[str, int], None] | None) -> None:
        """One process per task, each with its own ``TF_CONFIG`` (none for ``None``) and the job."""
        for name, config in configs.items():
            env = {key: value for key, value in os.environ.items() if key != "TF_CONFIG"}
            if config is not None:
                env["TF_CONFIG"] = json.dumps(config)
            env.update({JOB_ENV: json.dumps(self.job), PARENT_ENV: str(os.getpid()), "PYTHONUNBUFFERED": "1"})
            process = subprocess.Popen(
                [sys.executable, *program], env=env, cwd=os.getcwd(), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1, start_new_session=True)
            self.processes[name] = process
            if on_start is not None:
                on_start(name, process.pid)
            self.files[name] = open(self.log_file(name), "w")
            self.tails[name] = []
            self.open_streams.add(name)
            threading.Thread(target=_reader, args=(name, process.stdout, self.lines), daemon=True).start()
        self.say("started " + ", ".join(f"{role_label(n)} (pid {p.pid})" for n, p in self.processes.items()))

    def read(self, wait: float = 0.25) -> None:
        """Take the next line of any task (if one comes within ``wait`` seconds): log, measure, show it."""
        try:
            name, stamp, line = self.lines.get(timeout=wait)
        except queue.Empty:
            return
        if line is None:
            self.open_streams.discard(name)
            return
        self.files[name].write(line + "\n")
        self.tails[name] = (self.tails[name] + [line])[-30:]
        if line.startswith(PEAK_PREFIX):
            self.peaks[name] = max(self.peaks.get(name, 0), float(line[len(PEAK_PREFIX):].split()[0]))
            return
        self.logged.setdefault(name, []).append((stamp, line))
        if self.on_line is not None:
            self.on_line(name, line)
        if self.show == "all" or (self.show is not None and re.search(self.show, line)):
            shown = line if len(line) <= SHOWN_WIDTH else line[:SHOWN_WIDTH] + " …"
            print(f"[{role_label(name)}] {shown}", flush=True)

    def check_exits(self) -> None:
        """Note the peak memory of running tasks and the exit code of finished ones; raise if one failed."""
        for task, process in self.processes.items():
            if process.poll() is None:
                self.peaks[task] = max(self.peaks.get(task, 0), peak_memory_mb(process.pid) or 0)
            elif task not in self.exit_codes and task not in self.open_streams:
                self.exit_codes[task] = process.returncode
                if process.returncode != 0 and task not in self.ended_by_launcher:
                    tail = self.tails[task]
                    error = next((text for text in reversed(tail) if ERROR_LINE.search(text)),
                                 tail[-1] if tail else "no output")
                    raise ClusterProblem(f"{role_label(task)} failed (exit code {process.returncode}): "
                                         f"{error.strip()} -- full log: {self.log_file(task)}")

    def end_servers(self, evaluator_grace: float) -> None:
        """End the parameter servers once every trainer has exited, and an evaluator still waiting after that."""
        if self.trainers_done_at is None and all(t in self.exit_codes for t in self.processes if _is_trainer(t)):
            self.trainers_done_at = time.perf_counter()
            for task in [t for t in self.processes if t.startswith("ps:")]:
                self._end_task(task, f"training is over: ended {role_label(task)} (a parameter server never exits)")
        if (self.trainers_done_at is not None and "evaluator:0" in self.processes
                and time.perf_counter() - self.trainers_done_at > evaluator_grace):
            self._end_task("evaluator:0", f"the evaluator was still waiting for checkpoints {evaluator_grace:.0f} s"
                                          " after training ended: ended it")

    def _end_task(self, task: str, message: str) -> None:
        if self.processes[task].poll() is None:
            self.ended_by_launcher.add(task)
            _end(self.processes[task])
            self.say(message)

    def finished(self) -> bool:
        return all(task in self.exit_codes for task in self.processes)

    def close(self) -> None:
        """End every process still running (with its process group) and close the log files."""
        for process in self.processes.values():
            _end(process, grace=2.0)
        for handle in self.files.values():
            handle.close()

    def result(self) -> ClusterResult:
        wall = time.perf_counter() - self.started
        exit_codes = {**self.exit_codes, **{task: "ended by launcher" for task in self.ended_by_launcher}}
        metrics, evaluations = _final_evaluation(self.model_dir)
        trainers = [task for task in self.processes if _is_trainer(task)]
        # the rate from the trainer that logged the most loss lines (a worker may train one step, late)
        busiest = max(trainers, key=lambda t: sum(bool(LOSS_LINE.match(line)) for _, line in self.logged.get(t, [])))
        train_seconds, train_steps = _training_rate(self.logged.get(busiest, []))
        self.say(f"all {len(self.processes)} processes have exited; wall time {wall:.0f} s")
        return ClusterResult(
            metrics=metrics, wall_seconds=wall, train_seconds=train_seconds, train_steps=train_steps,
            exit_codes=exit_codes, peak_memory_mb={t: round(p) for t, p in self.peaks.items() if p},
            trainers={t: _trainer_figures(self.logged.get(t, [])) for t in trainers},
            model_dir=str(self.model_dir), log_files={t: str(self.log_file(t)) for t in self.processes},
            evaluations=evaluations)


def launch(configs: dict[str, dict] | None, job: dict, show=SHOWN, timeout: float = 900.0,
           evaluator_grace: float = 120.0, on_line: Callable[[str, str], None] | None = None,
           on_start: Callable[[str, int], None] | None = None, quiet: bool = False,
           program: Sequence[str] = TASK_PROGRAM) -> ClusterResult:
    """Start one process per task in ``configs`` (None: one local process), wait, clean up.

    ``show``: a regex (the lines printed with their role prefix), ``"all"``, or
    None (print nothing). ``on_line(task, line)`` is called for every line,
    ``on_start(task, pid)`` for every process started. ``program``: what each
    process runs after ``python`` (the tests start a task that fails on purpose).
    """
    run = _Launch(job, show, on_line, quiet)
    try:
        run.start({"local:0": None} if configs is None else configs, program, on_start)
        while not run.finished():
            run.read()
            run.check_exits()
            run.end_servers(evaluator_grace)
            if time.perf_counter() - run.started > timeout:
                raise ClusterProblem(f"the cluster did not finish within {timeout:.0f} s: all its processes "
                                     f"were ended -- logs in {run.log_dir}")
    finally:
        run.close()
    return run.result()


def run_cluster(model_dir, max_steps: int, workers: int = 1, ps: int = 1, evaluator: bool = True,
                strategy: str | None = None, show=SHOWN, timeout: float = 900.0, evaluator_grace: float = 120.0,
                on_line: Callable[[str, str], None] | None = None, on_start: Callable[[str, int], None] | None = None,
                quiet: bool = False, program: Sequence[str] = TASK_PROGRAM, **job) -> ClusterResult:
    """Train and evaluate the course CNN with a local cluster; return the final evaluation and figures.

    ``job`` holds the rest of the job description (``params``,
    ``save_checkpoints_steps``, ``eval_count``, ``throttle_secs``, …; see
    ``job_description``); the other keywords are ``launch``'s.
    """
    configs = tf_configs(workers=workers, ps=ps, evaluator=evaluator)
    description = job_description(model_dir, max_steps, strategy=strategy, **job)
    return launch(configs, description, show=show, timeout=timeout, evaluator_grace=evaluator_grace,
                  on_line=on_line, on_start=on_start, quiet=quiet, program=program)


def run_single(model_dir, max_steps: int, show=SHOWN, timeout: float = 900.0,
               on_line: Callable[[str, str], None] | None = None, on_start: Callable[[str, int], None] | None = None,
               quiet: bool = False, program: Sequence[str] = TASK_PROGRAM, **job) -> ClusterResult:
    """The same job in one process without ``TF_CONFIG``: local ``train_and_evaluate``."""
    description = job_description(model_dir, max_steps, **job)
    return launch(None, description, show=show, timeout=timeout, on_line=on_line, on_start=on_start,
                  quiet=quiet, program=program)
