"""Unit tests for ``helpers.throughput``: timing a tf.data pipeline and training steps.

A fake clock makes every duration exact; the datasets are tiny and in memory,
and ``StepTimer`` is driven by calling its hook methods as ``train()`` would.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import tensorflow as tf

from helpers import throughput


class FakeClock:
    """Each call returns the next tick: start, start + 0.5, start + 1.0, ..."""

    def __init__(self, tick=0.5, start=0.0):
        self.ticks = itertools.count()
        self.tick = tick
        self.start = start
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return self.start + next(self.ticks) * self.tick


def batches(examples=10, batch_size=4):
    images = np.zeros((examples, 28, 28), np.float32)
    labels = np.arange(examples, dtype=np.int32)
    return tf.data.Dataset.from_tensor_slices(({"image": images}, labels)).batch(batch_size)


def test_rate():
    assert throughput.Rate(300, 2.0).per_second == 150
    assert throughput.Rate(5, 0.0).per_second == float("inf")


def test_batch_size_of_a_features_dict_and_labels():
    element = next(iter(batches(10, 4)))
    assert throughput.batch_size_of(element) == 4


def test_batch_size_of_a_scalar_element_is_an_error():
    with pytest.raises(ValueError, match="scalar"):
        throughput.batch_size_of(tf.constant(3))


def test_pipeline_rate_counts_examples_after_the_warmup():
    # 10 examples in batches of 4: 4, 4, 2. Warm-up takes the first batch; the clock
    # is read once before and once after the two timed batches.
    clock = FakeClock(tick=0.5)
    rate = throughput.pipeline_rate(batches(10, 4), batches=2, warmup=1, clock=clock)
    assert rate == throughput.Rate(6, 0.5)
    assert rate.per_second == 12
    assert clock.calls == 2


def test_pipeline_rate_without_warmup():
    rate = throughput.pipeline_rate(batches(10, 4), batches=3, warmup=0, clock=FakeClock(1.0))
    assert rate == throughput.Rate(10, 1.0)


def test_pipeline_rate_on_a_real_clock():
    rate = throughput.pipeline_rate(batches(100, 10).repeat(), batches=20)
    assert rate.count == 200 and rate.seconds > 0


def test_pipeline_rate_when_the_dataset_runs_out():
    with pytest.raises(ValueError, match="ran out before 1 \\+ 3 batches"):
        throughput.pipeline_rate(batches(10, 4), batches=3)


def test_pipeline_rate_needs_a_batch():
    with pytest.raises(ValueError, match="at least one batch"):
        throughput.pipeline_rate(batches(), batches=0)


def test_step_timer_leaves_out_the_first_step():
    timer = throughput.StepTimer(clock=FakeClock(tick=0.25))
    timer.begin()
    for _ in range(5):  # the clock reads 0, 0.25, 0.5, 0.75, 1.0 after steps 1..5
        timer.after_run(None, None)
    assert timer.rate == throughput.Rate(4, 1.0)
    assert timer.rate.per_second == 4


def test_step_timer_starts_again_with_each_train_call():
    timer = throughput.StepTimer(clock=FakeClock())
    timer.begin()
    for _ in range(3):
        timer.after_run(None, None)
    timer.begin()
    assert timer.times == []


def test_step_timer_needs_two_steps():
    timer = throughput.StepTimer(clock=FakeClock())
    timer.begin()
    timer.after_run(None, None)
    with pytest.raises(ValueError, match="at least 2 steps"):
        timer.rate


def test_step_timer_is_a_session_run_hook():
    assert isinstance(throughput.StepTimer(), tf.estimator.SessionRunHook)


def test_durations_are_differences_of_clock_readings():
    # a clock that does not start at 0, as perf_counter does not
    rate = throughput.pipeline_rate(batches(10, 4), batches=2, clock=FakeClock(0.5, start=100.0))
    assert rate == throughput.Rate(6, 0.5)
    timer = throughput.StepTimer(clock=FakeClock(tick=0.25, start=100.0))
    timer.begin()
    for _ in range(5):
        timer.after_run(None, None)
    assert timer.rate == throughput.Rate(4, 1.0)


def test_one_batch_and_two_steps_are_enough():
    rate = throughput.pipeline_rate(batches(10, 4), batches=1, clock=FakeClock(0.5))
    assert rate == throughput.Rate(4, 0.5)
    timer = throughput.StepTimer(clock=FakeClock(tick=0.25))
    timer.begin()
    timer.after_run(None, None)
    timer.after_run(None, None)
    assert timer.rate == throughput.Rate(1, 0.25)


def test_a_scalar_element_is_named_as_such():
    with pytest.raises(ValueError, match="this element is a scalar, not a batch"):
        throughput.batch_size_of(tf.constant(3))
