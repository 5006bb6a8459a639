"""helpers.checkpoints (the simulated crash, short graph errors) and notebook 04's
compare_with_checkpoint.

The crash tests train a one-variable model for a few steps (about a second each) and check what
notebook 04 teaches: a run that ends with an exception writes no final checkpoint, so resuming
restores the last periodic one.
"""

import numpy as np
import pytest
import tensorflow as tf

from helpers import checkpoints, model_dirs, model_graph, models
from helpers.problems import NotReady
from tools.notebook_code import definitions
from tests.support.models import tiny_estimator, tiny_input_fn

compare_with_checkpoint = definitions("04_training_and_checkpoints.ipynb")[
    "compare_with_checkpoint"
]


def checkpointed(model_dir):
    """The one-variable model with a checkpoint every 5 steps, all kept."""
    return tiny_estimator(model_dir, save_checkpoints_steps=5, keep_checkpoint_max=10)


def test_crash_keeps_only_the_periodic_checkpoints_and_resume_restores_the_last(tmp_path):
    estimator = checkpointed(tmp_path)
    with pytest.raises(checkpoints.SimulatedCrash, match="simulated crash at global step 12"):
        estimator.train(tiny_input_fn, steps=100, hooks=[checkpoints.CrashAtStep(12)])
    assert model_dirs.checkpoint_steps(tmp_path) == [0, 5, 10]

    checkpointed(tmp_path).train(tiny_input_fn, max_steps=20)
    assert int(estimator.get_variable_value("global_step")) == 20
    assert model_dirs.checkpoint_steps(tmp_path)[-1] == 20


def test_keyboard_interrupt_writes_no_final_checkpoint_either(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        checkpointed(tmp_path).train(
            tiny_input_fn,
            steps=100,
            hooks=[checkpoints.CrashAtStep(7, exception=KeyboardInterrupt)],
        )
    assert model_dirs.checkpoint_steps(tmp_path) == [0, 5]


def test_a_normal_end_writes_the_final_checkpoint(tmp_path):
    checkpointed(tmp_path).train(tiny_input_fn, steps=7, hooks=[checkpoints.CrashAtStep(8)])
    assert model_dirs.checkpoint_steps(tmp_path) == [0, 5, 7]


def test_crash_step_must_be_positive():
    with pytest.raises(ValueError, match="at least 1"):
        checkpoints.CrashAtStep(0)


def variable_shapes(model_fn, params):
    """``{name: shape}`` of the variables of ``model_fn``'s training graph, as
    compare_with_checkpoint reads them.
    """
    graph = model_graph.build_graph(model_fn, params)
    variables = graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
    return {var.op.name: tuple(var.shape.as_list()) for var in variables}


def write_checkpoint(model_dir, shapes):
    """A checkpoint holding zeros of the given shapes (and a global step of 0)."""
    with tf.Graph().as_default():
        for name, shape in shapes.items():
            if name != "global_step":
                tf.compat.v1.get_variable(name, initializer=tf.zeros(shape))
        tf.compat.v1.train.create_global_step()
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            saver.save(session, str(model_dir / "model.ckpt"), global_step=0)


def test_compare_with_checkpoint_names_each_kind_of_change(tmp_path):
    small = {"filters": (8, 16), "dense_units": 32}
    write_checkpoint(tmp_path, variable_shapes(models.cnn_model_fn, small))

    same = compare_with_checkpoint(models.cnn_model_fn, {**small, "learning_rate": 0.1}, tmp_path)
    assert set(same["match"]) == {"same"} and "dense/kernel/Adam" not in same.index

    wider = compare_with_checkpoint(models.cnn_model_fn, {**small, "dense_units": 64}, tmp_path)
    assert sorted(wider.index[wider["match"] == "different shape"]) == [
        "dense/bias",
        "dense/kernel",
        "dense_1/kernel",
    ]
    assert (
        wider.loc["dense/kernel", "checkpoint"] == "[784, 32]"
        and wider.loc["dense/kernel", "model"] == "[784, 64]"
    )

    deeper = compare_with_checkpoint(
        models.cnn_model_fn, {**small, "filters": (8, 16, 32)}, tmp_path
    )
    assert sorted(deeper.index[deeper["match"] == "only in model"]) == [
        "conv2d_2/bias",
        "conv2d_2/kernel",
    ]
    assert deeper.loc["conv2d_2/kernel", "checkpoint"] == "-"

    shallower = compare_with_checkpoint(models.cnn_model_fn, {**small, "filters": (8,)}, tmp_path)
    assert "only in checkpoint" in set(shallower["match"])

    everything = compare_with_checkpoint(
        models.cnn_model_fn, small, tmp_path, include_optimizer=True
    )
    assert "dense/kernel/Adam" in everything.index and "beta1_power" in everything.index


GRAPH_MESSAGE = """Restoring from checkpoint failed. Original error:

Graph execution error:

Detected at node 'save/RestoreV2' defined at (most recent call last):
    File "/home/ana/course/x.py", line 24, in <module>
    File "/home/ana/.venv/lib/python3.11/site-packages/tensorflow/.../saver.py", line 946, in build
Node: 'save/RestoreV2'
Key conv2d_2/bias not found in checkpoint
\t [[{{node save/RestoreV2}}]]"""


def test_short_graph_errors_keeps_the_type_and_shortens():
    with pytest.raises(tf.errors.NotFoundError) as caught:
        with checkpoints.short_graph_errors():
            raise tf.errors.NotFoundError(None, None, GRAPH_MESSAGE)
    assert "/home/" not in str(caught.value)
    assert "Key conv2d_2/bias not found in checkpoint" in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_short_graph_errors_handles_the_base_class_and_ignores_other_errors():
    with pytest.raises(tf.errors.OpError, match="boom"):
        with checkpoints.short_graph_errors():
            raise tf.errors.OpError(None, None, "boom", tf.errors.UNKNOWN)
    with pytest.raises(KeyError):
        with checkpoints.short_graph_errors():
            raise KeyError("not a graph error")
    with checkpoints.short_graph_errors():
        value = np.zeros(2)
    assert value.shape == (2,)


def test_crash_at_step_one_is_allowed_and_crashes_in_the_first_step(tmp_path):
    estimator = checkpointed(tmp_path)
    with pytest.raises(checkpoints.SimulatedCrash, match="at global step 1$"):
        estimator.train(tiny_input_fn, steps=5, hooks=[checkpoints.CrashAtStep(1)])


def test_crash_needs_a_global_step_and_says_so():
    with tf.Graph().as_default():
        with pytest.raises(NotReady, match="needs a global step in the graph"):
            checkpoints.CrashAtStep(3).begin()
