"""The committed zh-TW edition is current, runs the English code, and follows the glossary.

* every catalogue is merged with the current English (else: `make po`);
* every committed zh-TW file is what the English and the catalogues build (else:
  `make zh-tw`), and each zh-TW notebook's code cells, outputs, attachments and
  metadata are the English notebook's;
* no translation breaks the glossary's rules (tools/zh_tw_style.py);
* every link of the edition to a notebook heading points at a heading there;
* README.md and README.zh-TW.md link each other at the top.

`make test` prints each catalogue's translated / fuzzy / empty counts at the end
(tests/conftest.py).
"""

from __future__ import annotations

import nbformat
import pytest

from tests import ROOT
from tests.docs.test_article_map import broken_links
from tools.catalogues import merge_all, sources
from tools.edition import EDITION_DIR, STATUS_CELL_ID, build, edition_path
from tools.zh_tw_style import report

NOTEBOOKS = [source for source in sources() if source.suffix == ".ipynb"]


def test_every_catalogue_is_merged_with_the_english():
    stale = merge_all(check=True)
    assert not stale, f"{', '.join(stale)}: not merged with the changed English: run `make po`"


@pytest.fixture(scope="module")
def built():
    return build()


def test_the_committed_edition_is_what_the_catalogues_build(built):
    stale = [
        str(path.relative_to(ROOT))
        for path, text in built.items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    assert not stale, f"{', '.join(stale)}: out of date: run `make zh-tw`"
    names = sorted(path.name for path in EDITION_DIR.glob("*.ipynb"))
    assert names == [source.name for source in NOTEBOOKS], "notebooks/zh-TW/ has other notebooks"


@pytest.mark.parametrize("source", NOTEBOOKS, ids=lambda p: p.name)
def test_a_zh_tw_notebook_runs_and_shows_what_the_english_does(source):
    english = nbformat.read(source, as_version=4)
    edition = nbformat.read(edition_path(source), as_version=4)
    assert edition.cells[0].id == STATUS_CELL_ID and edition.cells[0].cell_type == "markdown"
    assert edition.metadata == english.metadata
    cells = edition.cells[1:]
    assert [c.id for c in cells] == [c.id for c in english.cells]
    for mine, theirs in zip(cells, english.cells):
        if theirs.cell_type != "markdown":
            assert mine == theirs, f"{source.name} cell {theirs.id} differs from the English"
        else:
            assert {k: v for k, v in mine.items() if k != "source"} == {
                k: v for k, v in theirs.items() if k != "source"
            }


def test_every_translation_follows_the_glossary():
    problems = report(sorted((ROOT / "translations" / "zh_TW").glob("*.po")))
    assert not problems, "\n".join(problems[:30])


@pytest.mark.parametrize(
    "page",
    ["README.zh-TW.md", "TEACHING.zh-TW.md", *[f"notebooks/zh-TW/{s.name}" for s in NOTEBOOKS]],
)
def test_links_to_notebook_headings_point_at_headings_that_exist(page):
    path = ROOT / page
    if path.suffix == ".ipynb":
        notebook = nbformat.read(path, as_version=4)
        text = "\n\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    assert broken_links(text, path.parent) == []


def test_the_readmes_link_each_other_at_the_top():
    english = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()[0]
    chinese = (ROOT / "README.zh-TW.md").read_text(encoding="utf-8").splitlines()[0]
    assert "](README.zh-TW.md)" in english and "](README.md)" in chinese
