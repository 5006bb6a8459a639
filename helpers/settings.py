"""Paths, fast mode, seeds and fresh model directories.

Introduced in notebook 00 and used by every notebook. Nothing here imports
TensorFlow, so the data loader and the tests can use it cheaply.

* ``FAST`` is true when ``WORKBOOK_FAST=1``: the test suite runs every notebook
  that way. ``steps(full, fast)`` is the one place where step counts are scaled.
* ``fresh_model_dir(name)`` empties ``models/<name>`` and returns it as a path
  relative to the working directory, so "Run All" twice gives the same result
  and no machine path appears in the logs.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = PROJECT_ROOT / "data"
MODELS_DIR = PROJECT_ROOT / "models"

SEED = 42

FAST_ENV = "WORKBOOK_FAST"
DATASETS_ENV = "WORKBOOK_DATASETS"


def fast_mode() -> bool:
    """True when the notebooks should run in fast mode (``WORKBOOK_FAST=1``)."""
    return os.environ.get(FAST_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


FAST = fast_mode()


def steps(full: int, fast: int | None = None) -> int:
    """The step count to use now: ``full`` normally, ``fast`` in fast mode.

    Without an explicit ``fast`` value, fast mode uses a tenth of ``full``
    (at least 1). Every notebook scales its step counts through this function.
    """
    if full < 1:
        raise ValueError(f"steps(full={full}): a step count must be at least 1")
    if not fast_mode():
        return full
    if fast is None:
        fast = max(1, full // 10)
    if fast < 1:
        raise ValueError(f"steps(fast={fast}): a step count must be at least 1")
    return fast


def seed_everything(seed: int = SEED) -> int:
    """Seed Python's and NumPy's generators (and TensorFlow's, if it is imported).

    Estimator graphs take their seed from ``RunConfig(tf_random_seed=...)``;
    the notebooks pass ``SEED`` there too.
    """
    import sys

    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    try:
        import numpy as np

        np.random.seed(seed)
    except ImportError:  # pragma: no cover - numpy is always installed here
        pass
    tf = sys.modules.get("tensorflow")
    if tf is not None:
        tf.random.set_seed(seed)
    return seed


def display_path(path) -> str:
    """``path`` relative to the working directory when it lies in the project.

    Used for everything a notebook prints, so outputs never show a machine path.
    """
    path = Path(path).resolve()
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def fresh_model_dir(name: str) -> str:
    """Empty ``models/<name>`` and return it (relative to the working directory).

    Each notebook run starts its training from nothing, so running a notebook
    twice gives the same result. Only folders inside ``models/`` are removed.
    """
    if not name or Path(name).is_absolute() or ".." in Path(name).parts:
        raise ValueError(f"fresh_model_dir({name!r}): give a plain name such as '03_cnn'")
    target = (MODELS_DIR / name).resolve()
    if MODELS_DIR.resolve() not in target.parents:
        raise ValueError(f"fresh_model_dir({name!r}) would leave the models/ folder")
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif target.exists() or target.is_symlink():
        target.unlink()
    target.parent.mkdir(parents=True, exist_ok=True)
    # Estimator keeps one open event writer per folder; after the folder is removed
    # a new Estimator would write into the deleted one. Close them all.
    tf = sys.modules.get("tensorflow")
    if tf is not None:
        tf.compat.v1.summary.FileWriterCache.clear()
    return display_path(target)
