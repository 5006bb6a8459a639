"""Paths, fast and grading modes (step counts chosen by ``steps``), seeds, fresh model folders.

Introduced in notebook 00 and used by every notebook. Imports no TensorFlow, so the
data loader and the tests can use it cheaply.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

from .problems import UsageProblem

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = PROJECT_ROOT / "data"
MODELS_DIR = PROJECT_ROOT / "models"
TEMP_DIR = MODELS_DIR / "tmp"

SEED = 42

FAST_ENV = "WORKBOOK_FAST"
GRADING_ENV = "WORKBOOK_GRADING"  # set by nbgrader_config.py (tools/nbgrader_course.py)
DATASETS_ENV = "WORKBOOK_DATASETS"


def _switched_on(variable: str) -> bool:
    return os.environ.get(variable, "").strip().lower() in {"1", "true", "yes", "on"}


def grading_mode() -> bool:
    """True while nbgrader autogrades (``WORKBOOK_GRADING=1``): demonstrations train minimally."""
    return _switched_on(GRADING_ENV)


def fast_mode() -> bool:
    """True in fast mode (``WORKBOOK_FAST=1``), and in grading mode, which is fast mode and less."""
    return _switched_on(FAST_ENV) or grading_mode()


def steps(full: int, fast: int | None = None, grading: int | None = None) -> int:
    """The step count to use now: ``full``; in fast mode ``fast`` (default a tenth of ``full``, at
    least 1); in grading mode ``grading``, given to the demonstrations no check needs (default
    ``fast``: what the exercise checks are tested with)."""
    for name, count in (("full", full), ("fast", fast), ("grading", grading)):
        if count is not None and count < 1:
            raise UsageProblem(f"steps({name}={count}): a step count must be at least 1")
    if not fast_mode():
        return full
    if fast is None:
        fast = max(1, full // 10)
    if grading_mode() and grading is not None:
        return grading
    return fast


def expect(holds: bool, claim: str) -> None:
    """``assert holds, claim`` for a demonstration's lesson (an accuracy it reaches, where a run
    stops) that holds only with the notebook's own step counts: in grading mode, where the
    demonstration trains minimally, it is not asserted, and the cell says so."""
    if grading_mode():
        print(f"grading mode: not asserted (the demonstration trained minimally): {claim}")
    elif not holds:
        raise AssertionError(claim)


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


def use_course_temp_dir() -> Path:
    """Make ``models/tmp`` the temporary folder of this process and of the processes it starts.

    AutoGraph writes a ``__autograph_generated_file*.py`` there for each function it converts
    and deletes them when the process exits; a process that is killed instead (a cluster's
    parameter server, a kernel that does not answer its shutdown) leaves them. Here they stay
    inside ``models/``, which ``make clean-models`` empties, not in the system's folder."""
    TEMP_DIR.mkdir(parents=True, exist_ok=True)
    os.environ["TMPDIR"] = str(TEMP_DIR)  # read by tempfile in the processes started from here
    tempfile.tempdir = str(TEMP_DIR)  # this process: tempfile.gettempdir() caches its first answer
    return TEMP_DIR


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def usable_path(path: str | os.PathLike) -> str:
    """``path`` as a program can open it, short: relative under the working directory or inside
    the project while working in it (``../models/03_cnn`` from a notebook), else absolute."""
    path = Path(path).expanduser().resolve()
    cwd = Path.cwd().resolve()
    if _inside(path, cwd) or (_inside(path, PROJECT_ROOT) and _inside(cwd, PROJECT_ROOT)):
        try:
            return os.path.relpath(path)
        except ValueError:  # another drive on Windows
            return str(path)
    return str(path)


def display_path(path: str | os.PathLike) -> str:
    """How a message names ``path``: as ``usable_path`` gives it, but ``~/…`` for an absolute
    path under home (a message only: TensorFlow and open() do not expand ``~``)."""
    shown = usable_path(path)
    if not os.path.isabs(shown):
        return shown
    home = Path.home().resolve()
    if _inside(Path(shown), home) and home != Path(Path(shown).anchor):
        return str(Path("~") / Path(shown).relative_to(home))
    return shown


def fresh_model_dir(name: str) -> str:
    """Empty ``models/<name>`` (only inside models/) and return it relative to the working
    directory, so running a notebook twice trains from nothing both times."""
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
    return usable_path(target)
