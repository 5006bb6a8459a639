"""tools/notebook_code.py: the one reader of the notebooks' code, on small made-up notebooks."""

from __future__ import annotations

import inspect
import json

import pytest

from tools import notebook_code

CELLS = [
    ("markdown", "# Title", []),
    (
        "code",
        "%matplotlib inline\nimport math\nSIZE = 3\n"
        "started = math.nan\nraise SystemExit('trained')",
        ["keras-latest"],
    ),
    (
        "code",
        "def area():\n    return SIZE * SIZE\n\n\nclass Shape:\n    pass\n\n\nprint(area())",
        [],
    ),
    ("code", "#@save shapes\ndef side():\n    return SIZE\n\n\nside()", ["keras-latest"]),
]


@pytest.fixture
def path(tmp_path):
    """A notebook of the cells above (sources as nbformat writes them: a list of lines)."""
    cells = [
        {
            "cell_type": kind,
            "id": f"id{index}",
            "source": source.splitlines(True),
            "metadata": {"tags": tags},
            **({"outputs": []} if kind == "code" else {}),
        }
        for index, (kind, source, tags) in enumerate(CELLS)
    ]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": cells}), encoding="utf-8")
    return path


def test_code_cells_keep_their_position_id_and_tags(path):
    cells = notebook_code.code_cells(path)
    assert [(cell.index, cell.id, cell.tags) for cell in cells] == [
        (1, "id1", ("keras-latest",)),
        (2, "id2", ()),
        (3, "id3", ("keras-latest",)),
    ]
    assert [cell.index for cell in notebook_code.code_cells(path, tag="keras-latest")] == [1, 3]
    assert notebook_code.code_sources(path)[1] == CELLS[2][1]
    assert notebook_code.code_sources(json.loads(path.read_text())) == notebook_code.code_sources(
        path
    )


def test_definitions_run_imports_definitions_and_constants_only(path):
    names = notebook_code.definitions(path)
    assert names["area"]() == 9 and names["side"]() == 3 and "Shape" in names
    assert "started" not in names  # a computed value: not run (nor the SystemExit after it)
    assert "def area():" in inspect.getsource(names["area"])  # registered as IPython does
    assert set(notebook_code.definitions(path, names=("side",))) >= {"side", "math", "SIZE"}
    assert "area" not in notebook_code.definitions(path, names=("side",))
    assert "area" not in notebook_code.definitions(path, tag="keras-latest")


def test_saved_definitions_are_the_functions_and_classes_of_save_cells(path):
    [(module, name, source, cell)] = notebook_code.saved_definitions(path)
    assert (module, name, cell.id) == ("shapes", "side", "id3")
    assert source == "def side():\n    return SIZE"


def test_a_bare_name_is_a_course_notebook():
    assert notebook_code.notebook_path("03_x.ipynb") == notebook_code.NOTEBOOKS / "03_x.ipynb"
    assert [
        module for module, _ in notebook_code.saved_cells("03_model_fn_and_estimatorspec.ipynb")
    ] == ["models", "models"]


def test_helpers_imports_reads_every_form_of_import():
    cells = [
        "%load_ext tensorboard\nfrom helpers import (\n    settings,\n    logs as quiet,\n)",
        "from helpers.checks import notebook00  # the checks",
        "import helpers.cluster as c",
        "x = helpers.plots.timeline",
        "import numpy",
    ]
    assert notebook_code.helpers_imports(cells) == {
        "helpers",
        "helpers.settings",
        "helpers.logs",
        "helpers.checks",
        "helpers.checks.notebook00",
        "helpers.cluster",
        "helpers.plots.timeline",
    }  # helpers_deps keeps the part that is a module
    assert notebook_code.helpers_imports(["import helpers"]) == {"helpers"}
