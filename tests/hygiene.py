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

from run_notebooks import code_hash  # noqa: E402

MAX_BYTES = 1_000_000
REQUIRED_HEADINGS = ("## Setup", "## Recap", "## Exercises")
DEPRECATION = re.compile(r"is deprecated and will be removed|is deprecated\. Please use|Instructions for updating")
MACHINE_PATH = re.compile(
    r"(?<![\w.])(/root/|/home/|/Users/|/tmp/|/work/|/var/folders/|/private/var/|[A-Za-z]:\\\\?Users\\)"
)
TRACEBACK = re.compile(r"Traceback \(most recent call last\)")


def _output_text(output) -> str:
    parts = [output.get("text", ""), output.get("evalue", "")]
    parts.extend(output.get("traceback", []))
    for mime, value in output.get("data", {}).items():
        if mime.startswith("text/") or mime == "application/json":
            parts.append(value if isinstance(value, str) else "".join(value) if isinstance(value, list) else str(value))
    return "\n".join(part if isinstance(part, str) else "".join(part) for part in parts)


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
    if code_cells and "setup.start()" not in code_cells[0].source:
        problems.append("the first code cell must call setup.start()")
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
