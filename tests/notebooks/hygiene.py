"""What a committed notebook must be, as a function that lists what is wrong.

`test_notebook_hygiene.py` runs it on every notebook (and on deliberately bad
ones, to prove it can fail). One string per problem, each naming the fix.
"""

from __future__ import annotations

import re
from html import unescape

from helpers import plots
from helpers.language import translations
from tools.nbgrader_cells import planned_metadata
from tools.run_notebooks import code_hash

MAX_BYTES = 1_000_000
REQUIRED_HEADINGS = ("## Setup", "## Recap", "## Exercises")
DEPRECATION = re.compile(
    r"is deprecated and will be removed|is deprecated\. Please use|Instructions for updating"
)
MACHINE_PATH = re.compile(
    r"(?<![\w.])(/root/|/home/|/Users/|/tmp/|/work/|/var/folders/|/private/var/"
    r"|[A-Za-z]:\\\\?Users\\)"
)
TRACEBACK = re.compile(r"Traceback \(most recent call last\)")
# the line helpers/plots.py prints in zh-TW on a machine without a Traditional Chinese font, as
# the catalogue words it: the committed zh-TW figures are drawn in Chinese (TEACHING's word)
NO_CHINESE_FONT = translations("zh_TW").gettext(plots.NO_CHINESE_FONT)
GRADE_ID = re.compile(r"^[A-Za-z0-9_-]+$")  # what nbgrader accepts in a grade_id

MAX_CODE_LINE = 88  # ruff format's and black's default: a code cell reads without a scroll bar
MAX_OUTPUT_LINES = 30
# the output is the subject of the cell (notebook 01's tour of the log)
LONG_OUTPUT_TAG = "long-output"
# Values that change on every run. No tag lets one through: each can be shown in a stable form
# (a placeholder such as `events.out.tfevents.<time>.<host>`, the folder's name pattern, no pid).
VARYING = {
    "a timestamp": re.compile(
        r"\b\d{4}-\d{2}-\d{2}[ T-]\d{2}:\d{2}(:\d{2})?|\b[IWEF]\d{4} \d{2}:\d{2}:\d{2}"
    ),
    "an event-file name with its time and host": re.compile(r"events\.out\.tfevents\.\d+\.[\w-]+"),
    "a temp-<time> export folder": re.compile(r"\btemp-\d+"),
    "a 10-digit export-folder number (a time)": re.compile(r"(?:[/\\]|export\W{1,3})1\d{9}(?!\d)"),
    "a process id": re.compile(r"\bpid\b\W{0,3}\d+|\bprocess(?: id)? \d{3,}", re.IGNORECASE),
    # an object's repr as a cell's last value (`<matplotlib.legend.Legend at 0x7f…>`): end the
    # cell with plt.show(), or give the value a name
    "a memory address": re.compile(r"\bat 0x[0-9a-f]{6,}"),
}
# pandas' truncation: a row or column of "..." (max_rows, max_columns), or a value cut to its
# default
# max_colwidth of 50 characters ending in "..." (a log line that itself ends in "..." is not cut).
HTML_CELL = re.compile(r"<t[dh][^>]*>([^<]*)</t[dh]>")
PANDAS_COLWIDTH = 50
PANDAS_TEXT = re.compile(
    r"^(\[\d+ rows x \d+ columns\]|(Name: .*)?dtype: \w+|Length: \d+, dtype: \w+)$", re.MULTILINE
)
TEXT_CUT = re.compile(r"(?:^|\s)\.{2,3}(?:\s|$)|\w\.\.\.(?:\s{2,}|$)", re.MULTILINE)
XMODE = re.compile(r"^\s*%xmode\s+(\w+)", re.MULTILINE | re.IGNORECASE)


def _output_text(output) -> str:
    parts = [output.get("text", ""), output.get("evalue", "")]
    parts.extend(output.get("traceback", []))
    for mime, value in output.get("data", {}).items():
        if mime.startswith("text/") or mime == "application/json":
            if isinstance(value, list):
                value = "".join(value)
            parts.append(value if isinstance(value, str) else str(value))
    return "\n".join(part if isinstance(part, str) else "".join(part) for part in parts)


def _text(value) -> str:
    return value if isinstance(value, str) else "".join(value)


def output_lines(cell) -> int:
    """The lines a reader scrolls through: streams, text/plain results and errors, together."""
    lines = 0
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            text = _text(output.get("text", ""))
        elif output.get("output_type") == "error":
            text = "\n".join(output.get("traceback", []))
        else:
            text = _text(output.get("data", {}).get("text/plain", ""))
        lines += len(text.rstrip("\n").splitlines())
    return lines


def truncated_table(output) -> bool:
    """A pandas table (or Series) shown cut: a cell value ending in "...", or a row or column of
    "..."."""
    data = output.get("data", {})
    html = _text(data.get("text/html", ""))
    if "<table" in html:  # what Jupyter and GitHub show
        values = (unescape(match.group(1)).strip() for match in HTML_CELL.finditer(html))
        return any(
            value == "..."
            or (value.endswith("...") and PANDAS_COLWIDTH - 2 <= len(value) <= PANDAS_COLWIDTH)
            for value in values
        )
    plain = _text(data.get("text/plain", ""))
    return bool(PANDAS_TEXT.search(plain) and TEXT_CUT.search(plain))


def _cell(index: int, cell) -> str:
    """``code cell 7 (`first line…`)``: the number other messages use, and a line to find it by."""
    first = next((line.strip() for line in cell.source.splitlines() if line.strip()), "")
    return f"code cell {index + 1} (`{first[:40]}{'…' if len(first) > 40 else ''}`)"


def code_line_problems(notebook) -> list:
    """Code lines longer than MAX_CODE_LINE characters, one problem each, naming cell and line."""
    problems = []
    code_cells = [c for c in notebook.cells if c.cell_type == "code" and c.source.strip()]
    for index, cell in enumerate(code_cells):
        for number, line in enumerate(cell.source.splitlines(), start=1):
            if len(line) > MAX_CODE_LINE:
                problems.append(
                    f"{_cell(index, cell)}, line {number}: {len(line)} characters "
                    f"(more than {MAX_CODE_LINE}): split it (`ruff format "
                    f"--line-length {MAX_CODE_LINE}` reflows code; split strings and "
                    "comments by hand)"
                )
    return problems


CHECK_CALL = re.compile(r"\bchecks\.(\w+)")


CHECKS_IMPORT = re.compile(r"^from helpers\.checks import (notebook\d\d) as checks\b", re.M)


def check_call_problems(notebook) -> list:
    """``checks.<name>`` in a code cell that the notebook's checks module does not have, one problem
    each: a check cell that would fail with AttributeError when a learner runs it. The notebook
    imports its own module, ``from helpers.checks import notebookNN as checks``."""
    import importlib

    problems = []
    code_cells = [c for c in notebook.cells if c.cell_type == "code" and c.source.strip()]
    imported = [m for c in code_cells for m in CHECKS_IMPORT.findall(c.source)]
    module = importlib.import_module(f"helpers.checks.{imported[0]}") if imported else None
    for index, cell in enumerate(code_cells):
        for name in dict.fromkeys(CHECK_CALL.findall(cell.source)):
            if module is None:
                problems.append(
                    f"{_cell(index, cell)}: checks.{name} is called, but no cell imports "
                    "`from helpers.checks import notebookNN as checks`"
                )
            elif not hasattr(module, name):  # a check, or what one needs (a constant, a watch)
                problems.append(
                    f"{_cell(index, cell)}: checks.{name} does not exist: call a check "
                    f"that helpers/checks/{module.__name__.rpartition('.')[2]}.py defines, "
                    "or add one there"
                )
    return problems


def output_problems(notebook) -> list:
    """Outputs a reader wants: short unless tagged long-output, no per-run values, tables not cut,
    one line each."""
    problems = []
    code_cells = [c for c in notebook.cells if c.cell_type == "code" and c.source.strip()]
    for index, cell in enumerate(code_cells):
        lines, tagged = output_lines(cell), LONG_OUTPUT_TAG in cell.metadata.get("tags", [])
        if lines > MAX_OUTPUT_LINES and not tagged:
            problems.append(
                f"{_cell(index, cell)}: {lines} lines of output (more than "
                f"{MAX_OUTPUT_LINES}): show only the lines the text talks about, or "
                f"tag the cell {LONG_OUTPUT_TAG} if the output is its subject"
            )
        elif tagged and lines <= MAX_OUTPUT_LINES and cell.execution_count is not None:
            problems.append(
                f"{_cell(index, cell)}: tagged {LONG_OUTPUT_TAG} but its output is "
                f"{lines} lines: remove the tag"
            )
        for output in cell.get("outputs", []):
            text = _output_text(output)
            for what, pattern in VARYING.items():
                match = pattern.search(text)
                if match:
                    problems.append(
                        f"{_cell(index, cell)}: {what} ({match.group(0)!r}) changes on "
                        "every run: show it in a stable form"
                    )
                    break
            if truncated_table(output):
                problems.append(
                    f"{_cell(index, cell)}: a table cut with '...' by pandas: show "
                    "fewer rows or columns, or widen pandas' display options for it"
                )
    return problems + xmode_problems(notebook)


def xmode_problems(notebook) -> list:
    """`%xmode` set away from Context must be set back before each exercise's solution runs and by
    the end, so that a learner's own errors keep their traceback."""
    problems, mode, where = [], "Context", ""
    code_cells = [c for c in notebook.cells if c.cell_type == "code" and c.source.strip()]
    for index, cell in enumerate(code_cells):
        before, marker, _ = cell.source.partition("### BEGIN SOLUTION")
        for match in XMODE.finditer(before):
            mode, where = match.group(1).capitalize(), _cell(index, cell)
        if marker and mode != "Context":
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", f"code cell {index + 1}")
            problems.append(
                f"{where} sets `%xmode {mode}` and it is still in effect when the "
                f"learner runs exercise {grade_id}: set `%xmode Context` back after "
                "the demonstration"
            )
    if mode != "Context":
        problems.append(
            f"{where} sets `%xmode {mode}` and nothing sets it back: end with `%xmode "
            "Context` after the demonstration"
        )
    return problems


def nbgrader_problems(notebook, prefix: str) -> list:
    """What keeps nbgrader from releasing and autograding this notebook's exercises, a line each."""
    problems = []
    cells = [cell for cell in notebook.cells if "nbgrader" in cell.metadata]
    ids = [cell.metadata["nbgrader"].get("grade_id", "") for cell in cells]
    for grade_id in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(
            f"nbgrader grade_id '{grade_id}' is used twice: nbgrader refuses the notebook"
        )
    for grade_id in ids:
        if not GRADE_ID.match(grade_id):
            problems.append(
                f"nbgrader grade_id '{grade_id}': use letters, digits, '-' and '_' only"
            )
    for index, cell in enumerate(notebook.cells):
        meta = cell.metadata.get("nbgrader", {})
        marked = "### BEGIN SOLUTION" in cell.source
        if marked and not meta.get("solution"):
            problems.append(
                f"cell {index + 1} has solution markers but is not an nbgrader solution cell"
            )
        if meta.get("solution") and not marked:
            problems.append(
                f"cell {index + 1} is an nbgrader solution cell without ### BEGIN "
                "SOLUTION: nbgrader would blank all of it"
            )
        if meta.get("grade") and not (meta.get("points", 0) > 0 and meta.get("locked")):
            problems.append(f"cell {index + 1} is graded but not locked with points > 0")
    if not any(c.metadata.get("nbgrader", {}).get("grade") for c in notebook.cells):
        problems.append("no autograded check cell: mark the exercises with tools/nbgrader_cells.py")
    try:
        planned = planned_metadata(notebook, prefix)
    except ValueError as error:
        return problems + [str(error)]
    for cell, wanted in planned:
        have = dict(cell.metadata.get("nbgrader", {}))
        wanted["grade_id"] = have.get("grade_id", wanted["grade_id"])
        if have != wanted:
            problems.append(
                f"exercise cell '{wanted['grade_id']}' lacks its nbgrader metadata: "
                "run tools/nbgrader_cells.py on the notebook"
            )
            break
    return problems


def notebook_problems(notebook, size_bytes: int) -> list:
    """Everything that keeps this notebook from being committed, one line each."""
    return structure_problems(notebook) + run_problems(notebook, size_bytes)


def structure_problems(notebook) -> list:
    """The template's frame: the title with its run time, the headings, the set-up cell first, an
    exercise (an English notebook's; the zh-TW edition translates them)."""
    problems = []
    markdown = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    first = notebook.cells[0] if notebook.cells else None
    if first is None or first.cell_type != "markdown" or not first.source.startswith("# "):
        problems.append("the first cell must be the H1 title and aim")
    elif "Run time" not in first.source:
        problems.append("the first cell must state the run time (full and fast)")
    for heading in REQUIRED_HEADINGS:
        if not re.search(rf"^{re.escape(heading)}\s*$", markdown, re.MULTILINE):
            problems.append(f"missing the template heading '{heading}'")

    code_cells = [c for c in notebook.cells if c.cell_type == "code" and c.source.strip()]
    if code_cells and "course_setup.start()" not in code_cells[0].source:
        problems.append("the first code cell must call course_setup.start()")
    if not any("### BEGIN SOLUTION" in c.source for c in code_cells):
        problems.append("no exercise solution (### BEGIN SOLUTION) found")
    return problems


def run_problems(notebook, size_bytes: int, language: str = "en") -> list:
    """What keeps the notebook's outputs from being committed: its size, widgets, cells not run or
    out of order, noise, errors and per-run values in the outputs, and a run stamp that is not of
    this code, in full mode, in ``language`` (tools/run_notebooks.py's stamp names a language
    other than English; the zh-TW edition's notebooks are run in ``"zh_TW"``)."""
    problems = []
    if size_bytes >= MAX_BYTES:
        problems.append(
            f"{size_bytes / 1e6:.2f} MB: keep it under 1 MB (fewer or smaller plots, shorter logs)"
        )
    if "widgets" in notebook.metadata:
        problems.append(
            "metadata.widgets present: GitHub refuses to render it (use plain-text tqdm)"
        )

    code_cells = [c for c in notebook.cells if c.cell_type == "code" and c.source.strip()]
    counts = []
    for index, cell in enumerate(code_cells):
        tags = cell.metadata.get("tags", [])
        if "widgets" in cell.metadata:
            problems.append(f"code cell {index + 1}: widget metadata")
        if cell.execution_count is None:
            if "nbval-skip" not in tags:
                problems.append(
                    f"code cell {index + 1} was never executed: re-execute it with `make sync`"
                )
            continue
        counts.append(cell.execution_count)
        for output in cell.get("outputs", []):
            if "application/vnd.jupyter.widget-view+json" in output.get("data", {}):
                problems.append(f"code cell {index + 1}: a widget output (use plain-text tqdm)")
            text = _output_text(output)
            if DEPRECATION.search(text):
                problems.append(f"code cell {index + 1}: deprecation noise in the output")
            match = MACHINE_PATH.search(text)
            if match:
                problems.append(
                    f"code cell {index + 1}: a machine path ({match.group(0)}…) in the output"
                )
            if language == "zh_TW" and NO_CHINESE_FONT in text:
                problems.append(
                    f"code cell {index + 1}: its figure was drawn without a Traditional Chinese "
                    "font: install one (fonts-noto-cjk on Linux) and re-execute it with `make sync`"
                )
            is_error = output.get("output_type") == "error" or TRACEBACK.search(text)
            if is_error and "raises-exception" not in tags:
                problems.append(
                    f"code cell {index + 1}: an error in a cell not tagged raises-exception"
                )
    if counts != list(range(1, len(counts) + 1)):
        problems.append("execution counts are not 1, 2, 3, ... in order: re-execute top to bottom")

    problems.extend(output_problems(notebook))

    stamp = notebook.metadata.get("workbook", {})
    ran_in = stamp.get("language", "en")
    if stamp.get("code_sha256") != code_hash(notebook):
        problems.append("the outputs are not from this code: re-execute it with `make sync`")
    elif stamp.get("mode") != "full":
        problems.append("executed in fast mode: commit the full-mode outputs (`make sync`)")
    elif ran_in != language:
        problems.append(
            f"the outputs are in {ran_in}, but this notebook's helpers speak {language}: "
            "re-execute it with `make sync`"
        )
    return problems
