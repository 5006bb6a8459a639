"""Event files (what TensorBoard reads) as pandas tables (introduced in notebook 06, used in 07).

Read with tensorboard's own ``EventMultiplexer``. Runs: ``"."`` (training), ``"eval"`` and
``"eval_<name>"`` (evaluations).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pandas as pd

from .logs import logger_level

COLUMNS = ["run", "tag", "step", "value"]


def scalars(model_dir: str | os.PathLike) -> pd.DataFrame:
    """Every scalar of every run under ``model_dir`` (none if it is missing), sorted by run, tag and
    step."""
    from tensorboard.backend.event_processing.event_multiplexer import EventMultiplexer

    if not Path(model_dir).is_dir():
        return pd.DataFrame(columns=COLUMNS)
    # tensorboard warns of several graphs in a run (one per train())
    with logger_level(logging.ERROR, "tensorboard"):
        # 0: every point, not a sample of 10,000
        multiplexer = EventMultiplexer(size_guidance={"scalars": 0})
        multiplexer.AddRunsFromDirectory(str(model_dir))
        multiplexer.Reload()
    rows = [
        (run, tag, event.step, event.value)
        for run, tags in multiplexer.Runs().items()
        for tag in tags.get("scalars", [])
        for event in multiplexer.Scalars(run, tag)
    ]
    return pd.DataFrame(rows, columns=COLUMNS).sort_values(
        ["run", "tag", "step"], ignore_index=True
    )


def scalars_by_step(model_dir: str | os.PathLike, run: str = "eval") -> pd.DataFrame:
    """One run's scalars as a wide table: one row per step, one column per tag."""
    table = scalars(model_dir)
    table = table[table["run"] == run]
    return table.pivot_table(index="step", columns="tag", values="value").rename_axis(columns=None)
