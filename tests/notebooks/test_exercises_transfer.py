"""Exercises ask for a transfer: no answer already stands in what the learner reads before it.

For every exercise of every notebook, the solution (the teacher notebook's solution cell, between
``### BEGIN SOLUTION`` and ``### END SOLUTION``) is compared with the cells above that exercise in
the student copy (``notebooks/student/``, what a learner reads: code and markdown, sources only).
The test fails when half or more of the solution's lines already stand there, and when two exercises
of a notebook share a solution (more than half of the lines of each stand in the other: two
model_fns that fix different branches share their skeleton, and that alone is not one solution).

What counts as a line, and when it "stands" somewhere:

- Blank lines, comment-only lines, IPython magics (``%xmode Context``) and the lines outside the
  markers (``answer = None``) are not the solution.
- Whitespace is ignored (kept only where it separates two words, as in ``return x``), so a line
  found wrapped over several lines, or re-indented, or inside a markdown code span, still stands
  there. A line stands in a cell when its text occurs there between word boundaries.
- An assignment ``name = value`` or a ``return value`` also stands when only its ``value`` (a whole
  expression) does: an answer copied from ``learning_rate = <the schedule>`` into
  ``schedule = <the schedule>`` is given away all the same. A dict literal also stands when all its
  ``key: value`` entries stand in one cell, in any order (notebook 05's tensor names).
- **Trivial lines are left out of the count** (neither found nor counted): lines with at most one
  name or number besides Python's keywords and punctuation, such as ``)``, ``]``, ``else:``,
  ``return x``, ``return 0``, ``pass``. They carry no idea of their own, they occur in almost any
  cell (so they would be "found" above every exercise), and counting them as not found would let a
  solution pad its way under the threshold.
"""

from __future__ import annotations

import copy
import itertools
import keyword
import re
from dataclasses import dataclass
from html import unescape

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from tests import ROOT
from tools.make_student import for_the_student_folder

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
NOT_NAMES = set(keyword.kwlist) | set(keyword.softkwlist) | {"self"}
TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\"[^\"]*\"|'[^']*'")
VALUE = re.compile(
    r"^(?:return|yield)\s+(.+)$|^[\w.]+(?:\[[^\]]*\])?(?:\s*,\s*[\w.]+)*\s*[-+*/]?=(?!=)\s*(.+)$"
)
GIVEN_AWAY_SHARE = 0.5  # half or more of a solution's lines above it: given away
# more than half of the lines of each in the other: "mostly the same lines", one solution
SHARED_SHARE = 0.5


def squeeze(text: str) -> str:
    """``text`` without whitespace, but for one space between two word characters (``return x``)."""
    return re.sub(r"\s+", lambda m: " " if _between_words(m) else "", text).strip()


def _between_words(match) -> bool:
    text, start, end = match.string, match.start(), match.end()
    return (
        0 < start
        and end < len(text)
        and (text[start - 1].isalnum() or text[start - 1] == "_")
        and (text[end].isalnum() or text[end] == "_")
    )


def solution_lines(source: str) -> list[str]:
    """The solution's lines that count: between the markers, not blank,
    not comments or magics, not trivial."""
    if BEGIN not in source:
        return []
    body = source.split(BEGIN, 1)[1].split(END, 1)[0]
    lines = []
    for line in body.splitlines():
        line = strip_comment(line).strip().rstrip(";").strip()  # `;` only hides a cell's result
        if line and not line.startswith(("#", "%", "!")) and not trivial(line):
            lines.append(line)
    return lines


def strip_comment(line: str) -> str:
    """The line without its comment: from the first ``#`` outside a string literal."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            quote = None if char == quote and line[index - 1] != "\\" else quote
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[:index]
    return line


def trivial(line: str) -> bool:
    """At most one name or number besides keywords and punctuation:
    ``)``, ``else:``, ``return x``."""
    return len([token for token in TOKEN.findall(line) if token not in NOT_NAMES]) <= 1


def forms(line: str) -> list[str]:
    """What to look for: the line itself,
    and the value it assigns or returns when that is a whole expression."""
    found = [squeeze(line)]
    match = VALUE.match(line)
    value = match and (match.group(1) or match.group(2))
    if value and not trivial(value) and balanced(value):
        found.append(squeeze(value))
    return found


def balanced(text: str) -> bool:
    depth = 0
    for char in re.sub(r"\"[^\"]*\"|'[^']*'", "", text):
        depth += (char in "([{") - (char in ")]}")
        if depth < 0:
            return False
    return depth == 0


def dict_entries(line: str) -> list[str]:
    """The ``key: value`` entries of the dict literal a line assigns or returns
    (two or more), else none."""
    match = VALUE.match(line)
    value = (match and (match.group(1) or match.group(2)) or "").strip()
    if not (value.startswith("{") and value.endswith("}") and balanced(value[1:-1])):
        return []
    entries, depth, start, body = [], 0, 0, value[1:-1]
    for index, char in enumerate(body + ","):
        depth += (char in "([{") - (char in ")]}")
        if char == "," and depth == 0:
            entries.append(squeeze(body[start:index]))
            start = index + 1
    entries = [entry for entry in entries if entry]
    return entries if len(entries) >= 2 and all(":" in entry for entry in entries) else []


def _occurs(form: str, text: str) -> bool:
    left = r"(?<!\w)" if re.match(r"\w", form) else ""
    right = r"(?!\w)" if re.search(r"\w$", form) else ""
    return re.search(left + re.escape(form) + right, text) is not None


def stands_in(line: str, text: str) -> str | None:
    """How ``line`` stands in the squeezed ``text``
    ("the line", "its value", "its entries"), else None."""
    line_form, *value_form = forms(line)
    if _occurs(line_form, text):
        return "the line"
    if value_form and _occurs(value_form[0], text):
        return "its value"
    entries = dict_entries(line)
    if entries and all(_occurs(entry, text) for entry in entries):
        return "its entries"
    return None


def readable_text(cell) -> str:
    """What a learner reads in a cell, squeezed: the source,
    markdown's escapes and entities undone."""
    source = cell.source
    if cell.cell_type == "markdown":
        source = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|])", r"\1", unescape(source))
    return squeeze(source)


@dataclass
class Exercise:
    grade_id: str
    lines: list  # the solution lines that count
    source: str  # the whole solution text, squeezed


def exercises(teacher) -> list[Exercise]:
    return [
        Exercise(
            cell.metadata["nbgrader"]["grade_id"],
            solution_lines(cell.source),
            squeeze("\n".join(solution_lines(cell.source))),
        )
        for cell in teacher.cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    ]


def _cell_label(index: int, cell) -> str:
    first = next((line.strip() for line in cell.source.splitlines() if line.strip()), "")
    return f"cell {index + 1} ({cell.cell_type}: `{first[:50]}{'…' if len(first) > 50 else ''}`)"


def _stale_cell(teacher, above: list, grade_id: str) -> str | None:
    """The first cell above the exercise where the student copy is not the notebook (nbgrader
    changes only the solution cells), else None:
    a stale copy would test what the learner no longer reads."""
    ids = [cell.metadata.get("nbgrader", {}).get("grade_id") for cell in teacher.cells]
    mine = teacher.cells[: ids.index(grade_id)]
    for index, (cell, theirs) in enumerate(itertools.zip_longest(mine, above)):
        if (
            cell is None
            or theirs is None
            or cell.get("id") != theirs.get("id")
            or (
                cell.source != theirs.source
                and not cell.metadata.get("nbgrader", {}).get("solution")
            )
        ):
            return f"cell {index + 1}"
    return None


def given_away(teacher, student, name: str) -> list[str]:
    """One message per exercise whose solution stands, half or more,
    in the student copy above it."""
    problems = []
    student_ids = [cell.metadata.get("nbgrader", {}).get("grade_id") for cell in student.cells]
    for exercise in exercises(teacher):
        if exercise.grade_id not in student_ids:
            problems.append(
                f"{name}: exercise {exercise.grade_id} is not in the student copy: regenerate it "
                "(tools/make_student.py)"
            )
            continue
        above = student.cells[: student_ids.index(exercise.grade_id)]
        stale = _stale_cell(teacher, above, exercise.grade_id)
        if stale is not None:
            problems.append(
                f"{name}: exercise {exercise.grade_id}: the student copy is out of date above it "
                f"({stale} differs from the notebook's): "
                "regenerate it (tools/make_student.py), then run this test"
            )
            continue
        texts = [readable_text(cell) for cell in above]
        found = []
        for line in exercise.lines:
            where = [(stands_in(line, text), index) for index, text in enumerate(texts)]
            where = [(form, index) for form, index in where if form]
            if where:
                form, index = where[-1]  # the nearest: the one the learner read last
                what = (
                    f"`{line}`"
                    if form == "the line"
                    else f"{form.replace('its', 'the')} of `{line}`"
                )
                found.append(
                    f"  {what} stand{'s' * (form != 'its entries')} in "
                    f"{_cell_label(index, above[index])}"
                )
        if exercise.lines and len(found) >= GIVEN_AWAY_SHARE * len(exercise.lines):
            problems.append(
                f"{name}: exercise {exercise.grade_id}: "
                f"{len(found)} of {len(exercise.lines)} solution "
                "lines already stand above it in the student copy; ask for the idea applied to "
                "something the notebook did not show:\n" + "\n".join(found)
            )
    return problems


def shared_solutions(teacher, name: str) -> list[str]:
    """One message per pair of exercises of a notebook whose solutions are mostly the same lines."""
    problems = []
    for first, second in itertools.combinations(exercises(teacher), 2):
        if not (first.lines and second.lines):
            continue
        in_second = [line for line in first.lines if stands_in(line, second.source)]
        in_first = [line for line in second.lines if stands_in(line, first.source)]
        if len(in_second) > SHARED_SHARE * len(first.lines) and len(in_first) > SHARED_SHARE * len(
            second.lines
        ):
            shown = "\n".join(f"  `{line}`" for line in in_second)
            problems.append(
                f"{name}: exercises {first.grade_id} and {second.grade_id} share a solution "
                f"({len(in_second)} of {len(first.lines)} and {len(in_first)} of "
                f"{len(second.lines)} lines in common): make each ask for something else\n{shown}"
            )
    return problems


def _student_copy(path):
    return nbformat.read(ROOT / "notebooks" / "student" / path.name, as_version=4)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_answer_stands_above_its_exercise_in_the_student_copy(path):
    # the notebook as its student folder shows it (links rewritten, the generated-file note)
    teacher = for_the_student_folder(nbformat.read(path, as_version=4), path)
    problems = given_away(teacher, _student_copy(path), path.name)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_two_exercises_share_a_solution(path):
    problems = shared_solutions(nbformat.read(path, as_version=4), path.name)
    assert not problems, "\n".join(problems)


# The rules on small notebooks built here: a teacher notebook with its exercises, and its student
# copy with the solutions blanked as nbgrader blanks them.


def _pair(*cells):
    """(teacher, student) from cells given as ("md"|"code"|"solution", source);
    solutions get grade_ids."""
    teacher, student, count = new_notebook(), new_notebook(), 0
    for kind, source in cells:
        if kind == "md":
            teacher.cells.append(new_markdown_cell(source))
            student.cells.append(new_markdown_cell(source))
        elif kind == "code":
            teacher.cells.append(new_code_cell(source))
            student.cells.append(new_code_cell(source))
        else:
            count += 1
            meta = {"nbgrader": {"grade_id": f"nbXX-ex{count}-solution", "solution": True}}
            teacher.cells.append(
                new_code_cell(f"answer = None\n{BEGIN}\n{source}\n{END}", metadata=meta)
            )
            student.cells.append(
                new_code_cell(
                    "answer = None\n# YOUR CODE HERE\nraise NotImplementedError()", metadata=meta
                )
            )
        student.cells[-1].id = teacher.cells[-1].id  # nbgrader keeps the cell ids
    return teacher, student


SCHEDULE = (
    "schedule = keras.optimizers.schedules.ExponentialDecay(2e-3, decay_steps=1500, decay_rate=0.1)"
)
METRIC_FN = (
    "def macro_precision(labels, predictions):\n"
    '    return {"precision": metrics.precision_recall_f1(labels, predictions["classes"],\n'
    '                                                     num_classes=10)["precision_macro"]}'
)
GIVEN_AWAY = {
    "the same line in a code cell above": _pair(
        ("code", SCHEDULE.replace("schedule =", "decay =") + "\nprint(decay(0))"),
        ("md", "**Exercise 1.** Write the schedule."),
        ("solution", SCHEDULE),
    ),
    "re-wrapped and re-indented in a code cell above": _pair(
        (
            "code",
            "def article(labels, predictions):\n"
            '  return {"precision": metrics.precision_recall_f1(\n'
            '      labels, predictions["classes"], num_classes=10)["precision_macro"]}',
        ),
        ("solution", METRIC_FN.replace("macro_precision", "mine")),
    ),
    "in a markdown code span above": _pair(
        ("md", f"The recap: `{SCHEDULE}` gives the rate at every step."), ("solution", SCHEDULE)
    ),
    "in a markdown code block above": _pair(
        (
            "md",
            "The recap:\n\n```python\n"
            + METRIC_FN.replace("macro_precision", "metric_fn")
            + "\n```",
        ),
        ("solution", METRIC_FN),
    ),
    "a dict's entries above, in another order": _pair(
        (
            "code",
            'hook = Hook({"predicted": "monitor/first_classes", "true": "monitor/first_labels",\n'
            '             "confidence": "monitor/confidence"})',
        ),
        (
            "solution",
            'fixed_tensors = {"confidence": "monitor/confidence", '
            '"predicted": "monitor/first_classes"}',
        ),
    ),
    "the assigned value under another name": _pair(
        ("code", SCHEDULE.replace("schedule =", "learning_rate =")), ("solution", SCHEDULE)
    ),
    "in the exercise's own statement": _pair(
        ("md", "**Exercise 1.** Set `global_steps = [200, 500, 500, 600]`."),
        ("solution", "global_steps = [200, 500, 500, 600]"),
    ),
    "two of three lines above, the trivial ones left out": _pair(
        ("code", "mistakes = matrix.copy()\nnp.fill_diagonal(mistakes, 0)"),
        (
            "solution",
            "mistakes = matrix.copy()\nnp.fill_diagonal(mistakes, 0)\n"
            "true_digit, "
            "predicted_digit = np.unravel_index(mistakes.argmax(), mistakes.shape)\n)\n)",
        ),
    ),
}


@pytest.mark.parametrize("case", sorted(GIVEN_AWAY))
def test_an_answer_above_its_exercise_fails(case):
    teacher, student = GIVEN_AWAY[case]
    problems = given_away(teacher, student, "XX_bad.ipynb")
    assert len(problems) == 1, problems
    assert problems[0].startswith("XX_bad.ipynb: exercise nbXX-ex1-solution: "), problems[0]
    assert re.search(r" stands? in cell \d+ \((code|markdown): `", problems[0]), problems[0]


def test_the_message_names_the_line_and_the_cell_it_stands_in():
    teacher, student = GIVEN_AWAY["the assigned value under another name"]
    message = given_away(teacher, student, "10_keras.ipynb")[0]
    assert message.startswith("10_keras.ipynb: exercise nbXX-ex1-solution: 1 of 1 solution lines")
    assert (
        f"the value of `{SCHEDULE}` stands in cell 1 (code: `learning_rate = keras.optimizers"
        in message
    )


NOT_GIVEN_AWAY = {
    "only trivial lines above": _pair(
        ("code", "def f(x):\n    if x:\n        return x\n    else:\n        return 0\n    )\n"),
        ("solution", "def g(x):\n    if x > 2:\n        return x\n    else:\n        return 0"),
    ),
    "one of three lines above": _pair(
        ("code", "mistakes = matrix.copy()"),
        (
            "solution",
            "mistakes = matrix.copy()\nnp.fill_diagonal(mistakes, 0)\n"
            "pair = np.unravel_index(mistakes.argmax(), mistakes.shape)",
        ),
    ),
    "the answer only after the exercise": _pair(
        ("md", "**Exercise 1.**"), ("solution", SCHEDULE), ("code", SCHEDULE)
    ),
    "the same comments, other code": _pair(
        ("code", "# read the global step again\nsteps.append(int(session.run(step_a)))"),
        (
            "solution",
            "# read the global step "
            "again\nsteps.append(int(run_context.session.run(self.global_step)))",
        ),
    ),
    "a longer name that contains the line": _pair(
        ("code", "total_steps = [200, 500, 500, 600]"), ("solution", "steps = [200, 500, 500]")
    ),
}


def test_a_stale_student_copy_fails_instead_of_testing_old_cells():
    teacher, student = NOT_GIVEN_AWAY["one of three lines above"]
    teacher = copy.deepcopy(teacher)
    teacher.cells[0].source = "np.fill_diagonal(mistakes, 0)\nmistakes = matrix.copy()"
    problems = given_away(teacher, student, "XX.ipynb")
    assert problems == [
        "XX.ipynb: exercise nbXX-ex1-solution: the student copy is out of date above it (cell 1 "
        "differs from the notebook's): regenerate it (tools/make_student.py), then run this test"
    ]


@pytest.mark.parametrize("case", sorted(NOT_GIVEN_AWAY))
def test_a_transfer_passes(case):
    teacher, student = NOT_GIVEN_AWAY[case]
    assert given_away(teacher, student, "XX_good.ipynb") == []


def test_two_exercises_sharing_a_solution_fail():
    body = (
        '    return (inputs.image_dataset("mnist", "train").shuffle(10_000).repeat().batch(100)\n'
        '            .map(lambda images, labels: ({"image": images}, labels)))'
    )
    teacher, _ = _pair(
        ("solution", "def dict_input_fn():\n" + body),
        ("solution", "def int_labels_input_fn():\n" + body),
    )
    problems = shared_solutions(teacher, "02_input_fn.ipynb")
    assert len(problems) == 1
    assert problems[0].startswith(
        "02_input_fn.ipynb: exercises nbXX-ex1-solution and nbXX-ex2-solution share a "
        "solution (2 of 2 and 2 of 2 lines in common)"
    ), problems[0]


def test_two_model_fns_sharing_half_their_skeleton_pass():
    skeleton = [
        "logits = linear_logits(features)",
        "if mode == ModeKeys.PREDICT:",
        "loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)",
    ]
    teacher, _ = _pair(
        (
            "solution",
            "\n".join(
                [
                    "def a(features, labels, mode):",
                    *skeleton,
                    "x = f(y, z)",
                    "w = g(v, u)",
                    "t = h(s, r)",
                ]
            ),
        ),
        (
            "solution",
            "\n".join(["def b(features, labels, mode):", *skeleton, "q = k(p, o)", "n = m(l, j)"]),
        ),
    )
    assert shared_solutions(teacher, "03.ipynb") == []


def test_a_solution_that_reuses_one_line_of_another_passes():
    teacher, _ = _pair(
        (
            "solution",
            "fixed = keras.metrics.F1Score(average='macro')\nfixed.update_state(a, b)\n"
            "f1 = fixed.result()",
        ),
        (
            "solution",
            "fixed = keras.metrics.F1Score(average='macro')\nfixed.update_state(c, d)\n"
            "f1 = float(fixed.result().numpy())",
        ),
    )
    assert shared_solutions(teacher, "10.ipynb") == []
