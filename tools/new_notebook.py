"""Start notebook NN from the template (CONTRIBUTING.md, "Adding a notebook", step 1).

    python -m tools.new_notebook 12 serving        # make new-notebook N=12 NAME=serving

Writes notebooks/12_serving.ipynb (tools/NN_template.ipynb with fresh cell ids, the title
``# 12 —``, nbgrader ids ``nb12-``, its own checks module; no outputs and no run stamp, so `make
sync` executes it), helpers/checks/notebook12.py (a check of the template's exercise) and
tests/helpers/checks/test_notebook12.py (its test and bank of wrong answers); adds a placeholder
row to the notebooks' tables of README.md and TEACHING.md and recounts TEACHING.md's notebooks.
Writes nothing, and exits 2, when N or NAME is malformed or a file it would write exists.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from string import Template

import nbformat
from nbformat.v4.nbbase import random_cell_id

from tools.notebook_code import ROOT

# what it writes besides the notebook, templates beside it as the notebook's ($N, $STEM, $TITLE)
CHECKS = (Path(__file__).parent / "NN_checks.py.template").read_text(encoding="utf-8")
TEST = (Path(__file__).parent / "NN_test.py.template").read_text(encoding="utf-8")
COUNTS = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
ROWS = {  # doc: (a placeholder row of its notebooks' table, what that table's rows match)
    "README.md": ("| $N | [$TITLE](notebooks/$STEM.ipynb) | … | — / — | … |", r"\| \[.*\]\("),
    "TEACHING.md": ("| $N | … | 00 |", r"\| .+ \| (?:[\d, ]+|none) \|$"),
}
NEXT = """Wrote $FILES; added a row to README.md and TEACHING.md.
Next, CONTRIBUTING.md, "Adding a notebook": 2 the lesson (make lab) and its rows; 3 the check, its
bank of wrong answers, each marked bank(exercise, kind), and NOT_APPLICABLE for the kinds that do
not apply (tests/support/banks.py); 4 make sync; 5 make benchmark, make classroom-benchmark (--only
notebooks/$STEM.ipynb), the README's headline result; 6 make po and translate; 7 make sync; 8 make
check NB=$N, make lint, make test."""


def notebook(root: Path, n: str) -> str:
    """The template as notebook ``n``: fresh cell ids, its own ids and checks, not yet run."""
    book = nbformat.read(root / "tools" / "NN_template.ipynb", as_version=4)
    book.metadata.pop("workbook", None)
    for cell in book.cells:
        old, cell.id = cell.id, random_cell_id()
        if "nbgrader" in cell.metadata:
            grading = cell.metadata.nbgrader
            grading.grade_id = grading.grade_id.replace("nbNN-", f"nb{n}-").replace(old, cell.id)
        cell.source = cell.source.replace("# NN —", f"# {n} —", 1)
        cell.source = cell.source.replace("import notebook00 as", f"import notebook{n} as")
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nbformat.writes(book) + "\n"


def with_row(text: str, row: str, among: str, n: str) -> str:
    """``text`` with ``row`` after the last row ``among`` numbered below ``n``."""
    lines = text.splitlines(keepends=True)
    rows = [i for i, line in enumerate(lines) if re.match(rf"\| \d\d {among}", line)]
    at = max((i for i in rows if lines[i][2:4] < n), default=rows[0] - 1) + 1
    return "".join(lines[:at] + [row + "\n"] + lines[at:])


def refuse(problem: str) -> int:
    print(f"make new-notebook: {problem}", file=sys.stderr)
    return 2


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", help="two digits: 12")
    parser.add_argument("name", help="lower-case snake_case: serving")
    parser.add_argument("--root", type=Path, default=ROOT, help="the course folder")
    args = parser.parse_args(argv)
    n, name, root = args.n, args.name, args.root
    if not re.fullmatch(r"[0-9]{2}", n) or not re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", name):
        return refuse(f"N={n!r} NAME={name!r}: N is 2 digits, NAME snake_case (N=12 NAME=serving)")
    stem, title = f"{n}_{name}", name.replace("_", " ").capitalize()
    values = {"N": n, "STEM": stem, "TITLE": title}
    files = {
        f"notebooks/{stem}.ipynb": notebook(root, n),
        f"helpers/checks/notebook{n}.py": Template(CHECKS).substitute(values),
        f"tests/helpers/checks/test_notebook{n}.py": Template(TEST).substitute(values),
    }
    taken = [*(root / "notebooks").glob(f"{n}_*.ipynb"), *(root / p for p in files)]
    there = [path.relative_to(root) for path in taken if path.exists()]
    if there:
        return refuse(f"{there[0]} exists: choose another N, or remove it")
    count = COUNTS.split()[len(list((root / "notebooks").glob("[0-9][0-9]_*.ipynb")))]
    for doc, (row, among) in ROWS.items():
        text = (root / doc).read_text(encoding="utf-8")
        text = with_row(text, Template(row).substitute(values), among, n)
        text = re.sub(r"^\w+(?= notebooks, in order)", count.capitalize(), text, flags=re.M)
        (root / doc).write_text(text, encoding="utf-8")
    for path, text in files.items():
        (root / path).write_text(text, encoding="utf-8")
    print(Template(NEXT).substitute(values, FILES=", ".join(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
