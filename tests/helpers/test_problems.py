"""helpers.problems: every problem the course raises is one line in Jupyter and still the exception
a caller expects; ``similar_names``, the course's one rule for "did you mean"."""

import pytest

from helpers import problems
from helpers.problems import similar_names

KINDS = [
    problems.EnvironmentProblem,
    problems.DatasetProblem,
    problems.StorageProblem,
    problems.CheckFailed,
    problems.UsageProblem,
    problems.NotReady,
    problems.MetricsProblem,
]


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.__name__)
def test_jupyter_shows_a_problem_as_its_one_line(kind):
    problem = kind("the dataset is missing: run `make data`")
    assert isinstance(problem, problems.WorkbookProblem)
    assert problem._render_traceback_() == [
        f"{kind.__name__}: the dataset is missing: run `make data`"
    ]


def test_a_problem_is_still_the_exception_callers_catch():
    assert issubclass(problems.CheckFailed, AssertionError)
    assert issubclass(problems.UsageProblem, ValueError) and issubclass(
        problems.MetricsProblem, ValueError
    )
    assert issubclass(problems.NotReady, RuntimeError)
    assert issubclass(problems.StorageProblem, problems.DatasetProblem)


def test_similar_names_suggests_the_close_names_closest_first():
    names = ["accuracy", "f1_micro", "f1_macro", "f1_weighted", "loss"]
    assert similar_names("f1_", names) == ["f1_macro", "f1_micro"]
    assert similar_names("f1_macr", names) == ["f1_macro"]
    assert similar_names("acuracy", names) == ["accuracy"]
    assert similar_names("zzz", names) == []
    assert similar_names("loss", names) == []  # the name itself is not a suggestion


def test_similar_names_bounds_are_included_and_three_at_most():
    assert similar_names("ab", ["ac"]) == ["ac"]  # ratio 0.5 exactly: still a suggestion
    # 0.6, and 0.5 exactly 0.1 below it: both
    assert similar_names("abcd", ["abcxyz", "abxy"]) == ["abcxyz", "abxy"]
    assert similar_names("ab", ["abg", "abf", "abe", "abd", "abc"]) == ["abc", "abd", "abe"]
