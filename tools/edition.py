"""Build the zh-TW edition from the English sources and the catalogues (translations/).

    .venv/bin/python -m tools.edition            # make zh-tw writes the edition
    .venv/bin/python -m tools.edition --check    # exit 1 when a committed file is not current

Each zh-TW file is its English source with every translated block replaced:
``notebooks/zh-TW/NN_name.ipynb`` (code cells, attachments and metadata are the
English notebook's), ``README.zh-TW.md`` and ``TEACHING.zh-TW.md``.

A zh-TW notebook's outputs are those of its own run in zh-TW (``make sync`` runs
it with tools/run_notebooks.py from notebooks/zh-TW/, where the helpers' and the
checks' messages are Chinese): the outputs, execution counts, ``language_info``
and run stamp (``metadata.workbook``) of the committed zh-TW notebook are kept
while its code cells (id and source) are the English ones and its stamp is that
of today's code, helpers and helpers' catalogue. Else the notebook gets the
English outputs and no stamp, until ``make sync`` executes it. ``--check`` and
the tests compare everything but those products of the run.

A block whose entry is fuzzy or empty stays English, and a first cell (in a
notebook) or a note under the title (in a page) says how much is translated.
Relative links are rewritten for the edition: to the zh-TW notebook or page when
there is one, with the anchor of the translated heading, else to the English
file from the new folder. The student copies are written from the edition by
tools/make_student.py (in the teacher environment), as for the English
notebooks: `make sync` writes them after it has executed the stale zh-TW
notebooks, so that they are made from the notebooks it commits.
"""

from __future__ import annotations

import argparse
import copy
import functools
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

import nbformat

from tools.anchors import github_anchor, headings, notebook_anchor
from tools.catalogues import (
    LANGUAGE,
    LANGUAGE_LINE,
    ROOT,
    CatalogueError,
    catalogue_path,
    load,
    markdown_file_blocks,
    notebook_blocks,
    read,
    sources,
)
from tools.generated_files import update
from tools.make_student import generated_note
from tools.markdown_blocks import EXTERNAL, relink, split
from tools.run_notebooks import HELPERS_CATALOGUE, notebook_language, stamp_is_current

EDITION_DIR = ROOT / "notebooks" / "zh-TW"
STATUS_CELL_ID = "zh-tw-edition"
COMMAND = "make zh-tw"
# The catalogue the helpers' and the checks' messages are translated in.
HELPERS_PO = HELPERS_CATALOGUE.format(language=LANGUAGE)
ENGLISH_ONLY_PAGES = "INSTALL.md、CONTRIBUTING.md 與 benchmarks/results.md 只有英文版。"
# What a run of a notebook writes (tools/run_notebooks.py): kept from the committed zh-TW
# notebook while current, and left out when the committed edition is compared with the build.
RUN_CELL_FIELDS = ("outputs", "execution_count")
RUN_METADATA = ("workbook", "language_info")


@dataclass
class Document:
    """One source and its zh-TW form while the edition is built."""

    source: Path
    target: Path
    english: object  # a notebook, or the page's text
    catalogue: object  # its polib catalogue
    previous: object = None  # the committed zh-TW notebook, whose run's outputs may be kept
    translated: object = None
    done: int = 0
    total: int = 0
    anchors: dict = field(default_factory=dict)

    @property
    def share(self) -> str:
        """How much is translated: "1071 / 1071 段（100 %）" (rounded down)."""
        percent = 100 * self.done // max(self.total, 1)
        return f"{self.done} / {self.total} 段（{percent} %）"

    @property
    def is_notebook(self) -> bool:
        return self.source.suffix == ".ipynb"


def edition_path(source: Path) -> Path:
    """notebooks/NN.ipynb -> notebooks/zh-TW/NN.ipynb; README.md -> README.zh-TW.md."""
    source = Path(source)
    if source.suffix == ".ipynb":
        return EDITION_DIR / source.name
    return source.with_name(f"{source.stem}.zh-TW{source.suffix}")


def translation_table(catalogue) -> dict:
    """(context, English) -> translation, for the entries that are translated and not fuzzy."""
    return {
        (entry.msgctxt, entry.msgid): entry.msgstr
        for entry in catalogue
        if entry.msgstr and not entry.fuzzy and not entry.obsolete
    }


def translate(markdown: str, pending, table: dict, document: Document) -> str:
    """``markdown`` with each translatable block replaced by its translation, if it has one;
    ``pending`` yields the source's blocks (with their contexts) in the same order."""
    pieces = []
    for piece in split(markdown):
        text = piece.text
        if piece.translatable:
            block = next(pending)
            assert block.text == piece.text, (block, piece)
            document.total += 1
            if (block.context, block.text) in table:
                text = table[(block.context, block.text)]
                document.done += 1
        pieces.append(text)
    return "".join(pieces)


def translate_document(document: Document) -> None:
    table = translation_table(document.catalogue)
    if document.is_notebook:
        pending = iter(notebook_blocks(document.english))
        notebook = copy.deepcopy(document.english)
        for cell in notebook.cells:
            if cell.cell_type == "markdown":
                cell.source = translate(cell.source, pending, table, document)
        document.translated = notebook
    else:
        pending = iter(markdown_file_blocks(document.english))
        text = LANGUAGE_LINE.sub("", document.english, count=1)
        document.translated = translate(text, pending, table, document)
    document.anchors = anchor_map(document)


def anchor_map(document: Document) -> dict:
    """English heading anchor -> the translated heading's anchor."""
    anchor = notebook_anchor if document.is_notebook else github_anchor
    texts = [document.english, document.translated]
    if document.is_notebook:  # the headings of its Markdown cells
        texts = [
            "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown") for nb in texts
        ]
    english, translated = (headings(text) for text in texts)
    assert len(english) == len(translated), document.source
    mapping = {}
    for before, after in zip(english, translated):
        mapping.setdefault(anchor(before), anchor(after))
    return mapping


def edition_link(link: str, document: Document, by_path: dict) -> str:
    """``link`` (relative to ``document.source``) for the edition: to the zh-TW file when
    there is one, at its translated heading, else to the English file."""
    if EXTERNAL.match(link):
        return link
    path, _, fragment = link.partition("#")
    english = Path(os.path.normpath(document.source.parent / path)) if path else document.source
    linked = by_path.get(english)
    destination = linked.target if linked else english
    if fragment and linked:
        fragment = linked.anchors.get(unquote(fragment), fragment)
    if not path:
        return f"#{fragment}"
    relative = Path(os.path.relpath(destination, document.target.parent)).as_posix()
    return f"{relative}#{fragment}" if fragment else relative


def generated(document: Document) -> dict:
    """What writes ``document``'s zh-TW file and the files to edit instead, as in its metadata."""
    return {
        "command": COMMAND,
        "edit_instead": [
            document.source.relative_to(ROOT).as_posix(),
            catalogue_path(document.source).relative_to(ROOT).as_posix(),
        ],
    }


def status_cell(document: Document):
    """The zh-TW notebook's first cell: which English it translates, and how much of it."""
    text = (
        f"**繁體中文版**（英文原版：[{document.source.name}](../{document.source.name})）。"
        f"說明文字已翻譯 {document.share}"
    )
    if rest := document.total - document.done:
        text += f"；其餘 {rest} 段尚未翻譯，或英文版改過、譯文待更新，這裡先顯示英文原文"
    text += (
        "。程式碼和英文版完全相同，輸出則是這本筆記本在繁體中文環境執行的結果："
        f"輔助程式與練習檢查的訊息，凡 `{HELPERS_PO}` 已翻譯的都以中文顯示，"
        "其餘維持英文；程式碼儲存格自己印出的課程文字維持英文。"
    )
    cell = nbformat.v4.new_markdown_cell(f"{generated_note(generated(document))}\n{text}")
    cell.id = STATUS_CELL_ID
    return cell


def page_text(document: Document) -> str:
    """The zh-TW page: a line linking the English, the translated text, a note under its title."""
    english = document.source.name
    note = f"> 繁體中文版，譯自英文版 [{english}]({english})：說明文字已翻譯 {document.share}"
    if rest := document.total - document.done:
        note += f"，其餘 {rest} 段尚未翻譯或待更新，顯示英文原文"
    note += (
        "。程式碼與輸出維持英文；繁體中文版筆記本裡，輔助程式與練習檢查的訊息凡 "
        f"`{HELPERS_PO}` 已翻譯的都以中文顯示；" + ENGLISH_ONLY_PAGES
    )
    title, _, rest_of_page = document.translated.partition("\n")
    return (
        f"{generated_note(generated(document))}\n[English]({english}) · **繁體中文**\n\n"
        f"{title}\n\n{note}\n{rest_of_page}"
    )


def build() -> dict:
    """Every file of the edition: path -> text."""
    documents = []
    for source in sources():
        target = edition_path(source)
        previous = read(target) if source.suffix == ".ipynb" and target.is_file() else None
        catalogue = load(catalogue_path(source))
        documents.append(Document(source, target, read(source), catalogue, previous))
    return build_documents(documents)


def build_documents(documents: list[Document]) -> dict:
    """The edition's files for ``documents`` (links between them rewritten): path -> text."""
    by_path = {document.source: document for document in documents}
    for document in documents:
        translate_document(document)
    return {document.target: edition_text(document, by_path) for document in documents}


def edition_text(document: Document, by_path: dict) -> str:
    """The zh-TW file of a translated ``document``, as it is written to disk."""
    links = functools.partial(edition_link, document=document, by_path=by_path)
    if not document.is_notebook:
        document.translated = relink(document.translated, links)
        return page_text(document)
    notebook = document.translated
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = relink(cell.source, links)
    notebook.cells.insert(0, status_cell(document))
    notebook.metadata["generated"] = generated(document)
    keep_run(notebook, document.previous, notebook_language(document.target))
    return nbformat.writes(notebook) + "\n"


def code_cells(notebook) -> list:
    """``(id, source)`` of each code cell: what a run's outputs belong to."""
    return [(cell.get("id"), cell.source) for cell in notebook.cells if cell.cell_type == "code"]


def keep_run(notebook, previous, language: str) -> None:
    """Give the built zh-TW ``notebook`` the products of ``previous``'s run (the committed zh-TW
    notebook's) while they are today's: the same code cells, a stamp of today's code and helpers
    in ``language``. Else it keeps the English outputs, unstamped: ``make sync`` executes it."""
    notebook.metadata.pop("workbook", None)  # the English run's stamp, never the zh-TW one's
    if previous is None or code_cells(previous) != code_cells(notebook):
        return
    if not stamp_is_current(previous.metadata.get("workbook"), notebook, language):
        return
    ran = {cell.get("id"): cell for cell in previous.cells if cell.cell_type == "code"}
    for cell in notebook.cells:
        if cell.cell_type == "code":
            for key in RUN_CELL_FIELDS:
                cell[key] = copy.deepcopy(ran[cell.get("id")][key])
    for key in RUN_METADATA:
        if key in previous.metadata:
            notebook.metadata[key] = copy.deepcopy(previous.metadata[key])


def without_run(text: str) -> str:
    """A zh-TW notebook's text without what its run writes (outputs, execution counts, run stamp,
    language_info): what the catalogues and the English decide."""
    notebook = nbformat.reads(text, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    for key in RUN_METADATA:
        notebook.metadata.pop(key, None)
    return nbformat.writes(notebook)


def out_of_date(files: dict) -> list:
    """The edition's files whose committed text is not what the build says (path -> text of
    :func:`build`); a notebook is compared without its run's products, which are the run's."""
    stale = []
    for path, text in files.items():
        path = Path(path)
        committed = path.read_text(encoding="utf-8") if path.is_file() else None
        if committed is not None and path.suffix == ".ipynb":
            committed, text = without_run(committed), without_run(text)
        if committed != text:
            stale.append(path)
    return stale


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when a committed file is not current",
    )
    args = parser.parse_args(argv)
    try:
        files = build()
    except CatalogueError as error:
        print(error, file=sys.stderr)
        return 1
    written = out_of_date(files) if args.check else update(files)
    stale = [path.relative_to(ROOT) for path in written]
    for where in stale:
        print(f"{where}: {'out of date' if args.check else 'written'}")
    if args.check and stale:
        print("Run `make zh-tw` (after `make po`).", file=sys.stderr)
        return 1
    if not stale:
        print("The zh-TW edition is up to date.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
