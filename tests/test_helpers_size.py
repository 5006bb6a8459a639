"""``helpers/`` stays a small package that the notebooks use (issue: "a small helpers package").

* At most ``LINE_BUDGET`` lines in ``helpers/*.py`` and ``helpers/checks/*.py``,
  counted as ``wc -l`` counts them: a lesson belongs in its notebook's cells,
  code for authors in ``tools/``, test fixtures in ``tests/``.
* Every module of ``helpers/`` is imported by at least one notebook's code
  cells: a module no notebook imports belongs in ``tools/`` or ``tests/``.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
LINE_BUDGET = 4_000
MODULES = sorted(path.stem for path in (ROOT / "helpers").glob("*.py") if path.stem != "__init__")


def test_helpers_stay_within_their_line_budget():
    files = sorted((ROOT / "helpers").glob("*.py")) + sorted((ROOT / "helpers" / "checks").glob("*.py"))
    counts = {path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8").count("\n") for path in files}
    largest = ", ".join(f"{name} {count}" for name, count in sorted(counts.items(), key=lambda kv: -kv[1])[:3])
    assert sum(counts.values()) <= LINE_BUDGET, (
        f"helpers/ has {sum(counts.values())} lines, over its budget of {LINE_BUDGET} (largest: {largest}): move a "
        "lesson into its notebook, author code into tools/, fixtures into tests/, or simplify")


def test_every_helpers_module_is_imported_by_a_notebook():
    sources = "\n".join(cell.source for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
                        for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code")
    unused = [name for name in MODULES if not re.search(
        rf"^\s*(from helpers import [^\n]*\b{name}\b|from helpers\.{name} import|import helpers\.{name}\b)",
        sources, re.M)]
    assert not unused, f"no notebook imports helpers.{', helpers.'.join(unused)}: move it to tools/ or tests/"
