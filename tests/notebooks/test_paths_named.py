"""Every file of the course that a notebook's text names in backticks (`tests/...`,
`helpers/...`, `tools/...`) exists: a learner who goes to read it finds it."""

import json
import re

import pytest

from tests import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
PATH = re.compile(r"`((?:tests|helpers|tools|benchmarks|data|translations)/[\w./-]+)`")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_every_file_its_text_names_exists(notebook):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    named = {
        path
        for cell in cells
        if cell["cell_type"] == "markdown"
        for path in PATH.findall("".join(cell["source"]))
    }
    missing = sorted(path for path in named if not (ROOT / path.rstrip("/")).exists())
    assert not missing, f"{notebook.name} names files that do not exist: {missing}"
