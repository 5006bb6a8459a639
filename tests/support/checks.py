"""What the tests of the notebooks' exercise checks assert of a wrong answer: the check raises one
``CheckFailed`` whose message names the mistake and gives none of the answer away."""

from __future__ import annotations

import pytest

from helpers.problems import CheckFailed


def failure(check, *args, **kwargs) -> str:
    """The message of the ``CheckFailed`` that ``check(*args, **kwargs)`` must raise."""
    with pytest.raises(CheckFailed) as caught:
        check(*args, **kwargs)
    return str(caught.value)


def assert_names_the_mistake(message: str, words: str, answer_code: tuple = ()) -> None:
    """``message`` says ``words`` and holds none of ``answer_code`` (the message names the mistake,
    never the fix)."""
    assert words in message, message
    for code in answer_code:
        assert code not in message, message
