"""The notebook cell is the source of a ``#@save`` function; ``helpers`` holds a generated copy.

A code cell whose first line is ``#@save <module>`` (d2l's idea) defines functions and classes
that later notebooks import from ``helpers/<module>.py``. ``make lib`` (``tools/make_lib.py``)
writes them into the module's generated block; here a module out of date with its notebook
cells fails with the one fix, "run make lib". How the block is written is tested in
``tests/tools/test_make_lib.py``.
"""

from __future__ import annotations

import importlib
import inspect

import pytest

from tools import make_lib, notebook_code

SAVED = make_lib.saved()
CASES = [
    (module, name, notebook, cell_id, source)
    for module, definitions in SAVED.items()
    for notebook, cell_id, name, source in definitions
]


def test_notebooks_03_06_08_11_save_what_the_helpers_import():
    saved = {(module, name) for module, name, *_ in CASES}
    assert saved == {
        ("cpu", "read_flags"),  # notebook 11's reading of the CPU's flags
        ("models", "cnn_model_fn"),
        ("models", "cnn_logits"),
        ("metrics", "course_metrics"),
        ("export", "estimator_predictions"),
        ("export", "serving_input_receiver_fn"),
    }


@pytest.mark.parametrize("module", sorted(SAVED))
def test_helpers_module_is_up_to_date_with_its_notebook_cells(module):
    stale = make_lib.out_of_date()
    assert f"helpers/{module}.py" not in stale, (
        f"helpers/{module}.py is out of date with its #@save cells: run make lib"
    )


@pytest.mark.parametrize(
    "module, name, notebook, cell_id, source", CASES, ids=[f"{case[0]}.{case[1]}" for case in CASES]
)
def test_the_helper_imported_is_the_cells_definition(module, name, notebook, cell_id, source):
    helper = getattr(importlib.import_module(f"helpers.{module}"), name)
    assert inspect.getsource(helper).strip() == source.strip(), (
        f"helpers.{module}.{name} is not the one generated from {notebook}, cell {cell_id}: "
        f"run make lib, and remove any hand-written {name} after the generated block"
    )


def test_a_saved_cell_keeps_its_lesson_in_the_notebook():
    """Notebook 08's cells also call what they define: only the definitions are saved."""
    sources = [source for module, _, _, _, source in CASES if module == "export"]
    assert not any("estimator_seconds" in source or "EXPORT_BASE" in source for source in sources)
    assert all(
        cell.source.startswith("#@save export")
        for _, cell in notebook_code.saved_cells("08_predict_export_tflite.ipynb")
    )
