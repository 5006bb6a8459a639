"""nbval settings for the notebooks, loaded by `make test` with `-p tests.nbval_plugin`.

Cells tagged `nbval-check-output` are compared with their committed output;
stderr (TensorFlow's log lines, with their timings) and HTML renderings (the
text/plain rendering of the same object is compared) are not.

nbval ends each notebook's kernel with `shutdown_kernel(now=True)`, a kill: the
kernel's exit handlers never run, and AutoGraph's generated files
(`__autograph_generated_file*.py`, deleted at exit) stayed behind. Here the
kernel is asked to shut down, and killed only if it does not within
jupyter_client's wait (`shutdown_wait_time`, 5 s).

With `--edition-as-graded` (make test's), a notebook of the zh-TW edition runs as a teacher's
nbgrader grades it, and on the other rounding:

- in grading mode (`WORKBOOK_GRADING=1`), its cells tagged `grading-skip` skipped, as the course's
  nbgrader config skips them: the edition proves the Chinese path (every check, every helper's
  message, every compared output of a cell grading runs) and that grading mode runs, while the
  English notebook, the same code (tests/docs/test_zh_tw_edition.py), proves the lessons;
- with TensorFlow's oneDNN the other way round from this machine's default
  (`TF_ENABLE_ONEDNN_OPTS`): TensorFlow turns it on by default only on CPUs with AVX-512 VNNI,
  bf16 or AMX (most recent Intel ones) and off elsewhere (AMD, older Intel), and the two round
  softmax, matrix products and sums differently. So every `make test` runs each compared output
  and each assertion of a graded cell on both, whatever CPU it runs on;
- in a checkout of its own (`tools.run_notebooks.kernel_checkout`: a copy of `helpers/`, so its
  `models/` is not the English notebook's, which may run at the same time in another worker).

`--speed-notebooks=apart` leaves out the English notebooks that assert a speed (``ASSERT_SPEED``),
so that the others run side by side (pytest-xdist), and `--speed-notebooks=only` runs just those,
one at a time with nothing beside them (make test's parts 2 and 3). Graded, the edition's copies
of them run with the others: grading mode skips their timed demonstrations.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import tempfile
from pathlib import Path

import nbval.plugin
from nbval.kernel import RunningKernel

from tests import ROOT
from tests.support.cpu import ONEDNN_ENV, onednn_flipped
from tools.nbgrader_course import GRADING_SKIP_TAG

EDITION_FOLDER = ROOT / "notebooks" / "zh-TW"


def _stop_gracefully(self):
    self.kc.stop_channels()
    self.km.shutdown_kernel(now=False)
    del self.km


RunningKernel.stop = _stop_gracefully


def pytest_addoption(parser):
    parser.addoption(
        "--edition-as-graded",
        action="store_true",
        help="run the zh-TW notebooks in grading mode, with oneDNN flipped (tests/nbval_plugin.py)",
    )
    parser.addoption(
        "--speed-notebooks",
        choices=("with", "apart", "only"),
        default="with",
        help="apart: leave out the notebooks that measure speed; only: run just those",
    )


def pytest_collectstart(collector):
    path = getattr(collector, "path", None)
    if path is not None and path.suffix == ".ipynb":
        collector.skip_compare += ("stderr", "text/html", "application/javascript")


def _as_graded(config, path) -> bool:
    return config.getoption("edition_as_graded") and EDITION_FOLDER in Path(path).parents


# The notebooks with an assertion that a process beside them could break: 02's input pipeline
# over twice the model's rate, 11's bfloat16 peak and profile against the measured step. The
# other notebooks make sync runs alone (tools/run_notebooks.py's ALONE: 08, 09, 10) print speeds
# the committed outputs show, but assert none that a neighbour can break (09's "the cluster is
# less than twice as fast" only gets truer under load).
ASSERT_SPEED = frozenset({"02_input_fn.ipynb", "11_training_speed.ipynb"})


def _measures_speed(config, path) -> bool:
    return path.suffix == ".ipynb" and path.name in ASSERT_SPEED and not _as_graded(config, path)


# The longest files first, so that no worker is left with one of them at the end while the other
# waits (the longest in make test's --durations on 2026-12-06: 09's three cluster cells 122 s,
# the round trip's course 128 s, 07's early-stopping run 83 s, test_cluster's two clusters 84 s,
# 06's and 10's longest cells 42 s); pytest-xdist hands out whole files in the order collected.
LONGEST_FIRST = (
    "09_more_than_one_machine.ipynb",
    "test_nbgrader_round_trip.py",
    "07_early_stopping.ipynb",
    "test_cluster.py",
    "06_metrics_and_tensorboard.ipynb",
    "10_migrating_to_keras.ipynb",
    "test_nbgrader_round_trip_zh_tw.py",
)


def _longest_first(item) -> int:
    name = item.path.name
    edition = EDITION_FOLDER in item.path.parents
    return (
        LONGEST_FIRST.index(name) if name in LONGEST_FIRST and not edition else len(LONGEST_FIRST)
    )


def pytest_collection_modifyitems(config, items):
    items.sort(key=_longest_first)  # stable: each file's items keep their order
    for item in items:
        cell = getattr(item, "cell", None)
        if cell is not None and _as_graded(config, item.path):
            if GRADING_SKIP_TAG in cell.metadata.get("tags", []):
                item.options["skip"] = True  # nbval's own skip: reported as skipped
    speed = config.getoption("speed_notebooks")
    if speed != "with":
        only = speed == "only"
        config.hook.pytest_deselected(
            items=[item for item in items if _measures_speed(config, item.path) != only]
        )
        items[:] = [item for item in items if _measures_speed(config, item.path) == only]


@functools.lru_cache(maxsize=None)
def _checkout() -> tuple[Path, dict]:
    """This process's checkout for the edition's kernels, and the variables that select it."""
    from tools.run_notebooks import kernel_checkout

    folder = Path(tempfile.mkdtemp(prefix="nbval-edition-"))
    env = kernel_checkout(folder)
    return folder, {name: value for name, value in env.items() if os.environ.get(name) != value}


@contextlib.contextmanager
def _environ(changes: dict):
    saved = {name: os.environ.get(name) for name in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


_nbval_setup = nbval.plugin.IPyNbFile.setup


def _setup(self):
    if not _as_graded(self.config, self.path):
        return _nbval_setup(self)
    folder, selected = _checkout()
    (folder / self.path.parent.relative_to(ROOT)).mkdir(parents=True, exist_ok=True)
    changes = {**selected, "WORKBOOK_GRADING": "1", ONEDNN_ENV: onednn_flipped()}
    start = nbval.plugin.RunningKernel
    nbval.plugin.RunningKernel = lambda name, cwd=None, **options: start(
        name, cwd=str(folder / Path(cwd).relative_to(ROOT)), **options
    )
    try:
        with _environ(changes):  # the kernel inherits them; this process keeps its own
            return _nbval_setup(self)
    finally:
        nbval.plugin.RunningKernel = start


nbval.plugin.IPyNbFile.setup = _setup


def pytest_unconfigure(config):
    if _checkout.cache_info().currsize:
        shutil.rmtree(_checkout()[0], ignore_errors=True)
