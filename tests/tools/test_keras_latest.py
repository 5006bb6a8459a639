"""tools/keras_latest.py (``make keras-latest``): notebook 10's tagged cells, checked and run.

The run on the newest TensorFlow is ``make keras-latest`` itself (CI runs
it); here: that the notebook's tagged cells stand on their own, that the
check finds the cells that do not, and that a failing cell ends the run with
one line naming it.
"""

from tests import ROOT
import ast
import importlib.metadata
import inspect
import json
import subprocess
import sys

import pytest

from tools import helpers_deps


@pytest.fixture(scope="module")
def tool(load_script):
    return load_script("tools/keras_latest.py")


def notebook(tmp_path, *cells):
    """A notebook of code cells given as (source, tags)."""
    path = tmp_path / "nb.ipynb"
    path.write_text(
        json.dumps(
            {
                "cells": [
                    {
                        "cell_type": "code",
                        "source": source,
                        "metadata": {"tags": list(tags)},
                        "outputs": [],
                    }
                    for source, tags in cells
                ]
            }
        ),
        encoding="utf-8",
    )
    return path


def test_notebook_10_keras_cells_stand_on_their_own(tool):
    cells = tool.tagged_cells()
    assert tool.problems(cells) == []
    sources = "\n".join(source for _, source in cells)
    for lesson in (
        "def build_cnn",
        "class ProbabilityLogger",
        "EarlyStopping(",
        "BackupAndRestore(",
        "class CrashAtEpoch",
        "class EpochRecorder",
        "export_model(",
        "assert ",
    ):
        assert lesson in sources, lesson
    assert "tf.estimator" not in sources and "helpers import course_setup" not in sources


def test_only_tagged_code_cells_are_taken(tool, tmp_path):
    path = notebook(
        tmp_path,
        ("a = 1", ["keras-latest"]),
        ("b = 2", []),
        ("c = a", ["nbval-check-output", "keras-latest"]),
    )
    assert tool.tagged_cells(path) == [(0, "a = 1"), (2, "c = a")]


def test_problems_name_untagged_definitions_magics_and_syntax(tool, tmp_path):
    path = notebook(
        tmp_path,
        ("estimator = 1", []),
        ("import numpy as np\nx = np.ones(3)", ["keras-latest"]),
        ("def f():\n    return estimator + x\n", ["keras-latest"]),
        ("class C(Base):\n    y = [value for value in x]\n", ["keras-latest"]),
        ("%xmode Minimal\nx", ["keras-latest"]),
        ("x = (", ["keras-latest"]),
    )
    found = tool.problems(tool.tagged_cells(path))
    assert found[0].startswith("cell 2 uses estimator, which no earlier keras-latest cell defines")
    assert found[1].startswith("cell 3 uses Base,")
    assert found[2] == "cell 4 uses IPython syntax (%xmode Minimal): only plain Python runs here"
    assert found[3].startswith("cell 5 is not valid Python")
    assert len(found) == 4
    assert tool.problems([]) == ["no code cell is tagged keras-latest"]


def test_run_shares_one_namespace_and_stops_at_the_first_failure(tool, capsys):
    cells = [
        (3, "total = 2\nprint('total', total)"),
        (5, "total += 1\nassert total == 4, 'not four'"),
        (7, "print('never')"),
    ]
    assert tool.run(cells) == 1
    out, err = capsys.readouterr()
    assert "total 2" in out and "never" not in out
    assert (
        err.strip()
        == "FAILED in cell 5, line 2: assert total == 4, 'not four' -> AssertionError: not four"
    )
    assert tool.run(cells[:1]) == 0


def test_definitions_run_no_training_code(tool, tmp_path):
    path = notebook(
        tmp_path,
        (
            "import math\nSIZE = 3\nstarted = math.nan\nraise SystemExit('trained')",
            ["keras-latest"],
        ),
        ("def area():\n    return SIZE * SIZE\nprint(area())", ["keras-latest"]),
    )
    names = tool.definitions(path)
    assert names["area"]() == 9 and "started" not in names


@pytest.mark.slow(reason="runs notebook cells in a fresh Python process")
def test_main_exits_1_with_one_line_for_a_failing_cell(tmp_path):
    path = notebook(
        tmp_path,
        ("from helpers import settings\nprint('fast', settings.fast_mode())", ["keras-latest"]),
        ("assert 1 + 1 == 3", ["keras-latest"]),
    )
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "keras_latest.py"), "--notebook", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert "fast True" in done.stdout and "mode fast" in done.stdout
    assert (
        done.stderr.strip().splitlines()[-1]
        == "FAILED in cell 1, line 1: assert 1 + 1 == 3 -> AssertionError"
    )


def _module_level_packages(path) -> set:
    """Top-level packages a helpers file imports when it is imported (not inside functions)."""
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.add(node.module.partition(".")[0])
    return found - set(sys.stdlib_module_names) - {"__future__", "helpers"}


def test_the_latest_environment_pins_what_the_imported_helpers_import(tool):
    """The helpers modules notebook 10's tagged cells and the tool import load only packages that
    requirements-latest.lock installs (tqdm, which helpers/data.py imports, once was missing)."""
    sources = [source for _, source in tool.tagged_cells()]
    sources.append(inspect.getsource(tool.prepare))
    packages = set()
    for path in helpers_deps.dependencies(sources):
        packages |= _module_level_packages(path)
    assert {"numpy", "tensorflow", "tqdm"} <= packages  # the search found the real imports
    distributions = importlib.metadata.packages_distributions()
    pinned = {
        line.partition("==")[0].strip().lower().replace("_", "-")
        for line in (ROOT / "requirements-latest.lock").read_text().splitlines()
        if "==" in line and not line.startswith((" ", "#"))
    }
    missing = {
        package
        for package in packages
        if not {d.lower().replace("_", "-") for d in distributions.get(package, [package])} & pinned
    }
    assert not missing, f"add to requirements-latest.txt and run make lock: {sorted(missing)}"
