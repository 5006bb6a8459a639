"""The learner's language for what the helpers say: ``_("...")`` (introduced in notebook 00).

Check messages, helper errors and plot captions are written in English as whole sentences with
named values, ``_("{name} is {value}: ...").format(name=..., value=...)`` (a check's
``fail("...", name=...)`` and ``correct("...", name=...)`` do this in one call; ``N_("...")``
marks a sentence kept in a table), and translated through the gettext catalogue
``translations/zh_TW/helpers.po`` (``make po`` extracts the sentences into it;
translations/README.md). The language is chosen per kernel, without any code cell naming it,
so that both editions run the same code:

- ``WORKBOOK_LANGUAGE`` (``zh_TW`` or ``en``, written as people write them: ``zh-TW``, ``zh_tw``,
  ``en_US``; any other value is said in one line, and English is used) when it is set, else
- ``zh_TW`` when the kernel runs in a ``zh-TW`` folder (the zh-TW notebooks and their student
  copies), else English.

A sentence the catalogue does not translate yet, or marks fuzzy, stays English, as for the prose;
so does one whose translation has other ``{fields}`` than the English (``make po`` refuses it too):
``.format()`` could not fill it, and a translator's slip must not reach a learner as ``KeyError``.
The catalogue is read with polib when first needed; no compiled ``.mo`` file is kept.

Whole sentences are joined with ``sentences`` (a space in English, nothing after Chinese
punctuation), and a list of names or values with ``any_of`` / ``all_of`` ("a, b or c"; in
Chinese the enumeration comma, "a、b 或 c"), whose templates the catalogue translates too.
"""

from __future__ import annotations

import functools
import gettext
import io
import os
import string
import sys
from collections import Counter
from pathlib import Path

LANGUAGE_ENV = "WORKBOOK_LANGUAGE"
LANGUAGES = ("en", "zh_TW")
CATALOGUES = Path(__file__).resolve().parent.parent / "translations"
DOMAIN = "helpers"


def current() -> str:
    """``"zh_TW"`` or ``"en"``: the language the helpers speak in this process."""
    chosen = os.environ.get(LANGUAGE_ENV, "").strip()
    if chosen:
        return chosen_language(chosen)
    return "zh_TW" if "zh-TW" in Path.cwd().parts else "en"


@functools.lru_cache(maxsize=None)
def chosen_language(value: str) -> str:
    """The language a ``WORKBOOK_LANGUAGE`` value names, however its case and separator are
    written (``zh-TW``, ``zh_tw``, ``en_US``); for any other value one line says so, once."""
    key = value.replace("-", "_").lower()
    if key in ("zh_tw", "zh_hant", "zh_hant_tw"):
        return "zh_TW"
    if key == "en" or key.startswith("en_"):
        return "en"
    # the learner's language is what is unknown here: the line is in both
    print(
        f"{LANGUAGE_ENV}={value!r} is not a language of the course (zh_TW or en): the helpers "
        f"speak English. / {LANGUAGE_ENV}={value!r} 不是本課程的語言（zh_TW 或 en），"
        "輔助程式改用英文。",
        file=sys.stderr,
    )
    return "en"


def _fields(text: str) -> Counter | None:
    """The replacement fields of a format template as written; None when it is not one."""
    try:
        return Counter(
            (name, conversion, spec)
            for _literal, name, spec, conversion in string.Formatter().parse(text)
            if name is not None
        )
    except ValueError:
        return None


@functools.lru_cache(maxsize=None)
def translations(language: str) -> gettext.NullTranslations:
    """The catalogue's translated sentences for ``language`` (English: none)."""
    path = CATALOGUES / language / f"{DOMAIN}.po"
    if language == "en" or not path.is_file():
        return gettext.NullTranslations()
    import polib

    catalogue = polib.pofile(str(path))
    for entry in catalogue:
        if entry.msgstr and _fields(entry.msgstr) != _fields(entry.msgid):
            entry.msgstr = ""  # stays English: .format() fills the English's fields only
    return gettext.GNUTranslations(io.BytesIO(catalogue.to_binary()))


def _(message: str) -> str:
    """``message`` in the learner's language (English when untranslated)."""
    return translations(current()).gettext(message)


def N_(message: str) -> str:
    """``message`` unchanged: marks an English sentence kept in a table for ``make po`` to extract;
    ``_()`` translates it where it is said."""
    return message


def sentences(*parts: str) -> str:
    """Whole sentences as one text: a space between them in English, none in Chinese (its full
    stop 。 ends a sentence without one); empty parts are left out."""
    separator = "" if current() == "zh_TW" else " "
    return separator.join(part.strip() for part in parts if part and part.strip())


def listed(items) -> str:
    """``"a, b, c"``: ``items`` (already formatted) one after another, with the enumeration comma
    、 in Chinese."""
    return ("、" if current() == "zh_TW" else ", ").join(str(item) for item in items)


def any_of(items) -> str:
    """``"a, b or c"``: a choice between ``items`` (already formatted, e.g. ``repr``)."""
    items = [str(item) for item in items]
    if len(items) < 2:
        return "".join(items)
    return _("{items} or {last}").format(items=listed(items[:-1]), last=items[-1])


def all_of(items) -> str:
    """``"a, b and c"``: every one of ``items`` (already formatted)."""
    items = [str(item) for item in items]
    if len(items) < 2:
        return "".join(items)
    return _("{items} and {last}").format(items=listed(items[:-1]), last=items[-1])
