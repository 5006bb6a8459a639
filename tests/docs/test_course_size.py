"""What the docs say of the course's size holds: only the last notebook calls itself the last, and
TEACHING's count of notebooks is the number of notebooks.

A notebook added at the end (notebook 11 after 10) leaves such sentences behind in the one that
was last; nothing else would flag them.
"""

from __future__ import annotations

import re

import nbformat

from tests import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
CALLS_ITSELF_LAST = re.compile(r"This is (the course's last notebook|the last notebook)", re.I)
COUNTS = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen".split()


def test_only_the_last_notebook_calls_itself_the_last():
    claims = [
        path.name
        for path in NOTEBOOKS
        for cell in nbformat.read(path, as_version=4).cells
        if cell.cell_type == "markdown" and CALLS_ITSELF_LAST.search(cell.source)
    ]
    assert set(claims) <= {NOTEBOOKS[-1].name}, claims


def test_teaching_counts_the_notebooks():
    stated = re.search(r"^(\w+) notebooks, in order", (ROOT / "TEACHING.md").read_text(), re.M)
    assert stated, "TEACHING.md no longer says how many notebooks the course has"
    assert stated.group(1).lower() == COUNTS[len(NOTEBOOKS) - 1], stated.group(0)
