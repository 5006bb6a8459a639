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
)
# Phrases the reposting site inserted (workbook-design §2): the last one, before the author's empty
# "ref:", has been read as the author's reference to TF Lite; wherever the course quotes it, the
# same sentence says it is the site's.
SITE_LINE = "Tensorflow lite"
# Where the article's code comes from; cited in the map and where the notebooks first rely on it.
TF_NER = "https://github.com/guillaumegenthial/tf_ner/blob/master/models/lstm_crf/main.py"
CITING_NOTEBOOKS = ("00", "03", "06", "07")
# The article itself, beside the course's checkout (workbook-design: ../shared/source-article.txt).
ARTICLE = ROOT.parent / "shared" / "source-article.txt"
CODE_SPAN = re.compile(r"`([^`]+)`")


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


def sentences(text: str) -> list:
    """``text`` cut at each full stop followed by a space or a line end, and at each table row."""
    return (
        [part for line in text.splitlines() for part in re.split(r"(?<=\.)\s+", line) if part]
        if "\n|" in text
        else re.split(r"(?<=\.)\s+", re.sub(r"\s+", " ", text))
    )


def unattributed_site_line(text: str) -> list:
    """The sentences of ``text`` that quote the site's "Tensorflow lite" without saying it is the
    site's."""
    found = []
    for block in re.split(r"\n\s*\n", text):
        for sentence in sentences(block):
            if SITE_LINE in sentence and "site" not in sentence:
                found.append(sentence.strip()[:120])
    return found


def markdown_of(path: Path) -> str:
    notebook = nbformat.read(path, as_version=4)
    return "\n\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")


def test_the_sites_last_line_is_never_the_authors():
    texts = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        texts[path.name] = markdown_of(path)
    assert SITE_LINE in map_section(texts["README.md"]), (
        f"README.md's map of the article does not say what its last line, '{SITE_LINE}、ref:', is"
    )
    problems = [
        f"{name}: {sentence!r}"
        for name, text in texts.items()
        for sentence in unattributed_site_line(text)
    ]
    assert not problems, (
        f"'{SITE_LINE}、ref:' is the reposting site's phrase, not the author's reference: say so "
        "in the same sentence: " + "; ".join(problems)
    )


def test_a_sentence_that_takes_the_site_line_for_a_reference_is_found():
    old = 'It ends with its references: a 簡書 post, and a line "Tensorflow lite、ref:". Next.'
    new = 'Its last line, "Tensorflow lite、ref:", is the site\'s phrase, not a reference.'
    row = "| 14 | Tensorflow lite, a reference at the end | [08](x.ipynb#TF-Lite) | — |"
    assert unattributed_site_line(old) == [
        'It ends with its references: a 簡書 post, and a line "Tensorflow lite、ref:".'
    ]
    assert unattributed_site_line(new) == []
    assert len(unattributed_site_line("| # | part |\n|---|---|\n" + row)) == 1


@pytest.mark.parametrize("where", ["README.md", *CITING_NOTEBOOKS])
def test_the_source_of_the_articles_code_is_cited(where):
    if where == "README.md":
        text = map_section((ROOT / where).read_text(encoding="utf-8"))
    else:
        text = markdown_of(next((ROOT / "notebooks").glob(f"{where}_*.ipynb")))
    assert TF_NER in text, (
        f"{where}: the article's code is adapted from guillaumegenthial/tf_ner: link {TF_NER} "
        "where the text first relies on it"
    )


def article_code_missing(map_text: str, article: str) -> list:
    """The code spans of the map's "the article's part" column that the article does not hold
    (whitespace and the copy's "?" ignored)."""
    squeezed = re.sub(r"[\s?]", "", article)
    missing = []
    for line in map_text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if not line.startswith("| ") or len(cells) < 4 or not cells[0].isdigit():
            continue
        for span in CODE_SPAN.findall(cells[1]):
            if re.sub(r"\s", "", span) not in squeezed:
                missing.append(f"row {cells[0]}: `{span}`")
    return missing


def test_the_maps_article_column_quotes_only_the_articles_code():
    if not ARTICLE.exists():
        pytest.skip(f"the article is not beside the checkout ({ARTICLE.name} in ../shared)")
    section = map_section((ROOT / "README.md").read_text(encoding="utf-8"))
    missing = article_code_missing(section, ARTICLE.read_text(encoding="utf-8"))
    assert not missing, (
        "README.md's map attributes to the article code it does not hold: "
        + "; ".join(missing)
        + ": quote it exactly, or move it to the column of what the course adds or corrects"
    )


def test_code_the_article_does_not_hold_is_found():
    article = (
        "hook = tf.contrib.estimator.stop_if_no_increase_hook(estimator, 'f1',\n? ? min_steps=8000)"
    )
    rows = (
        "| 13 | the call `stop_if_no_increase_hook(estimator, 'f1', min_steps=8000)` | x | y |\n"
        "| 14 | the call `stop_if_no_increase_hook(estimator, 'f1', 500)` | x | `not checked` |"
    )
    assert article_code_missing(rows, article) == [
        "row 14: `stop_if_no_increase_hook(estimator, 'f1', 500)`"
    ]


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
