"""``tf.estimator.ProfilerHook``'s timelines read into pandas (notebook 11).

The hook traces one training step every ``save_steps`` and writes it as
``timeline-<global step>.json`` in Chrome's trace format: one event per op run, with the op's name,
its type, the thread it ran on, its start and its duration in microseconds. ``read_timelines``
makes one row per op run (``step``, ``op_name``, ``op_type``, ``thread``, ``start_ms``,
``duration_ms``, ``end_ms``, times from the step's first op); ``busy_ms`` is the wall time during
which at least one op ran, which is less than the sum of the durations when ops run side by side;
``busy_per_step`` gives it for each traced step.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from .language import _
from .problems import NotReady, UsageProblem

TIMELINE = re.compile(r"^timeline-(\d+)\.json$")
COLUMNS = ["step", "op_name", "op_type", "thread", "start_ms", "duration_ms", "end_ms"]


def read_timeline(path, step: int | None = None) -> pd.DataFrame:
    """One traced step's op runs, earliest first (``step``: its global step, else from the name)."""
    path = Path(path)
    if step is None:
        match = TIMELINE.match(path.name)
        step = int(match.group(1)) if match else -1
    try:
        events = json.loads(path.read_text())["traceEvents"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UsageProblem(
            _(
                "{name} is not a ProfilerHook timeline ({error}): give a timeline-<step>.json "
                "file the hook wrote"
            ).format(name=path.name, error=type(error).__name__)
        ) from None
    runs = [
        event
        for event in events
        if event.get("ph") == "X" and isinstance(event.get("args"), dict) and "op" in event["args"]
    ]
    frame = pd.DataFrame(
        {
            "step": step,
            "op_name": [event["args"].get("name", event.get("name")) for event in runs],
            "op_type": [event["args"]["op"] for event in runs],
            "thread": [event.get("tid", 0) for event in runs],
            "start_us": [float(event["ts"]) for event in runs],
            "duration_ms": [float(event.get("dur", 0.0)) / 1e3 for event in runs],
        }
    )
    first = frame["start_us"].min() if len(frame) else 0.0
    frame["start_ms"] = (frame.pop("start_us") - first) / 1e3
    frame["end_ms"] = frame["start_ms"] + frame["duration_ms"]
    return frame.sort_values(["start_ms", "op_name"], ignore_index=True)[COLUMNS]


def read_timelines(folder) -> pd.DataFrame:
    """Every ``timeline-<step>.json`` in ``folder``, in the order of their steps."""
    folder = Path(folder)
    paths = sorted(
        (int(match.group(1)), path)
        for path in (folder.iterdir() if folder.is_dir() else [])
        if (match := TIMELINE.match(path.name))
    )
    if not paths:
        raise NotReady(
            _(
                "{folder} holds no timeline-<step>.json: train with a ProfilerHook whose "
                "output_dir is this folder, for more steps than its save_steps"
            ).format(folder=folder.name or folder)
        )
    return pd.concat([read_timeline(path, step) for step, path in paths], ignore_index=True)


def busy_ms(timeline: pd.DataFrame) -> float:
    """Milliseconds during which at least one op of ``timeline`` ran (one step's: the union of its
    ops' intervals)."""
    busy, until = 0.0, float("-inf")
    for start, end in sorted(zip(timeline["start_ms"], timeline["end_ms"])):
        if start > until:
            busy += end - start
        elif end > until:
            busy += end - until
        until = max(until, end)
    return busy


def busy_per_step(timelines: pd.DataFrame) -> pd.Series:
    """``busy_ms`` of each traced step of ``timelines``, by step."""
    return pd.Series(
        {step: busy_ms(one) for step, one in timelines.groupby("step")}, name="busy_ms", dtype=float
    ).rename_axis("step")
