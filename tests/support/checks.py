"""What the tests of the notebooks' exercise checks assert of a wrong answer: the check raises one
``CheckFailed`` whose message names the mistake and gives none of the answer away; and the headings
of a notebook, in English and in zh-TW, which the messages cite as sections."""

from __future__ import annotations

import json

import polib
import pytest

from helpers.problems import CheckFailed
from tests import ROOT
from tools.anchors import headings


def failure(check, *args, **kwargs) -> str:
    """The message of the ``CheckFailed`` that ``check(*args, **kwargs)`` must raise."""
    with pytest.raises(CheckFailed) as caught:
        check(*args, **kwargs)
    return str(caught.value)


def assert_names_the_mistake(message: str, words: str, answer_code: tuple = ()) -> None:
    """``message`` says ``words`` and holds none of ``answer_code`` (the message names the mistake,
    never the fix)."""
    assert words in message, message
    for code in answer_code:
        assert code not in message, message


def notebook_headings(notebook: str) -> set[str]:
    """The text of every heading of ``notebooks/<notebook>.ipynb`` (e.g. ``"05_hooks"``): the
    sections a check's message may cite."""
    cells = json.loads((ROOT / "notebooks" / f"{notebook}.ipynb").read_text(encoding="utf-8"))
    return {
        text
        for cell in cells["cells"]
        if cell["cell_type"] == "markdown"
        for text in headings("".join(cell["source"]))
    }


def zh_tw_heading(notebook: str, heading: str) -> str:
    """The text of the heading line ``heading`` (``"## ..."``) of ``notebooks/<notebook>.ipynb`` as
    the zh-TW notebook heads it (translations/zh_TW/<notebook>.po)."""
    catalogue = polib.pofile(str(ROOT / "translations" / "zh_TW" / f"{notebook}.po"))
    return catalogue.find(heading).msgstr.lstrip("# ")
