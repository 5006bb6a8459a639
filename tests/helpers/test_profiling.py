"""Unit tests for ``helpers.profiling``: ProfilerHook's timelines read into pandas.

Made-up Chrome traces give exact numbers; one short real training run checks that the hook's own
files read the same way.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from helpers import profiling
from helpers.problems import NotReady, UsageProblem


def op(name, kind, start, duration, thread=0):
    return {
        "ph": "X",
        "cat": "Op",
        "name": kind,
        "pid": 1,
        "tid": thread,
        "ts": start,
        "dur": duration,
        "args": {"name": name, "op": kind},
    }


TRACE = {
    "traceEvents": [
        {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "CPU:0 Compute"}},
        op("conv/Conv2D", "Conv2D", 1_000_000, 4_000),
        op("gradients/conv/Conv2D_grad", "Conv2DBackpropFilter", 1_004_000, 6_000, 0),
        op("gradients/dense/MatMul_grad", "MatMul", 1_005_000, 2_000, 1),  # beside the above
        op("Adam/update", "ResourceApplyAdam", 1_012_000, 1_000),
        {"ph": "s", "name": "flow", "pid": 1, "tid": 0, "ts": 1_000_000, "id": 1},
    ]
}


def write(folder, step, trace=TRACE):
    path = folder / f"timeline-{step}.json"
    path.write_text(json.dumps(trace))
    return path


def test_read_timeline_makes_one_row_per_op_run_in_ms_from_the_first(tmp_path):
    frame = profiling.read_timeline(write(tmp_path, 40))
    assert list(frame.columns) == profiling.COLUMNS
    assert frame["op_type"].tolist() == [
        "Conv2D",
        "Conv2DBackpropFilter",
        "MatMul",
        "ResourceApplyAdam",
    ]
    assert frame["step"].unique().tolist() == [40]
    assert frame["start_ms"].tolist() == [0.0, 4.0, 5.0, 12.0]
    assert frame["duration_ms"].tolist() == [4.0, 6.0, 2.0, 1.0]
    assert frame["end_ms"].tolist() == [4.0, 10.0, 7.0, 13.0]
    assert frame["thread"].tolist() == [0, 0, 1, 0]


def test_busy_ms_counts_overlapping_ops_once_and_gaps_not_at_all(tmp_path):
    frame = profiling.read_timeline(write(tmp_path, 1))
    assert frame["duration_ms"].sum() == 13.0
    assert profiling.busy_ms(frame) == 11.0  # 0-10 and 12-13


def test_busy_ms_of_nested_and_touching_intervals():
    frame = pd.DataFrame({"start_ms": [0.0, 1.0, 5.0, 6.0], "end_ms": [5.0, 2.0, 6.0, 8.0]})
    assert profiling.busy_ms(frame) == 8.0
    assert profiling.busy_ms(frame.iloc[:0]) == 0.0


def test_busy_per_step(tmp_path):
    for step in (7, 3):
        write(tmp_path, step)
    busy = profiling.busy_per_step(profiling.read_timelines(tmp_path))
    assert busy.to_dict() == {3: 11.0, 7: 11.0}


def test_read_timelines_orders_the_steps_by_number(tmp_path):
    for step in (100, 20, 3):
        write(tmp_path, step)
    (tmp_path / "events.out.tfevents.1.host").write_text("")
    frame = profiling.read_timelines(tmp_path)
    assert frame["step"].unique().tolist() == [3, 20, 100]
    assert len(frame) == 12


def test_a_folder_without_timelines_says_what_to_do(tmp_path):
    with pytest.raises(NotReady, match="holds no timeline-<step>.json: train with a Profiler"):
        profiling.read_timelines(tmp_path)


def test_a_zh_tw_learner_reads_what_to_do_in_chinese(tmp_path, zh_tw):
    sentences = zh_tw()
    template = (
        "{folder} holds no timeline-<step>.json: train with a ProfilerHook whose output_dir is "
        "this folder, for more steps than its save_steps"
    )
    with pytest.raises(NotReady) as caught:
        profiling.read_timelines(tmp_path)
    assert str(caught.value) == sentences[template].format(folder=tmp_path.name)
    assert "資料夾" in str(caught.value)


def test_a_file_that_is_not_a_timeline_is_named(tmp_path):
    path = tmp_path / "timeline-5.json"
    path.write_text("{not json")
    with pytest.raises(UsageProblem, match="timeline-5.json is not a ProfilerHook timeline"):
        profiling.read_timeline(path)


@pytest.mark.slow(reason="trains a tiny model for a few steps with a ProfilerHook")
def test_the_hooks_own_timelines(tmp_path):
    import tensorflow as tf

    def model_fn(features, labels, mode):
        logits = tf.keras.layers.Dense(10)(tf.reshape(features["image"], [-1, 784]))
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn():
        images = tf.zeros([8, 28, 28])
        return tf.data.Dataset.from_tensors(({"image": images}, tf.zeros([8], tf.int32))).repeat()

    with tf.Graph().as_default():
        hook = tf.estimator.ProfilerHook(save_steps=2, output_dir=str(tmp_path / "trace"))
    estimator = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "model"))
    estimator.train(input_fn, steps=6, hooks=[hook])
    frame = profiling.read_timelines(tmp_path / "trace")
    assert sorted(frame["step"].unique()) == [2, 4, 6]  # every second step
    assert {"MatMul", "_MklMatMul"} & set(frame["op_type"])
    assert frame["op_name"].str.startswith("gradients/").any()
    for _, one in frame.groupby("step"):
        assert 0 < profiling.busy_ms(one) <= one["duration_ms"].sum() + 1e-9
