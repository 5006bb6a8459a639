"""What a notebook's code sets: fast and grading modes (step counts chosen by ``steps``, lessons
asserted by ``expect``), the seed, a fresh model folder per run.

Introduced in notebook 00 and used by every notebook. Imports no TensorFlow. Where the course's
folders are and how messages name paths: ``helpers.paths``.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
from pathlib import Path

from . import paths
from .language import N_, _
from .problems import UsageProblem

SEED = 42

FAST_ENV = "WORKBOOK_FAST"
GRADING_ENV = "WORKBOOK_GRADING"  # set by nbgrader_config.py (tools/nbgrader_course.py)
# What a learner reads in the feedback under a cell that grading stopped (tools/nbgrader_course.py
# writes it into the course's config, translated for the zh-TW edition's course)
GRADING_TIMEOUT = N_(
    "This cell ran too long and was stopped: when grading, an answer, a check or a cell you "
    "added may run {answer} s, the lesson's cells {other} min. Does it loop forever?"
)


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
            raise UsageProblem(
                _("steps({name}={count}): a step count must be at least 1").format(
                    name=name, count=count
                )
            )
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
        print(
            _("grading mode: not asserted (the demonstration trained minimally): {claim}").format(
                claim=claim
            )
        )
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


def fresh_model_dir(name: str) -> str:
    """Empty ``models/<name>`` (only inside models/) and return it relative to the working
    directory, so running a notebook twice trains from nothing both times."""
    if not name or Path(name).is_absolute() or ".." in Path(name).parts:
        raise UsageProblem(
            _("fresh_model_dir({name!r}): give a plain name such as '03_cnn'").format(name=name)
        )
    target = (paths.MODELS_DIR / name).resolve()
    if paths.MODELS_DIR.resolve() not in target.parents:
        raise UsageProblem(
            _("fresh_model_dir({name!r}) would leave the models/ folder").format(name=name)
        )
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
    return paths.usable_path(target)
