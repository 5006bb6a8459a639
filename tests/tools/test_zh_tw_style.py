"""tools/zh_tw_style.py: the glossary's rules refuse each kind of wrong translation, and pass
right ones (run on Python 3.10+, where opencc installs)."""

from __future__ import annotations

import pytest

from tools.zh_tw_style import mainland_terms, problems

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
    assert any("line break between Chinese" in problem for problem in broken)
    assert problems("1 process", "單一行程") == []


def test_english_left_as_it_is_is_refused():
    assert "no Chinese in the translation" in problems(ENGLISH, ENGLISH)


def test_a_heading_keeps_its_level():
    found = problems("## Early stopping", "提前停止")
    assert any("Markdown frame" in problem for problem in found)
    assert problems("## Early stopping", "## 提前停止") == []


def test_quoting_the_article_is_allowed():
    english = "The article's section 數據導入 says `input_fn` returns the data."
    assert problems(english, "原文的「數據導入」一節說 `input_fn` 傳回資料。") == []


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
