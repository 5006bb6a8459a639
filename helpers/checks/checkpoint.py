"""A model folder of the check's own for an Estimator it runs (notebook 02's input functions and
notebooks 03 and 06's metrics), with a checkpoint for ``Estimator.evaluate``, which needs one to
restore: the global step alone, at 0."""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def scratch_model_dir(checkpoint: bool):
    """A new empty folder (with the global-step checkpoint when ``checkpoint``), removed
    afterwards; a file Windows keeps open (an event writer's) is left for the system to clean."""
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="workbook-check-")
    try:
        if checkpoint:
            _step_checkpoint(folder)
        yield folder
    finally:  # TemporaryDirectory(ignore_cleanup_errors=...) is Python 3.10+; the course runs 3.9
        shutil.rmtree(folder, ignore_errors=True)


def _step_checkpoint(folder: str) -> None:
    """Write into ``folder`` a checkpoint that holds the global step, 0, and nothing else."""
    from pathlib import Path

    import tensorflow as tf

    with tf.Graph().as_default():
        tf.compat.v1.train.get_or_create_global_step()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            tf.compat.v1.train.Saver().save(session, str(Path(folder) / "model.ckpt"), 0)
