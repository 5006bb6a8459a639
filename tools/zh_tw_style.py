"""Check the zh-TW translations against the glossary's rules (translations/zh_TW/glossary.md).

    .venv/bin/python -m tools.zh_tw_style                       # every catalogue
    .venv/bin/python -m tools.zh_tw_style translations/zh_TW/05_hooks.po

One line per problem, with the entry's context and the start of its English.
A translation must give back its block's code, URLs, math and tags unchanged
and keep its Markdown frame (tools/markdown_blocks.py); it must not hold a
character OpenCC's ``s2tw`` converter changes (Simplified, or a form Taiwan does
not write) nor a term of the glossary's 「不用」 column, unless the English it
translates has it too (a quotation of the source article); its punctuation is
full-width next to Chinese, with one space between Chinese and Latin letters or
digits; a block is one line; and it has Chinese in it, unless the entry's
translator comment says ``English on purpose``. Fuzzy and empty entries are
not checked: the edition shows their English.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

import polib

from tools.catalogues import CATALOGUES, NUMBER, load
from tools.markdown_blocks import CODE_SPAN, PARSER, protected, structure, without_protected

GLOSSARY = CATALOGUES / "glossary.md"
CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# Taiwan writes 台 as often as 臺 (s2tw turns it into 臺); the source article's title is
# quoted as it is written.
TAIWAN_FORMS = {"台"}
ARTICLE_TITLE = "Tensorflow：estimator訓練"
# Taiwanese words that hold a refused term: 控制代碼 (a handle) holds 代碼.
TAIWAN_COMPOUNDS = ("控制代碼",)
HALF_WIDTH_NEXT_TO_CJK = re.compile(rf"[{CJK}][,.:;?!]|[,.:;?!][{CJK}]")
HALF_WIDTH_PARENS = re.compile(rf"[{CJK}] ?\(|\) ?[{CJK}]|\([{CJK}]|[{CJK}]\)")
NO_SPACE = re.compile(rf"[{CJK}][A-Za-z0-9]|[A-Za-z0-9%][{CJK}]")
WESTERN_QUOTES = re.compile(rf"[“”]|[{CJK}]\"|\"[{CJK}]")
HAS_CJK = re.compile(rf"[{CJK}]")
CJK_LINE_BREAK = re.compile(rf"[{CJK}，。、：；？！」）]\n[{CJK}「（]")
ON_PURPOSE = "English on purpose"


@lru_cache(maxsize=1)
def mainland_terms() -> tuple:
    """The glossary's 「不用」 column."""
    terms = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[2] and cells[2] not in ("不用", "---"):
            terms.extend(term.strip() for term in cells[2].split(","))
    return tuple(term for term in terms if term)


@lru_cache(maxsize=1)
def converter():
    try:
        import opencc
    except ImportError:  # Python 3.9: opencc has no wheel (requirements.txt)
        return None
    return opencc.OpenCC("s2tw")


def non_taiwan_characters(text: str) -> list[str]:
    """Characters of ``text`` that OpenCC's s2tw converts: Simplified, or not Taiwan's form."""
    convert = converter()
    if convert is None:
        raise RuntimeError("opencc is not installed (it needs Python 3.10 or newer)")
    return sorted(
        {
            char
            for char in set(HAS_CJK.findall(text))
            if char not in TAIWAN_FORMS and convert.convert(char) != char
        }
    )


def prose(text: str) -> str:
    """What a reader reads as Chinese prose: code, URLs and emphasis marks out, code as ``X``
    (a Latin word), the article's title as ``題`` (a Chinese one)."""
    text = text.replace(ARTICLE_TITLE, "題")
    text = CODE_SPAN.sub("X", text)
    text = without_protected(text).replace("**", "").replace("*", "")
    return re.sub(r"\[([^\]]*)\]", r"\1", text)


def problems(english: str, translation: str) -> list[str]:
    """What is wrong with ``translation`` of the block ``english``."""
    found = []
    missing = protected(english) - protected(translation)
    extra = protected(translation) - protected(english)
    found += [f"{kind} changed or missing: {text}" for kind, text in missing]
    found += [f"{kind} not in the English: {text}" for kind, text in extra]
    if structure(english) != structure(translation):
        found.append(
            f"Markdown frame {structure(translation)} is not the English's {structure(english)}"
        )
    if converter() is not None:
        chars = [c for c in non_taiwan_characters(translation) if c not in english]
        if chars:
            found.append(f"not Taiwan's characters (OpenCC s2tw changes them): {''.join(chars)}")
    words = translation
    for compound in TAIWAN_COMPOUNDS:
        words = words.replace(compound, " ")
    terms = [term for term in mainland_terms() if term in words and term not in english]
    if terms:
        found.append(f"terms the glossary refuses: {', '.join(terms)}")
    found += _typography(english, translation)
    found += _emphasis(english, translation)
    found += _numbers(english, translation)
    return found


def _numbers(english: str, translation: str) -> list[str]:
    """The English's figures, each as often: a one-digit number may become a word (1 process,
    單一行程), nothing else may go, and no figure may be added."""

    def figures(text):
        return Counter(NUMBER.findall(without_protected(text)))

    before, after = figures(english), figures(translation)
    missing = [n for n in (before - after).elements() if len(re.sub(r"\D", "", n)) > 1]
    extra = list((after - before).elements())
    found = [f"figures of the English missing: {', '.join(missing)}"] if missing else []
    return found + ([f"figures not in the English: {', '.join(extra)}"] if extra else [])


def _emphasis(english: str, translation: str) -> list[str]:
    """Bold and italic as CommonMark renders them: ``**執行時間：**完整模式`` is not bold (a
    closing ``**`` after punctuation must be followed by a space or punctuation)."""
    rendered = [PARSER.render(text) for text in (english, translation)]
    counts = [(page.count("<strong>"), page.count("<em>")) for page in rendered]
    if counts[0] == counts[1]:
        return []
    return [
        f"bold/italic not rendered as in the English ({counts[1]} vs {counts[0]} "
        "<strong>/<em>): after a closing ** or * that follows punctuation put a space, or "
        "move the punctuation outside the marks"
    ]


def _typography(english: str, translation: str) -> list[str]:
    text = prose(translation)
    if not HAS_CJK.search(text):
        return ["no Chinese in the translation"]
    found = []
    for name, pattern in (
        ("half-width punctuation next to Chinese", HALF_WIDTH_NEXT_TO_CJK),
        ("half-width parentheses next to Chinese (use （）)", HALF_WIDTH_PARENS),
        ("no space between Chinese and Latin letters or digits", NO_SPACE),
        ("Western quotation marks (use 「」)", WESTERN_QUOTES),
    ):
        # what the English quotes as it is (the article's wording) is not the translator's
        hits = [hit for hit in pattern.findall(text) if hit not in english]
        if hits:
            found.append(f"{name}: {' '.join(repr(hit) for hit in hits[:4])}")
    lines, english_lines = translation.count("\n") + 1, english.count("\n") + 1
    if lines != english_lines and not (lines == 1 and _wrapped(english)):
        found.append(
            f"{lines} lines where the English has {english_lines} (keep its lines, "
            "or one line for a paragraph)"
        )
    if CJK_LINE_BREAK.search(translation):
        found.append("a line break between Chinese characters (Markdown shows it as a space)")
    return found


def _wrapped(english: str) -> bool:
    """A paragraph, heading-free and list-free, that the English only wraps over lines."""
    return structure(english) == ("paragraph",) and not re.search(r"\n\s", english)


def entry_problems(entry: polib.POEntry) -> list[str]:
    if entry.obsolete or entry.fuzzy or not entry.msgstr:
        return []
    if ON_PURPOSE in (entry.tcomment or ""):
        found = problems(entry.msgid, entry.msgstr)
        return [problem for problem in found if problem != "no Chinese in the translation"]
    return problems(entry.msgid, entry.msgstr)


def report(paths: list[Path]) -> list[str]:
    lines = []
    for path in paths:
        for entry in load(path):
            for problem in entry_problems(entry):
                start = entry.msgid[:50].replace("\n", " ")
                lines.append(f"{Path(path).name} [{entry.msgctxt}] {start!r}: {problem}")
    return lines


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    paths = [Path(arg) for arg in argv] or sorted(CATALOGUES.glob("*.po"))
    lines = report(paths)
    print("\n".join(lines) if lines else f"{len(paths)} catalogue(s): no problems")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
