"""The performance benchmark's report (benchmarks/performance.py), on made-up measurements, and the
two places it writes: the generated section of benchmarks/results.md and the README's one line."""

from __future__ import annotations

import json

import pytest

from tests import ROOT


@pytest.fixture(scope="module")
def bench(load_script):
    return load_script("benchmarks/performance.py")


def stamp(**values):
    return {
        "measured": "2026-01-01 10:00",
        "load_before": "0.10 / 0.20 / 0.30",
        "load_after": "1.00 / 0.50 / 0.40",
        **values,
    }


MACHINE = {"cpu": "Test CPU", "cores": 2, "memory": "8 GiB", "os": "Linux", "python": "3.11.7"}
LIBRARIES = {"tensorflow": "2.15.1", "keras": "2.15.0", "numpy": "1.26.4"}
RESULTS = {
    "machine": MACHINE,
    "libraries": LIBRARIES,
    "parts": {
        "training": stamp(
            steps=600,
            rounds=2,
            estimator=[10.0, 12.0],
            keras=[15.0, 18.0],
            estimator_median=11.0,
            keras_median=16.5,
        ),
        "pipeline": stamp(examples_per_second=8250.0),
        "model_dir": stamp(
            steps=200,
            files={"bytes": 10_000_000, "seconds": 20.0},
            embedded={"bytes": 400_000_000, "seconds": 55.0},
        ),
        "notebooks_fast": stamp(seconds={"00_a.ipynb": 20.0, "01_b.ipynb": 95.0}),
        "notebooks_full": stamp(seconds={"00_a.ipynb": 30.0}),
    },
}


def test_report_states_ratio_bottleneck_sizes_and_times(bench):
    text = bench.performance_report(RESULTS)
    assert "Test CPU, 2 cores, 8 GiB, Linux, Python 3.11.7; TensorFlow 2.15.1, Keras 2.15.0" in text
    assert "Keras / Estimator: **1.50×**" in text
    assert "| `Estimator.train` | 11.0 | 10.0, 12.0 | 1,100 |" in text
    assert "**8,250 examples/s**, 5.0× what the faster" in text
    assert "| reads the IDX files | 10.0 MB | 20 s |" in text
    assert "makes the `model_dir` 40× larger" in text
    assert "| 01_b.ipynb | 1 min 35 s | — |" in text  # measured in one mode only
    assert "| all | **1 min 55 s** | **30 s** |" in text
    assert "load average (1/5/15 min) 0.10 / 0.20 / 0.30 before" in text


def test_report_of_a_single_part(bench):
    results = {"machine": MACHINE, "parts": {"pipeline": stamp(examples_per_second=1000.0)}}
    text = bench.performance_report(results)
    assert "**1,000 examples/s**." in text
    assert "Training speed" not in text and "Notebook run times" not in text


def test_the_readme_line_gives_the_headline_figures_in_one_line(bench):
    line = bench.readme_line(RESULTS)
    assert line.count("\n") == 1 and line.endswith("\n")
    assert line.startswith(
        "**Performance** on 2 cores: `Estimator.train` 11.0 steps/s, Keras `fit` 16.5"
    )
    assert "the input pipeline 8,250 examples/s, 5.0× what the model takes" in line
    assert "all 2 notebooks 30 s in full mode and 1 min 55 s in fast mode" in line
    assert "[benchmarks/results.md](benchmarks/results.md)" in line


def test_update_docs_writes_the_page_and_the_readme_line_between_their_markers(bench, tmp_path):
    page, readme = tmp_path / "results.md", tmp_path / "README.md"
    page.write_text(
        "# Performance\n\nwritten\n<!-- performance:start -->\nold\n<!-- performance:end -->\n"
    )
    readme.write_text(
        "intro\n<!-- performance-line:start -->\nold\n<!-- performance-line:end -->\nrest\n"
    )
    bench.update_docs(RESULTS, page, readme)
    assert page.read_text().startswith(
        "# Performance\n\nwritten\n<!-- performance:start -->\nMeasured on"
    )
    assert "old" not in page.read_text() and "old" not in readme.read_text()
    assert readme.read_text() == (
        "intro\n<!-- performance-line:start -->\n"
        + bench.readme_line(RESULTS)
        + "<!-- performance-line:end -->\nrest\n"
    )


def test_the_committed_docs_hold_the_committed_results(bench, load_script):
    reporting = load_script("benchmarks/reporting.py")
    results = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    redo = "run .venv/bin/python benchmarks/performance.py --parts none --update-docs"
    assert reporting.section(
        ROOT / "benchmarks" / "results.md", bench.SECTION
    ) == bench.performance_report(results), (
        f"benchmarks/results.md is not benchmarks/results.json's: {redo}"
    )
    assert reporting.section(ROOT / "README.md", bench.README_SECTION) == bench.readme_line(
        results
    ), f"the README's Performance line is not benchmarks/results.json's: {redo}"
