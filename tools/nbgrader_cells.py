"""Mark every exercise's cells for nbgrader, in place: solution, graded check, locked instructions.

    python -m tools.nbgrader_cells notebooks/03_model_fn_and_estimatorspec.ipynb ...

Run it after adding or moving an exercise; `tests/notebooks/hygiene.py` fails until the
cells are marked. Only cell metadata changes (sources and outputs stay as they
are). In the `## Exercises` section of a notebook:

* a code cell with ``### BEGIN SOLUTION`` becomes a solution cell,
  ``nb03-ex1-solution`` for the first exercise of notebook 03;
* the code cell after it, which calls ``checks.…``, becomes an autograded,
  locked test cell worth ``POINTS``, ``nb03-ex1-check``;
* every other cell (prompts, the code an exercise starts from, "break it"
  cells) becomes a locked read-only cell, ``nb03-ex-<cell id>``.

A ``grade_id`` already given is kept, so ids stay stable when cells move.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

POINTS = 1
SCHEMA_VERSION = 3
BEGIN = "### BEGIN SOLUTION"
EXERCISES = re.compile(r"^## Exercises\s*$", re.MULTILINE)
CHECK_CALL = re.compile(r"\bchecks\.\w+\(")


def _metadata(grade_id: str, *, solution=False, grade=False, locked=False) -> dict:
    fields = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": SCHEMA_VERSION,
        "solution": solution,
        "task": False,
    }
    if grade:
        fields["points"] = POINTS
    return fields


def exercise_cells(notebook) -> list:
    """The cells from the one containing ``## Exercises`` to the end (empty when there is none)."""
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "markdown" and EXERCISES.search(cell.source):
            return notebook.cells[index:]
    return []


def planned_metadata(notebook, prefix: str) -> list:
    """``(cell, nbgrader metadata)`` for every cell of the Exercises section."""
    cells = exercise_cells(notebook)
    plan, exercise, index = [], 0, 0
    while index < len(cells):
        cell = cells[index]
        if cell.cell_type == "code" and BEGIN in cell.source:
            exercise += 1
            plan.append((cell, _metadata(f"{prefix}-ex{exercise}-solution", solution=True)))
            following = cells[index + 1] if index + 1 < len(cells) else None
            if (
                following is None
                or following.cell_type != "code"
                or not CHECK_CALL.search(following.source)
            ):
                raise ValueError(
                    f"exercise {exercise} ({prefix}): "
                    "the cell after its solution must call checks.…"
                )
            plan.append(
                (following, _metadata(f"{prefix}-ex{exercise}-check", grade=True, locked=True))
            )
            index += 2
            continue
        plan.append((cell, _metadata(f"{prefix}-ex-{cell.get('id', index)}", locked=True)))
        index += 1
    return plan


def mark(notebook, prefix: str) -> bool:
    """Set the nbgrader metadata of the Exercises section; return True when something changed."""
    changed = False
    for cell, wanted in planned_metadata(notebook, prefix):
        old = cell.metadata.get("nbgrader", {})
        wanted["grade_id"] = old.get("grade_id", wanted["grade_id"])
        if old != wanted:
            cell.metadata["nbgrader"] = wanted
            changed = True
    return changed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for path in args.notebooks:
        notebook = nbformat.read(path, as_version=4)
        changed = mark(notebook, "nb" + path.name[:2])  # nb03 for 03_model_fn_….ipynb
        if changed:
            nbformat.write(notebook, path)
        print(f"{path.name}: {'marked' if changed else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
