"""Notebook 09's local cluster: ``run_cluster`` starts one process per task of ``tf_configs``
(``python -m helpers.cluster``, i.e. ``run_task``), shows selected log lines (all kept in
``model_dir/logs/``) and ends the ps when training is over; ``run_single`` runs the same job in one
process. No process outlives the launcher: each has its own process group, ended in a ``finally``,
and a watchdog that ends it with the launcher."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .language import _, listed
from .problems import UsageProblem, WorkbookProblem

JOB_ENV = "WORKBOOK_CLUSTER_JOB"  # the job description, as JSON, for each task
PARENT_ENV = "WORKBOOK_CLUSTER_PARENT"  # the launcher's pid: a task dies with it
TASK_PROGRAM = ("-m", "helpers.cluster")  # what every process runs, after the Python interpreter
# The lines shown in the notebook by default (every line goes to the log files).
SHOWN = re.compile(
    r"^(loss = |Loss for final step|Saving checkpoints for|Saving dict for global step"
    r"|Exiting evaluation|Waiting \d+ secs before starting training|Requesting early stopping"
    r"|Early stopping requested|No increase in metric|Waiting for model to be ready"
    r"|Skipping training|steps run by this process|ERROR)"
)
_PRINTING = threading.Lock()
ERROR_LINE = re.compile(r"^[A-Za-z_.]*(Error|Exception|Interrupt)\b.*:|^[A-Za-z_.]*Error$")
LOSS_LINE = re.compile(r"^loss = [-+.\deE]+, step = (\d+)")
STEPS_RUN_LINE = re.compile(r"^steps run by this process: (\d+)")
SKIPPED_LINE = "Skipping training since max_steps has already saved."  # Estimator.train ran no step
SHOWN_WIDTH = 160  # longer lines are cut when shown (the log files keep them whole)


class ClusterProblem(WorkbookProblem):
    """A task of the local cluster failed, or the cluster did not finish in time."""


def free_ports(count: int) -> list[int]:
    """``count`` distinct free local TCP ports (bound to port 0, read back, closed)."""
    with contextlib.ExitStack() as stack:
        sockets = [
            stack.enter_context(socket.create_server(("127.0.0.1", 0))) for _port in range(count)
        ]
        return [sock.getsockname()[1] for sock in sockets]


def tf_configs(
    workers: int = 1,
    ps: int = 1,
    evaluator: bool = True,
    host: str | Callable[[str, int], str] = "127.0.0.1",
    ports: int | list[int] | None = None,
) -> dict[str, dict]:
    """The ``TF_CONFIG`` of every task, ``{"chief:0": {"cluster": …, "task": …}, …}``, evaluator
    last.

    ``host``: a name or ``(type, index) -> host``; ``ports``: one for all, one per cluster member
    (chief, workers, ps; the evaluator is none) or None: free local ports.
    """
    if workers < 0 or ps < 0:
        raise UsageProblem(
            _("workers={workers} and ps={ps}: both must be 0 or more").format(
                workers=workers, ps=ps
            )
        )
    members = (
        [("chief", 0)] + [("worker", i) for i in range(workers)] + [("ps", i) for i in range(ps)]
    )
    if ports is None:
        ports = free_ports(len(members))
    elif isinstance(ports, int):
        ports = [ports] * len(members)
    if len(ports) != len(members):
        raise UsageProblem(
            _(
                "{count} tasks in the cluster need {count} ports, got {given}: give one port per "
                "task, one for all, or none (free local ports)"
            ).format(count=len(members), given=len(ports))
        )
    cluster: dict[str, list[str]] = {}
    for (task_type, index), port in zip(members, ports):
        cluster.setdefault(task_type, []).append(
            f"{host(task_type, index) if callable(host) else host}:{port}"
        )
    addresses = [address for tasks in cluster.values() for address in tasks]
    if len(set(addresses)) != len(addresses):
        raise UsageProblem(
            _("two tasks share a host and port: give each task its own port or host")
        )
    tasks = members + ([("evaluator", 0)] if evaluator else [])
    return {
        f"{kind}:{index}": {"cluster": cluster, "task": {"type": kind, "index": index}}
        for kind, index in tasks
    }


def role_label(name: str) -> str:
    """``"worker:0"`` -> ``"worker 0"``; the single chief and evaluator have no number."""
    task_type, index = name.split(":")
    return task_type if task_type in ("chief", "evaluator", "local") else f"{task_type} {index}"


@dataclass
class ClusterResult:
    """What ``run_cluster`` / ``run_single`` return."""

    metrics: dict  # the final evaluation: accuracy, loss, global_step
    wall_seconds: float  # from the first process started to the last one gone
    # global steps (all trainers) between the busiest trainer's first and last loss lines
    steps_per_second: float
    exit_codes: dict  # task -> exit code, or "ended by launcher"
    peak_memory_mb: dict  # task -> peak resident memory (VmHWM), MB
    trainers: dict  # trainer -> first and last logged global step, steps it ran itself
    model_dir: str
    log_files: dict
    evaluations: list  # the global steps the evaluator evaluated


def job_description(model_dir: str | os.PathLike, max_steps: int, **job) -> dict:
    """The JSON-able job every task receives (see ``run_task``): these defaults, updated with
    ``job``."""
    return {
        "model_dir": str(model_dir),
        "max_steps": int(max_steps),
        "params": {},
        "strategy": None,
        "save_checkpoints_steps": max(1, max_steps // 2),
        "eval_count": None,
        "throttle_secs": 2,
        "log_step_count_steps": 100,
        "start_delay_secs": 0,
        **job,
    }


@dataclass
class _Task:
    """One process of a launch, and what the launcher learns from its output."""

    name: str
    process: subprocess.Popen
    log_path: Path
    lines: list = field(default_factory=list)  # (time, line)
    peak: float = 0.0
    ended: bool = False  # by the launcher: its exit code is no failure
    reader: threading.Thread = field(init=False)

    def __post_init__(self) -> None:
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    @property
    def trainer(self) -> bool:
        return self.name.split(":")[0] in ("chief", "worker", "local")

    def read(self) -> None:
        """Log each line of the process, note when it came, show the selected ones (in a thread of
        its own)."""
        with open(self.log_path, "w") as log:
            for line in iter(self.process.stdout.readline, ""):
                line = line.rstrip("\n")
                log.write(line + "\n")
                self.lines.append((time.perf_counter(), line))
                if SHOWN.search(line):
                    _say(
                        line if len(line) <= SHOWN_WIDTH else line[:SHOWN_WIDTH] + " …",
                        role_label(self.name),
                    )

    def end(self, grace: float = 5.0) -> None:
        """SIGTERM the process group, then SIGKILL after ``grace`` seconds; wait for it."""
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 30.0)):
            if self.process.poll() is not None:
                return
            with contextlib.suppress(ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(self.process.pid, sig)
                self.process.wait(timeout=wait)

    def check(self) -> None:
        """Note a running task's peak memory; raise if it failed (with the line that says why)."""
        if self.process.poll() is None:  # its peak resident memory so far (VmHWM, Linux only)
            with contextlib.suppress(OSError), open(f"/proc/{self.process.pid}/status") as status:
                peaks = [
                    int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM:")
                ]
                self.peak = max([self.peak, *peaks])
        elif self.process.returncode != 0 and not self.ended:
            self.reader.join(timeout=10.0)  # its last lines
            tail = [line for _time, line in self.lines[-30:]]
            error = next(
                (text for text in reversed(tail) if ERROR_LINE.search(text)),
                (tail or ["no output"])[-1],
            )
            raise ClusterProblem(
                _("{task} failed (exit code {code}): {error} -- full log: {log}").format(
                    task=role_label(self.name),
                    code=self.process.returncode,
                    error=error.strip(),
                    log=self.log_path,
                )
            )


def _say(text: str, role: str = "launcher") -> None:
    with _PRINTING:  # one line at a time from the reader threads
        print(f"[{role}] {text}", flush=True)


def _start(name: str, config: dict | None, job: dict, log_dir: Path) -> _Task:
    """One process with its own ``TF_CONFIG`` (none for None) and the job, and a thread that reads
    its output."""
    env = {key: value for key, value in os.environ.items() if key != "TF_CONFIG"}
    if config is not None:
        env["TF_CONFIG"] = json.dumps(config)
    env.update({JOB_ENV: json.dumps(job), PARENT_ENV: str(os.getpid()), "PYTHONUNBUFFERED": "1"})
    process = subprocess.Popen(
        [sys.executable, *TASK_PROGRAM],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        start_new_session=True,
    )
    return _Task(name, process, log_dir / f"{name.replace(':', '_')}.log")


def _end_by_launcher(tasks: list[_Task], message: str) -> None:
    for task in tasks:
        if task.process.poll() is None:
            task.ended = True
            task.end()
            _say(message.format(task=role_label(task.name)))


def _follow(
    tasks: list[_Task], started: float, timeout: float, evaluator_grace: float, log_dir: Path
) -> None:
    """Check the tasks until all have exited: end the ps when training is over, the evaluator
    ``evaluator_grace`` seconds later, everything after ``timeout``."""
    trainers_done = None
    while any(task.process.poll() is None for task in tasks):
        time.sleep(0.25)
        for task in tasks:
            task.check()
        if trainers_done is None and all(t.process.poll() is not None for t in tasks if t.trainer):
            trainers_done = time.perf_counter()
            _end_by_launcher(
                [t for t in tasks if t.name.startswith("ps:")],
                _("training is over: ended {task} (a parameter server never exits)"),
            )
        if trainers_done is not None and time.perf_counter() - trainers_done > evaluator_grace:
            _end_by_launcher(
                [t for t in tasks if t.name == "evaluator:0"],
                _(
                    "the evaluator was still waiting for checkpoints {seconds:.0f} s after "
                    "training ended: ended it"
                ).format(seconds=evaluator_grace),
            )
        if time.perf_counter() - started > timeout:
            raise ClusterProblem(
                _(
                    "the cluster did not finish within {seconds:.0f} s: all its processes were "
                    "ended -- logs in {logs}"
                ).format(seconds=timeout, logs=log_dir)
            )
    for task in tasks:
        task.check()


def launch(
    configs: dict[str, dict] | None,
    job: dict,
    timeout: float = 900.0,
    evaluator_grace: float = 120.0,
) -> ClusterResult:
    """Start one process per task in ``configs`` (None: one local process), follow them, end them
    all."""
    log_dir = Path(job["model_dir"]) / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    tasks: list[_Task] = []
    started = time.perf_counter()
    try:
        for name, config in ({"local:0": None} if configs is None else configs).items():
            tasks.append(_start(name, config, job, log_dir))
        pids = ", ".join(f"{role_label(t.name)} (pid {t.process.pid})" for t in tasks)
        # ids change every run: in the log file, not shown
        (log_dir / "launcher.log").write_text(f"[launcher] started {pids}\n")
        _say(_("started {tasks}").format(tasks=listed(role_label(t.name) for t in tasks)))
        _follow(tasks, started, timeout, evaluator_grace, log_dir)
    finally:
        for task in tasks:
            task.end(grace=2.0)
            task.reader.join(timeout=10.0)
    _say(
        _("all {count} processes have exited; wall time {seconds:.0f} s").format(
            count=len(tasks), seconds=time.perf_counter() - started
        )
    )
    return _result(tasks, Path(job["model_dir"]), time.perf_counter() - started)


def _training_rate(lines: list[tuple[float, str]]) -> tuple[float, int]:
    """(seconds, global steps) between the first and last ``loss = …, step = N`` lines of one
    trainer."""
    logged = [
        (stamp, int(match.group(1))) for stamp, line in lines if (match := LOSS_LINE.match(line))
    ]
    if len(logged) < 2:
        return float("nan"), 0
    return logged[-1][0] - logged[0][0], logged[-1][1] - logged[0][1]


def _trainer_figures(lines: list[tuple[float, str]]) -> dict:
    """A trainer's first and last logged global step, and the steps it ran itself (None: not
    logged)."""
    steps = [int(match.group(1)) for _time, line in lines if (match := LOSS_LINE.match(line))]
    counts = [
        0 if line == SKIPPED_LINE else int(match.group(1))
        for _time, line in lines
        if (match := STEPS_RUN_LINE.match(line)) or line == SKIPPED_LINE
    ]
    return {
        "first logged step": steps[0] if steps else None,
        "last logged step": steps[-1] if steps else None,
        "steps run": counts[-1] if counts else None,
    }


def _result(tasks: list[_Task], model_dir: Path, wall: float) -> ClusterResult:
    from . import events

    evaluated = events.scalars_by_step(model_dir, "eval")  # the evaluator's event files
    metrics = (
        {}
        if evaluated.empty
        else {
            **{tag: float(value) for tag, value in evaluated.iloc[-1].items()},
            "global_step": int(evaluated.index[-1]),
        }
    )
    trainers = [task for task in tasks if task.trainer]
    # the rate of the trainer that logged the most loss lines (a worker may train one step, late)
    busiest = max(
        trainers, key=lambda t: sum(bool(LOSS_LINE.match(line)) for _time, line in t.lines)
    )
    seconds, steps = _training_rate(busiest.lines)
    return ClusterResult(
        metrics=metrics,
        wall_seconds=wall,
        steps_per_second=steps / seconds if seconds else float("nan"),
        exit_codes={
            t.name: "ended by launcher" if t.ended else t.process.returncode
            for t in sorted(tasks, key=lambda t: t.ended)
        },
        peak_memory_mb={t.name: round(t.peak) for t in tasks if t.peak},
        trainers={t.name: _trainer_figures(t.lines) for t in trainers},
        model_dir=str(model_dir),
        log_files={t.name: str(t.log_path) for t in tasks},
        evaluations=[int(step) for step in evaluated.index],
    )


def run_cluster(
    model_dir: str | os.PathLike,
    max_steps: int,
    workers: int = 1,
    ps: int = 1,
    evaluator: bool = True,
    timeout: float = 900.0,
    evaluator_grace: float = 120.0,
    **job,
) -> ClusterResult:
    """Train and evaluate the course CNN with a local cluster; ``job``: see ``job_description``."""
    configs = tf_configs(workers=workers, ps=ps, evaluator=evaluator)
    return launch(configs, job_description(model_dir, max_steps, **job), timeout, evaluator_grace)


def run_single(
    model_dir: str | os.PathLike, max_steps: int, timeout: float = 900.0, **job
) -> ClusterResult:
    """The same job in one process without ``TF_CONFIG``: a local ``train_and_evaluate``."""
    return launch(None, job_description(model_dir, max_steps, **job), timeout)


# --- the task: python -m helpers.cluster ---------------------------------------------------------


def make_strategy(name: str | None, tf):
    """The distribution strategy named in the job (None: no strategy)."""
    if name in (None, "none"):
        return None
    if name == "ps_v1":
        return tf.compat.v1.distribute.experimental.ParameterServerStrategy()
    if name == "ps_v2":
        # built, the TF2 strategy connects to servers: start a worker and a ps in this process
        # (RunConfig refuses it)
        ports = free_ports(2)
        spec = tf.train.ClusterSpec(
            {"worker": [f"127.0.0.1:{ports[0]}"], "ps": [f"127.0.0.1:{ports[1]}"]}
        )
        for job in ("worker", "ps"):
            tf.distribute.Server(spec, job_name=job, task_index=0, protocol="grpc", start=True)
        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, rpc_layer="grpc")
        return tf.distribute.experimental.ParameterServerStrategy(resolver)
    raise UsageProblem(_("unknown strategy {name!r}: use none, ps_v1 or ps_v2").format(name=name))


def steps_run_hook(tf):
    """A training hook that counts the steps this process runs and logs the count when it ends."""

    class StepsRun(tf.compat.v1.train.SessionRunHook):
        steps = 0

        def after_run(self, run_context, run_values):
            self.steps += 1

        def end(self, session):
            tf.compat.v1.logging.info("steps run by this process: %d", self.steps)

    return StepsRun()


def run_task(job: dict) -> None:
    """Train and evaluate as the job says, in whatever role TF_CONFIG gives this process."""
    import tensorflow as tf

    from . import inputs, models, settings

    strategy = make_strategy(job.get("strategy"), tf)
    tf_config = json.loads(os.environ.get("TF_CONFIG") or "{}")
    task = tf_config.get("task", {"type": "local", "index": 0})
    config = tf.estimator.RunConfig(
        tf_random_seed=settings.SEED,
        train_distribute=strategy,
        save_checkpoints_steps=job.get("save_checkpoints_steps"),
        keep_checkpoint_max=job.get("keep_checkpoint_max", 5),
        log_step_count_steps=job.get("log_step_count_steps", 100),
    )
    estimator = tf.estimator.Estimator(
        models.cnn_model_fn,
        model_dir=job["model_dir"],
        params=job.get("params") or {},
        config=config,
    )
    hooks = [steps_run_hook(tf)]  # logs "steps run by this process: N" at the end
    early = job.get("early_stop")
    if early:
        hooks.append(
            tf.estimator.experimental.stop_if_higher_hook(
                estimator,
                early["metric"],
                early["threshold"],
                run_every_secs=None,
                run_every_steps=early["every"],
            )
        )
    # each trainer shuffles with its own seed: chief and workers see different batches
    first = task["type"] in ("chief", "local")
    seed = settings.SEED + (0 if first else 1 + task["index"])
    train_spec = tf.estimator.TrainSpec(
        inputs.make_train_input_fn(
            batch_size=job.get("batch_size", 100),
            seed=seed,
            shuffle_buffer=job.get("shuffle_buffer", 10_000),
        ),
        max_steps=job["max_steps"],
        hooks=hooks,
    )
    eval_spec = tf.estimator.EvalSpec(
        inputs.make_eval_input_fn(count=job.get("eval_count")),
        steps=None,
        start_delay_secs=job.get("start_delay_secs", 0),
        throttle_secs=job.get("throttle_secs", 0),
    )
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)


class _Plain(logging.Formatter):
    """A log record as its message alone; a warning or error starts with its level."""

    def format(self, record: logging.LogRecord) -> str:
        return (
            record.getMessage()
            if record.levelno <= logging.INFO
            else f"{record.levelname}: {record.getMessage()}"
        )


def task_main() -> None:
    """A task: end with the launcher (a watchdog), log one plain line per record to stdout, run the
    job."""
    parent = int(os.environ.get(PARENT_ENV) or 0)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(3)

    if parent:
        threading.Thread(target=watch, daemon=True).start()
    # The launcher ends a parameter server or an evaluator with SIGTERM: exit through Python so
    # that AutoGraph's files are deleted (atexit); any left go to models/tmp, not the system's.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    from .course_setup import use_course_temp_dir

    use_course_temp_dir()
    warnings.filterwarnings("ignore")
    import tensorflow as tf
    from .logs import install_noise_filter

    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(_Plain())
    logger = tf.get_logger()
    install_noise_filter(logger)
    logger.handlers = [handler]
    logger.propagate = False
    run_task(json.loads(os.environ[JOB_ENV]))


if __name__ == "__main__":
    task_main()
