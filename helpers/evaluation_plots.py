"""Plots of an evaluation: metric curves from event files, and a confusion matrix.

Introduced in notebook 06. Both functions return the matplotlib ``Figure``
(static PNG at the default resolution, as ``helpers.plots``). The curves take
the tidy table of ``helpers.events.scalars`` (columns run, tag, step, value),
so what they draw is exactly what the event files hold.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.colors import LogNorm
from matplotlib.ticker import NullFormatter
import numpy as np
import pandas as pd

from .problems import UsageProblem


def curves(table: pd.DataFrame, panels: dict, title: str | None = None,
           xlabel: str = "global step") -> plt.Figure:
    """One panel per entry of ``panels``: ``{panel title: {line label: (run, tag)}}``.

    Each line is the ``(run, tag)`` series of ``table`` against its step. A
    series with a single point, or with few points (evaluations), is drawn
    with markers. A ``(run, tag)`` missing from ``table`` raises ``KeyError``
    naming it, so a typo in a tag does not give an empty plot.
    """
    figure, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.6), squeeze=False)
    for axis, (panel_title, lines) in zip(axes[0], panels.items()):
        for label, (run, tag) in lines.items():
            series = table[(table["run"] == run) & (table["tag"] == tag)].sort_values("step")
            if series.empty:
                known = sorted(table.loc[table["run"] == run, "tag"].unique())
                raise KeyError(f"no scalar {tag!r} in run {run!r} (its tags: {known})")
            marker = "o" if len(series) <= 20 else None
            axis.plot(series["step"], series["value"], marker=marker, markersize=4, label=label)
        axis.set_title(panel_title)
        axis.set_xlabel(xlabel)
        axis.set_ylabel(panel_title)
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    return figure


def confusion_matrix(matrix: np.ndarray, class_names: list[str] | None = None,
                     title: str = "Confusion matrix") -> plt.Figure:
    """Draw a confusion matrix (rows: true class, columns: predicted class) with every count written in.

    The colours are on a log scale, so the few mistakes show beside the large
    diagonal; zero counts are left blank.
    """
    matrix = np.asarray(matrix)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise UsageProblem(f"a confusion matrix is square, got shape {matrix.shape}")
    size = matrix.shape[0]
    names = [str(k) for k in range(size)] if class_names is None else [str(n) for n in class_names]
    figure, axis = plt.subplots(figsize=(0.55 * size + 2.2, 0.55 * size + 1.6))
    shown = np.ma.masked_equal(matrix, 0)

    top = max(float(matrix.max()), 1.0)
    image = axis.imshow(shown, cmap="Blues", norm=LogNorm(vmin=1, vmax=top))
    threshold = np.sqrt(top)  # the middle of the log scale: white text on dark cells
    for row in range(size):
        for column in range(size):
            count = matrix[row, column]
            if count == 0:
                continue
            text = f"{count:g}" if np.issubdtype(matrix.dtype, np.floating) else str(count)
            axis.text(column, row, text, ha="center", va="center", fontsize=7,
                      color="white" if count > threshold else "black")
    axis.set_xticks(range(size), names)
    axis.set_yticks(range(size), names)
    axis.set_xlabel("predicted class")
    axis.set_ylabel("true class")
    axis.set_title(title)
    colorbar = figure.colorbar(image, ax=axis, fraction=0.046, pad=0.04, label="examples (log scale)")
    ticks = [10 ** power for power in range(int(np.log10(top)) + 1)]
    colorbar.set_ticks(ticks, labels=[str(tick) for tick in ticks])  # plain numbers, no mathtext
    colorbar.ax.yaxis.set_minor_formatter(NullFormatter())
    figure.tight_layout()
    return figure
