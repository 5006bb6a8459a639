"""Paths, fast mode (``WORKBOOK_FAST=1``, step counts scaled by ``steps``), seeds, fresh model folders.

Introduced in notebook 00 and used by every notebook. Imports no TensorFlow, so the
data loader and the tests can use it cheaply.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
from pathlib import Path

from .problems import UsageProblem

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = PROJECT_ROOT / "data"
MODELS_DIR = PROJECT_ROOT / "models"

SEED = 42

FAST_ENV = "WORKBOOK_FAST"
DATASETS_ENV = "WORKBOOK_DATASETS"


def fast_mode() -> bool:
    """True when the notebooks should run in fast mode (``WORKBOOK_FAST=1``)."""
    return os.environ.get(FAST_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def steps(full: int, fast: int | None = None) -> int:
    """The step count to use now: ``full``, or in fast mode ``fast`` (default a tenth of ``full``, at least 1)."""
    if full < 1:
        raise UsageProblem(f"steps(full={full}): a step count must be at least 1")
    if not fast_mode():
        return full
    if fast is None:
        fast = max(1, full // 10)
    if fast < 1:
        raise UsageProblem(f"steps(fast={fast}): a step count must be at least 1")
    return fast


def seed_everything(seed: int = SEED) -> int:
    """Seed Python's, NumPy's and (if imported) TensorFlow's generators; Estimator graphs take
    ``RunConfig(tf_random_seed=SEED)`` instead."""
    import numpy as np

    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    np.random.seed(seed)
    tf = sys.modules.get("tensorflow")
    if tf is not None:
        tf.random.set_seed(seed)
    return seed


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def display_path(path: str | os.PathLike) -> str:
    """How a message names ``path``: relative under the working directory or inside the project while
    working in it (``../data/mnist`` from a notebook), else ``~/…`` under home, else absolute."""
    path = Path(path).expanduser().resolve()
    cwd = Path.cwd().resolve()
    if _inside(path, cwd) or (_inside(path, PROJECT_ROOT) and _inside(cwd, PROJECT_ROOT)):
        try:
            return os.path.relpath(path)
        except ValueError:  # another drive on Windows
            return str(path)
    home = Path.home().resolve()
    if _inside(path, home) and home != Path(path.anchor):
        return str(Path("~") / path.relative_to(home))
    return str(path)


def fresh_model_dir(name: str) -> str:
    """Empty ``models/<name>`` (only inside models/) and return it relative to the working directory,
    so running a notebook twice trains from nothing both times."""
    if not name or Path(name).is_absolute() or ".." in Path(name).parts:
        raise UsageProblem(f"fresh_model_dir({name!r}): give a plain name such as '03_cnn'")
    target = (MODELS_DIR / name).resolve()
    if MODELS_DIR.resolve() not in target.parents:
        raise UsageProblem(f"fresh_model_dir({name!r}) would leave the models/ folder")
    # Estimator keeps one open event writer per folder, which re-creates its file on its next
    # flush: close them all before the folder goes, or a write races with the removal.
    tf = sys.modules.get("tensorflow")
    if tf is not None:
        tf.compat.v1.summary.FileWriterCache.clear()
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif target.exists() or target.is_symlink():
        target.unlink()
    target.parent.mkdir(parents=True, exist_ok=True)
    return display_path(target)
