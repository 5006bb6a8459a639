"""Every exercise's check is tried on every kind of wrong answer that applies to it (issue 46,
point 7), counted from the ``bank`` marks where the answers are written (tests/support/banks.py):
each kind of each exercise is tagged on a test of the exercise's own test module, or argued not to
apply in that module's ``NOT_APPLICABLE``, never both; ``test_the_totals`` prints the counts."""

from __future__ import annotations

import importlib
import json
import re

import pytest

from tests import ROOT
from tests.support.banks import KINDS, tagged


def exercises() -> dict:
    """``{"00": [1, 2], ...}``: the exercises of each notebook, from its check cells' ids."""
    found: dict = {}
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
            match = re.fullmatch(r"nb(\d\d)-ex(\d+)-check", grade_id)
            if match:
                found.setdefault(match[1], []).append(int(match[2]))
    return found


def bank_of(notebook: str):
    """(tagged kinds, argued kinds) of a notebook's test module."""
    module = importlib.import_module(f"tests.helpers.checks.test_notebook{notebook}")
    return tagged(module), getattr(module, "NOT_APPLICABLE", {})


@pytest.mark.parametrize("notebook", sorted(exercises()))
def test_each_kind_is_tried_or_argued_not_to_apply(notebook):
    tried, argued = bank_of(notebook)
    numbers = exercises()[notebook]
    problems = [f"exercise {n} has no tests of its own" for n in argued if n not in numbers]
    problems += [
        f"{tests} tag exercise {n}, which is not there"
        for (n, _k), tests in tried.items()
        if n not in numbers
    ]
    for n in numbers:
        reasons = argued.get(n, {})
        problems += [f"ex {n}: {kind!r} is no kind" for kind in reasons if kind not in KINDS]
        for kind in KINDS:
            if (n, kind) in tried and kind in reasons:
                problems.append(f"ex {n}: {kind!r} is tried ({tried[n, kind]}) and argued n/a")
            elif (n, kind) not in tried and not reasons.get(kind, "").strip():
                problems.append(f"ex {n}: no test tries {kind!r}, and no reason says why not")
    assert not problems, "\n".join(problems)


def test_the_totals(capsys):
    counts = {"tried": 0, "n/a": 0, "tests": 0}
    for notebook, numbers in sorted(exercises().items()):
        tried, argued = bank_of(notebook)
        counts["tried"] += len(tried)
        counts["tests"] += sum(len(tests) for tests in tried.values())
        counts["n/a"] += sum(len(argued.get(n, {})) for n in numbers)
    with capsys.disabled():
        print(
            f"\nbanks: {counts['tried']} kinds tried by {counts['tests']} tagged tests, "
            f"{counts['n/a']} argued not to apply"
        )
    assert counts["tried"] + counts["n/a"] == len(KINDS) * sum(map(len, exercises().values()))
