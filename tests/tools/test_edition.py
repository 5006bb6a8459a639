"""tools/edition.py: a changed English paragraph is seen, never hidden.

The acceptance of the zh-TW edition, on a real notebook and its real catalogue:
edit one English paragraph whose translation exists, and the catalogue is no
longer merged (what `make test` reports); `make po`'s merge keeps the old
translation as fuzzy; the built notebook then shows that paragraph in English
and its first cell counts it as not translated.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import polib
import pytest

from tests import ROOT
from tools.catalogues import catalogue_path, load, merged, notebook_blocks, text_of
from tools.edition import STATUS_CELL_ID, Document, build_documents, edition_path

SOURCE = ROOT / "notebooks" / "03_model_fn_and_estimatorspec.ipynb"


def _translated_paragraph(notebook, catalogue):
    """A cell and a paragraph of it that the catalogue translates."""
    table = {(e.msgctxt, e.msgid): e for e in catalogue if e.msgstr and not e.fuzzy}
    for block in notebook_blocks(notebook):
        if block.kind == "paragraph" and (block.context, block.text) in table:
            return block
    pytest.skip(f"{catalogue_path(SOURCE).name} translates no paragraph yet")


def _build(notebook, catalogue) -> nbformat.NotebookNode:
    document = Document(SOURCE, edition_path(SOURCE), notebook, catalogue)
    return nbformat.reads(build_documents([document])[edition_path(SOURCE)], as_version=4)


def test_an_edited_english_paragraph_is_shown_in_english_and_counted():
    notebook = nbformat.read(SOURCE, as_version=4)
    catalogue = load(catalogue_path(SOURCE))
    block = _translated_paragraph(notebook, catalogue)
    before = _build(notebook, catalogue)
    edited_text = block.text + " (Edited.)"
    cell = next(c for c in notebook.cells if c.get("id") == block.context.split("#")[0])
    cell.source = cell.source.replace(block.text, edited_text, 1)

    remerged = merged(catalogue, notebook_blocks(notebook))
    assert text_of(remerged) != text_of(catalogue), "the drift is not seen"
    entry = next(e for e in remerged if e.msgid == edited_text)
    assert entry.fuzzy and entry.previous_msgid == block.text and entry.msgstr

    after = _build(notebook, polib.pofile(text_of(remerged), wrapwidth=0))
    built = next(c for c in after.cells if c.get("id") == cell.id)
    assert edited_text in built.source
    status_before, status_after = before.cells[0].source, after.cells[0].source
    assert before.cells[0].id == after.cells[0].id == STATUS_CELL_ID
    assert before.metadata["generated"] == {
        "command": "make zh-tw",
        "edit_instead": [f"notebooks/{SOURCE.name}", f"translations/zh_TW/{SOURCE.stem}.po"],
    }
    assert "顯示英文原文" in status_after
    done = [
        int(status.split("說明文字已翻譯 ")[1].split(" /")[0])
        for status in (status_before, status_after)
    ]
    assert done[1] == done[0] - 1, (status_before, status_after)


def test_links_are_rewritten_for_the_edition():
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(
                "## Where to go\n\nSee [the README](../README.md#two-commands), "
                "[results](../benchmarks/results.md), [03](03_model_fn_and_estimatorspec.ipynb), "
                "[above](#Where-to-go) and `[not a link](../README.md)`.",
                id="c1",
            )
        ]
    )
    catalogue = polib.POFile(wrapwidth=0)
    catalogue.append(polib.POEntry(msgctxt="c1", msgid="## Where to go", msgstr="## 去哪裡"))
    source = ROOT / "notebooks" / "99_sample.ipynb"
    document = Document(source, edition_path(source), notebook, catalogue)
    readme = Document(
        ROOT / "README.md",
        edition_path(ROOT / "README.md"),
        (ROOT / "README.md").read_text(encoding="utf-8"),
        load(catalogue_path(ROOT / "README.md")),
    )
    files = build_documents([document, readme])
    text = nbformat.reads(files[edition_path(source)], as_version=4).cells[1].source
    assert "](../../README.zh-TW.md#" in text
    assert "](../../benchmarks/results.md)" in text
    assert "](../03_model_fn_and_estimatorspec.ipynb)" in text  # no zh-TW 03 among these
    assert "](#去哪裡)" in text
    assert "`[not a link](../README.md)`" in text


def test_the_edition_s_files_are_where_the_readme_says():
    assert edition_path(ROOT / "README.md") == ROOT / "README.zh-TW.md"
    assert edition_path(SOURCE) == ROOT / "notebooks" / "zh-TW" / SOURCE.name
    assert Path(edition_path(ROOT / "TEACHING.md")).name == "TEACHING.zh-TW.md"
