"""The set-up benchmark (benchmarks/setup_times.py): what it runs and how it reports.

The measurement itself needs the network and minutes (`make benchmark-setup`);
here: that it times the commands tools/make-venv runs, that pip and uv see no
setting of this machine, and the report on made-up measurements.
"""

from __future__ import annotations

import json
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
    assert ' venv -q --seed --python "$python" ' in make_venv and uv_venv[1:5] == [
        "venv",
        "-q",
        "--seed",
        "--python",
    ]
    assert '"$uv" pip install -q --compile-bytecode $hashes --python' in make_venv
    assert uv_install[1:6] == ["pip", "install", "-q", "--compile-bytecode", "--require-hashes"]
    pip_venv, pip_install = bench.set_up_commands(
        "pip", "/usr/bin/python3.11", "/bin/uv", Path("v")
    )
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
    return {
        "seconds": seconds,
        "packages": 151,
        "cache_mb": cache_mb,
        "load_before": load,
        "load_after": load,
    }


RESULTS = {
    "versions": {"python": "3.11.7", "uv": "0.13.9", "pip": "24.0"},
    "commit": "abc1234",
    "measured": "2026-01-01 10:00",
    "machine": {"cores": 2, "os": "Linux", "python": "3.11.7"},
    "runs": {
        "uv cold": run(20.0, 2000),
        "uv warm": run(5.0, 2000),
        "pip cold": run(150.0, 600),
        "pip warm": run(60.0, 600),
    },
}


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


def test_a_new_run_replaces_the_previous_one_and_reports_it_alone(bench, tmp_path, monkeypatch):
    """No history: the saved results and the report hold the latest run only."""
    saved = tmp_path / "setup_times.json"
    saved.write_text(
        json.dumps(
            {
                **RESULTS,
                "measured": "2025-12-31 09:00",
                "earlier": [{"measured": "2025-12-30 09:00"}],
            }
        )
    )
    latest = {**RESULTS, "measured": "2026-01-02 08:00"}
    monkeypatch.setattr(bench, "measure", lambda: latest)
    for _ in range(2):  # every run, not only the first
        assert bench.main(["--results", str(saved)]) == 0
        assert json.loads(saved.read_text()) == latest
    text = bench.report(json.loads(saved.read_text()))
    assert "earlier" not in text.lower() and "2025-12-3" not in text
    assert "_Measured 2026-01-02 08:00 on 2 cores, Linux, Python 3.11.7, load average" in text


def test_install_md_holds_the_committed_results_in_its_set_up_section(bench, load_script):
    reporting = load_script("benchmarks/reporting.py")
    install = (ROOT / "INSTALL.md").read_text()
    section = install.split("## How long the set-up takes", 1)[1].split("\n## ", 1)[0]
    start, end = reporting.markers(bench.SECTION)
    assert start in section and end in section, (
        "INSTALL.md: the set-up times go in 'How long the set-up takes'"
    )
    committed = json.loads((ROOT / "benchmarks" / "setup_times.json").read_text())
    assert "earlier" not in committed
    assert reporting.section(ROOT / "INSTALL.md", bench.SECTION) == bench.report(committed), (
        "INSTALL.md's set-up times are not benchmarks/setup_times.json's: run "
        ".venv/bin/python benchmarks/setup_times.py --report-only --update-docs"
    )
