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
that may be a module is taken as one. What the notebook's cells import is read
by ``tools/notebook_code.py`` (``helpers_imports``), the one reader of notebook
code; here, what the helpers modules import in turn.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
from pathlib import Path

from tools.notebook_code import ROOT, helpers_imports

PACKAGE = "helpers"

MODULE_NAME = re.compile(r"helpers(?:\.\w+)+")


def module_file(name: str, root: Path = ROOT) -> Path | None:
    """``helpers/x.py`` or ``helpers/x/__init__.py`` for ``helpers.x``; None when neither is."""
    base = root.joinpath(*name.split("."))
    return next((f for f in (base.with_suffix(".py"), base / "__init__.py") if f.is_file()), None)


def module_imports(path: Path, root: Path = ROOT) -> set:
    """Dotted names under ``helpers`` that this helpers module imports (or starts with ``-m``)."""
    package = ".".join(path.parent.relative_to(root).parts)  # what a relative import is from
    return set(_imports(path.read_text(encoding="utf-8"), package))


@functools.lru_cache(maxsize=512)
def _imports(source: str, package: str) -> frozenset:
    """What :func:`module_imports` finds in ``source``, once per text: every notebook's stamp
    follows the same modules (``make sync`` with nothing changed is a second, not ten)."""
    tree = ast.parse(source)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")
                parent = parent[: len(parent) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and MODULE_NAME.fullmatch(node.value)
        ):
            names.add(node.value)
    return frozenset(n for n in names if n == PACKAGE or n.startswith(PACKAGE + "."))


def files_for(names: set, root: Path = ROOT) -> set:
    """The files importing these names runs: each module and the ``__init__.py`` of its packages."""
    files = set()
    for name in names:
        parts = name.split(".")
        # helpers, helpers.checks, helpers.checks.notebook03, ...
        for end in range(1, len(parts) + 1):
            found = module_file(".".join(parts[:end]), root)
            if found is None:
                break  # the rest is an attribute, not a module
            files.add(found)
    return files


def dependencies(sources: list, root: Path = ROOT) -> list:
    """Every helpers file these notebook cell sources run, directly or through others, sorted."""
    todo = files_for(helpers_imports(sources), root)
    seen = set()
    while todo:
        path = todo.pop()
        seen.add(path)
        todo |= files_for(module_imports(path, root), root) - seen
    return sorted(seen)


def file_digests(sources: list, root: Path = ROOT) -> dict:
    """``{"helpers/x.py": sha256 of its bytes}`` for every file of :func:`dependencies`."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in dependencies(sources, root)
    }


def combined_hash(digests: dict) -> str:
    """One SHA-256 over the files' names and digests."""
    digest = hashlib.sha256()
    for name in sorted(digests):
        digest.update(f"{name}\0{digests[name]}\0".encode())
    return digest.hexdigest()
