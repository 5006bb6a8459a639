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
