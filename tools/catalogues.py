"""The zh-TW edition's gettext catalogues: one per English source, merged the gettext way.

    .venv-teacher/bin/python -m tools.catalogues          # make po: merge the English into them
    .venv-teacher/bin/python -m tools.catalogues --check  # exit 1 when one is not merged
    .venv-teacher/bin/python -m tools.catalogues --stats  # translated / fuzzy / empty per one

(Any environment with polib, markdown-it-py and nbformat will do: no TensorFlow.)

Each English source (a notebook, README.md, TEACHING.md, translations/README.md) has a catalogue
``translations/zh_TW/<name>.po`` with one entry per translatable Markdown block
(tools/markdown_blocks.py). An entry's context (``msgctxt``) is where the block
is: the notebook cell's id, or in a Markdown file the GitHub anchor of the
section it is in. So a moved cell or section keeps its translations.

Merging, as msgmerge does: an unchanged block keeps its translation; a block
whose English changed keeps the old translation marked *fuzzy* (with the old
English as ``#| msgid``), which the edition does not show; a block whose only
change is its numbers (a re-measured run time) gets them replaced in its
translation; a removed block becomes obsolete (``#~``); a new one is empty.

A catalogue saved by a PO editor (Poedit, Weblate, msgcat, Lokalize) comes back
with its header rewritten, its lines wrapped at 77 or 79 columns, a fuzzy
entry's ``#| msgid`` kept after its mark was cleared, or its entries sorted:
none of that is a change of content, so ``--check`` accepts it, and the merge
writes it back in the course's layout (one line per string, the course's header
fields, block order), keeping the fields the editor added (``Last-Translator``,
``Language-Team``, ``PO-Revision-Date``, ``X-Generator``) and the header comment.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import nbformat
import polib

from tools.anchors import github_anchor, headings
from tools.generated_files import update
from tools.markdown_blocks import split
from tools.notebook_code import ROOT

LANGUAGE = "zh_TW"
CATALOGUES = ROOT / "translations" / LANGUAGE
# The line at the top of README.md and TEACHING.md that links the other language; the
# edition writes its own (tools/edition.py), so it is not translated.
LANGUAGE_LINE = re.compile(r"^\*\*English\*\* · \[繁體中文\]\([\w.-]+\)\n\n?", re.MULTILINE)
# How alike a changed block's English must be to an old one to be offered its translation
# (fuzzy): in the same cell or section, and anywhere else in the source.
FUZZY_SIMILARITY = 0.6
FUZZY_SIMILARITY_ELSEWHERE = 0.8
# A figure (the group): 3,000, 0.25, 1½, the 51 of "51st", the 7 of "7s"; not the comma of
# "255, 0", nor the digits of TF1, F1 or v2.15.
NUMBER = re.compile(
    r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?½?|½)(?:st|nd|rd|th|s)?(?!\w)"
    r"(?!\.[A-Za-z0-9])"
)


@dataclass(frozen=True)
class Block:
    context: str
    text: str
    kind: str


TRANSLATORS_GUIDE = ROOT / "translations" / "README.md"


def sources() -> list[Path]:
    """The English files the edition translates."""
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    return [*notebooks, ROOT / "README.md", ROOT / "TEACHING.md", TRANSLATORS_GUIDE]


def catalogue_path(source: Path) -> Path:
    """notebooks/NN_name.ipynb -> NN_name.po; README.md -> README.po; translations/README.md (the
    translators' guide) -> translators-guide.po."""
    name = "translators-guide" if Path(source) == TRANSLATORS_GUIDE else Path(source).stem
    return CATALOGUES / f"{name}.po"


def read(source: Path):
    """A source (or its zh-TW file) as read for the edition: a notebook, or a page's text."""
    source = Path(source)
    if source.suffix == ".ipynb":
        return nbformat.read(source, as_version=4)
    return source.read_text(encoding="utf-8")


def blocks(source: Path) -> list[Block]:
    """The translatable blocks of ``source``, in order, each with its context."""
    text = read(source)
    return markdown_file_blocks(text) if isinstance(text, str) else notebook_blocks(text)


def notebook_blocks(notebook) -> list[Block]:
    cells = [cell for cell in notebook.cells if cell.cell_type == "markdown"]
    pieces = [(cell.id, p) for cell in cells for p in split(cell.source) if p.translatable]
    return _unique([Block(where, piece.text, piece.kind) for where, piece in pieces])


def markdown_file_blocks(text: str) -> list[Block]:
    found, section = [], ""
    for piece in split(LANGUAGE_LINE.sub("", text, count=1)):
        if piece.kind == "heading":
            section = github_anchor(headings(piece.text)[0])
        if piece.translatable:
            found.append(Block(section, piece.text, piece.kind))
    return _unique(found)


def _unique(found: list[Block]) -> list[Block]:
    """The blocks with their entries' contexts: the same English twice in one context is told
    apart by ``#2``."""
    seen, unique = Counter(), []
    for block in found:
        seen[block.context, block.text] += 1
        count = seen[block.context, block.text]
        context = block.context if count == 1 else f"{block.context}#{count}"
        unique.append(Block(context, block.text, block.kind))
    return unique


def new_catalogue() -> polib.POFile:
    catalogue = polib.POFile(wrapwidth=0)
    catalogue.metadata = {
        "Project-Id-Version": "estimator-workbook",
        "Language": LANGUAGE,
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
        "Plural-Forms": "nplurals=1; plural=0;",
    }
    return catalogue


class CatalogueError(Exception):
    """A catalogue that polib cannot read, as one sentence that says what to do."""


def load(path: Path) -> polib.POFile:
    if not Path(path).exists():
        return new_catalogue()
    try:
        return polib.pofile(str(path), wrapwidth=0)
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise CatalogueError(
            "{name} cannot be read as a PO file ({error}): correct it there, or take back the "
            "committed one with `git checkout -- {path}`".format(
                name=Path(path).name, error=error, path=_shown(path)
            )
        ) from error


def _shown(path: Path) -> str:
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def merged(old: polib.POFile, found: list[Block]) -> polib.POFile:
    """A catalogue for the blocks ``found`` that keeps what ``old`` translated (see above)."""
    templates = [
        polib.POEntry(msgctxt=block.context, msgid=block.text, msgstr="", comment=block.kind)
        for block in found
    ]
    return merge(old, templates)


def merge(old: polib.POFile, templates: list, header: str = "") -> polib.POFile:
    """The catalogue of ``templates`` (new, untranslated entries) merged with ``old`` as the module
    docstring says, for the prose's catalogues and the helpers' alike; ``old``'s header and the
    fields a translator's editor added to it are kept (``header`` when it has none)."""
    catalogue = new_catalogue()
    catalogue.header = old.header or header
    catalogue.metadata.update(
        (key, value) for key, value in old.metadata.items() if key not in catalogue.metadata
    )
    # obsolete ones included, after the current ones: a current entry wins a tie
    previous = sorted((entry for entry in old if entry.msgstr), key=lambda entry: entry.obsolete)
    exact, by_text = {}, {}
    for entry in previous:
        exact.setdefault((entry.msgctxt, entry.msgid), entry)
        if not entry.fuzzy:
            by_text.setdefault(entry.msgid, entry)
    current = {(entry.msgctxt, entry.msgid) for entry in templates}
    unmatched = [entry for entry in previous if (entry.msgctxt, entry.msgid) not in current]
    used: set = set()
    for entry in templates:
        match = exact.get((entry.msgctxt, entry.msgid)) or by_text.get(entry.msgid)
        if match is not None:
            entry.msgstr = match.msgstr
            entry.tcomment = match.tcomment
            entry.flags = list(match.flags)
            entry.previous_msgid = match.previous_msgid if match.fuzzy else None
            used.add(id(match))
        else:
            _carry_changed(entry, unmatched, used)
        catalogue.append(entry)
    for entry in previous:
        if id(entry) not in used and (entry.msgctxt, entry.msgid) not in current:
            gone = polib.POEntry(
                msgctxt=entry.msgctxt,
                msgid=entry.msgid,
                msgstr=entry.msgstr,
                tcomment=entry.tcomment,
                obsolete=True,
            )
            catalogue.append(gone)
    return catalogue


def _carry_changed(entry: polib.POEntry, previous: list, used: set) -> None:
    """A changed entry: its numbers only (translation updated), else fuzzy from the closest."""
    candidates = [old for old in previous if id(old) not in used]
    same_place = [old for old in candidates if old.msgctxt == entry.msgctxt]
    for old in same_place:
        numbers = renumbered(old.msgid, entry.msgid, old.msgstr)
        if numbers is not None and not old.fuzzy:
            entry.msgstr = numbers
            entry.tcomment = old.tcomment
            used.add(id(old))
            return
    best, score = None, FUZZY_SIMILARITY if same_place else FUZZY_SIMILARITY_ELSEWHERE
    for old in same_place or candidates:
        matcher = difflib.SequenceMatcher(None, old.msgid, entry.msgid, autojunk=False)
        if matcher.real_quick_ratio() > score and matcher.ratio() > score:
            best, score = old, matcher.ratio()
    if best is not None:
        entry.msgstr = best.msgstr
        entry.tcomment = best.tcomment
        entry.flags = ["fuzzy"]
        entry.previous_msgid = best.previous_msgid if best.fuzzy else best.msgid
        used.add(id(best))


def renumbered(old_english: str, new_english: str, translation: str):
    """``translation`` with the numbers of ``new_english``, when only numbers changed and each
    old number became one new number (so a translation that orders them otherwise, or leaves
    one out, is still updated); else None."""
    if NUMBER.sub("0", old_english) != NUMBER.sub("0", new_english):
        return None
    mapping = {}
    for old, new in zip(NUMBER.findall(old_english), NUMBER.findall(new_english)):
        if mapping.setdefault(old, new) != new:
            return None  # the same old number became two different ones: which is which?
    if any(number not in mapping for number in NUMBER.findall(translation)):
        return None
    return NUMBER.sub(
        lambda match: match.group(0).replace(match[1], mapping[match[1]], 1), translation
    )


def content(catalogue: polib.POFile, comments: bool = False, references: bool = False) -> Counter:
    """What a catalogue says, without its layout: each entry's context, English, translation,
    fuzzy mark (with the old English it was marked against), translator comment and whether it
    is obsolete; with ``comments`` its ``#.`` comment (in the prose's catalogues the block kind,
    not content), with ``references`` its ``#:`` places. Not the header, wrapping or order."""
    return Counter(
        (
            entry.obsolete,
            entry.msgctxt or "",
            entry.msgid,
            entry.msgstr,
            entry.fuzzy,
            (entry.previous_msgid or "") if entry.fuzzy else "",
            " ".join((entry.tcomment or "").split()),  # an editor may wrap it
            " ".join((entry.comment or "").split()) if comments else "",
            tuple(sorted(tuple(place) for place in entry.occurrences)) if references else (),
        )
        for entry in catalogue
    )


def problem(source: Path, catalogue: polib.POFile, found: list[Block]) -> str | None:
    """Why ``catalogue`` is not merged with ``source`` (whose blocks are ``found``), as one
    sentence that says what to do; None when it is (whatever the layout it was saved in)."""
    name = catalogue_path(source).name
    english = {(block.context, block.text) for block in found}
    entries = {(entry.msgctxt, entry.msgid) for entry in catalogue if not entry.obsolete}
    new, gone = len(english - entries), len(entries - english)
    if new or gone:
        return (
            f"{name} is not merged with the changed English of {source.name} ({new} new or "
            f"changed blocks have no entry, {gone} entries are no longer in the English): "
            "run `make po`"
        )
    would_change = content(merged(catalogue, found)) - content(catalogue)
    if would_change:
        return (
            f"{name}: `make po` would carry translations into {len(would_change)} of its "
            "entries (from an obsolete entry, or one with the same English elsewhere): run "
            "`make po`"
        )
    return None


def merge_all(check: bool = False, only: tuple = ()) -> list[str]:
    """Merge every source (or those whose catalogue is named in ``only``) into its catalogue:
    the catalogues written. With ``check``, write nothing: one sentence per catalogue that is not
    merged, naming why and what to do (one saved by a PO editor in its own layout is merged)."""
    chosen = [s for s in sources() if not only or catalogue_path(s).name in only]
    if check:
        found = [problem(source, load(catalogue_path(source)), blocks(source)) for source in chosen]
        return [reason for reason in found if reason]
    files = {
        catalogue_path(source): str(merged(load(catalogue_path(source)), blocks(source)))
        for source in chosen
    }
    return [_shown(path) for path in update(files)]


def counts(catalogue: polib.POFile) -> dict:
    """Translated, fuzzy and empty entries (obsolete ones are not counted)."""
    return {
        "entries": sum(1 for entry in catalogue if not entry.obsolete),
        "translated": len(catalogue.translated_entries()),
        "fuzzy": len(catalogue.fuzzy_entries()),
        "empty": len(catalogue.untranslated_entries()),
    }


def stats_table() -> str:
    """A table of every catalogue's counts, for `make test` and the translator."""
    rows = ["catalogue                                   entries  translated  fuzzy  empty"]
    total = {"entries": 0, "translated": 0, "fuzzy": 0, "empty": 0}
    for source in sources():
        numbers = counts(load(catalogue_path(source)))
        rows.append(_row(catalogue_path(source).name, numbers))
        total = {key: total[key] + numbers[key] for key in total}
    return "\n".join([*rows, _row("all", total)])


def _row(name: str, numbers: dict) -> str:
    return (
        f"{name:<44}{numbers['entries']:>7}{numbers['translated']:>12}"
        f"{numbers['fuzzy']:>7}{numbers['empty']:>7}"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 when a catalogue is not merged"
    )
    parser.add_argument("--stats", action="store_true", help="print the counts only")
    parser.add_argument(
        "catalogues", nargs="*", type=Path, help="only these catalogues (default: all)"
    )
    args = parser.parse_args(argv)
    if args.stats:
        print(stats_table())
        return 0
    only = {path.name for path in args.catalogues}
    try:
        changed = merge_all(check=args.check, only=only)
    except CatalogueError as error:
        print(error, file=sys.stderr)
        return 1
    if args.check and changed:
        print("\n".join(changed), file=sys.stderr)
        return 1
    for name in changed:
        print(f"{name}: merged (in the course's layout)")
    if not changed:
        print("Every catalogue is merged with the English.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
