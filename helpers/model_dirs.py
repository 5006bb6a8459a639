"""What an Estimator wrote into its ``model_dir``: files, kinds, sizes, checkpoints.

Introduced in notebook 01 (the tour of ``model_dir``); notebooks 02 and 04 use
it to measure sizes and list checkpoints.

``listing`` names each file's kind and replaces the parts that change from run
to run (step numbers, the time and host name in event-file names) with
placeholders, so a listing can be compared between runs and modes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

KINDS = (
    (re.compile(r"^checkpoint$"), "checkpoint state: the list of kept checkpoints, newest last"),
    (re.compile(r"\.index$"), "checkpoint: which variable is where in the data file"),
    (re.compile(r"\.data-\d+-of-\d+$"), "checkpoint: the variables' values"),
    (re.compile(r"\.meta$"), "checkpoint: the graph (MetaGraphDef) to restore into"),
    (re.compile(r"^graph\.pbtxt$"), "the training graph, as text"),
    (re.compile(r"events\.out\.tfevents\."), "summaries for TensorBoard (loss, steps/s, metrics)"),
    (re.compile(r"\.json$"), "export metadata"),
)
VOLATILE = (
    (re.compile(r"model\.ckpt-\d+"), "model.ckpt-<step>"),
    (re.compile(r"events\.out\.tfevents\.[^/]+$"), "events.out.tfevents.<time>.<host>"),
)


def kind_of(name: str) -> str:
    """What a file in a ``model_dir`` is for, in a few words."""
    for pattern, kind in KINDS:
        if pattern.search(name):
            return kind
    return "other"


def normalise(relative_path: str) -> str:
    """A path with step numbers and event-file time and host replaced by placeholders."""
    for pattern, placeholder in VOLATILE:
        relative_path = pattern.sub(placeholder, relative_path)
    return relative_path


def listing(model_dir: str | os.PathLike) -> pd.DataFrame:
    """Every file under ``model_dir``: path, normalised path, kind and size in bytes."""
    root = Path(model_dir)
    rows = [
        {
            "file": path.relative_to(root).as_posix(),
            "pattern": normalise(path.relative_to(root).as_posix()),
            "kind": kind_of(path.name),
            "bytes": path.stat().st_size,
        }
        for path in sorted(root.rglob("*"))
        if path.is_file()
    ]
    return pd.DataFrame(rows, columns=["file", "pattern", "kind", "bytes"])


def size_bytes(model_dir: str | os.PathLike) -> int:
    """Total size of every file under ``model_dir``."""
    return int(sum(path.stat().st_size for path in Path(model_dir).rglob("*") if path.is_file()))


def checkpoint_steps(model_dir: str | os.PathLike) -> list[int]:
    """The global steps of the checkpoints TensorFlow still keeps, oldest first."""
    import tensorflow as tf

    state = tf.train.get_checkpoint_state(str(model_dir))
    if state is None:
        return []
    return [int(path.rsplit("-", 1)[1]) for path in state.all_model_checkpoint_paths]
