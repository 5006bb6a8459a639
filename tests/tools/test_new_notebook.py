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
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
N = f"{len(NOTEBOOKS):02d}"  # the next notebook's number (they are numbered from 00)
LAST = NOTEBOOKS[-1].name[:2]
COUNT = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
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
    for path in NOTEBOOKS:
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
    assert main([N, "serving", "--root", str(course)]) == 0
    path = course / "notebooks" / f"{N}_serving.ipynb"
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    ids = [cell.id for cell in notebook.cells]
    assert len(set(ids)) == len(ids) == len(TEMPLATE.cells)
    assert not set(ids) & {cell.id for cell in TEMPLATE.cells}
    assert notebook.cells[0].source.startswith(f"# {N} — ")
    assert "nbNN" not in path.read_text() and "notebook00" not in path.read_text()
    check = next(c for c in notebook.cells if "checks." in c.source)
    assert check.source.startswith(f"from helpers.checks import notebook{N} as checks\n")
    grade_ids = [c.metadata.nbgrader.grade_id for c in notebook.cells if "nbgrader" in c.metadata]
    assert all(grade_id.startswith(f"nb{N}-") for grade_id in grade_ids), grade_ids
    assert structure_problems(notebook) == [] and nbgrader_problems(notebook, f"nb{N}") == []
    # what keeps it from being committed is only that it has not run yet
    assert all("make sync" in problem for problem in run_problems(notebook, 0)), notebook


def test_its_check_passes_the_templates_solution_and_its_test_agrees(course, monkeypatch, capsys):
    main([N, "serving", "--root", str(course)])
    assert "make sync" in capsys.readouterr().out  # the steps left
    module = f"helpers.checks.notebook{N}"
    checks = load(course / "helpers" / "checks" / f"notebook{N}.py", module)
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
    monkeypatch.setitem(sys.modules, module, checks)
    test = load(course / "tests" / "helpers" / "checks" / f"test_notebook{N}.py", "test_new")
    assert len(test.WRONG) >= 2 and test.CITED == ["A section"]
    test.test_the_right_answer_passes(capsys)
    test.test_a_blank_answer_names_the_variable()
    for answer, sentence in test.WRONG:
        test.test_each_wrong_answer_gets_its_sentence(answer, sentence)


def test_the_docs_get_a_row_each_and_the_count_of_notebooks(course):
    main([N, "serving", "--root", str(course)])
    readme = (course / "README.md").read_text(encoding="utf-8").splitlines()
    row = readme.index(f"| {N} | [Serving](notebooks/{N}_serving.ipynb) | … | — / — | … |")
    assert readme[row - 1].startswith(f"| {LAST} | ")
    teaching = (course / "TEACHING.md").read_text(encoding="utf-8")
    # as tests/benchmarks/test_classroom.py reads the prerequisites: the template's first cell's
    rows = dict(re.findall(r"^\| (\d\d) \| .+ \| ([\d, ]+|none) \|$", teaching, flags=re.M))
    assert rows[N] == "00" and len(rows) == len(NOTEBOOKS) + 1
    count = COUNT.split()[len(NOTEBOOKS)].capitalize()
    assert re.search(rf"^{count} notebooks, in order", teaching, flags=re.M)


def test_a_number_between_two_notebooks_gets_its_row_between_theirs(course):
    (course / "notebooks" / NOTEBOOKS[-1].name).unlink()
    main([LAST, "serving", "--root", str(course)])
    lines = (course / "README.md").read_text(encoding="utf-8").splitlines()
    numbers = [line[2:4] for line in lines if re.match(r"\| \d\d \| \[", line)]
    assert numbers == sorted(numbers) and numbers.count(LAST) == 2


def test_it_overwrites_nothing(course, capsys):
    assert main([N, "serving", "--root", str(course)]) == 0
    before = {path: path.read_bytes() for path in course.rglob("*") if path.is_file()}
    capsys.readouterr()
    assert main([N, "other_name", "--root", str(course)]) == 2
    assert capsys.readouterr().err == (
        f"make new-notebook: notebooks/{N}_serving.ipynb exists: choose another N, or remove it\n"
    )
    later = f"{int(N) + 1:02d}"
    (course / "helpers" / "checks" / f"notebook{later}.py").write_text("")
    assert main([later, "serving", "--root", str(course)]) == 2
    assert f"helpers/checks/notebook{later}.py exists" in capsys.readouterr().err
    after = {path: path.read_bytes() for path in course.rglob("*") if path.is_file()}
    assert after == {**before, course / "helpers" / "checks" / f"notebook{later}.py": b""}


BAD = [("1", "serving"), ("123", "serving"), ("1a", "serving"), ("12", "Serving"), ("12", "a-b")]


@pytest.mark.parametrize("number, name", BAD + [("12", "_serving"), ("12", "")])
def test_a_bad_number_or_name_is_refused(course, capsys, number, name):
    before = {path: path.read_bytes() for path in course.rglob("*") if path.is_file()}
    assert main([number, name, "--root", str(course)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "N is 2 digits, NAME snake_case (N=12 NAME=serving)" in err
    assert {path: path.read_bytes() for path in course.rglob("*") if path.is_file()} == before
