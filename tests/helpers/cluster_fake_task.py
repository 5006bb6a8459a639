"""A stand-in for a cluster task that starts in milliseconds: what the fast tests of the launcher
(helpers.cluster) start instead of ``python -m helpers.cluster`` (``cluster.TASK_PROGRAM``). It
imports no TensorFlow and trains nothing: it prints what its role is told to print and exits,
fails or hangs as told. It is not a test module.

The job's ``fake`` entry maps a role (``"chief:0"``, ``"local:0"``, ...; from TF_CONFIG, as a real
task finds it) to what that task does, in this order (every key optional):

- ``"ready"``: a file name (in the model_dir) to create once the task runs;
- ``"wait_for"``: file names (in the model_dir) to wait for, up to 5 s;
- ``"lines"``: lines to print, ``"pause"`` seconds after each (stdout is not flushed by hand:
  the launcher's ``PYTHONUNBUFFERED`` makes each line arrive at once);
- ``"done"``: a file name to create when the lines are printed;
- ``"then"``: ``"exit"`` (the default, with ``"exit code"``, 0 unless given), ``"raise"`` (a
  RuntimeError: a traceback, exit code 1) or ``"hang"`` (until a signal ends it).

Every task first prints one line ``env: {...}``, what it received (its TF_CONFIG, job, launcher
pid, command line and session); a task given ``"stamp": true`` prints ``exited at <time>`` as it
exits, and ``ended at <time>`` when SIGTERM ends it.
"""

import json
import os
import signal
import sys
import time
from pathlib import Path


def main() -> None:
    job = json.loads(os.environ["WORKBOOK_CLUSTER_JOB"])
    tf_config = os.environ.get("TF_CONFIG")
    task = json.loads(tf_config or "{}").get("task", {"type": "local", "index": 0})
    role = f"{task['type']}:{task['index']}"
    todo = job.get("fake", {}).get(role, {})
    model_dir = Path(job["model_dir"])
    if todo.get("stamp"):

        def ended(number, frame):
            print(f"ended at {time.time()}")
            sys.exit(128 + number)

        signal.signal(signal.SIGTERM, ended)
    print(
        "env: "
        + json.dumps(
            {
                "TF_CONFIG": tf_config,
                "job": job,
                "parent": os.environ.get("WORKBOOK_CLUSTER_PARENT"),
                "argv": sys.argv[1:],
                "own session": os.getsid(0) == os.getpid(),
            }
        )
    )
    if todo.get("ready"):
        (model_dir / todo["ready"]).touch()
    deadline = time.time() + 5.0
    while time.time() < deadline and not all(
        (model_dir / name).exists() for name in todo.get("wait_for", [])
    ):
        time.sleep(0.01)
    for line in todo.get("lines", []):
        print(line)
        time.sleep(todo.get("pause", 0.0))
    if todo.get("done"):
        (model_dir / todo["done"]).touch()
    then = todo.get("then", "exit")
    if then == "raise":
        raise RuntimeError(f"injected failure ({role})")
    if then == "hang":
        while True:
            time.sleep(0.05)
    if todo.get("stamp"):
        print(f"exited at {time.time()}")
    sys.exit(todo.get("exit code", 0))


if __name__ == "__main__":
    main()
