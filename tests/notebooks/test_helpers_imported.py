"""``helpers/`` is a package that the notebooks use.

Every module of ``helpers/`` is run by at least one notebook: imported by its code cells, or
by a helpers module they import (``tools/helpers_deps.py``, the search the run stamps use). A
module no notebook runs belongs in ``tools/`` or ``tests/``. (There is no
line budget: one was tried, and cutting lines to fit it made the code harder
to read.)
"""

from __future__ import annotations

from tests import ROOT

from tools.helpers_deps import dependencies
from tools.notebook_code import code_sources, helpers_imports

MODULES = sorted(path.stem for path in (ROOT / "helpers").glob("*.py") if path.stem != "__init__")
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def unused(modules: list, sources: list) -> list:
    """The modules that these code cells do not import (``tools/notebook_code.helpers_imports``)."""
    imported = helpers_imports(sources)
    return [name for name in modules if f"helpers.{name}" not in imported]


def test_every_helpers_module_is_run_by_a_notebook():
    sources = [source for path in NOTEBOOKS for source in code_sources(path)]
    run = {path.stem for path in dependencies(sources) if path.parent.name == "helpers"}
    found = [name for name in MODULES if name not in run]
    assert not found, (
        f"no notebook runs helpers.{', helpers.'.join(found)}: move it to tools/ or tests/"
    )


def test_a_module_no_cell_imports_is_named():
    cells = [
        "from helpers import (\n    settings,\n    logs as log_filter,\n)",
        "import helpers.plots",
        "%matplotlib inline\nfrom helpers.checks import notebook00",
    ]
    assert unused(["settings", "logs", "plots", "checks", "events"], cells) == ["events"]
