"""Seconds to autograde one submission, per notebook: the figure a teacher plans grading with.

Run it with ``make grading-benchmark`` (or ``.venv-teacher/bin/python benchmarks/grading.py``).
For each notebook it lays out an nbgrader course in a temporary folder
(``tools/nbgrader_course.py``), releases the notebook, hands in one submission
(the released copy with every solution cell answered as in the course's
notebook, as ``tests/tools/test_nbgrader_round_trip.py`` builds it) and times
``nbgrader autograde`` on it, in the teacher environment ``.venv-teacher`` and
the course's kernel. The submission must get full points, or the benchmark stops.

Grading mode (``WORKBOOK_GRADING=1``, which the course's ``nbgrader_config.py``
sets) trains the demonstrations minimally; ``--no-grading-mode`` times the
same autograde without it, to see what it saves. ``--fast`` adds
``WORKBOOK_FAST=1``. The kernels import a copy of ``helpers/`` in the temporary
folder, so what they write (``models/``) goes there, and they get a fresh
``TMPDIR`` there too: the AutoGraph files (``__autograph_generated_file*.py``)
left in it after each autograde are counted.

Results go to ``benchmarks/grading.json`` (one record per mode); ``--update-guide``
writes TEACHING.md's table between its ``grading:start`` / ``grading:end`` markers
(``benchmarks/reporting.py`` writes it, and describes the machine).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tools/ and helpers/ (the timeout's sentence)
sys.path.insert(0, str(ROOT / "benchmarks"))

from tools.nbgrader_course import (  # noqa: E402
    GRADING_ENV,
    TEACHER,
    EDITION_FOLDER,
    NbgraderFailed,
    lesson_errors,
    run_nbgrader,
    write_course,
)
from reporting import (  # noqa: E402
    describe,
    duration,
    load_average,
    notebooks_named,
    record_machine,
    timestamp,
    write_section,
)

RESULTS = ROOT / "benchmarks" / "grading.json"
GUIDE = ROOT / "TEACHING.md"
SECTION = "grading"  # TEACHING.md's generated section, between <!-- grading:start/end -->
STUDENT = "solved"
TARGET_SECONDS = 30  # the target per submission in grading mode; the table names notebooks over it
AUTOGRAPH_GLOB = "__autograph_generated_file*.py"


def _grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def solved_submission(released: Path, source: Path):
    """The released notebook with every solution cell answered as in ``source``."""
    import nbformat

    answers = {
        _grade_id(cell): cell.source
        for cell in nbformat.read(source, as_version=4).cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }
    notebook = nbformat.read(released, as_version=4)
    for cell in notebook.cells:
        if _grade_id(cell) in answers:
            cell.source = answers[_grade_id(cell)]
    return notebook


def score(course: Path, env: dict, name: str) -> tuple:
    """(score, max score) of the submission, from ``nbgrader export``."""
    import csv

    run_nbgrader(course, env, "export", "--to", "grades.csv")
    with open(course / "grades.csv", newline="") as file:
        for row in csv.DictReader(file):
            if row["assignment"] == name and row["student_id"] == STUDENT:
                return float(row["score"]), float(row["max_score"])
    raise SystemExit(f"nbgrader export has no grade for {name}")


def slowest_cells(notebook: Path, count: int = 5) -> list:
    """[[cell index, seconds, first line], …] of the slowest cells of an executed notebook."""
    import nbformat

    rows = []
    for index, cell in enumerate(nbformat.read(notebook, as_version=4).cells):
        timing = cell.metadata.get("execution", {})
        if "iopub.execute_input" in timing and "shell.execute_reply" in timing:
            start, end = (
                datetime.datetime.fromisoformat(timing[key].replace("Z", "+00:00"))
                for key in ("iopub.execute_input", "shell.execute_reply")
            )
            first = cell.source.strip().splitlines()[0][:60] if cell.source.strip() else ""
            rows.append([index, round((end - start).total_seconds(), 1), first])
    return sorted(rows, key=lambda row: -row[1])[:count]


def grade_one(notebook: Path, grading: bool, fast: bool) -> dict:
    """Autograde one solved submission of ``notebook``: its seconds, score, left-over files."""
    import nbformat

    with tempfile.TemporaryDirectory(prefix="grading-benchmark-") as folder:
        folder = Path(folder)
        kernel_root = folder / "root"  # the kernel's helpers package, and so its models/ and data/
        shutil.copytree(
            ROOT / "helpers", kernel_root / "helpers", ignore=shutil.ignore_patterns("__pycache__")
        )
        (kernel_root / "data").symlink_to(ROOT / "data", target_is_directory=True)
        tmp = folder / "tmp"
        tmp.mkdir()
        env = dict(
            os.environ,
            PYTHONPATH=str(kernel_root),
            TMPDIR=str(tmp),
            PATH=f"{TEACHER / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        )
        env[GRADING_ENV] = "1" if grading else "0"
        env.pop("WORKBOOK_FAST", None)
        if fast:
            env["WORKBOOK_FAST"] = "1"
        course = folder / "course"
        (name,) = write_course(course, [notebook])
        run_nbgrader(course, env, "generate_assignment", name)
        target = course / "submitted" / STUDENT / name / notebook.name
        target.parent.mkdir(parents=True)
        nbformat.write(
            solved_submission(
                course / "release" / name / notebook.name, course / "source" / name / notebook.name
            ),
            target,
        )
        load_before = load_average()
        started = time.perf_counter()
        run_nbgrader(course, env, "autograde", name, "--student", STUDENT)
        seconds = time.perf_counter() - started
        load_after = load_average()
        points, maximum = score(course, env, name)
        # the kernels' temporary folder is models/tmp (course_setup.use_course_temp_dir); TMPDIR is
        # watched too, for what a process writes before or without it
        left = [*tmp.rglob(AUTOGRAPH_GLOB), *(kernel_root / "models").rglob(AUTOGRAPH_GLOB)]
        autograded = course / "autograded" / STUDENT / name / notebook.name
        return {
            "seconds": round(seconds, 1),
            "score": points,
            "max_score": maximum,
            "slowest_cells": slowest_cells(autograded),
            "errors": lesson_errors(nbformat.read(autograded, as_version=4)),
            "load_before": load_before,
            "load_after": load_after,
            "autograph_files_left": len(left),
        }


def mode_name(grading: bool, fast: bool, edition: str = "") -> str:
    name = ("grading" if grading else "no-grading") + ("-fast" if fast else "")
    return f"{name}-{edition}" if edition else name


def _seconds(record: dict, name: str) -> str:
    row = record.get("notebooks", {}).get(name)
    return "—" if row is None else duration(row["seconds"])


def _load(record: dict, name: str) -> str:
    """The 1-minute load average before and after a notebook's autograde."""
    row = record.get("notebooks", {}).get(name)
    if row is None:
        return "—"
    return f"{row['load_before'].split(' / ')[0]} → {row['load_after'].split(' / ')[0]}"


def table(results: dict) -> str:
    """TEACHING.md's table: seconds per submission in grading mode, and without it (fast mode)."""
    modes = results["modes"]
    graded, without = modes.get("grading", {}), modes.get("no-grading-fast", {})
    chinese = modes.get(mode_name(True, False, EDITION_FOLDER), {})
    names = sorted(set(graded.get("notebooks", {})) | set(without.get("notebooks", {})))
    lines = [
        "| notebook | one submission, grading mode | load "
        f"| {EDITION_FOLDER} edition, grading mode "
        "| without grading mode, fast mode | load |",
        "|---|---:|---|---:|---:|---|",
    ]
    for name in names:
        lines.append(
            f"| {name} | {_seconds(graded, name)} | {_load(graded, name)} "
            f"| {_seconds(chinese, name)} "
            f"| {_seconds(without, name)} | {_load(without, name)} |"
        )
    rows = graded.get("notebooks", {})
    if rows:
        total = sum(row["seconds"] for row in rows.values())
        lines += [
            "",
            f"- One submission of each of the {len(rows)} notebooks graded: "
            f"**{duration(total)}** in grading mode; 30 learners take 30 times that on one "
            "grading machine (nbgrader grades one submission after another).",
        ]
        slowest = max(rows, key=lambda name: rows[name]["seconds"])
        over = [name for name in sorted(rows) if rows[name]["seconds"] > TARGET_SECONDS]
        if over:
            lines.append(
                f"- Over {TARGET_SECONDS} s per submission in grading mode: {', '.join(over)}."
            )
        else:
            lines.append(
                f"- Every notebook within {TARGET_SECONDS} s per submission in grading mode; "
                f"the slowest, {slowest}, {duration(rows[slowest]['seconds'])}."
            )
    both = sorted(set(rows) & set(without.get("notebooks", {})))
    if both:
        before = sum(without["notebooks"][name]["seconds"] for name in both)
        after = sum(rows[name]["seconds"] for name in both)
        saved = before - after
        if saved > 0:
            lines.append(
                f"- Grading mode saves {duration(saved)} of {duration(before)} "
                f"({saved / before:.0%}) over the {len(both)} notebooks measured both ways."
            )
        else:
            lines.append(
                f"- Grading mode saves nothing measurable: {duration(after)} against "
                f"{duration(before)} without it over the {len(both)} notebooks measured both "
                "ways, a difference within what two runs of the same notebook differ."
            )
    errors = sum(
        len(row.get("errors", [])) for mode in modes.values() for row in mode["notebooks"].values()
    )
    lines.append(f"- Lesson cells that raised while grading, in all the runs above: {errors}.")
    where = results.get("machine", "?")
    where = describe(where) if isinstance(where, dict) else where
    lines += [
        "",
        f"_Measured by `make grading-benchmark` ([benchmarks/grading.py](benchmarks/grading.py)) "
        f"on {where} (the load column: the 1-minute load average before → after each "
        "notebook, raised by the notebook's own processes); "
        f"grading mode {graded.get('measured', '—')}, {EDITION_FOLDER} "
        f"{chinese.get('measured', '—')}, without it {without.get('measured', '—')}._",
    ]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        nargs="*",
        help="grade only these notebooks (others are kept): a path, a file name or its number, 11",
    )
    parser.add_argument(
        "--no-grading-mode",
        action="store_true",
        help=f"{GRADING_ENV}=0: train as the notebook says",
    )
    parser.add_argument("--fast", action="store_true", help="WORKBOOK_FAST=1 as well")
    parser.add_argument(
        "--edition", choices=(EDITION_FOLDER,), help="grade the notebooks of notebooks/zh-TW/"
    )
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument(
        "--update-guide", action="store_true", help="write the table into TEACHING.md"
    )
    parser.add_argument(
        "--report-only", action="store_true", help="grade nothing, only print / write the table"
    )
    args = parser.parse_args(argv)
    results = json.loads(args.results.read_text()) if args.results.exists() else {}
    results.setdefault("modes", {})
    if not args.report_only:
        if not (TEACHER / "bin" / "nbgrader").exists():
            raise SystemExit("the teacher environment .venv-teacher is missing: run `make teacher`")
        grading = not args.no_grading_mode
        mode = mode_name(grading, args.fast, args.edition or "")
        folder = ROOT / "notebooks" / (args.edition or "")
        record = results["modes"].setdefault(mode, {"notebooks": {}})
        record_machine(results, partial=bool(args.only))
        for notebook in notebooks_named(folder, args.only):
            try:
                row = grade_one(notebook.resolve(), grading, args.fast)
            except NbgraderFailed as error:
                raise SystemExit(f"{notebook.name}: {error}") from None
            record["notebooks"][notebook.name] = row
            print(
                f"{notebook.name} ({mode}): {row['seconds']:.0f} s, "
                f"{row['score']:g}/{row['max_score']:g} points, "
                f"load {row['load_before']} -> {row['load_after']}, "
                f"{row['autograph_files_left']} AutoGraph files left",
                flush=True,
            )
            args.results.write_text(json.dumps(results, indent=1) + "\n")  # keep what is done
            for index, ename, evalue in row["errors"]:
                print(f"  cell {index} raised {ename}: {evalue}", flush=True)
            if row["errors"]:
                raise SystemExit(
                    f"{notebook.name}: {len(row['errors'])} lesson cells raised in {mode} mode "
                    "(above): a cell that needs a skipped demonstration, or a lesson grading broke"
                )
            if row["score"] != row["max_score"]:
                raise SystemExit(
                    f"{notebook.name}: the solved submission got {row['score']:g} of "
                    f"{row['max_score']:g} in {mode} mode: a check needs more training than it gets"
                )
        record["measured"] = timestamp()
        args.results.write_text(json.dumps(results, indent=1) + "\n")
    text = table(results)
    print("\n" + text)
    if args.update_guide:
        write_section(GUIDE, SECTION, text)
        print("TEACHING.md: grading table updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
