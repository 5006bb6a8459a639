"""tools/zh_tw_style.py: the glossary's rules refuse each kind of wrong translation, and pass
right ones (run on Python 3.10+, where opencc installs)."""

from __future__ import annotations

import polib
import pytest

from tools import zh_tw_style
from tools.zh_tw_style import article_quotes, edition_form, mainland_terms, problems

ENGLISH = (
    "The `model_fn` reads **features** from the [guide](https://x.org/a) and trains "
    "for 3,000 steps."
)
GOOD = "`model_fn` 從[指南](https://x.org/a)讀取 **features**，訓練 3,000 步。"
RIGHT = (GOOD, "`model_fn` 會從[指南](https://x.org/a)讀取 **features**（特徵），並訓練 3,000 步。")
# name: (what in GOOD is replaced, by what, what the problem must say)
WRONG = {
    "simplified characters": ("從", "从", "not Taiwan's characters"),
    "a mainland term": ("，", " 數據，", "terms the glossary refuses: 數據"),
    "code translated": ("`model_fn`", "`模型函式`", "code changed or missing: `model_fn`"),
    "URL changed": ("x.org/a", "x.org/b", "link target changed or missing"),
    "half-width comma": ("，", ",", "half-width punctuation"),
    "no space before a number": ("訓練 3", "訓練3", "no space between Chinese"),
    "no space after code": ("` 從", "`從", "no space between Chinese"),
    "Western quotes": ("讀取", "“讀取”", "Western quotation marks"),
    "half-width parentheses": ("**，", "** (特徵)，", "half-width parentheses"),
    "two lines": ("，", "，\n", "2 lines where the English has 1"),
    "a figure changed": ("3,000", "30,000", "figures of the English missing: 3,000"),
    "a figure added": ("訓練", "訓練 10 次、", "figures not in the English: 10"),
    "bold not rendered": (" **features**，", "**特徵：**", "bold/italic not rendered"),
}


@pytest.fixture(autouse=True)
def _opencc():
    pytest.importorskip("opencc", reason="opencc has no wheel for Python 3.9")


@pytest.mark.parametrize("translation", RIGHT)
def test_right_translations_pass(translation):
    assert problems(ENGLISH, translation) == []


@pytest.mark.parametrize("name", sorted(WRONG))
def test_each_wrong_translation_is_refused_and_named(name):
    before, after, expected = WRONG[name]
    found = problems(ENGLISH, GOOD.replace(before, after, 1))
    assert any(expected in problem for problem in found), (name, found)


def test_a_wrapped_paragraph_may_become_one_line_but_chinese_is_not_broken():
    english = "A paragraph the English\nwraps over two lines."
    assert problems(english, "英文把這一段包成兩行。") == []
    broken = problems(english, "英文把這一段\n包成兩行。")
    assert any("line break after Chinese" in problem for problem in broken)
    assert problems("1 process", "單一行程") == []


def test_english_left_as_it_is_is_refused():
    assert "no Chinese in the translation" in problems(ENGLISH, ENGLISH)


def test_a_heading_keeps_its_level():
    found = problems("## Early stopping", "提前停止")
    assert any("Markdown frame" in problem for problem in found)
    assert problems("## Early stopping", "## 提前停止") == []


def test_quoting_the_article_is_allowed():
    english = "The article's section 數據導入 says `input_fn` returns the data."
    assert problems(english, "原文的「數據導入」一節說 `input_fn` 回傳資料。") == []


def test_a_quotation_keeps_the_article_s_spacing():
    english = "The site added 「詳細分析Tensorflow」 to the title."
    assert problems(english, "網站在標題加上「詳細分析Tensorflow」。") == []
    assert problems(english, "網站在標題加上「詳細分析Tensorflow」和「分析Keras」。") != []


def test_taiwanese_compounds_and_the_article_title_pass():
    assert problems("Close the handle.", "關閉控制代碼。") == []
    title = "Tensorflow：estimator訓練"
    assert problems(f'"{title}" says so.', f"「{title}」這麼說。") == []


def test_the_refused_terms_come_from_the_glossary():
    terms = mainland_terms()
    assert {"數據", "代碼", "默認", "信息", "網絡", "服務器", "線程", "調用"} <= set(terms)
    assert "資料" not in terms and "程式碼" not in terms


def test_a_line_break_inside_an_indented_list_item_is_a_stray_space():
    english = (
        "- **[TEACHING.md](TEACHING.md)**, for teachers: objectives;\n  student copies and grading."
    )
    stray = problems(
        english, "- **[TEACHING.md](TEACHING.md)**，給老師：學習目標；\n  學生版與評分。"
    )
    assert any("line break after Chinese or full-width punctuation" in p for p in stray), stray
    # one line is right, and so is a break before a nested list or between Chinese and Latin
    assert (
        problems(english, "- **[TEACHING.md](TEACHING.md)**，給老師：學習目標；學生版與評分。")
        == []
    )
    nested = "- **Traps:**\n  - a shuffle buffer smaller than the dataset only mixes neighbours."
    assert problems(nested, "- **陷阱：**\n  - 比資料集小的打亂緩衝區只會混合相鄰的元素。") == []
    latin = "- Grading with nbgrader\n  and its feedback."
    assert problems(latin, "- 用 nbgrader\n  評分，以及它的回饋。") == []


def test_a_space_between_chinese_characters_is_refused():
    english = "A value fetched in the same run as the training op is read before the update."
    found = problems(english, "和訓練運算 在同一次執行裡取回的值，是在更新之前讀取的。")
    assert any("a space between Chinese characters" in p and "'算 在'" in p for p in found)
    assert problems(english, "和訓練運算在同一次執行裡取回的值，是在更新之前讀取的。") == []
    # the space the glossary asks for after a closing ** is not a stray one
    assert problems("**Run time:** about 10 s.", "**執行時間：** 約 10 秒。") == []


def test_a_path_may_name_the_edition_s_own_file_and_nothing_else_may_change():
    english = "In the student copy (`notebooks/student/`), see `README.md`."
    assert (
        problems(english, "在學生版（`notebooks/zh-TW/student/`）裡，見 `README.zh-TW.md`。") == []
    )
    wrong = problems(english, "在學生版（`notebooks/zh-TW/students/`）裡，見 `README.md`。")
    assert any("code changed or missing: `notebooks/student/`" in p for p in wrong), wrong
    assert (
        edition_form("`cp -r notebooks/student /srv/x/`")
        == "`cp -r notebooks/zh-TW/student /srv/x/`"
    )
    assert edition_form("`notebooks/05_hooks.ipynb`") == "`notebooks/zh-TW/05_hooks.ipynb`"
    assert edition_form("`my_notebooks/student`") == "`my_notebooks/student`"


def test_the_article_s_words_are_quoted_as_it_writes_them():
    english = 'It says `stop_if_no_decrease_hook` was "added in TF 1.10".'
    quoted = "原文說 `stop_if_no_decrease_hook`「這個模塊在tf 1.10才加入」。"
    assert problems(english, quoted) == []
    # the same words outside a listed quotation are the translator's: 模塊 is refused
    assert any(
        "terms the glossary refuses: 模塊" in p
        for p in problems(english, quoted.replace("「", "『").replace("」", "』"))
    )
    assert {"這個模塊在tf 1.10才加入", "數據導入"} <= set(article_quotes())


def test_the_glossary_refuses_the_terms_taiwan_does_not_use_here():
    english = "The client returns the repository's progress bar."
    for refused in ("客戶端", "傳回", "版本庫", "進度條", "算力", "報錯"):
        found = problems(english, f"這裡的{refused}。")
        assert any(f"terms the glossary refuses: {refused}" in p for p in found), (refused, found)
    assert problems(english, "用戶端回傳儲存庫的進度列。") == []
    assert problems("It reports a wrong name.", "它回報錯誤的名稱。") == []


def test_a_separator_made_of_punctuation_is_translated_by_punctuation():
    """ "; " between clauses becomes 「；」: no Chinese to find, and none needed."""
    assert problems("; ", "；") == []
    assert "no Chinese in the translation" in problems("a word", "a word")


def test_a_call_written_as_code_keeps_its_brackets_next_to_chinese():
    """`train() 寫` is code then Chinese, not a prose bracket: no comma forced after a call (the
    rule once pushed translators into 「呼叫 train()，就會」); a prose bracket still is refused."""
    english = "each train() call writes the graph; Dense(256, ReLU) is the hidden layer"
    assert problems(english, "每次 train() 都會寫入計算圖；Dense(256, ReLU) 是隱藏層") == []
    assert any(
        "half-width parentheses" in problem
        for problem in problems(
            english, "每次 train() 都會寫入計算圖 (graph)；Dense(256, ReLU) 是隱藏層"
        )
    )


def test_make_po_refuses_a_helpers_translation_with_a_misspelt_field(tmp_path):
    # a translator's slip that .format() would raise KeyError for: named, with the entry
    po = polib.POFile()
    po.append(polib.POEntry(msgid="unknown strategy {name!r}", msgstr="不認得的策略 {nmae!r}"))
    po.append(polib.POEntry(msgid="{count} steps", msgstr="{count} 步"))
    path = tmp_path / "helpers.po"
    po.save(str(path))
    (line,) = zh_tw_style.report([path])
    assert line.startswith("helpers.po [None] 'unknown strategy {name!r}'")
    assert "missing: {name!r}; not in the English: {nmae!r}" in line
