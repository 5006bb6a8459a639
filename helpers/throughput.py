"""How fast the input pipeline delivers examples, and the model takes them (notebook 02).

Without one-off costs such as opening files, filling the shuffle buffer, building the graph or
starting the session.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import tensorflow as tf

from .language import _
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
    if not first.shape.rank:
        raise UsageProblem(_("this element is a scalar, not a batch: time a batched dataset"))
    return int(first.shape[0])


def pipeline_rate(
    dataset: tf.data.Dataset,
    batches: int,
    warmup: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> Rate:
    """Examples delivered by ``batches`` batches of ``dataset`` (after ``warmup`` untimed ones),
    iterated eagerly."""
    if batches < 1:
        raise UsageProblem(_("batches={batches}: time at least one batch").format(batches=batches))
    iterator = iter(dataset)
    try:
        for _batch in range(warmup):
            next(iterator)
        started = clock()
        # a list, not a generator: StopIteration reaches the except below
        examples = sum([batch_size_of(next(iterator)) for _batch in range(batches)])
        return Rate(examples, clock() - started)
    except StopIteration:
        raise UsageProblem(
            _(
                "the dataset ran out before {warmup} + {batches} batches: time fewer batches or "
                "repeat() the dataset"
            ).format(warmup=warmup, batches=batches)
        ) from None


class StepTimer(tf.estimator.SessionRunHook):
    """A ``train(hooks=[...])`` hook that records when each step ends; ``rate`` covers the steps
    after the first."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter):
        self._clock = clock
        self.times: list[float] = []

    def begin(self) -> None:
        self.times = []

    def after_run(self, run_context, run_values) -> None:
        self.times.append(self._clock())

    @property
    def rate(self) -> Rate:
        if len(self.times) < 2:
            raise UsageProblem(
                _("StepTimer needs a train() call of at least 2 steps to measure a rate")
            )
        return Rate(len(self.times) - 1, self.times[-1] - self.times[0])
