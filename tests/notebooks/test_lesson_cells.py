"""One source of truth for code a notebook teaches and ``helpers`` also holds.

A code cell whose first line is ``#@save <module>`` (d2l's idea) defines functions
that ``helpers/<module>.py`` holds too, so that later notebooks can import them.
Each function defined in such a cell must have the same source in the helper,
up to whitespace.
"""

from __future__ import annotations

from tests import ROOT
import ast
import importlib
import inspect
import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = ROOT / "notebooks"
MARKER = re.compile(r"#@save\s+(\w+)\s*$")


def saved_functions(notebook: Path) -> list[tuple[str, str, str]]:
    """(module, function name, source) for each function in the notebook's ``#@save`` cells."""
    found = []
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        first = source.split("\n", 1)[0]
        if cell["cell_type"] != "code" or not (match := MARKER.match(first)):
            continue
        for node in ast.parse(source).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                found.append((match.group(1), node.name, ast.get_source_segment(source, node)))
    return found


def same_code(first: str, second: str) -> bool:
    """Equal apart from whitespace (indentation, blank lines, trailing spaces)."""
    return "".join(first.split()) == "".join(second.split())


CASES = [
    (notebook.name, *case)
    for notebook in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    for case in saved_functions(notebook)
]


def test_notebook_03_saves_the_course_model_fn():
    assert {(module, name) for notebook, module, name, _ in CASES if notebook.startswith("03_")} == {
        ("models", "cnn_model_fn"),
        ("models", "cnn_logits"),
    }


@pytest.mark.parametrize(
    "notebook, module, name, cell_source", CASES, ids=[f"{case[0][:2]}-{case[1]}.{case[2]}" for case in CASES]
)
def test_helper_copy_matches_the_notebook_cell(notebook, module, name, cell_source):
    helper = getattr(importlib.import_module(f"helpers.{module}"), name)
    assert same_code(inspect.getsource(helper), cell_source), (
        f"helpers/{module}.py's {name} differs from its #@save cell in {notebook}: "
        "change both, or copy the cell into the helper"
    )


def test_a_changed_line_is_a_difference():
    cell = "def f(x):\n    return x + 1\n"
    assert same_code(cell, "def f(x):\n\n        return x + 1   \n")
    assert not same_code(cell, "def f(x):\n    return x + 2\n")
    assert not same_code(cell, "def f(x):\n    return x + 1\n    # note\n")
