"""The teacher's guide (TEACHING.md) and its measurement script (benchmarks/classroom.py).

The sampler is tried on real processes with known memory; the report on made-up
measurements; the guide's table against the committed results; the guide's
prerequisites against the notebooks' first cells.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import nbformat
import pytest

from tests import ROOT

GUIDE = ROOT / "TEACHING.md"
RESULTS = ROOT / "benchmarks" / "classroom.json"


@pytest.fixture(scope="module")
def classroom(load_script):
    return load_script("benchmarks/classroom.py")


# A child that holds 200 MB and starts a grandchild that holds 120 MB, then waits.
HOLDER = """
import subprocess, sys, time
block = bytearray({mb} * 2**20)
for i in range(0, len(block), 4096):
    block[i] = 1
{spawn}
print("ready", flush=True)
time.sleep(30)
"""


def test_sampler_finds_every_process_under_this_one_and_its_peak(classroom):
    grandchild = HOLDER.format(mb=120, spawn="")
    child = HOLDER.format(
        mb=200,
        spawn=(
            f"g = subprocess.Popen([sys.executable, '-c', {grandchild!r}], "
            "stdout=subprocess.PIPE, text=True)\n"
            "g.stdout.readline()"
        ),
    )
    process = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "ready"
        sampler = classroom.Sampler([])
        sampler.sample()
        peaks = sorted(hwm for hwm, _ in sampler.peaks.values())
        assert len(peaks) == 2, sampler.peaks
        assert 120 * 1024 < peaks[0] < 200 * 1024 < peaks[1], peaks  # kB: each process's own VmHWM
        assert sampler.kernels == {process.pid}  # only the direct child counts as "the kernel"
        assert sampler.rss_sum_peak >= sum(peaks) * 0.9
        assert sampler.hwm_sum_peak == sum(peaks)  # both alive together: their peaks add up
    finally:
        for pid in descendants_then_self(classroom, process.pid):
            subprocess.run(["kill", str(pid)], check=False)
        process.wait(timeout=10)


def descendants_then_self(classroom, pid):
    return classroom.descendants(pid, classroom.process_table()) + [pid]


def test_sampler_keeps_the_peaks_of_ended_processes_but_never_adds_two_that_did_not_meet(classroom):
    sampler = classroom.Sampler([], interval=0.05)
    sampler.start()
    for _ in range(2):  # one after the other, like notebook 09's successive clusters
        subprocess.run(
            [
                sys.executable,
                "-c",
                HOLDER.format(mb=150, spawn="").replace("time.sleep(30)", "time.sleep(1)"),
            ],
            check=True,
            capture_output=True,
        )
    time.sleep(0.2)
    sampler.stop()
    peaks = [hwm for hwm, _ in sampler.peaks.values()]
    assert len(peaks) == 2 and min(peaks) > 150 * 1024
    assert sampler.hwm_sum_peak < 1.2 * max(peaks)


def row(kernel, tree, processes, models, peak, **extra):
    return {
        "kernel_peak_mb": kernel,
        "tree_peak_mb": tree,
        "processes": processes,
        "models_mb": models,
        "tmp_mb": 0.0,
        "disk_peak_mb": peak,
        **extra,
    }


def test_table_from_made_up_measurements(classroom):
    measured = {
        "machine": {"cores": 2, "memory": "8 GiB", "python": "3.11.7"},
        "modes": {
            "full": {
                "measured": "2026-01-01 10:00",
                "notebooks": {
                    "00_a.ipynb": row(700, 700, 1, 0, 0),
                    "01_b.ipynb": row(900, 1500, 2, 10, 450),
                    "02_c.ipynb": row(800, 3100, 5, 30, 40),
                    "03_d.ipynb": row(1000, 1000, 1, 0, 5, tensorboard_mb=600),
                },
            },
            "fast": {
                "measured": "2026-01-01 11:00",
                "notebooks": {
                    "00_a.ipynb": row(600, 600, 1, 0, 0),
                    "01_b.ipynb": row(700, 900, 2, 5, 300),
                },
            },
        },
    }
    benchmark = {
        "parts": {
            "notebooks_full": {"seconds": {"00_a.ipynb": 10, "01_b.ipynb": 125}},
            "notebooks_fast": {"seconds": {"00_a.ipynb": 9, "01_b.ipynb": 40}},
        }
    }
    text = classroom.table(measured, benchmark)
    assert (
        "| 01_b.ipynb | 2 min 05 s / 40 s | 900 MB | 1.5 GB (2 processes in all) | 10 MB | 450 MB |"
        in text
    )
    assert "| 02_c.ipynb | — / — | 800 MB | 3.1 GB (5 processes in all) | 30 MB | 40 MB |" in text
    assert "| 00_a.ipynb | 10 s / 9 s | 700 MB | 700 MB | 0 MB | 0 MB |" in text
    assert (
        "| 03_d.ipynb | — / — | 1.0 GB | 1.0 GB, 1.6 GB with `%tensorboard` | 0 MB | 5 MB |" in text
    )
    assert "the largest kernel is notebook 03's, **1.0 GB**" in text
    assert (
        "notebook 02 needs **3.1 GB** (5 processes in all); "
        "every other notebook needs at most **1.6 GB** (notebook 03)" in text
    )
    # 00 leaves 0, 01 peaks at 450 then leaves 10, 02 peaks at 10 + 40: the course's peak is 450
    assert (
        "the 4 notebooks leave **40 MB** in `models/`, and `models/` holds at most **450 MB**"
        in text
    )
    assert "at most **900 MB** of memory (notebook 01) and **300 MB** of disk" in text
    assert "in full mode on 2 cores, 8 GiB, Python 3.11.7, 2026-01-01 10:00;" in text


def test_guide_shows_the_committed_measurements(classroom, load_script):
    reporting = load_script("benchmarks/reporting.py")
    between = reporting.section(classroom.GUIDE, classroom.SECTION)
    results = json.loads(RESULTS.read_text())
    benchmark = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    assert between == classroom.table(results, benchmark), (
        "TEACHING.md's table differs from benchmarks/classroom.json: run "
        ".venv/bin/python benchmarks/classroom.py --report-only --update-guide"
    )
    notebooks = sorted(path.name for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert sorted(results["modes"]["full"]["notebooks"]) == notebooks, (
        "measure the notebooks that exist"
    )


def prerequisites_in_first_cell(path):
    first = nbformat.read(path, as_version=4).cells[0].source
    sentence = re.search(r"\*\*Prerequisites:\*\*(.*?)(?:\.\s|;|$)", first, flags=re.S).group(1)
    return sorted(set(re.findall(r"\b(\d\d)\b", sentence)) - {path.name[:2]})


def test_guide_lists_each_notebooks_prerequisites_as_its_first_cell_does():
    rows = dict(
        re.findall(r"^\| (\d\d) \| .+ \| ([\d, ]+|none) \|$", GUIDE.read_text(), flags=re.M)
    )
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        number = path.name[:2]
        assert number in rows, f"TEACHING.md has no row for notebook {number}"
        listed = [] if rows[number] == "none" else [n.strip() for n in rows[number].split(",")]
        assert listed == prerequisites_in_first_cell(path), f"notebook {number}'s prerequisites"


def test_readme_links_the_guide():
    assert "](TEACHING.md)" in (ROOT / "README.md").read_text()


def test_autograph_files_left_are_reported_when_counted(classroom):
    rows = {"03_a.ipynb": {"autograph_files_left": 0}, "09_b.ipynb": {"autograph_files_left": 3}}
    assert classroom.autograph_line(rows) == [
        "- AutoGraph's generated files left in `models/tmp` or the kernel's temporary folder "
        "after the 2 notebooks: **3** (3 by notebook 09)."
    ]
    assert classroom.autograph_line({"03_a.ipynb": {}}) == []  # an older run did not count them


def test_a_partial_re_measurement_spans_from_the_first_run_and_repeats_a_new_date(classroom):
    assert (
        classroom.measured_span("2026-01-01 10:00", "2026-01-01 11:30") == "2026-01-01 10:00–11:30"
    )
    assert classroom.measured_span("2026-01-01 10:00–10:20", "2026-01-01 11:30") == (
        "2026-01-01 10:00–11:30"
    )
    assert classroom.measured_span("2026-01-01 16:47", "2026-01-02 14:24") == (
        "2026-01-01 16:47–2026-01-02 14:24"
    )
