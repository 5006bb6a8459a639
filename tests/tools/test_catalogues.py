"""tools/catalogues.py: blocks with their contexts, and the gettext-style merge."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import nbformat
import polib
import pytest

from tests import ROOT
from tools import catalogues
from tools.catalogues import (
    Block,
    catalogue_path,
    content,
    load,
    markdown_file_blocks,
    merge_all,
    merged,
    new_catalogue,
    notebook_blocks,
    renumbered,
)


def _catalogue(*entries) -> polib.POFile:
    catalogue = new_catalogue()
    for context, english, translation, flags in entries:
        catalogue.append(
            polib.POEntry(msgctxt=context, msgid=english, msgstr=translation, flags=list(flags))
        )
    return catalogue


def _by_key(catalogue) -> dict:
    return {(entry.msgctxt, entry.msgid): entry for entry in catalogue}


OLD = _catalogue(
    ("c1", "Training stops at step 200.", "訓練在第 200 步停止。", ()),
    ("c1", "The loss goes down as the model learns the digits.", "模型學會數字時，損失下降。", ()),
    ("c2", "A removed paragraph.", "一段被刪掉的段落。", ()),
    ("c3", "Moved with its cell id changed.", "跟著儲存格搬走。", ()),
)


def test_merge_keeps_fuzzies_obsoletes_and_adds_empties():
    found = [
        Block("c1", "Training stops at step 300.", "paragraph"),  # numbers only
        Block("c1", "The loss goes down while the model learns the digits.", "paragraph"),
        Block("c4", "Moved with its cell id changed.", "paragraph"),  # same English elsewhere
        Block("c5", "A brand new paragraph.", "paragraph"),
    ]
    catalogue = merged(OLD, found)
    entries = _by_key(catalogue)
    numbers = entries[("c1", "Training stops at step 300.")]
    assert numbers.msgstr == "訓練在第 300 步停止。" and not numbers.fuzzy
    changed = entries[("c1", "The loss goes down while the model learns the digits.")]
    assert changed.fuzzy and changed.msgstr == "模型學會數字時，損失下降。"
    assert changed.previous_msgid == "The loss goes down as the model learns the digits."
    moved = entries[("c4", "Moved with its cell id changed.")]
    assert moved.msgstr == "跟著儲存格搬走。" and not moved.fuzzy
    assert entries[("c5", "A brand new paragraph.")].msgstr == ""
    obsolete = {entry.msgid for entry in catalogue.obsolete_entries()}
    assert obsolete == {"A removed paragraph."}
    assert [entry.msgid for entry in catalogue if not entry.obsolete] == [b.text for b in found]


def test_merging_twice_changes_nothing():
    found = [
        Block("c1", "Training stops at step 200.", "paragraph"),
        Block("c9", "Something else entirely, nothing alike.", "paragraph"),
    ]
    once = merged(OLD, found)
    assert str(merged(polib.pofile(str(once), wrapwidth=0), found)) == str(once)


def test_a_fuzzy_entry_stays_fuzzy_until_a_translator_clears_it():
    old = _catalogue(("c1", "New English.", "舊的翻譯。", ("fuzzy",)))
    entry = merged(old, [Block("c1", "New English.", "paragraph")])[0]
    assert entry.fuzzy and entry.msgstr == "舊的翻譯。"


def test_translator_comments_are_kept():
    old = _catalogue(("c1", "# 05 — Hooks", "# 05 — Hook", ()))
    old[0].tcomment = "English on purpose: the class names"
    entry = merged(old, [Block("c1", "# 05 — Hooks", "heading")])[0]
    assert entry.tcomment == "English on purpose: the class names"


def test_renumbered_needs_the_same_numbers_in_the_same_order():
    new = renumbered("about 30 s, 20 s", "about 40 s, 25 s", "約 30 秒，20 秒")
    assert new == "約 40 秒，25 秒"
    assert renumbered("about 30 s", "about 30 min", "約 30 秒") is None  # a word changed
    # in another order, or one left out: each old number has one new one
    assert renumbered("30 s then 20 s", "40 s then 25 s", "先 20 秒再 30 秒") == "先 25 秒再 40 秒"
    assert renumbered("1 process, 15.0 s", "1 process, 14.2 s", "單一行程，15.0 秒") == (
        "單一行程，14.2 秒"
    )
    # the same old number became two new ones, or the translation has a number of its own
    assert renumbered("20 s / 20 s", "25 s / 20 s", "20 秒 / 20 秒") is None
    assert renumbered("20 s", "25 s", "20 秒（共 3 次）") is None
    # a comma after a number is the English's, not the number's
    assert (
        renumbered("0 to 255, in 3,000 steps", "0 to 1, in 4,000 steps", "0 到 255，共 3,000 步")
        == "0 到 1，共 4,000 步"
    )


def test_contexts_are_cell_ids_and_repeats_are_numbered():
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("## Setup\n\nSame.\n\nSame.", id="cell-a"),
            nbformat.v4.new_code_cell("Same = 1", id="cell-b"),
        ]
    )
    assert [(b.context, b.text) for b in notebook_blocks(notebook)] == [
        ("cell-a", "## Setup"),
        ("cell-a", "Same."),
        ("cell-a#2", "Same."),
    ]


def test_a_page_s_contexts_are_its_sections_and_the_language_line_is_left_out():
    page = (
        "**English** · [繁體中文](README.zh-TW.md)\n\n# The title\n\nIntro.\n\n"
        "## Two `commands`\n\nRun them.\n"
    )
    assert [(b.context, b.text) for b in markdown_file_blocks(page)] == [
        ("the-title", "# The title"),
        ("the-title", "Intro."),
        ("two-commands", "## Two `commands`"),
        ("two-commands", "Run them."),
    ]


# ---- a translator's PO editor: its layout is accepted, and make po normalises it -------------

POEDIT_HEADER = {
    "Project-Id-Version": "estimator-workbook",
    "POT-Creation-Date": "",
    "PO-Revision-Date": "2025-01-05 10:00+0800",
    "Last-Translator": "王小明 <xm@example.tw>",
    "Language-Team": "",
    "Language": "zh_TW",
    "MIME-Version": "1.0",
    "Content-Type": "text/plain; charset=UTF-8",
    "Content-Transfer-Encoding": "8bit",
    "Plural-Forms": "nplurals=1; plural=0;",
    "X-Generator": "Poedit 3.4.2",
}
COMMITTED = catalogue_path(Path("05_hooks.ipynb"))


def _blocks_of(catalogue) -> list:
    """The English blocks a merged ``catalogue`` was made from (its active entries, in order)."""
    return [Block(e.msgctxt, e.msgid, e.comment) for e in catalogue if not e.obsolete]


def _poedit_saved(tmp_path: Path) -> Path:
    """The committed 05_hooks.po as Poedit saves it: its header rewritten, wrapped at 79
    columns, and a fuzzy mark cleared with its ``#| msgid`` left behind."""
    catalogue = polib.pofile(str(COMMITTED), wrapwidth=79)
    catalogue.metadata = dict(POEDIT_HEADER)
    translated = next(e for e in catalogue if e.msgstr and not e.fuzzy and not e.obsolete)
    translated.previous_msgid = "What the English said before."
    path = tmp_path / COMMITTED.name
    catalogue.save(str(path))
    return path


def _with_catalogue(monkeypatch, path: Path, found: list) -> None:
    source = ROOT / "notebooks" / "05_hooks.ipynb"
    monkeypatch.setattr(catalogues, "CATALOGUES", path.parent)
    monkeypatch.setattr(catalogues, "sources", lambda: [source])
    monkeypatch.setattr(catalogues, "blocks", lambda _: found)


def test_a_catalogue_saved_by_poedit_passes_the_check_and_make_po_normalises_it(
    tmp_path, monkeypatch
):
    path = _poedit_saved(tmp_path)
    text = path.read_text(encoding="utf-8")
    committed_lines = COMMITTED.read_text(encoding="utf-8").count("\n")
    assert "X-Generator: Poedit" in text and text.count("\n") > committed_lines  # wrapped
    assert text != COMMITTED.read_text(encoding="utf-8"), "the re-save changed nothing"
    found = _blocks_of(load(COMMITTED))
    _with_catalogue(monkeypatch, path, found)

    assert merge_all(check=True) == []  # merged: only its layout differs
    assert catalogues.main(["--check"]) == 0

    assert catalogues.main([]) == 0  # make po
    normalised = load(path)
    assert content(normalised) == content(load(COMMITTED))
    assert normalised.metadata["Last-Translator"] == "王小明 <xm@example.tw>"
    assert new_catalogue().metadata.items() <= normalised.metadata.items()

    def entries(text):  # without the header, and the translator comments PO editors may wrap
        return [line for line in text[text.index("\n\n") :].splitlines() if line[:2] != "# "]

    assert entries(path.read_text(encoding="utf-8")) == entries(
        COMMITTED.read_text(encoding="utf-8")
    ), "make po did not write the entries back in the course's layout"
    assert merge_all() == [], "a second make po changed the catalogue again"


@pytest.mark.skipif(shutil.which("msgcat") is None, reason="gettext's msgcat is not installed")
def test_a_catalogue_rewritten_by_msgcat_passes_the_check(tmp_path, monkeypatch):
    path = tmp_path / COMMITTED.name
    subprocess.run(
        ["msgcat", "--width=79", "-o", str(path), str(COMMITTED)], check=True, capture_output=True
    )
    assert path.read_text(encoding="utf-8") != COMMITTED.read_text(encoding="utf-8")
    _with_catalogue(monkeypatch, path, _blocks_of(load(COMMITTED)))
    assert merge_all(check=True) == []


def test_the_check_names_the_changed_english_only_when_the_english_changed(tmp_path, monkeypatch):
    path = _poedit_saved(tmp_path)
    found = _blocks_of(load(COMMITTED))
    found[3] = Block(found[3].context, found[3].text + " (Edited.)", found[3].kind)
    _with_catalogue(monkeypatch, path, found)
    assert merge_all(check=True) == [
        "05_hooks.po is not merged with the changed English of 05_hooks.ipynb (1 new or changed "
        "blocks have no entry, 1 entries are no longer in the English): run `make po`"
    ]


def test_an_unreadable_catalogue_is_named_with_what_to_do(tmp_path, monkeypatch, capsys):
    path = tmp_path / COMMITTED.name
    path.write_text('msgid "a"\nmsgstr "b"\nthis line is not PO\n', encoding="utf-8")
    _with_catalogue(monkeypatch, path, [])
    assert catalogues.main(["--check"]) == 1
    error = capsys.readouterr().err
    assert error.startswith("05_hooks.po cannot be read as a PO file (") and "git checkout" in error
