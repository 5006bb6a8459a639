"""How much of what a zh-TW notebook shows its reader is still English.

``python benchmarks/zh_tw_english.py [--before REV] NN ...`` prints, for each zh-TW notebook,
the share of English in its visible text: the Markdown prose (code blocks, code spans, link
targets and HTML comments left out) and what the helpers print in its outputs (check
messages, helper errors, notebook 07's pre-flight explanations, the model_fn checker's
findings, figure captions). The lesson's own prints are left out: the code, and so what it
prints, is the same in both editions. A helpers' line is an output line that differs between
the English notebook and the zh-TW one today; ``--before REV`` measures the zh-TW notebook of
that commit over the same lines, as the English notebook of today prints them (before the
helpers spoke zh-TW, the edition copied the English outputs).

The unit is the character: Latin letters against CJK characters (digits, punctuation and
spaces count for neither), so that a Chinese sentence and its English source weigh about what
they take on the screen. Not a gate: a figure for the closing note of a translation change.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LATIN = re.compile(r"[A-Za-z]")
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
HIDDEN = [
    re.compile(r"```.*?```", re.S),  # code blocks
    re.compile(r"<!--.*?-->", re.S),  # comments
    re.compile(r"`[^`\n]*`"),  # code spans
    re.compile(r"\]\([^)]*\)"),  # link targets
]


def counts(text: str) -> Counter:
    """Latin letters and CJK characters of ``text``."""
    return Counter(latin=len(LATIN.findall(text)), cjk=len(CJK.findall(text)))


def prose(markdown: str) -> str:
    """The text a reader sees of a Markdown cell: without code, comments and link targets."""
    for pattern in HIDDEN:
        markdown = pattern.sub(" ", markdown)
    return markdown


def output_lines(cell: dict) -> list:
    """The lines a code cell's outputs show as text (streams, results, errors)."""
    lines = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            lines += "".join(output["text"]).splitlines()
        elif output["output_type"] in ("execute_result", "display_data"):
            lines += "".join(output.get("data", {}).get("text/plain", "")).splitlines()
        elif output["output_type"] == "error":
            lines.append(f"{output['ename']}: {output['evalue']}")
    return lines


def helpers_lines(english: dict, chinese: dict) -> dict:
    """``{cell id: [English line, ...]}``: the output lines of the English notebook whose
    zh-TW counterparts differ, and ``{cell id: [zh-TW line, ...]}``, the counterparts."""
    english_cells = {cell.get("id"): cell for cell in english["cells"]}
    before, after = {}, {}
    for cell in chinese["cells"]:
        source = english_cells.get(cell.get("id"))
        if cell["cell_type"] != "code" or source is None:
            continue
        theirs, ours = output_lines(source), output_lines(cell)
        shared = Counter(map(_key, theirs)) & Counter(map(_key, ours))
        before[cell["id"]] = [line for line in theirs if _key(line) not in shared]
        after[cell["id"]] = [line for line in ours if _key(line) not in shared]
    return before, after


def _key(line: str) -> str:
    """A lesson print as both editions print it: its timings and its paths (``../models``
    seen from ``notebooks/``, ``../../models`` from ``notebooks/zh-TW/``) aside."""
    return re.sub(r"\d+(\.\d+)?", "0", line.replace("../../", "../"))


def share(chinese: dict, lines: dict) -> tuple:
    """(English share, Latin letters, CJK characters) of a notebook's prose and ``lines``."""
    total = Counter()
    for cell in chinese["cells"]:
        if cell["cell_type"] == "markdown":
            total += counts(prose("".join(cell["source"])))
    for cell_lines in lines.values():
        for line in cell_lines:
            total += counts(line)
    letters = total["latin"] + total["cjk"]
    return (total["latin"] / letters if letters else 0.0), total["latin"], total["cjk"]


def in_english(line: str) -> bool:
    """A line without a CJK character: one a zh-TW reader meets in English."""
    found = counts(line)
    return found["latin"] > 0 and found["cjk"] == 0


def notebook_at(path: Path, rev: str | None) -> dict:
    if rev is None:
        return json.loads(path.read_text(encoding="utf-8"))
    shown = subprocess.run(
        ["git", "show", f"{rev}:{path.relative_to(ROOT).as_posix()}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(shown.stdout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("numbers", nargs="+", help="notebook numbers, e.g. 06 07")
    parser.add_argument("--before", help="a commit to measure the zh-TW notebook of, too")
    args = parser.parse_args(argv)
    for number in args.numbers:
        (english_path,) = (ROOT / "notebooks").glob(f"{number}_*.ipynb")
        chinese_path = ROOT / "notebooks" / "zh-TW" / english_path.name
        english = notebook_at(english_path, None)
        english_lines, chinese_lines = helpers_lines(english, notebook_at(chinese_path, None))
        measured = {"now": share(notebook_at(chinese_path, None), chinese_lines)}
        if args.before:
            then = notebook_at(chinese_path, args.before)
            measured[args.before] = share(then, english_lines)
        helper_count = sum(map(len, chinese_lines.values()))
        english_now = sum(map(in_english, (x for v in chinese_lines.values() for x in v)))
        lines_in_english = {"now": english_now, args.before: helper_count}
        for when, (part, latin, cjk) in measured.items():
            print(
                f"{english_path.name} ({when}): {part:.1%} English "
                f"({latin:,} Latin letters, {cjk:,} CJK characters; prose and "
                f"{helper_count} helpers' output lines, {lines_in_english[when]} of them in "
                "English)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
