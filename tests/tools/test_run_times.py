"""tools/run_times.py (run by `make benchmark` and `make sync`): it rewrites the run times the
notebooks and the README state from benchmarks/results.json, and writes nothing when they agree."""

from __future__ import annotations

import json
import os

import nbformat

from tools import run_times

README = (
    "| # | notebook | what | run time | result |\n|---|---|---|---|---|\n"
    "| 00 | [Setup](notebooks/00_setup.ipynb) | you learn | 1 min / 20 s | ok |\n"
)


def checkout(tmp_path, full: float, fast: float):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "notebooks").mkdir()
    parts = {
        "notebooks_full": {"seconds": {"00_setup.ipynb": full}},
        "notebooks_fast": {"seconds": {"00_setup.ipynb": fast}},
    }
    (tmp_path / "benchmarks" / "results.json").write_text(json.dumps({"parts": parts}))
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell(
            "# 00 — Setup\n\n**Run time:** about 1 min in full mode, 20 s in fast mode"
        )
    ]
    nbformat.write(notebook, tmp_path / "notebooks" / "00_setup.ipynb")
    (tmp_path / "README.md").write_text(README)
    return tmp_path


def test_a_new_measurement_is_written_into_the_notebook_and_the_readme(tmp_path):
    root = checkout(tmp_path, full=92.0, fast=31.0)
    run_times.main(root)
    first = nbformat.read(root / "notebooks" / "00_setup.ipynb", as_version=4).cells[0].source
    assert "**Run time:** about 1½ min in full mode, 30 s in fast mode" in first
    assert "| 1½ min / 30 s |" in (root / "README.md").read_text()


def test_nothing_is_written_when_the_texts_state_the_measurement(tmp_path, capsys):
    root = checkout(tmp_path, full=61.0, fast=19.0)
    files = [root / "README.md", root / "notebooks" / "00_setup.ipynb"]
    for path in files:  # a day old: a write now would change it, however coarse the clock
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns - 86_400 * 10**9))
    before = {path: path.stat().st_mtime_ns for path in files}
    run_times.main(root)
    assert {path: path.stat().st_mtime_ns for path in files} == before
    assert capsys.readouterr().out == ""
