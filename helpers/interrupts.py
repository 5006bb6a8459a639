"""Stopping and resuming: a simulated crash, and what a checkpoint must match.

Introduced in notebook 04.

* ``CrashAtStep(step)`` is a ``SessionRunHook`` that raises ``SimulatedCrash``
  (or another exception, e.g. ``KeyboardInterrupt``, what Jupyter's Stop button
  raises) as soon as the global step reaches ``step``: a stand-in for a killed
  job or a bad record, so the notebook can show where training resumes.
* ``variable_shapes(model_fn, params)`` builds a ``model_fn``'s training graph
  (without running it) and returns the shape of every variable it creates;
  ``compare_with_checkpoint`` sets these beside the shapes stored in a
  checkpoint, which is what decides whether a changed model can resume from an
  old ``model_dir`` or warm-start from it.
* ``short_graph_errors()`` re-raises a TensorFlow graph error without the
  Python stack that TensorFlow writes *into its message* (file lines naming
  folders on this machine), keeping its type and the lines that say what failed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator

import pandas as pd
import tensorflow as tf

from .model_fn_checker import build_graph
from .problems import NotReady, UsageProblem


class SimulatedCrash(RuntimeError):
    """Raised by ``CrashAtStep``: training stopped by an error, on purpose."""


class CrashAtStep(tf.estimator.SessionRunHook):
    """Raise ``SimulatedCrash`` once the global step has reached ``step``.

    The model in memory has then done ``step`` updates; whatever was not in a
    checkpoint by then is lost, as in a real crash.
    """

    def __init__(self, step: int, exception: type = SimulatedCrash):
        if int(step) < 1:
            raise UsageProblem(f"CrashAtStep({step}): the step must be at least 1")
        self.step = int(step)
        self.exception = exception
        self._global_step = None

    def begin(self):
        self._global_step = tf.compat.v1.train.get_global_step()
        if self._global_step is None:
            raise NotReady("CrashAtStep needs a global step in the graph (Estimator creates one)")

    def before_run(self, run_context):
        return tf.estimator.SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        # The value fetched with train_op is the one *before* this run's update.
        if run_values.results + 1 >= self.step:
            now = int(run_context.session.run(self._global_step))
            if now >= self.step:
                raise self.exception(f"simulated crash at global step {now}")


def _as_tuple(shape) -> tuple:
    return tuple(int(size) for size in shape)


def variable_shapes(model_fn: Callable, params: dict | None = None) -> dict:
    """``{variable name: shape}`` of the variables ``model_fn`` creates in TRAIN mode (the graph never runs)."""
    graph = build_graph(model_fn, params)
    return {var.op.name: _as_tuple(var.shape) for var in graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)}


def checkpoint_shapes(checkpoint: str | os.PathLike) -> dict:
    """``{variable name: shape}`` stored in a checkpoint (a file prefix or a ``model_dir``)."""
    return {name: _as_tuple(shape) for name, shape in tf.train.list_variables(str(checkpoint))}


def compare_with_checkpoint(model_fn: Callable, params: dict | None, checkpoint: str | os.PathLike,
                            include_optimizer: bool = False) -> pd.DataFrame:
    """One row per variable: its shape in the checkpoint, in the model, and whether they match.

    ``match`` is ``"same"``, ``"different shape"``, ``"only in checkpoint"`` or
    ``"only in model"``. Adam's slot variables (``…/Adam``, ``…/Adam_1``) and
    its ``beta*_power`` counters follow their weights and are left out unless
    ``include_optimizer`` is true.
    """
    stored = checkpoint_shapes(checkpoint)
    wanted = variable_shapes(model_fn, params)
    rows = []
    for name in sorted(set(stored) | set(wanted)):
        if not include_optimizer and (name.endswith(("/Adam", "/Adam_1")) or "_power" in name):
            continue
        in_ckpt, in_model = stored.get(name), wanted.get(name)
        if in_ckpt is None:
            match = "only in model"
        elif in_model is None:
            match = "only in checkpoint"
        else:
            match = "same" if in_ckpt == in_model else "different shape"
        rows.append({
            "variable": name,
            "checkpoint": "-" if in_ckpt is None else str(list(in_ckpt)),
            "model": "-" if in_model is None else str(list(in_model)),
            "match": match,
        })
    return pd.DataFrame(rows, columns=["variable", "checkpoint", "model", "match"]).set_index("variable")


def shorten_graph_message(message: str) -> str:
    """``message`` without the "defined at (most recent call last)" file lines."""
    kept = []
    skipping = False
    for line in message.splitlines():
        if line.startswith("Detected at node") and "defined at" in line:
            skipping = True
            continue
        if skipping and line.lstrip().startswith("File "):
            continue
        skipping = False
        kept.append(line)
    return "\n".join(kept).strip()


@contextlib.contextmanager
def short_graph_errors() -> Iterator[None]:
    """Re-raise a ``tf.errors.OpError`` of the block with a short message, same type.

    A graph-mode error message holds the Python stack where the failing op was
    created; in a notebook that is dozens of lines of library paths. What is
    left: the error type, what TensorFlow says went wrong, and the node.
    """
    try:
        yield
    except tf.errors.OpError as error:
        message = shorten_graph_message(error.message)
        try:
            short = type(error)(error.node_def, None, message)
        except TypeError:  # the base class also wants the error code
            short = tf.errors.OpError(error.node_def, None, message, error.error_code)
        raise short from None
