"""tools/edition.py: a changed English paragraph is seen, never hidden; a zh-TW run is kept.

The acceptance of the zh-TW edition, on a real notebook and its real catalogue:
edit one English paragraph whose translation exists, and the catalogue is no
longer merged (what `make test` reports); `make po`'s merge keeps the old
translation as fuzzy; the built notebook then shows that paragraph in English
and its first cell counts it as not translated.

And, on made-up notebooks: a zh-TW notebook keeps the outputs of its own run in
zh-TW while its code and helpers are unchanged, and gets the English outputs
without a run stamp (for `make sync` to execute) when they are not; the check of
the committed edition compares everything but what the run writes.
"""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat
import polib
import pytest

from tests import ROOT
from tools.catalogues import catalogue_path, load, merged, notebook_blocks
from tools.edition import STATUS_CELL_ID, Document, build_documents, edition_path, out_of_date
from tools.run_notebooks import notebook_language, run_stamp

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
    assert str(remerged) != str(catalogue), "the drift is not seen"
    entry = next(e for e in remerged if e.msgid == edited_text)
    assert entry.fuzzy and entry.previous_msgid == block.text and entry.msgstr

    after = _build(notebook, polib.pofile(str(remerged), wrapwidth=0))
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


# The zh-TW notebook's outputs are its own run's (make sync runs it from notebooks/zh-TW/, where
# the helpers speak zh_TW): kept while the code and the helpers are those it ran, else the English
# outputs without a run stamp, so that make sync executes it. Tried on a made-up notebook.

SAMPLE = ROOT / "notebooks" / "98_sample.ipynb"
SETUP = "from helpers import course_setup\ncourse_setup.start()"


def _english(code=SETUP):
    """A made-up English notebook, executed (an English output and run stamp)."""
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# Sample\n\nA paragraph.", id="title"),
            nbformat.v4.new_code_cell(code, id="setup", execution_count=1),
            nbformat.v4.new_code_cell("checks.first(answer)", id="check", execution_count=2),
        ]
    )
    notebook.cells[2].outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="Correct: well done.\n")
    ]
    notebook.metadata["language_info"] = {"name": "python", "version": "3.11.7"}
    notebook.metadata["workbook"] = run_stamp(notebook)
    return notebook


def _catalogue():
    catalogue = polib.POFile(wrapwidth=0)
    catalogue.append(polib.POEntry(msgctxt="title", msgid="# Sample", msgstr="# 範例"))
    return catalogue


def _edition(english, previous=None) -> nbformat.NotebookNode:
    document = Document(SAMPLE, edition_path(SAMPLE), english, _catalogue(), previous)
    return nbformat.reads(build_documents([document])[edition_path(SAMPLE)], as_version=4)


def _run_in_zh_tw(edition):
    """What tools/run_notebooks.py makes of the zh-TW notebook: its own outputs and stamp."""
    ran = copy.deepcopy(edition)
    ran.cells[-1].outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="正確：做得好。\n")
    ]
    ran.metadata["language_info"] = {"name": "python", "version": "3.11.9"}
    ran.metadata["workbook"] = run_stamp(ran, notebook_language(edition_path(SAMPLE)))
    return ran


def _outputs(notebook):
    return [cell.outputs for cell in notebook.cells if cell.cell_type == "code"]


def test_a_new_zh_tw_notebook_has_the_english_outputs_and_no_run_stamp():
    english = _english()
    edition = _edition(english)
    assert _outputs(edition) == _outputs(english)
    assert "workbook" not in edition.metadata  # stale: make sync executes it
    assert edition.cells[2].source == SETUP and edition.cells[1].source == "# 範例\n\nA paragraph."


def test_the_zh_tw_run_s_outputs_are_kept_while_code_and_helpers_are_the_same():
    english = _english()
    ran = _run_in_zh_tw(_edition(english))
    again = _edition(english, previous=ran)
    assert again == ran, "the zh-TW run's outputs, counts, language_info and stamp are kept"
    assert again.metadata["workbook"]["language"] == "zh_TW"
    # a changed translation or English paragraph is taken, and the run still kept
    english.cells[0].source = "# Sample\n\nAnother paragraph."
    rebuilt = _edition(english, previous=ran)
    assert rebuilt.cells[1].source == "# 範例\n\nAnother paragraph."
    assert (
        _outputs(rebuilt) == _outputs(ran)
        and rebuilt.metadata["workbook"] == ran.metadata["workbook"]
    )


CHANGES = {
    "a code cell's source": lambda english, ran: english.cells[2].__setitem__(
        "source", "checks.first(answer)  # again"
    ),
    "a code cell's id": lambda english, ran: english.cells[2].__setitem__("id", "check-2"),
    "a new code cell": lambda english, ran: english.cells.append(
        nbformat.v4.new_code_cell("print(1)", id="more")
    ),
    "the helpers it ran": lambda english, ran: ran.metadata["workbook"].__setitem__(
        "helpers_sha256", "0" * 64
    ),
    "a run in English": lambda english, ran: ran.metadata.__setitem__("workbook", run_stamp(ran)),
    "no run stamp": lambda english, ran: ran.metadata.pop("workbook"),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_stale_zh_tw_run_is_replaced_by_the_english_outputs_without_a_stamp(change):
    english = _english()
    ran = _run_in_zh_tw(_edition(english))
    CHANGES[change](english, ran)
    rebuilt = _edition(english, previous=ran)
    assert _outputs(rebuilt) == _outputs(english), change
    assert "workbook" not in rebuilt.metadata, change
    assert rebuilt.metadata["language_info"] == english.metadata["language_info"]


def test_the_check_compares_everything_but_the_run_s_products(tmp_path):
    english = _english()
    built = nbformat.writes(_edition(english)) + "\n"
    committed = tmp_path / "98_sample.ipynb"
    committed.write_text(nbformat.writes(_run_in_zh_tw(_edition(english))) + "\n", "utf-8")
    assert out_of_date({committed: built}) == []  # other outputs, counts, stamp: the run's
    for change in (
        lambda nb: nb.cells[1].__setitem__("source", "# 範例\n\n別的段落。"),
        lambda nb: nb.cells[2].__setitem__("source", "print('edited')"),
        lambda nb: nb.cells[2].metadata.__setitem__("tags", ["raises-exception"]),
        lambda nb: nb.metadata.__setitem__("generated", {}),
    ):
        edited = _run_in_zh_tw(_edition(english))
        change(edited)
        committed.write_text(nbformat.writes(edited) + "\n", "utf-8")
        assert out_of_date({committed: built}) == [committed]
    page = tmp_path / "README.zh-TW.md"
    page.write_text("a\n", "utf-8")
    assert out_of_date({page: "a\n", tmp_path / "missing.ipynb": built}) == [
        tmp_path / "missing.ipynb"
    ]
    assert out_of_date({page: "b\n"}) == [page]


def test_the_status_cell_says_which_messages_are_chinese():
    status = _edition(_english()).cells[0].source
    assert "輔助程式與練習檢查的訊息" in status and "`translations/zh_TW/helpers.po`" in status
    assert "是英文" not in status
