"""helpers.events: event files read back as tables, long (``scalars``) and wide
(``scalars_by_step``).

The files are written as an Estimator writes them (``tests/support/events.py``): a training run in
the model folder, evaluations in ``eval`` and ``eval_<name>``, some in two files (two ``evaluate()``
calls), so every row can be compared with what was written.
"""

import pandas as pd
import pytest

from helpers import events
from tests.support.events import write_eval_events


@pytest.fixture
def model_dir(tmp_path):
    write_eval_events(tmp_path, {10: {"loss": 2.5}, 20: {"loss": 1.5}})  # the training run: "."
    write_eval_events(tmp_path / "eval", {20: {"accuracy": 0.5, "loss": 1.0}})
    write_eval_events(tmp_path / "eval", {40: {"accuracy": 0.75, "loss": 0.5}})  # a second file
    write_eval_events(tmp_path / "eval_holdout", {40: {"accuracy": 0.25}})
    return tmp_path


def test_scalars_are_every_value_of_every_run_sorted(model_dir):
    table = events.scalars(model_dir)
    assert list(table.columns) == ["run", "tag", "step", "value"]
    assert list(table.itertuples(index=False, name=None)) == [
        (".", "loss", 10, 2.5),
        (".", "loss", 20, 1.5),
        ("eval", "accuracy", 20, 0.5),
        ("eval", "accuracy", 40, 0.75),
        ("eval", "loss", 20, 1.0),
        ("eval", "loss", 40, 0.5),
        ("eval_holdout", "accuracy", 40, 0.25),
    ]


def test_scalars_by_step_is_one_row_per_step_and_one_column_per_tag(model_dir):
    expected = pd.DataFrame(
        {"accuracy": [0.5, 0.75], "loss": [1.0, 0.5]}, index=pd.Index([20, 40], name="step")
    )
    pd.testing.assert_frame_equal(events.scalars_by_step(model_dir), expected, check_dtype=False)
    assert list(events.scalars_by_step(model_dir, "eval_holdout")["accuracy"]) == [0.25]
    assert list(events.scalars_by_step(model_dir, ".").index) == [10, 20]


def test_a_missing_folder_has_no_scalars(tmp_path):
    table = events.scalars(tmp_path / "not-trained")
    assert table.empty and list(table.columns) == ["run", "tag", "step", "value"]


def test_the_table_is_indexed_from_0_in_its_sorted_order(model_dir):
    assert list(events.scalars(model_dir).index) == list(range(7))


def test_every_point_is_read_not_tensorboards_sample_of_10000(tmp_path):
    write_eval_events(tmp_path / "eval", {step: {"loss": 1.0} for step in range(1, 10_102)})
    assert len(events.scalars(tmp_path)) == 10_101


def test_several_graphs_in_a_run_are_read_without_tensorboards_warning(tmp_path, caplog):
    import tensorflow as tf

    with tf.Graph().as_default() as graph:  # one graph per train() call, as Estimator writes
        writer = tf.compat.v1.summary.FileWriter(str(tmp_path), graph=graph)
    writer.add_graph(graph)
    writer.close()
    write_eval_events(tmp_path, {1: {"loss": 2.0}})
    # its logger given a level of its own, so that only a level set on that logger (not on the
    # root logger) silences it
    with caplog.at_level("WARNING"), caplog.at_level("WARNING", logger="tensorboard"):
        assert len(events.scalars(tmp_path)) == 1
    assert not [r for r in caplog.records if r.name.startswith("tensorboard")]
