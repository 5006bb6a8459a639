"""``helpers/`` is a package that the notebooks use.

Every module of ``helpers/`` is imported by at least one notebook's code cells:
a module no notebook imports belongs in ``tools/`` or ``tests/``. (There is no
line budget: one was tried, and cutting lines to fit it made the code harder
to read.)
"""

from __future__ import annotations

from tests import ROOT
import re

import nbformat

MODULES = sorted(path.stem for path in (ROOT / "helpers").glob("*.py") if path.stem != "__init__")


def test_every_helpers_module_is_imported_by_a_notebook():
    sources = "\n".join(cell.source for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
                        for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code")
    unused = [name for name in MODULES if not re.search(
        rf"^\s*(from helpers import (\([^)]*|[^\n]*)\b{name}\b|from helpers\.{name} import"
        rf"|import helpers\.{name}\b)",
        sources, re.M)]
    assert not unused, f"no notebook imports helpers.{', helpers.'.join(unused)}: move it to tools/ or tests/"
