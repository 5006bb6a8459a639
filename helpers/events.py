"""Event files (what TensorBoard reads) as a tidy pandas DataFrame.

Introduced in notebook 06; notebook 07 reads its evaluation timeline with it.

Everything an Estimator writes is a TF1 scalar summary (``simple_value``):
training summaries in ``model_dir`` itself (run ``"."``), evaluations in
``model_dir/eval`` or ``model_dir/eval_<name>`` (runs ``"eval"``,
``"eval_<name>"``). tensorboard's own ``EventMultiplexer`` reads them all; no
protobuf is parsed by hand. ``size_guidance={"scalars": 0}`` keeps every point
(the default keeps a sample of 10,000).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pandas as pd

from .logs import logger_level

COLUMNS = ["run", "tag", "step", "value"]


def scalars(model_dir: str | os.PathLike) -> pd.DataFrame:
    """Every scalar in every run under ``model_dir``: columns run, tag, step, value.

    Rows are sorted by run, tag and step. A missing or empty ``model_dir``
    gives an empty frame with the same columns.
    """
    from tensorboard.backend.event_processing.event_multiplexer import EventMultiplexer

    if not Path(model_dir).is_dir():
        return pd.DataFrame(columns=COLUMNS)
    # tensorboard warns when a run holds several graphs (one per train() call): harmless here.
    with logger_level(logging.ERROR, "tensorboard"):
        multiplexer = EventMultiplexer(size_guidance={"scalars": 0})
        multiplexer.AddRunsFromDirectory(str(model_dir))
        multiplexer.Reload()
    rows = []
    for run, tags in multiplexer.Runs().items():
        for tag in tags.get("scalars", []):
            rows.extend(
                (run, tag, event.step, event.value) for event in multiplexer.Scalars(run, tag)
            )
    table = pd.DataFrame(rows, columns=COLUMNS)
    return table.sort_values(["run", "tag", "step"], ignore_index=True)


def timeline(model_dir: str | os.PathLike, run: str = "eval") -> pd.DataFrame:
    """One run's scalars as a wide table: one row per step, one column per tag."""
    table = scalars(model_dir)
    table = table[table["run"] == run]
    return table.pivot_table(index="step", columns="tag", values="value").rename_axis(columns=None)
