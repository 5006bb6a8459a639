"""The README's map of the article points at notebook sections that exist.

The map (README section "The article and where the course teaches it") links
each part of "Tensorflow：estimator訓練" (柚子皮) to the notebook heading that
teaches it, as ``notebooks/NN_name.ipynb#Heading-text``. Notebooks are rewritten
and headings renamed, so a link can point at nothing; JupyterLab and nbconvert
then open the notebook at its top without a word. Here every such link in the
README, TEACHING.md and the notebooks' markdown is resolved against the anchors
JupyterLab and nbconvert give a markdown heading: its rendered text (code
spans, emphasis and links reduced to their text) with each space replaced by
``-``, case kept, URL-quoted.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import nbformat
import pytest

from tests import ROOT
from tools.anchors import headings, notebook_anchor

MAP_HEADING = "## The article and where the course teaches it"
LINK = re.compile(
    r"\]\((?P<path>(?:\.\./|\./)?(?:notebooks/)?\d\d_[\w-]+\.ipynb)#(?P<fragment>[^)\s]+)\)"
)
# The parts of the article the map must name (workbook-design §2).
ARTICLE_PARTS = (
    "學習流程",
    "數據導入",
    "網絡結構",
    "輸出信息解析",
    "Hook",
    "max_steps",
    "函數原型",
    "metric_name",
    "示例",
    "tf.summary.scalar",
    "ModeKeys.EVAL",
    "TrainSpec",
    "Tensorflow lite",
)


anchor = notebook_anchor


def heading_anchors(notebook) -> set:
    """The anchors of every heading in the notebook's markdown cells (a ``#`` line inside a
    fenced code block is code, not a heading)."""
    return {
        anchor(text)
        for cell in notebook.cells
        if cell.cell_type == "markdown"
        for text in headings(cell.source)
    }


def broken_links(text: str, base: Path, notebooks_dir: Path = ROOT / "notebooks") -> list:
    """One line per link to a notebook heading in ``text`` that no heading of that notebook has."""
    problems, cache = [], {}
    for match in LINK.finditer(text):
        name = Path(match["path"]).name
        path = (
            (base / match["path"]).resolve()
            if (base / match["path"]).exists()
            else notebooks_dir / name
        )
        if not path.exists():
            problems.append(f"{match['path']}#{match['fragment']}: no such notebook")
            continue
        if path not in cache:
            cache[path] = heading_anchors(nbformat.read(path, as_version=4))
        if unquote(match["fragment"]) not in cache[path]:
            problems.append(f"{name}#{match['fragment']}: the notebook has no such heading")
    return problems


def map_section(readme: str) -> str:
    assert MAP_HEADING in readme, f"README.md has no section '{MAP_HEADING}'"
    section = readme.split(MAP_HEADING, 1)[1]
    return re.split(r"^## ", section, maxsplit=1, flags=re.MULTILINE)[0]


def test_the_readme_maps_every_part_of_the_article():
    section = map_section((ROOT / "README.md").read_text(encoding="utf-8"))
    missing = [part for part in ARTICLE_PARTS if part not in section]
    assert not missing, f"README.md's map of the article names no row for {missing}"
    rows = [line for line in section.splitlines() if line.startswith("| ") and LINK.search(line)]
    assert len(rows) >= len(ARTICLE_PARTS) - 1, (
        "the map has fewer rows with a link than the article has parts"
    )


@pytest.mark.parametrize("document", ["README.md", "TEACHING.md"])
def test_links_to_notebook_headings_point_at_headings_that_exist(document):
    text = (ROOT / document).read_text(encoding="utf-8")
    problems = broken_links(text, ROOT)
    assert not problems, f"{document}: " + "; ".join(problems)


@pytest.mark.parametrize(
    "path", sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.name
)
def test_notebooks_link_to_headings_that_exist(path):
    notebook = nbformat.read(path, as_version=4)
    text = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    problems = broken_links(text, path.parent)
    assert not problems, f"{path.name}: " + "; ".join(problems)


# ---- the checker itself, on made-up headings and links -------------------------------


@pytest.mark.parametrize(
    "heading, expected",
    [
        ("Setup", "Setup"),
        ("`input_fn`: feeding an Estimator", "input_fn:-feeding-an-Estimator"),
        (
            "Steps and epochs: `batch`, `repeat`, `shuffle`, `prefetch`",
            "Steps-and-epochs:-batch,-repeat,-shuffle,-prefetch",
        ),
        ("The **best** model, not the *last*", "The-best-model,-not-the-last"),
        (
            "Trap 2: a metric name that [evaluation](x.md) does not produce",
            "Trap-2:-a-metric-name-that-evaluation-does-not-produce",
        ),
        ("`model_fn` and `EstimatorSpec`", "model_fn-and-EstimatorSpec"),
    ],
)
def test_anchors_are_computed_as_jupyterlab_does(heading, expected):
    assert anchor(heading) == expected


def test_a_link_to_a_missing_heading_is_named(tmp_path):
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("# 99 — Title\n\n## A `real` heading")]
    )
    nbformat.write(notebook, tmp_path / "99_made_up.ipynb")
    good = "[here](notebooks/99_made_up.ipynb#A-real-heading)"
    quoted = "[here](notebooks/99_made_up.ipynb#A-real%20heading)"
    bad = "[there](notebooks/99_made_up.ipynb#A-renamed-heading)"
    assert broken_links(good, tmp_path, tmp_path) == []
    assert broken_links(bad + " " + quoted, tmp_path, tmp_path) == [
        "99_made_up.ipynb#A-renamed-heading: the notebook has no such heading",
        "99_made_up.ipynb#A-real%20heading: the notebook has no such heading",
    ]
    assert broken_links("[x](notebooks/98_gone.ipynb#Setup)", tmp_path, tmp_path) == [
        "notebooks/98_gone.ipynb#Setup: no such notebook"
    ]


def test_a_comment_in_a_fenced_code_block_is_not_a_heading():
    cell = nbformat.v4.new_markdown_cell(
        "## Real\n\n```python\n# Not a heading\nx = 1\n```\n\n### Also real"
    )
    assert heading_anchors(nbformat.v4.new_notebook(cells=[cell])) == {"Real", "Also-real"}
