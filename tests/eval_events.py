"""Test fixture: evaluation event files, written as Estimator's evaluation writes them.

Uses ``early_stopping``'s own writer (one file-name suffix per writer, shared
with ``replay``, so two writers opened in the same second never collide).
"""

from __future__ import annotations

import os

from helpers import early_stopping


def write_eval_events(eval_dir, results: dict) -> None:
    """Write ``{step: {name: value}}`` into ``eval_dir``: one event of v1 scalars (``simple_value``) per step.

    The only kind of value the early-stopping hooks read.
    """
    os.makedirs(eval_dir, exist_ok=True)
    writer = early_stopping._file_writer(eval_dir)
    try:
        for step, values in sorted(results.items()):
            writer.add_summary(early_stopping._summary(values), int(step))
    finally:
        writer.close()
