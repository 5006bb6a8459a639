"""Which kinds of wrong answer each exercise's check is tried on, tagged where each answer is
written (issue 46, point 7): ``bank(1, "wrong unit")`` marks a test, or one ``pytest.param`` of a
bank, as trying exercise 1 with an answer of that kind; a test module's ``NOT_APPLICABLE`` argues,
per exercise, each kind that does not apply. ``tests/helpers/checks/test_banks.py`` counts them.
"""

from __future__ import annotations

import pytest

# A kind applies when a learner could plausibly give such an answer to the exercise.
KINDS = (
    "off by one",  # a count, an index, a position or a boundary one off
    "wrong unit",  # the right quantity in another unit or form (a percentage, an index, one-hot)
    "hard-coded from an output above",  # typed from an output (for a function: returning it)
    "copy of a nearby cell",  # most often the exercise's own break-it cell
    "right shape, wrong content",  # the right type and shape, the wrong values
    "forbidden API",  # only where the prompt rules an API out or asks for one
    "right on the notebook's data, wrong in general",  # code bound to the notebook's data
    "right, written otherwise",  # a right answer in another form or way than the solution
)


def bank(exercise: int, *kinds: str):
    """The mark of a test (or a ``pytest.param``) that tries ``exercise`` with answers of
    ``kinds``; an unknown kind is refused at import."""
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown or not kinds:
        raise ValueError(f"bank({exercise}, ...): kinds must be among {KINDS}, got {unknown}")
    return pytest.mark.bank(exercise, *kinds)


def tagged(module) -> dict:
    """``{(exercise, kind): [test names]}`` of a test module's ``bank`` marks: on its test
    functions and on the ``pytest.param`` entries of their ``parametrize`` marks."""
    found: dict = {}
    for name, test in vars(module).items():
        if not (name.startswith("test") and callable(test)):
            continue
        for mark in getattr(test, "pytestmark", []):
            marks = [(name, mark)]
            if mark.name == "parametrize":
                values = mark.args[1] if len(mark.args) > 1 else mark.kwargs.get("argvalues", [])
                marks = [
                    (f"{name}[{getattr(value, 'id', None) or index}]", inner)
                    for index, value in enumerate(values)
                    for inner in getattr(value, "marks", ())
                ]
            for test_name, inner in marks:
                if inner.name == "bank":
                    exercise, *kinds = inner.args
                    for kind in kinds:
                        found.setdefault((exercise, kind), []).append(test_name)
    return found


def by_name(*banks) -> list:
    """The names of the banks' answers (dicts), each bank sorted: the parameters of a test that
    looks its answer up by name; an answer written as ``pytest.param(..., marks=bank(...))`` lends
    its name its marks."""
    return [
        pytest.param(name, marks=getattr(table[name], "marks", ()))
        for table in banks
        for name in sorted(table)
    ]


def entry(value):
    """The values of a bank's entry, written plainly or as a ``pytest.param``."""
    return getattr(value, "values", value)
