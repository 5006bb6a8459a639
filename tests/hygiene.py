"""What a committed notebook must be, as a function that lists what is wrong.

`test_notebook_hygiene.py` runs it on every notebook (and on deliberately bad
ones, to prove it can fail). One string per problem, each naming the fix.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from nbgrader_cells import planned_metadata  # noqa: E402
from run_notebooks import code_hash  # noqa: E402

MAX_BYTES = 1_000_000
REQUIRED_HEADINGS = ("## Setup", "## Recap", "## Exercises")
DEPRECATION = re.compile(r"is deprecated and will be removed|is deprecated\. Please use|Instructions for updating")
MACHINE_PATH = re.compile(
    r"(?<![\w.])(/root/|/home/|/Users/|/tmp/|/work/|/var/folders/|/private/var/|[A-Za-z]:\\\\?Users\\)"
)
TRACEBACK = re.compile(r"Traceback \(most recent call last\)")
GRADE_ID = re.compile(r"^[A-Za-z0-9_-]+$")  # what nbgrader accepts in a grade_id


def _output_text(output) -> str:
    parts = [output.get("text", ""), output.get("evalue", "")]
    parts.extend(output.get("traceback", []))
    for mime, value in output.get("data", {}).items():
        if mime.startswith("text/") or mime == "application/json":
            parts.append(value if isinstance(value, str) else "".join(value) if isinstance(value, list) else str(value))
    return "\n".join(part if isinstance(part, str) else "".join(part) for part in parts)


def nbgrader_problems(notebook, prefix: str) -> list:
    """What keeps nbgrader from releasing and autograding this notebook's exercises, one line each."""
    problems = []
    cells = [cell for cell in notebook.cells if "nbgrader" in cell.metadata]
    ids = [cell.metadata["nbgrader"].get("grade_id", "") for cell in cells]
    for grade_id in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(f"nbgrader grade_id '{grade_id}' is used twice: nbgrader refuses the notebook")
    for grade_id in ids:
        if not GRADE_ID.match(grade_id):
            problems.append(f"nbgrader grade_id '{grade_id}': use letters, digits, '-' and '_' only")
    for index, cell in enumerate(notebook.cells):
        meta = cell.metadata.get("nbgrader", {})
        marked = "### BEGIN SOLUTION" in cell.source
        if marked and not meta.get("solution"):
            problems.append(f"cell {index + 1} has solution markers but is not an nbgrader solution cell")
        if meta.get("solution") and not marked:
            problems.append(f"cell {index + 1} is an nbgrader solution cell without ### BEGIN SOLUTION: "
                            "nbgrader would blank all of it")
        if meta.get("grade") and not (meta.get("points", 0) > 0 and meta.get("locked")):
            problems.append(f"cell {index + 1} is graded but not locked with points > 0")
    if not any(c.metadata.get("nbgrader", {}).get("grade") for c in notebook.cells):
        problems.append("no autograded check cell: mark the exercises with tools/nbgrader_cells.py")
    try:
        planned = planned_metadata(notebook, prefix)
    except ValueError as error:
        return problems + [str(error)]
    for cell, wanted in planned:
        have = dict(cell.metadata.get("nbgrader", {}))
        wanted["grade_id"] = have.get("grade_id", wanted["grade_id"])
        if have != wanted:
            problems.append(f"exercise cell '{wanted['grade_id']}' lacks its nbgrader metadata: "
                            "run tools/nbgrader_cells.py on the notebook")
            break
    return problems


def notebook_problems(notebook, size_bytes: int) -> list:
    """Everything that keeps this notebook from being committed, one line each."""
    problems = []
    if size_bytes >= MAX_BYTES:
        problems.append(f"{size_bytes / 1e6:.2f} MB: keep it under 1 MB (fewer or smaller plots, shorter logs)")
    if "widgets" in notebook.metadata:
        problems.append("metadata.widgets present: GitHub refuses to render it (use plain-text tqdm)")

    markdown = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    first = notebook.cells[0] if notebook.cells else None
    if first is None or first.cell_type != "markdown" or not first.source.startswith("# "):
        problems.append("the first cell must be the H1 title and aim")
    elif "Run time" not in first.source:
        problems.append("the first cell must state the run time (full and fast)")
    for heading in REQUIRED_HEADINGS:
        if not re.search(rf"^{re.escape(heading)}\s*$", markdown, re.MULTILINE):
            problems.append(f"missing the template heading '{heading}'")

    code_cells = [c for c in notebook.cells if c.cell_type == "code" and c.source.strip()]
    if code_cells and "course_setup.start()" not in code_cells[0].source:
        problems.append("the first code cell must call course_setup.start()")
    if not any("### BEGIN SOLUTION" in c.source for c in code_cells):
        problems.append("no exercise solution (### BEGIN SOLUTION) found")

    counts = []
    for index, cell in enumerate(code_cells):
        tags = cell.metadata.get("tags", [])
        if "widgets" in cell.metadata:
            problems.append(f"code cell {index + 1}: widget metadata")
        if cell.execution_count is None:
            if "nbval-skip" not in tags:
                problems.append(f"code cell {index + 1} was never executed: re-execute with `make notebooks`")
            continue
        counts.append(cell.execution_count)
        for output in cell.get("outputs", []):
            if "application/vnd.jupyter.widget-view+json" in output.get("data", {}):
                problems.append(f"code cell {index + 1}: a widget output (use plain-text tqdm)")
            text = _output_text(output)
            if DEPRECATION.search(text):
                problems.append(f"code cell {index + 1}: deprecation noise in the output")
            match = MACHINE_PATH.search(text)
            if match:
                problems.append(f"code cell {index + 1}: a machine path ({match.group(0)}…) in the output")
            is_error = output.get("output_type") == "error" or TRACEBACK.search(text)
            if is_error and "raises-exception" not in tags:
                problems.append(f"code cell {index + 1}: an error in a cell not tagged raises-exception")
    if counts != list(range(1, len(counts) + 1)):
        problems.append("execution counts are not 1, 2, 3, ... in order: re-execute top to bottom")

    stamp = notebook.metadata.get("workbook", {})
    if stamp.get("code_sha256") != code_hash(notebook):
        problems.append("the outputs are not from this code: re-execute with `make notebooks`")
    elif stamp.get("mode") != "full":
        problems.append("executed in fast mode: commit the full-mode outputs (`make notebooks`)")
    return problems
