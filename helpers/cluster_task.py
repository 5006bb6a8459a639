"""One task of the local cluster: what each child process of ``helpers.cluster`` runs.

Introduced in notebook 09. ``python -m helpers.cluster_task`` reads its role
from ``TF_CONFIG`` (set by the launcher; absent for the single-process run)
and a small JSON job description from ``WORKBOOK_CLUSTER_JOB``, then calls the
same ``tf.estimator.train_and_evaluate`` with the course's
``models.cnn_model_fn`` and ``inputs`` input functions as notebook 07 does.
The code is identical for every role: ``RunConfig`` reads ``TF_CONFIG`` and
``train_and_evaluate`` decides what this process is (chief, worker, ps,
evaluator). Each trainer logs how many steps it ran itself
(``steps_run_hook``), which the launcher reads.

The child keeps its log clean (``helpers.logs``: no deprecation records, no
absolute paths), writes one plain line per log record to stdout, and dies
with its parent (Linux ``PR_SET_PDEATHSIG``, plus a watchdog thread), so an
interrupted notebook never leaves a task behind.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading
import time

JOB_ENV = "WORKBOOK_CLUSTER_JOB"
PARENT_ENV = "WORKBOOK_CLUSTER_PARENT"
PEAK_PREFIX = "peak memory: "


def peak_memory_mb(pid="self") -> float | None:
    """The peak resident memory (VmHWM) of a process in MB, from ``/proc`` (Linux)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _die_with_parent() -> None:
    """End this process when the launcher's process ends, however it ends."""
    parent = int(os.environ.get(PARENT_ENV, "0") or 0)
    if not parent:
        return
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    def watch():
        while True:
            if os.getppid() != parent:
                os._exit(3)
            time.sleep(1.0)

    if os.getppid() != parent:
        os._exit(3)
    threading.Thread(target=watch, daemon=True).start()


def _plain_log(tf) -> None:
    """TensorFlow's log to stdout, one message per line, filtered as in the notebooks."""
    from .logs import install_noise_filter

    logger = tf.get_logger()
    install_noise_filter(logger)
    handler = logging.StreamHandler(sys.stdout)

    class _Format(logging.Formatter):
        def format(self, record):
            message = record.getMessage()
            return message if record.levelno <= logging.INFO else f"{record.levelname}: {message}"

    handler.setFormatter(_Format())
    logger.handlers = [handler]
    logger.propagate = False


def make_strategy(name: str | None, tf):
    """The distribution strategy named in the job (None: no strategy)."""
    if name in (None, "none"):
        return None
    if name == "ps_v1":
        return tf.compat.v1.distribute.experimental.ParameterServerStrategy()
    if name == "ps_v2":
        # The TF2 strategy connects to running servers when it is built: start a worker and a
        # parameter server inside this process, as TensorFlow's own tests do. RunConfig refuses it.
        from .cluster import free_ports

        ports = free_ports(2)
        spec = tf.train.ClusterSpec({"worker": [f"127.0.0.1:{ports[0]}"], "ps": [f"127.0.0.1:{ports[1]}"]})
        for job in ("worker", "ps"):
            tf.distribute.Server(spec, job_name=job, task_index=0, protocol="grpc", start=True)
        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, rpc_layer="grpc")
        return tf.distribute.experimental.ParameterServerStrategy(resolver)
    from .problems import UsageProblem

    raise UsageProblem(f"unknown strategy {name!r}: use none, ps_v1 or ps_v2")


def steps_run_hook(tf):
    """A training hook that counts the steps this process runs and logs the count when it ends."""

    class StepsRun(tf.compat.v1.train.SessionRunHook):
        def begin(self):
            self.steps = 0

        def after_run(self, run_context, run_values):
            self.steps += 1

        def end(self, session):
            tf.compat.v1.logging.info("steps run by this process: %d", self.steps)

    return StepsRun()


def run(job: dict) -> None:
    """Train and evaluate as the job says, in whatever role TF_CONFIG gives this process."""
    from .logs import quiet_native_logs

    quiet_native_logs()
    import warnings

    warnings.filterwarnings("ignore")
    import tensorflow as tf

    _plain_log(tf)
    from . import inputs, models, settings

    strategy = make_strategy(job.get("strategy"), tf)
    tf_config = json.loads(os.environ.get("TF_CONFIG", "{}") or "{}")
    task = tf_config.get("task", {})
    role = f"{task.get('type', 'local')}:{task.get('index', 0)}"

    config = tf.estimator.RunConfig(
        tf_random_seed=settings.SEED,
        save_checkpoints_steps=job.get("save_checkpoints_steps"),
        log_step_count_steps=job.get("log_step_count_steps", 100),
        keep_checkpoint_max=job.get("keep_checkpoint_max", 5),
        train_distribute=strategy,
    )
    estimator = tf.estimator.Estimator(models.cnn_model_fn, model_dir=job["model_dir"],
                                       params=job.get("params") or {}, config=config)
    hooks = [steps_run_hook(tf)]  # logs "steps run by this process: N" at the end
    early = job.get("early_stop")
    if early:
        hooks.append(tf.estimator.experimental.stop_if_higher_hook(
            estimator, early["metric"], early["threshold"], run_every_secs=None,
            run_every_steps=early["every"]))
    # each trainer shuffles with its own seed, so chief and workers see different batches
    seed = settings.SEED + (0 if role.startswith(("chief", "local")) else 1 + int(task.get("index", 0)))
    train_spec = tf.estimator.TrainSpec(
        inputs.make_train_input_fn(batch_size=job.get("batch_size", 100),
                                   shuffle_buffer=job.get("shuffle_buffer", 10_000), seed=seed),
        max_steps=job["max_steps"], hooks=hooks)
    eval_spec = tf.estimator.EvalSpec(
        inputs.make_eval_input_fn(count=job.get("eval_count")), steps=None,
        start_delay_secs=job.get("start_delay_secs", 0), throttle_secs=job.get("throttle_secs", 0))
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)


def main() -> None:
    _die_with_parent()
    job = json.loads(os.environ[JOB_ENV])
    try:
        run(job)
    finally:
        peak = peak_memory_mb()
        if peak is not None:
            print(f"{PEAK_PREFIX}{peak:.0f} MB", flush=True)


if __name__ == "__main__":
    main()
