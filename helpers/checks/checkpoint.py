"""A checkpoint of the check's own for ``Estimator.evaluate``, which needs one to restore (notebook
02's input functions and notebooks 03 and 06's metrics): the global step alone, at 0."""

from __future__ import annotations


def step_checkpoint(folder: str) -> None:
    """Write into ``folder`` a checkpoint that holds the global step, 0, and nothing else."""
    from pathlib import Path

    import tensorflow as tf

    with tf.Graph().as_default():
        tf.compat.v1.train.get_or_create_global_step()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            tf.compat.v1.train.Saver().save(session, str(Path(folder) / "model.ckpt"), 0)
