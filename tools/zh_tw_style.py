"""Check the zh-TW translations against the glossary's rules (translations/zh_TW/glossary.md).

    .venv-teacher/bin/python -m tools.zh_tw_style               # every catalogue (make po runs it)
    .venv-teacher/bin/python -m tools.zh_tw_style translations/zh_TW/05_hooks.po

One line per problem, with the entry's context and the start of its English.
A translation must give back its block's code, URLs, math and tags unchanged
and keep its Markdown frame (tools/markdown_blocks.py), except that a code span
holding a path may name the edition's own file instead (``notebooks/student/`` ->
``notebooks/zh-TW/student/``, ``README.md`` -> ``README.zh-TW.md``); it must not hold a
character OpenCC's ``s2tw`` converter changes (Simplified, or a form Taiwan does
not write) nor a term of the glossary's 「不用」 column, unless the English it
translates has it too (a quotation of the source article); its punctuation is
full-width next to Chinese, with one space between Chinese and Latin letters or
digits; a block is one line (a line break between Chinese characters, or after
full-width punctuation, is shown as a space, also when the next line is indented);
and it has Chinese in it, unless the entry's translator comment says ``English on
purpose``. The source article's words that the glossary lists (its section
「原文的字句」), quoted in 「」, are the article's: its characters, terms and
spacing are not checked. Fuzzy and empty entries are
not checked: the edition shows their English.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

import polib

from tools.catalogues import CATALOGUES, NUMBER, CatalogueError, load
from tools.helpers_messages import CATALOGUE, field_problem, shown
from tools.markdown_blocks import CODE_SPAN, PARSER, protected, structure, without_protected

GLOSSARY = CATALOGUES / "glossary.md"
CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# Taiwan writes 台 as often as 臺 (s2tw turns it into 臺); the source article's title is
# quoted as it is written.
TAIWAN_FORMS = {"台"}
ARTICLE_TITLE = "Tensorflow：estimator訓練"
# Taiwanese words that hold a refused term: 控制代碼 (a handle) holds 代碼, 用戶端 (a client)
# 用戶, 回報錯誤 (reports an error) 報錯.
TAIWAN_COMPOUNDS = ("控制代碼", "用戶端", "回報錯誤")
QUOTES_HEADING = "## 原文的字句"
# A code span that names an English file or folder, and the zh-TW edition's own.
EDITION_PATHS = (
    (re.compile(r"(?<![\w/.-])notebooks/(?=student\b|\d\d_|\s|$)"), "notebooks/zh-TW/"),
    (re.compile(r"(?<![\w/.-])(README|TEACHING)\.md\b"), r"\1.zh-TW.md"),
)
HALF_WIDTH_NEXT_TO_CJK = re.compile(rf"[{CJK}][,.:;?!]|[,.:;?!][{CJK}]")
HALF_WIDTH_PARENS = re.compile(rf"[{CJK}] ?\(|\) ?[{CJK}]|\([{CJK}]|[{CJK}]\)")
# a call written as code, `train()` or `Dense(256, ReLU)`: its brackets are the code's, not prose
CALL = re.compile(rf"[A-Za-z_][\w.]*\([^()（）{CJK}]*\)")
NO_SPACE = re.compile(rf"[{CJK}][A-Za-z0-9]|[A-Za-z0-9%][{CJK}]")
WESTERN_QUOTES = re.compile(rf"[“”]|[{CJK}]\"|\"[{CJK}]")
HAS_CJK = re.compile(rf"[{CJK}]")
# a line break (and the indentation after it) that Markdown shows as a space
# (not the end of a line before a nested list, a blank line, a code fence, a quote or a table)
CJK_LINE_BREAK = re.compile(
    rf"[{CJK}，。、：；？！」）]\n[ \t]*[{CJK}「（]"
    r"|[，。、：；？！」）]\n(?![ \t]*(?:[-*+][ \t]|\d+[.)][ \t]|\n|```|~~~|>|\|))"
)
# a space between Chinese characters, or before full-width punctuation (not the article's)
CJK_SPACE = re.compile(
    rf"[{CJK}，。、：；？！」）][ \t]+[{CJK}「（]|[{CJK}][ \t]+[，。、：；？！」）]"
)
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
def article_quotes() -> tuple:
    """The source article's words the glossary lists (its section 「原文的字句」), longest first:
    the edition quotes them as the article writes them, in 「」."""
    text = GLOSSARY.read_text(encoding="utf-8")
    if QUOTES_HEADING not in text:
        return ()
    section = re.split(r"^## ", text.split(QUOTES_HEADING, 1)[1], flags=re.MULTILINE)[0]
    quotes = re.findall(r"^- 「(.+)」$", section, flags=re.MULTILINE)
    return tuple(sorted(set(quotes), key=len, reverse=True))


def without_quotes(text: str) -> str:
    """``text`` with each listed quotation of the article (in 「」) as 「題」: its wording is the
    article's, not the translator's."""
    for quote in article_quotes():
        text = text.replace(f"「{quote}」", "「題」")
    return text


def edition_form(code: str) -> str:
    """A code span as the edition may give it: the paths in it naming the zh-TW files."""
    for pattern, replacement in EDITION_PATHS:
        code = pattern.sub(replacement, code)
    return code


@lru_cache(maxsize=1)
def converter():
    try:
        import opencc
    except ImportError:  # Python 3.9: opencc has no wheel (requirements.txt)
        return None
    return opencc.OpenCC("s2tw")


def non_taiwan_characters(text: str) -> list[str]:
    """Characters of ``text`` that OpenCC's s2tw converts: Simplified, or not Taiwan's form; none
    without opencc (Python 3.9: the other rules still hold)."""
    convert = converter()
    return sorted(
        {
            char
            for char in set(HAS_CJK.findall(text))
            if convert and char not in TAIWAN_FORMS and convert.convert(char) != char
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
    for kind, code in list(missing.elements()):
        adapted = (kind, edition_form(code))
        if kind == "code" and adapted[1] != code and extra[adapted]:
            missing[(kind, code)] -= 1
            extra[adapted] -= 1
    missing, extra = +missing, +extra
    found += [f"{kind} changed or missing: {text}" for kind, text in missing]
    found += [f"{kind} not in the English: {text}" for kind, text in extra]
    if structure(english) != structure(translation):
        found.append(
            f"Markdown frame {structure(translation)} is not the English's {structure(english)}"
        )
    words = without_quotes(translation)
    chars = [c for c in non_taiwan_characters(words) if c not in english]
    if chars:
        found.append(f"not Taiwan's characters (OpenCC s2tw changes them): {''.join(chars)}")
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
        # a figure the article writes against Chinese (「在100000步」) counts too
        text = re.sub(rf"(?<=[{CJK}])(?=\d)|(?<=\d)(?=[{CJK}])", " ", without_protected(text))
        return Counter(NUMBER.findall(text))

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
    text = CALL.sub("call", prose(without_quotes(translation)))
    if not any(character.isalnum() for character in english):
        return []  # punctuation only (a separator such as "; "): its translation is too
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
    spaced = [hit for hit in CJK_SPACE.findall(_spacing_text(translation)) if hit not in english]
    if spaced:
        found.append(
            "a space between Chinese characters or next to full-width punctuation, which "
            f"Markdown shows: {' '.join(repr(hit) for hit in spaced[:4])}"
        )
    lines, english_lines = translation.count("\n") + 1, english.count("\n") + 1
    if lines != english_lines and not (lines == 1 and _wrapped(english)):
        found.append(
            f"{lines} lines where the English has {english_lines} (keep its lines, "
            "or one line for a paragraph)"
        )
    if CJK_LINE_BREAK.search(translation):
        found.append(
            "a line break after Chinese or full-width punctuation, which Markdown shows as a "
            "space (also when the next line is indented): join the lines"
        )
    return found


def _spacing_text(translation: str) -> str:
    """The translation as its spaces are shown: code as ``X``, links as their text; the marks
    of bold and italic kept (the space after a closing ``**`` is the glossary's rule)."""
    text = CODE_SPAN.sub("X", without_quotes(translation)).replace(ARTICLE_TITLE, "題")
    return re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)


def _wrapped(english: str) -> bool:
    """A paragraph or a list item that the English only wraps over lines (its later lines are
    neither a nested list, a quote, a table nor code, and no line is blank)."""
    if structure(english)[0] not in ("paragraph", "list"):
        return False
    later = english.split("\n")[1:]
    nested = re.compile(r"\s*(?:[-*+]\s|\d+[.)]\s|>|\||```|~~~|$)")
    return not any(nested.match(line) for line in later)


def translation_problems(msgid: str, msgstr: str) -> list[str]:
    """What is wrong with ``msgstr``, the translation of the template ``msgid``: its fields
    (``field_problem``) or the zh-TW style rules broken."""
    if (wrong := field_problem(msgid, msgstr)) and wrong.startswith("not a format"):
        return [wrong]
    return ([wrong] if wrong else []) + problems(shown(msgid), shown(msgstr))


def entry_problems(entry: polib.POEntry) -> list[str]:
    if entry.obsolete or entry.fuzzy or not entry.msgstr:
        return []
    found = problems(entry.msgid, entry.msgstr)
    if ON_PURPOSE in (entry.tcomment or ""):
        return [problem for problem in found if problem != "no Chinese in the translation"]
    return found


def report(paths: list[Path]) -> list[str]:
    """One line per problem of each entry; in helpers.po, also a translation whose {fields} are
    not the English's, which would reach the learner as KeyError."""
    lines = []
    for path in paths:
        for entry in load(path):
            found = entry_problems(entry)
            if Path(path).name == CATALOGUE.name and entry.translated():
                found = [field_problem(entry.msgid, entry.msgstr), *found]
            for problem in filter(None, found):
                start = entry.msgid[:50].replace("\n", " ")
                lines.append(f"{Path(path).name} [{entry.msgctxt}] {start!r}: {problem}")
    return lines


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    paths = [Path(arg) for arg in argv] or sorted(CATALOGUES.glob("*.po"))
    try:
        lines = report(paths)
    except CatalogueError as error:
        print(error, file=sys.stderr)
        return 1
    print("\n".join(lines) if lines else f"{len(paths)} catalogue(s): no problems")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
