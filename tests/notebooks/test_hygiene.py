"""Every committed notebook is what GitHub readers and the tests expect.

Size, execution order, no widgets, clean logs, no machine paths, no stray
errors, the template's headings, and outputs that come from the committed code.
The second half proves the checker fails on deliberately bad notebooks.
"""

import copy

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_output

from tests import ROOT
from tests.notebooks.hygiene import (
    NO_CHINESE_FONT,
    MAX_CODE_LINE,
    check_call_problems,
    code_line_problems,
    nbgrader_problems,
    notebook_problems,
    output_problems,
    run_problems,
)
from tools.run_notebooks import notebook_language, run_stamp

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
# The zh-TW edition's notebooks: the English code, run from notebooks/zh-TW/ (make sync).
ZH_TW_NOTEBOOKS = sorted((ROOT / "notebooks" / "zh-TW").glob("[0-9][0-9]_*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks found in notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebook_is_clean(path):
    notebook = nbformat.read(path, as_version=4)
    assert notebook_problems(notebook, path.stat().st_size) == []


@pytest.mark.parametrize("path", ZH_TW_NOTEBOOKS, ids=lambda p: p.name)
def test_committed_zh_tw_notebook_is_clean_and_was_run_in_zh_tw(path):
    """Its outputs are its own run's, in zh_TW: the helpers' and the checks' messages Chinese."""
    notebook = nbformat.read(path, as_version=4)
    problems = run_problems(notebook, path.stat().st_size, notebook_language(path))
    assert problems == [], f"{path.relative_to(ROOT)}: " + "; ".join(problems)


def test_a_zh_tw_notebook_with_the_english_run_s_outputs_is_refused(good):
    """The zh-TW edition has the English outputs (and no stamp) until make sync runs it in zh_TW;
    a stamp of a run in English, or in fast mode, is refused too."""
    assert notebook_language(ROOT / "notebooks" / "zh-TW" / "00_x.ipynb") == "zh_TW"
    assert run_problems(good, 10_000) == []  # the template's stamp: a full run in English
    problems = run_problems(good, 10_000, "zh_TW")
    assert problems == [
        "the outputs are in en, but this notebook's helpers speak zh_TW: re-execute it with "
        "`make sync`"
    ]
    notebook = copy.deepcopy(good)
    notebook.metadata["workbook"] = run_stamp(notebook, "zh_TW")
    assert run_problems(notebook, 10_000, "zh_TW") == []
    notebook.metadata["workbook"] = run_stamp(notebook, "zh_TW", fast=True)
    assert any("fast mode" in p for p in run_problems(notebook, 10_000, "zh_TW"))
    notebook.metadata.pop("workbook")
    assert any("not from this code" in p for p in run_problems(notebook, 10_000, "zh_TW"))


def test_a_zh_tw_figure_drawn_without_a_chinese_font_is_refused(good):
    notebook = copy.deepcopy(good)
    notebook.metadata["workbook"] = run_stamp(notebook, "zh_TW")
    _add_output(notebook, output_type="stream", name="stdout", text=f"{NO_CHINESE_FONT}，…\n")
    (problem,) = run_problems(notebook, 10_000, "zh_TW")
    assert "without a Traditional Chinese font" in problem and "fonts-noto-cjk" in problem


def test_nbval_drops_the_no_font_line_as_the_catalogue_words_it():
    # a machine without the font prints it where the committed run did not: nbval must not see it
    import configparser
    import re

    config = configparser.ConfigParser()
    config.read(ROOT / "tests" / "nbval_sanitize.cfg", encoding="utf-8")
    pattern = config["no Chinese font"]["regex"]
    assert NO_CHINESE_FONT.startswith("這台電腦") and re.fullmatch(pattern, NO_CHINESE_FONT + "\n")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_exercises_are_nbgrader_cells(path):
    notebook = nbformat.read(path, as_version=4)
    assert nbgrader_problems(notebook, "nb" + path.name[:2]) == []


TEMPLATE = ROOT / "tools" / "NN_template.ipynb"


@pytest.mark.parametrize("path", [*NOTEBOOKS, TEMPLATE], ids=lambda p: p.name)
def test_code_lines_fit_in_88_columns(path):
    problems = code_line_problems(nbformat.read(path, as_version=4))
    assert problems == [], f"{path.relative_to(ROOT)}: " + "; ".join(problems)


@pytest.mark.parametrize("path", [*NOTEBOOKS, TEMPLATE], ids=lambda p: p.name)
def test_every_check_a_cell_calls_exists(path):
    problems = check_call_problems(nbformat.read(path, as_version=4))
    assert problems == [], f"{path.relative_to(ROOT)}: " + "; ".join(problems)


@pytest.fixture(scope="module")
def good():
    """The template a notebook starts from (tools/NN_template.ipynb), clean by
    tests/notebooks/test_template_notebook.py: the bad notebooks below are copies of it, so they do
    not change while the notebooks are rewritten."""
    notebook = nbformat.read(TEMPLATE, as_version=4)
    assert notebook_problems(notebook, TEMPLATE.stat().st_size) == []
    return notebook


def _code_cells(notebook):
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def _problems_after(good, change):
    notebook = copy.deepcopy(good)
    change(notebook)
    return notebook_problems(notebook, 10_000)


def _add_output(notebook, **fields):
    cell = [c for c in _code_cells(notebook) if "tags" not in c.metadata][1]
    cell.outputs.append(new_output(**fields))


BAD = {
    "too large": lambda nb: None,
    "widgets": lambda nb: nb.metadata.__setitem__("widgets", {"state": {}}),
    "unexecuted": lambda nb: _code_cells(nb)[2].__setitem__("execution_count", None),
    "out of order": lambda nb: _code_cells(nb)[2].__setitem__("execution_count", 99),
    "deprecation": lambda nb: _add_output(
        nb,
        output_type="stream",
        name="stderr",
        text="WARNING:tensorflow:From x.py:1: Foo (from bar) is deprecated and will be removed in "
        "a future version.\n",
    ),
    "machine path": lambda nb: _add_output(
        nb,
        output_type="stream",
        name="stdout",
        text="Saving checkpoints for 0 into /home/ana/course/models/x/model.ckpt.\n",
    ),
    "error": lambda nb: _add_output(
        nb, output_type="error", ename="ValueError", evalue="boom", traceback=["ValueError: boom"]
    ),
    "no recap": lambda nb: [
        c.__setitem__("source", c.source.replace("## Recap", "## Summary")) for c in nb.cells
    ],
    "edited, not re-run": lambda nb: _code_cells(nb)[-1].__setitem__("source", "print('changed')"),
    "no setup": lambda nb: nb.cells.insert(1, new_code_cell("import os", execution_count=0)),
    "no title": lambda nb: nb.cells.__setitem__(0, new_markdown_cell("Some notes")),
}


@pytest.mark.parametrize("defect", sorted(BAD))
def test_checker_fails_on_a_bad_notebook(good, defect):
    if defect == "too large":
        problems = notebook_problems(good, 1_500_000)
    else:
        problems = _problems_after(good, BAD[defect])
    assert problems, f"the hygiene check missed: {defect}"


def _solution_and_check(notebook):
    cells = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution")]
    return cells[0], notebook.cells[notebook.cells.index(cells[0]) + 1]


def _set(cell, **fields):
    cell.metadata["nbgrader"].update(fields)


NBGRADER_BAD = {
    "markers outside a solution cell": lambda nb: _solution_and_check(nb)[0].metadata.pop(
        "nbgrader"
    ),
    "solution cell without markers": lambda nb: _solution_and_check(nb)[0].__setitem__(
        "source", "answer = 1"
    ),
    "check not graded": lambda nb: _set(_solution_and_check(nb)[1], grade=False),
    "check without points": lambda nb: _set(_solution_and_check(nb)[1], points=0),
    "check not locked": lambda nb: _set(_solution_and_check(nb)[1], locked=False),
    "grade_id twice": lambda nb: _set(
        _solution_and_check(nb)[1],
        grade_id=_solution_and_check(nb)[0].metadata["nbgrader"]["grade_id"],
    ),
    "grade_id with a space": lambda nb: _set(_solution_and_check(nb)[1], grade_id="check one"),
    "old schema": lambda nb: _set(_solution_and_check(nb)[1], schema_version=1),
    "check cell removed": lambda nb: nb.cells.remove(_solution_and_check(nb)[1]),
}


@pytest.mark.parametrize("defect", sorted(NBGRADER_BAD))
def test_nbgrader_check_fails_on_bad_metadata(good, defect):
    assert nbgrader_problems(good, "nbNN") == []
    notebook = copy.deepcopy(good)
    NBGRADER_BAD[defect](notebook)
    assert nbgrader_problems(notebook, "nbNN"), f"the nbgrader check missed: {defect}"


# Outputs a reader wants: each rule of hygiene.output_problems on a deliberately bad copy
# of the
# template (tools/NN_template.ipynb, clean by tests/notebooks/test_template_notebook.py), and the
# case it must let through.


@pytest.fixture(scope="module")
def template(good):
    assert output_problems(good) == []
    return good


def _shown(notebook, *outputs, tags=(), source=None):
    """The template with one more executed code cell before the exercises, showing ``outputs``."""
    notebook = copy.deepcopy(notebook)
    cell = new_code_cell(source or "show()", execution_count=1, outputs=list(outputs))
    cell.metadata["tags"] = list(tags)
    recap = next(i for i, c in enumerate(notebook.cells) if c.source.startswith("## Recap"))
    notebook.cells.insert(recap, cell)
    return notebook


def _stream(text):
    return new_output("stream", name="stdout", text=text)


def _result(plain, html=None):
    data = {"text/plain": plain} | ({"text/html": html} if html else {})
    return new_output("execute_result", data=data, execution_count=1)


def _html_table(*rows):
    body = "".join("<tr>" + "".join(f"<td>{value}</td>" for value in row) + "</tr>" for row in rows)
    return f'<table border="1" class="dataframe"><tbody>{body}</tbody></table>'


LOG_LINE = "INFO:tensorflow:Calling checkpoint listeners before saving checkpoint 0..."
OUTPUT_BAD = {  # defect: (a word the problem must hold, the change)
    "31 lines in one stream": ("31 lines", lambda nb: _shown(nb, _stream("line\n" * 31))),
    "31 lines across stream, result and error": (
        "31 lines",
        lambda nb: _shown(
            nb,
            _stream("a\n" * 10),
            _result("b\n" * 10),
            new_output("error", ename="E", evalue="e", traceback=["c"] * 11),
            tags=["raises-exception"],
        ),
    ),
    "ISO timestamp": (
        "timestamp",
        lambda nb: _shown(nb, _stream("Starting evaluation at 2026-12-03T13:25:01\n")),
    ),
    "TF's finished-evaluation timestamp": (
        "timestamp",
        lambda nb: _shown(nb, _stream("Finished evaluation at 2026-12-03-13:25:04\n")),
    ),
    "timestamp with a space": (
        "timestamp",
        lambda nb: _shown(nb, _stream("run at 2026-12-03 13:25:01\n")),
    ),
    "glog timestamp": (
        "timestamp",
        lambda nb: _shown(
            nb, _stream("I1203 13:25:01.123456 140 grpc_server_lib.cc:467] Started server\n")
        ),
    ),
    "event-file name": (
        "event-file",
        lambda nb: _shown(nb, _result("events.out.tfevents.1796303750.vm")),
    ),
    "temp- export folder": (
        "temp-",
        lambda nb: _shown(
            nb, _stream("SavedModel written to: ../models/x/temp-1796304151/saved_model.pb\n")
        ),
    ),
    "export-folder number": (
        "export-folder number",
        lambda nb: _shown(nb, _result("'../models/08_export/1796304151'")),
    ),
    "memory address": (
        "memory address",
        lambda nb: _shown(nb, _result("<matplotlib.legend.Legend at 0x7f3a5c1e2d90>")),
    ),
    "process id": (
        "process id",
        lambda nb: _shown(nb, _stream("[launcher] started chief (pid 24976)\n")),
    ),
    "pandas row of ...": (
        "cut with",
        lambda nb: _shown(nb, _result("df", _html_table(("1", "2"), ("...", "..."), ("9", "9")))),
    ),
    "pandas value cut at max_colwidth": (
        "cut with",
        lambda nb: _shown(
            nb,
            _result("df", _html_table(("function in tensorflow.python.ops.losses.losse...", "1"))),
        ),
    ),
    "pandas Series cut, text only": (
        "cut with",
        lambda nb: _shown(nb, _result("0    1\n1    2\n    ..\n98   9\nLength: 99, dtype: int64")),
    ),
    "%xmode never set back": (
        "nothing sets it back",
        lambda nb: _shown(nb, tags=["raises-exception"], source="%xmode Minimal\n1 / 0"),
    ),
    "%xmode set back only after the exercise": (
        "still in effect",
        lambda nb: _xmode_reset_after_exercise(nb),
    ),
    "long-output on a short output": (
        "remove the tag",
        lambda nb: _shown(nb, _stream("line\n" * 30), tags=["long-output"]),
    ),
}


def _xmode_reset_after_exercise(notebook):
    notebook = _shown(notebook, tags=["raises-exception"], source="%xmode Minimal\n1 / 0")
    notebook.cells.append(new_code_cell("%xmode Context", execution_count=2))
    return notebook


@pytest.mark.parametrize("defect", sorted(OUTPUT_BAD))
def test_output_rules_fail_on_a_bad_notebook(template, defect):
    word, change = OUTPUT_BAD[defect]
    problems = output_problems(change(template))
    assert any(word in problem for problem in problems), (
        f"the output check missed: {defect}: {problems}"
    )
    assert all(problem.startswith("code cell ") for problem in problems), problems


OUTPUT_GOOD = {
    "30 lines": lambda nb: _shown(nb, _stream("line\n" * 30)),
    "a long output tagged long-output": lambda nb: _shown(
        nb, _stream("line\n" * 60), tags=["long-output"]
    ),
    "placeholders instead of the values": lambda nb: _shown(
        nb,
        _stream(
            "events.out.tfevents.<time>.<host>\nexport/<timestamp>\nmodel.ckpt-1200\nstarted "
            "chief, worker 0\n"
        ),
    ),
    "a step count and a loss": lambda nb: _shown(
        nb, _stream("loss = 0.1234567891, step = 1999999999\n")
    ),
    "a whole log line ending in ... in a table": lambda nb: _shown(
        nb, _result("df", _html_table((LOG_LINE, "1")))
    ),
    "a log line ending in ... in a stream": lambda nb: _shown(nb, _stream(LOG_LINE + "\n")),
    "%xmode set back before the exercises": lambda nb: _shown(
        nb, tags=["raises-exception"], source="%xmode Minimal\n1 / 0\n%xmode Context"
    ),
}


@pytest.mark.parametrize("case", sorted(OUTPUT_GOOD))
def test_output_rules_let_a_good_output_through(template, case):
    assert output_problems(OUTPUT_GOOD[case](template)) == []


def test_xmode_reset_inside_the_solution_cell_before_the_marker_counts(template):
    """Notebooks 08 and 10 set `%xmode Context` back on the solution cell's first line, which the
    learner runs."""
    notebook = _shown(template, tags=["raises-exception"], source="%xmode Minimal\n1 / 0")
    solution = next(c for c in notebook.cells if "### BEGIN SOLUTION" in c.source)
    assert output_problems(notebook) != []
    solution.source = "%xmode Context\n" + solution.source
    assert output_problems(notebook) == []


def test_code_line_check_fails_on_a_long_line_and_names_cell_and_line(template):
    """One character over the limit, in the third line of a cell: the problem names that cell and
    line; a line of exactly the limit passes."""
    at_limit = "x = " + "1" * (MAX_CODE_LINE - 4)
    notebook = _shown(template, source=f"a = 1\n{at_limit}\nfine = 2")
    assert code_line_problems(notebook) == []
    notebook = _shown(template, source=f"a = 1\n{at_limit}\n{at_limit}1")
    problems = code_line_problems(notebook)
    cell = next(
        i
        for i, c in enumerate(
            c for c in notebook.cells if c.cell_type == "code" and c.source.strip()
        )
        if c.source.startswith("a = 1")
    )
    assert problems == [
        f"code cell {cell + 1} (`a = 1`), line 3: {MAX_CODE_LINE + 1} characters "
        f"(more than {MAX_CODE_LINE}): split it (`ruff format --line-length "
        f"{MAX_CODE_LINE}` reflows code; split strings and comments by hand)"
    ]


def test_check_call_check_fails_on_a_check_that_does_not_exist(template):
    notebook = _shown(template, source="checks.majority_accuracy(answer, mnist)")
    assert not any("majority_accuracy" in problem for problem in check_call_problems(notebook))
    notebook = _shown(template, source="checks.majority_acuracy(answer, mnist)")
    problems = check_call_problems(notebook)
    code_cells = [c for c in notebook.cells if c.cell_type == "code" and c.source.strip()]
    cell = next(i for i, c in enumerate(code_cells) if "majority_acuracy" in c.source) + 1
    assert [p for p in problems if "majority_acuracy" in p] == [
        f"code cell {cell} (`checks.majority_acuracy(answer, mnist)`): checks.majority_acuracy "
        "does not exist: call a check that helpers/checks/notebook00.py defines, or add one there"
    ]
