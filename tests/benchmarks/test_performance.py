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


BF16 = stamp(
    steps=600,
    rounds=2,
    target=0.99,
    every=250,
    max_steps=4000,
    bf16="this CPU has avx512_bf16 and amx_bf16, and oneDNN may use them: bfloat16 runs natively",
    native=True,
    rates={"float32": [40.0, 50.0], "rewrite": [70.0, 70.0], "policy": [80.0, 90.0]},
    rate_medians={"float32": 45.0, "rewrite": 70.0, "policy": 85.0},
    to_target={
        "float32": [
            {"seconds": 30.0, "step": 1250, "accuracy": 0.9901},
            {"seconds": 32.0, "step": 1250, "accuracy": 0.9901},
        ],
        "policy": [
            {"seconds": 17.0, "step": 1250, "accuracy": 0.9904},
            {"seconds": 19.0, "step": 1500, "accuracy": 0.9912},
        ],
    },
    to_target_medians={"float32": 31.0, "policy": 18.0},
    flops_per_step=2.5e9,
    matmul_size=2048,
    peaks_gflops={"float32": 300.0, "bfloat16": 1500.0},
)


def test_report_of_float32_against_bfloat16(bench):
    text = bench.performance_report({"machine": MACHINE, "parts": {"bf16": BF16}})
    assert "**float32 against bfloat16** (notebook 11)" in text
    assert "The machine: this CPU has avx512_bf16 and amx_bf16" in text
    # 45 steps/s × 2.5 GFLOP = 112.5 GFLOP/s, 38 % of 300; 85 × 2.5 = 212.5, 14 % of 1500
    assert "| 45.0 | 40.0, 50.0 | 1.00× | 38% of float32's |" in text
    assert "| 85.0 | 80.0, 90.0 | 1.89× | 14% of bfloat16's |" in text
    assert "| 18.0 | 17.0 s (1250, 99.04%), 19.0 s (1500, 99.12%) |" in text
    assert "float32 300 GFLOP/s, bfloat16 1,500 GFLOP/s" in text
    assert "bfloat16 / float32: **0.58×**" in text


def test_report_of_a_cpu_without_bfloat16(bench):
    part = {
        **BF16,
        "native": False,
        "rates": {"float32": [40.0]},
        "rate_medians": {"float32": 40.0},
        "to_target": {"float32": [{"seconds": 30.0, "step": 1250, "accuracy": 0.99}]},
        "to_target_medians": {"float32": 30.0},
        "peaks_gflops": {"float32": 300.0},
    }
    text = bench.performance_report({"machine": MACHINE, "parts": {"bf16": part}})
    assert "| 40.0 | 40.0 | 1.00× | 33% of float32's |" in text
    assert "bfloat16 / float32" not in text
    assert "bfloat16 (Keras policy)" not in bench.readme_line(
        {"machine": MACHINE, "parts": {"bf16": part}}
    )


def test_the_readme_line_gives_the_bfloat16_figures(bench):
    line = bench.readme_line({**RESULTS, "parts": {**RESULTS["parts"], "bf16": BF16}})
    assert (
        "bfloat16 (Keras policy) 1.89× float32's steps/s and 18 s against 31 s to 99% test "
        "accuracy" in line
    )
    assert line.count("\n") == 1


def test_the_cnn_step_is_about_two_and_a_half_gflop(bench):
    # forward multiply-adds per example: 28²·32·9 + 14²·64·9·32 + 7²·64·128 + 128·10
    forward = 28 * 28 * 32 * 9 + 14 * 14 * 64 * 9 * 32 + 7 * 7 * 64 * 128 + 128 * 10
    assert bench.cnn_train_flops() == 2.0 * (3 * forward - 28 * 28 * 32 * 9) * 100
    assert 2.4e9 < bench.cnn_train_flops() < 2.6e9


def test_the_benchmark_reads_notebook_11s_own_cells(bench):
    code = bench.notebook_speed_code()
    assert callable(code["time_to_accuracy"]) and callable(code["bf16_cnn_model_fn"])


def test_bf16_is_a_part_and_its_arguments(bench):
    args = bench.arguments(["--parts", "bf16", "--target", "0.98", "--every", "100"])
    assert args.parts == {"bf16"} and args.target == 0.98 and args.every == 100
    assert args.max_steps == 4000
