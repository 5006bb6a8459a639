"""tests/conftest.py: slow tests give their reason, and the others keep to a time limit."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap

import pytest

from tests import ROOT


def _slow_markers(tree: ast.AST):
    """Every ``pytest.mark.slow(...)`` call or bare ``pytest.mark.slow`` in a test module."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            target = node.func
        elif isinstance(node, ast.Attribute):
            target = node
        else:
            continue
        if isinstance(target, ast.Attribute) and target.attr == "slow":
            if ast.unparse(target).endswith("mark.slow"):
                yield node


def test_every_slow_marker_gives_its_reason():
    """A slow test says why where it is defined: @pytest.mark.slow(reason="...")."""
    bare = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = [node for node in _slow_markers(tree) if isinstance(node, ast.Call)]
        called = {id(node.func) for node in calls}
        for node in _slow_markers(tree):
            if isinstance(node, ast.Attribute) and id(node) in called:
                continue
            if not (isinstance(node, ast.Call) and any(k.arg == "reason" for k in node.keywords)):
                bare.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    bare = [place for place in bare if "test_conftest.py" not in place]
    assert not bare, "slow markers without a reason: " + ", ".join(bare)


@pytest.mark.slow(reason="starts pytest in a process of its own (about 20 s beside other tests)")
def test_the_slow_tests_are_marked():
    """The tests that train or start servers stay out of make unit (a sample of them)."""
    marked = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-m",
            "slow",
            "tests/helpers/test_logs.py",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    assert "tests/helpers/test_logs.py::test_real_training_log_is_clean" in marked, marked
    assert "tests/helpers/test_logs.py::test_noise_is_dropped" not in marked, marked


def test_a_test_over_the_time_limit_fails_unless_it_is_slow(tmp_path):
    (tmp_path / "test_timing.py").write_text(
        textwrap.dedent("""
        import time
        import pytest

        def test_quick():
            pass

        def test_sleeps():
            time.sleep(0.6)

        @pytest.mark.slow
        def test_sleeps_but_is_slow():
            time.sleep(0.6)
    """)
    )
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
    assert "mark it @pytest.mark.slow" in run.stdout
