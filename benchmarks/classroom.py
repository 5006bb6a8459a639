"""Peak memory and disk written by each notebook: the figures a teacher sizes a class with.

Run it with ``make classroom-benchmark`` (or ``.venv/bin/python benchmarks/classroom.py``).
Each notebook is executed top to bottom by ``tools/run_notebooks.py`` (the same
kernel and cells as ``make notebooks``; the executed copies go to a temporary
folder, the committed notebooks are not touched), in full mode (what students
run) and, with ``--modes fast,full``, in fast mode too. While it runs, a sampler
reads ``/proc`` every 0.2 s:

* memory: the kernel and every process it starts (notebook 09's cluster tasks,
  TensorBoard, …). For each process its ``VmHWM`` (peak resident memory, kept
  by the kernel of the OS, so no peak is missed while the process is alive);
  and the sum of ``VmRSS`` over the whole tree at each sample. Two figures are
  kept: **kernel peak** = the kernel's own ``VmHWM``; **tree peak** = the
  largest sum, over the samples, of the ``VmHWM`` of the processes alive at
  that sample — an upper bound of what the notebook holds at once (each
  process counts with its own peak so far, even if the peaks did not
  coincide; processes that never ran together are never added), the safe
  figure to size a machine with. The largest sampled ``VmRSS`` sum (a lower
  bound, it can miss short spikes) is kept beside it.
* disk: ``models/`` is emptied before each notebook and a fresh ``TMPDIR`` is
  given to its kernel; the figures are the size of both at the end (what stays
  on disk), their largest sampled size during the run (every 0.4 s), and the
  size of any other file the run created or grew inside the project. The kernel
  moves its own temporary folder to ``models/tmp`` (``course_setup.start()``);
  the AutoGraph files (``__autograph_generated_file*.py``) left in either
  folder at the end are counted: a process killed rather than ended leaves them.

Results go to ``benchmarks/classroom.json``; ``--update-guide`` writes the table
into TEACHING.md's generated ``classroom`` section, which also quotes the run
times of ``benchmarks/results.json``. Run it on an
otherwise idle machine, in a copy of the project if others use ``models/``:
the helpers package's location decides where ``models/`` is.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # from tools import run_notebooks
sys.path.insert(0, str(ROOT / "benchmarks"))

from reporting import (  # noqa: E402
    describe,
    duration,
    load_average,
    notebooks_named,
    record_machine,
    timestamp,
    write_section,
)

GUIDE = ROOT / "TEACHING.md"
SECTION = "classroom"  # TEACHING.md's generated section
PAGE_KB = 1024
AUTOGRAPH_FILES = "__autograph_generated_file*.py"  # deleted at exit by the process that wrote them


# ----------------------------------------------------------------------------- /proc


def process_table() -> dict:
    """{pid: parent pid} of every process visible in /proc."""
    parents = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:  # the process ended meanwhile
            continue
        # "pid (comm) state ppid …": comm may hold spaces and parentheses
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return parents


def descendants(root: int, parents: dict) -> list:
    children = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def memory_kb(pid: int) -> tuple:
    """(VmHWM, VmRSS) of a process in kB, or None when it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    values = {}
    for line in status.splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmHWM", "VmRSS", "Name"):
            values[key] = rest.strip()
    if "VmHWM" not in values:  # a zombie has no memory lines
        return None
    return int(values["VmHWM"].split()[0]), int(values["VmRSS"].split()[0]), values.get("Name", "?")


def tree_size(path: Path) -> int:
    """Bytes of the regular files under ``path`` (0 when it does not exist)."""
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                stat = os.lstat(os.path.join(folder, name))
            except OSError:
                continue
            total += stat.st_size
    return total


def file_sizes(root: Path, skip: set) -> dict:
    """{relative path: size} of the files under ``root``, without the top-level folders ``skip``."""
    sizes = {}
    for folder, dirs, files in os.walk(root):
        if Path(folder) == root:
            dirs[:] = [d for d in dirs if d not in skip]
        for name in files:
            path = Path(folder, name)
            try:
                sizes[str(path.relative_to(root))] = path.lstat().st_size
            except OSError:
                continue
    return sizes


class Sampler(threading.Thread):
    """Samples the memory of this process's descendants and the size of some folders."""

    def __init__(self, folders: list, interval: float = 0.2, disk_every: int = 2):
        super().__init__(daemon=True)
        self.folders, self.interval, self.disk_every = folders, interval, disk_every
        self.peaks = {}  # pid -> (VmHWM kB, name)
        self.kernels = set()  # this process's own children: the kernel (jupyter_client starts it)
        self.rss_sum_peak = 0
        self.hwm_sum_peak = 0  # largest sum of the peaks of the processes alive at one sample
        self.disk_peak = 0
        self.samples = 0
        self._halt = threading.Event()

    def sample(self) -> None:
        rss_sum = hwm_sum = 0
        parents = process_table()
        for pid in descendants(os.getpid(), parents):
            if parents.get(pid) == os.getpid():
                self.kernels.add(pid)
            memory = memory_kb(pid)
            if memory is None:
                continue
            hwm, rss, name = memory
            if hwm >= self.peaks.get(pid, (0, ""))[0]:
                self.peaks[pid] = (hwm, name)
            rss_sum += rss
            hwm_sum += hwm
        self.rss_sum_peak = max(self.rss_sum_peak, rss_sum)
        self.hwm_sum_peak = max(self.hwm_sum_peak, hwm_sum)
        if self.samples % self.disk_every == 0:
            self.disk_peak = max(self.disk_peak, sum(tree_size(folder) for folder in self.folders))
        self.samples += 1

    def run(self) -> None:
        while not self._halt.is_set():
            self.sample()
            self._halt.wait(self.interval)

    def stop(self) -> None:
        self._halt.set()
        self.join()
        self.sample()


# ----------------------------------------------------------------------------- one notebook


def tensorboard_peaks_mb(logdir: Path) -> list:
    """[[name, peak MB], …] of a TensorBoard on ``logdir``, started as `%tensorboard` starts it.

    The notebook runs leave `%tensorboard` out (its cell is tagged nbval-skip), so
    it is measured here: started on what the notebook wrote, its page and the
    scalars it offers fetched once.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sampler = Sampler([])
    sampler.start()
    process = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("tensorboard")),
            f"--logdir={logdir}",
            "--host=127.0.0.1",
            f"--port={port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        for path in ("", "data/runs", "data/plugin/scalars/tags"):
            while True:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/{path}", timeout=30).read()
                    break
                except OSError:
                    if time.monotonic() > deadline or process.poll() is not None:
                        raise SystemExit("TensorBoard did not answer within 120 s")
                    time.sleep(0.5)
        time.sleep(2)
    finally:
        sampler.stop()
        process.terminate()
        process.wait(timeout=30)
    return [
        [name, hwm * PAGE_KB / 1e6] for hwm, name in sorted(sampler.peaks.values(), reverse=True)
    ]


def measure_notebook(notebook: Path, fast: bool, out: Path) -> dict:
    """Execute one notebook and return its memory and disk figures."""
    from tools import run_notebooks  # the same execution as `make notebooks`

    models = ROOT / "models"
    shutil.rmtree(models, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(prefix="classroom-tmp-"))
    before = file_sizes(ROOT, skip={"models", ".git", ".venv", ".venv-latest"})
    saved_tmpdir = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(tmp)  # inherited by the kernel and its children
    sampler = Sampler([models, tmp])
    sampler.start()
    started = time.perf_counter()
    try:
        run_notebooks.execute(notebook, fast=fast, force=True, out=out)
    finally:
        seconds = time.perf_counter() - started
        sampler.stop()
        if saved_tmpdir is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = saved_tmpdir
    after = file_sizes(ROOT, skip={"models", ".git", ".venv", ".venv-latest"})
    elsewhere = {
        path: size - before.get(path, 0)
        for path, size in after.items()
        if size > before.get(path, 0) and "__pycache__" not in path
    }
    peaks = sorted(sampler.peaks.values(), reverse=True)
    kernel = max(
        (sampler.peaks[pid] for pid in sampler.kernels if pid in sampler.peaks), default=(0, "?")
    )
    result = {
        "seconds": seconds,
        "kernel_peak_mb": kernel[0] * PAGE_KB / 1e6,
        "tree_peak_mb": sampler.hwm_sum_peak * PAGE_KB / 1e6,
        "rss_sum_peak_mb": sampler.rss_sum_peak * PAGE_KB / 1e6,
        "processes": len(peaks),
        "process_peaks_mb": [[name, hwm * PAGE_KB / 1e6] for hwm, name in peaks],
        "models_mb": tree_size(models) / 1e6,
        "tmp_mb": tree_size(tmp) / 1e6,
        "disk_peak_mb": max(sampler.disk_peak, tree_size(models) + tree_size(tmp)) / 1e6,
        "elsewhere": {path: size / 1e6 for path, size in sorted(elsewhere.items())},
        "samples": sampler.samples,
        "disk_sampled_every_s": sampler.interval * sampler.disk_every,
    }
    result["autograph_files_left"] = sum(
        1 for folder in (tmp, models) for _ in folder.rglob(AUTOGRAPH_FILES)
    )
    shutil.rmtree(tmp, ignore_errors=True)
    if "%tensorboard" in notebook.read_text():
        result["tensorboard_peaks_mb"] = tensorboard_peaks_mb(models)
        result["tensorboard_mb"] = sum(peak for _, peak in result["tensorboard_peaks_mb"])
    return result


# ----------------------------------------------------------------------------- report


def mb(value: float) -> str:
    return f"{value / 1000:.1f} GB" if value >= 1000 else f"{value:.0f} MB"


def run_time(seconds) -> str:
    return "—" if seconds is None else duration(seconds)


def peak_with_tensorboard(row: dict) -> float:
    """The notebook's peak with its child processes, plus TensorBoard's when it starts one."""
    return row["tree_peak_mb"] + row.get("tensorboard_mb", 0.0)


def notebook_number(name: str) -> str:
    return name[:2]


def table_rows(rows: dict, times: dict) -> list:
    """One row per notebook: run times (results.json), peak memory, disk."""
    lines = [
        "| notebook | run time full / fast | peak memory: kernel "
        "| peak memory: kernel + the processes it starts "
        "| disk: left in `models/` | disk: most during the run |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, row in sorted(rows.items()):
        tree = mb(row["tree_peak_mb"])
        if row["processes"] > 1:
            tree += f" ({row['processes']} processes in all)"
        if row.get("tensorboard_mb"):
            tree += f", {mb(peak_with_tensorboard(row))} with `%tensorboard`"
        run_times = f"{run_time(times['full'].get(name))} / {run_time(times['fast'].get(name))}"
        lines.append(
            f"| {name} | {run_times} | {mb(row['kernel_peak_mb'])} | {tree} "
            f"| {mb(row['models_mb'] + row['tmp_mb'])} | {mb(row['disk_peak_mb'])} |"
        )
    return lines


def summary_lines(rows: dict) -> list:
    """The largest memory figures, and the disk a class fills running the notebooks in turn."""
    kernel = max(rows, key=lambda n: rows[n]["kernel_peak_mb"])
    tree = max(rows, key=lambda n: peak_with_tensorboard(rows[n]))
    others = [n for n in rows if n != tree]
    second = max(others, key=lambda n: peak_with_tensorboard(rows[n])) if others else tree
    kept, course_peak = 0.0, 0.0
    for _, row in sorted(rows.items()):  # in turn; models/ keeps each notebook's folders
        course_peak = max(course_peak, kept + row["disk_peak_mb"])
        kept += row["models_mb"] + row["tmp_mb"]
    return [
        f"- Memory: the largest kernel is notebook {notebook_number(kernel)}'s, "
        f"**{mb(rows[kernel]['kernel_peak_mb'])}**; with the processes it starts, notebook "
        f"{notebook_number(tree)} needs **{mb(peak_with_tensorboard(rows[tree]))}** "
        f"({rows[tree]['processes']} processes in all); every other notebook needs at most "
        f"**{mb(peak_with_tensorboard(rows[second]))}** (notebook {notebook_number(second)}).",
        f"- Disk: run one after another, the {len(rows)} notebooks leave **{mb(kept)}** in "
        f"`models/`, and `models/` holds at most **{mb(course_peak)}** on the way.",
    ]


def fast_mode_line(fast: dict) -> str:
    rows = fast["notebooks"]
    tree = max(rows, key=lambda n: rows[n]["tree_peak_mb"])
    disk = max(rows, key=lambda n: rows[n]["disk_peak_mb"])
    return (
        f"- Fast mode (`WORKBOOK_FAST=1`, the tests' mode): at most "
        f"**{mb(rows[tree]['tree_peak_mb'])}** of memory (notebook {notebook_number(tree)}) and "
        f"**{mb(rows[disk]['disk_peak_mb'])}** of disk during a run (notebook "
        f"{notebook_number(disk)}); measured {fast['measured']}."
    )


def autograph_line(rows: dict) -> list:
    """The AutoGraph files the notebooks left, when the run counted them (none: no line)."""
    counted = {
        name: row["autograph_files_left"]
        for name, row in rows.items()
        if "autograph_files_left" in row
    }
    if not counted:
        return []
    left = {name: count for name, count in counted.items() if count}
    where = ", ".join(f"{n} by notebook {notebook_number(name)}" for name, n in left.items())
    line = (
        f"- AutoGraph's generated files left in `models/tmp` or the kernel's temporary folder "
        f"after the {len(counted)} notebooks: **{sum(left.values())}**"
    )
    return [line + (f" ({where})." if left else ".")]


def table(classroom: dict, benchmark: dict) -> str:
    """TEACHING.md's figures: run times (results.json), memory and disk (classroom.json)."""
    parts = benchmark.get("parts", {})
    times = {m: parts.get(f"notebooks_{m}", {}).get("seconds", {}) for m in ("fast", "full")}
    full = classroom["modes"]["full"]
    lines = table_rows(full["notebooks"], times) + [""] + summary_lines(full["notebooks"])
    lines += autograph_line(full["notebooks"])
    fast = classroom["modes"].get("fast")
    if fast and fast["notebooks"]:
        lines.append(fast_mode_line(fast))
    lines += [
        "",
        "_Memory and disk measured by `make classroom-benchmark` "
        "([benchmarks/classroom.py](benchmarks/classroom.py)) in full mode on "
        f"{describe(classroom['machine'])}, {full['measured']}; run times from `make benchmark` "
        "([benchmarks/results.json](benchmarks/results.json))._",
    ]
    return "\n".join(lines) + "\n"


def measure_mode(mode: str, notebooks: list, record: dict, args, results: dict) -> None:
    """Measure each notebook in ``mode`` into ``record``, saving the results after each one."""
    load_before = load_average()
    with tempfile.TemporaryDirectory(prefix="classroom-out-") as out:
        for notebook in notebooks:
            row = measure_notebook(notebook.resolve(), fast=mode == "fast", out=Path(out))
            record["notebooks"][notebook.name] = row
            print(
                f"{notebook.name} ({mode}): kernel {mb(row['kernel_peak_mb'])}, with children "
                f"{mb(row['tree_peak_mb'])} in {row['processes']} processes, models/ "
                f"{mb(row['models_mb'])}, tmp {mb(row['tmp_mb'])}, "
                f"disk peak {mb(row['disk_peak_mb'])}, {row['seconds']:.0f} s, "
                f"{row['autograph_files_left']} AutoGraph files left",
                flush=True,
            )
            args.results.write_text(json.dumps(results, indent=1) + "\n")  # keep what is done
    now = timestamp()
    if args.only and record.get("measured"):  # some re-measured: say when the others were
        now = measured_span(record["measured"], now)
    record.update(measured=now, load_before=load_before, load_after=load_average())


def measured_span(before: str, now: str) -> str:
    """``2026-01-01 10:00–11:00`` from the first measurement to ``now``; the date is repeated
    when it differs (``2026-01-01 10:00–2026-01-02 09:00``)."""
    start = before.split("–")[0]
    return f"{start}–{now[-5:] if now[:10] == start[:10] else now}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default="full", help="full | fast | fast,full")
    parser.add_argument(
        "--only",
        nargs="*",
        help="measure only these notebooks (others are kept): a number, a file name or a path",
    )
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "classroom.json")
    parser.add_argument(
        "--update-guide",
        action="store_true",
        help="write the table into TEACHING.md's generated section",
    )
    parser.add_argument(
        "--report-only", action="store_true", help="measure nothing, only print / write the table"
    )
    args = parser.parse_args(argv)
    results = json.loads(args.results.read_text()) if args.results.exists() else {}
    results.setdefault("modes", {})
    if not args.report_only:
        record_machine(results, partial=bool(args.only))
        notebooks = notebooks_named(ROOT / "notebooks", args.only)
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            record = results["modes"].setdefault(mode, {"notebooks": {}})
            measure_mode(mode, notebooks, record, args, results)
        shutil.rmtree(ROOT / "models", ignore_errors=True)
        args.results.write_text(json.dumps(results, indent=1) + "\n")
    benchmark_file = ROOT / "benchmarks" / "results.json"
    benchmark = json.loads(benchmark_file.read_text()) if benchmark_file.exists() else {}
    text = table(results, benchmark)
    print("\n" + text)
    if args.update_guide:
        write_section(GUIDE, SECTION, text)
        print("TEACHING.md: table updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
