"""The course's figures, each returned as a ``Figure`` (a static PNG of about 45 KB).

An image grid (notebook 00), curves and a confusion matrix (06), an early-stopping timeline (07).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm
from matplotlib.ticker import NullFormatter

from .problems import UsageProblem


def image_grid(
    images,
    labels=None,
    class_names=None,
    rows: int = 3,
    columns: int = 8,
    title: str | None = None,
    captions=None,
) -> plt.Figure:
    """The first ``rows * columns`` images in a grid, captioned by label or by ``captions`` (one
    string each)."""
    count = min(len(images), rows * columns)
    shown = np.asarray(images[:count])
    vmax = 1.0 if shown.size and shown.max() <= 1.0 else 255  # scaled inputs or raw bytes
    figure, axes = plt.subplots(rows, columns, figsize=(columns * 1.1, rows * 1.3))
    for index, axis in enumerate(np.ravel(axes)):
        axis.axis("off")
        if index >= count:
            continue
        axis.imshow(shown[index].reshape(28, 28), cmap="gray_r", vmin=0, vmax=vmax)
        if captions is not None:
            axis.set_title(captions[index], fontsize=8)
        elif labels is not None:
            label = int(labels[index])
            axis.set_title(
                class_names[label] if class_names is not None else str(label), fontsize=8
            )
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    return figure


def curves(
    table: pd.DataFrame, panels: dict, title: str | None = None, xlabel: str = "global step"
) -> plt.Figure:
    """One panel per ``{panel title: {line label: (run, tag)}}`` of ``events.scalars``; a missing
    tag: UsageProblem."""
    figure, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.6), squeeze=False)
    for axis, (panel_title, lines) in zip(axes[0], panels.items()):
        for label, (run, tag) in lines.items():
            series = table[(table["run"] == run) & (table["tag"] == tag)].sort_values("step")
            if series.empty:
                known = sorted(table.loc[table["run"] == run, "tag"].unique())
                raise UsageProblem(
                    f"no scalar {tag!r} in run {run!r} (its tags: {known}): name one of those"
                )
            marker = "o" if len(series) <= 20 else None  # evaluations: markers
            axis.plot(series["step"], series["value"], marker=marker, markersize=4, label=label)
        axis.set(title=panel_title, xlabel=xlabel, ylabel=panel_title)
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    return figure


def confusion_matrix(
    matrix: np.ndarray, class_names: list[str] | None = None, title: str = "Confusion matrix"
) -> plt.Figure:
    """Rows the true class, columns the predicted one, counts written in, colours on a log scale
    (mistakes show)."""
    matrix = np.asarray(matrix)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise UsageProblem(f"a confusion matrix is square, got shape {matrix.shape}")
    size = matrix.shape[0]
    names = [str(name) for name in (range(size) if class_names is None else class_names)]
    figure, axis = plt.subplots(figsize=(0.55 * size + 2.2, 0.55 * size + 1.6))
    top = max(float(matrix.max()), 1.0)
    image = axis.imshow(np.ma.masked_equal(matrix, 0), cmap="Blues", norm=LogNorm(vmin=1, vmax=top))
    for row, column in zip(*np.nonzero(matrix)):
        count = matrix[row, column]
        text = f"{count:g}" if np.issubdtype(matrix.dtype, np.floating) else str(count)
        color = "white" if count > np.sqrt(top) else "black"  # white on the log scale's darker half
        axis.text(column, row, text, ha="center", va="center", fontsize=7, color=color)
    axis.set_xticks(range(size), names)
    axis.set_yticks(range(size), names)
    axis.set(xlabel="predicted class", ylabel="true class", title=title)
    colorbar = figure.colorbar(
        image, ax=axis, fraction=0.046, pad=0.04, label="examples (log scale)"
    )
    ticks = [10**power for power in range(int(np.log10(top)) + 1)]
    colorbar.set_ticks(ticks, labels=[str(tick) for tick in ticks])  # plain numbers, no mathtext
    colorbar.ax.yaxis.set_minor_formatter(NullFormatter())
    figure.tight_layout()
    return figure


def _shade_ignored_and_patience(axis, best: int, patience: int | None, min_steps: int) -> None:
    """Grey up to ``min_steps`` (the hook ignores those evaluations), green for the patience."""
    if min_steps:
        label = f"ignored by the hook (step < min_steps = {min_steps})"
        axis.axvspan(0, min_steps, color="0.85", label=label)
    if patience:
        label = f"patience: {patience} steps after the best"
        axis.axvspan(best, best + patience, color="tab:green", alpha=0.12, label=label)


def stopping_timeline(
    values,
    metric: str,
    best: int,
    stop: int,
    patience: int | None = None,
    min_steps: int = 0,
    max_steps: int | None = None,
    title: str | None = None,
) -> plt.Figure:
    """Evaluations ``{step: value}`` of ``metric``, the steps below ``min_steps``, the best, the
    patience, the stop."""
    series = pd.Series(dict(values)).sort_index()
    figure, axis = plt.subplots(figsize=(10, 4))
    _shade_ignored_and_patience(axis, best, patience, min_steps)
    axis.plot(
        series.index,
        series.values,
        marker="o",
        markersize=4,
        color="tab:blue",
        label=f"{metric} at each evaluation",
    )
    axis.plot(
        [best],
        [series[best]],
        marker="*",
        markersize=14,
        color="tab:green",
        linestyle="none",
        label=f"best: step {best}",
    )
    axis.axvline(stop, color="tab:red", label=f"training stopped: step {stop}")
    if max_steps:
        axis.axvline(max_steps, color="0.4", linestyle=":", label=f"max_steps = {max_steps}")
    axis.set_xlim(0, max(max_steps or 0, stop, series.index.max()) * 1.02)
    axis.set(
        xlabel="global step",
        ylabel=metric,
        title=title or f"Evaluations of {metric}, and where the hook stopped training",
    )
    axis.grid(alpha=0.3)
    # beside the plot, never on it
    axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    return figure
