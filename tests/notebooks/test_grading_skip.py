"""Grading mode: nbgrader does not run the cells tagged ``grading-skip`` (demonstrations no check
needs; TEACHING.md, "Grading mode"), so what the other cells need must not come from them.

Read statically (no kernel): each notebook's code cells that run when grading, in order, define
every name they read; a skipped cell defines no function or class (an answer may use them); no
answer or check cell is tagged; and the whole notebook passes the same reading, so that the
reading itself raises no false alarm.
"""

from __future__ import annotations

import ast

import pytest

from tests import ROOT
from tools import notebook_code
from tools.nbgrader_course import GRADING_SKIP_TAG, SKIP_TAG

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _graded_run(cells: list) -> list:
    return [cell for cell in cells if not {GRADING_SKIP_TAG, SKIP_TAG} & set(cell.tags)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_the_cells_grading_runs_define_what_they_read(path):
    cells = notebook_code.code_cells(path)
    assert notebook_code.undefined_names(cells) == []
    missing = notebook_code.undefined_names(_graded_run(cells))
    assert missing == [], "; ".join(
        f"cell {cell.index} reads {', '.join(names)}, defined only in a cell tagged "
        f"{GRADING_SKIP_TAG}: move the definition out of it"
        for cell, names in missing
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_no_cell_grading_runs_reads_a_name_a_skipped_cell_sets(path):
    """Also where an earlier cell set the name too: skipping would change what the name holds."""
    cells = notebook_code.code_cells(path)
    for position, cell in enumerate(cells):
        if GRADING_SKIP_TAG not in cell.tags:
            continue
        defined, _, _ = notebook_code.cell_names(cell.source)
        for later in _graded_run(cells[position + 1 :]):
            own, used, inside = notebook_code.cell_names(later.source)
            read = sorted(defined & ((used | inside) - own))  # a name it sets itself is its own
            assert not read, (
                f"cell {later.index} reads {read}, which skipped cell {cell.index} sets"
            )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_a_skipped_cell_defines_no_function_or_class(path):
    """An answer may use any function or class the notebook defined before it: they run."""
    for cell in notebook_code.code_cells(path, GRADING_SKIP_TAG):
        tree = ast.parse(notebook_code.python_source(cell.source))
        defined = [node.name for node in tree.body if isinstance(node, DEFINITIONS)]
        assert not defined, f"cell {cell.index} is tagged {GRADING_SKIP_TAG} but defines {defined}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_no_answer_or_check_cell_is_skipped_when_grading(path):
    notebook = notebook_code._cells(path)
    for index, cell in enumerate(notebook):
        if cell.get("metadata", {}).get("nbgrader"):
            assert GRADING_SKIP_TAG not in cell["metadata"].get("tags", []), index


def test_undefined_names_finds_a_name_only_a_skipped_cell_defines():
    cells = [
        notebook_code.Cell(0, "a", "import math\n%xmode Minimal\nx = math.pi", ()),
        notebook_code.Cell(1, "b", "y = x * 2\ndisplay(y)", ()),
    ]
    assert notebook_code.undefined_names(cells) == []
    assert notebook_code.undefined_names(cells[1:]) == [(cells[1], ["x"])]
