"""The course's figures, each returned as a ``Figure`` (a static PNG of about 45 KB).

An image grid (notebook 00), curves and a confusion matrix (06), an early-stopping timeline (07).

The figures' text stays English in both editions: no pinned font package holds Traditional
Chinese glyphs (matplotlib's DejaVu Sans has none, and mplfonts ships Simplified-Chinese fonts in
an 85 MB wheel). In the zh-TW edition (``helpers.language``) each function prints instead a
one-line Chinese caption under its figure that says what its title, axes and legend show; in
English it prints nothing.
"""

from __future__ import annotations

import sys

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm
from matplotlib.ticker import NullFormatter

from .language import _, current, sentences
from .problems import UsageProblem

# Captions waiting for the end of the running cell, when the figures are shown (IPython).
_PENDING: list[str] = []
_REGISTERED: list = []  # the shell whose post_execute event prints them


def _shell():
    """The running IPython shell, or None (a script, the tests)."""
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None


def _print_pending() -> None:
    while _PENDING:
        print(_PENDING.pop(0))
    sys.stdout.flush()


def caption(*parts: str) -> str | None:
    """In zh-TW, print ``parts`` (whole sentences, from the catalogue) as one line under the
    figure: in IPython after the cell, once its figures are shown (the inline backend shows them
    at the cell's end, in a ``post_execute`` event registered before this one), else at once.
    In English nothing is printed. Returns the line, or None."""
    if current() != "zh_TW":
        return None
    line = sentences(*parts)
    shell = _shell()
    if shell is None:
        print(line)
        return line
    _PENDING.append(line)
    if shell not in _REGISTERED:
        shell.events.register("post_execute", _print_pending)
        _REGISTERED.append(shell)
    return line


def _title_sentence(title: str | None) -> str:
    return _("Figure: {title}.").format(title=title.strip().rstrip(".")) if title else ""


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
    if captions is not None:
        shows = _("{count} images of 28 × 28 pixels, each under the caption the code gives it.")
    elif labels is not None and class_names is not None:
        shows = _("{count} images of 28 × 28 pixels, each under its class name.")
    elif labels is not None:
        shows = _("{count} images of 28 × 28 pixels, each under its label (the class id).")
    else:
        shows = _("{count} images of 28 × 28 pixels, without captions.")
    caption(_title_sentence(title), shows.format(count=count))
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
                    _(
                        "no scalar {tag!r} in run {run!r} (its tags: {known}): name one of those"
                    ).format(tag=tag, run=run, known=known)
                )
            marker = "o" if len(series) <= 20 else None  # evaluations: markers
            axis.plot(series["step"], series["value"], marker=marker, markersize=4, label=label)
        axis.set(title=panel_title, xlabel=xlabel, ylabel=panel_title)
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    panel_sentences = []
    for number, (panel_title, lines) in enumerate(panels.items(), start=1):
        values = {"number": number, "panel": panel_title, "lines": ", ".join(lines)}
        if xlabel == "global step":
            sentence = _(
                "Panel {number}, {panel}: x is the global step, y is {panel}; its lines: {lines}."
            )
        else:
            sentence = _(
                "Panel {number}, {panel}: x is {xlabel}, y is {panel}; its lines: {lines}."
            )
        panel_sentences.append(sentence.format(xlabel=xlabel, **values))
    caption(_title_sentence(title), *panel_sentences)
    return figure


def confusion_matrix(
    matrix: np.ndarray, class_names: list[str] | None = None, title: str = "Confusion matrix"
) -> plt.Figure:
    """Rows the true class, columns the predicted one, counts written in, colours on a log scale
    (mistakes show)."""
    matrix = np.asarray(matrix)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise UsageProblem(
            _(
                "a confusion matrix is square, got shape {shape}: pass one row and one column "
                "per class"
            ).format(shape=matrix.shape)
        )
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
    caption(
        _title_sentence(title),
        _(
            "Each row is a true class (true class), each column a predicted class (predicted "
            "class); a cell gives how many examples it holds, coloured on a log scale (examples "
            "(log scale)); an empty cell holds none, and the diagonal holds the right predictions."
        ),
    )
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
    title = title or f"Evaluations of {metric}, and where the hook stopped training"
    axis.set(xlabel="global step", ylabel=metric, title=title)
    axis.grid(alpha=0.3)
    # beside the plot, never on it
    axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    caption(
        _title_sentence(title),
        _(
            "x is the global step, y is {metric}: the blue dots are {metric} at each evaluation, "
            "the green star the best, at step {best}, and the red line the step where training "
            "stopped, {stop}."
        ).format(metric=metric, best=best, stop=stop),
        _(
            "The grey band is the steps below min_steps = {min_steps}, whose evaluations the hook "
            "ignores."
        ).format(min_steps=min_steps)
        if min_steps
        else "",
        _("The green band is the patience: {patience} steps after the best.").format(
            patience=patience
        )
        if patience
        else "",
        _("The dotted line is max_steps = {max_steps}.").format(max_steps=max_steps)
        if max_steps
        else "",
    )
    return figure
