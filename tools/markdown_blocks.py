"""Cut Markdown into the blocks a translator translates, and put it back together.

    pieces = split(markdown)          # [Piece(text, translatable, kind), ...]
    assert "".join(p.text for p in pieces) == markdown

markdown-it-py (CommonMark with tables) gives each block the lines it spans. A
paragraph, a heading and a block quote are one block each; a list gives one
block per top-level item (a nested list stays inside its item); a table one
per row (its ``|---|`` line is not translated). Code fences, HTML blocks,
rules and the blank lines between blocks are kept as they are. A block with no
English word outside its code, URLs and math (a table row of numbers, a
heading that is only code) is kept too: there is nothing to translate.

``protected(text)`` lists what a translation must give back unchanged: inline
code, link and image targets, bare URLs, ``$math$`` and HTML tags.
``structure(text)`` is a block's Markdown frame (heading level, list marker,
number of table cells, quote mark), which a translation keeps.
``relink(markdown, change)`` rewrites the targets of its relative links (outside code), for a
copy of the text in another folder (the zh-TW edition, the student copies).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass

from markdown_it import MarkdownIt

from tools.anchors import FENCE

PARSER = MarkdownIt("commonmark").enable("table")
KEPT_BLOCKS = {"fence", "code_block", "html_block", "hr"}

CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
LINK_TARGET = re.compile(r"\]\(([^()\s]*(?:\([^()\s]*\)[^()\s]*)*)\)")
AUTOLINK = re.compile(r"<(?:https?|mailto):[^>\s]+>")
BARE_URL = re.compile(r"(?<![(<])\bhttps?://[^\s)>\]]+")
MATH = re.compile(r"\$[^$\n]+\$")
HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
# What a translation gives back unchanged, in the order it is taken out of the text.
PROTECTED = (
    ("code", CODE_SPAN),
    ("link target", LINK_TARGET),
    ("URL", AUTOLINK),
    ("URL", BARE_URL),
    ("math", MATH),
    ("tag", HTML_TAG),
)
ENGLISH_WORD = re.compile(r"[A-Za-z]{2,}")
# An inline link or image, its target as the group 2; a target with a scheme (https:, mailto:)
# is not relative.
LINK = re.compile(r"(!?\[[^\]]*\]\()([^()\s]+)(\))")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


@dataclass(frozen=True)
class Piece:
    text: str
    translatable: bool
    kind: str  # "heading", "paragraph", "list item", "table row", "quote", or "kept"


def split(markdown: str) -> list[Piece]:
    """The pieces of ``markdown`` in order; joined, they are ``markdown`` exactly."""
    lines = markdown.splitlines(keepends=True)
    pieces, line = [], 0
    for start, end, kind in _block_spans(markdown):
        if start > line:
            pieces.append(Piece("".join(lines[line:start]), False, "kept"))
        pieces.extend(_block_pieces("".join(lines[start:end]), kind))
        line = end
    if line < len(lines):
        pieces.append(Piece("".join(lines[line:]), False, "kept"))
    return pieces


def _block_spans(markdown: str) -> list[tuple[int, int, str]]:
    """(first line, end line, kind) of each block that may be translated; :func:`split` keeps the
    lines between them."""
    spans, tokens = [], PARSER.parse(markdown)
    for index, token in enumerate(tokens):
        if token.level or token.map is None or token.nesting == -1 or token.type in KEPT_BLOCKS:
            continue
        if token.type in ("bullet_list_open", "ordered_list_open"):
            spans.extend(_inner_spans(tokens, index, "list_item_open", 1, "list item"))
        elif token.type == "table_open":  # not its |---| line
            spans.extend(_inner_spans(tokens, index, "tr_open", 2, "table row"))
        else:
            kind = {"heading_open": "heading", "blockquote_open": "quote"}
            spans.append((*token.map, kind.get(token.type, "paragraph")))
    return spans


def _inner_spans(tokens, index: int, opening: str, level: int, kind: str):
    inner = itertools.takewhile(lambda token: token.level, tokens[index + 1 :])
    return [(*token.map, kind) for token in inner if token.type == opening and token.level == level]


def _block_pieces(text: str, kind: str) -> list[Piece]:
    """The block without its trailing blank lines (kept apart), translatable if it has words."""
    body = text.rstrip("\n \t")
    tail = text[len(body) :]
    pieces = [Piece(body, has_words(body), kind)]
    if tail:
        pieces.append(Piece(tail, False, "kept"))
    return pieces


def without_protected(text: str) -> str:
    """``text`` with its code, URLs, math and HTML tags taken out."""
    for _name, pattern in PROTECTED:
        text = pattern.sub(" ", text)
    return text


def has_words(text: str) -> bool:
    return bool(ENGLISH_WORD.search(without_protected(text)))


def protected(text: str) -> Counter:
    """What a translation of ``text`` must keep: code spans, link targets, URLs, math, tags."""
    found = Counter()
    rest = text
    for name, pattern in PROTECTED:
        found.update((name, match.group(0)) for match in pattern.finditer(rest))
        rest = pattern.sub(" ", rest)
    return found


HEADING = re.compile(r"#{1,6}(?=\s)")
LIST_MARKER = re.compile(r"(?:[-*+]|\d+[.)])(?=\s)")


def structure(text: str) -> tuple:
    """A block's Markdown frame: what its first line starts with, and its table cells."""
    first = text.lstrip(" ")
    for name, pattern in (("heading", HEADING), ("list", LIST_MARKER)):
        match = pattern.match(first)
        if match:
            return (name, match.group(0))
    if first.startswith(">"):
        return ("quote", ">")
    if first.startswith("|"):
        return ("table row", len(re.findall(r"(?<!\\)\|", CODE_SPAN.sub("", text))))
    return ("paragraph",)


def relink(markdown: str, change) -> str:
    """``markdown`` with each relative link target ``t`` replaced by ``change(t)``; targets with
    a scheme, and what is in code spans and fenced code, are left alone."""
    kept = []

    def hide(match: re.Match) -> str:
        kept.append(match.group(0))
        return f"\0{len(kept) - 1}\0"

    def target(match: re.Match) -> str:
        link = match[2]
        return match[0] if EXTERNAL.match(link) else match[1] + change(link) + match[3]

    hidden = CODE_SPAN.sub(hide, FENCE.sub(hide, markdown))
    rewritten = LINK.sub(target, hidden)
    return re.sub("\0(\\d+)\0", lambda match: kept[int(match[1])], rewritten)
