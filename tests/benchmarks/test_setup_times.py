"""The set-up benchmark (benchmarks/setup_times.py): what it runs and how it reports.

The measurement itself needs the network and minutes (`make benchmark-setup`);
here: that it times the commands tools/make-venv runs, that pip and uv see no
setting of this machine, and the report on made-up measurements.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests import ROOT


@pytest.fixture(scope="module")
def bench(load_script):
    return load_script("benchmarks/setup_times.py")


def test_it_times_what_make_venv_runs(bench):
    make_venv = (ROOT / "tools" / "make-venv").read_text()
    uv_venv, uv_install = bench.set_up_commands("uv", "/usr/bin/python3.11", "/bin/uv", Path("v"))
    assert ' venv -q --seed --python "$python" ' in make_venv and uv_venv[1:5] == ["venv", "-q", "--seed", "--python"]
    assert '"$uv" pip install -q $hashes --python' in make_venv
    assert uv_install[1:5] == ["pip", "install", "-q", "--require-hashes"]
    pip_venv, pip_install = bench.set_up_commands("pip", "/usr/bin/python3.11", "/bin/uv", Path("v"))
    assert '"$python" -m venv "$venv"' in make_venv and pip_venv[1:3] == ["-m", "venv"]
    assert "-m pip install --disable-pip-version-check -q $hashes -r" in make_venv
    assert pip_install[-3:] == ["--require-hashes", "-r", "requirements.lock"]


def test_pip_and_uv_run_without_this_machines_settings(bench, monkeypatch):
    monkeypatch.setenv("PIP_FIND_LINKS", "/opt/wheels")
    monkeypatch.setenv("UV_INDEX_URL", "file:///somewhere")
    monkeypatch.setenv("PIP_CERT", "/etc/ssl/certs/ca-certificates.crt")
    env = bench.clean_environment("PIP_CACHE_DIR", Path("/tmp/empty"))
    assert "PIP_FIND_LINKS" not in env and "UV_INDEX_URL" not in env
    assert env["PIP_CONFIG_FILE"] == os.devnull and env["UV_NO_CONFIG"] == "1"
    assert env["PIP_CACHE_DIR"] == "/tmp/empty" and env["PIP_CERT"]


def run(seconds, cache_mb, load="1.00 / 0.50 / 0.25"):
    return {"seconds": seconds, "packages": 151, "cache_mb": cache_mb, "load_before": load, "load_after": load}


RESULTS = {"versions": {"python": "3.11.7", "uv": "0.13.9", "pip": "24.0"}, "commit": "abc1234",
           "measured": "2026-01-01 10:00", "machine": "x86_64, 2 cores, Linux",
           "runs": {"uv cold": run(20.0, 2000), "uv warm": run(5.0, 2000),
                    "pip cold": run(150.0, 600), "pip warm": run(60.0, 600)}}


def test_report_gives_both_installers_both_caches_and_the_ratio(bench):
    text = bench.report(RESULTS)
    assert "| uv 0.13.9 | 20 s | 5 s |" in text and "| pip 24.0 | 150 s | 60 s |" in text
    assert "**7.5×** as fast as pip" in text and "151 packages, Python 3.11.7" in text
    assert "¹" not in text


def test_report_says_when_a_warm_cache_stayed_empty(bench):
    results = {**RESULTS, "runs": {**RESULTS["runs"], "pip warm": run(140.0, 0)}}
    text = bench.report(results)
    assert "| pip 24.0 | 150 s | 140 s ¹ |" in text
    assert "¹ pip's cache stayed empty" in text


def test_the_readme_has_the_markers_the_figures_go_between(bench):
    readme = (ROOT / "README.md").read_text()
    two_commands = readme.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    assert bench.README_START in two_commands and bench.README_END in two_commands


def test_report_keeps_the_earlier_runs(bench):
    earlier = {"measured": "2025-12-31 09:00", "load": "12.00 / 9.00 / 5.00",
               "uv cold": 57.0, "uv warm": 8.0, "pip cold": 556.0, "pip warm": 385.0}
    text = bench.report({**RESULTS, "earlier": [earlier]})
    assert "An earlier run (2025-12-31 09:00, load average 12.00 at its start): uv 57 s cold, 8 s warm; " \
        "pip 556 s cold, 385 s for the second set-up." in text
