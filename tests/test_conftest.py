"""tests/conftest.py: the slow tests are named in one place, and the others keep to a time limit."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap

from tests import ROOT
# the rule under test: conftest.py is a plugin, not a test module
from tests.conftest import SLOW, slow_reason


def test_every_slow_entry_names_a_test_that_exists():
    missing = []
    for name in SLOW:
        path, _, function = name.partition("::")
        if not (ROOT / path).is_file():
            missing.append(f"{name}: no file {path}")
            continue
        if function:
            tree = ast.parse((ROOT / path).read_text())
            defined = {
                node.name
                for node in tree.body
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
            if function.split("[")[0] not in defined:
                missing.append(f"{name}: {path} defines no {function}")
    assert not missing, (
        "tests/conftest.py SLOW names tests that do not exist (renamed?): " + "; ".join(missing)
    )


def test_an_entry_covers_its_module_its_test_and_its_parameters_only():
    assert slow_reason(
        "tests/tools/test_make_lab.py::test_make_lab_serves_the_notebooks_and_the_kernel"
    )
    assert slow_reason("tests/helpers/test_logs.py::test_real_training_log_is_clean")
    assert slow_reason("tests/helpers/test_logs.py::test_real_training_log_is_clean[param]")
    assert slow_reason("tests/helpers/test_logs.py::test_real_training_log_is_clean_too") is None
    assert slow_reason("tests/helpers/test_logs.py::test_noise_is_dropped") is None


def test_a_test_over_the_time_limit_fails_unless_it_is_slow(tmp_path):
    (tmp_path / "test_timing.py").write_text(textwrap.dedent("""
        import time
        import pytest

        def test_quick():
            pass

        def test_sleeps():
            time.sleep(0.6)

        @pytest.mark.slow
        def test_sleeps_but_is_slow():
            time.sleep(0.6)
    """))
    env = {**os.environ, "WORKBOOK_UNIT_SECONDS": "0.3", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "tests.conftest",
            "-p",
            "no:cacheprovider",
            "-q",
            "-rf",
            "-W",
            "ignore::pytest.PytestUnknownMarkWarning",
            str(tmp_path),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "1 failed, 2 passed" in run.stdout, run.stdout + run.stderr
    assert re.search(
        r"test_sleeps: its call took 0\.\d s, more than the 0\.3 s a test of make unit may take",
        run.stdout,
    ), run.stdout
    assert "add it to SLOW in tests/conftest.py" in run.stdout
