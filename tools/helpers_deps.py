"""Which files of ``helpers/`` a notebook runs, and one hash of them.

A notebook's outputs depend on the helpers modules its cells import, and on
everything those import in turn (``from . import x``, ``from helpers.y import
z``, a child process started with ``-m helpers.cluster``), including the
``__init__.py`` of each package on the way. ``tools/run_notebooks.py`` stores
the hash of exactly those files in the notebook's metadata, and
``tests/notebooks/test_helpers_hash.py`` compares it with today's files: a change to
``helpers/checks/notebook02.py`` makes only notebook 02 stale, a change to
``helpers/settings.py`` every notebook that imports it.

The search is static (the sources are read, nothing is imported), so it sees
imports inside functions too, and it errs on the side of more files: a name
that may be a module is taken as one.
"""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "helpers"

# In a notebook cell (which may hold IPython syntax, so is not parsed as Python):
# `from helpers.x import a, b`, `from helpers import (a, b)`, `import helpers.x`, `helpers.x.y`.
FROM_IMPORT = re.compile(r"^\s*from\s+(helpers(?:\.\w+)*)\s+import\s+(\([^)]*\)|[^\n#]+)", re.MULTILINE)
DOTTED = re.compile(r"(?<![\w.])helpers(?:\.\w+)+")
MODULE_NAME = re.compile(r"helpers(?:\.\w+)+")


def module_file(name: str, root: Path = ROOT) -> Path | None:
    """``helpers/x.py`` or ``helpers/x/__init__.py`` for ``helpers.x``; None when there is neither."""
    base = root.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _names_in_import(names: str) -> list:
    """``a``, ``b`` from ``(a as x,\\n b)``."""
    return [part.split(" as ")[0].strip() for part in names.strip("()").replace("\n", " ").split(",")
            if part.strip() and part.strip() != "*"]


def notebook_imports(sources: list) -> set:
    """Dotted names under ``helpers`` that these cell sources import or name."""
    names = set()
    for source in sources:
        for package, imported in FROM_IMPORT.findall(source):
            names.add(package)
            names.update(f"{package}.{name}" for name in _names_in_import(imported))
        names.update(DOTTED.findall(source))
        if re.search(r"^\s*import\s+helpers\b", source, re.MULTILINE):
            names.add(PACKAGE)
    return names


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_imports(path: Path, root: Path = ROOT) -> set:
    """Dotted names under ``helpers`` that this helpers module imports (or starts with ``-m``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _module_name(path, root)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")
                parent = parent[:len(parent) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_NAME.fullmatch(node.value):
            names.add(node.value)
    return {name for name in names if name == PACKAGE or name.startswith(PACKAGE + ".")}


def files_for(names: set, root: Path = ROOT) -> set:
    """The files that importing these names runs: each module and the ``__init__.py`` of its packages."""
    files = set()
    for name in names:
        parts = name.split(".")
        for end in range(1, len(parts) + 1):  # helpers, helpers.checks, helpers.checks.notebook03, ...
            found = module_file(".".join(parts[:end]), root)
            if found is None:
                break  # the rest is an attribute, not a module
            files.add(found)
    return files


def dependencies(sources: list, root: Path = ROOT) -> list:
    """Every helpers file these notebook cell sources run, directly or through other helpers, sorted."""
    todo = files_for(notebook_imports(sources), root)
    seen = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo |= files_for(module_imports(path, root), root) - seen
    return sorted(seen)


def file_digests(sources: list, root: Path = ROOT) -> dict:
    """``{"helpers/x.py": sha256 of its bytes}`` for every file of :func:`dependencies`."""
    return {path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in dependencies(sources, root)}


def combined_hash(digests: dict) -> str:
    """One SHA-256 over the files' names and digests."""
    digest = hashlib.sha256()
    for name in sorted(digests):
        digest.update(f"{name}\0{digests[name]}\0".encode())
    return digest.hexdigest()
