"""Calling a learner's function the way its exercise says it is called (notebooks 00 and 02): a
function where a function is asked for, its parameters bound before the call so that a wrong
signature is one line, and a scalar result read whatever kind of number it came back as.
"""

from __future__ import annotations

import inspect
import numbers

from .common import fail, require_answer


def function(answer, name: str, call: str):
    """``answer``, refused in one line when it is missing or not a function; ``call`` is how the
    exercise calls it (``majority_accuracy(train_labels, test_labels)``), for the message."""
    require_answer(answer, name)
    if not callable(answer):
        fail(
            "`{name}` should be a function, called as `{call}`, not {kind}",
            name=name,
            call=call,
            kind=type(answer).__name__,
        )
    return answer


def bound(answer, name: str, call: str, *args, **kwargs) -> None:
    """Refuse in one line a function that cannot be called as ``call`` with these arguments."""
    try:
        signature = inspect.signature(answer)
    except (TypeError, ValueError):  # a builtin without a signature: the call will tell
        return
    try:
        signature.bind(*args, **kwargs)
    except TypeError:
        fail(
            "`{name}` takes the parameters ({parameters}), but it is called as `{call}`",
            name=name,
            parameters=", ".join(signature.parameters),
            call=call,
        )


def number(value, name: str, call: str) -> float:
    """``value`` (what ``call`` returned) as a float: a Python or NumPy number, a 0-d array or a
    tensor holding one; anything else is refused in one line."""
    import numpy as np

    if hasattr(value, "numpy") and callable(value.numpy):  # an eager tensor
        value = value.numpy()
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        shape = getattr(value, "shape", None)
        if shape is not None and not isinstance(value, np.generic):  # an array, not a scalar
            fail(
                "`{call}` returned an array of shape {shape}: return one number",
                call=call,
                shape=tuple(shape),
            )
        fail(
            "`{call}` returned {kind}: return one number",
            call=call,
            kind="bool"
            if isinstance(value, np.bool_)
            else str(value)
            if value is None
            else type(value).__name__,
        )
    try:
        return float(value)
    except OverflowError:
        fail("`{call}` returned a number too large to be an accuracy or a count", call=call)
