"""tools.helpers_messages: the helpers' ``_("...")`` sentences merged into a catalogue, on a
made-up package (the course's own catalogue: tests/helpers/test_language.py)."""

from __future__ import annotations

import textwrap

import polib
import pytest

from tools import helpers_messages

FIRST = """\
from .language import _


def greet(name):
    # TRANSLATORS: said once, at the start
    return _("Hello {name}, welcome to the course").format(name=name)


def leave():
    return _("Bye" " for now")
"""


@pytest.fixture
def project(tmp_path):
    """A package ``pkg`` (two modules, one sentence said twice) and where its catalogue goes."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "greetings.py").write_text(FIRST)
    (package / "more.py").write_text(
        "from .language import _\n\n\ndef again():\n    return _('Bye for now')\n"
    )
    return {"package": package, "root": tmp_path, "path": tmp_path / "zh_TW" / "pkg.po"}


def run(project, check=False):
    return helpers_messages.run(check=check, **project)


def entries(project):
    return {entry.msgid: entry for entry in polib.pofile(str(project["path"]))}


def translate(project, translations: dict):
    catalogue = polib.pofile(str(project["path"]))
    for entry in catalogue:
        if entry.msgid in translations:
            entry.msgstr = translations[entry.msgid]
    catalogue.save()


def test_every_sentence_once_with_its_places_and_the_translators_comment(project):
    assert run(project) == [str(project["path"])]
    found = entries(project)
    assert list(found) == ["Hello {name}, welcome to the course", "Bye for now"]
    hello, bye = found.values()
    assert hello.occurrences == [("pkg/greetings.py", "")]
    assert hello.comment == "said once, at the start"
    assert bye.occurrences == [("pkg/greetings.py", ""), ("pkg/more.py", "")]
    assert all(entry.msgstr == "" and not entry.fuzzy for entry in found.values())
    text = project["path"].read_text()
    assert "#: pkg/greetings.py pkg/more.py\n" in text
    assert "#. said once, at the start\n" in text
    assert '"Language: zh_TW\\n"' in text and "tools.helpers_messages" in text.splitlines()[1]
    assert run(project) == []  # merged: nothing to write
    assert run(project, check=True) == []


def test_changed_sentences_keep_their_translation_as_fuzzy_removed_ones_become_obsolete(project):
    run(project)
    translate(
        project,
        {"Hello {name}, welcome to the course": "{name} 你好，歡迎來上課", "Bye for now": "再見"},
    )
    greetings = project["package"] / "greetings.py"
    changed = FIRST.replace("welcome to the course", "welcome to the workbook course")
    greetings.write_text(changed.replace('_("Bye" " for now")', '_("Something new")'))
    (project["package"] / "more.py").write_text("")
    problem = run(project, check=True)
    assert len(problem) == 1 and problem[0].startswith(
        "pkg.po is not merged with the helpers' sentences (2 sentences have no entry, 2 entries "
        "are no longer said; e.g. 'Hello {name}, welcome to the workbook course'; 'Something new'"
    )
    assert entries(project)["Bye for now"].msgstr == "再見"  # --check wrote nothing
    run(project)
    found = entries(project)
    hello = found["Hello {name}, welcome to the workbook course"]
    assert hello.fuzzy and hello.msgstr == "{name} 你好，歡迎來上課"
    assert hello.previous_msgid == "Hello {name}, welcome to the course"
    assert found["Something new"].msgstr == "" and not found["Something new"].fuzzy
    assert found["Bye for now"].obsolete and found["Bye for now"].msgstr == "再見"
    assert "Hello {name}, welcome to the course" not in found  # carried, not kept twice
    assert run(project, check=True) == []


def test_a_fuzzy_entry_stays_fuzzy_until_the_translator_clears_it(project):
    run(project)
    translate(project, {"Bye for now": "再見"})
    greetings = project["package"] / "greetings.py"
    greetings.write_text(FIRST.replace('"Bye" " for now"', '"Bye for now!"'))
    run(project)
    # more.py still says the old sentence: its translation stays there, not offered
    assert not entries(project)["Bye for now!"].fuzzy
    (project["package"] / "more.py").write_text("")
    run(project)
    assert entries(project)["Bye for now!"].fuzzy
    assert entries(project)["Bye for now!"].msgstr == "再見"
    run(project)  # merging again changes nothing
    assert entries(project)["Bye for now!"].fuzzy
    catalogue = polib.pofile(str(project["path"]))
    catalogue.find("Bye for now!").flags.remove("fuzzy")
    catalogue.save()
    assert run(project) == [str(project["path"])]  # its #| msgid goes
    assert entries(project)["Bye for now!"].previous_msgid is None
    assert run(project, check=True) == []


def test_a_catalogue_saved_by_a_po_editor_is_merged(project):
    run(project)
    translate(project, {"Bye for now": "再見"})
    catalogue = polib.pofile(str(project["path"]), wrapwidth=79)
    catalogue.header = "Chinese (Taiwan) translation, as Poedit writes it."
    catalogue.metadata["X-Generator"] = "Poedit 3.4"
    catalogue.metadata["Last-Translator"] = "A translator"
    catalogue.save(str(project["path"]))
    assert run(project, check=True) == []
    run(project)
    text = project["path"].read_text()
    assert "X-Generator: Poedit 3.4" in text and text.startswith("# Chinese (Taiwan)")


def test_code_moved_within_a_file_changes_nothing(project):
    run(project)
    before = project["path"].read_text()
    (project["package"] / "greetings.py").write_text("\n\n" + FIRST)
    assert run(project, check=True) == []
    run(project)
    assert project["path"].read_text() == before
    assert "#: pkg/greetings.py pkg/more.py\n" in before


def test_a_sentence_moved_to_another_file_is_named_as_such(project):
    run(project)
    (project["package"] / "greetings.py").write_text(FIRST.replace('_("Bye" " for now")', "0"))
    (project["package"] / "elsewhere.py").write_text(
        "from .language import _\n\n\ndef bye():\n    return _('Bye for now')\n"
    )
    assert run(project, check=True) == [
        "pkg.po: the file references of 1 entries are out of date (a sentence moved to "
        "another file, none changed): run `python -m tools.helpers_messages` (make po)"
    ]
    run(project)
    assert entries(project)["Bye for now"].occurrences == [
        ("pkg/elsewhere.py", ""),
        ("pkg/more.py", ""),
    ]


def test_an_obsolete_translation_comes_back_when_the_sentence_does(project):
    run(project)
    translate(project, {"Bye for now": "再見"})
    saved = (project["package"] / "more.py").read_text()
    (project["package"] / "greetings.py").write_text(FIRST.replace('_("Bye" " for now")', "0"))
    (project["package"] / "more.py").write_text("")
    run(project)
    assert entries(project)["Bye for now"].obsolete
    (project["package"] / "more.py").write_text(saved)
    problem = run(project, check=True)
    assert problem and "1 sentences have no entry" in problem[0]
    run(project)
    bye = entries(project)["Bye for now"]
    assert not bye.obsolete and bye.msgstr == "再見" and not bye.fuzzy


def test_the_command_line_check_exits_1_and_says_what_to_run(project, monkeypatch, capsys):
    monkeypatch.setattr(helpers_messages, "PACKAGE", project["package"])
    monkeypatch.setattr(helpers_messages, "ROOT", project["root"])
    monkeypatch.setattr(helpers_messages, "CATALOGUE", project["path"])
    assert helpers_messages.main(["--check"]) == 1
    assert "run `python -m tools.helpers_messages`" in capsys.readouterr().out
    assert not project["path"].exists()
    assert helpers_messages.main([]) == 0
    assert helpers_messages.main(["--check"]) == 0
    assert capsys.readouterr().out.endswith("pkg.po is merged\n")


def test_only_literal_sentences_are_extracted(project):
    (project["package"] / "dynamic.py").write_text(
        textwrap.dedent(
            """
            from .language import _
            name = "x"
            a = _(f"{name} is computed")
            b = _(name)
            c = _("A literal")
            """
        )
    )
    run(project)
    assert "A literal" in entries(project)
    assert not any("computed" in msgid for msgid in entries(project))
