"""The helpers' sentences (``_("...")`` in helpers/, helpers/language.py) in the zh-TW catalogue.

    .venv-teacher/bin/python -m tools.helpers_messages          # merge them into helpers.po
    .venv-teacher/bin/python -m tools.helpers_messages --check  # exit 1 when it is not merged

(Any environment with Babel and polib will do: the sources are read, not imported, so no
TensorFlow.)

Babel's Python extractor finds every ``_("...")`` literal in ``helpers/**/*.py``, and the
literal of each check's ``fail("...", k=v)`` and ``correct("...", k=v)``; each sentence is one
entry of ``translations/zh_TW/helpers.po``, with the files that say it
(``#: helpers/checks/notebook05.py``, no line numbers, so that moving code leaves the catalogue
alone) and any
``# TRANSLATORS:`` comment above it (``#.``). Merged as msgmerge does, as the prose catalogues
are (tools/catalogues.py says how); helpers.language shows a *fuzzy* entry's English until a
translator removes the mark.

``--check`` compares what the catalogue says (not its layout, so a catalogue saved by a PO editor
passes) and names what is not merged: sentences without an entry, entries no longer said, or
only the file references, which change when a sentence moves to another file.
"""

from __future__ import annotations

import argparse
import string
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import polib

from tools.catalogues import CATALOGUES, ROOT, content, load, merge
from tools.generated_files import update

PACKAGE = ROOT / "helpers"
CATALOGUE = CATALOGUES / "helpers.po"
# _("..."), N_("...") in a table, the checks' fail("...", k=v) and correct("...", k=v)
KEYWORDS = {"_": None, "N_": None, "fail": None, "correct": None}
COMMENT_TAG = "TRANSLATORS:"
HEADER = (
    "The helpers' sentences (check messages, errors, figure captions) in zh-TW.\n"
    "Merged by `python -m tools.helpers_messages` (make po): translations/README.md."
)


@dataclass
class Message:
    """One sentence and every place that says it."""

    msgid: str
    occurrences: list = field(default_factory=list)  # (path, ""): the files, no lines
    comments: list = field(default_factory=list)  # the translators' comments


def extracted(package: Path = PACKAGE, root: Path = ROOT) -> list[Message]:
    """Every ``_("...")`` sentence of the ``.py`` files under ``package``, in file and line order,
    each once, with its places as paths relative to ``root``."""
    from babel.messages.extract import extract_from_dir

    prefix = Path(package).resolve().relative_to(Path(root).resolve())
    found: dict[str, Message] = {}
    for filename, line, msgid, comments, _context in extract_from_dir(
        str(package),
        method_map=[("**.py", "python")],
        keywords=KEYWORDS,
        comment_tags=(COMMENT_TAG,),
        strip_comment_tags=True,
    ):
        message = found.setdefault(msgid, Message(msgid))
        place = ((prefix / filename).as_posix(), "")  # no line: moving code changes nothing
        if place not in message.occurrences:
            message.occurrences.append(place)
        message.comments.extend(c for c in comments if c not in message.comments)
    return list(found.values())


def merged(old: polib.POFile, messages: list[Message]) -> polib.POFile:
    """A catalogue of ``messages`` that keeps what ``old`` translated: the prose catalogues'
    merge (``tools.catalogues.merge``)."""
    templates = [
        polib.POEntry(
            msgid=message.msgid,
            msgstr="",
            occurrences=list(message.occurrences),
            comment="\n".join(message.comments),
        )
        for message in messages
    ]
    return merge(old, templates, HEADER)


def problem(catalogue: polib.POFile, messages: list[Message], name: str = "helpers.po"):
    """Why ``catalogue`` is not merged with ``messages``, as one sentence that says what to do;
    None when it is (whatever the layout it was saved in)."""
    said = {message.msgid for message in messages}
    entries = {entry.msgid for entry in catalogue if not entry.obsolete}
    new, gone = sorted(said - entries), sorted(entries - said)
    if new or gone:
        examples = "; ".join(repr(text[:60]) for text in (new + gone)[:3])
        return (
            f"{name} is not merged with the helpers' sentences ({len(new)} sentences have no "
            f"entry, {len(gone)} entries are no longer said; e.g. {examples}): run "
            "`python -m tools.helpers_messages` (make po)"
        )
    fresh = merged(catalogue, messages)
    after, before = content(fresh, comments=True), content(catalogue, comments=True)
    if after != before:
        return (
            f"{name}: merging would carry translations into {len(after - before)} of its entries "
            "(from an obsolete entry, or one marked fuzzy): run `python -m tools.helpers_messages` "
            "(make po)"
        )
    after, before = (content(c, comments=True, references=True) for c in (fresh, catalogue))
    if after != before:
        moved = len(after - before)
        return (
            f"{name}: the file references of {moved} entries are out of date (a sentence "
            "moved to another file, none changed): run `python -m tools.helpers_messages` (make po)"
        )
    return None


def fields(text: str) -> Counter:
    """The replacement fields of a template as written (``{name!r:.3f}``, ``{}``) and its escaped
    braces (``{{``, ``}}``), each as often as it is there."""
    found: Counter = Counter()
    for literal, name, spec, conversion in string.Formatter().parse(text):
        found["{{"] += literal.count("{")
        found["}}"] += literal.count("}")
        if name is not None:
            conversion = f"!{conversion}" if conversion else ""
            found[f"{{{name}{conversion}{':' + spec if spec else ''}}}"] += 1
    return +found


def shown(text: str) -> str:
    """A template as the style rules read it: each field as ``X`` (a Latin word, as its values
    mostly are: a name, a number, a path), each escaped brace as one."""
    parsed = string.Formatter().parse(text)
    return "".join(literal + ("X" if name is not None else "") for literal, name, _, _ in parsed)


def field_problem(msgid: str, msgstr: str) -> str | None:
    """Why ``msgstr`` cannot stand for the template ``msgid``: a field dropped, renamed or added
    (``.format`` would raise ``KeyError`` or lose a value), or not a template Python can parse."""
    try:
        english, translated = fields(msgid), fields(msgstr)
    except ValueError as error:
        return f"not a format template ({error}): write each {{ }} as in the English"
    if english == translated:
        return None
    missing = " ".join(sorted((english - translated).elements())) or "none"
    extra = " ".join(sorted((translated - english).elements())) or "none"
    return (
        f"its fields are not the English's (missing: {missing}; not in the English: {extra}): "
        "give back every {field} of the English as it is written"
    )


def run(check: bool = False, package=None, root=None, path=None) -> list[str]:
    """Merge (or with ``check`` only compare): the files written, or the problems found. By
    default the course's helpers/ and translations/zh_TW/helpers.po."""
    package, root, path = package or PACKAGE, root or ROOT, path or CATALOGUE
    messages = extracted(package, root)
    old = load(path)
    if check:
        reason = problem(old, messages, Path(path).name)
        return [reason] if reason else []
    return [str(written) for written in update({path: str(merged(old, messages))})]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if not merged")
    args = parser.parse_args(argv)
    lines = run(check=args.check)
    if args.check:
        print("\n".join(lines) if lines else f"{CATALOGUE.name} is merged")
        return 1 if lines else 0
    print("\n".join(f"wrote {line}" for line in lines) or f"{CATALOGUE.name} is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
