"""The course's figures, each returned as a ``Figure`` (a static PNG of about 45 KB).

An image grid (notebook 00), curves and a confusion matrix (06), an early-stopping timeline (07).

In the zh-TW edition (``helpers.language``) the text these functions draw themselves (legends,
axis labels, default titles) is Chinese when matplotlib finds a Traditional Chinese font on the
machine (``CHINESE_FONTS``, the first found; none is pinned: no Python package ships one).
Without one it stays English, and the first figure of the kernel prints one line naming a font to
install. Titles and labels a notebook passes are drawn as given. Each function also prints a
one-line Chinese caption under its figure that says what its title, axes and legend show; in
English it prints nothing.
"""

from __future__ import annotations

import contextlib
import functools
import sys

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm
from matplotlib.ticker import NullFormatter

from .language import N_, _, current, listed, sentences
from .problems import UsageProblem

# Traditional Chinese fonts, in the order tried: Windows, macOS, Linux (Noto CJK and Source Han
# under their names for Taiwan), older Linux; last, Linux's fonts-noto-cjk as matplotlib before
# 3.11 names it: it reads only the first face of a collection (.ttc), the Japanese one, which
# draws every Traditional Chinese character too (a few in Japanese shapes)
CHINESE_FONTS = (
    "Microsoft JhengHei",
    "PingFang TC",
    "Noto Sans CJK TC",
    "Noto Sans TC",
    "Source Han Sans TC",
    "Heiti TC",
    "AR PL UMing TW",
    "Noto Sans CJK JP",
)
NO_CHINESE_FONT = N_(
    "This computer has no Traditional Chinese font, so the figures' text stays English: install "
    "Noto Sans CJK TC (on Linux the fonts-noto-cjk package; Microsoft JhengHei on Windows and "
    "PingFang TC on macOS draw it too) and restart the kernel."
)
_SAID_NO_FONT: list = []  # the no-font line is said once per kernel


@functools.lru_cache(maxsize=None)
def chinese_font() -> str | None:
    """The first of ``CHINESE_FONTS`` that matplotlib finds here, or None. matplotlib keeps the
    list of fonts it made the first time it ran: when none is on it, the fonts installed since are
    added (the no-font line asks the learner to install one and restart the kernel)."""
    from matplotlib import font_manager

    manager = font_manager.fontManager
    for look_again in (False, True):
        if look_again:
            known = {font.fname for font in manager.ttflist}
            for path in set(font_manager.findSystemFonts()) - known:
                with contextlib.suppress(Exception):  # a file FreeType cannot read is no font
                    manager.addfont(path)
        names = {font.name for font in manager.ttflist}
        found = next((name for name in CHINESE_FONTS if name in names), None)
        if found:
            return found
    return None


@contextlib.contextmanager
def _drawing():
    """While a figure is made: whether its own text is drawn in Chinese (zh-TW and a Chinese
    font), with that font first; in zh-TW without one, the no-font line once."""
    font = chinese_font() if current() == "zh_TW" else None
    if font is None:
        if current() == "zh_TW" and not _SAID_NO_FONT:
            _SAID_NO_FONT.append(True)
            caption(_(NO_CHINESE_FONT))
        yield False
        return
    # named, not "sans-serif": a text keeps its family, and a generic one is looked up when the
    # figure is drawn, after this (IPython shows figures at the end of the cell). Only fonts that
    # are there: matplotlib logs a line for each missing one, for every text it draws. DejaVu Sans
    # (matplotlib's own) draws what the Chinese font lacks.
    with plt.rc_context({"font.family": [font, "DejaVu Sans"]}):
        yield True


def _label(chinese: bool, message: str, **values) -> str:
    """A figure's own text: ``message`` (marked with N_) in Chinese where it can be drawn so."""
    return (_(message) if chinese else message).format(**values)


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
    table: pd.DataFrame, panels: dict, title: str | None = None, xlabel: str | None = None
) -> plt.Figure:
    """One panel per ``{panel title: {line label: (run, tag)}}`` of ``events.scalars``, x the
    global step unless ``xlabel`` names it; a missing tag: UsageProblem."""
    with _drawing() as chinese:
        return _curves(table, panels, title, xlabel, chinese)


def _curves(table, panels: dict, title, xlabel, chinese: bool) -> plt.Figure:
    steps = xlabel is None
    xlabel = _label(chinese, N_("global step")) if steps else xlabel
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
        values = {"number": number, "panel": panel_title, "lines": listed(lines)}
        if steps:
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
    matrix: np.ndarray, class_names: list[str] | None = None, title: str | None = None
) -> plt.Figure:
    """Rows the true class, columns the predicted one, counts written in, colours on a log scale
    (mistakes show); titled "Confusion matrix" unless ``title`` is given."""
    with _drawing() as chinese:
        return _confusion_matrix(np.asarray(matrix), class_names, title, chinese)


def _confusion_matrix(matrix, class_names, title, chinese: bool) -> plt.Figure:
    title = _label(chinese, N_("Confusion matrix")) if title is None else title
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
    axis.set(
        xlabel=_label(chinese, N_("predicted class")),
        ylabel=_label(chinese, N_("true class")),
        title=title,
    )
    colorbar = figure.colorbar(
        image, ax=axis, fraction=0.046, pad=0.04, label=_label(chinese, N_("examples (log scale)"))
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


def _shade_ignored_and_patience(axis, best, patience, min_steps, chinese: bool) -> None:
    """Grey up to ``min_steps`` (the hook ignores those evaluations), green for the patience."""
    if min_steps:
        label = _label(
            chinese, N_("ignored by the hook (step < min_steps = {min_steps})"), min_steps=min_steps
        )
        axis.axvspan(0, min_steps, color="0.85", label=label)
    if patience:
        label = _label(chinese, N_("patience: {patience} steps after the best"), patience=patience)
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
    with _drawing() as chinese:
        figure = _timeline(
            values, metric, best, stop, patience, min_steps, max_steps, title, chinese
        )
    caption(
        _title_sentence(figure.axes[0].get_title()),  # as drawn: Chinese where a font draws it
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


def _timeline(values, metric, best, stop, patience, min_steps, max_steps, title, chinese: bool):
    series = pd.Series(dict(values)).sort_index()
    figure, axis = plt.subplots(figsize=(10, 4))
    _shade_ignored_and_patience(axis, best, patience, min_steps, chinese)
    axis.plot(
        series.index,
        series.values,
        marker="o",
        markersize=4,
        color="tab:blue",
        label=_label(chinese, N_("{metric} at each evaluation"), metric=metric),
    )
    axis.plot(
        [best],
        [series[best]],
        marker="*",
        markersize=14,
        color="tab:green",
        linestyle="none",
        label=_label(chinese, N_("best: step {best}"), best=best),
    )
    axis.axvline(
        stop, color="tab:red", label=_label(chinese, N_("training stopped: step {stop}"), stop=stop)
    )
    if max_steps:
        axis.axvline(max_steps, color="0.4", linestyle=":", label=f"max_steps = {max_steps}")
    axis.set_xlim(0, max(max_steps or 0, stop, series.index.max()) * 1.02)
    if not title:
        default = N_("Evaluations of {metric}, and where the hook stopped training")
        title = _label(chinese, default, metric=metric)
    axis.set(xlabel=_label(chinese, N_("global step")), ylabel=metric, title=title)
    axis.grid(alpha=0.3)
    # beside the plot, never on it
    axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    return figure
