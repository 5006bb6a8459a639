"""The run times the course states: read from its texts, rounded the way they round, and rewritten.

    python -m tools.run_times     # rewrite the notebooks' run-time lines and the README's column

A notebook's first cell says ``**Run time:** about 25 s in full mode, 20 s in
fast mode`` (or ``about 10 s in full mode and in fast mode alike``); the
README's contents table says ``25 s / 20 s``. Both are generated: they state the
seconds that ``make benchmark`` measured (``benchmarks/results.json``), and this
tool writes them (``make benchmark`` and ``make sync`` run it), rounded as people
read them: under 45 s to the nearest 5 s, from 45 s on to the nearest half
minute (``1 min``, ``1½ min``, ``2 min``). A range (``2–2½ min``) holds any
measurement that rounds into it. Edit the rest of the line, never its figures:
CONTRIBUTING.md's table of generated files says so, not the notebook, whose
reader is a learner. A file is written only when its text changes.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import nbformat

from tools.notebook_code import ROOT

SHORT = 45  # seconds: below, times are stated to 5 s; from here on, to half a minute
AMOUNT = r"(?:\d+½?|½)"
DURATION = rf"{AMOUNT}(?:–{AMOUNT})? (?:s|min)"
NOTEBOOK_LINE = re.compile(
    rf"\*\*Run time:\*\* about (?P<full>{DURATION}) in full mode(?: \([^)]*\))?"
    rf"(?:, (?P<fast>{DURATION}) in fast mode| and in fast mode alike)"
)
README_CELL = re.compile(rf"^(?P<full>{DURATION}) / (?P<fast>{DURATION})$")
# The start of a row of the README's contents table, up to its notebook's link ({}: the file name).
README_ROW = r"^\| \d\d \| \[[^\]]*\]\(notebooks/{}\) \|"


def rounded(seconds: float) -> float:
    """The seconds as the texts state them (half up): 5 s steps under 45 s, then 30 s steps."""
    step = 5 if seconds < SHORT else 30
    return step * math.floor(seconds / step + 0.5)


def written(seconds: float) -> str:
    """How the texts write a rounded time: ``35 s``, ``1 min``, ``1½ min``."""
    if seconds < SHORT:
        return f"{rounded(seconds):.0f} s"
    halves = round(rounded(seconds) / 30)
    return f"{halves // 2 or ''}{'½' if halves % 2 else ''} min"


def _amount(text: str) -> float:
    return float(text.rstrip("½") or 0) + (0.5 if text.endswith("½") else 0)


def parse(duration: str) -> tuple:
    """``(low, high)`` seconds of ``35 s``, ``1½ min`` or ``2–2½ min``."""
    amounts, unit = duration.rsplit(" ", 1)
    scale = 60 if unit == "min" else 1
    low, _, high = amounts.partition("–")
    return _amount(low) * scale, _amount(high or low) * scale


def notebook_statement(first_cell: str) -> dict | None:
    """``{"full": "25 s", "fast": "20 s"}`` from a notebook's first cell;
    None when it has no such line."""
    match = NOTEBOOK_LINE.search(first_cell)
    if match is None:
        return None
    return {"full": match["full"], "fast": match["fast"] or match["full"]}


def readme_statements(readme: str) -> dict:
    """``{"03_model_fn_and_estimatorspec.ipynb": {"full": …, "fast": …}}``
    from the contents table."""
    found = {}
    for line in readme.splitlines():
        link = re.match(README_ROW.format(r"(\d\d_[\w-]+\.ipynb)"), line)
        if link:
            cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
            times = README_CELL.match(cells[3]) if len(cells) > 3 else None
            found[link.group(1)] = {"full": times["full"], "fast": times["fast"]} if times else None
    return found


def disagreement(stated: str, seconds: float) -> str | None:
    """Why ``stated`` is not ``seconds`` rounded the texts' way; None when it is."""
    low, high = parse(stated)
    if low <= rounded(seconds) <= high:
        return None
    return (
        f"states {stated}, but {seconds:.1f} s were measured, "
        f"which the texts write as {written(seconds)}"
    )


def restated(first_cell: str, full: float, fast: float) -> str:
    """The first cell with its run-time line stating ``full`` and ``fast`` seconds."""
    match = NOTEBOOK_LINE.search(first_cell)
    if match is None:
        raise SystemExit(
            "a notebook's first cell has no '**Run time:** about … in full "
            "mode, … in fast mode' line"
        )
    same = written(full) == written(fast)
    tail = " and in fast mode alike" if same else f", {written(fast)} in fast mode"
    head = first_cell[match.start() : match.end("full")].replace(match["full"], written(full))
    middle = first_cell[match.end("full") : match.end()]
    middle = re.sub(r"(?:, .*? in fast mode| and in fast mode alike)$", "", middle)
    return first_cell[: match.start()] + head + middle + tail + first_cell[match.end() :]


def main(root: Path = ROOT) -> None:
    """Rewrite each stated run time that is not ``benchmarks/results.json``'s; only those files."""
    seconds = json.loads((root / "benchmarks" / "results.json").read_text())["parts"]
    times = {mode: seconds[f"notebooks_{mode}"]["seconds"] for mode in ("full", "fast")}
    readme_path = root / "README.md"
    readme = readme_path.read_text()
    for name in sorted(times["full"]):
        path = root / "notebooks" / name
        notebook = nbformat.read(path, as_version=4)
        cell = notebook.cells[0]
        new = restated(cell.source, times["full"][name], times["fast"][name])
        if new != cell.source:
            cell.source = new
            nbformat.write(notebook, path)
            print(f"{name}: {notebook_statement(new)}")
        row = re.compile(rf"({README_ROW.format(re.escape(name))}[^|]*\| )[^|]*?( \|)", re.M)
        stated = f"{written(times['full'][name])} / {written(times['fast'][name])}"
        readme = row.sub(lambda m: m.group(1) + stated + m.group(2), readme)
    if readme != readme_path.read_text():
        readme_path.write_text(readme)
        print("README.md: the contents table's run times rewritten")


if __name__ == "__main__":
    main()
