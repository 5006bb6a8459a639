"""How fast the input pipeline delivers examples, and how fast the model takes them.

Introduced in notebook 02, which compares the two to find the bottleneck.

* ``pipeline_rate(dataset, batches)`` iterates a batched ``tf.data.Dataset``
  eagerly, as fast as it can, and returns the examples it delivered and the
  seconds it took. The first ``warmup`` batches are taken before the clock
  starts: they pay one-off costs (opening the files, filling the shuffle
  buffer) that a long training run does not see again.
* ``StepTimer`` is a ``SessionRunHook`` for ``Estimator.train(hooks=[...])``
  that records the time after each training step. Its rate covers the steps
  after the first one, so it leaves out building the graph, starting the
  session and writing checkpoints: the speed of training itself.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import tensorflow as tf

from .problems import UsageProblem


@dataclass(frozen=True)
class Rate:
    """A count of things done (examples or steps) in a number of seconds."""

    count: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.count / self.seconds if self.seconds > 0 else float("inf")


def batch_size_of(element) -> int:
    """The number of examples in one batch: the first dimension of its first tensor."""
    first = tf.nest.flatten(element)[0]
    if first.shape.rank is None or first.shape.rank == 0:
        raise UsageProblem("this element is a scalar, not a batch: time a batched dataset")
    return int(first.shape[0])


def pipeline_rate(dataset, batches: int, warmup: int = 1, clock=time.perf_counter) -> Rate:
    """Examples delivered by ``batches`` batches of ``dataset`` (after ``warmup`` untimed ones)."""
    if batches < 1:
        raise UsageProblem(f"batches={batches}: time at least one batch")
    iterator = iter(dataset)
    try:
        for _ in range(warmup):
            next(iterator)
        examples = 0
        started = clock()
        for _ in range(batches):
            examples += batch_size_of(next(iterator))
        seconds = clock() - started
    except StopIteration:
        raise UsageProblem(
            f"the dataset ran out before {warmup} + {batches} batches: time fewer batches "
            "or repeat() the dataset"
        ) from None
    return Rate(examples, seconds)


class StepTimer(tf.estimator.SessionRunHook):
    """Records when each training step ends; ``rate`` covers every step after the first."""

    def __init__(self, clock=time.perf_counter):
        self._clock = clock
        self.times: list = []

    def begin(self):
        self.times = []

    def after_run(self, run_context, run_values):
        self.times.append(self._clock())

    @property
    def rate(self) -> Rate:
        """Steps per second from the end of the first step to the end of the last."""
        if len(self.times) < 2:
            raise UsageProblem("StepTimer needs a train() call of at least 2 steps to measure a rate")
        return Rate(len(self.times) - 1, self.times[-1] - self.times[0])
