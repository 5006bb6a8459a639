"""Build the zh-TW edition from the English sources and the catalogues (translations/).

    .venv/bin/python -m tools.edition            # make zh-tw writes the edition
    .venv/bin/python -m tools.edition --check    # exit 1 when a committed file is not current

Each zh-TW file is its English source with every translated block replaced:
``notebooks/zh-TW/NN_name.ipynb`` (code cells, outputs, attachments and
metadata are the English notebook's), ``README.zh-TW.md`` and
``TEACHING.zh-TW.md``. A block whose entry is fuzzy or empty stays English, and
a first cell (in a notebook) or a note under the title (in a page) says how
much is translated. Relative links are rewritten for the edition: to the zh-TW
notebook or page when there is one, with the anchor of the translated heading,
else to the English file from the new folder. The student copies are written
after this by tools/make_student.py (in the teacher environment), as for the
English notebooks.
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

import nbformat

from tools.anchors import FENCE, github_anchor, headings, notebook_anchor
from tools.catalogues import (
    LANGUAGE_LINE,
    ROOT,
    catalogue_path,
    load,
    markdown_file_blocks,
    notebook_blocks,
    sources,
)
from tools.generated_files import update
from tools.markdown_blocks import CODE_SPAN, split

EDITION_DIR = ROOT / "notebooks" / "zh-TW"
STATUS_CELL_ID = "zh-tw-edition"
LINK = re.compile(r"(!?\[[^\]]*\]\()([^()\s]+)(\))")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
ENGLISH_ONLY_PAGES = "INSTALL.md、CONTRIBUTING.md 與 benchmarks/results.md 只有英文版。"


@dataclass
class Document:
    """One source and its zh-TW form while the edition is built."""

    source: Path
    target: Path
    english: object  # a notebook, or the page's text
    catalogue: object  # its polib catalogue
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


def markdown_of(document: Document, translated: bool) -> str:
    content = document.translated if translated else document.english
    if not document.is_notebook:
        return content
    return "\n\n".join(cell.source for cell in content.cells if cell.cell_type == "markdown")


def anchor_map(document: Document) -> dict:
    """English heading anchor -> the translated heading's anchor."""
    anchor = notebook_anchor if document.is_notebook else github_anchor
    english = headings(markdown_of(document, translated=False))
    translated = headings(markdown_of(document, translated=True))
    assert len(english) == len(translated), document.source
    mapping = {}
    for before, after in zip(english, translated):
        mapping.setdefault(anchor(before), anchor(after))
    return mapping


def rewrite_links(markdown: str, document: Document, by_path: dict) -> str:
    """Relative links of ``markdown`` (which was in ``document.source``) as seen from the
    edition's file; what is in code spans and fenced code is left alone."""
    kept = []

    def hide(match: re.Match) -> str:
        kept.append(match.group(0))
        return f"\0{len(kept) - 1}\0"

    def target(match: re.Match) -> str:
        return match[1] + edition_link(match[2], document, by_path) + match[3]

    hidden = CODE_SPAN.sub(hide, FENCE.sub(hide, markdown))
    rewritten = LINK.sub(target, hidden)
    return re.sub("\0(\\d+)\0", lambda match: kept[int(match[1])], rewritten)


def edition_link(link: str, document: Document, by_path: dict) -> str:
    """``link`` (relative to ``document.source``) for the edition: to the zh-TW file when
    there is one, at its translated heading, else to the English file."""
    if EXTERNAL.match(link):
        return link
    path, _, fragment = link.partition("#")
    if path:
        english = Path(os.path.normpath(document.source.parent / path))
    else:
        english = document.source
    linked = by_path.get(english)
    destination = linked.target if linked else english
    if fragment and linked:
        fragment = linked.anchors.get(unquote(fragment), fragment)
    if not path:
        return f"#{fragment}"
    relative = Path(os.path.relpath(destination, document.target.parent)).as_posix()
    return f"{relative}#{fragment}" if fragment else relative


def status_cell(document: Document):
    """The zh-TW notebook's first cell: which English it translates, and how much of it."""
    english = f"../{document.source.name}"
    text = (
        f"**繁體中文版**（英文原版：[{document.source.name}]({english})）。"
        f"說明文字已翻譯 {document.share}"
    )
    rest = document.total - document.done
    if rest:
        text += f"；其餘 {rest} 段尚未翻譯，或英文版改過、譯文待更新，這裡先顯示英文原文"
    text += "。程式碼與輸出和英文版完全相同；輔助程式與練習檢查印出的訊息是英文。"
    cell = nbformat.v4.new_markdown_cell(text)
    cell.id = STATUS_CELL_ID
    return cell


def page_text(document: Document) -> str:
    """The zh-TW page: a line linking the English, the translated text, a note under its title."""
    english = document.source.name
    note = f"> 繁體中文版，譯自英文版 [{english}]({english})：說明文字已翻譯 {document.share}"
    rest = document.total - document.done
    if rest:
        note += f"，其餘 {rest} 段尚未翻譯或待更新，顯示英文原文"
    note += "。程式碼、輸出，以及輔助程式與練習檢查印出的訊息維持英文；" + ENGLISH_ONLY_PAGES
    title, _, rest_of_page = document.translated.partition("\n")
    return f"[English]({english}) · **繁體中文**\n\n{title}\n\n{note}\n{rest_of_page}"


def build() -> dict:
    """Every file of the edition: path -> text."""
    return build_documents(
        [
            Document(source, edition_path(source), _read(source), load(catalogue_path(source)))
            for source in sources()
        ]
    )


def build_documents(documents: list[Document]) -> dict:
    """The edition's files for ``documents`` (links between them rewritten): path -> text."""
    by_path = {document.source: document for document in documents}
    for document in documents:
        translate_document(document)
    return {document.target: edition_text(document, by_path) for document in documents}


def edition_text(document: Document, by_path: dict) -> str:
    """The zh-TW file of a translated ``document``, as it is written to disk."""
    if not document.is_notebook:
        document.translated = rewrite_links(document.translated, document, by_path)
        return page_text(document)
    notebook = document.translated
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = rewrite_links(cell.source, document, by_path)
    notebook.cells.insert(0, status_cell(document))
    return nbformat.writes(notebook) + "\n"


def _read(source: Path):
    if source.suffix == ".ipynb":
        return nbformat.read(source, as_version=4)
    return source.read_text(encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when a committed file is not current",
    )
    args = parser.parse_args(argv)
    stale = [path.relative_to(ROOT) for path in update(build(), check=args.check)]
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
