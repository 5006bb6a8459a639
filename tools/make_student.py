"""Write student copies of the notebooks: solutions blanked, outputs cleared.

    python tools/make_student.py notebooks/00_setup_and_data.ipynb ...

`make student` calls this. Every region of a code cell between
``### BEGIN SOLUTION`` and ``### END SOLUTION`` becomes

    # YOUR CODE HERE
    raise NotImplementedError()

(nbgrader's markers and stub, the convention teachers know), every output and
execution count is cleared, and the copy is written to
``notebooks/student/<same name>.ipynb``, only when it differs from what is
there. The tests check that the committed copies are in sync.

This is the part of nbgrader's ``ClearSolutions`` that the course needs;
nbgrader itself is not a dependency (it brings a database and a server
extension that a workbook does not use).
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
STUDENT_DIR = ROOT / "notebooks" / "student"
BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
SOLUTION = re.compile(
    r"^(?P<indent>[ \t]*)" + re.escape(BEGIN) + r"[^\n]*\n.*?^[ \t]*" + re.escape(END) + r"[^\n]*$",
    re.DOTALL | re.MULTILINE,
)


def blank_solutions(source: str) -> str:
    """Replace each solution region in a cell's source by the stub."""
    if source.count(BEGIN) != source.count(END):
        raise ValueError(f"unbalanced solution markers in cell:\n{source}")
    return SOLUTION.sub(
        lambda m: f"{m['indent']}# YOUR CODE HERE\n{m['indent']}raise NotImplementedError()", source
    )


def student_copy(notebook):
    """A copy of ``notebook`` with solutions blanked and every output cleared."""
    copied = copy.deepcopy(notebook)
    copied.metadata.pop("workbook", None)
    for cell in copied.cells:
        if cell.cell_type != "code":
            continue
        cell.source = blank_solutions(cell.source)
        cell.outputs = []
        cell.execution_count = None
    return copied


def student_path(path: Path) -> Path:
    return STUDENT_DIR / Path(path).name


def write_student_copy(path: Path) -> bool:
    """Write the student copy of one notebook; return True when it changed."""
    target = student_path(path)
    text = nbformat.writes(student_copy(nbformat.read(path, as_version=4))) + "\n"
    if target.exists() and target.read_text(encoding="utf-8") == text:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for path in args.notebooks:
        changed = write_student_copy(path)
        where = student_path(path).relative_to(ROOT)
        print(f"{where}: {'written' if changed else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
