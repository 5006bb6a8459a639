"""tools/catalogues.py: blocks with their contexts, and the gettext-style merge."""

from __future__ import annotations

import nbformat
import polib

from tools.catalogues import (
    Block,
    markdown_file_blocks,
    merged,
    new_catalogue,
    notebook_blocks,
    renumbered,
    text_of,
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
    assert text_of(merged(polib.pofile(text_of(once), wrapwidth=0), found)) == text_of(once)


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
