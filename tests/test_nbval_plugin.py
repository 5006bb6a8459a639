"""tests/nbval_plugin.py and tests/support/cpu.py: make test's parts split the notebooks without
a gap or an overlap, the zh-TW edition runs as graded, and "oneDNN flipped" is the other way round
from this CPU's default."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests import ROOT
from tests.support.cpu import ONEDNN_ENV, onednn_flipped
from tests.nbval_plugin import ASSERT_SPEED
from tools.run_notebooks import ALONE

NOTEBOOKS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").glob("[0-9]*.ipynb"))
EDITION = sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "notebooks" / "zh-TW").glob("[0-9]*.ipynb")
)


def _collected(*options: str) -> dict:
    """``{notebook: number of cells}`` that pytest collects with the plugin and ``options``."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
        + ["--nbval-lax", "--nbval-current-env", "-p", "tests.nbval_plugin", *options]
        + NOTEBOOKS
        + EDITION,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    found: dict = {}
    for line in run.stdout.splitlines():
        matched = re.match(r"(notebooks/\S+\.ipynb)::Cell \d+$", line)
        if matched:
            found[matched[1]] = found.get(matched[1], 0) + 1
    return found


def test_the_two_parts_of_make_test_run_every_notebook_once():
    everything = _collected("--edition-as-graded")
    apart = _collected("--edition-as-graded", "--speed-notebooks=apart")
    alone = _collected("--edition-as-graded", "--speed-notebooks=only")
    assert set(everything) == set(NOTEBOOKS + EDITION)
    assert not set(apart) & set(alone)
    assert {**apart, **alone} == everything
    # the English notebooks that assert a speed run alone; graded, their zh-TW copies do not
    assert sorted(alone) == sorted(f"notebooks/{name}" for name in ASSERT_SPEED)
    assert ASSERT_SPEED <= ALONE  # make sync runs them alone too


@pytest.mark.slow(reason="imports TensorFlow in three processes of its own")
def test_onednn_flipped_is_the_other_way_round_from_the_default():
    code = "from tensorflow.python.util import _pywrap_util_port as p; print(p.IsMklEnabled())"

    def enabled(**setting) -> str:
        env = {name: value for name, value in os.environ.items() if name != ONEDNN_ENV}
        env.update(setting, TF_CPP_MIN_LOG_LEVEL="3")
        run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        return run.stdout.split()[-1]

    default = enabled()
    assert default in {"True", "False"}
    assert enabled(**{ONEDNN_ENV: onednn_flipped()}) != default
