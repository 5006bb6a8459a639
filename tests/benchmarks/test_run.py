"""The benchmark's report and README update (benchmarks/run.py), on made-up measurements."""

from __future__ import annotations

from tests import ROOT
import importlib.util

import pytest



@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("benchmark_run", ROOT / "benchmarks" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stamp(**values):
    return {"measured": "2026-01-01 10:00", "load_before": "0.10 / 0.20 / 0.30",
            "load_after": "1.00 / 0.50 / 0.40", **values}


MACHINE = {"cpu": "Test CPU", "cores": 2, "memory": "8 GiB", "os": "Linux", "python": "3.11.7",
           "tensorflow": "2.15.1", "keras": "2.15.0", "numpy": "1.26.4", "date": "2026-01-01"}


def test_report_states_ratio_bottleneck_sizes_and_times(bench):
    results = {"machine": MACHINE, "parts": {
        "training": stamp(steps=600, rounds=2, estimator=[10.0, 12.0], keras=[15.0, 18.0],
                          estimator_median=11.0, keras_median=16.5),
        "pipeline": stamp(examples_per_second=8250.0),
        "model_dir": stamp(steps=200, files={"bytes": 10_000_000, "seconds": 20.0},
                           embedded={"bytes": 400_000_000, "seconds": 55.0}),
        "notebooks_fast": stamp(seconds={"00_a.ipynb": 20.0, "01_b.ipynb": 95.0}),
        "notebooks_full": stamp(seconds={"00_a.ipynb": 30.0}),
    }}
    text = bench.report(results)
    assert "Test CPU, 2 cores, 8 GiB" in text
    assert "Keras / Estimator: **1.50×**" in text
    assert "| `Estimator.train` | 11.0 | 10.0, 12.0 | 1,100 |" in text
    assert "**8,250 examples/s**, 5.0× what the faster" in text
    assert "| reads the IDX files | 10.0 MB | 20 s |" in text
    assert "makes the `model_dir` 40× larger" in text
    assert "| 01_b.ipynb | 1 min 35 s | — |" in text  # measured in one mode only
    assert "| all | **1 min 55 s** | **30 s** |" in text
    assert "load average (1/5/15 min) 0.10 / 0.20 / 0.30 before" in text


def test_report_of_a_single_part(bench):
    text = bench.report({"machine": MACHINE, "parts": {"pipeline": stamp(examples_per_second=1000.0)}})
    assert "**1,000 examples/s**." in text
    assert "Training speed" not in text and "Notebook run times" not in text


def test_update_readme_replaces_only_between_markers(bench, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{bench.README_START}\nold\n{bench.README_END}\nrest\n")
    bench.update_readme("new figures\n", readme)
    assert readme.read_text() == f"intro\n{bench.README_START}\nnew figures\n{bench.README_END}\nrest\n"


def test_update_readme_without_markers_says_what_to_add(bench, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("no markers\n")
    with pytest.raises(SystemExit, match="no <!-- benchmark:start -->"):
        bench.update_readme("x\n", readme)
    assert readme.read_text() == "no markers\n"


def test_readme_has_the_markers_and_the_last_results(bench):
    readme = (ROOT / "README.md").read_text()
    assert readme.count(bench.README_START) == 1 and readme.count(bench.README_END) == 1
    between = readme.split(bench.README_START, 1)[1].split(bench.README_END, 1)[0]
    committed = (ROOT / "benchmarks" / "results.md").read_text()
    assert between.strip() and between.strip() in committed
