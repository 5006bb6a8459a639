"""Lay out an nbgrader course directory for the workbook: one assignment per notebook.

    python -m tools.nbgrader_course grading notebooks/03_model_fn_and_estimatorspec.ipynb ...

`make grading-course` calls this (into ``grading/``); the round-trip test does
the same in a temporary folder. It writes ``<dir>/nbgrader_config.py`` and
copies each notebook to ``<dir>/source/<name>/<name>.ipynb`` (the assignment
``03_model_fn_and_estimatorspec`` holds notebook 03), replacing an older copy.
Then, in ``<dir>``, with the teacher environment's ``bin`` first on ``PATH``
(nbgrader starts ``alembic`` from there)::

    nbgrader generate_assignment 03_model_fn_and_estimatorspec  # -> release/
    nbgrader autograde 03_model_fn_and_estimatorspec  # submitted/<student>/ -> autograded/
    nbgrader generate_feedback 03_model_fn_and_estimatorspec  # -> feedback/<student>/

Autograding runs each notebook top to bottom in the notebooks' kernel, the
course's "estimator-workbook" (TF 2.15); it inherits the environment
(``WORKBOOK_DATASETS`` is passed on). The config switches grading mode on
(``WORKBOOK_GRADING=1``, unless already set): fast mode, with the demonstrations
that no check needs trained minimally (``helpers.settings.steps``). An answer or a check cell
may run ``ANSWER_TIMEOUT_SECONDS`` (a minute), any other cell ``CELL_TIMEOUT_SECONDS``: a cell
that runs longer is interrupted, its error says so in the feedback, and the notebook's next cells
run on in the same kernel.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

# as tools/run_notebooks.py runs a notebook: a full-mode training cell takes minutes
from tools.run_notebooks import CELL_TIMEOUT_SECONDS, LANGUAGE_ENV, ROOT

TEACHER = ROOT / ".venv-teacher"  # the teacher environment (make teacher): nbgrader
COURSE_ID = "estimator-workbook"
# An answer (nbgrader solution cell) or a check cell (autograded test) gets a minute: a learner's
# endless loop then costs the grader a minute, not half an hour. Where the figure comes from:
# benchmarks/grading.json (`make grading-benchmark`), whose slowest_cells bound every answer and
# check cell at 2.4 s in grading mode (07's early-stopping answer) and 4.8 s in fast mode without
# it; a margin of ten over that (tests/tools/test_nbgrader_course.py recomputes it from the file)
# makes 48 s, rounded up to a minute. In full mode (`WORKBOOK_GRADING=0` without `WORKBOOK_FAST`)
# the answers that train take at most five times their fast steps (04's 50 for 10): seconds.
ANSWER_TIMEOUT_SECONDS = 60
ANSWER_TIMEOUT_MARGIN = 10  # the slowest answer or check cell measured, times this, fits in it


def timeout_message(language: str = "en") -> str:
    """What the feedback says under a cell that ran too long, in ``language``."""
    from helpers.language import translations
    from helpers.settings import GRADING_TIMEOUT

    sentence = translations(language).gettext(GRADING_TIMEOUT)
    return sentence.format(answer=ANSWER_TIMEOUT_SECONDS, other=CELL_TIMEOUT_SECONDS // 60)


TIMEOUT_MESSAGE = timeout_message()
SKIP_TAG = "nbval-skip"  # %tensorboard: never run under test, nor when grading
GRADING_SKIP_TAG = "grading-skip"  # a demonstration no check needs: not run in grading mode
EDITION_FOLDER = "zh-TW"  # a course of notebooks from notebooks/zh-TW/ grades in zh-TW
GRADING_ENV = "WORKBOOK_GRADING"  # helpers.settings reads it: demonstrations train minimally

CONFIG = f'''\
# nbgrader settings for the estimator workbook, written by tools/nbgrader_course.py.
import os

TIMEOUT_MESSAGE = {TIMEOUT_MESSAGE!r}  # a zh-TW edition's course says it in zh-TW

# Grading mode: the kernels nbgrader starts inherit this variable, and the notebooks' demonstrations
# then train the fewest steps they can while every exercise check gets what it needs.
# Run `{GRADING_ENV}=0 nbgrader autograde ...` to grade with the notebooks' own step counts.
# (an empty variable counts as unset: `make test` empties the course's mode variables)
if not os.environ.get("{GRADING_ENV}", "").strip():
    os.environ["{GRADING_ENV}"] = "1"
c = get_config()
c.CourseDirectory.course_id = "{COURSE_ID}"


# nbgrader gives a cell 30 s by default. An answer or a check cell, or a cell the learner added,
# gets {ANSWER_TIMEOUT_SECONDS} s: a learner's endless loop costs a minute, not half an hour (the
# slowest of those cells takes seconds: tools/nbgrader_course.py says where the figure comes from).
# The lesson's own cells (their ids, below) get {CELL_TIMEOUT_SECONDS} s: a training takes minutes
# in full mode, a first run downloads the data. A cell without an id (nbformat < 4.5) is taken
# for the lesson's.
LESSON_CELLS = frozenset()  # the ids of the lesson's code cells, written by write_course
def cell_timeout(cell):
    marks = cell.metadata.get("nbgrader", {{}})
    if marks.get("solution") or marks.get("grade") or cell.get("id", None) not in (
        LESSON_CELLS | {{None}}
    ):
        return {ANSWER_TIMEOUT_SECONDS}
    return {CELL_TIMEOUT_SECONDS}


c.Execute.timeout_func = cell_timeout
c.Execute.timeout = {CELL_TIMEOUT_SECONDS}  # what nbclient waits for other than a cell
# A cell over its time is interrupted, not killed: the next cells run on in the same kernel and
# keep their points; the cell's error, in the feedback, says why it stopped.
c.Execute.interrupt_on_timeout = True
c.Execute.error_on_timeout = {{
    "ename": "CellTimeoutError",
    "evalue": TIMEOUT_MESSAGE,
    "traceback": ["\\x1b[0;31mCellTimeoutError\\x1b[0m: " + TIMEOUT_MESSAGE],  # red, as nbgrader's
}}
# Cells tagged {SKIP_TAG} (%tensorboard: it would leave a TensorBoard server running) are not run.
c.Execute.skip_cells_with_tag = "{SKIP_TAG}"


# Before a submission runs: in grading mode, a cell tagged {GRADING_SKIP_TAG} (a demonstration no
# check needs) is skipped too; and a cell nbgrader marks (an answer, a check) always runs: a
# learner can tag any cell in JupyterLab, and a skipped check could not fail.
from nbgrader.converters.autograde import Autograde  # noqa: E402
from nbgrader.preprocessors import NbGraderPreprocessor  # noqa: E402


class GradingSkips(NbGraderPreprocessor):
    def preprocess_cell(self, cell, resources, index):
        tags = cell.metadata.get("tags", [])
        if cell.metadata.get("nbgrader"):
            kept = [tag for tag in tags if tag not in ("{SKIP_TAG}", "{GRADING_SKIP_TAG}")]
        elif "{GRADING_SKIP_TAG}" in tags and os.environ["{GRADING_ENV}"] != "0":
            kept = [*tags, "{SKIP_TAG}"]
        else:
            kept = tags
        if kept != tags:
            cell.metadata["tags"] = kept
        return cell, resources


c.Autograde.sanitize_preprocessors = [
    *Autograde.class_traits()["sanitize_preprocessors"].default(),
    GradingSkips,
]
'''


def assignment_id(notebook: Path) -> str:
    """The assignment that holds a notebook: its file name without ``.ipynb``."""
    return Path(notebook).stem


def _graded(metadata) -> bool:
    """An answer or a check cell (nbgrader's solution or grade mark)."""
    marks = metadata.get("nbgrader", {})
    return bool(marks.get("solution") or marks.get("grade"))


def write_course(root: Path, notebooks) -> list:
    """Write the config and the source copies; return the assignment ids, in order."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    config = CONFIG
    if any(EDITION_FOLDER in Path(notebook).resolve().parts for notebook in notebooks):
        # notebooks of the zh-TW edition: the checks speak zh-TW in the kernels nbgrader starts,
        # wherever the submissions lie (helpers/language.py reads no folder name there)
        config = config.replace(repr(TIMEOUT_MESSAGE), repr(timeout_message("zh_TW")))
        config += (
            f'if not os.environ.get("{LANGUAGE_ENV}", "").strip():\n'
            f'    os.environ["{LANGUAGE_ENV}"] = "zh_TW"\n'
        )
    import nbformat

    lesson = sorted(
        cell.id
        for notebook in notebooks
        for cell in nbformat.read(notebook, as_version=4).cells
        if cell.cell_type == "code" and "id" in cell and not _graded(cell.metadata)
    )
    config = config.replace("LESSON_CELLS = frozenset()", f"LESSON_CELLS = frozenset({lesson})")
    (root / "nbgrader_config.py").write_text(config, encoding="utf-8")
    assignments = []
    for notebook in notebooks:
        name = assignment_id(notebook)
        target = root / "source" / name / Path(notebook).name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(notebook, target)
        assignments.append(name)
    return assignments


def lesson_errors(notebook) -> list:
    """[[cell index, error name, its message], ...] of an autograded notebook's errors outside an
    answer or a check cell and outside a cell tagged raises-exception: a lesson cell that grading
    broke. The grading benchmark and the round trip fail on any."""
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.metadata.get("nbgrader") or "raises-exception" in cell.metadata.get("tags", []):
            continue
        found += [
            [index, out.ename, out.evalue[:200]]
            for out in cell.get("outputs", [])
            if out.output_type == "error"
        ]
    return found


class NbgraderFailed(RuntimeError):
    """An nbgrader command exited with an error; the message ends with its output."""


def run_nbgrader(course: Path, env: dict, *args) -> None:
    """``nbgrader *args`` of the teacher environment, in ``course`` (the round trip and the
    grading benchmark call it so); :class:`NbgraderFailed` with its output when it fails."""
    result = subprocess.run(
        [str(TEACHER / "bin" / "nbgrader"), *args],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise NbgraderFailed(
            f"nbgrader {' '.join(args)} failed:\n{result.stdout[-3000:]}{result.stderr[-3000:]}"
        )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("course_dir", type=Path)
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for name in write_course(args.course_dir, args.notebooks):
        print(f"{args.course_dir / 'source' / name}: assignment '{name}'")
    return 0


if __name__ == "__main__":
    sys.exit(main())
