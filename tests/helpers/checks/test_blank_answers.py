"""Every exercise check, given a blank answer (still None), names the variable the learner has to
set, and that variable is one the notebook's exercise cell defines: a misspelt name would send the
learner looking for a variable that is not there."""

import importlib
import inspect
import json
import re

import pytest

from helpers.problems import CheckFailed
from tests import ROOT

# every checks module, found (a new notebook's is tested without a line here)
MODULES = sorted(
    f"helpers.checks.{path.stem}"
    for path in (ROOT / "helpers" / "checks").glob("notebook[0-9]*.py")
)


def checks():
    for dotted in MODULES:
        module = importlib.import_module(dotted)
        for name in module.__all__:
            if inspect.isfunction(getattr(module, name)):
                yield pytest.param(dotted[-2:], getattr(module, name), id=name)


def notebook_code(number: str) -> str:
    path = next((ROOT / "notebooks").glob(f"{number}_*.ipynb"))
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")


@pytest.mark.parametrize("number, check", list(checks()))
def test_a_blank_answer_names_the_variable_the_notebook_defines(number, check):
    required = [
        p
        for p in inspect.signature(check).parameters.values()
        if p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD
    ]
    with pytest.raises(CheckFailed) as failed:
        check(*[None] * len(required))
    named = re.match(
        r"`(\w+)` is still None: write your code where the exercise says", str(failed.value)
    )
    assert named, str(failed.value)
    defined = rf"^\s*(?:{named[1]}\s*=|def {named[1]}\b|class {named[1]}\b)"
    assert re.search(defined, notebook_code(number), flags=re.M), (
        f"notebook {number} defines no {named[1]}"
    )
