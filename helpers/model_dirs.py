"""What an Estimator wrote into its ``model_dir``: files, kinds, sizes, checkpoints.

Notebook 01's tour; notebooks 02 and 04.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

KINDS = {
    r"^checkpoint$": "checkpoint state: the list of kept checkpoints, newest last",
    r"\.index$": "checkpoint: which variable is where in the data file",
    r"\.data-\d+-of-\d+$": "checkpoint: the variables' values",
    r"\.meta$": "checkpoint: the graph (MetaGraphDef) to restore into",
    r"^graph\.pbtxt$": "the training graph, as text",
    r"events\.out\.tfevents\.": "summaries for TensorBoard (loss, steps/s, metrics)",
    r"\.json$": "export metadata",
}
VOLATILE = {
    r"model\.ckpt-\d+": "model.ckpt-<step>",
    r"events\.out\.tfevents\.[^/]+$": "events.out.tfevents.<time>.<host>",
}


def normalise(relative_path: str) -> str:
    """A path with step numbers and event-file time and host replaced by placeholders, to compare
    runs and modes."""
    for pattern, placeholder in VOLATILE.items():
        relative_path = re.sub(pattern, placeholder, relative_path)
    return relative_path


def listing(model_dir: str | os.PathLike) -> pd.DataFrame:
    """Every file under ``model_dir``: path, normalised path, kind and size in bytes."""
    rows = []
    for path in sorted(Path(model_dir).rglob("*")):
        if path.is_file():
            name = path.relative_to(model_dir).as_posix()
            kind = next(
                (kind for pattern, kind in KINDS.items() if re.search(pattern, path.name)), "other"
            )
            rows.append(
                {
                    "file": name,
                    "pattern": normalise(name),
                    "kind": kind,
                    "bytes": path.stat().st_size,
                }
            )
    return pd.DataFrame(rows, columns=["file", "pattern", "kind", "bytes"])


def size_bytes(model_dir: str | os.PathLike) -> int:
    """Total size of every file under ``model_dir``."""
    return sum(path.stat().st_size for path in Path(model_dir).rglob("*") if path.is_file())


def checkpoint_steps(model_dir: str | os.PathLike) -> list[int]:
    """The global steps of the checkpoints TensorFlow still keeps, oldest first."""
    import tensorflow as tf

    state = tf.train.get_checkpoint_state(str(model_dir))
    return (
        [int(path.rsplit("-", 1)[1]) for path in state.all_model_checkpoint_paths] if state else []
    )
