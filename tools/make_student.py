"""Write student copies of the notebooks with nbgrader's own preprocessors: what nbgrader releases.

    .venv-teacher/bin/python tools/make_student.py notebooks/00_setup_and_data.ipynb ...
    # exit 1 when out of date:
    .venv-teacher/bin/python tools/make_student.py --check notebooks/*.ipynb

`make student` calls this in the teacher environment (nbgrader is not in the
learners' .venv). Each notebook goes through the preprocessors of nbgrader's
``generate_assignment``, in its order and with its defaults: every solution
region becomes ``# YOUR CODE HERE`` / ``raise NotImplementedError()``, outputs
and execution counts are cleared, the exercise cells are locked and carry
their checksums. Only ``SaveCells``, which records the cells in nbgrader's
database, is left out: it does not change the notebook. The copy is written to
``student/<same name>.ipynb`` next to the notebook (``notebooks/student/``, and
``notebooks/zh-TW/student/`` for the zh-TW edition) without the course's run stamp
(``metadata.workbook``); apart from that stamp it is the file that
``nbgrader generate_assignment`` writes to ``release/`` (the round-trip test
checks this).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent


def release_preprocessors() -> list:
    """nbgrader's generate_assignment preprocessors, in order, without the database one."""
    from nbgrader.converters import GenerateAssignment
    from nbgrader.preprocessors import SaveCells

    return [
        cls
        for cls in GenerateAssignment.class_traits()["preprocessors"].default()
        if cls is not SaveCells
    ]


def student_copy(notebook, name: str):
    """The released form of ``notebook`` (named ``name``, without ``.ipynb``),
    without the run stamp."""
    resources = {"nbgrader": {"notebook": name, "assignment": name}}
    for preprocessor in release_preprocessors():
        notebook, resources = preprocessor().preprocess(notebook, resources)
    notebook.metadata.pop("workbook", None)
    return notebook


def student_path(path: Path) -> Path:
    """Where the student copy of the notebook at ``path`` is: ``student/`` beside it."""
    path = Path(path).resolve()
    return path.parent / "student" / path.name


def student_text(path: Path) -> str:
    """The student copy of the notebook at ``path``, as it is written to disk."""
    notebook = nbformat.read(path, as_version=4)
    return nbformat.writes(student_copy(notebook, Path(path).stem)) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 when a copy is out of date"
    )
    args = parser.parse_args(argv)
    stale = []
    for path in args.notebooks:
        target = student_path(path)
        text = student_text(path)
        current = target.exists() and target.read_text(encoding="utf-8") == text
        where = target.relative_to(ROOT)
        if current:
            print(f"{where}: up to date")
        elif args.check:
            stale.append(where)
            print(f"{where}: out of date: run `make student`")
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            print(f"{where}: written")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
