"""tools/make_lib.py (``make lib``): the ``#@save`` cells written into their helpers module.

Tried on a made-up checkout (a notebook and a helpers module in a temporary folder); that the
course's own modules are up to date is ``tests/notebooks/test_lesson_cells.py``.
"""

from __future__ import annotations

import json

import pytest

from tools import make_lib

SAVED_CELL = (
    "#@save shapes\n"
    "import functools\n\n\n"
    "@functools.lru_cache\n"
    "def area(side):\n"
    "    return side * side\n\n\n"
    "class Square:\n"
    "    side = 2\n\n\n"
    "print(area(3))  # the lesson's own call stays in the notebook\n"
)
MODULE = (
    '"""Shapes (notebook 01)."""\n\nimport functools\n\n\n'
    "def perimeter(side):\n    return 4 * side\n"
)


def write_notebook(root, *sources):
    cells = [
        {
            "cell_type": "code",
            "id": f"cell{index}",
            "source": source,
            "metadata": {},
            "outputs": [],
            "execution_count": None,
        }
        for index, source in enumerate(sources)
    ]
    path = root / "notebooks" / "01_shapes.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    )
    return path


@pytest.fixture
def checkout(tmp_path):
    write_notebook(tmp_path, "x = 1", SAVED_CELL)
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "shapes.py").write_text(MODULE)
    return tmp_path


def test_the_block_is_appended_with_where_it_comes_from(checkout):
    assert make_lib.main([], root=checkout) == 0
    text = (checkout / "helpers" / "shapes.py").read_text()
    assert text.startswith(MODULE)  # the hand-written part is kept as it was
    block = text[len(MODULE) :]
    assert make_lib.BEGIN in block and block.rstrip().endswith(make_lib.END)
    assert "edit the notebook cell, not this block" in block
    assert (
        "# From notebooks/01_shapes.ipynb, cell cell1 (#@save).\n@functools.lru_cache\ndef area"
        in block
    )
    assert "class Square:\n    side = 2\n" in block
    assert "print(area(3))" not in block and "import functools" not in block
    namespace: dict = {}
    exec(compile(text, "shapes.py", "exec"), namespace)  # the module runs, with its own imports
    assert namespace["area"](3) == 9 and namespace["perimeter"](1) == 4


def test_an_edited_cell_makes_the_module_out_of_date_until_make_lib(checkout, capsys):
    make_lib.main([], root=checkout)
    assert make_lib.out_of_date(checkout) == {}
    write_notebook(checkout, "x = 1", SAVED_CELL.replace("side * side", "side ** 2"))
    assert list(make_lib.out_of_date(checkout)) == ["helpers/shapes.py"]
    capsys.readouterr()
    assert make_lib.main(["--check"], root=checkout) == 1
    assert (
        capsys.readouterr().out
        == "helpers/shapes.py is out of date with its #@save cells: run make lib\n"
    )
    assert (
        "side * side" in (checkout / "helpers" / "shapes.py").read_text()
    )  # --check writes nothing
    assert make_lib.main([], root=checkout) == 0
    assert make_lib.out_of_date(checkout) == {}
    assert "return side ** 2" in (checkout / "helpers" / "shapes.py").read_text()


def test_the_block_is_replaced_in_place_and_the_rest_kept(checkout):
    hand_written_after = "\n\ndef volume(side):\n    return side ** 3\n"
    make_lib.main([], root=checkout)
    path = checkout / "helpers" / "shapes.py"
    path.write_text(path.read_text() + hand_written_after)
    write_notebook(checkout, SAVED_CELL.replace("side = 2", "side = 5"))
    make_lib.main([], root=checkout)
    text = path.read_text()
    assert text.startswith(MODULE) and text.endswith(hand_written_after)
    assert "side = 5" in text and "side = 2" not in text and text.count(make_lib.BEGIN) == 1
    assert "cell cell0" in text  # the cell id where the definition is now


def test_a_module_whose_cells_are_gone_keeps_an_empty_block(checkout):
    make_lib.main([], root=checkout)
    write_notebook(checkout, SAVED_CELL.replace("#@save shapes\n", ""))
    make_lib.main([], root=checkout)
    text = (checkout / "helpers" / "shapes.py").read_text()
    assert "def area" not in text and make_lib.BEGIN in text
    assert make_lib.out_of_date(checkout) == {}


def test_a_cell_saving_into_a_missing_module_says_what_to_do(checkout):
    write_notebook(checkout, SAVED_CELL.replace("#@save shapes", "#@save solids"))
    with pytest.raises(
        SystemExit, match="saves into helpers/solids.py, which does not exist: create it"
    ):
        make_lib.out_of_date(checkout)
