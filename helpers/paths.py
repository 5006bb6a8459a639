"""Where the course's folders are, and how a message names a path (short, relative where a program
can open it so; ``~/…`` for a path under home).

Imports no TensorFlow, so the data loader and the tests can use it cheaply.
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = PROJECT_ROOT / "data"
MODELS_DIR = PROJECT_ROOT / "models"
DATASETS_ENV = "WORKBOOK_DATASETS"  # a folder that already holds the datasets (make lab DATASETS=)


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
