"""Checkpoint tools of notebook 04: ``CrashAtStep`` (a simulated crash, to show where training
resumes) and ``short_graph_errors()`` (a failed restore's message without the Python stack
TensorFlow writes into it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import tensorflow as tf

from .language import _
from .learner_code import shorten_graph_message
from .problems import NotReady, UsageProblem


class SimulatedCrash(RuntimeError):
    """Raised by ``CrashAtStep``: training stopped by an error, on purpose."""


class CrashAtStep(tf.estimator.SessionRunHook):
    """Raise ``exception`` once the global step has reached ``step``; what no checkpoint holds
    by then is lost."""

    def __init__(self, step: int, exception: type[BaseException] = SimulatedCrash):
        if int(step) < 1:
            raise UsageProblem(
                _("CrashAtStep({step}): the step must be at least 1").format(step=step)
            )
        self.step, self.exception = int(step), exception

    def begin(self) -> None:
        self._global_step = tf.compat.v1.train.get_global_step()
        if self._global_step is None:
            raise NotReady(
                _(
                    "CrashAtStep needs a global step in the graph: give it to an Estimator's "
                    "train(hooks=[...]), which creates one"
                )
            )

    def before_run(self, run_context) -> tf.estimator.SessionRunArgs:
        return tf.estimator.SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values) -> None:
        # The value fetched with train_op is the one *before* this run's update.
        if run_values.results + 1 >= self.step:
            now = int(run_context.session.run(self._global_step))
            if now >= self.step:
                raise self.exception(_("simulated crash at global step {step}").format(step=now))


@contextlib.contextmanager
def short_graph_errors() -> Iterator[None]:
    """Re-raise a ``tf.errors.OpError`` of the block, same type, without its file lines."""
    try:
        yield
    except tf.errors.OpError as error:
        message = shorten_graph_message(error.message)
        try:
            short = type(error)(error.node_def, None, message)
        except TypeError:  # the base class also wants the error code
            short = tf.errors.OpError(error.node_def, None, message, error.error_code)
        raise short from None
