"""The template a new notebook starts from
(tools/NN_template.ipynb) passes the notebooks' own checks.

CONTRIBUTING.md tells an author to copy it to ``notebooks/NN_name.ipynb``; a
copy must start out clean. So the template is held to the hygiene and nbgrader
checks every committed notebook meets (``tests/notebooks/hygiene.py``), states its run
time in the form ``tests/notebooks/test_run_times.py`` reads, and shows each cell tag
the tests act on. It lives in tools/, outside the Makefile's
``notebooks/[0-9][0-9]_*.ipynb``, so that nbval, the student copies and the
benchmarks leave it alone.
"""

from __future__ import annotations

import nbformat

from tests import ROOT
from tests.notebooks.hygiene import nbgrader_problems, notebook_problems
from tools.run_times import notebook_statement

TEMPLATE = ROOT / "tools" / "NN_template.ipynb"


def test_the_template_passes_the_notebook_hygiene_checks():
    notebook = nbformat.read(TEMPLATE, as_version=4)
    assert notebook_problems(notebook, TEMPLATE.stat().st_size) == []
    assert nbgrader_problems(notebook, "nbNN") == []


def test_the_template_states_its_run_time_as_the_notebooks_must():
    first = nbformat.read(TEMPLATE, as_version=4).cells[0].source
    assert notebook_statement(first) is not None, (
        "the template's first cell lacks the '**Run time:** about …' line"
    )


def test_the_template_shows_every_cell_tag_the_tests_act_on():
    tags = {
        tag
        for cell in nbformat.read(TEMPLATE, as_version=4).cells
        for tag in cell.metadata.get("tags", [])
    }
    assert tags == {"nbval-check-output", "nbval-skip", "raises-exception"}
