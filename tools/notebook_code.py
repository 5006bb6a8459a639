"""The one reader of the notebooks' code: every test and tool that reads code cells reads them here.

- :func:`code_cells`: a notebook's code cells (position, id, source, tags), optionally one tag's;
- :func:`code_sources`: their sources, for hashing and searching;
- :func:`definitions`: the imports, functions, classes and constants of the cells, executed
  without the rest (nothing trains), for the tests of code a notebook teaches;
- :func:`saved_cells` and :func:`saved_definitions`: the ``#@save <module>`` cells and the
  functions and classes in them (``make lib`` writes them into ``helpers/<module>.py``);
- :func:`helpers_imports`: which ``helpers`` modules code cells import;
- :func:`cell_names` and :func:`undefined_names`: the names a cell defines and reads, and the
  names a run of some cells only (``make keras-latest``'s, grading mode's) would miss.

Import it as ``tools.notebook_code`` with the checkout's folder on ``sys.path``: pytest puts it
there (``tests/`` is a package in it), and so does running a tool as ``python -m tools.<name>``
from that folder. Only the standard library (json, ast): ``make
keras-latest`` reads notebook 10 with it in ``.venv-latest``, which has no nbformat, and the
tests' small made-up notebooks need no nbformat version.
"""

from __future__ import annotations

import ast
import builtins
import json
import linecache
import re
import symtable
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SAVE = re.compile(r"#@save\s+(\w+)\s*$")
PACKAGE = "helpers"

# Imports of helpers in a cell (which may hold IPython syntax, so is read as text): `from
# helpers.x import a, b`, `from helpers import (a, b)`, `import helpers.x`, and `helpers.x.y`.
FROM_IMPORT = re.compile(
    r"^\s*from\s+(helpers(?:\.\w+)*)\s+import\s+(\([^)]*\)|[^\n#]+)", re.MULTILINE
)
DOTTED = re.compile(r"(?<![\w.])helpers(?:\.\w+)+")
IMPORT_PACKAGE = re.compile(r"^\s*import\s+helpers\b", re.MULTILINE)


class Cell(NamedTuple):
    """A code cell: ``index`` counts every cell of the notebook from 0."""

    index: int
    id: str
    source: str
    tags: tuple


def notebook_path(notebook: str | Path) -> Path:
    """``notebooks/<name>`` for a bare file name, else the path as given."""
    path = Path(notebook)
    return NOTEBOOKS / path if path.parent == Path(".") else path


def _cells(notebook) -> list:
    """The cells of a notebook given as a path or a bare name, or already loaded (a dict)."""
    if isinstance(notebook, (str, Path)):
        notebook = json.loads(notebook_path(notebook).read_text(encoding="utf-8"))
    return notebook["cells"]


def code_cells(notebook, tag: str | None = None) -> list:
    """The notebook's code cells in order, as :class:`Cell`; with ``tag``, only those tagged so."""
    found = []
    for index, cell in enumerate(_cells(notebook)):
        source = cell["source"]
        source = "".join(source) if isinstance(source, list) else source
        tags = tuple(cell.get("metadata", {}).get("tags", ()))
        if cell["cell_type"] == "code" and (tag is None or tag in tags):
            found.append(Cell(index, cell.get("id", ""), source, tags))
    return found


def code_sources(notebook) -> list:
    """The sources of the notebook's code cells, in order."""
    return [cell.source for cell in code_cells(notebook)]


def python_source(source: str) -> str:
    """The cell with its IPython lines (``%…``, ``!…``) blanked: plain Python, same line numbers."""
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()
    )


def cell_names(source: str) -> tuple:
    """(names the cell defines at top level, names it reads from the global namespace as it runs,
    names its functions and classes read from it when called); IPython lines are blanked first.
    Raises SyntaxError for a cell that is not Python."""
    table = symtable.symtable(python_source(source), "<cell>", "exec")
    symbols = table.get_symbols()
    defined = {s.get_name() for s in symbols if s.is_assigned() or s.is_imported()}
    used = {s.get_name() for s in symbols if s.is_referenced()}
    later, pending = set(), list(table.get_children())
    while pending:
        scope = pending.pop()
        later.update(
            s.get_name() for s in scope.get_symbols() if s.is_referenced() and s.is_global()
        )
        pending.extend(scope.get_children())
    return defined, used, later


# What a Jupyter kernel defines before the first cell runs.
KERNEL_NAMES = frozenset(dir(builtins)) | {"display", "get_ipython", "In", "Out"}


def undefined_names(cells: list) -> list:
    """``(cell, sorted names)`` for each of these cells, run in order and alone, that reads a name
    that none of them defines before it (or, for a read inside a function, at all), nor the
    kernel."""
    names = [cell_names(cell.source) for cell in cells]
    everything = set(KERNEL_NAMES).union(*(defined for defined, _, _ in names))
    found, known = [], set(KERNEL_NAMES)
    for cell, (defined, used, later) in zip(cells, names):
        missing = sorted((used - known - defined) | (later - everything))
        if missing:
            found.append((cell, missing))
        known |= defined
    return found


def register(source: str, filename: str) -> str:
    """Register the cell's source under ``filename`` (as IPython does), so that ``inspect`` and
    AutoGraph, which reads the source of a function given to ``dataset.map``, find it."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return filename


def _kept(node: ast.stmt, names: tuple) -> bool:
    """Whether :func:`definitions` keeps this statement of a cell."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return not names or node.name in names
    return isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)


def definitions(notebook, names: tuple = (), tag: str | None = None) -> dict:
    """Run the imports, functions, classes and constants (``SIZE = 3``) of the notebook's code
    cells — of those tagged ``tag`` when given — in one namespace, and return it. Nothing else
    runs (nothing trains). With ``names``, only those functions and classes are defined (others
    may need values the cells compute)."""
    path = notebook_path(notebook)
    namespace: dict = {"__name__": path.stem}
    for cell in code_cells(path, tag):
        source = python_source(cell.source)
        tree = ast.parse(source)
        tree.body = [node for node in tree.body if _kept(node, names)]
        filename = register(source, f"<{path.name} cell {cell.index}>")
        exec(compile(tree, filename, "exec"), namespace)  # noqa: S102 - the course's own cells
    return namespace


def saved_cells(notebook) -> list:
    """``(module, cell)`` for each code cell whose first line is ``#@save <module>``."""
    marks = ((SAVE.match(cell.source.split("\n", 1)[0]), cell) for cell in code_cells(notebook))
    return [(mark.group(1), cell) for mark, cell in marks if mark]


def _segment(source: str, node: ast.stmt) -> str:
    """A definition's source, decorators included."""
    first = min([node.lineno] + [decorator.lineno for decorator in node.decorator_list])
    return "\n".join(source.splitlines()[first - 1 : node.end_lineno])


def saved_definitions(notebook) -> list:
    """``(module, name, source, cell)`` for each function and class of the ``#@save`` cells."""
    found = []
    for module, cell in saved_cells(notebook):
        for node in ast.parse(python_source(cell.source)).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.append((module, node.name, _segment(cell.source, node), cell))
    return found


def _names_in_import(names: str) -> list:
    """``a``, ``b`` from ``(a as x,\\n b)``."""
    parts = names.strip("()").replace("\n", " ").split(",")
    return [part.split(" as ")[0].strip() for part in parts if part.strip() not in ("", "*")]


def helpers_imports(sources: list) -> set:
    """Dotted names under ``helpers`` that these code cells import or name (``helpers.x``,
    ``helpers.x.name``). Read as text, so cells with IPython syntax are read too; it errs on the
    side of more names (``tools/helpers_deps.py`` keeps those that are modules)."""
    names = set()
    for source in sources:
        for package, imported in FROM_IMPORT.findall(source):
            names.add(package)
            names.update(f"{package}.{name}" for name in _names_in_import(imported))
        names.update(DOTTED.findall(source))
        if IMPORT_PACKAGE.search(source):
            names.add(PACKAGE)
    return names
