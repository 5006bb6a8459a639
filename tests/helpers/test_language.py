"""helpers.language: the learner's language, chosen per kernel, and the catalogue's sentences."""

from __future__ import annotations

import ast
from pathlib import Path

import polib
import pytest

from helpers import language
from tools import helpers_messages, zh_tw_style


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
    # a translator's slip (make po refuses it): {nmae} for {name}
    po.append(polib.POEntry(msgid="unknown strategy {name!r}", msgstr="不認得的策略 {nmae!r}"))
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
        ("notebooks", "zh_tw", "zh_TW"),
        ("notebooks", " ZH-tw ", "zh_TW"),
        ("notebooks/zh-TW", "en", "en"),
        ("notebooks/zh-TW", "en_US", "en"),
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


def test_any_other_language_is_english_said_in_one_line_once(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(language.LANGUAGE_ENV, "fr")
    language.chosen_language.cache_clear()
    assert language.current() == "en" and language.current() == "en"
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("WORKBOOK_LANGUAGE='fr' is not a language of the course (zh_TW or en)")
    assert "不是本課程的語言" in line


def test_a_translation_whose_fields_differ_stays_english(catalogue, monkeypatch):
    # what .format() would fill is the English's fields: no KeyError reaches the learner
    monkeypatch.setenv(language.LANGUAGE_ENV, "zh_TW")
    assert language._("unknown strategy {name!r}").format(name="x") == "unknown strategy 'x'"


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


# --- the sentences of helpers/ and their translations ---------------------------------------

HELPERS = Path(language.__file__).resolve().parent


def _modules():
    return sorted(HELPERS.rglob("*.py"))


def _calls_of_underscore(tree):
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_"
    ]


# The functions that translate a sentence marked elsewhere: a literal that make po extracts as a
# keyword (fail, correct: said) or from a table of N_() literals (data's disk faults, TensorFlow's
# EstimatorSpec errors, notebook 08's receiver mistakes). _() of anything but one literal anywhere
# else is a sentence lost.
TRANSLATE_MARKED = {
    ("helpers/checks/common.py", "said"),
    ("helpers/data.py", "_refused"),
    ("helpers/checks/notebook08.py", "_judge_receiver"),
    ("helpers/model_fn_checker/tf_errors.py", "explain_build_error"),
    ("helpers/plots.py", "_drawing"),  # NO_CHINESE_FONT
    ("helpers/plots.py", "_label"),  # a figure's own text, Chinese where a font draws it
}
MARKERS = ("_", "N_", "fail")  # their first argument is the sentence itself


def _is_literal(call) -> bool:
    return (
        bool(call.args)
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    )


def test_every_sentence_given_to_underscore_is_one_literal_string():
    """``_(f"...")``, ``_("a" + b)`` or ``_(text)`` cannot be in the catalogue: Babel extracts
    literals only, so the sentence would stay English (implicit concatenation is one literal).
    The same for ``N_()`` and a check's ``fail()``; only the functions that translate a sentence
    marked so take ``_()`` of a name."""
    wrong = []
    for path in _modules():
        where = path.relative_to(HELPERS.parent).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        enclosing = {}  # node -> the name of the function it is in
        for function in ast.walk(tree):
            if isinstance(function, ast.FunctionDef):
                enclosing.update({node: function.name for node in ast.walk(function)})
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
                continue
            if call.func.id not in MARKERS or _is_literal(call):
                continue
            if call.func.id == "_" and (where, enclosing.get(call)) in TRANSLATE_MARKED:
                continue
            wrong.append(f"{where}:{call.lineno}")
    assert not wrong, f"_(), N_() or fail() of something else than one literal string: {wrong}"


# what has a scope of its own (a comprehension's loop variable is its own too)
SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _own_nodes(scope):
    """The nodes of one scope, not those of a scope nested in it."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _binds_underscore(node) -> bool:
    return (isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store)) or (
        isinstance(node, ast.arg) and node.arg == "_"
    )


def _underscore_shadowed(tree) -> list[int]:
    """Lines where ``_`` is bound in a scope that calls ``_()`` (or at module level)."""
    lines = []
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, SCOPES))]:
        nodes = list(_own_nodes(scope))
        if scope is not tree and not any(node in nodes for node in _calls_of_underscore(scope)):
            continue
        lines += [node.lineno for node in nodes if _binds_underscore(node)]
    return sorted(lines)


def test_a_scope_that_speaks_through_underscore_never_binds_it():
    """``for _ in ...`` or ``a, _ = ...`` in a function that calls ``_()`` makes ``_`` local
    there: the call raises UnboundLocalError instead of the message (at module level it hides the
    catalogue everywhere)."""
    wrong = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if _calls_of_underscore(tree):
            wrong += [
                f"{path.relative_to(HELPERS.parent)}:{line}" for line in _underscore_shadowed(tree)
            ]
    assert not wrong, f"_ bound where _() is called: {wrong}"


def test_the_shadowing_check_finds_a_local_underscore_only_where_it_matters():
    code = """
def speaks():
    a, _ = 1, 2
    return _("x")

def quiet():
    for _ in range(3):
        pass

def comprehension():
    return [_("x") for _ in range(3)]

def fine():
    return [1 for _ in range(3)] + [_("y")]
"""
    assert _underscore_shadowed(ast.parse(code)) == [3, 11]


def test_the_unparsable_templates_check_finds_them():
    bad = ast.parse('_(f"{x} is wrong")\n_("a" + b)\n_(text)\n_("fine" " too")')
    calls = _calls_of_underscore(bad)
    assert [isinstance(c.args[0], ast.Constant) for c in calls] == [False, False, False, True]


def test_the_course_catalogue_is_merged_with_the_helpers_sentences():
    assert helpers_messages.run(check=True) == []


def test_every_translation_keeps_the_fields_and_the_style_rules():
    catalogue = polib.pofile(str(helpers_messages.CATALOGUE))
    translated = [entry for entry in catalogue.translated_entries() if not entry.obsolete]
    assert len(translated) >= 70  # helpers' own sentences (checks/* come later)
    found = {
        entry.msgid[:60]: problems
        for entry in translated
        if (problems := zh_tw_style.translation_problems(entry.msgid, entry.msgstr))
    }
    assert not found


@pytest.mark.parametrize(
    "translation, problem",
    [
        ("{metric!r} 是 {count} 個結果之一", None),
        ("{metric} 是 {count} 個結果之一", "missing: {metric!r}; not in the English: {metric}"),
        ("{metric!r} 是幾個結果之一", "missing: {count}; not in the English: none"),
        ("{name!r} 是 {count} 個結果之一", "missing: {metric!r}; not in the English: {name!r}"),
        ("{metric!r} 是 {count} 個結果之一 {count}", "not in the English: {count}"),
        ("{metric!r}是 {count} 個結果之一", "no space between Chinese and Latin"),
        ("{metric!r} 是 {count} 個結果之一,", "half-width punctuation next to Chinese"),
        ("{metric!r} 是 {count} 個結果之一 {", "not a format template"),
        ("{metric!r} 是 {count} 個數據之一", "terms the glossary refuses: 數據"),
    ],
)
def test_a_translation_that_drops_renames_or_adds_a_field_or_breaks_the_style_fails(
    translation, problem
):
    found = zh_tw_style.translation_problems(
        "{metric!r} is one of the {count} results", translation
    )
    if problem is None:
        assert found == []
    else:
        assert any(problem in line for line in found), found


def test_the_real_catalogue_makes_a_problem_chinese_with_its_values(monkeypatch):
    from helpers import early_stopping

    monkeypatch.setenv(language.LANGUAGE_ENV, "zh_TW")
    language.translations.cache_clear()
    sentence = early_stopping.steps_problem(8000, 4000, None)
    assert sentence.startswith("min_steps=8000 沒有小於 max_steps=4000：")
    monkeypatch.setenv(language.LANGUAGE_ENV, "en")
    assert early_stopping.steps_problem(8000, 4000, None).startswith(
        "min_steps=8000 is not below max_steps=4000: "
    )


@pytest.mark.parametrize(
    "chosen, joined, choice, every, names",
    [
        ("en", "One. Two.", "'a', 'b' or 'c'", "int32 and int64", "acc, loss"),
        ("zh_TW", "一。二。", "'a'、'b' 或 'c'", "int32 和 int64", "acc、loss"),
    ],
)
def test_sentences_and_lists_are_joined_as_the_language_writes_them(
    monkeypatch, chosen, joined, choice, every, names
):
    monkeypatch.setenv(language.LANGUAGE_ENV, chosen)
    language.translations.cache_clear()
    first, second = ("One.", "Two.") if chosen == "en" else ("一。", "二。")
    assert language.sentences(first, "", second) == joined
    assert language.any_of(["'a'", "'b'", "'c'"]) == choice
    assert language.all_of(["int32", "int64"]) == every
    assert language.any_of(["'a'"]) == "'a'" and language.all_of([]) == ""
    assert language.listed(iter(["acc", "loss"])) == names
