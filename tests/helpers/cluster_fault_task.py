"""A cluster task that fails on purpose:
what the launcher's tests start instead of ``helpers.cluster``.

The job's ``fail`` entry names the task that fails, as ``{"task": "worker:0"}``:
that process builds its Estimator as usual and raises where training would
start; every other process runs the course's task unchanged. The tests make
the launcher run ``python tests/helpers/cluster_fault_task.py`` (``cluster.TASK_PROGRAM``);
it is not a test module.
"""

import json
import os
import sys

from helpers import cluster


def main() -> None:
    job = json.loads(os.environ[cluster.JOB_ENV])
    task = json.loads(os.environ.get("TF_CONFIG") or "{}").get(
        "task", {"type": "local", "index": 0}
    )
    role = f"{task['type']}:{task['index']}"
    if (job.get("fail") or {}).get("task") == role:
        import tensorflow as tf

        def fail(*args, **kwargs):
            raise RuntimeError(f"injected failure before training ({role})")

        tf.estimator.Estimator  # noqa: B018 -- tf.estimator is a lazy module: load it, then patch the module
        # the Estimator is built, then this fails
        sys.modules[tf.estimator.__name__].train_and_evaluate = fail
    cluster.task_main()


if __name__ == "__main__":
    main()
