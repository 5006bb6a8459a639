"""The functions and classes a notebook defines in its cells, for the tests of code a notebook teaches."""

from __future__ import annotations

from tests import ROOT
import ast
import json
from pathlib import Path

NOTEBOOKS = ROOT / "notebooks"
KEPT = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)


def definitions(notebook: str, names: tuple = ()) -> dict:
    """Run the imports, functions and classes of every code cell of ``notebooks/<notebook>`` (nothing
    else: nothing trains) in one namespace, and return it; IPython lines (``%…``, ``!…``) are skipped.
    With ``names``, only those functions and classes are defined (others may need values the cells compute)."""
    namespace: dict = {"__name__": Path(notebook).stem}
    cells = json.loads((NOTEBOOKS / notebook).read_text(encoding="utf-8"))["cells"]
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
        tree = ast.parse("\n".join(lines))
        tree.body = [node for node in tree.body if isinstance(node, KEPT) and (
            not names or isinstance(node, (ast.Import, ast.ImportFrom)) or node.name in names)]
        exec(compile(tree, f"<{notebook} cell {index}>", "exec"), namespace)  # noqa: S102 - the course's own cells
    return namespace
