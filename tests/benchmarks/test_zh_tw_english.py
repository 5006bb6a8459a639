"""benchmarks/zh_tw_english.py: the share of English a zh-TW reader meets, on made-up notebooks."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def measure(load_script):
    return load_script("benchmarks/zh_tw_english.py")


def code(cell_id, *lines):
    return {
        "cell_type": "code",
        "id": cell_id,
        "source": "",
        "outputs": [{"output_type": "stream", "name": "stdout", "text": "\n".join(lines)}],
    }


def markdown(text):
    return {"cell_type": "markdown", "id": "m", "source": text}


ENGLISH = {
    "cells": [
        markdown("The hook stops `train()`."),
        code("a", "loss 0.25 at step 100", "Correct: the hook stops at step 300"),
    ]
}
CHINESE = {
    "cells": [
        markdown("hook 會停止 `train()`。<!-- a note --> [筆記本](../x.ipynb)"),
        code("a", "loss 0.31 at step 100", "正確：hook 在第 300 步停止"),
    ]
}


def test_prose_hides_code_comments_and_link_targets(measure):
    assert measure.prose("`x` <!-- y --> [z](w.md)").split() == ["[z"]


def test_the_lesson_prints_are_left_out_and_the_helpers_lines_kept(measure):
    english, chinese = measure.helpers_lines(ENGLISH, CHINESE)
    assert english == {"a": ["Correct: the hook stops at step 300"]}
    assert chinese == {"a": ["正確：hook 在第 300 步停止"]}


def test_the_share_counts_latin_letters_against_cjk_characters(measure):
    _, chinese = measure.helpers_lines(ENGLISH, CHINESE)
    part, latin, cjk = measure.share(CHINESE, chinese)
    # prose: hook, 會停止, 筆記本 (4 letters, 6 CJK); the line: hook, 正確在第步停止 (4, 7)
    assert (latin, cjk) == (8, 13) and part == pytest.approx(8 / 21)
    assert measure.in_english("Correct: 3") and not measure.in_english("正確：hook")
