"""What every exercise check shares: the answer-missing message and the success line."""

from __future__ import annotations

import numbers

from ..problems import CheckFailed


def require_answer(answer, name: str) -> None:
    """Fail plainly when the exercise was left blank (the answer still None)."""
    if answer is None:
        raise CheckFailed(
            f"`{name}` is still None: write your code where the exercise says "
            "`# YOUR CODE HERE` (and remove `raise NotImplementedError()`)"
        )


def correct(message: str) -> None:
    """Print the one success line of a check."""
    print(f"Correct: {message}")


def is_whole_number(value) -> bool:
    """A whole number: an int (not a bool), or a float such as 500.0."""
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Integral):
        return True
    return isinstance(value, numbers.Real) and float(value).is_integer()
