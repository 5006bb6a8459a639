"""``start()``, the first code cell of every notebook (introduced in notebook 00).

It checks the kernel can run the course (Python 3.9–3.11, TensorFlow 2.15 with ``tf.estimator``;
else one line saying what to install), takes a stray ``TF_CONFIG`` out of the kernel's environment
(one line says so), makes ``models/tmp`` the temporary folder, quiets the logs, seeds, reads fast
mode and prints the versions.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
import unicodedata
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

from .language import _
from .logs import install_noise_filter, quiet_native_logs
from .paths import MODELS_DIR
from .problems import EnvironmentProblem
from .settings import FAST_ENV, SEED, fast_mode, seed_everything

TEMP_DIR = MODELS_DIR / "tmp"

SUPPORTED_PYTHON = ((3, 9), (3, 11))
TENSORFLOW_SERIES = (2, 15)


def how_to_fix() -> str:
    """What to do about a kernel that cannot run the course (the end of every version error)."""
    return _(
        "run `make lab` from the course folder (it gets a Python 3.11 when there is none), or "
        "`pip install --require-hashes -r requirements.lock` in a Python 3.9–3.11 virtual "
        "environment"
    )


def _installed(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def check_versions(python: tuple, tensorflow: str | None, estimator: str | None) -> None:
    """Raise ``EnvironmentProblem`` unless these versions can run the course."""
    low, high = SUPPORTED_PYTHON
    if not (low <= tuple(python[:2]) <= high):
        found = ".".join(str(part) for part in python[:3])
        raise EnvironmentProblem(
            _(
                "Python {found} cannot run TensorFlow 2.15 (the last release with tf.estimator "
                "supports Python 3.9–3.11): {fix}"
            ).format(found=found, fix=how_to_fix())
        )
    if tensorflow is None:
        raise EnvironmentProblem(
            _(
                "TensorFlow is not installed in this kernel: choose the kernel "
                "'Estimator workbook (TF 2.15)', or {fix}"
            ).format(fix=how_to_fix())
        )
    series = tuple(int(part) for part in tensorflow.split(".")[:2])
    if series > TENSORFLOW_SERIES:
        raise EnvironmentProblem(
            _(
                "TensorFlow {version} has no tf.estimator (removed in 2.16): install "
                "tensorflow==2.15.1 -- {fix}"
            ).format(version=tensorflow, fix=how_to_fix())
        )
    if series < TENSORFLOW_SERIES:
        raise EnvironmentProblem(
            _("TensorFlow {version} is older than this course (written for 2.15.1): {fix}").format(
                version=tensorflow, fix=how_to_fix()
            )
        )
    if estimator is None:
        raise EnvironmentProblem(
            _(
                "tensorflow-estimator is missing (it normally comes with tensorflow 2.15): {fix}"
            ).format(fix=how_to_fix())
        )


def versions() -> dict:
    """The versions that matter to the course, as ``{package: version}``."""
    names = ["tensorflow", "tensorflow-estimator", "numpy", "pandas", "matplotlib", "scikit-learn"]
    table = {"python": platform.python_version()}
    table.update({name: _installed(name) or "-" for name in names})
    return table


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


def drop_stray_tf_config() -> str | None:
    """Take a ``TF_CONFIG`` this kernel inherited (a cloud image, a shell profile, another
    tutorial) out of its environment, and return the line that says so (None: there was none).

    With it, every ``RunConfig`` joins that cluster and ``train()`` waits, silently, for machines
    that never come; every notebook trains in one process, and notebook 09 sets its own."""
    value = os.environ.pop("TF_CONFIG", None)
    if value is None:
        return None
    try:
        task = json.loads(value).get("task") or {}
        role = f"{task['type']}:{task.get('index', 0)}"
    except (ValueError, AttributeError, KeyError, TypeError):
        role = "?"
    return _(
        "TF_CONFIG was set in this kernel's environment (this process as task {role}): "
        "`train()` would have waited for that cluster's other machines without a word, so "
        "`start()` removed it from this kernel; remove it where it is set (a shell profile, "
        "the image, another tutorial) to stop seeing this line"
    ).format(role=role)


def start(seed: int = SEED, show: bool = True) -> SimpleNamespace:
    """Check versions, take out a stray TF_CONFIG, quiet logs, seed, read fast mode; print and
    return them."""
    check_versions(sys.version_info, _installed("tensorflow"), _installed("tensorflow-estimator"))
    stray = drop_stray_tf_config()
    if stray:
        print(stray)  # also with show=False: before anything can wait
    quiet_native_logs()
    use_course_temp_dir()  # AutoGraph's files: inside models/, also when a process is killed
    import tensorflow as tf

    install_noise_filter(tf.get_logger())
    seed_everything(seed)
    fast = fast_mode()
    found = versions()
    if show:
        if fast:
            mode = _("fast ({variable}=1): step counts scaled down").format(variable=FAST_ENV)
        else:
            mode = _("full")  # TRANSLATORS: the mode that trains with the notebooks' step counts
        # TRANSLATORS: labels of start()'s table, under the package names
        rows = [*found.items(), (_("mode"), mode), (_("seed"), seed)]
        width = max(_columns(name) for name, _value in rows)
        for name, value in rows:
            print(f"{name}{' ' * (width - _columns(name))}  {value}")
    return SimpleNamespace(fast=fast, seed=seed, versions=found)


def _columns(text: str) -> int:
    """How many columns ``text`` takes in a fixed-width font (a Chinese character takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
