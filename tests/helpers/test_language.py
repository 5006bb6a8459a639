"""helpers.language: the learner's language, chosen per kernel, and the catalogue's sentences."""

from __future__ import annotations

import polib
import pytest

from helpers import language


@pytest.fixture
def catalogue(tmp_path, monkeypatch):
    """A zh_TW catalogue of three sentences: translated, fuzzy, empty."""
    po = polib.POFile()
    po.metadata = {"Content-Type": "text/plain; charset=UTF-8", "Language": "zh_TW"}
    po.append(polib.POEntry(msgid="{name} is blank: fill it in", msgstr="{name} 是空的：請填入"))
    fuzzy = polib.POEntry(msgid="An old sentence", msgstr="舊的句子")
    fuzzy.flags.append("fuzzy")
    po.append(fuzzy)
    po.append(polib.POEntry(msgid="Not translated yet", msgstr=""))
    (tmp_path / "zh_TW").mkdir()
    po.save(str(tmp_path / "zh_TW" / "helpers.po"))
    monkeypatch.setattr(language, "CATALOGUES", tmp_path)
    language.translations.cache_clear()
    yield
    language.translations.cache_clear()


@pytest.mark.parametrize(
    "folder, variable, expected",
    [
        ("notebooks", None, "en"),
        ("notebooks/zh-TW", None, "zh_TW"),
        ("notebooks/zh-TW/student", None, "zh_TW"),
        ("notebooks/student", None, "en"),
        ("notebooks", "zh_TW", "zh_TW"),
        ("notebooks", "zh-TW", "zh_TW"),
        ("notebooks/zh-TW", "en", "en"),
        ("notebooks", "fr", "en"),
    ],
)
def test_the_language_follows_the_variable_then_the_folder(
    tmp_path, monkeypatch, folder, variable, expected
):
    (tmp_path / folder).mkdir(parents=True)
    monkeypatch.chdir(tmp_path / folder)
    if variable is None:
        monkeypatch.delenv(language.LANGUAGE_ENV, raising=False)
    else:
        monkeypatch.setenv(language.LANGUAGE_ENV, variable)
    assert language.current() == expected


def test_a_translated_sentence_is_chinese_and_keeps_its_named_values(catalogue, monkeypatch):
    monkeypatch.setenv(language.LANGUAGE_ENV, "zh_TW")
    sentence = language._("{name} is blank: fill it in").format(name="`answer`")
    assert sentence == "`answer` 是空的：請填入"


def test_fuzzy_and_empty_entries_stay_english(catalogue, monkeypatch):
    monkeypatch.setenv(language.LANGUAGE_ENV, "zh_TW")
    assert language._("An old sentence") == "An old sentence"
    assert language._("Not translated yet") == "Not translated yet"
    assert language._("A sentence the catalogue lacks") == "A sentence the catalogue lacks"


def test_english_is_the_sentence_itself(catalogue, monkeypatch):
    monkeypatch.setenv(language.LANGUAGE_ENV, "en")
    assert language._("{name} is blank: fill it in") == "{name} is blank: fill it in"
