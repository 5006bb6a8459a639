"""tools/new_notebook.py (make new-notebook): a new notebook, its checks module and their test,
written into a copy of the files it reads; nothing written when it refuses."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from types import SimpleNamespace

import nbformat
import numpy as np
import pytest

from helpers.problems import CheckFailed
from tests import ROOT
from tests.notebooks.hygiene import nbgrader_problems, run_problems, structure_problems
from tools.new_notebook import main

TEMPLATE = nbformat.read(ROOT / "tools" / "NN_template.ipynb", as_version=4)
# what the template's exercise reads: 1 is the most common training digit, a third of the test set
MNIST = SimpleNamespace(train_labels=np.array([1, 1, 2, 0]), test_labels=np.array([1, 2, 0]))


@pytest.fixture
def course(tmp_path):
    """The files the tool reads, in a folder of their own: the template, the two docs, and the
    notebooks (empty: the tool only counts them)."""
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "NN_template.ipynb", tmp_path / "tools")
    for doc in ("README.md", "TEACHING.md"):
        shutil.copy(ROOT / doc, tmp_path)
    (tmp_path / "notebooks").mkdir()
    for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"):
        (tmp_path / "notebooks" / path.name).touch()
    (tmp_path / "helpers" / "checks").mkdir(parents=True)
    (tmp_path / "tests" / "helpers" / "checks").mkdir(parents=True)
    return tmp_path


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_notebook_is_the_template_renamed_and_not_yet_run(course):
    assert main(["12", "serving", "--root", str(course)]) == 0
    path = course / "notebooks" / "12_serving.ipynb"
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    ids = [cell.id for cell in notebook.cells]
    assert len(set(ids)) == len(ids) == len(TEMPLATE.cells)
    assert not set(ids) & {cell.id for cell in TEMPLATE.cells}
    assert notebook.cells[0].source.startswith("# 12 — ")
    assert "nbNN" not in path.read_text() and "notebook00" not in path.read_text()
    check = next(c for c in notebook.cells if "checks." in c.source)
    assert check.source.startswith("from helpers.checks import notebook12 as checks\n")
    grade_ids = [c.metadata.nbgrader.grade_id for c in notebook.cells if "nbgrader" in c.metadata]
    assert all(grade_id.startswith("nb12-") for grade_id in grade_ids), grade_ids
    assert structure_problems(notebook) == [] and nbgrader_problems(notebook, "nb12") == []
    # what keeps it from being committed is only that it has not run yet
    assert all("make sync" in problem for problem in run_problems(notebook, 0)), notebook


def test_its_check_passes_the_templates_solution_and_its_test_agrees(course, monkeypatch, capsys):
    main(["12", "serving", "--root", str(course)])
    assert "make sync" in capsys.readouterr().out  # the steps left
    checks = load(course / "helpers" / "checks" / "notebook12.py", "helpers.checks.notebook12")
    assert checks.__all__ == ["majority_accuracy"]
    solution = next(c.source for c in TEMPLATE.cells if "### BEGIN SOLUTION" in c.source)
    learner = {"mnist": MNIST}
    exec(solution, learner)
    checks.majority_accuracy(learner["majority_accuracy"], MNIST)
    assert capsys.readouterr().out == (
        "Correct: always answering 1 is right on 33.33% of the test digits\n"
    )
    with pytest.raises(CheckFailed, match=r"^`majority_accuracy` is still None"):
        checks.majority_accuracy(None, MNIST)
    # the test skeleton's own tests pass on the module it was written with
    monkeypatch.setitem(sys.modules, "helpers.checks.notebook12", checks)
    test = load(course / "tests" / "helpers" / "checks" / "test_notebook12.py", "test_notebook12")
    assert len(test.WRONG) >= 2 and test.CITED == ["A section"]
    test.test_the_right_answer_passes(capsys)
    test.test_a_blank_answer_names_the_variable()
    for answer, sentence in test.WRONG:
        test.test_each_wrong_answer_gets_its_sentence(answer, sentence)


def test_the_docs_get_a_row_each_and_the_count_of_notebooks(course):
    main(["12", "serving", "--root", str(course)])
    readme = (course / "README.md").read_text(encoding="utf-8").splitlines()
    row = readme.index("| 12 | [Serving](notebooks/12_serving.ipynb) | … | — / — | … |")
    assert readme[row - 1].startswith("| 11 | ")
    teaching = (course / "TEACHING.md").read_text(encoding="utf-8")
    # as tests/benchmarks/test_classroom.py reads the prerequisites: the template's first cell's
    rows = dict(re.findall(r"^\| (\d\d) \| .+ \| ([\d, ]+|none) \|$", teaching, flags=re.M))
    assert rows["12"] == "00" and len(rows) == 13
    assert re.search(r"^Thirteen notebooks, in order", teaching, flags=re.M)


def test_a_number_between_two_notebooks_gets_its_row_between_theirs(course):
    (course / "notebooks" / "11_training_speed.ipynb").unlink()
    main(["11", "serving", "--root", str(course)])
    lines = (course / "README.md").read_text(encoding="utf-8").splitlines()
    numbers = [line[2:4] for line in lines if re.match(r"\| \d\d \| \[", line)]
    assert numbers == sorted(numbers) and numbers.count("11") == 2


def test_it_overwrites_nothing(course, capsys):
    assert main(["12", "serving", "--root", str(course)]) == 0
    before = {path: path.read_bytes() for path in course.rglob("*") if path.is_file()}
    capsys.readouterr()
    assert main(["12", "other_name", "--root", str(course)]) == 2
    assert capsys.readouterr().err == (
        "make new-notebook: notebooks/12_serving.ipynb exists: choose another N, or remove it\n"
    )
    (course / "helpers" / "checks" / "notebook13.py").write_text("")
    assert main(["13", "serving", "--root", str(course)]) == 2
    assert "helpers/checks/notebook13.py exists" in capsys.readouterr().err
    after = {path: path.read_bytes() for path in course.rglob("*") if path.is_file()}
    assert after == {**before, course / "helpers" / "checks" / "notebook13.py": b""}


BAD = [("1", "serving"), ("123", "serving"), ("1a", "serving"), ("12", "Serving"), ("12", "a-b")]


@pytest.mark.parametrize("number, name", BAD + [("12", "_serving"), ("12", "")])
def test_a_bad_number_or_name_is_refused(course, capsys, number, name):
    before = {path: path.read_bytes() for path in course.rglob("*") if path.is_file()}
    assert main([number, name, "--root", str(course)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "N is 2 digits, NAME snake_case (N=12 NAME=serving)" in err
    assert {path: path.read_bytes() for path in course.rglob("*") if path.is_file()} == before
