"""Plots the notebooks share.

Introduced in notebook 00. Every function returns the matplotlib ``Figure``
and draws static PNGs at the default resolution (about 45 KB each), which
GitHub renders and which keeps every notebook well under 1 MB.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np


def image_grid(images, labels=None, class_names=None, rows: int = 3, columns: int = 8,
               title: str | None = None, captions=None):
    """Show the first ``rows * columns`` images in a grid, captioned by label.

    ``captions`` (one string per image) replaces the label captions, e.g.
    "pred 3 / true 5" in notebook 06.
    """
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
            name = class_names[label] if class_names is not None else str(label)
            axis.set_title(name, fontsize=8)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    return figure
